// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "freplace_probe.skel.h"
#include "kernel_features.h"
#include "napi_netlink.h"
#include "trace.h"

bool kernel_has_btf(void)
{
	return !access("/sys/kernel/btf/vmlinux", R_OK);
}

/* The arguments of tracepoint NAME as tp_btf programs see them, or a
 * negative errno when the kernel has no such tracepoint. The kernel
 * describes it as typedef btf_trace_NAME -> pointer -> function prototype,
 * whose first parameter is the tracepoint's private data, not an argument.
 * A program that reads past the last argument fails verification, and
 * with it the whole object, so the count matters as much as the name:
 * kernels before 5.10 had xdp_cpumap_kthread without its stats pointer.
 */
int kernel_tracepoint_args(const struct btf *vmlinux, const char *name)
{
	const struct btf_type *t;
	char type[64];
	__s32 id;

	snprintf(type, sizeof(type), "btf_trace_%s", name);
	id = btf__find_by_name_kind(vmlinux, type, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(vmlinux, id);
	t = t ? btf__type_by_id(vmlinux, t->type) : NULL;
	if (!t || !btf_is_ptr(t))
		return -EINVAL;
	t = btf__type_by_id(vmlinux, t->type);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1)
		return -EINVAL;
	return btf_vlen(t) - 1;
}

/* Parsing the kernel's BTF takes milliseconds: once per process, kept
 * until it exits.
 */
static const struct btf *vmlinux_btf(void)
{
	static struct btf *btf;
	static bool tried;

	if (!tried) {
		tried = true;
		btf = btf__load_vmlinux_btf();
		if (libbpf_get_error(btf))
			btf = NULL;
	}
	return btf;
}

bool kernel_has_tracepoint(const char *name)
{
	const struct btf *vmlinux = vmlinux_btf();

	return vmlinux && kernel_tracepoint_args(vmlinux, name) >= 0;
}

bool kernel_cpumap_does_gro(void)
{
	const struct btf *btf = vmlinux_btf();
	const struct btf_member *m;
	const struct btf_type *t;
	bool found = false;
	const char *name;
	__s32 id;
	int i;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "bpf_cpu_map_entry", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0, m = t ? btf_members(t) : NULL; t && i < btf_vlen(t) && !found; i++, m++) {
		name = btf__name_by_offset(btf, m->name_off);
		found = name && !strcmp(name, "gro");
	}
	return found;
}

/* Three arguments since 6.3's release: (ctx, hash, rss_type). */
bool kernel_has_rx_hash(void)
{
	const struct btf *btf = vmlinux_btf();
	const struct btf_type *t;
	__s32 id;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "bpf_xdp_metadata_rx_hash", BTF_KIND_FUNC);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	return t && btf_is_func_proto(t) && btf_vlen(t) == 3;
}

enum napi_netlink kernel_napi_netlink(void)
{
	enum napi_netlink found = NAPI_NETLINK_NONE;
	struct napi_nl nl;

	napi_nl_init(&nl);
	if (!napi_nl_open_dump(&nl))
		found = nl.can_set ? NAPI_NETLINK_SET : NAPI_NETLINK_GET;
	napi_nl_close(&nl);
	return found;
}

/* Two copies of one object: the first loads the target alone, the second
 * the extension against the target's fd (libbpf loads an object's programs
 * together, and an extension needs its target loaded first).
 */
int kernel_freplace_probe(void)
{
	struct freplace_probe *target, *ext = NULL;
	int err, link;

	target = freplace_probe__open();
	if (!target)
		return -errno;
	bpf_program__set_autoload(target->progs.probe_extension, false);
	err = freplace_probe__load(target);
	if (!err) {
		ext = freplace_probe__open();
		err = ext ? 0 : -errno;
	}
	if (!err) {
		bpf_program__set_autoload(ext->progs.probe_target, false);
		err = bpf_program__set_attach_target(ext->progs.probe_extension,
						     bpf_program__fd(target->progs.probe_target),
						     "probe_target");
	}
	if (!err)
		err = freplace_probe__load(ext);
	if (!err) {
		/* Attached to the target it was loaded for, as libxdp does. */
		link = bpf_raw_tracepoint_open(NULL, bpf_program__fd(ext->progs.probe_extension));
		if (link < 0)
			err = -errno;
		else
			close(link);
	}
	freplace_probe__destroy(ext);
	freplace_probe__destroy(target);
	return err;
}

__u32 kernel_features_probe(void)
{
	__u32 bits = 0;
	int tp;

	if (kernel_has_btf())
		bits |= KF_BTF;
	if (kernel_cpumap_does_gro())
		bits |= KF_CPUMAP_GRO;
	if (kernel_has_rx_hash())
		bits |= KF_RX_HASH;
	if (!kernel_freplace_probe())
		bits |= KF_FREPLACE;
	for (tp = 0; tp < TP_COUNT; tp++)
		if (kernel_has_tracepoint(tracepoint_name(tp)))
			bits |= KF_TRACEPOINT(tp);
	return bits;
}

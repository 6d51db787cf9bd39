// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kernel_features.h"

bool kernel_has_btf(void)
{
	return !access("/sys/kernel/btf/vmlinux", R_OK);
}

/* btf__find_by_name_kind() stays silent on a miss, where libbpf's
 * find_vmlinux_btf_id() would print a warning for every probe.
 */
bool kernel_has_tracepoint(const char *name)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	char type[128];
	bool found;

	if (libbpf_get_error(vmlinux))
		return false;
	snprintf(type, sizeof(type), "btf_trace_%s", name);
	found = btf__find_by_name_kind(vmlinux, type, BTF_KIND_TYPEDEF) > 0;
	btf__free(vmlinux);
	return found;
}

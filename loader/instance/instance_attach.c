// SPDX-License-Identifier: GPL-2.0
/* Attaching the steering program with libxdp, and detaching it.
 *
 * libxdp shares an interface between programs through its dispatcher, an
 * XDP program whose slots hold extension (freplace) programs. libxdp makes
 * a program such an extension only when it loads the program itself,
 * against the dispatcher. A program already loaded as XDP it could only
 * re-attach to the dispatcher, which the kernel refuses for an XDP
 * program; libxdp then attaches it alone, dispatcher or not. So where the
 * kernel takes extensions, libxdp gets the program unloaded, in a second
 * object of the same ELF whose maps are the instance's own, already
 * filled: the program libxdp loads sees the configuration from its first
 * packet on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "instance.h"
#include "kernel_features.h"
#include "log.h"
#include "steer.skel.h"

/* libxdp's own switch: set to 1, it attaches a single program alone. */
#define SKIP_DISPATCHER_ENV "LIBXDP_SKIP_DISPATCHER"

enum attach_path instance_attach_path(void)
{
	const char *skip = getenv(SKIP_DISPATCHER_ENV);

	if (skip && !strcmp(skip, "1"))
		return ATTACH_SINGLE;
	return kernel_freplace_probe() ? ATTACH_SINGLE : ATTACH_DISPATCHER;
}

/* The second object: every map is the instance's (libbpf neither creates
 * nor fills a map given an fd, read-only data included), and only the
 * program to attach is loaded.
 */
static int open_attach_object(struct steer_instance *in)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = bpf_object__name(in->skel->obj));
	struct bpf_map *map, *mine;
	struct bpf_program *prog;
	const void *elf;
	size_t size;
	int err;

	elf = steer__elf_bytes(&size);
	in->attach_obj = bpf_object__open_mem(elf, size, &opts);
	if (!in->attach_obj) {
		err = -errno;
		log_err("cannot open the steering program for libxdp: %s", strerror(-err));
		return err;
	}
	bpf_object__for_each_map(map, in->attach_obj) {
		mine = bpf_object__find_map_by_name(in->skel->obj, bpf_map__name(map));
		err = mine ? bpf_map__reuse_fd(map, bpf_map__fd(mine)) : -ENOENT;
		if (err) {
			log_err("cannot share map %s with libxdp's copy of the program: %s",
				bpf_map__name(map), strerror(-err));
			return err;
		}
	}
	bpf_object__for_each_program(prog, in->attach_obj)
		bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog), in->attach_name));
	return 0;
}

static int program_for_libxdp(struct steer_instance *in, struct xdp_program **xp)
{
	DECLARE_LIBXDP_OPTS(xdp_program_opts, opts, .prog_name = in->attach_name);
	int err;

	if (in->path == ATTACH_SINGLE) {
		*xp = xdp_program__from_fd(in->steer_prog);
	} else {
		err = open_attach_object(in);
		if (err)
			return err;
		opts.obj = in->attach_obj;
		*xp = xdp_program__create(&opts);
		/* The program reads multi-buffer frames: libxdp gives its
		 * dispatcher frags when every program says so, then loads the
		 * extension itself without the flag.
		 */
		if (!libxdp_get_error(*xp))
			xdp_program__set_xdp_frags_support(*xp, true);
	}
	err = libxdp_get_error(*xp);
	if (err)
		log_err("cannot hand the program to libxdp: %s", strerror(-err));
	return err;
}

static void report_attach_error(const struct steer_instance *in, const char *shown, int err)
{
	if (err == -EBUSY || err == -EEXIST)
		log_err("cannot attach to %s: another XDP program is attached and it is not a libxdp dispatcher (see xdp-loader status)",
			shown);
	else if (err == -EOPNOTSUPP)
		log_err("cannot attach to %s: the driver does not support this XDP mode (try --xdp-mode skb)",
			shown);
	else if (in->path == ATTACH_DISPATCHER)
		log_err("cannot attach to %s through libxdp's dispatcher: %s (%s=1 attaches cpusteer alone)",
			shown, strerror(-err), SKIP_DISPATCHER_ENV);
	else
		log_err("cannot attach to %s: %s", shown, strerror(-err));
}

int instance_attach(struct steer_instance *in, const char *shown, int ifindex, int xdp_mode)
{
	struct xdp_program *xp;
	int err;

	err = program_for_libxdp(in, &xp);
	if (err)
		return err;
	err = xdp_program__attach(xp, ifindex, xdp_mode, 0);
	if (err) {
		xdp_program__close(xp);
		report_attach_error(in, shown, err);
		return err;
	}
	if (in->path == ATTACH_DISPATCHER)
		in->steer_prog = bpf_program__fd(
			bpf_object__find_program_by_name(in->attach_obj, in->attach_name));
	in->xdp = xp;
	in->ifindex = ifindex;
	in->xdp_mode = xdp_mode;
	return 0;
}

void instance_detach(struct steer_instance *in)
{
	if (!in->xdp)
		return;
	xdp_program__detach(in->xdp, in->ifindex, in->xdp_mode, 0);
	xdp_program__close(in->xdp);
	in->xdp = NULL;
}

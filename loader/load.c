// SPDX-License-Identifier: GPL-2.0
/* cpusteer load: open, fill every map, attach, apply the device settings,
 * then pin; a failure at any step undoes the steps before it, so bad input
 * leaves the interface, its settings and /sys/fs/bpf as they were.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <xdp/libxdp.h>
#include "commands.h"
#include "load_opts.h"
#include "kernel_features.h"
#include "log.h"
#include "names.h"
#include "state.h"

static int check_target(const struct load_opts *lo, int *ifindex)
{
	*ifindex = if_nametoindex(lo->ifname);
	if (!*ifindex) {
		log_err("cannot load on %s: no such interface", lo->ifname);
		return -ENODEV;
	}
	if (instance_is_pinned(lo->ifname)) {
		log_err("cpusteer is already loaded on %s; use cpusteer set %s to change it",
			lo->ifname, lo->ifname);
		return -EEXIST;
	}
	return 0;
}

static void print_loaded(const struct load_opts *lo, const struct cpusteer_instance_state *st)
{
	char cpus[256];

	cpuset_format(&lo->steer.cpus, cpus, sizeof(cpus));
	printf("cpusteer: loaded on %s (%s mode, program id %u): cpus %s, %u buckets, qsize %u, remote %s%s\n",
	       lo->ifname, lo->xdp_mode == XDP_MODE_SKB ? "skb" : "native", st->prog_id, cpus,
	       lo->steer.cfg.nbuckets, lo->cm.qsize, remote_action_name(lo->cm.remote),
	       lo->notouch ? ", no-touch floor" : "");
	if (device_is_veth(lo->ifname))
		printf("note: %s is a veth: its peer must send with tx checksumming off (ethtool -K PEER tx off),\n"
		       "      or steered TCP/UDP arrives as checksum errors and is dropped by the stack\n",
		       lo->ifname);
	if (!kernel_cpumap_does_gro())
		printf("note: this kernel's cpumap does not do GRO itself; steered TCP is not coalesced\n");
}

static int load(struct load_opts *lo)
{
	struct cpusteer_instance_state st = {};
	struct steer_instance in;
	int ifindex, err;

	err = check_target(lo, &ifindex);
	if (!err)
		err = steer_opts_finish(&lo->steer);
	if (!err)
		err = bpffs_check();
	if (err)
		return err;
	err = instance_open(&in, false);
	if (err)
		return err;
	err = instance_configure(&in, &lo->steer, &lo->cm);
	if (err)
		goto out_close;
	err = instance_attach(&in, lo->ifname, ifindex, lo->xdp_mode, lo->notouch);
	if (err)
		goto out_close;
	state_from_opts(&st, lo, ifindex);
	st.prog_id = instance_attached_prog_id(&in);
	if (lo->dev.mask) {
		struct device_settings saved = {};

		err = device_apply(lo->ifname, &lo->dev, &saved);
		if (err)
			goto out_detach;
		state_set_device(&st, &saved, &lo->dev);
	}
	err = instance_write_state(&in, &st);
	/* Mount bpffs only now, so input rejected earlier leaves none. */
	if (!err)
		err = bpffs_ensure();
	if (!err)
		err = instance_pin(&in, lo->ifname);
	if (err)
		goto out_restore;
	print_loaded(lo, &st);
	instance_close(&in);
	return 0;

out_restore:
	if (lo->dev.mask) {
		struct device_settings saved;

		state_get_saved(&st, &saved);
		device_restore(lo->ifname, &saved);
	}
out_detach:
	instance_detach(&in);
out_close:
	instance_close(&in);
	return err;
}

int cmd_load(int argc, char **argv)
{
	struct load_opts lo;
	int err = load_opts_parse(&lo, "load", argc, argv);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (require_root("load"))
		return 1;
	return load(&lo) ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/* cpusteer unload: detach, restore the device settings cpusteer changed,
 * remove the pins. It finishes whatever is left of an instance: an
 * interface that vanished or pins that are half gone are not errors.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <xdp/libxdp.h>
#include "commands.h"
#include "device.h"
#include "instance.h"
#include "log.h"
#include "state.h"

static const char unload_usage[] =
	"usage: cpusteer unload IFACE\n"
	"Detaches cpusteer from IFACE, restores the device settings it changed\n"
	"and removes its pins. Succeeds on what is left when the interface has\n"
	"vanished or the instance is half gone.\n";

/* The pinned record, read without loading anything: a half-gone
 * instance may have no other pin left.
 */
static bool read_state(const char *ifname, struct cpusteer_instance_state *st)
{
	struct bpf_map_info info = {};
	__u32 zero = 0, len = sizeof(info);
	char path[256];
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s/instance_state", CPUSTEER_PIN_ROOT, ifname);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	/* A record of another size is another version's: unreadable. */
	err = bpf_obj_get_info_by_fd(fd, &info, &len) || info.value_size != sizeof(*st) ||
	      bpf_map_lookup_elem(fd, &zero, st);
	close(fd);
	return !err && st->ifindex;
}

/* Detaches only the program cpusteer attached: whatever else sits on the
 * interface now is left alone.
 */
static const char *detach(const char *ifname, int ifindex,
			  const struct cpusteer_instance_state *st)
{
	struct xdp_program *xp;
	int fd, err;

	fd = bpf_prog_get_fd_by_id(st->prog_id);
	if (fd < 0)
		return "its program was already gone";
	xp = xdp_program__from_fd(fd);
	close(fd);
	if (libxdp_get_error(xp))
		return "libxdp could not take the program";
	err = xdp_program__detach(xp, ifindex, XDP_MODE_UNSPEC, 0);
	xdp_program__close(xp);
	if (err == -ENOENT)
		return "its program was no longer attached";
	if (err) {
		log_err("cannot detach from %s: %s", ifname, strerror(-err));
		return NULL;
	}
	return "detached";
}

static int unload(const char *ifname)
{
	struct cpusteer_instance_state st = {};
	struct device_settings saved;
	const char *how = "pins removed";
	bool have_state, restored = true;
	char ns[256];
	int ifindex;

	if (!instance_is_pinned(ifname)) {
		log_err("cpusteer is not loaded on %s (nothing under %s/%s)", ifname,
			CPUSTEER_PIN_ROOT, ifname);
		return -ENOENT;
	}
	have_state = read_state(ifname, &st);
	ifindex = if_nametoindex(ifname);
	if (have_state && !state_in_current_netns(&st) && state_netns_name(&st, ns, sizeof(ns))) {
		log_err("cpusteer on %s was loaded in network namespace %s; unload it there (nsenter --net=/run/netns/%s cpusteer unload %s)",
			ifname, ns, ns, ifname);
		return -EXDEV;
	}
	if (!have_state) {
		how = "the instance was half gone (no state); pins removed";
	} else if (!state_in_current_netns(&st) || !ifindex || (__u32)ifindex != st.ifindex) {
		how = "the interface is gone; pins removed";
	} else {
		how = detach(ifname, ifindex, &st);
		if (!how)
			return -EIO;
		state_get_saved(&st, &saved);
		restored = !saved.mask || !device_restore(ifname, &saved);
	}
	instance_unpin(ifname);
	printf("cpusteer: unloaded from %s: %s%s\n", ifname, how,
	       restored ? "" : "; some device settings were not restored (see above)");
	return restored ? 0 : -EIO;
}

int cmd_unload(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(unload_usage, stdout);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		fputs(unload_usage, stderr);
		return EXIT_USAGE;
	}
	if (require_root("unload"))
		return 1;
	return unload(argv[1]) ? 1 : 0;
}

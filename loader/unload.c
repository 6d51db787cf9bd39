// SPDX-License-Identifier: GPL-2.0
/* cpusteer unload: detach, restore the device settings cpusteer changed,
 * remove the pins, through the change protocol (change.h), which
 * finishes whatever is left of an instance, whatever command was killed
 * while making it. This file finds the instance: here, or where its
 * interface went. A cpusteer program whose pins are gone is found by its
 * name and detached too.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include "attached_prog.h"
#include "change.h"
#include "commands.h"
#include "elsewhere.h"
#include "lock.h"
#include "log.h"

/* Detaches a cpusteer program no instance recorded (its pins are gone):
 * only where that is proven, in the bpffs cpusteer pins in. Anywhere else
 * the pins may exist where this command cannot see them.
 */
static int detach_orphan(const struct instance_dir *d, const struct attached_prog *a,
			 struct change_unload_outcome *o)
{
	int err;

	if (!pin_tree_root_exists()) {
		log_err("cannot tell whether cpusteer program %u on %s has pins: %s does not exist on this bpffs, which may not be the one it was pinned on; mount that one, or detach the program by hand (ip link set dev %s xdp off)",
			a->prog_id, d->shown, CPUSTEER_PIN_ROOT, d->shown);
		return -ENOENT;
	}
	err = attached_prog_detach(if_nametoindex(d->ifname), a, d->shown);
	if (err)
		return err;
	snprintf(o->how, sizeof(o->how),
		 "detached cpusteer program %u, which had no pins (device settings unknown, left alone)",
		 a->prog_id);
	return 0;
}

/* Opens, locked, the instance another search found; it may have been
 * unloaded meanwhile by another command.
 */
static int open_found(struct instance_dir *d, const char *ifname, const struct elsewhere *e)
{
	char shown[IFNAME_SHOWN_LEN];
	int err;

	snprintf(shown, sizeof(shown), "%s", d->shown);
	instance_dir_init_in(d, ifname, e->netns_cookie, e->netns_ino);
	err = instance_dir_open(d, DIR_LOCK_EX);
	if (err == -ENOENT)
		log_err("cpusteer is not loaded on %s in this network namespace", shown);
	return err;
}

/* No instance of this name here: the instance whose program sits on the
 * interface (it moved here from another namespace, or was renamed), then
 * one of that name whose namespace is gone; else a cpusteer program no
 * instance recorded is detached. Leaves in *d the instance to unload, if
 * any, open and locked.
 */
static int find_elsewhere(struct instance_dir *d, bool *here, struct change_unload_outcome *o)
{
	struct elsewhere owner, e;
	struct attached_prog a;

	instance_dir_prune(d);
	if (!elsewhere_attached(d->ifname, &a, &owner)) {
		if (!owner.found)
			return detach_orphan(d, &a, o);
		*here = owner.netns_cookie == d->netns_cookie;
		return open_found(d, owner.ifname, &owner);
	}
	elsewhere_find(d, &e);
	if (e.found && e.ns_gone) {
		/* Its namespace is gone: nothing can reach it but this. */
		*here = false;
		return open_found(d, e.ifname, &e);
	}
	elsewhere_report(d, &e, "unload");
	return -ENOENT;
}

/* Whether the open folder holds what a killed load or unload left: no
 * pin, pins without a record, or a record in one of their phases. An
 * instance in service, or one whose record another cpusteer version
 * wrote, is not: --stranded leaves it alone.
 */
static bool stranded(const struct instance_dir *d)
{
	struct cpusteer_instance_state st;
	int err;

	if (instance_dir_is_empty(d))
		return true;
	err = instance_read_record(d->fd, &st);
	if (err)
		return err == -ENOENT;
	return !state_in_service(st.phase);
}

struct unload_opts {
	bool stranded;
};

static int unload(const char *ifname, const struct unload_opts *opts)
{
	struct change_unload_outcome o = { .how = "pins removed", .restored = true };
	struct instance_dir d;
	bool here = true;
	int err;

	err = instance_dir_init(&d, ifname);
	if (!err)
		err = bpffs_check();
	if (err)
		return err;
	signals_defer();
	err = instance_dir_open(&d, DIR_LOCK_EX);
	if (opts->stranded && (err == -ENOENT || (!err && !stranded(&d)))) {
		/* Nothing stranded: what serves is not this option's. */
		instance_dir_close(&d);
		signals_report_held("unload", 0);
		return 0;
	}
	if (err == -ENOENT)
		err = find_elsewhere(&d, &here, &o);
	if (!err && d.fd >= 0) {
		err = change_unload(&d, here, &o);
		instance_dir_close(&d);
	}
	if (!err)
		printf("cpusteer: unloaded from %s: %s%s\n", d.shown, o.how,
		       o.restored ? "" : "; some device settings were not restored (see above)");
	signals_report_held("unload", err);
	if (!err && !o.restored)
		err = -EIO;
	return err;
}

static const struct cli_option unload_options[] = {
	CLI_FLAG("stranded", struct unload_opts, stranded,
		 "only what a killed load or unload left; an instance in\n"
		 "service stays, and nothing there is no error"),
	{}
};

const struct cli_command unload_command = {
	.name = "unload",
	.summary = "detach, restore device settings, remove pins",
	.operands = "IFACE",
	.about = "Detaches cpusteer from IFACE, restores the device settings it changed\n"
		 "and removes its pins. Finishes what an interrupted command left, and\n"
		 "succeeds on what is left when the interface has vanished.\n",
	.groups = { { unload_options, 0 } },
	.run = cmd_unload,
};

int cmd_unload(int argc, char **argv)
{
	struct unload_opts o = {};
	int operand, err;

	err = cli_parse(&unload_command, argc, argv, &o, &operand);
	if (err)
		return cli_exit_status(err);
	if (ifname_check(argv[operand]))
		return EXIT_USAGE;
	if (require_root("unload"))
		return EXIT_FAILURE;
	return exit_code(unload(argv[operand], &o));
}

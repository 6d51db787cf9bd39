// SPDX-License-Identifier: GPL-2.0
/* cpusteer unload: detach, restore the device settings cpusteer changed,
 * remove the pins. It finishes whatever is left of an instance, whatever
 * command was killed while making it: the program is detached where the
 * kernel says it is attached, in the mode it has, and the device settings
 * are restored only on the device the program is attached to (a device
 * that replaced the interface under the same name or index is not
 * cpusteer's to change). A cpusteer program whose pins are gone is found
 * by its name and detached too.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include "attached_prog.h"
#include "commands.h"
#include "device.h"
#include "elsewhere.h"
#include "lock.h"
#include "log.h"
#include "netns.h"
#include "instance_state.h"

/* What became of the device and its settings, for the closing line. */
struct outcome {
	char how[400];
	bool restored;
};

static void note_saved(const struct instance_dir *d, const struct device_settings *saved)
{
	char list[160];

	if (!saved->mask)
		return;
	device_settings_format(saved, list, sizeof(list));
	log_err("note: the settings cpusteer changed on %s were, before it: %s", d->shown, list);
}

/* Puts `saved` back on device `name`; when that fails the pins go all the
 * same (what failed may never work), so the values go to the operator.
 */
static void restore(const struct instance_dir *d, const char *name,
		    const struct device_settings *saved, struct outcome *o)
{
	o->restored = !device_restore(name, saved);
	if (!o->restored)
		note_saved(d, saved);
}

/* Detaches the program of `a` from ifindex and restores `saved` on that
 * device, in the calling thread's network namespace.
 */
static int undo_attached(const struct instance_dir *d, int ifindex, const struct attached_prog *a,
			 const struct device_settings *saved, struct outcome *o)
{
	char name[IF_NAMESIZE];
	int err = attached_prog_detach(ifindex, a, d->shown);

	if (err && err != -ENOENT)
		return err;
	/* The device may have been renamed since; its index is what counts. */
	if (saved->mask && if_indextoname(ifindex, name))
		restore(d, name, saved, o);
	return 0;
}

/* An interface moved to another network namespace keeps its program:
 * found there by the program's id, it is undone there.
 */
struct moved {
	const struct instance_dir *d;
	const struct cpusteer_instance_state *st;
	struct outcome *o;
	const char *path;
	int err;
};

static int undo_here_if_attached(void *arg)
{
	struct moved *m = arg;
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct device_settings saved;
	struct attached_prog a;
	char shown[IFNAME_SHOWN_LEN];
	int found = 0;

	state_get_saved(m->st, &saved);
	for (i = ifs; i && i->if_index && !found; i++) {
		if (attached_prog_find(i->if_index, m->st->prog_id, &a))
			continue;
		found = 1;
		m->err = undo_attached(m->d, i->if_index, &a, &saved, m->o);
		log_printable(i->if_name, shown, sizeof(shown));
		if (strcmp(m->path, NETNS_SELF))
			snprintf(m->o->how, sizeof(m->o->how),
				 "the interface had moved to network namespace %s (as %s); detached there",
				 m->path, shown);
		else
			snprintf(m->o->how, sizeof(m->o->how),
				 "the interface had moved here (as %s) or was renamed; detached", shown);
	}
	if (ifs)
		if_freenameindex(ifs);
	return found;
}

static int search_namespace(const char *path, int nsfd, void *arg)
{
	struct moved *m = arg;

	m->path = path;
	return netns_run_in(nsfd, undo_here_if_attached, m) > 0;
}

/* Detaches the recorded program and restores the recorded settings where
 * that program is attached: on the recorded interface, or wherever it
 * moved. A program already detached (by an unload killed before it
 * restored the settings, or by hand) leaves the settings to restore on
 * the recorded device if it is still there. `here`: the instance belongs
 * to this namespace (else to one that is gone, whose physical devices the
 * kernel moved to the initial one).
 */
static int undo_device(const struct instance_dir *d, const struct cpusteer_instance_state *st,
		       bool here, struct outcome *o)
{
	struct moved m = { .d = d, .st = st, .o = o };
	struct device_settings saved;
	struct attached_prog a;
	char name[IF_NAMESIZE];

	state_get_saved(st, &saved);
	if (here && !attached_prog_find(st->ifindex, st->prog_id, &a)) {
		snprintf(o->how, sizeof(o->how), "detached");
		return undo_attached(d, st->ifindex, &a, &saved, o);
	}
	if (here && state_device_here(st)) {
		snprintf(o->how, sizeof(o->how), "its program was already detached%s",
			 saved.mask ? "; device settings restored" : "");
		if (saved.mask)
			restore(d, st->ifname, &saved, o);
		return 0;
	}
	if (netns_for_each(search_namespace, &m, !here))
		return m.err;
	if (!here) {
		snprintf(o->how, sizeof(o->how),
			 "its network namespace no longer exists, nor its program's attachment");
	} else if (if_indextoname(st->ifindex, name)) {
		snprintf(o->how, sizeof(o->how),
			 "the interface was replaced by another device; its settings left as they are");
		note_saved(d, &saved);
	} else {
		snprintf(o->how, sizeof(o->how), "the interface is gone");
	}
	return 0;
}

/* Detaches a cpusteer program no instance recorded (its pins are gone):
 * only where that is proven, in the bpffs cpusteer pins in. Anywhere else
 * the pins may exist where this command cannot see them.
 */
static int detach_orphan(const struct instance_dir *d, const struct attached_prog *a,
			 struct outcome *o)
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

/* With no record this binary can read (a load killed before it wrote
 * one, or pins of another version), the instance's program is the
 * cpusteer program on its interface that no readable record owns: it goes
 * with the pins. The device settings it may have changed are unknown and
 * stay as they are.
 */
static int detach_unrecorded(const struct instance_dir *d, bool here, struct outcome *o)
{
	struct elsewhere owner;
	struct attached_prog a;
	int err;

	snprintf(o->how, sizeof(o->how), "no record was left; pins removed");
	if (!here || elsewhere_attached(d->ifname, &a, &owner) || owner.found)
		return 0;
	err = attached_prog_detach(if_nametoindex(d->ifname), &a, d->shown);
	if (!err)
		snprintf(o->how, sizeof(o->how),
			 "detached cpusteer program %u; its record was unreadable or missing, so device settings were left alone; pins removed",
			 a.prog_id);
	return err;
}

static int unload_locked(struct instance_dir *d, bool here, struct outcome *o)
{
	struct cpusteer_instance_state st;
	struct steer_instance in;
	int err;

	instance_init(&in);
	if (instance_open_record(&in, d->fd) || instance_read_state(&in, &st)) {
		err = detach_unrecorded(d, here, o);
		if (err) {
			instance_close(&in);
			return err;
		}
	} else {
		state_enter(&st, CPUSTEER_PHASE_UNLOADING);
		instance_write_state(&in, &st);
		err = undo_device(d, &st, here, o);
		if (err) {
			instance_close(&in);
			return err;
		}
	}
	instance_close(&in);
	return instance_dir_remove(d);
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
static int find_elsewhere(struct instance_dir *d, bool *here, struct outcome *o)
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
	struct outcome o = { .how = "pins removed", .restored = true };
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
		err = unload_locked(&d, here, &o);
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

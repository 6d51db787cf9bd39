// SPDX-License-Identifier: GPL-2.0
/* The change protocol's last step (change.h): an instance taken down,
 * whatever command was killed while making or changing it. The record
 * says UNLOADING first; the program is detached where the kernel says it
 * is attached, in the mode it has, and the device settings are restored
 * only on the device the program is attached to (a device that replaced
 * the interface under the same name or index is not cpusteer's to
 * change); the pins go last, so a killed unload is finished by the next.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include "attached_prog.h"
#include "change.h"
#include "elsewhere.h"
#include "log.h"
#include "netns.h"

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
		    const struct device_settings *saved, struct change_unload_outcome *o)
{
	o->restored = !device_restore(name, saved);
	if (!o->restored)
		note_saved(d, saved);
}

/* Detaches the program of `a` from ifindex and restores `saved` on that
 * device, in the calling thread's network namespace.
 */
static int undo_attached(const struct instance_dir *d, int ifindex, const struct attached_prog *a,
			 const struct device_settings *saved, struct change_unload_outcome *o)
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
	struct change_unload_outcome *o;
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
		       bool here, struct change_unload_outcome *o)
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

/* With no record this binary can read (a load killed before it wrote
 * one, or pins of another version), the instance's program is the
 * cpusteer program on its interface that no readable record owns: it goes
 * with the pins. The device settings it may have changed are unknown and
 * stay as they are.
 */
static int detach_unrecorded(const struct instance_dir *d, bool here,
			     struct change_unload_outcome *o)
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

int change_unload(struct instance_dir *d, bool here, struct change_unload_outcome *o)
{
	struct cpusteer_instance_state st;
	struct steer_instance in;
	int err;

	instance_init(&in);
	if (instance_open_record(&in, d->fd) || instance_read_state(&in, &st)) {
		err = detach_unrecorded(d, here, o);
	} else {
		state_enter(&st, CPUSTEER_PHASE_UNLOADING);
		instance_write_state(&in, &st);
		err = undo_device(d, &st, here, o);
	}
	instance_close(&in);
	return err ? err : instance_dir_remove(d);
}

/* SPDX-License-Identifier: GPL-2.0 */
/* Instances seen from a namespace that holds none by the name asked for:
 * one of that name in another network namespace (an operator who runs a
 * command in the wrong namespace is told where it is and the command to
 * run there; one whose namespace no longer exists is found for unload to
 * remove), and the instance a cpusteer program attached here belongs to
 * (its interface moved here from another namespace, or was renamed).
 */
#ifndef CPUSTEER_ELSEWHERE_H
#define CPUSTEER_ELSEWHERE_H

#include <net/if.h>
#include <linux/types.h>
#include "attached_prog.h"
#include "cpusteer.h"
#include "pin_tree.h"

struct elsewhere {
	bool found;
	bool ns_gone;		/* no process or mount holds its namespace */
	__u64 netns_cookie;
	__u64 netns_ino;
	char ifname[IF_NAMESIZE];	/* the instance's name */
	char netns_path[300];	/* how to enter it, when not gone */
};

/* The record of the instance (cookie, ifname), read without its lock;
 * 0, or a negative errno when there is none or it is unreadable.
 */
int elsewhere_record(__u64 cookie, const char *ifname, struct cpusteer_instance_state *st);

/* Where the instance (cookie, ifname) lives: fills e. */
void elsewhere_describe(__u64 cookie, const char *ifname, struct elsewhere *e);

/* Looks for an instance named like `here` in another namespace; a live
 * namespace is preferred over a gone one.
 */
void elsewhere_find(const struct instance_dir *here, struct elsewhere *e);

/* Whether a cpusteer program is attached to `ifname` here (0, with *a),
 * and, in *owner, the instance of any namespace that recorded it.
 */
int elsewhere_attached(const char *ifname, struct attached_prog *a, struct elsewhere *owner);

/* elsewhere_find() and elsewhere_report() in one, for a command that
 * acts only on the instance of this namespace.
 */
void elsewhere_not_here(const struct instance_dir *here, const char *command);

/* Opens the folder of the instance of `ifname` in this namespace, for
 * `command`, under `lock` (DIR_LOCK_EX or DIR_LOCK_SH), deferring signals
 * first for a command that changes it: -ENOENT after elsewhere_not_here's
 * line when nothing is loaded here, other failures with their own line.
 */
int elsewhere_open_here(struct instance_dir *d, const char *ifname, int lock,
			const char *command);

/* One line for a command that found no instance of `here` in this
 * namespace: where it is instead and the command to run there (the
 * command line this process was given, every option kept; "cpusteer
 * COMMAND IFACE" outside the command line), or that it is loaded nowhere.
 */
void elsewhere_report(const struct instance_dir *here, const struct elsewhere *e,
		      const char *command);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Instances of the same interface name in other network namespaces: an
 * operator who runs a command in the wrong namespace is told where the
 * instance is and the command to run there; one whose namespace no
 * longer exists is found for unload to remove.
 */
#ifndef CPUSTEER_ELSEWHERE_H
#define CPUSTEER_ELSEWHERE_H

#include <linux/types.h>
#include "pin_tree.h"

struct elsewhere {
	bool found;
	bool ns_gone;		/* no process or mount holds its namespace */
	__u64 netns_cookie;
	__u64 netns_ino;
	char netns_path[300];	/* how to enter it, when not gone */
};

/* Looks for an instance named like `here` in another namespace; a live
 * namespace is preferred over a gone one.
 */
void elsewhere_find(const struct instance_dir *here, struct elsewhere *e);

/* One line for a command that found no instance of `here` in this
 * namespace: where it is instead and the command to run there
 * ("cpusteer COMMAND IFACE"), or that it is loaded nowhere.
 */
void elsewhere_report(const struct instance_dir *here, const struct elsewhere *e,
		      const char *command);

#endif

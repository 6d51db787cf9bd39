/* SPDX-License-Identifier: GPL-2.0 */
/* Whether, where and how a cpusteer program is attached to a device, as
 * the kernel reports it (through libxdp, which also sees inside its own
 * dispatcher), and detaching exactly that program in the mode it has.
 * The pinned record says what cpusteer attached; this says what is there.
 * It serves whoever finds a program this process did not attach (status,
 * unload, the bench); attaching an instance's own program, and detaching
 * it through the handle that gave, is instance_attach.c's.
 */
#ifndef CPUSTEER_ATTACHED_PROG_H
#define CPUSTEER_ATTACHED_PROG_H

#include <stdbool.h>
#include <linux/types.h>

struct attached_prog {
	__u32 prog_id;
	int mode;		/* libxdp's enum xdp_attach_mode */
	bool dispatcher;	/* one of the programs of a libxdp dispatcher */
};

/* Finds the program `prog_id` on `ifindex`, or with prog_id 0 any program
 * named like cpusteer's (for a program whose pins are gone). 0 and *a when
 * found, -ENOENT when not.
 */
int attached_prog_find(int ifindex, __u32 prog_id, struct attached_prog *a);

/* The same for the first program that `wanted` accepts, given its id and
 * name (NULL when unknown): for programs that are not cpusteer's.
 */
typedef bool (*attached_prog_filter)(__u32 prog_id, const char *name, void *arg);
int attached_prog_find_by(int ifindex, attached_prog_filter wanted, void *arg,
			  struct attached_prog *a);

/* Detaches the program of `a` from `ifindex` in its own mode (a detach in
 * another mode is refused). One line naming `shown` on failure.
 */
int attached_prog_detach(int ifindex, const struct attached_prog *a, const char *shown);


#endif

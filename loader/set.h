/* SPDX-License-Identifier: GPL-2.0 */
/* What other commands change on a running instance through set's path:
 * the record says a change is under way before the maps move, and a
 * failure puts the maps back as the packets saw them.
 */
#ifndef CPUSTEER_SET_H
#define CPUSTEER_SET_H

#include <linux/types.h>
#include "instance.h"
#include "pin_tree.h"

/* Writes `table` (nbuckets entries, each naming a CPU of the instance)
 * as the bucket table of the instance in `d`, whose lock the caller
 * holds, leaving every other setting as it is. Refused with one line when
 * an interrupted command left the instance between configurations, and
 * with -ESTALE, silently, when the live table no longer has `nbuckets`
 * buckets (a set resized it since the caller read it).
 */
int set_table_locked(const struct instance_dir *d, struct steer_instance *in,
		     const __u32 *table, __u32 nbuckets);

#endif

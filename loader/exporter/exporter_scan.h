/* SPDX-License-Identifier: GPL-2.0 */
/* The instances `cpusteer exporter` follows, in every network namespace:
 * at each scrape it walks the pin tree, reads every instance under a
 * shared lock that it lets go before the next one (skipping, without a
 * long wait, an instance whose lock a command holds), counts the
 * tracepoint events of instances it has not seen before, and closes what
 * it kept of instances that are gone. Between scrapes it holds no lock,
 * only one set of tracepoint programs for every instance and the counter
 * maps of each (trace.h), whose counts start when they are made.
 *
 * Whether an instance's interface is still there is looked up from inside
 * the instance's network namespace, so scan_update() moves the calling
 * thread there and back: call it from the main thread only, and from one
 * thread at a time.
 */
#ifndef CPUSTEER_EXPORTER_SCAN_H
#define CPUSTEER_EXPORTER_SCAN_H

#include "exporter_metrics.h"

struct scan;

/* 0, or a negative errno after one line. With `tracepoints` false no
 * tracepoint program is attached: the data path pays nothing for them,
 * their series stay 0 and cpusteer_tracepoint_attached says 0. With it,
 * the programs are attached while there is an instance to count for.
 */
int scan_open(struct scan **s, bool tracepoints);
void scan_close(struct scan *s);

/* Reads every instance into *out, which stays valid until the next call.
 * A state folder that is refused (pin_tree.h) is said in *out, with one
 * line the first time only. -ENOTRECOVERABLE when the thread could not
 * return to its own network namespace (the process must stop).
 */
int scan_update(struct scan *s, struct metrics_scrape *out);

#endif

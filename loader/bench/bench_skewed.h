/* SPDX-License-Identifier: GPL-2.0 */
/* The skewed scenario's two helpers: the hash key under which the
 * generator's elephants all land on one CPU of a fresh table (so that the
 * static case is bad by construction, not by luck), and `cpusteer
 * balance` running beside a case, with a tally of the buckets it moved.
 */
#ifndef CPUSTEER_BENCH_SKEWED_H
#define CPUSTEER_BENCH_SKEWED_H

#include <sys/types.h>
#include <linux/types.h>
#include "testbed.h"
#include "trafficgen.h"

/* The scenario's shape. SKEW_ELEPHANTS of the flows carry SKEW_SHARE
 * percent of the frames; stacked on one CPU by the key, they make it carry
 * 0.6 + 0.4 / CPUs of the load (0.8 on 2 CPUs), and each elephant's 15% is
 * a bucket that balance can move. Balance steps every SKEW_INTERVAL
 * seconds and first gets SKEW_SETTLE_S seconds of flood to settle on.
 */
#define SKEW_ELEPHANTS 4
#define SKEW_SHARE 60
#define SKEW_INTERVAL 0.5
#define SKEW_SETTLE_S 2.5

struct skew_key {
	char hex[33];		/* as load --key takes it */
	__u32 cpu;		/* where the elephants land */
	__u32 tried;		/* keys tried, this one included */
};

/* A key under which the elephants of `o` (its first o->elephants flows)
 * land on one CPU of `cpus`, each in a bucket of its own, as `cpusteer
 * load --cpus CPUS --key KEY` places them with its default buckets and
 * hash. The keys are tried in a fixed order, so the same machine shape
 * gets the same key. 0, or a negative errno after one line on stderr.
 */
int skew_find_key(const char *cpus, const struct trafficgen_opts *o, struct skew_key *k);

/* `cpusteer balance IFACE --interval SKEW_INTERVAL --json` on the test bed's
 * receiver, its step lines kept in a memfd.
 */
struct balance_run {
	pid_t pid;
	int out_fd;
};

/* What one balance run did: every step, the buckets it moved in all,
 * the most in one step, out of how many.
 */
struct balance_tally {
	__u32 steps;
	__u32 moved;
	__u32 most;
	__u32 buckets;
};

int balance_start(struct balance_run *p, struct testbed *b);
/* Ends it with SIGTERM and reads its steps into *t. 0 when it exited
 * with status 0, else -EIO after one line on stderr.
 */
int balance_stop(struct balance_run *p, struct balance_tally *t);

#endif

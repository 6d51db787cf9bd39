/* SPDX-License-Identifier: GPL-2.0 */
/* The steering options that classify, load and set share, with the same
 * names and checks everywhere.
 */
#ifndef CPUSTEER_OPTIONS_H
#define CPUSTEER_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include "cli.h"
#include "cpusteer.h"
#include "cpuset.h"

enum steer_opt_id {
	OPT_CPUS = 0x100,
	OPT_WEIGHTS,
	OPT_KEY,
	OPT_SYMMETRIC,
	OPT_BUCKETS,
	OPT_NON_IP,
	OPT_HASH,
	OPT_STEER_LAST,	/* commands number their own options from here */
};

#define STEER_LONG_OPTIONS                                              \
	{ "cpus", required_argument, NULL, OPT_CPUS },                  \
	{ "weights", required_argument, NULL, OPT_WEIGHTS },            \
	{ "key", required_argument, NULL, OPT_KEY },                    \
	{ "symmetric", no_argument, NULL, OPT_SYMMETRIC },              \
	{ "buckets", required_argument, NULL, OPT_BUCKETS },            \
	{ "non-ip", required_argument, NULL, OPT_NON_IP },              \
	{ "hash", required_argument, NULL, OPT_HASH }

#define STEER_OPTIONS_HELP                                                          \
	"  --cpus LIST        up to 256 target CPUs, e.g. 0-3,6 (default: all online)\n" \
	"  --weights LIST     one weight per CPU in --cpus (default: all 1)\n"      \
	"  --key HEX          128-bit hash key, 32 hex digits (default: random)\n"  \
	"  --symmetric        both directions of a connection share a CPU\n"        \
	"  --buckets N        indirection table size, 1-65536 (default 512)\n"      \
	"  --non-ip pass|cpu:N  verdict for non-IP frames (default: pass)\n"        \
	"  --hash siphash13|jhash  flow hash (default: siphash13)\n"

struct steer_opts {
	struct cpuset cpus;
	/* The machine the CPUs are checked against; NULL (the default): this
	 * one, from sysfs. Tests point it at a fixture.
	 */
	const struct cpu_machine *machine;
	const char *weights_arg;	/* applied once the CPU list is known */
	struct cpusteer_config cfg;
	/* Which options the command line gave; `set` changes only those. */
	bool cpus_given, weights_given, key_given, symmetric_given;
	bool buckets_given, non_ip_given, hash_given;
};

/* Returns 1 if `id` is a steering option (consumed), 0 if not, or a
 * negative errno after printing why `arg` is bad.
 */
int steer_opts_parse(struct steer_opts *o, int id, const char *arg);

/* Fills in defaults for what was not given (all online CPUs, a random
 * key, 512 buckets, non-IP passed) and checks the whole set: CPUs online,
 * weights, bucket count against the CPU count.
 */
int steer_opts_finish(struct steer_opts *o);

/* What can be checked of the command line alone, once all of it is read:
 * --weights against --cpus when both are given. One line and -EINVAL
 * when they do not fit (a usage error: nothing about the machine).
 */
int steer_opts_check_usage(const struct steer_opts *o);

/* The checks of steer_opts_finish alone, also for a configuration merged
 * over a running one. CPUs of `running` (NULL when loading) need not be
 * online: a target may go offline under a running instance, and that must
 * not block every later change. With `running`, a non-IP CPU not given on
 * this command line is the running one and is exempt likewise.
 */
int steer_opts_validate(const struct steer_opts *o, const struct cpuset *running);

void key_format(const __u64 key[2], char *buf, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* The steering options that classify, load and set share, with the same
 * names and checks everywhere.
 */
#ifndef CPUSTEER_OPTIONS_H
#define CPUSTEER_OPTIONS_H

#include <stdbool.h>
#include "cli.h"
#include "cpusteer.h"
#include "cpuset.h"

/* --cpus, --weights, --key, --key-file, --symmetric, --buckets, --non-ip,
 * --hash, --inner: a group (cli.h) that parses into a struct steer_opts,
 * each option at its place below.
 */
enum steer_option {
	STEER_CPUS, STEER_WEIGHTS, STEER_KEY, STEER_KEY_FILE, STEER_SYMMETRIC, STEER_BUCKETS,
	STEER_NON_IP, STEER_HASH, STEER_INNER, STEER_OPTIONS
};
extern const struct cli_option steer_options[];

struct steer_opts {
	struct cpuset cpus;
	/* The machine the CPUs are checked against; NULL (the default): this
	 * one, from sysfs. Tests point it at a fixture.
	 */
	const struct cpu_machine *machine;
	struct cpu_weights weights;	/* applied once the CPU list is known */
	const char *key_file;		/* read once every option is in */
	struct cpusteer_config cfg;
	/* --symmetric or --no-symmetric; cfg.symmetric once resolved (load:
	 * steer_opts_finish, set: against the running value).
	 */
	enum cli_switch symmetric;
	/* Bit CLI_BIT(STEER_*) for each option given, on the command line or
	 * in a file; `set` changes only those.
	 */
	__u64 given;
};

static inline bool steer_given(const struct steer_opts *o, enum steer_option opt)
{
	return o->given & CLI_BIT(opt);
}

/* The steering group of a command whose option struct `type_` holds a
 * struct steer_opts at `m_`, with where it records what was given.
 */
#define STEER_GROUP(type_, m_) \
	{ steer_options, offsetof(type_, m_), CLI_GIVEN_AT(type_, m_.given) }

/* Applies option `name` as the command line would, for the selftests. */
int steer_opts_set(struct steer_opts *o, const char *name, const char *arg);

/* What the steering options start from, the defaults they show: 512
 * buckets, non-IP passed, the multilinear hash. The CPUs and the key,
 * which depend on the machine or chance, steer_opts_finish gives.
 */
#define STEER_START                                                                 \
	{ .cfg = { .nbuckets = CPUSTEER_DEFAULT_BUCKETS, .non_ip_cpu = CPUSTEER_NON_IP_PASS, \
		   .hash_fn = CPUSTEER_HASH_MULTILINEAR } }

/* STEER_START, for callers without a command line (bench --program, the
 * selftests).
 */
void steer_opts_init(struct steer_opts *o);

/* Fills in what was not given and depends on the machine or chance (all
 * online CPUs, a random key) and checks the whole set: CPUs online,
 * weights, bucket count against the CPU count.
 */
int steer_opts_finish(struct steer_opts *o);

/* Completes what the options give, once all of them are read: reads the
 * --key-file, and checks --weights against --cpus when both are given.
 * One line and -EINVAL when the key file is refused or the weights do not
 * fit (a usage error: nothing about the machine).
 */
int steer_opts_check_usage(struct steer_opts *o);

/* Drops the key a --config file gave, either way, before the command
 * line, which gives one, is applied over the file: --key and --key-file
 * are one setting given two ways.
 */
void steer_opts_forget_key(struct steer_opts *o);

/* Applies --weights to `cpus`: one line, naming the file's line that gave
 * them, when they do not fit.
 */
int steer_opts_weigh(const struct steer_opts *o, struct cpuset *cpus);

/* Until log_set_where(NULL), messages start with the "FILE:LINE" where a
 * file gave option `name`, or else `or` (NULL for none), when a file gave
 * it: a value refused only after parsing is reported where it was written.
 */
void steer_opts_blame(const struct steer_opts *o, const char *name, const char *or);

/* The checks of steer_opts_finish alone, also for a configuration merged
 * over a running one. CPUs of `running` (NULL when loading) need not be
 * online: a target may go offline under a running instance, and that must
 * not block every later change. With `running`, a non-IP CPU not given on
 * this command line is the running one and is exempt likewise.
 */
int steer_opts_validate(const struct steer_opts *o, const struct cpuset *running);

void key_format(const __u64 key[2], char *buf, size_t len);
/* --non-ip as it is given: "pass" or "cpu:N". */
void non_ip_format(const struct cpusteer_config *cfg, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Options of `load` and `set`: the steering options plus the cpumap entry
 * settings and the device's GRO and NAPI knobs.
 */
#ifndef CPUSTEER_LOAD_OPTS_H
#define CPUSTEER_LOAD_OPTS_H

#include "device.h"
#include "instance.h"
#include "options.h"
#include "prefix_rule.h"

/* xdp-bench's reasoning: the queue must absorb what arrives while the
 * target CPU's kthread wakes up (tens of microseconds at tens of Mpps
 * is a few thousand frames); 2048 does that without pinning much memory.
 */
#define DEFAULT_QSIZE 2048
#define MAX_QSIZE 16384		/* larger sizes fail with EOVERFLOW */

/* The options of what both load and set change, by their place in
 * their group: bit CLI_BIT(CHANGE_*) of load_opts.change_given says it
 * was given.
 */
enum change_option {
	CHANGE_NO_SYMMETRIC, CHANGE_QSIZE, CHANGE_REMOTE, CHANGE_KTHREAD_SCHED, CHANGE_GRO,
	CHANGE_GRO_FLUSH_TIMEOUT, CHANGE_DEFER_HARD_IRQS, CHANGE_THREADED_NAPI, CHANGE_OPTIONS
};
/* What only load sets, likewise in load_opts.load_only_given. */
enum load_only_option {
	LOAD_ONLY_XDP_MODE, LOAD_ONLY_NO_TOUCH, LOAD_ONLY_TOUCH, LOAD_ONLY_BUCKET_STATS,
	LOAD_ONLY_NO_BUCKET_STATS, LOAD_ONLY_RULES, LOAD_ONLY_OPTIONS
};

struct load_opts {
	struct steer_opts steer;
	struct cpumap_opts cm;
	struct device_settings dev;	/* dev.mask: what was asked for */
	int xdp_mode;			/* libxdp enum xdp_attach_mode */
	/* --no-touch and --bucket-stats as given (both forms of each), and
	 * what they come to, off unless given: only load sets them, and set
	 * checks them against the instance.
	 */
	enum cli_switch notouch_given, bucket_stats_given;
	bool notouch;
	bool bucket_stats;		/* load only: the counters are sized then */
	const char *config_path;	/* --config */
	const char *rules_path;		/* --rules */
	struct prefix_rules rules;	/* what it holds, read with the options */
	const char *ifname;
	__u64 change_given, load_only_given;
};

/* The groups load.c and set.c declare their commands with. */
extern const struct cli_option load_set_options[], attach_options[], config_options[];
#define CHANGE_GROUP { load_set_options, 0, CLI_GIVEN_AT(struct load_opts, change_given) }
#define LOAD_ONLY_GROUP { attach_options, 0, CLI_GIVEN_AT(struct load_opts, load_only_given) }
#define CONFIG_GROUP { config_options, 0 }

/* What load and set start from: the defaults of every option. */
extern const struct load_opts load_start;

/* Parses argv for `cmd` (load's or set's declaration) as
 * cli_parse does, over the options of a --config file when one is given,
 * then checks the interface name and what the command line alone can
 * tell. A file may give any of load's options, also to set, which checks
 * those it cannot change against the running instance.
 */
int load_opts_parse(struct load_opts *lo, const struct cli_command *cmd, int argc, char **argv);

/* The device settings the given options ask for (DEV_*). */
__u32 load_opts_device_mask(const struct load_opts *lo);

/* steer_opts_blame for every option of load and set. */
void load_opts_blame(struct load_opts *lo, const char *name, const char *or);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Options of `load` and `set`: the steering options plus the cpumap entry
 * settings and the device's GRO and NAPI knobs.
 */
#ifndef CPUSTEER_LOAD_OPTS_H
#define CPUSTEER_LOAD_OPTS_H

#include "device.h"
#include "instance.h"
#include "options.h"

/* xdp-bench's reasoning: the queue must absorb what arrives while the
 * target CPU's kthread wakes up (tens of microseconds at tens of Mpps
 * is a few thousand frames); 2048 does that without pinning much memory.
 */
#define DEFAULT_QSIZE 2048
#define MAX_QSIZE 16384		/* larger sizes fail with EOVERFLOW */

struct load_opts {
	struct steer_opts steer;
	struct cpumap_opts cm;
	bool qsize_given, remote_given;
	struct device_settings dev;	/* dev.mask: what was asked for */
	int xdp_mode;			/* libxdp enum xdp_attach_mode */
	bool xdp_mode_given;
	/* --no-touch and --bucket-stats as given (both forms of each), and
	 * what they come to, off unless given: only load sets them, and set
	 * checks them against the instance.
	 */
	enum cli_switch notouch_given, bucket_stats_given;
	bool notouch;
	bool bucket_stats;		/* load only: the counters are sized then */
	const char *config_path;	/* --config */
	const char *ifname;
};

/* Parses argv for `cmd` (load_command or set_command, commands.h) as
 * cli_parse does, over the options of a --config file when one is given,
 * then checks the interface name and what the command line alone can
 * tell. A file may give any of load's options, also to set, which checks
 * those it cannot change against the running instance.
 */
int load_opts_parse(struct load_opts *lo, const struct cli_command *cmd, int argc, char **argv);

/* steer_opts_blame for every option of load and set. */
void load_opts_blame(struct load_opts *lo, const char *name, const char *or);

#endif

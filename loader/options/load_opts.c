// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <xdp/libxdp.h>
#include "config_file.h"
#include "ifname.h"
#include "load_opts.h"
#include "log.h"
#include "names.h"

/* --remote: a name of remote_action_names, or redirect:IFACE, which names
 * an interface that must be there now.
 */
static int opt_remote(void *opts, const char *arg)
{
	struct load_opts *lo = opts;
	int r;

	if (!name_lookup(remote_action_names, arg, &r)) {
		lo->cm.remote = r;
		return 0;
	}
	if (!strncmp(arg, "redirect:", 9)) {
		lo->cm.remote = REMOTE_REDIRECT;
		if (ifname_check(arg + 9))
			return -EINVAL;
		lo->cm.redirect_ifindex = if_nametoindex(arg + 9);
		if (lo->cm.redirect_ifindex)
			return 0;
		log_err("bad --remote '%s': no such interface: %s", arg, arg + 9);
		return -ENODEV;
	}
	return name_parse("--remote", remote_action_names, arg, &r);
}

/* A whole number from min to max, all of `s`. */
static bool whole_in(const char *s, long min, long max, __s32 *v)
{
	char *end;
	long n;

	if (!*s || (*s != '-' && !isdigit((unsigned char)*s)))
		return false;
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || n < min || n > max)
		return false;
	*v = n;
	return true;
}

/* --kthread-sched: fifo:PRIO and rr:PRIO, 1 to 99, or other and
 * other:NICE, -20 to 19, as chrt and nice take them.
 */
static int opt_kthread_sched(void *opts, const char *arg)
{
	struct kthread_sched *ks = &((struct load_opts *)opts)->cm.kthread;
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
	const struct name_value *t;

	for (t = kthread_policy_names; t->name; t++)
		if (strlen(t->name) == len && !strncmp(t->name, arg, len))
			break;
	if (!t->name) {
		log_err("bad --kthread-sched '%s': expected fifo:PRIO, rr:PRIO, other or other:NICE",
			arg);
		return -EINVAL;
	}
	ks->policy = t->value;
	ks->priority = 0;
	if (t->value == CPUSTEER_KTHREAD_OTHER) {
		if (!colon || whole_in(colon + 1, KTHREAD_NICE_MIN, KTHREAD_NICE_MAX, &ks->priority))
			return 0;
		log_err("bad --kthread-sched '%s': the nice value of other is -20 to 19", arg);
	} else if (!colon) {
		log_err("bad --kthread-sched '%s': %s needs a priority, 1 to 99 (%s:20)", arg, t->name,
			t->name);
	} else if (whole_in(colon + 1, KTHREAD_RT_PRIORITY_MIN, KTHREAD_RT_PRIORITY_MAX,
			    &ks->priority)) {
		return 0;
	} else {
		log_err("bad --kthread-sched '%s': the priority of %s is 1 to 99", arg, t->name);
	}
	return -EINVAL;
}

/* What both load and set change: the cpumap entries and the device. */
const struct cli_option load_set_options[] = {
	[CHANGE_NO_SYMMETRIC] = CLI_SWITCH_OFF("no-symmetric", struct load_opts, steer.symmetric,
					       "symmetric mode off", CLI_DEFAULT_FORM),
	[CHANGE_QSIZE] = CLI_WHOLE_OPTION("qsize", "N", struct load_opts, cm.qsize, 1, MAX_QSIZE,
					  "cpumap queue size per CPU, 1-" CLI_NUMBER(MAX_QSIZE),
					  CLI_NUMBER(DEFAULT_QSIZE)),
	/* The names status prints, so that what it shows can be given back;
	 * the target's ifindex lies beside the action.
	 */
	[CHANGE_REMOTE] = {
		.name = "remote", .names = remote_action_names, .parse = opt_remote,
		.help = "second-stage program on the target CPU; none:\n"
			"frames go to that CPU's network stack",
		.def = "none",
		CLI_SPAN(struct load_opts, cm.remote, cm.redirect_ifindex),
	},
	/* After the entries exist, all or nothing; above the real-time
	 * tasks of a CPU, so that they cannot starve its queue.
	 */
	[CHANGE_KTHREAD_SCHED] = {
		.name = "kthread-sched", .names = kthread_policy_names, .parse = opt_kthread_sched,
		.help = "schedule each cpumap kthread: fifo:PRIO or rr:PRIO\n"
			"(1-99), or other[:NICE] (-20..19); needs CAP_SYS_NICE",
		.def = "as the kernel makes them",
		CLI_SPAN(struct load_opts, cm.kthread, cm.kthread),
	},
	[CHANGE_GRO] = CLI_ENUM_OPTION("gro", on_off_names, struct load_opts, dev.gro,
				       "the device's GRO feature", NULL),
	[CHANGE_GRO_FLUSH_TIMEOUT] = CLI_WHOLE_OPTION("gro-flush-timeout", "NS", struct load_opts,
						      dev.gro_flush_timeout, 0, 0xffffffffu,
						      "the device's NAPI gro_flush_timeout", NULL),
	[CHANGE_DEFER_HARD_IRQS] = CLI_WHOLE_OPTION("defer-hard-irqs", "N", struct load_opts,
						    dev.defer_hard_irqs, 0, 0x7fffffff,
						    "the device's NAPI napi_defer_hard_irqs", NULL),
	[CHANGE_THREADED_NAPI] = CLI_ENUM_OPTION("threaded-napi", on_off_names, struct load_opts,
						 dev.threaded, "threaded NAPI on the device", NULL),
	[CHANGE_OPTIONS] = {}
};

/* The device setting each option of load_set_options asks for. */
static const __u32 device_bit[CHANGE_OPTIONS] = {
	[CHANGE_GRO] = DEV_GRO,
	[CHANGE_GRO_FLUSH_TIMEOUT] = DEV_GRO_FLUSH_TIMEOUT,
	[CHANGE_DEFER_HARD_IRQS] = DEV_DEFER_HARD_IRQS,
	[CHANGE_THREADED_NAPI] = DEV_THREADED_NAPI,
};

/* A file of load's options (config_file.h), read first so that the
 * command line's own options win over it. `set` reads the same files, so
 * that one file serves both a boot's load and a later reload.
 */
const struct cli_option config_options[] = {
	CLI_TEXT_OPTION(CONFIG_OPTION, "FILE", struct load_opts, config_path,
		   "read load's options from FILE, one KEY = VALUE\n"
		   "a line; options given here win over it", NULL),
	{}
};

/* The attach itself is load's: changing it means a new attach. So are
 * the bucket counters, whose map is sized when the programs load.
 */
const struct cli_option attach_options[] = {
	[LOAD_ONLY_XDP_MODE] = CLI_ENUM_OPTION("xdp-mode", xdp_mode_names, struct load_opts, xdp_mode,
					       "attach mode", "native"),
	[LOAD_ONLY_NO_TOUCH] = CLI_SWITCH_ON("no-touch", struct load_opts, notouch_given,
					     "attach the benchmark floor: redirect without parsing"),
	[LOAD_ONLY_TOUCH] = CLI_SWITCH_OFF("touch", struct load_opts, notouch_given,
					   "parse and steer every frame", CLI_DEFAULT_FORM),
	[LOAD_ONLY_BUCKET_STATS] = CLI_SWITCH_ON("bucket-stats", struct load_opts, bucket_stats_given,
						 "count each bucket's packets and bytes, for balance;\n"
						 "as many buckets as --buckets gives now"),
	[LOAD_ONLY_NO_BUCKET_STATS] = CLI_SWITCH_OFF("no-bucket-stats", struct load_opts,
						     bucket_stats_given,
						     "no bucket counters", CLI_DEFAULT_FORM),
	/* A file of its own, for the same trust model as --config: a unit
	 * names both, and `set --config` of a reload replaces the rules.
	 */
	[LOAD_ONLY_RULES] = CLI_TEXT_OPTION("rules", "FILE", struct load_opts, rules_path,
					    "prefix rules to start with, one a line, as\n"
					    "cpusteer rule lists them", NULL),
	[LOAD_ONLY_OPTIONS] = {}
};

const struct load_opts load_start = {
	.steer = STEER_START, .cm.qsize = DEFAULT_QSIZE, .xdp_mode = XDP_MODE_NATIVE
};

/* What a --config file may give, to load and to set alike: every option
 * of load but --config itself, under load's name in its messages.
 */
static const struct cli_command file_form = {
	.name = "load",
	.groups = { STEER_GROUP(struct load_opts, steer), CHANGE_GROUP, LOAD_ONLY_GROUP },
	.start = &load_start,
};

static void load_opts_init(struct load_opts *lo)
{
	*lo = load_start;
	cli_origins_forget();
}

/* The file first, then the command line again over it, so that the
 * command line wins over the file for every option; only the key, which
 * two options give, needs the file's dropped by hand.
 */
static int parse_over_file(struct load_opts *lo, const struct cli_command *cmd, int argc,
			   char **argv, int *operand)
{
	bool key_on_command_line = steer_given(&lo->steer, STEER_KEY) || lo->steer.key_file;
	const char *config = lo->config_path;
	int err;

	load_opts_init(lo);
	err = config_file_apply(config, &file_form, lo);
	if (err)
		return err;
	if (key_on_command_line)
		steer_opts_forget_key(&lo->steer);
	return cli_parse(cmd, argc, argv, lo, operand);
}

int load_opts_parse(struct load_opts *lo, const struct cli_command *cmd, int argc, char **argv)
{
	int operand, err;

	load_opts_init(lo);
	err = cli_parse(cmd, argc, argv, lo, &operand);
	/* Once the command line is known good. */
	if (!err && lo->config_path)
		err = parse_over_file(lo, cmd, argc, argv, &operand);
	if (err)
		return err;
	lo->ifname = argv[operand];
	lo->dev.mask = load_opts_device_mask(lo);
	lo->notouch = cli_switch_on(lo->notouch_given, false);
	lo->bucket_stats = cli_switch_on(lo->bucket_stats_given, false);
	if (ifname_check(lo->ifname) || steer_opts_check_usage(&lo->steer))
		return -EINVAL;
	/* Read with the options, as a key file is: a bad file is bad input,
	 * refused before anything is opened. Its CPUs are the command's to
	 * check, against the instance's.
	 */
	if (lo->rules_path && rules_read_file(lo->rules_path, &lo->rules))
		return -EINVAL;
	return 0;
}

__u32 load_opts_device_mask(const struct load_opts *lo)
{
	__u32 mask = 0;
	int i;

	for (i = 0; i < CHANGE_OPTIONS; i++)
		if (lo->change_given & CLI_BIT(i))
			mask |= device_bit[i];
	return mask;
}

void load_opts_blame(struct load_opts *lo, const char *name, const char *or)
{
	cli_blame(&file_form, lo, name, or);
}

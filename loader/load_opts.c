// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <xdp/libxdp.h>
#include "commands.h"
#include "config_file.h"
#include "ifname.h"
#include "load_opts.h"
#include "log.h"
#include "names.h"

/* "bad --NAME 'ARG': expected A, B or C" unless `arg` is a name of `t`. */
static int parse_name(const char *what, const struct name_value *t, const char *arg, int *out)
{
	char expected[128];

	if (!name_lookup(t, arg, out))
		return 0;
	names_expected(t, expected, sizeof(expected));
	log_err("bad %s '%s': expected %s", what, arg, expected);
	return -EINVAL;
}

static int parse_on_off(const char *what, const char *arg, __u32 *out)
{
	int v = 0;
	int err = parse_name(what, on_off_names, arg, &v);

	*out = v;
	return err;
}

static int opt_qsize(void *opts, const char *arg)
{
	struct load_opts *lo = opts;

	lo->qsize_given = true;
	return parse_u32("--qsize", arg, 1, MAX_QSIZE, &lo->cm.qsize);
}

static int opt_remote(void *opts, const char *arg)
{
	struct load_opts *lo = opts;
	int r;

	lo->remote_given = true;
	/* The names status prints, so that what it shows can be given back. */
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
	return parse_name("--remote", remote_action_names, arg, &r);
}

static int opt_gro(void *opts, const char *arg)
{
	struct load_opts *lo = opts;

	lo->dev.mask |= DEV_GRO;
	return parse_on_off("--gro", arg, &lo->dev.gro);
}

static int opt_gro_flush_timeout(void *opts, const char *arg)
{
	struct load_opts *lo = opts;
	__u32 v;
	int err;

	lo->dev.mask |= DEV_GRO_FLUSH_TIMEOUT;
	err = parse_u32("--gro-flush-timeout", arg, 0, 0xffffffff, &v);
	lo->dev.gro_flush_timeout = v;
	return err;
}

static int opt_defer_hard_irqs(void *opts, const char *arg)
{
	struct load_opts *lo = opts;

	lo->dev.mask |= DEV_DEFER_HARD_IRQS;
	return parse_u32("--defer-hard-irqs", arg, 0, 0x7fffffff, &lo->dev.defer_hard_irqs);
}

static int opt_threaded_napi(void *opts, const char *arg)
{
	struct load_opts *lo = opts;

	lo->dev.mask |= DEV_THREADED_NAPI;
	return parse_on_off("--threaded-napi", arg, &lo->dev.threaded);
}

static int opt_xdp_mode(void *opts, const char *arg)
{
	struct load_opts *lo = opts;

	lo->xdp_mode_given = true;
	return parse_name("--xdp-mode", xdp_mode_names, arg, &lo->xdp_mode);
}

/* What both load and set change: the cpumap entries and the device. */
static const struct cli_option load_set_options[] = {
	CLI_SWITCH_OFF("no-symmetric", struct load_opts, steer.symmetric,
		       "symmetric mode off (the default)"),
	CLI_OPTION("qsize", "N", opt_qsize, "cpumap queue size per CPU, 1-" CLI_NUMBER(MAX_QSIZE),
	  CLI_NUMBER(DEFAULT_QSIZE)),
	CLI_OPTION("remote", "none|pass|drop|redirect:IFACE", opt_remote,
	  "second-stage program on the target CPU; none:\n"
	  "frames go to that CPU's network stack", "none"),
	CLI_OPTION("gro", "on|off", opt_gro, "the device's GRO feature", NULL),
	CLI_OPTION("gro-flush-timeout", "NS", opt_gro_flush_timeout, "the device's NAPI gro_flush_timeout", NULL),
	CLI_OPTION("defer-hard-irqs", "N", opt_defer_hard_irqs, "the device's NAPI napi_defer_hard_irqs", NULL),
	CLI_OPTION("threaded-napi", "on|off", opt_threaded_napi, "threaded NAPI on the device", NULL),
	{}
};

static int opt_config(void *opts, const char *arg)
{
	struct load_opts *lo = opts;

	lo->config_path = arg;
	return 0;
}

/* A file of load's options (config_file.h), read first so that the
 * command line's own options win over it. `set` reads the same files, so
 * that one file serves both a boot's load and a later reload.
 */
static const struct cli_option config_options[] = {
	CLI_OPTION(CONFIG_OPTION, "FILE", opt_config,
		   "read load's options from FILE, one KEY = VALUE\n"
		   "a line; options given here win over it", NULL),
	{}
};

/* The attach itself is load's: changing it means a new attach. So are
 * the bucket counters, whose map is sized when the programs load.
 */
static const struct cli_option attach_options[] = {
	CLI_OPTION("xdp-mode", "native|skb", opt_xdp_mode, "attach mode", "native"),
	CLI_SWITCH_ON("no-touch", struct load_opts, notouch_given,
		      "attach the benchmark floor: redirect without parsing"),
	CLI_SWITCH_OFF("touch", struct load_opts, notouch_given,
		       "parse and steer every frame (the default)"),
	CLI_SWITCH_ON("bucket-stats", struct load_opts, bucket_stats_given,
		      "count each bucket's packets and bytes, for balance;\n"
		      "as many buckets as --buckets gives now"),
	CLI_SWITCH_OFF("no-bucket-stats", struct load_opts, bucket_stats_given,
		       "no bucket counters (the default)"),
	{}
};

const struct cli_command load_command = {
	.name = "load",
	.summary = "attach to an interface, maps filled first",
	.operands = "IFACE",
	.about = "Attaches the steering program to IFACE, every map filled first.\n",
	.groups = {
		{ steer_options, offsetof(struct load_opts, steer) },
		{ load_set_options, 0 },
		{ attach_options, 0 },
		{ config_options, 0 },
	},
	.run = cmd_load,
};

const struct cli_command set_command = {
	.name = "set",
	.summary = "change CPUs, weights, queues, key on a running instance",
	.operands = "IFACE",
	.about = "Changes a running instance without detaching it; only the\n"
		 "buckets that must move are moved. Options not given keep\n"
		 "their current value; with none, finishes an interrupted set.\n",
	.groups = {
		{ steer_options, offsetof(struct load_opts, steer) },
		{ load_set_options, 0 },
		{ config_options, 0 },
	},
	.run = cmd_set,
};

static void load_opts_init(struct load_opts *lo)
{
	memset(lo, 0, sizeof(*lo));
	lo->cm.qsize = DEFAULT_QSIZE;
	lo->xdp_mode = XDP_MODE_NATIVE;
	cli_origins_forget();
}

/* The file first, then the command line again over it, so that the
 * command line wins over the file for every option; only the key, which
 * two options give, needs the file's dropped by hand.
 */
static int parse_over_file(struct load_opts *lo, const struct cli_command *cmd, int argc,
			   char **argv, int *operand)
{
	bool key_on_command_line = lo->steer.key_given || lo->steer.key_file;
	const char *config = lo->config_path;
	int err;

	load_opts_init(lo);
	err = config_file_apply(config, &load_command, lo);
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
	lo->notouch = cli_switch_on(lo->notouch_given, false);
	lo->bucket_stats = cli_switch_on(lo->bucket_stats_given, false);
	if (ifname_check(lo->ifname) || steer_opts_check_usage(&lo->steer))
		return -EINVAL;
	return 0;
}

void load_opts_blame(struct load_opts *lo, const char *name, const char *or)
{
	cli_blame(&load_command, lo, name, or);
}

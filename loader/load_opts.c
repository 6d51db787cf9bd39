// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <xdp/libxdp.h>
#include "commands.h"
#include "ifname.h"
#include "load_opts.h"
#include "log.h"

enum {
	OPT_QSIZE = OPT_STEER_LAST,
	OPT_REMOTE,
	OPT_XDP_MODE,
	OPT_GRO,
	OPT_GRO_FLUSH,
	OPT_DEFER,
	OPT_THREADED,
	OPT_NO_SYMMETRIC,
	OPT_NOTOUCH,
};

static const char load_set_help[] =
	"  --qsize N          cpumap queue size per CPU, 1-16384 (default 2048)\n"
	"  --remote none|pass|drop|redirect:IFACE\n"
	"                     second-stage program on the target CPU (default none:\n"
	"                     frames go to that CPU's network stack)\n"
	"  --gro on|off       the device's GRO feature\n"
	"  --gro-flush-timeout NS  the device's NAPI gro_flush_timeout\n"
	"  --defer-hard-irqs N     the device's NAPI napi_defer_hard_irqs\n"
	"  --threaded-napi on|off  threaded NAPI on the device\n"
	"  -v, --verbose      show libbpf's and libxdp's messages\n";

static void usage(FILE *f, const char *command)
{
	if (!strcmp(command, "load"))
		fprintf(f, "usage: cpusteer load IFACE --cpus LIST [OPTIONS]\n"
			   "Attaches the steering program to IFACE, every map filled first.\n\n");
	else
		fprintf(f, "usage: cpusteer set IFACE [OPTIONS]\n"
			   "Changes a running instance without detaching it; only the\n"
			   "buckets that must move are moved. Options not given keep\n"
			   "their current value.\n\n");
	fputs(STEER_OPTIONS_HELP, f);
	fputs("  --no-symmetric     symmetric mode off (the default)\n", f);
	fputs(load_set_help, f);
	if (!strcmp(command, "load"))
		fputs("  --xdp-mode native|skb  attach mode (default native)\n"
		      "  --no-touch         attach the benchmark floor: redirect without parsing\n", f);
}

static int parse_on_off(const char *what, const char *arg, __u32 *out)
{
	if (!strcmp(arg, "on") || !strcmp(arg, "off")) {
		*out = !strcmp(arg, "on");
		return 0;
	}
	log_err("bad %s '%s': expected on or off", what, arg);
	return -EINVAL;
}

static int parse_remote(struct load_opts *lo, const char *arg)
{
	static const char *const names[] = { "none", "pass", "drop" };
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(arg, names[i])) {
			lo->cm.remote = (enum remote_action)i;
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
	log_err("bad --remote '%s': expected none, pass, drop or redirect:IFACE", arg);
	return -EINVAL;
}

static int parse_xdp_mode(struct load_opts *lo, const char *arg)
{
	lo->xdp_mode_given = true;
	if (!strcmp(arg, "native"))
		lo->xdp_mode = XDP_MODE_NATIVE;
	else if (!strcmp(arg, "skb"))
		lo->xdp_mode = XDP_MODE_SKB;
	else {
		log_err("bad --xdp-mode '%s': expected native or skb", arg);
		return -EINVAL;
	}
	return 0;
}

static int parse_one(struct load_opts *lo, int opt, const char *arg)
{
	__u32 v;
	int err;

	switch (opt) {
	case OPT_QSIZE:
		lo->qsize_given = true;
		return parse_u32("--qsize", arg, 1, MAX_QSIZE, &lo->cm.qsize);
	case OPT_REMOTE:
		lo->remote_given = true;
		return parse_remote(lo, arg);
	case OPT_XDP_MODE:
		return parse_xdp_mode(lo, arg);
	case OPT_GRO:
		lo->dev.mask |= DEV_GRO;
		return parse_on_off("--gro", arg, &lo->dev.gro);
	case OPT_THREADED:
		lo->dev.mask |= DEV_THREADED_NAPI;
		return parse_on_off("--threaded-napi", arg, &lo->dev.threaded);
	case OPT_DEFER:
		lo->dev.mask |= DEV_DEFER_HARD_IRQS;
		return parse_u32("--defer-hard-irqs", arg, 0, 0x7fffffff, &lo->dev.defer_hard_irqs);
	case OPT_GRO_FLUSH:
		lo->dev.mask |= DEV_GRO_FLUSH_TIMEOUT;
		err = parse_u32("--gro-flush-timeout", arg, 0, 0xffffffff, &v);
		lo->dev.gro_flush_timeout = v;
		return err;
	case OPT_NO_SYMMETRIC:
		lo->symmetric_off = true;
		return 0;
	case OPT_NOTOUCH:
		lo->notouch = true;
		return 0;
	case 'v':
		log_verbose = true;
		return 0;
	default:
		return -EINVAL;
	}
}

int load_opts_parse(struct load_opts *lo, const char *command, int argc, char **argv)
{
	const struct option longopts[] = {
		STEER_LONG_OPTIONS,
		{ "qsize", required_argument, NULL, OPT_QSIZE },
		{ "remote", required_argument, NULL, OPT_REMOTE },
		{ "gro", required_argument, NULL, OPT_GRO },
		{ "gro-flush-timeout", required_argument, NULL, OPT_GRO_FLUSH },
		{ "defer-hard-irqs", required_argument, NULL, OPT_DEFER },
		{ "threaded-napi", required_argument, NULL, OPT_THREADED },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "no-symmetric", no_argument, NULL, OPT_NO_SYMMETRIC },
		{ "xdp-mode", required_argument, NULL, OPT_XDP_MODE },
		{ "no-touch", no_argument, NULL, OPT_NOTOUCH },
		{ NULL, 0, NULL, 0 },
	};
	int opt, err;

	memset(lo, 0, sizeof(*lo));
	lo->cm.qsize = DEFAULT_QSIZE;
	lo->xdp_mode = XDP_MODE_NATIVE;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "hv", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout, command);
			return 1;
		}
		if (opt == '?') {
			usage(stderr, command);
			return -EINVAL;
		}
		err = steer_opts_parse(&lo->steer, opt, optarg);
		if (err < 0)
			return err;
		if (!err && (err = parse_one(lo, opt, optarg)))
			return err;
	}
	if (optind != argc - 1) {
		log_err("%s needs exactly one interface (see cpusteer %s --help)", command, command);
		return -EINVAL;
	}
	lo->ifname = argv[optind];
	if (ifname_check(lo->ifname) || steer_opts_check_usage(&lo->steer))
		return -EINVAL;
	/* The attach itself is load's: changing it means a new attach. */
	if (strcmp(command, "load") && (lo->xdp_mode_given || lo->notouch)) {
		log_err("set cannot change --xdp-mode or --no-touch: unload %s and load it again",
			lo->ifname);
		return -EINVAL;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* cpusteer gen: the built-in traffic generator on one interface, for
 * benchmarks and demos on machines without a NIC or pktgen.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <netinet/in.h>
#include "commands.h"
#include "ifname.h"
#include "cpuset.h"
#include "json.h"
#include "log.h"
#include "options.h"
#include "trafficgen.h"

#define GEN_MAX_SECONDS 86400.0
#define GEN_GO -1

static const char gen_usage[] =
	"usage: cpusteer gen IFACE [--flows N] [--size BYTES] [--ipv6] [--tcp]\n"
	"                    [--duration S] [--cpu N] [--dst-mac MAC] [--json]\n"
	"Transmits frames on IFACE from an XDP program that the kernel runs in\n"
	"live-frames test mode: UDP 10.201.0.1 -> 10.201.0.2 port 9 (fd21::1 ->\n"
	"fd21::2 with --ipv6), one flow per source port from 1024 up, from IFACE's\n"
	"own MAC. Prints the frames sent, the seconds and the rate. IFACE's peer\n"
	"must take XDP frames: on a veth, load cpusteer (or turn GRO on) there.\n"
	"Ctrl-C stops early and reports what was sent.\n"
	"  --flows N      distinct flows, 1-64512 (default 1000)\n"
	"  --size BYTES   Ethernet frame without FCS, 64-3408, at most MTU + 18\n"
	"                 (default 64; 74 with --ipv6 --tcp, the headers alone)\n"
	"  --ipv6         IPv6 instead of IPv4\n"
	"  --tcp          TCP ACK segments instead of UDP\n"
	"  --duration S   seconds to run, fractions allowed (default 5)\n"
	"  --cpu N        CPU to generate on (default: the one gen starts on)\n"
	"  --dst-mac MAC  destination MAC (default ff:ff:ff:ff:ff:ff)\n"
	"  --json         one JSON object instead of a line\n";

struct gen_args {
	const char *ifname;
	const char *size_arg;	/* checked once the family and protocol are known */
	struct trafficgen_opts o;
	__u8 dst_mac[6];
	bool as_json;
};

static volatile int stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int parse_mac(const char *arg, __u8 mac[6])
{
	int i;

	for (i = 0; i < 6; i++) {
		const char *p = arg + 3 * i;

		if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]) ||
		    p[2] != (i < 5 ? ':' : '\0'))
			break;
		mac[i] = strtoul((char[]){ p[0], p[1], '\0' }, NULL, 16);
	}
	if (i == 6)
		return 0;
	log_err("bad MAC '%s': expected six hex pairs like 02:00:00:00:00:01", arg);
	return -EINVAL;
}

static int parse_cpu(const char *arg, int *cpu)
{
	__u32 v;
	int err = parse_u32("CPU", arg, 0, CPU_NUMBER_MAX, &v);

	if (!err)
		err = cpu_check_online(v);
	*cpu = v;
	return err;
}

/* getopt's own messages are off: each problem gets one line of ours. */
static int usage_error(const char *what, const char *arg)
{
	log_err("gen: %s%s%s%s (cpusteer gen --help shows the usage)", what, arg ? " '" : "",
		arg ? arg : "", arg ? "'" : "");
	return EXIT_USAGE;
}

/* The option getopt stopped at: a long one as written, a short one by its
 * letter, since in a cluster like -xv the word holds more than the option.
 */
static const char *bad_option(char **argv, char *buf, size_t len)
{
	const char *word = argv[optind - 1];

	if (!strncmp(word, "--", 2))
		return word;
	snprintf(buf, len, "-%c", optopt);
	return buf;
}

/* Returns GEN_GO to go on, or the exit code to end with. */
static int parse_args(int argc, char **argv, struct gen_args *a)
{
	static const struct option longopts[] = {
		{ "flows", required_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 's' },
		{ "ipv6", no_argument, NULL, '6' },
		{ "tcp", no_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'd' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, err = 0;
	char optbuf[3];

	opterr = 0;
	while (!err && (opt = getopt_long(argc, argv, ":hv", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			err = parse_u32("flow count", optarg, 1, TRAFFICGEN_MAX_FLOWS, &a->o.flows);
			break;
		case 's':
			a->size_arg = optarg;
			break;
		case '6':
			a->o.family = 6;
			break;
		case 't':
			a->o.proto = IPPROTO_TCP;
			break;
		case 'd':
			err = parse_seconds("--duration", optarg, GEN_MAX_SECONDS, &a->o.duration_s);
			break;
		case 'c':
			err = parse_cpu(optarg, &a->o.cpu);
			break;
		case 'm':
			err = parse_mac(optarg, a->dst_mac);
			a->o.dst_mac = a->dst_mac;
			break;
		case 'j':
			a->as_json = true;
			break;
		case 'v':
			log_verbose = true;
			break;
		case 'h':
			fputs(gen_usage, stdout);
			return 0;
		case ':':
			return usage_error("a value is missing after",
					   bad_option(argv, optbuf, sizeof(optbuf)));
		default:
			return usage_error("bad option",
					   bad_option(argv, optbuf, sizeof(optbuf)));
		}
	}
	if (err)
		return EXIT_USAGE;
	if (optind == argc)
		return usage_error("expected an interface", NULL);
	if (optind < argc - 1)
		return usage_error("unexpected argument", argv[optind + 1]);
	if (ifname_check(argv[optind]))
		return EXIT_USAGE;
	a->ifname = argv[optind];
	return GEN_GO;
}

/* The defaults that depend on other options, and the frame size, whose
 * lower bound does.
 */
static int finish_args(struct gen_args *a)
{
	__u32 min = trafficgen_min_frame_size(a->o.family, a->o.proto);

	a->o.frame_size = min;
	if (a->size_arg &&
	    parse_u32("frame size", a->size_arg, min, TRAFFICGEN_MAX_FRAME, &a->o.frame_size))
		return -EINVAL;
	/* Pinned where it starts, so a run is not split over CPUs by the
	 * scheduler and the rate belongs to one CPU.
	 */
	if (a->o.cpu < 0)
		a->o.cpu = sched_getcpu();
	a->o.ifindex = if_nametoindex(a->ifname);
	if (!a->o.ifindex) {
		log_err("cannot generate on %s: no such interface", a->ifname);
		return -ENODEV;
	}
	return 0;
}

static void report(const struct gen_args *a, const struct trafficgen_result *r)
{
	const char *proto = a->o.proto == IPPROTO_TCP ? "tcp" : "udp";
	double mpps = r->seconds > 0 ? r->sent / r->seconds / 1e6 : NAN;
	struct json j;

	if (!a->as_json) {
		printf("%s: sent %llu frames in %.2f s: %.2f Mpps (IPv%d/%s, %u-byte frames, %u flows, CPU %d)\n",
		       a->ifname, (unsigned long long)r->sent, r->seconds, mpps, a->o.family,
		       a->o.proto == IPPROTO_TCP ? "TCP" : "UDP", a->o.frame_size, a->o.flows,
		       a->o.cpu);
		return;
	}
	json_init(&j, stdout);
	json_object_open(&j, NULL);
	json_string(&j, "interface", a->ifname);
	json_uint(&j, "family", a->o.family);
	json_string(&j, "proto", proto);
	json_uint(&j, "frame_size", a->o.frame_size);
	json_uint(&j, "flows", a->o.flows);
	json_int(&j, "cpu", a->o.cpu);
	json_uint(&j, "sent", r->sent);
	json_uint(&j, "attempted", r->attempted);
	json_double(&j, "seconds", r->seconds);
	json_double(&j, "mpps", mpps);
	json_object_close(&j);
}

int cmd_gen(int argc, char **argv)
{
	struct gen_args a = {
		.o = { .family = 4, .proto = IPPROTO_UDP, .flows = 1000, .duration_s = 5,
		       .cpu = -1 },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct trafficgen_result r;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc != GEN_GO)
		return rc;
	if (finish_args(&a) || require_root("gen"))
		return 1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (trafficgen_run(&a.o, &stop_requested, &r))
		return 1;
	report(&a, &r);
	return 0;
}

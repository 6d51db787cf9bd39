// SPDX-License-Identifier: GPL-2.0
/* cpusteer-bench gen: the built-in traffic generator on one interface,
 * for benchmarks and demos on machines without a NIC or pktgen.
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
#include "bench_commands.h"
#include "commands.h"
#include "ifname.h"
#include "cpuset.h"
#include "json.h"
#include "log.h"
#include "cli.h"
#include "trafficgen.h"

#define GEN_MAX_SECONDS 86400.0

struct gen_args {
	const char *ifname;
	const char *size_arg;	/* checked once the family and protocol are known */
	struct trafficgen_opts o;
	__u8 dst_mac[6];
	bool as_json;
	__u64 given;		/* CLI_BIT(i) for gen_options[i] given */
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

static int opt_cpu(void *opts, const char *arg)
{
	return parse_cpu(arg, &((struct gen_args *)opts)->o.cpu);
}

static int opt_dst_mac(void *opts, const char *arg)
{
	struct gen_args *a = opts;

	a->o.dst_mac = a->dst_mac;
	return parse_mac(arg, a->dst_mac);
}

static const struct cli_option gen_options[] = {
	CLI_WHOLE_OPTION("flows", "N", struct gen_args, o.flows, 1, TRAFFICGEN_MAX_FLOWS,
			 "distinct flows, 1-64512", "1000", .what = "flow count"),
	CLI_WHOLE_OPTION("elephants", "N", struct gen_args, o.elephants, 1, TRAFFICGEN_MAX_ELEPHANTS,
	  "the first N flows, 1-" CLI_NUMBER(TRAFFICGEN_MAX_ELEPHANTS) " and fewer than --flows, carry\n"
	  "--elephant-share of the frames", "none", .what = "elephant count"),
	CLI_WHOLE_OPTION("elephant-share", "PCT", struct gen_args, o.elephant_share, 1, 99,
	  "percent of the frames the elephants carry, 1-99", CLI_NUMBER(TRAFFICGEN_DEFAULT_ELEPHANT_SHARE),
	  .what = "elephant share"),
	CLI_TEXT_OPTION("size", "BYTES", struct gen_args, size_arg,
	  "Ethernet frame without FCS, 64-" CLI_NUMBER(TRAFFICGEN_MAX_FRAME) ", at most MTU + 18",
	  "64; 74 with --ipv6 --tcp, the headers alone"),
	CLI_CONST_FLAG("ipv6", struct gen_args, o.family, 6, "IPv6 instead of IPv4"),
	CLI_CONST_FLAG("tcp", struct gen_args, o.proto, IPPROTO_TCP, "TCP ACK segments instead of UDP"),
	CLI_SECONDS_OPTION("duration", "S", struct gen_args, o.duration_s, GEN_MAX_SECONDS,
			   "seconds to run, fractions allowed", "5"),
	CLI_OPTION("cpu", "N", opt_cpu, "CPU to generate on", "the one gen starts on"),
	CLI_OPTION("dst-mac", "MAC", opt_dst_mac, "destination MAC", "ff:ff:ff:ff:ff:ff"),
	CLI_ENUM_OPTION("transmit", trafficgen_transmit_names, struct gen_args, o.transmit,
	  "how frames leave: live-frames (XDP test runs),\n"
	  "packet-socket, or auto: live frames where allowed", "auto"),
	CLI_FLAG("json", struct gen_args, as_json, "one JSON object instead of a line"),
	{}
};

static const struct gen_args gen_start = {
	.o = { .family = 4, .proto = IPPROTO_UDP, .flows = 1000,
	       .elephant_share = TRAFFICGEN_DEFAULT_ELEPHANT_SHARE, .duration_s = 5, .cpu = -1 },
};

const struct cli_command gen_command = {
	.name = "gen",
	.summary = "transmit UDP/TCP flows on an interface from XDP live frames",
	.operands = "IFACE",
	.about = "Transmits frames on IFACE from an XDP program that the kernel runs in\n"
		 "live-frames test mode: UDP 10.201.0.1 -> 10.201.0.2 port 9 (fd21::1 ->\n"
		 "fd21::2 with --ipv6), one flow per source port from 1024 up, from IFACE's\n"
		 "own MAC. Prints the frames sent, the seconds and the rate. IFACE's peer\n"
		 "must take XDP frames: on a veth, load cpusteer (or turn GRO on) there.\n"
		 "Where the kernel refuses live-frames test runs, the same frames go out\n"
		 "through a packet socket, at a lower rate (gen says so on stderr).\n"
		 "Ctrl-C stops early and reports what was sent.\n",
	.groups = { { gen_options, 0, CLI_GIVEN_AT(struct gen_args, given) } },
	.start = &gen_start,
	.run = cmd_gen,
};

/* The skew needs its elephants among the flows; a share without
 * elephants would change nothing, which is worth saying.
 */
static int check_skew(struct gen_args *a)
{
	if (cli_given(&gen_command, a, "elephant-share") && !a->o.elephants) {
		log_err("bad --elephant-share: it applies with --elephants only");
		return -EINVAL;
	}
	if (a->o.elephants && a->o.elephants >= a->o.flows) {
		log_err("bad --elephants %u: expected fewer than the %u flows of --flows",
			a->o.elephants, a->o.flows);
		return -EINVAL;
	}
	return 0;
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
	const char *transmit = name_of(trafficgen_transmit_names, r->transmit, "?");
	double mpps = r->seconds > 0 ? r->sent / r->seconds / 1e6 : NAN;
	char skew[48] = "";
	struct json j;

	if (!a->as_json) {
		if (a->o.elephants)
			snprintf(skew, sizeof(skew), ", %u elephants with %u%%", a->o.elephants,
				 a->o.elephant_share);
		printf("%s: sent %llu frames in %.2f s: %.2f Mpps (IPv%d/%s, %u-byte frames, %u flows%s, CPU %d, %s)\n",
		       a->ifname, (unsigned long long)r->sent, r->seconds, mpps, a->o.family,
		       a->o.proto == IPPROTO_TCP ? "TCP" : "UDP", a->o.frame_size, a->o.flows,
		       skew, a->o.cpu, transmit);
		return;
	}
	json_init(&j, stdout);
	json_object_open(&j, NULL);
	json_string(&j, "interface", a->ifname);
	json_uint(&j, "family", a->o.family);
	json_string(&j, "proto", proto);
	json_uint(&j, "frame_size", a->o.frame_size);
	json_uint(&j, "flows", a->o.flows);
	json_uint(&j, "elephants", a->o.elephants);
	if (a->o.elephants)
		json_uint(&j, "elephant_share", a->o.elephant_share);
	else
		json_null(&j, "elephant_share");
	json_int(&j, "cpu", a->o.cpu);
	json_string(&j, "transmit", transmit);
	json_uint(&j, "sent", r->sent);
	json_uint(&j, "attempted", r->attempted);
	json_double(&j, "seconds", r->seconds);
	json_double(&j, "mpps", mpps);
	json_object_close(&j);
}

int cmd_gen(int argc, char **argv)
{
	struct gen_args a = gen_start;
	struct sigaction sa = { .sa_handler = on_signal };
	struct trafficgen_result r;
	int operand, err;

	err = cli_parse(&gen_command, argc, argv, &a, &operand);
	if (err)
		return cli_exit_status(err);
	if (ifname_check(argv[operand]) || check_skew(&a))
		return EXIT_USAGE;
	a.ifname = argv[operand];
	if (finish_args(&a) || require_root("gen"))
		return 1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (trafficgen_run(&a.o, &stop_requested, &r))
		return 1;
	report(&a, &r);
	return 0;
}

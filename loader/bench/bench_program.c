// SPDX-License-Identifier: GPL-2.0
/* cpusteer-bench bench --program: per-packet cost of the steering program
 * by BPF_PROG_TEST_RUN repeats, each figure the median of several runs
 * and a ratio to the no-touch redirect measured in the same run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench.h"
#include "commands.h"
#include "floor.skel.h"
#include "instance.h"
#include "json.h"
#include "clock.h"
#include "log.h"
#include "names.h"
#include "options.h"
#include "rule_maps.h"
#include "frame_builder.h"
#include "stats_math.h"
#include "tunnel_opts.h"

#define NO_TUNNEL -1

struct program_case {
	const char *name;
	int family;		/* 0: the program does not read the frame */
	__u8 proto;
	int ext_headers;
	__u32 hash_fn;
	enum { RUN_FLOOR, RUN_NOTOUCH, RUN_STEER } prog;
	const char *inner;	/* --inner; NULL: none */
	int tunnel;		/* CPUSTEER_TUNNEL_* around the frame, or NO_TUNNEL */
	const char *peer;	/* a case to show the ratio to as well, or NULL */
	bool bucket_stats;	/* --bucket-stats */
	/* Prefix rules the instance has, one of which the frame matches:
	 * 0, 1 or RULES_MANY.
	 */
	__u32 rules;
};

/* The trie as a shaper's subscriber table fills it: /24s, one a line. */
#define RULES_MANY 100000

#define DEFAULT_HASH CPUSTEER_HASH_MULTILINEAR
#define STEER(name, family, proto) name, family, proto, 0, DEFAULT_HASH, RUN_STEER
/* A frame of `family` inside a tunnel of `kind`, --inner all. */
#define TUNNELED(name, family, kind) STEER(name, family, IPPROTO_UDP), "all", kind, NULL

static const struct program_case cases[] = {
	{ "xdp_drop_floor", 4, IPPROTO_UDP, 0, DEFAULT_HASH, RUN_FLOOR, NULL, NO_TUNNEL, NULL, false, 0 },
	{ "notouch_redirect", 4, IPPROTO_UDP, 0, DEFAULT_HASH, RUN_NOTOUCH, NULL, NO_TUNNEL, NULL, false, 0 },
	{ STEER("steer_ipv4_udp", 4, IPPROTO_UDP), NULL, NO_TUNNEL, NULL, false, 0 },
	{ STEER("steer_ipv4_tcp", 4, IPPROTO_TCP), NULL, NO_TUNNEL, NULL, false, 0 },
	{ STEER("steer_ipv6_udp", 6, IPPROTO_UDP), NULL, NO_TUNNEL, NULL, false, 0 },
	{ "steer_ipv6_2ext_udp", 6, IPPROTO_UDP, 2, DEFAULT_HASH, RUN_STEER, NULL, NO_TUNNEL, NULL, false, 0 },
	/* The pseudo-random function, for a sender who can time placement:
	 * what choosing it costs over the default.
	 */
	{ "steer_ipv4_udp_siphash13", 4, IPPROTO_UDP, 0, CPUSTEER_HASH_SIPHASH13, RUN_STEER, NULL,
	  NO_TUNNEL, "steer_ipv4_udp", false, 0 },
	{ "steer_ipv6_udp_siphash13", 6, IPPROTO_UDP, 0, CPUSTEER_HASH_SIPHASH13, RUN_STEER, NULL,
	  NO_TUNNEL, "steer_ipv6_udp", false, 0 },
	/* What --inner all costs a frame that is no tunnel: the peer is the
	 * same frame without it.
	 */
	{ STEER("inner_all_ipv4_udp", 4, IPPROTO_UDP), "all", NO_TUNNEL, "steer_ipv4_udp", false, 0 },
	{ STEER("inner_all_ipv4_tcp", 4, IPPROTO_TCP), "all", NO_TUNNEL, "steer_ipv4_tcp", false, 0 },
	{ STEER("inner_all_ipv6_udp", 6, IPPROTO_UDP), "all", NO_TUNNEL, "steer_ipv6_udp", false, 0 },
	/* A tunnelled frame steered by its inner IPv4 (IPv6 for sit) UDP flow. */
	{ TUNNELED("inner_vxlan", 4, CPUSTEER_TUNNEL_VXLAN), false, 0 },
	{ TUNNELED("inner_geneve", 4, CPUSTEER_TUNNEL_GENEVE), false, 0 },
	{ TUNNELED("inner_gre", 4, CPUSTEER_TUNNEL_GRE), false, 0 },
	{ TUNNELED("inner_ipip", 4, CPUSTEER_TUNNEL_IPIP), false, 0 },
	{ TUNNELED("inner_sit", 6, CPUSTEER_TUNNEL_SIT), false, 0 },
	{ TUNNELED("inner_erspan", 4, CPUSTEER_TUNNEL_ERSPAN), false, 0 },
	{ TUNNELED("inner_gtpu", 4, CPUSTEER_TUNNEL_GTPU), false, 0 },
	/* GTP-U by tunnel: the G-PDU's first 8 octets, not its datagram. */
	{ STEER("gtpu_by_teid", 4, IPPROTO_UDP), "gtpu-teid", CPUSTEER_TUNNEL_GTPU_TEID, NULL, false, 0 },
	/* What --bucket-stats adds to a packet: the peer is the same frame
	 * without it.
	 */
	{ STEER("bucket_stats_ipv4_udp", 4, IPPROTO_UDP), NULL, NO_TUNNEL, "steer_ipv4_udp", true, 0 },
	{ STEER("bucket_stats_ipv6_udp", 6, IPPROTO_UDP), NULL, NO_TUNNEL, "steer_ipv6_udp", true, 0 },
	/* Prefix rules: a frame that matches the one rule of an instance, or
	 * one of 100000; an IPv6 frame where only IPv4 rules are, which takes
	 * the path of a configuration with rules and finds none. The peer is
	 * the same frame without rules.
	 */
	{ STEER("rule_1_ipv4_udp", 4, IPPROTO_UDP), NULL, NO_TUNNEL, "steer_ipv4_udp", false, 1 },
	{ STEER("rules_100k_ipv4_udp", 4, IPPROTO_UDP), NULL, NO_TUNNEL, "steer_ipv4_udp", false,
	  RULES_MANY },
	{ STEER("rules_100k_ipv6_udp", 6, IPPROTO_UDP), NULL, NO_TUNNEL, "steer_ipv6_udp", false,
	  RULES_MANY },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

struct bench_setup {
	struct steer_instance steer;
	struct floor *floor;
	struct steer_opts opts;
	__u32 runs, repeat;
};

/* The case's frame: the flow alone, or inside its tunnel, which carries
 * it from 192.0.2.1 to 192.0.2.2 on the tunnel's usual port.
 */
static size_t build_frame(const struct program_case *c, __u8 *frame, size_t cap)
{
	struct pkt_encap e = { .kind = c->tunnel };
	struct pkt_spec s, outer;
	int i;

	pkt_spec_init(&s, c->family, c->proto);
	for (i = 0; i < c->ext_headers; i++)
		s.ext[s.next++] = i ? 60 : 0;
	if (c->tunnel == NO_TUNNEL)
		return pkt_build(&s, frame, cap);
	pkt_spec_init(&outer, 4, IPPROTO_UDP);
	pkt_set_addr4(outer.saddr, 0xc0000201);
	pkt_set_addr4(outer.daddr, 0xc0000202);
	outer.dport = tunnel_default_port(c->tunnel);
	return pkt_build_tunnel(&outer, &e, &s, frame, cap);
}

/* The thread's CPU time over many repeats, not the kernel's per-run
 * duration, which is truncated to whole nanoseconds (at 10-20 ns a packet
 * that rounding alone would move a ratio by 5%), nor wall time: on a
 * machine shared with other work the test run waited for its CPU in whole
 * scheduler ticks, and every case of a run then took a multiple of 4 ms,
 * 2 ns a packet at the default repeats.
 */
static int time_case(struct bench_setup *b, const struct program_case *c, double *ns)
{
	__u8 frame[512];	/* room for a tunnel around the flow */
	int fd;
	double t0;

	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .repeat = b->repeat);
	opts.data_size_in = build_frame(c, frame, sizeof(frame));

	if (c->prog == RUN_FLOOR)
		fd = bpf_program__fd(b->floor->progs.cpusteer_drop_floor);
	else
		fd = instance_prog_fd(&b->steer, c->prog == RUN_NOTOUCH);
	b->opts.cfg.hash_fn = c->hash_fn;
	b->opts.cfg.bucket_stats = c->bucket_stats;
	/* Copy 1 holds the one rule, copy 0 the many (setup). */
	b->opts.cfg.rules = !c->rules ? 0
			    : c->rules == 1 ? CPUSTEER_RULES_IPV4_DST | CPUSTEER_RULES_COPY_1
			    : CPUSTEER_RULES_IPV4_DST;
	if (inner_parse(c->inner ? c->inner : "none", &b->opts.cfg) ||
	    instance_write_config(&b->steer, &b->opts.cfg))
		return -EIO;
	t0 = thread_cpu_ns();
	if (bpf_prog_test_run_opts(fd, &opts)) {
		log_err("test run of %s failed: %s", c->name, strerror(errno));
		return -errno;
	}
	*ns = (thread_cpu_ns() - t0) / b->repeat;
	return 0;
}

/* Cases take turns run by run, so a slow stretch of a shared machine lands
 * on all of them alike rather than on one.
 */
static int measure_all(struct bench_setup *b, double medians[NCASES])
{
	static double samples[NCASES][BENCH_MAX_RUNS];
	__u32 r, c;
	int err;

	for (r = 0; r < b->runs; r++)
		for (c = 0; c < NCASES; c++) {
			err = time_case(b, &cases[c], &samples[c][r]);
			if (err)
				return err;
		}
	for (c = 0; c < NCASES; c++)
		medians[c] = median(samples[c], b->runs);
	return 0;
}

/* The median of the case named `name`. */
static double median_of(const char *name, const double med[NCASES])
{
	__u32 c;

	for (c = 0; c < NCASES; c++)
		if (!strcmp(cases[c].name, name))
			return med[c];
	return NAN;
}

static void report(const struct bench_setup *b, const double med[NCASES], bool as_json)
{
	double floor_ns = med[1];
	struct json j;
	__u32 c;

	if (!as_json) {
		printf("median of %u runs of %u test-run repeats; ratio to notouch_redirect\n",
		       b->runs, b->repeat);
		printf("%-24s %10s %8s  %s\n", "case", "ns/pkt", "ratio", "ratio to peer");
		for (c = 0; c < NCASES; c++) {
			printf("%-24s %10.2f %8.2f", cases[c].name, med[c], med[c] / floor_ns);
			if (cases[c].peer)
				printf("  %.3f to %s", med[c] / median_of(cases[c].peer, med),
				       cases[c].peer);
			putchar('\n');
		}
		printf("--hash nic is not timed here: the kernel test-runs no device-bound program;\n"
		       "bench --scenario nic-hash times it against multilinear under stack traffic\n");
		return;
	}
	json_init(&j, stdout);
	json_object_open(&j, NULL);
	json_uint(&j, "runs", b->runs);
	json_uint(&j, "repeat", b->repeat);
	json_string(&j, "floor", "notouch_redirect");
	json_array_open(&j, "cases");
	for (c = 0; c < NCASES; c++) {
		json_object_open(&j, NULL);
		json_string(&j, "name", cases[c].name);
		json_string(&j, "hash", hash_fn_name(cases[c].hash_fn));
		json_double(&j, "ns_per_packet", med[c]);
		json_double(&j, "ratio_to_notouch", med[c] / floor_ns);
		json_string(&j, "inner", cases[c].inner ? cases[c].inner : "none");
		json_string(&j, "tunnel",
			    cases[c].tunnel == NO_TUNNEL ? "none" : tunnel_name(cases[c].tunnel));
		json_bool(&j, "bucket_stats", cases[c].bucket_stats);
		json_uint(&j, "rules", cases[c].rules);
		if (cases[c].peer) {
			json_string(&j, "peer", cases[c].peer);
			json_double(&j, "ratio_to_peer", med[c] / median_of(cases[c].peer, med));
		}
		json_object_close(&j);
	}
	json_array_close(&j);
	json_object_close(&j);
}

/* The rules of the cases: in copy 1 the rule for the frames' destination
 * (10.0.0.2), to the first CPU; in copy 0 the same and RULES_MANY - 1
 * other /24s spread over the whole address space (i times an odd number,
 * modulo 2^24: no two alike), so that the trie is as deep above the
 * frame's rule as a real table makes it: /24s in a row from one address
 * up share all but the last levels, and made the lookup look 3 times
 * cheaper.
 */
static int fill_rules(struct bench_setup *b)
{
	struct prefix_rule r = { .family = 4, .direction = CPUSTEER_RULE_DST, .prefixlen = 24,
				 .addr = { 10, 0, 0, 0 }, .ncpus = 1,
				 .cpu = { b->opts.cpus.cpu[0] } };
	struct prefix_rules rs = { 0 };
	__u32 i, a;
	int err = rules_append(&rs, &r);

	if (!err)
		err = rule_maps_fill(&b->steer, 1, &rs);
	for (i = 1; !err && rs.n < RULES_MANY; i++) {
		a = i * 0x9e3779u & 0xffffff;
		if (a == 0x0a0000)
			continue;	/* 10.0.0.0/24, the frame's own */
		r.addr[0] = a >> 16;
		r.addr[1] = a >> 8;
		r.addr[2] = a;
		err = rules_append(&rs, &r);
	}
	if (!err)
		err = rule_maps_fill(&b->steer, 0, &rs);
	rules_free(&rs);
	return err;
}

static int setup(struct bench_setup *b)
{
	struct cpumap_opts cm = { .qsize = 64, .remote = REMOTE_NONE };
	int err;

	steer_opts_init(&b->opts);
	if (steer_opts_finish(&b->opts))
		return -EINVAL;
	b->floor = floor__open_and_load();
	if (!b->floor) {
		log_err("cannot load the XDP_DROP floor program: %s", strerror(errno));
		return -errno;
	}
	err = instance_open(&b->steer, false, false, b->opts.cfg.nbuckets);
	if (!err)
		err = fill_rules(b);
	if (err)
		return err;
	return instance_configure(&b->steer, &b->opts.cpus, &b->opts.cfg, &cm);
}

int bench_program(__u32 runs, __u32 repeat, bool as_json)
{
	struct bench_setup b = { .runs = runs, .repeat = repeat };
	double med[NCASES];
	int err;

	if (runs > BENCH_MAX_RUNS) {
		log_err("bad run count %u: at most %d", runs, BENCH_MAX_RUNS);
		return -EINVAL;
	}
	err = setup(&b);
	if (!err)
		err = measure_all(&b, med);
	if (!err)
		report(&b, med, as_json);
	if (b.steer.skel)
		instance_close(&b.steer);
	floor__destroy(b.floor);
	return err;
}

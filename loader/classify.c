// SPDX-License-Identifier: GPL-2.0
/* cpusteer classify: every frame of a capture through the real steering
 * program with BPF_PROG_TEST_RUN, reporting what the kernel decided.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "capture.h"
#include "commands.h"
#include "frame_path.h"
#include "instance.h"
#include "json.h"
#include "log.h"
#include "names.h"
#include "options.h"
#include "rule_maps.h"
#include "tunnel_opts.h"

/* Classify never sends a frame anywhere; the cpumap entries only have to
 * exist for the redirect to be chosen, so their queues stay small.
 */
#define CLASSIFY_QSIZE 64

struct classify_result {
	const char *verdict;
	bool recorded;
	struct cpusteer_decision d;
	struct frame_path path;	/* read back as far as d.path says */
};

static void format_addr(int family, const __u32 *addr, char *buf, size_t len)
{
	inet_ntop(family == 6 ? AF_INET6 : AF_INET, addr, buf, len);
}

static int run_frame(struct steer_instance *in, int prog_fd, const __u8 *frame,
		     __u32 len, struct classify_result *r)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len,
		    .repeat = 1);
	int err;

	err = instance_clear_decision(in);
	if (err)
		return err;
	if (bpf_prog_test_run_opts(prog_fd, &opts)) {
		/* The kernel refused the frame, e.g. shorter than Ethernet. */
		r->verdict = "invalid";
		r->recorded = false;
		frame_path_read(frame, len, 0, &r->path);
		return 0;
	}
	r->verdict = xdp_verdict_name(opts.retval);
	err = instance_read_decision(in, &r->d);
	r->recorded = !err && r->d.outcome != ~0u;
	frame_path_read(frame, len, r->recorded ? r->d.path : 0, &r->path);
	return err;
}

static const char *reason_of(const struct classify_result *r)
{
	if (!r->recorded || r->d.outcome == CPUSTEER_OUT_REDIRECT)
		return NULL;
	if (r->d.outcome == CPUSTEER_OUT_PASS)
		return pass_reason_name(r->d.reason);
	return error_name(r->d.reason);
}

static bool has_flow(const struct classify_result *r)
{
	return r->recorded && r->d.key.family;
}

static bool redirected(const struct classify_result *r)
{
	return r->recorded && r->d.outcome == CPUSTEER_OUT_REDIRECT;
}

static bool tunneled(const struct classify_result *r)
{
	return r->recorded && r->d.tunnel < CPUSTEER_TUNNELS;
}

/* GTP-U by tunnel hashes the TEID where the ports would be: the flow is
 * shown with it, not with ports it does not have.
 */
static bool by_teid(const struct classify_result *r)
{
	return tunneled(r) && r->d.tunnel == CPUSTEER_TUNNEL_GTPU_TEID &&
	       r->d.inner_fallback == CPUSTEER_INNER_FALLBACKS;
}

static __u32 teid_of(const struct cpusteer_flow_key *k)
{
	return (__u32)k->sport << 16 | k->dport;
}

static void print_flow(const struct cpusteer_flow_key *k, bool teid)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];

	format_addr(k->family, k->saddr, src, sizeof(src));
	format_addr(k->family, k->daddr, dst, sizeof(dst));
	if (teid)
		printf(k->family == 6 ? "%s [%s] -> [%s] teid 0x%08x" : "%s %s -> %s teid 0x%08x",
		       ip_proto_name(k->proto), src, dst, teid_of(k));
	else if (k->family == 6)
		printf("%s [%s]:%u -> [%s]:%u", ip_proto_name(k->proto), src, k->sport, dst,
		       k->dport);
	else
		printf("%s %s:%u -> %s:%u", ip_proto_name(k->proto), src, k->sport, dst, k->dport);
}

/* After the flow hashed: the tunnel it came through and the outer flow,
 * or why the outer flow is the one hashed.
 */
static void print_tunnel(const struct classify_result *r)
{
	if (r->d.inner_fallback < CPUSTEER_INNER_FALLBACKS) {
		printf("  [%s, outer flow: inner %s]", tunnel_name(r->d.tunnel),
		       inner_fallback_name(r->d.inner_fallback));
		return;
	}
	printf("  [%s %s ", by_teid(r) ? "tunnel of" : "inner of", tunnel_name(r->d.tunnel));
	print_flow(&r->d.outer, false);
	putchar(']');
}

static bool by_rule(const struct classify_result *r)
{
	return redirected(r) && r->d.rule != CPUSTEER_RULE_NONE;
}

/* The prefix of the rule that chose the CPU: the matched address, cut
 * to the rule's length.
 */
static void rule_matched(const struct classify_result *r, char *buf, size_t len)
{
	const struct cpusteer_flow_key *k = &r->d.key;
	struct prefix_rule rule = { .family = k->family, .direction = r->d.rule,
				    .prefixlen = r->d.rule_prefixlen };
	unsigned int i;

	memcpy(rule.addr, r->d.rule == CPUSTEER_RULE_SRC ? k->saddr : k->daddr, sizeof(rule.addr));
	for (i = rule.prefixlen; i < sizeof(rule.addr) * 8; i++)
		rule.addr[i / 8] &= ~(0x80 >> i % 8);
	rule_format(&rule, false, buf, len);
}

static void print_row(__u64 index, __u32 len, const struct classify_result *r)
{
	char rule[RULE_LINE_MAX];
	char cpu[12] = "-", bucket[12] = "-";
	const struct cpusteer_flow_key *k = &r->d.key;
	const char *reason = reason_of(r);

	if (redirected(r)) {
		snprintf(cpu, sizeof(cpu), "%u", r->d.cpu);
		if (k->family && !by_rule(r))
			snprintf(bucket, sizeof(bucket), "%u", r->d.bucket);
	}
	printf("%-6llu %5u  %-8s %4s %6s  ", (unsigned long long)index, len, r->verdict, cpu, bucket);
	if (has_flow(r))
		print_flow(k, by_teid(r));
	else if (redirected(r))
		printf("non-ip");
	if (!frame_path_empty(&r->path)) {
		printf("%s[", has_flow(r) || redirected(r) ? "  " : "");
		frame_path_print(&r->path, stdout);
		putchar(']');
	}
	if (tunneled(r))
		print_tunnel(r);
	if (by_rule(r)) {
		rule_matched(r, rule, sizeof(rule));
		printf("  [rule %s]", rule);
	}
	if (reason)
		printf("%s(%s)", has_flow(r) ? "  " : "", reason);
	putchar('\n');
}

static void json_flow(struct json *j, const char *key, const struct cpusteer_flow_key *k,
		      bool teid)
{
	char addr[INET6_ADDRSTRLEN];

	json_object_open(j, key);
	json_uint(j, "family", k->family);
	json_string(j, "proto", ip_proto_name(k->proto));
	format_addr(k->family, k->saddr, addr, sizeof(addr));
	json_string(j, "src", addr);
	format_addr(k->family, k->daddr, addr, sizeof(addr));
	json_string(j, "dst", addr);
	if (teid) {
		json_uint(j, "teid", teid_of(k));
	} else {
		json_uint(j, "sport", k->sport);
		json_uint(j, "dport", k->dport);
	}
	json_object_close(j);
}

/* "tunnel", "outer" and "inner_fallback": null when the frame came
 * through no tunnel --inner names.
 */
static void json_tunnel(struct json *j, const struct classify_result *r)
{
	if (!tunneled(r)) {
		json_null(j, "tunnel");
		json_null(j, "outer");
		json_null(j, "inner_fallback");
		return;
	}
	json_string(j, "tunnel", tunnel_name(r->d.tunnel));
	json_flow(j, "outer", &r->d.outer, false);
	if (r->d.inner_fallback < CPUSTEER_INNER_FALLBACKS)
		json_string(j, "inner_fallback", inner_fallback_name(r->d.inner_fallback));
	else
		json_null(j, "inner_fallback");
}

static void json_row(struct json *j, __u64 index, __u32 len, const struct classify_result *r)
{
	const struct cpusteer_flow_key *k = &r->d.key;
	const char *reason = reason_of(r);
	char rule[RULE_LINE_MAX];

	json_object_open(j, NULL);
	json_uint(j, "index", index);
	json_uint(j, "length", len);
	json_string(j, "verdict", r->verdict);
	if (redirected(r))
		json_uint(j, "cpu", r->d.cpu);
	else
		json_null(j, "cpu");
	if (redirected(r) && k->family && !by_rule(r))
		json_uint(j, "bucket", r->d.bucket);
	else
		json_null(j, "bucket");
	if (redirected(r) && k->family)
		json_uint(j, "hash", r->d.hash);
	else
		json_null(j, "hash");
	if (by_rule(r)) {
		rule_matched(r, rule, sizeof(rule));
		json_string(j, "rule", rule);
	} else {
		json_null(j, "rule");
	}
	if (reason)
		json_string(j, "reason", reason);
	else
		json_null(j, "reason");
	if (has_flow(r))
		json_flow(j, "flow", k, by_teid(r));
	else
		json_null(j, "flow");
	if (r->recorded)
		frame_path_json(j, "path", &r->path);
	else
		json_null(j, "path");
	json_tunnel(j, r);
	json_object_close(j);
}

static void print_header(const struct steer_opts *o, size_t nrules, bool as_json,
			 struct json *j)
{
	char key[40], cpus[256], inner[160];
	__u32 i;

	key_format(o->cfg.key, key, sizeof(key));
	cpuset_format(&o->cpus, cpus, sizeof(cpus));
	inner_format(&o->cfg, inner, sizeof(inner));
	if (as_json) {
		json_object_open(j, NULL);
		json_string(j, "key", key);
		json_string(j, "hash", hash_fn_name(o->cfg.hash_fn));
		json_uint(j, "buckets", o->cfg.nbuckets);
		json_bool(j, "symmetric", o->cfg.symmetric);
		json_string(j, "inner", inner);
		json_uint(j, "rules", nrules);
		json_array_open(j, "cpus");
		for (i = 0; i < o->cpus.n; i++) {
			json_object_open(j, NULL);
			json_uint(j, "cpu", o->cpus.cpu[i]);
			json_uint(j, "weight", o->cpus.weight[i]);
			json_object_close(j);
		}
		json_array_close(j);
		json_array_open(j, "packets");
		return;
	}
	printf("key %s  hash %s  buckets %u  cpus %s%s  inner %s  rules %zu\n", key,
	       hash_fn_name(o->cfg.hash_fn), o->cfg.nbuckets, cpus,
	       o->cfg.symmetric ? "  symmetric" : "", inner, nrules);
	printf("%-6s %5s  %-8s %4s %6s  %s\n", "#", "len", "verdict", "cpu", "bucket", "flow");
}

static int classify_capture(struct capture *cap, const struct steer_opts *o,
			    const struct prefix_rules *rules, bool as_json)
{
	struct cpumap_opts cm = { .qsize = CLASSIFY_QSIZE, .remote = REMOTE_NONE };
	struct steer_instance in;
	const __u8 *frame;
	__u32 len, i;
	__u64 index = 0, redirected_to[CPUSTEER_MAX_CPUS] = {};
	struct json j;
	int err, rc;

	err = instance_open(&in, true, false, 0);
	if (err)
		return err;
	err = rule_maps_fill(&in, 0, rules);
	if (!err)
		err = instance_configure(&in, &o->cpus, &o->cfg, &cm);
	if (err)
		goto out;

	json_init(&j, stdout);
	print_header(o, rules->n, as_json, &j);
	while ((rc = capture_next(cap, &frame, &len)) == 1) {
		struct classify_result r;

		index++;
		err = run_frame(&in, instance_prog_fd(&in, false), frame, len, &r);
		if (err) {
			log_err("cannot classify frame %llu: %s", (unsigned long long)index,
				strerror(-err));
			break;
		}
		if (redirected(&r) && r.d.cpu < CPUSTEER_MAX_CPUS)
			redirected_to[r.d.cpu]++;
		if (as_json)
			json_row(&j, index, len, &r);
		else
			print_row(index, len, &r);
	}
	if (rc < 0)
		err = rc;
	/* JSON stays well-formed even when a frame fails midway. */
	if (as_json)
		json_array_close(&j);
	if (as_json && !err) {
		json_object_open(&j, "redirected_per_cpu");
		for (i = 0; i < o->cpus.n; i++) {
			char name[12];

			snprintf(name, sizeof(name), "%u", o->cpus.cpu[i]);
			json_uint(&j, name, redirected_to[o->cpus.cpu[i]]);
		}
		json_object_close(&j);
	}
	if (as_json)
		json_object_close(&j);
	else if (!err) {
		printf("%llu frames;", (unsigned long long)index);
		for (i = 0; i < o->cpus.n; i++)
			printf(" cpu %u: %llu", o->cpus.cpu[i],
			       (unsigned long long)redirected_to[o->cpus.cpu[i]]);
		putchar('\n');
	}
out:
	instance_close(&in);
	return err;
}

struct classify_opts {
	struct steer_opts steer;
	bool as_json;
	const char *rules_path;
	struct prefix_rules rules;
};

static const struct cli_option classify_options[] = {
	CLI_FLAG("json", struct classify_opts, as_json, "one JSON object with a \"packets\" array"),
	CLI_TEXT_OPTION("rules", "FILE", struct classify_opts, rules_path,
			"prefix rules, as load --rules takes them", NULL),
	{}
};

/* --rules, its CPUs among --cpus as load wants them. */
static int read_rules(struct classify_opts *o)
{
	if (!o->rules_path)
		return 0;
	if (rules_read_file(o->rules_path, &o->rules) ||
	    rules_check_cpus(&o->rules, &o->steer.cpus))
		return -EINVAL;
	o->steer.cfg.rules = rules_kinds(&o->rules);
	return 0;
}

static const struct classify_opts classify_start = { .steer = STEER_START };

const struct cli_command classify_command = {
	.name = "classify",
	.summary = "run a capture through the steering program, per-packet CPU",
	.operands = "FILE.pcap",
	.about = "Runs each frame of an Ethernet capture through the steering program\n"
		 "(BPF_PROG_TEST_RUN) and prints the verdict, CPU, bucket and flow key\n"
		 "the kernel program chose.\n",
	.groups = {
		STEER_GROUP(struct classify_opts, steer),
		{ classify_options, 0 },
	},
	.start = &classify_start,
	.run = cmd_classify,
};

int cmd_classify(int argc, char **argv)
{
	struct classify_opts o = classify_start;
	struct capture *cap;
	int operand, err;

	err = cli_parse(&classify_command, argc, argv, &o, &operand);
	if (err)
		return cli_exit_status(err);
	if (steer_opts_check_usage(&o.steer))
		return EXIT_USAGE;
	/* The kernel test-runs no program bound to a device. */
	if (o.steer.cfg.hash_fn == CPUSTEER_HASH_NIC) {
		log_err("classify cannot use --hash nic: test runs have no NIC; --hash siphash13 shows where frames without a NIC hash go");
		return EXIT_USAGE;
	}
	if (steer_opts_finish(&o.steer))
		return 1;
	if (read_rules(&o)) {
		rules_free(&o.rules);
		return EXIT_USAGE;
	}
	cap = capture_open_read(argv[operand]);
	if (cap) {
		err = classify_capture(cap, &o.steer, &o.rules, o.as_json);
		capture_close(cap);
	}
	rules_free(&o.rules);
	return cap && !err ? 0 : 1;
}

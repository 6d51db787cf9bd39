// SPDX-License-Identifier: GPL-2.0
/* The exporter's exposition text (loader/exporter_metrics.c), from
 * instances made up here: no kernel, no pins. The format's rules
 * (Prometheus text 0.0.4) are checked line by line: HELP and TYPE once
 * per family and before its series, a family's series together, counter
 * names ending in _total, label values escaped; and the values are the
 * samples' counts, exact.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exporter_metrics.h"
#include "instance.h"
#include "kernel_features.h"
#include "log.h"
#include "test_util.h"
#include "version.h"

#define NCPUS 2

/* The exposition of a scrape, as one string to free. */
static char *exposition_of(const struct metrics_scrape *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ASSERT_EQ(metrics_write(f, s), 0, "metrics_write");
	fclose(f);
	return text;
}

/* The exposition of `n` instances and nothing skipped. */
static char *exposition(const struct metrics_instance *const *in, size_t n)
{
	struct metrics_scrape s = { .ncpus = NCPUS, .in = in, .n = n };

	return exposition_of(&s);
}

static char *escaped(const char *v, bool quoted)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	metrics_escape(f, v, quoted);
	fclose(f);
	return text;
}

/* An instance on `ifname` in namespace `cookie`, targets CPUs 0 and 1,
 * with no packets counted yet.
 */
static void instance_init_test(struct metrics_instance *m, const char *ifname, __u64 cookie)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->interface, sizeof(m->interface), "%s", ifname);
	m->netns_cookie = cookie;
	m->st.xdp_mode = 1;
	m->st.qsize = 2048;
	m->st.remote = REMOTE_DROP;
	m->st.prog_id = 77;
	m->st.kernel_features = KF_CPUMAP_GRO;
	m->cfg.nbuckets = 512;
	m->cfg.non_ip_cpu = CPUSTEER_NON_IP_PASS;
	m->cpus.n = 2;
	m->cpus.cpu[0] = 0;
	m->cpus.cpu[1] = 1;
	m->cpus.weight[0] = 1;
	m->cpus.weight[1] = 3;
	m->buckets[0] = 128;
	m->buckets[1] = 384;
	m->present = true;
	m->traced[TP_CPUMAP_ENQUEUE] = true;
	ASSERT_EQ(sample_alloc(&m->sample, NCPUS), 0, "sample_alloc");
}

/* Whether `line` is a whole line of `text`. */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; (p = strstr(p, line)); p += n)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

#define ASSERT_LINE(text, line)                                               \
	do {                                                                  \
		if (!has_line(text, line))                                    \
			printf("#   missing line: %s\n", line);               \
		ASSERT_TRUE(has_line(text, line), "line in the exposition");  \
	} while (0)

static void test_label_values_are_escaped(void)
{
	char *q = escaped("a\"b\\c\nd", true), *h = escaped("a\"b\\c\nd", false);

	ASSERT_TRUE(!strcmp(q, "a\\\"b\\\\c\\nd"), "label value: \\ \" and newline escaped");
	ASSERT_TRUE(!strcmp(h, "a\"b\\\\c\\nd"), "HELP text: \\ and newline escaped, \" kept");
	free(q);
	free(h);
}

/* The presence line of an instance on `ifname` in namespace 3. */
static void assert_present_line(const char *ifname, const char *line)
{
	struct metrics_instance m;
	const struct metrics_instance *in[] = { &m };
	char *text;

	instance_init_test(&m, ifname, 3);
	text = exposition(in, 1);
	ASSERT_LINE(text, line);
	free(text);
	sample_free(&m.sample);
}

/* An interface name may hold any byte but '/', ':' and white space. The
 * label is the name itself, as node_exporter's `device` label has it,
 * with only the format's escapes: \\ for the backslash, \" for the quote.
 */
static void test_odd_interface_name_is_one_valid_label(void)
{
	assert_present_line("o\"\\", "cpusteer_interface_present{interface=\"o\\\"\\\\\",netns=\"3\"} 1");
}

/* UTF-8 names are labels as they are: "ümlaut0" is "ümlaut0", not
 * "\xc3\xbcmlaut0".
 */
static void test_utf8_interface_name_is_kept(void)
{
	assert_present_line("\xc3\xbcmlaut0",
			    "cpusteer_interface_present{interface=\"\xc3\xbcmlaut0\",netns=\"3\"} 1");
}

/* Each byte outside a valid UTF-8 sequence becomes the characters \xNN of
 * the value, spelt \\xNN in the text: the exposition stays UTF-8.
 */
static void test_invalid_utf8_is_escaped_as_utf8(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "\xe2\x82\xac\xf0\x9f\x90\xa7", "\xe2\x82\xac\xf0\x9f\x90\xa7" }, /* 3 and 4 bytes */
		{ "a\xff", "a\\\\xff" },				/* never in UTF-8 */
		{ "a\xc3", "a\\\\xc3" },				/* cut short */
		{ "\xc3(", "\\\\xc3(" },				/* not continued */
		{ "\xc0\xaf", "\\\\xc0\\\\xaf" },			/* overlong '/' */
		{ "\xe0\x80\xaf", "\\\\xe0\\\\x80\\\\xaf" },		/* overlong, 3 bytes */
		{ "\xed\xa0\x80", "\\\\xed\\\\xa0\\\\x80" },		/* a surrogate */
		{ "\xf4\x90\x80\x80", "\\\\xf4\\\\x90\\\\x80\\\\x80" },	/* above U+10FFFF */
		{ "\x80\xc3\xbc", "\\\\x80\xc3\xbc" },			/* a stray continuation */
	};
	char what[64], got[128], want[128], *v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		v = escaped(cases[i].in, true);
		snprintf(what, sizeof(what), "case %zu escaped", i);
		log_printable(v, got, sizeof(got));
		log_printable(cases[i].out, want, sizeof(want));
		if (strcmp(v, cases[i].out))
			printf("#   got %s, want %s (bytes beyond ASCII as \\xNN)\n", got, want);
		ASSERT_TRUE(!strcmp(v, cases[i].out), what);
		free(v);
	}
}

/* How many lines of `text` start with `start`. */
static int lines_starting(const char *text, const char *start)
{
	const char *p;
	int n = 0;

	for (p = text; (p = strstr(p, start)); p++)
		n += p == text || p[-1] == '\n';
	return n;
}

/* Every family: HELP then TYPE, once, and then only its own series; a
 * counter's name ends in _total. Returns the number of families.
 */
static int check_structure(const char *text)
{
	char *copy = strdup(text), *line, *save = NULL, family[128] = "", help[128] = "";
	char name[128], what[256], start[160];
	int families = 0;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "# HELP %127s", help) == 1)
			continue;
		if (sscanf(line, "# TYPE %127s", name) == 1) {
			snprintf(what, sizeof(what), "TYPE of %s follows its HELP", name);
			ASSERT_TRUE(!strcmp(name, help), what);
			snprintf(start, sizeof(start), "# HELP %s ", name);
			snprintf(what, sizeof(what), "one HELP line of %s", name);
			ASSERT_EQ(lines_starting(text, start), 1, what);
			snprintf(start, sizeof(start), "# TYPE %s ", name);
			snprintf(what, sizeof(what), "one TYPE line of %s", name);
			ASSERT_EQ(lines_starting(text, start), 1, what);
			snprintf(what, sizeof(what), "counter %s ends in _total", name);
			if (strstr(line, " counter"))
				ASSERT_TRUE(strlen(name) > 6 &&
					    !strcmp(name + strlen(name) - 6, "_total"), what);
			snprintf(family, sizeof(family), "%s", name);
			families++;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(line, "{ "), line);
		snprintf(what, sizeof(what), "series %s under its own TYPE (%s)", name, family);
		ASSERT_TRUE(!strcmp(name, family), what);
	}
	free(copy);
	return families;
}

static void test_families_are_whole_and_together(void)
{
	struct metrics_instance a, b;
	const struct metrics_instance *in[] = { &a, &b };
	char *text, *none;
	int families;

	instance_init_test(&a, "eth0", 5);
	instance_init_test(&b, "eth1", 9);
	text = exposition(in, 2);
	none = exposition(NULL, 0);
	families = check_structure(text);
	ASSERT_EQ(check_structure(none), families, "families with no instance");
	ASSERT_EQ(lines_starting(text, "# TYPE "), families, "TYPE lines");
	ASSERT_TRUE(families >= 20, "families");
	ASSERT_LINE(none, "cpusteer_instances 0");
	ASSERT_LINE(text, "cpusteer_instances 2");
	ASSERT_EQ(lines_starting(text, "cpusteer_received_packets_total{"), 2 * NCPUS,
		  "a received series per CPU of each instance");
	free(text);
	free(none);
	sample_free(&a.sample);
	sample_free(&b.sample);
}

static void test_counts_are_the_samples(void)
{
	struct metrics_instance m;
	const struct metrics_instance *in[] = { &m };
	struct stats_sample *s = &m.sample;
	char *text;

	instance_init_test(&m, "eth0", 5);
	s->rx[0].rx_packets = 100;
	s->rx[1].rx_packets = 11;
	s->rx[0].passed[CPUSTEER_PASS_NON_IP] = 3;
	s->rx[1].passed[CPUSTEER_PASS_NON_IP] = 2;
	s->rx[1].errors[CPUSTEER_ERR_BAD_BUCKET] = 1;
	s->rx[0].inner_steered[CPUSTEER_TUNNEL_GRE] = 4;
	s->rx[0].seen_fragments = 6;
	s->rx[1].seen_fragments = 1;
	s->rx[1].seen_vlan = 2;
	s->rx[0].seen_pppoe = 4;
	s->rx[1].seen_pppoe = 3;
	s->rx[0].seen_mpls = 5;
	s->rx[1].passed[CPUSTEER_PASS_MPLS_PAYLOAD] = 6;
	s->redirected[0 * NCPUS + 1] = 60;	/* CPU 0 to CPU 1 */
	s->redirected[1 * NCPUS + 1] = 8;
	s->redirected[0 * NCPUS + 0] = 37;
	s->enqueue[0 * NCPUS + 1].processed = 60;
	s->enqueue[1 * NCPUS + 1].processed = 8;
	s->enqueue[1 * NCPUS + 1].drops = 2;
	s->kthread[1].processed = 66;
	s->kthread[1].xdp_drop = 66;
	s->remote[1].dropped = 66;
	s->exceptions[XDP_ABORTED] = 9;
	s->redirect_errors = 12345678901ULL;
	text = exposition(in, 1);
#define L "interface=\"eth0\",netns=\"5\""
	ASSERT_LINE(text, "cpusteer_instances 1");
	ASSERT_LINE(text, "cpusteer_received_packets_total{" L ",cpu=\"0\"} 100");
	ASSERT_LINE(text, "cpusteer_received_packets_total{" L ",cpu=\"1\"} 11");
	ASSERT_LINE(text, "cpusteer_redirected_packets_total{" L ",cpu=\"0\"} 37");
	ASSERT_LINE(text, "cpusteer_redirected_packets_total{" L ",cpu=\"1\"} 68");
	ASSERT_LINE(text, "cpusteer_passed_packets_total{" L ",reason=\"non_ip\"} 5");
	ASSERT_LINE(text, "cpusteer_passed_packets_total{" L ",reason=\"bad_l3\"} 0");
	ASSERT_LINE(text, "cpusteer_error_packets_total{" L ",error=\"bad_bucket\"} 1");
	ASSERT_LINE(text, "cpusteer_inner_steered_packets_total{" L ",tunnel=\"gre\"} 4");
	ASSERT_LINE(text, "cpusteer_fragment_packets_total{" L "} 7");
	ASSERT_LINE(text, "cpusteer_vlan_packets_total{" L "} 2");
	ASSERT_LINE(text, "cpusteer_l3_only_packets_total{" L "} 0");
	ASSERT_LINE(text, "cpusteer_pppoe_packets_total{" L "} 7");
	ASSERT_LINE(text, "cpusteer_mpls_packets_total{" L "} 5");
	ASSERT_LINE(text, "cpusteer_passed_packets_total{" L ",reason=\"mpls_payload\"} 6");
	ASSERT_LINE(text, "cpusteer_cpumap_enqueued_packets_total{" L ",cpu=\"1\"} 68");
	ASSERT_LINE(text, "cpusteer_cpumap_enqueue_dropped_packets_total{" L ",cpu=\"1\"} 2");
	ASSERT_LINE(text, "cpusteer_cpumap_kthread_packets_total{" L ",cpu=\"1\"} 66");
	ASSERT_LINE(text, "cpusteer_cpumap_kthread_xdp_packets_total{" L ",cpu=\"1\",action=\"drop\"} 66");
	ASSERT_LINE(text, "cpusteer_remote_packets_total{" L ",cpu=\"1\",outcome=\"drop\"} 66");
	ASSERT_LINE(text, "cpusteer_remote_packets_total{" L ",cpu=\"0\",outcome=\"redirect_error\"} 0");
	ASSERT_LINE(text, "cpusteer_xdp_exceptions_total{" L ",action=\"aborted\"} 9");
	ASSERT_LINE(text, "cpusteer_xdp_redirect_errors_total{" L "} 12345678901");
	ASSERT_LINE(text, "cpusteer_cpu_weight{" L ",cpu=\"1\"} 3");
	ASSERT_LINE(text, "cpusteer_cpu_buckets{" L ",cpu=\"0\"} 128");
	ASSERT_LINE(text, "cpusteer_cpumap_gro{" L "} 1");
	ASSERT_LINE(text, "cpusteer_tracepoint_attached{" L ",tracepoint=\"xdp_cpumap_enqueue\"} 1");
	ASSERT_LINE(text, "cpusteer_tracepoint_attached{" L ",tracepoint=\"xdp_exception\"} 0");
	free(text);
	sample_free(&m.sample);
}

/* Instance folders not exported, by reason, every reason always there. */
static void test_skipped_by_reason(void)
{
	struct metrics_scrape s = { .ncpus = NCPUS,
				    .skipped = { [SKIP_LOCKED] = 1, [SKIP_NOT_READY] = 2 } };
	char *text = exposition_of(&s);

	ASSERT_LINE(text, "cpusteer_instances 0");
	ASSERT_LINE(text, "cpusteer_instances_skipped{reason=\"locked\"} 1");
	ASSERT_LINE(text, "cpusteer_instances_skipped{reason=\"not_ready\"} 2");
	ASSERT_LINE(text, "cpusteer_instances_skipped{reason=\"unreadable\"} 0");
	free(text);
}

/* The state folder: 1 while usable, 0 with a reason when not. */
static void test_state_dir_problem_is_a_series(void)
{
	struct metrics_scrape s = { .ncpus = NCPUS };
	char *text = exposition_of(&s);

	ASSERT_LINE(text, "cpusteer_state_dir_ok 1");
	free(text);
	s.state_dir_problem = "refused";
	text = exposition_of(&s);
	ASSERT_LINE(text, "cpusteer_state_dir_ok{reason=\"refused\"} 0");
	free(text);
}

/* One series, with no instance: what `cpusteer version` prints. */
static void test_build_info_is_the_version(void)
{
	struct metrics_scrape s = { .ncpus = NCPUS };
	char *text = exposition_of(&s), line[512];
	struct build_info b;

	build_info_get(&b);
	snprintf(line, sizeof(line),
		 "cpusteer_build_info{version=\"%s\",commit=\"%s\",libbpf=\"%s\",libxdp=\"%s\",bpf_compiler=\"%s\"} 1",
		 b.version, b.commit, b.libbpf, b.libxdp, b.bpf_compiler);
	ASSERT_LINE(text, line);
	ASSERT_TRUE(b.version[0] && strcmp(b.commit, ""), "a version and a commit");
	free(text);
}

/* Every instance judged has its health series, exported or not: one
 * that serves has its counters too, one a killed load left has only
 * these.
 */
static void test_health_of_every_judged_instance(void)
{
	struct metrics_instance up, stuck;
	const struct metrics_instance *in[] = { &up }, *judged[] = { &up, &stuck };
	struct metrics_scrape s = { .ncpus = NCPUS, .in = in, .n = 1, .judged = judged,
				    .njudged = 2 };
	char *text;

	instance_init_test(&up, "eth0", 5);
	up.health = (struct instance_health){ .problem = HEALTH_PROGRAM_REPLACED,
					      .phase = CPUSTEER_PHASE_READY };
	instance_init_test(&stuck, "eth1", 5);
	stuck.health = (struct instance_health){ .problem = HEALTH_INTERRUPTED_LOAD,
						 .phase = CPUSTEER_PHASE_LOADING, .attached = true };
	text = exposition_of(&s);
	ASSERT_LINE(text, "cpusteer_instance_health{interface=\"eth0\",netns=\"5\",problem=\"program_replaced\"} 1");
	ASSERT_LINE(text, "cpusteer_instance_phase{interface=\"eth0\",netns=\"5\",phase=\"ready\"} 1");
	ASSERT_LINE(text, "cpusteer_instance_attached{interface=\"eth0\",netns=\"5\"} 0");
	ASSERT_LINE(text, "cpusteer_instance_health{interface=\"eth1\",netns=\"5\",problem=\"interrupted_load\"} 1");
	ASSERT_LINE(text, "cpusteer_instance_phase{interface=\"eth1\",netns=\"5\",phase=\"loading\"} 1");
	ASSERT_LINE(text, "cpusteer_instance_attached{interface=\"eth1\",netns=\"5\"} 1");
	ASSERT_EQ(lines_starting(text, "cpusteer_interface_present{interface=\"eth1\""), 0,
		  "counters of the instance not exported");
	/* Asserts each rule itself; the count is of families. */
	check_structure(text);
	free(text);
	sample_free(&up.sample);
	sample_free(&stuck.sample);
}

/* The settings are labels of one series; the key is not among them. */
static void test_info_has_the_settings_not_the_key(void)
{
	struct metrics_instance m;
	const struct metrics_instance *in[] = { &m };
	char *text;

	instance_init_test(&m, "eth0", 5);
	m.cfg.key[0] = 0x1122334455667788ULL;
	m.cfg.symmetric = 1;
	m.cfg.non_ip_cpu = 1;
	text = exposition(in, 1);
	ASSERT_LINE(text, "cpusteer_instance_info{" L ",xdp_mode=\"native\",hash=\"multilinear\","
		    "symmetric=\"true\",inner=\"none\",non_ip=\"cpu:1\",remote=\"drop\",qsize=\"2048\","
		    "buckets=\"512\",bucket_stats=\"false\",program_id=\"77\","
		    "kthread_sched=\"unset\"} 1");
	ASSERT_TRUE(!strstr(text, "1122334455667788") && !strstr(text, "key"), "no key in the text");
#undef L
	free(text);
	sample_free(&m.sample);
}

/* Each target CPU's kthread: its pid and priority with its policy, a
 * nice value below 0 as it is; a CPU whose thread was not found has no
 * series, and the setting is a label of the info series.
 */
static void test_threads_of_each_target_cpu(void)
{
	struct metrics_instance m;
	const struct metrics_instance *in[] = { &m };
	char *text;

#define L "interface=\"eth0\",netns=\"5\""
	instance_init_test(&m, "eth0", 5);
	m.st.kthread_policy = CPUSTEER_KTHREAD_FIFO;
	m.st.kthread_priority = 20;
	m.threads.n = 2;
	m.threads.t[0] = (struct cpumap_thread){ .cpu = 0, .pid = 4130, .policy = 0, .nice = -5 };
	m.threads.t[1] = (struct cpumap_thread){ .cpu = 5, .pid = 4131, .policy = 1,
						 .rt_priority = 20 };
	text = exposition(in, 1);
	ASSERT_LINE(text, "cpusteer_cpumap_thread_pid{" L ",cpu=\"0\",policy=\"other\"} 4130");
	ASSERT_LINE(text, "cpusteer_cpumap_thread_priority{" L ",cpu=\"0\",policy=\"other\"} -5");
	ASSERT_TRUE(!strstr(text, "cpusteer_cpumap_thread_pid{" L ",cpu=\"1\""),
		    "no series for CPU 1, whose thread was not found");
	ASSERT_TRUE(!strstr(text, "cpu=\"5\",policy"), "none for CPU 5, no target");
	ASSERT_TRUE(strstr(text, ",kthread_sched=\"fifo:20\"} 1\n"), "the setting in the info");
#undef L
	free(text);
	sample_free(&m.sample);
}

static const struct tu_test tests[] = {
	TU_TEST(test_label_values_are_escaped),
	TU_TEST(test_odd_interface_name_is_one_valid_label),
	TU_TEST(test_utf8_interface_name_is_kept),
	TU_TEST(test_invalid_utf8_is_escaped_as_utf8),
	TU_TEST(test_families_are_whole_and_together),
	TU_TEST(test_counts_are_the_samples),
	TU_TEST(test_skipped_by_reason),
	TU_TEST(test_state_dir_problem_is_a_series),
	TU_TEST(test_build_info_is_the_version),
	TU_TEST(test_health_of_every_judged_instance),
	TU_TEST(test_info_has_the_settings_not_the_key),
	TU_TEST(test_threads_of_each_target_cpu),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}

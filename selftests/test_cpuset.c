// SPDX-License-Identifier: GPL-2.0
/* CPU lists and their check against a machine. The machine is a fixture
 * (the kernel's possible and online lists as strings), so a 384-thread
 * host or an offline CPU is simulated without touching sysfs; only
 * this_machine_lists_read_from_sysfs reads the real one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpuset.h"
#include "options.h"
#include "test_util.h"

/* ---- what the code under test prints ---- */

static FILE *err_file;
static int saved_stderr = -1;
static char err_text[1024];

/* Sends stderr to a temporary file until capture_end(). */
static void capture_begin(void)
{
	fflush(stderr);
	err_file = tmpfile();
	saved_stderr = dup(STDERR_FILENO);
	if (err_file && saved_stderr >= 0)
		dup2(fileno(err_file), STDERR_FILENO);
}

static const char *capture_end(void)
{
	size_t n = 0;

	fflush(stderr);
	if (saved_stderr >= 0) {
		dup2(saved_stderr, STDERR_FILENO);
		close(saved_stderr);
		saved_stderr = -1;
	}
	if (err_file) {
		rewind(err_file);
		n = fread(err_text, 1, sizeof(err_text) - 1, err_file);
		fclose(err_file);
		err_file = NULL;
	}
	err_text[n] = '\0';
	if (n && err_text[n - 1] == '\n')
		err_text[n - 1] = '\0';
	return err_text;
}

#define ASSERT_MESSAGE(got, want, what)                                            \
	do {                                                                       \
		if (!strstr((got), (want))) {                                      \
			printf("#   %s:%d %s: expected a message with '%s', got '%s'\n", \
			       __FILE__, __LINE__, what, want, got);               \
			tu_failures++;                                             \
		}                                                                  \
	} while (0)

/* ---- fixtures ---- */

static void machine_init(struct cpu_machine *m, const char *possible, const char *online)
{
	ASSERT_EQ(cpu_bitmap_parse(&m->possible, possible), 0, "parse the possible list");
	ASSERT_EQ(cpu_bitmap_parse(&m->online, online), 0, "parse the online list");
}

/* Steering options as a command line would give them, on machine m. */
static void opts_init(struct steer_opts *o, const struct cpu_machine *m,
		      const char *cpus, const char *weights)
{
	steer_opts_init(o);
	o->machine = m;
	if (cpus)
		ASSERT_EQ(steer_opts_set(o, "cpus", cpus), 0, "--cpus parses");
	if (weights)
		ASSERT_EQ(steer_opts_set(o, "weights", weights), 0, "--weights is taken");
}

/* steer_opts_finish as load runs it; returns the error, message in err_text. */
static int finish(struct steer_opts *o)
{
	int err;

	capture_begin();
	err = steer_opts_finish(o);
	capture_end();
	return err;
}

static int parse_cpus(struct cpuset *set, const char *list)
{
	int err;

	capture_begin();
	err = cpuset_parse(set, list);
	capture_end();
	return err;
}

/* ---- the machine's own lists ---- */

static void host_list_0_383_holds_384_cpus(void)
{
	struct cpu_bitmap bm;

	ASSERT_EQ(cpu_bitmap_parse(&bm, "0-383"), 0, "parse 0-383");
	ASSERT_EQ(cpu_bitmap_count(&bm), 384, "CPUs in 0-383");
	ASSERT_TRUE(cpu_bitmap_test(&bm, 0) && cpu_bitmap_test(&bm, 255) &&
		    cpu_bitmap_test(&bm, 256) && cpu_bitmap_test(&bm, 383), "0, 255, 256, 383 set");
	ASSERT_TRUE(!cpu_bitmap_test(&bm, 384), "384 not set");
	cpu_bitmap_free(&bm);
}

static void host_list_0_4095_sparse_holds_two_cpus(void)
{
	struct cpu_bitmap bm;

	ASSERT_EQ(cpu_bitmap_parse(&bm, "0,4095"), 0, "parse 0,4095");
	ASSERT_EQ(cpu_bitmap_count(&bm), 2, "CPUs in 0,4095");
	ASSERT_EQ(bm.nbits, 4096, "bits held");
	ASSERT_TRUE(cpu_bitmap_test(&bm, 0) && cpu_bitmap_test(&bm, 4095), "0 and 4095 set");
	ASSERT_TRUE(!cpu_bitmap_test(&bm, 1) && !cpu_bitmap_test(&bm, 4094) &&
		    !cpu_bitmap_test(&bm, 70000), "1, 4094, 70000 not set");
	cpu_bitmap_free(&bm);
}

static void host_list_empty_is_no_cpu(void)
{
	struct cpu_bitmap bm;

	ASSERT_EQ(cpu_bitmap_parse(&bm, ""), 0, "parse an empty list");
	ASSERT_EQ(cpu_bitmap_count(&bm), 0, "CPUs in an empty list");
	ASSERT_TRUE(!cpu_bitmap_test(&bm, 0), "0 not set");
	cpu_bitmap_free(&bm);
}

static void this_machine_lists_read_from_sysfs(void)
{
	struct cpu_machine m;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	ASSERT_EQ(cpu_machine_read(&m), 0, "read /sys/devices/system/cpu");
	ASSERT_EQ(cpu_bitmap_count(&m.online), online, "online CPUs against sysconf");
	ASSERT_TRUE(cpu_bitmap_count(&m.possible) >= cpu_bitmap_count(&m.online),
		    "possible CPUs at least the online ones");
	cpu_machine_free(&m);
}

/* ---- targets on a 384-thread host ---- */

static void cpus_0_3_valid_on_384_cpu_host(void)
{
	struct cpu_machine m;
	struct steer_opts o;

	machine_init(&m, "0-383", "0-383");
	opts_init(&o, &m, "0-3", NULL);
	ASSERT_EQ(finish(&o), 0, "load --cpus 0-3");
	ASSERT_EQ(o.cpus.n, 4, "targets");
	cpu_machine_free(&m);
}

static void cpus_300_303_valid_on_384_cpu_host(void)
{
	struct cpu_machine m;
	struct steer_opts o;

	machine_init(&m, "0-383", "0-383");
	opts_init(&o, &m, "300-303", NULL);
	ASSERT_EQ(finish(&o), 0, "load --cpus 300-303");
	ASSERT_EQ(o.cpus.n, 4, "targets");
	ASSERT_EQ(o.cpus.cpu[3], 303, "last target");
	cpu_machine_free(&m);
}

static void cpus_256_above_255_valid_on_384_cpu_host(void)
{
	struct cpu_machine m;
	struct steer_opts o;

	machine_init(&m, "0-383", "0-383");
	opts_init(&o, &m, "128-383", NULL);
	ASSERT_EQ(finish(&o), 0, "load --cpus 128-383");
	ASSERT_EQ(o.cpus.n, 256, "targets");
	cpu_machine_free(&m);
}

static void default_cpus_refused_on_384_cpu_host(void)
{
	struct cpu_machine m;
	struct steer_opts o;

	machine_init(&m, "0-383", "0-383");
	opts_init(&o, &m, NULL, NULL);
	ASSERT_EQ(finish(&o), -E2BIG, "load without --cpus");
	ASSERT_MESSAGE(err_text, "384 are online, more than the 256 one instance can target; choose some with --cpus",
		       "message");
	cpu_machine_free(&m);
}

static void default_cpus_are_the_online_ones(void)
{
	struct cpu_machine m;
	struct steer_opts o;
	char buf[64];

	machine_init(&m, "0-7", "0-3,6");
	opts_init(&o, &m, NULL, NULL);
	ASSERT_EQ(finish(&o), 0, "load without --cpus");
	cpuset_format(&o.cpus, buf, sizeof(buf));
	if (strcmp(buf, "0-3,6")) {
		printf("#   targets: expected 0-3,6, got %s\n", buf);
		tu_failures++;
	}
	cpu_machine_free(&m);
}

static void cpus_257_targets_refused_with_count(void)
{
	struct cpuset set;

	ASSERT_EQ(parse_cpus(&set, "0-256"), -E2BIG, "--cpus 0-256");
	ASSERT_MESSAGE(err_text, "bad CPU list '0-256': 257 CPUs, more than the 256 one instance can target",
		       "message");
	ASSERT_EQ(parse_cpus(&set, "0-299"), -E2BIG, "--cpus 0-299");
	ASSERT_MESSAGE(err_text, "bad CPU list '0-299': 300 CPUs, more than the 256 one instance can target",
		       "message");
}

static void cpu_beyond_machine_refused_as_no_such_cpu(void)
{
	struct cpu_machine m;
	struct steer_opts o;

	machine_init(&m, "0-383", "0-383");
	opts_init(&o, &m, "380-384", NULL);
	ASSERT_EQ(finish(&o), -ENODEV, "load --cpus 380-384");
	ASSERT_MESSAGE(err_text, "bad CPU 384: no such CPU on this machine", "message");
	cpu_machine_free(&m);
}

static void cpu_number_above_65535_refused(void)
{
	struct cpuset set;

	ASSERT_EQ(parse_cpus(&set, "65535"), 0, "--cpus 65535");
	ASSERT_EQ(parse_cpus(&set, "65536"), -EINVAL, "--cpus 65536");
	ASSERT_MESSAGE(err_text, "bad CPU list '65536': expected CPU numbers from 0 to 65535",
		       "message");
}

static void sparse_cpus_0_4095_parse_and_validate(void)
{
	struct cpu_machine m;
	struct steer_opts o;

	machine_init(&m, "0-4095", "0,4095");
	opts_init(&o, &m, "0,4095", NULL);
	ASSERT_EQ(o.cpus.n, 2, "targets");
	ASSERT_EQ(o.cpus.cpu[1], 4095, "second target");
	ASSERT_EQ(finish(&o), 0, "load --cpus 0,4095");
	cpu_machine_free(&m);
}

static void cpu_listed_twice_refused(void)
{
	struct cpuset set;

	ASSERT_EQ(parse_cpus(&set, "0-3,2"), -EINVAL, "--cpus 0-3,2");
	ASSERT_MESSAGE(err_text, "CPU 2 is listed twice", "message");
}

/* ---- list syntax ---- */

static void trailing_comma_in_cpus_refused(void)
{
	static const char *const bad[] = { "0,", "0,,1", ",0", "0-", "3-1", "0 ,1" };
	struct cpuset set;
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(parse_cpus(&set, bad[i]), -EINVAL, bad[i]);
		ASSERT_MESSAGE(err_text, "expected CPU numbers", bad[i]);
	}
}

static void trailing_comma_in_weights_refused(void)
{
	static const char *const bad[][2] = {
		{ "0", "1," }, { "0", "1,," }, { "0-1", "1,,2" }, { "0-1", ",1,2" },
		{ "0-1", "1,2," }, { "0-1", "1" }, { "0-1", "1,2,3" },
	};
	struct cpu_machine m;
	struct steer_opts o;
	unsigned i;

	machine_init(&m, "0-383", "0-383");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		opts_init(&o, &m, bad[i][0], bad[i][1]);
		ASSERT_EQ(finish(&o), -EINVAL, bad[i][1]);
		ASSERT_MESSAGE(err_text, "comma-separated numbers", bad[i][1]);
	}
	opts_init(&o, &m, "0-1", "3,1");
	ASSERT_EQ(finish(&o), 0, "--cpus 0-1 --weights 3,1");
	ASSERT_EQ(o.cpus.weight[0], 3, "weight of CPU 0");
	cpu_machine_free(&m);
}

/* ---- offline CPUs ---- */

static void offline_cpu_refused_on_load(void)
{
	struct cpu_machine m;
	struct steer_opts o;

	machine_init(&m, "0-383", "0-9,11-383");
	opts_init(&o, &m, "8-11", NULL);
	ASSERT_EQ(finish(&o), -ENODEV, "load --cpus 8-11 with CPU 10 offline");
	ASSERT_MESSAGE(err_text, "bad CPU 10: the CPU is offline", "message");
	cpu_machine_free(&m);
}

static void offline_cpu_of_running_set_is_kept(void)
{
	struct cpu_machine m;
	struct steer_opts o;
	struct cpuset running;

	machine_init(&m, "0-383", "0-9,11-383");
	ASSERT_EQ(parse_cpus(&running, "8-11"), 0, "running set");
	/* set --weights only: the CPUs are the running ones. */
	opts_init(&o, &m, "8-11", "1,2,3,4");
	ASSERT_EQ(cpuset_weigh(&o.cpus, &o.weights), 0, "weights");
	o.cfg.nbuckets = 512;
	o.cfg.non_ip_cpu = CPUSTEER_NON_IP_PASS;
	capture_begin();
	ASSERT_EQ(steer_opts_validate(&o, &running), 0, "set with offline CPU 10 kept");
	capture_end();
	cpu_machine_free(&m);
}

static void offline_cpu_newly_added_refused_despite_running_set(void)
{
	struct cpu_machine m;
	struct steer_opts o;
	struct cpuset running;
	int err;

	machine_init(&m, "0-383", "0-9,11,13-383");
	ASSERT_EQ(parse_cpus(&running, "8-11"), 0, "running set");
	opts_init(&o, &m, "8-13", NULL);
	o.cfg.nbuckets = 512;
	o.cfg.non_ip_cpu = CPUSTEER_NON_IP_PASS;
	capture_begin();
	err = steer_opts_validate(&o, &running);
	capture_end();
	ASSERT_EQ(err, -ENODEV, "set --cpus 8-13: 10 kept, 12 added, both offline");
	ASSERT_MESSAGE(err_text, "bad CPU 12: the CPU is offline", "message");
	cpu_machine_free(&m);
}

static void offline_non_ip_cpu_kept_unless_given_again(void)
{
	struct cpu_machine m;
	struct steer_opts o;
	struct cpuset running;
	int err;

	machine_init(&m, "0-383", "0-9,11-383");
	ASSERT_EQ(parse_cpus(&running, "0-3"), 0, "running set");
	opts_init(&o, &m, "0-3", NULL);
	o.cfg.nbuckets = 512;
	o.cfg.non_ip_cpu = 10;		/* from the running configuration */
	capture_begin();
	err = steer_opts_validate(&o, &running);
	capture_end();
	ASSERT_EQ(err, 0, "set keeping non-IP CPU 10, offline");
	ASSERT_EQ(steer_opts_set(&o, "non-ip", "cpu:10"), 0, "--non-ip cpu:10");
	capture_begin();
	err = steer_opts_validate(&o, &running);
	capture_end();
	ASSERT_EQ(err, -ENODEV, "set --non-ip cpu:10, offline");
	ASSERT_MESSAGE(err_text, "bad CPU 10: the CPU is offline", "message");
	cpu_machine_free(&m);
}

static void offline_cpus_of_a_set_are_listed(void)
{
	struct cpu_machine m;
	struct cpuset set, off;
	char buf[64];

	machine_init(&m, "0-383", "0-9,11,13-383");
	ASSERT_EQ(parse_cpus(&set, "8-13"), 0, "set");
	set.weight[2] = 5;
	ASSERT_EQ(cpuset_offline(&set, &m, &off), 0, "cpuset_offline");
	cpuset_format(&off, buf, sizeof(buf));
	if (strcmp(buf, "10,12")) {
		printf("#   offline CPUs of 8-13: expected 10,12, got %s\n", buf);
		tu_failures++;
	}
	ASSERT_EQ(off.weight[0], 5, "weight of CPU 10 kept");
	ASSERT_EQ(parse_cpus(&set, "0-3"), 0, "set");
	ASSERT_EQ(cpuset_offline(&set, &m, &off), 0, "cpuset_offline");
	ASSERT_EQ(off.n, 0, "offline CPUs of 0-3");
	cpu_machine_free(&m);
}

static const struct tu_test tests[] = {
	TU_TEST(host_list_0_383_holds_384_cpus),
	TU_TEST(host_list_0_4095_sparse_holds_two_cpus),
	TU_TEST(host_list_empty_is_no_cpu),
	TU_TEST(this_machine_lists_read_from_sysfs),
	TU_TEST(cpus_0_3_valid_on_384_cpu_host),
	TU_TEST(cpus_300_303_valid_on_384_cpu_host),
	TU_TEST(cpus_256_above_255_valid_on_384_cpu_host),
	TU_TEST(default_cpus_refused_on_384_cpu_host),
	TU_TEST(default_cpus_are_the_online_ones),
	TU_TEST(cpus_257_targets_refused_with_count),
	TU_TEST(cpu_beyond_machine_refused_as_no_such_cpu),
	TU_TEST(cpu_number_above_65535_refused),
	TU_TEST(sparse_cpus_0_4095_parse_and_validate),
	TU_TEST(cpu_listed_twice_refused),
	TU_TEST(trailing_comma_in_cpus_refused),
	TU_TEST(trailing_comma_in_weights_refused),
	TU_TEST(offline_cpu_refused_on_load),
	TU_TEST(offline_cpu_of_running_set_is_kept),
	TU_TEST(offline_cpu_newly_added_refused_despite_running_set),
	TU_TEST(offline_non_ip_cpu_kept_unless_given_again),
	TU_TEST(offline_cpus_of_a_set_are_listed),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}

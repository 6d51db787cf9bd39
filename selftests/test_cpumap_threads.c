// SPDX-License-Identifier: GPL-2.0
/* Finding the cpumap's kernel threads (loader/instance/cpumap_threads.c):
 * their names matched exactly, /proc/PID/stat read, and a /proc made here
 * with threads of this map, of another map, a name cut to 15 characters
 * and a user process that took a kthread's name.
 *
 * Not in kernel runs: pure user space, the same on every kernel
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cpumap_threads.h"
#include "test_util.h"

#define MAP_ID 123

/* Fields 3 to 41 of a stat line with flags 9, nice 19, rt_priority 40
 * and policy 41 as given; the rest as a sleeping kthread has them.
 */
static void stat_line(char *buf, size_t len, int pid, const char *name, unsigned long flags,
		      int nice, int rt_priority, int policy)
{
	snprintf(buf, len,
		 "%d (%s) S 2 0 0 0 -1 %lu 0 0 0 0 0 3 0 0 %d %d 1 0 87 0 0 "
		 "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 %d %d 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		 pid, name, flags, rt_priority ? -1 - rt_priority : 20 + nice, nice, rt_priority,
		 policy);
}

static void name_is_matched_exactly(void)
{
	__u32 cpu = ~0u;

	ASSERT_TRUE(cpumap_thread_name_match("cpumap/3/map:123", MAP_ID, &cpu), "the map's name");
	ASSERT_EQ(cpu, 3, "its CPU");
	ASSERT_TRUE(cpumap_thread_name_match("cpumap/0/map:123", MAP_ID, &cpu), "CPU 0");
	ASSERT_EQ(cpu, 0, "CPU 0's number");
	ASSERT_TRUE(cpumap_thread_name_match("cpumap/255/map:123", MAP_ID, &cpu), "CPU 255");
	ASSERT_EQ(cpu, 255, "CPU 255's number");
	ASSERT_TRUE(!cpumap_thread_name_match("cpumap/3/map:1234", MAP_ID, &cpu), "a longer id");
	ASSERT_TRUE(!cpumap_thread_name_match("cpumap/3/map:12", MAP_ID, &cpu),
		    "the id cut to 15 characters");
	ASSERT_TRUE(!cpumap_thread_name_match("cpumap/3/map:0123", MAP_ID, &cpu), "a leading 0");
	ASSERT_TRUE(!cpumap_thread_name_match("cpumap/03/map:123", MAP_ID, &cpu), "CPU 03");
	ASSERT_TRUE(!cpumap_thread_name_match("cpumap/-3/map:123", MAP_ID, &cpu), "a sign");
	ASSERT_TRUE(!cpumap_thread_name_match("cpumap//map:123", MAP_ID, &cpu), "no CPU");
	ASSERT_TRUE(!cpumap_thread_name_match("cpumap/3/map:123 ", MAP_ID, &cpu), "a space after");
	ASSERT_TRUE(!cpumap_thread_name_match("xcpumap/3/map:123", MAP_ID, &cpu), "before it");
	ASSERT_TRUE(!cpumap_thread_name_match("cpumap/3/map:", MAP_ID, &cpu), "no id");
	ASSERT_TRUE(!cpumap_thread_name_match("cpumap/4294967296/map:123", MAP_ID, &cpu),
		    "a CPU past 32 bits");
	ASSERT_TRUE(cpumap_thread_name_match("cpumap/1/map:4294967295", 4294967295u, &cpu),
		    "the largest id");
}

static void stat_line_is_read(void)
{
	struct cpumap_thread t;
	char line[512], name[64];
	bool kthread;

	stat_line(line, sizeof(line), 4131, "cpumap/1/map:123", 0x208040, 0, 20, SCHED_FIFO);
	ASSERT_EQ(cpumap_thread_parse_stat(line, name, sizeof(name), &kthread, &t), 0, "parsed");
	ASSERT_TRUE(!strcmp(name, "cpumap/1/map:123"), "the whole name");
	ASSERT_TRUE(kthread, "a kernel thread");
	ASSERT_EQ(t.pid, 4131, "pid");
	ASSERT_EQ(t.policy, SCHED_FIFO, "policy");
	ASSERT_EQ(t.rt_priority, 20, "real-time priority");
	ASSERT_EQ(cpumap_thread_priority(&t), 20, "priority shown under fifo");

	/* A user process may put ") S 2" and anything into its name. */
	stat_line(line, sizeof(line), 77, "x) S 2 0 0 0 -1 2097152", 0x400000, -5, 0, SCHED_OTHER);
	ASSERT_EQ(cpumap_thread_parse_stat(line, name, sizeof(name), &kthread, &t), 0, "parsed");
	ASSERT_TRUE(!strcmp(name, "x) S 2 0 0 0 -1 2097152"), "the name up to the last ')'");
	ASSERT_TRUE(!kthread, "not a kernel thread");
	ASSERT_EQ(t.nice, -5, "nice");
	ASSERT_EQ(cpumap_thread_priority(&t), -5, "priority shown under other: the nice value");

	ASSERT_EQ(cpumap_thread_parse_stat("12 (cut) S 2 0", name, sizeof(name), &kthread, &t),
		  -EINVAL, "a line cut short");
	ASSERT_EQ(cpumap_thread_parse_stat("12 cpumap", name, sizeof(name), &kthread, &t), -EINVAL,
		  "no parentheses");
}

/* A /proc of a few entries under `root`. */
static void write_entry(const char *root, const char *entry, const char *line)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, entry);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/stat", root, entry);
	f = fopen(path, "w");
	if (f) {
		fputs(line, f);
		fclose(f);
	}
}

static void add(const char *root, int pid, const char *name, unsigned long flags, int policy,
		int rt_priority)
{
	char line[512], entry[16];

	stat_line(line, sizeof(line), pid, name, flags, 0, rt_priority, policy);
	snprintf(entry, sizeof(entry), "%d", pid);
	write_entry(root, entry, line);
}

static void threads_are_found_in_proc(void)
{
	static struct cpumap_threads all;
	char root[] = "/tmp/cpumap_threads.XXXXXX", cmd[300];
	const struct cpumap_thread *t;

	if (!mkdtemp(root))
		SKIP("no temporary folder");
	add(root, 500, "cpumap/1/map:123", 0x208040, SCHED_FIFO, 20);
	add(root, 40, "cpumap/0/map:123", 0x208040, SCHED_OTHER, 0);
	/* Cpu 0's entry rewritten: the old thread is still ending. */
	add(root, 600, "cpumap/0/map:123", 0x208040, SCHED_OTHER, 0);
	add(root, 41, "cpumap/0/map:124", 0x208040, SCHED_OTHER, 0);
	add(root, 42, "cpumap/0/map:12", 0x208040, SCHED_OTHER, 0);
	add(root, 43, "cpumap/2/map:123", 0x400100, SCHED_OTHER, 0);	/* not a kthread */
	write_entry(root, "self", "not a pid");
	write_entry(root, "44", "44 (gone");

	ASSERT_EQ(cpumap_threads_find_in(root, MAP_ID, &all), 0, "read");
	ASSERT_EQ(all.n, 3, "threads of map 123");
	ASSERT_EQ(all.t[0].pid, 40, "first: CPU 0, the lower pid");
	ASSERT_EQ(all.t[1].pid, 600, "then CPU 0's newer thread");
	ASSERT_EQ(all.t[2].pid, 500, "then CPU 1");
	ASSERT_EQ(all.t[2].cpu, 1, "CPU 1's thread");
	t = cpumap_threads_of(&all, 0);
	ASSERT_EQ(t ? t->pid : -1, 600, "CPU 0's thread: the newest");
	t = cpumap_threads_of(&all, 1);
	ASSERT_EQ(t ? t->rt_priority : -1, 20, "CPU 1's priority");
	ASSERT_TRUE(!cpumap_threads_of(&all, 2), "CPU 2: a user process's is no thread");
	ASSERT_EQ(cpumap_threads_find_in("/nonexistent", MAP_ID, &all), -ENOENT, "no /proc");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ASSERT_EQ(system(cmd), 0, "clean up");
}

static void setting_is_formatted(void)
{
	struct {
		struct kthread_sched s;
		const char *want;
	} cases[] = {
		{ { CPUSTEER_KTHREAD_UNSET, 0 }, "unset" },
		{ { CPUSTEER_KTHREAD_FIFO, 20 }, "fifo:20" },
		{ { CPUSTEER_KTHREAD_RR, 5 }, "rr:5" },
		{ { CPUSTEER_KTHREAD_OTHER, 0 }, "other" },
		{ { CPUSTEER_KTHREAD_OTHER, -5 }, "other:-5" },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		kthread_sched_format(&cases[i].s, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want)) {
			printf("#   case %zu: expected %s, got %s\n", i, cases[i].want, buf);
			tu_failures++;
		}
	}
}

static const struct tu_test tests[] = {
	TU_TEST(name_is_matched_exactly),
	TU_TEST(stat_line_is_read),
	TU_TEST(threads_are_found_in_proc),
	TU_TEST(setting_is_formatted),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}

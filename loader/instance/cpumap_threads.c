// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "cpumap_threads.h"
#include "log.h"
#include "names.h"

/* task->flags of a kernel thread (include/linux/sched.h). */
#define PF_KTHREAD 0x00200000u
#define CAP_SYS_NICE_BIT 23

/* The start of the kernel's struct sched_attr (SCHED_ATTR_SIZE_VER0):
 * glibc has no sched_setattr(), and the uapi header's struct sched_param
 * clashes with <sched.h>'s.
 */
struct sched_attr_v0 {
	__u32 size;
	__u32 sched_policy;
	__u64 sched_flags;
	__s32 sched_nice;
	__u32 sched_priority;
	__u64 sched_runtime, sched_deadline, sched_period;
};

/* A decimal number as the kernel prints it at *p, moving past it. */
static bool take_decimal(const char **p, __u32 *v)
{
	const char *s = *p;
	unsigned long long n = 0;

	if (!isdigit((unsigned char)*s) || (*s == '0' && isdigit((unsigned char)s[1])))
		return false;
	for (; isdigit((unsigned char)*s) && n <= 0xffffffffull; s++)
		n = n * 10 + (*s - '0');
	if (n > 0xffffffffull)
		return false;
	*v = n;
	*p = s;
	return true;
}

bool cpumap_thread_name_match(const char *name, __u32 map_id, __u32 *cpu)
{
	const char *p = name;
	__u32 id;

	if (strncmp(p, "cpumap/", 7))
		return false;
	p += 7;
	if (!take_decimal(&p, cpu) || strncmp(p, "/map:", 5))
		return false;
	p += 5;
	return take_decimal(&p, &id) && !*p && id == map_id;
}

int cpumap_thread_parse_stat(const char *line, char *name, size_t len, bool *kthread,
			     struct cpumap_thread *t)
{
	const char *open = strchr(line, '('), *close = strrchr(line, ')');
	char rest[1024], *field, *save = NULL;
	unsigned long flags = 0;
	int i;

	/* Whatever a name holds, it ends at the last ')'. */
	if (!open || !close || close < open || (size_t)(close - open - 1) >= len)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->pid = atoi(line);
	snprintf(name, len, "%.*s", (int)(close - open - 1), open + 1);
	snprintf(rest, sizeof(rest), "%s", close + 1);
	/* The fields from 3 (the state) on: flags 9, nice 19, rt_priority
	 * 40 and policy 41 (proc(5)).
	 */
	for (i = 3, field = strtok_r(rest, " \n", &save); field && i <= 41;
	     i++, field = strtok_r(NULL, " \n", &save)) {
		if (i == 9)
			flags = strtoul(field, NULL, 10);
		else if (i == 19)
			t->nice = atoi(field);
		else if (i == 40)
			t->rt_priority = atoi(field);
		else if (i == 41)
			t->policy = atoi(field);
	}
	if (i <= 41 || t->pid <= 0)
		return -EINVAL;
	*kthread = flags & PF_KTHREAD;
	return 0;
}

static int by_cpu_then_pid(const void *a, const void *b)
{
	const struct cpumap_thread *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The thread of /proc entry `pid`, when it is one of the map's. */
static bool read_thread(int procfd, const char *pid, __u32 map_id, struct cpumap_thread *t)
{
	char path[64], line[1024], name[128];
	bool kthread;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/stat", pid);
	fd = openat(procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;	/* gone meanwhile */
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n <= 0)
		return false;
	line[n] = '\0';
	return !cpumap_thread_parse_stat(line, name, sizeof(name), &kthread, t) && kthread &&
	       cpumap_thread_name_match(name, map_id, &t->cpu);
}

int cpumap_threads_find_in(const char *proc, __u32 map_id, struct cpumap_threads *out)
{
	struct dirent *e;
	DIR *dir;
	int fd;

	out->n = 0;
	fd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	while ((e = readdir(dir)) && out->n < CPUMAP_THREADS_MAX)
		if (isdigit((unsigned char)e->d_name[0]) &&
		    read_thread(fd, e->d_name, map_id, &out->t[out->n]))
			out->n++;
	closedir(dir);
	qsort(out->t, out->n, sizeof(out->t[0]), by_cpu_then_pid);
	return 0;
}

int cpumap_threads_find(__u32 map_id, struct cpumap_threads *out)
{
	return cpumap_threads_find_in("/proc", map_id, out);
}

const struct cpumap_thread *cpumap_threads_of(const struct cpumap_threads *all, __u32 cpu)
{
	const struct cpumap_thread *found = NULL;
	size_t i;

	for (i = 0; i < all->n; i++)
		if (all->t[i].cpu == cpu)
			found = &all->t[i];
	return found;
}

static bool rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

int cpumap_thread_priority(const struct cpumap_thread *t)
{
	return rt_policy(t->policy) ? t->rt_priority : t->nice;
}

void kthread_sched_format(const struct kthread_sched *s, char *buf, size_t len)
{
	const char *name = name_of(kthread_policy_names, s->policy, NULL);

	if (!name)
		snprintf(buf, len, "unset");
	else if (s->policy == CPUSTEER_KTHREAD_OTHER && !s->priority)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s:%d", name, s->priority);
}

/* The thread as `want` would leave it. */
static struct cpumap_thread wanted(const struct cpumap_thread *t, const struct kthread_sched *want)
{
	struct cpumap_thread w = *t;

	w.policy = want->policy == CPUSTEER_KTHREAD_FIFO ? SCHED_FIFO
		   : want->policy == CPUSTEER_KTHREAD_RR ? SCHED_RR : SCHED_OTHER;
	w.rt_priority = rt_policy(w.policy) ? want->priority : 0;
	if (!rt_policy(w.policy))
		w.nice = want->priority;
	return w;
}

static int set_thread(const struct cpumap_thread *t)
{
	struct sched_attr_v0 a = {
		.size = sizeof(a), .sched_policy = t->policy, .sched_nice = t->nice,
		.sched_priority = rt_policy(t->policy) ? t->rt_priority : 0,
	};

	return syscall(SYS_sched_setattr, t->pid, &a, 0) ? -errno : 0;
}

/* A field of /proc/self/status, as a number in `base`; -1 when absent. */
static long long self_status(const char *key, int base)
{
	char line[256];
	size_t n = strlen(key);
	long long v = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtoll(line + n + 1, NULL, base);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

/* What this process lacks for `want`, as far as it can tell, after a
 * refusal (EPERM): CAP_SYS_NICE, or leave to use a real-time policy
 * under a seccomp filter such as systemd's RestrictRealtime=yes.
 */
static void explain_refusal(const struct kthread_sched *want, char *buf, size_t len)
{
	long long caps = self_status("CapEff", 16);
	bool no_cap = caps >= 0 && !(caps & (1ll << CAP_SYS_NICE_BIT));
	bool filtered = want->policy != CPUSTEER_KTHREAD_OTHER && self_status("Seccomp", 10) > 0;

	/* With the capability, a filter is what refused; without it, a
	 * filter may refuse as well.
	 */
	if (no_cap && filtered)
		snprintf(buf, len, " (this process lacks CAP_SYS_NICE, and its seccomp filter may refuse real-time policies, as systemd's RestrictRealtime=yes does; cpusteer(8) shows a drop-in that allows both)");
	else if (filtered)
		snprintf(buf, len, " (a seccomp filter refuses real-time policies here, as systemd's RestrictRealtime=yes does; cpusteer(8) shows a drop-in that allows them)");
	else if (no_cap)
		snprintf(buf, len, " (this process lacks CAP_SYS_NICE; under systemd, cpusteer(8) shows a drop-in that grants it)");
	else
		buf[0] = '\0';
}

void cpumap_threads_restore(const struct cpumap_threads_undo *undo)
{
	size_t i;

	for (i = undo->n; i-- > 0;)
		set_thread(&undo->was[i]);
}

/* The CPU of `cpus` (or `also`) that has no thread in `all`; -1 for none. */
static long long missing_cpu(const struct cpumap_threads *all, const struct cpuset *cpus,
			     __u32 also)
{
	__u32 i;

	for (i = 0; i < cpus->n; i++)
		if (!cpumap_threads_of(all, cpus->cpu[i]))
			return cpus->cpu[i];
	if (also != CPUSTEER_NON_IP_PASS && !cpumap_threads_of(all, also))
		return also;
	return -1;
}

/* The line for a thread that cannot be scheduled as `want`. */
static void report(const struct cpumap_thread *t, __u32 map_id, const struct kthread_sched *want,
		   int err)
{
	char as[32], why[256] = "";

	kthread_sched_format(want, as, sizeof(as));
	if (err == -EPERM)
		explain_refusal(want, why, sizeof(why));
	log_err("cannot schedule cpumap kthread cpumap/%u/map:%u (pid %d) as %s: %s%s", t->cpu,
		map_id, t->pid, as, strerror(-err), why);
}

int cpumap_threads_check(__u32 map_id, const struct kthread_sched *want)
{
	static struct cpumap_threads all;
	struct cpumap_thread child = { 0 };
	int err;

	if (want->policy == CPUSTEER_KTHREAD_UNSET)
		return 0;
	child.pid = fork();
	if (child.pid < 0)
		return -errno;
	if (!child.pid) {
		pause();
		_exit(0);
	}
	child = wanted(&child, want);
	err = set_thread(&child);
	kill(child.pid, SIGKILL);
	waitpid(child.pid, NULL, 0);
	if (err != -EPERM)
		return 0;
	if (cpumap_threads_find(map_id, &all) || !all.n)
		all.t[0] = (struct cpumap_thread){ .cpu = 0, .pid = 0 };
	report(&all.t[0], map_id, want, err);
	return err;
}

int cpumap_threads_schedule(__u32 map_id, const struct cpuset *cpus, __u32 also,
			    const struct kthread_sched *want, struct cpumap_threads_undo *undo)
{
	static struct cpumap_threads all;
	static struct cpumap_threads_undo changed;
	struct cpumap_thread w;
	long long missing;
	size_t i;
	int err;

	if (undo)
		undo->n = 0;
	if (want->policy == CPUSTEER_KTHREAD_UNSET)
		return 0;
	err = cpumap_threads_find(map_id, &all);
	if (err) {
		log_err("cannot list the cpumap kthreads in /proc: %s", strerror(-err));
		return err;
	}
	missing = missing_cpu(&all, cpus, also);
	if (missing >= 0) {
		log_err("cannot find the cpumap kthread cpumap/%lld/map:%u in /proc (kernels before 5.17 cut its name to 15 characters)",
			missing, map_id);
		return -ESRCH;
	}
	changed.n = 0;
	for (i = 0; i < all.n; i++) {
		w = wanted(&all.t[i], want);
		if (w.policy == all.t[i].policy && w.rt_priority == all.t[i].rt_priority &&
		    w.nice == all.t[i].nice)
			continue;
		err = set_thread(&w);
		if (err == -ESRCH)
			continue;	/* an old thread that ended meanwhile */
		if (err) {
			report(&w, map_id, want, err);
			cpumap_threads_restore(&changed);
			return err;
		}
		changed.was[changed.n++] = all.t[i];
	}
	if (undo)
		*undo = changed;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/* The cpumap's kernel threads. The kernel makes one for each cpumap
 * entry, bound to the entry's CPU, named cpumap/<cpu>/map:<id> after the
 * CPU and the map's id, and makes a new one whenever the entry is
 * written again (a new queue size or second stage). They run at
 * SCHED_OTHER, so a real-time task on the same CPU starves them and the
 * frames steered there are dropped at the queue: --kthread-sched
 * schedules them above such tasks.
 *
 * They are found by their whole name in /proc/PID/stat: a kthread's comm
 * holds 15 characters, which can cut a long map id, but since Linux 5.17
 * the kernel keeps a kthread's whole name beside it and shows it in
 * /proc/PID/stat, status and comm. On older kernels a name longer than
 * 15 characters is cut there too, and its thread is not found.
 */
#ifndef CPUSTEER_CPUMAP_THREADS_H
#define CPUSTEER_CPUMAP_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include "cpuset.h"
#include "cpusteer.h"

/* How the threads of an instance are to be scheduled (the record's
 * kthread_policy and kthread_priority).
 */
struct kthread_sched {
	__u32 policy;		/* enum cpusteer_kthread_policy */
	__s32 priority;		/* fifo and rr: 1-99; other: the nice value */
};

#define KTHREAD_RT_PRIORITY_MIN 1
#define KTHREAD_RT_PRIORITY_MAX 99
#define KTHREAD_NICE_MIN (-20)
#define KTHREAD_NICE_MAX 19

/* One thread, as /proc shows it. */
struct cpumap_thread {
	__u32 cpu;
	int pid;
	int policy;		/* the kernel's SCHED_* */
	int rt_priority;	/* 1-99 under fifo and rr, else 0 */
	int nice;
};

/* A thread per target CPU and the non-IP CPU, twice: a rewritten entry's
 * old thread stays a moment beside its new one.
 */
#define CPUMAP_THREADS_MAX (2 * (CPUSTEER_MAX_CPUS + 1))

struct cpumap_threads {
	size_t n;
	struct cpumap_thread t[CPUMAP_THREADS_MAX];	/* by CPU, then pid */
};

/* Whether `name` is exactly cpumap/<cpu>/map:<map_id>, in the kernel's
 * decimal (no sign, no leading zero); its CPU in *cpu.
 */
bool cpumap_thread_name_match(const char *name, __u32 map_id, __u32 *cpu);

/* The line of /proc/PID/stat: the name between its parentheses (into
 * `name`, `len` bytes), whether it is a kernel thread, and its pid,
 * policy, real-time priority and nice value in *t. -EINVAL when the line
 * is not of that shape.
 */
int cpumap_thread_parse_stat(const char *line, char *name, size_t len, bool *kthread,
			     struct cpumap_thread *t);

/* The threads of the cpumap with id `map_id`, from the /proc at `proc`;
 * -errno when it cannot be read.
 */
int cpumap_threads_find_in(const char *proc, __u32 map_id, struct cpumap_threads *out);
int cpumap_threads_find(__u32 map_id, struct cpumap_threads *out);

/* The thread of `cpu`: the newest, when an old one is still there; NULL
 * for none.
 */
const struct cpumap_thread *cpumap_threads_of(const struct cpumap_threads *all, __u32 cpu);

/* What a thread's priority is shown as: its real-time priority under
 * fifo and rr, its nice value under the others.
 */
int cpumap_thread_priority(const struct cpumap_thread *t);

/* "fifo:20", "rr:5", "other", "other:-5"; "unset" when not set. */
void kthread_sched_format(const struct kthread_sched *s, char *buf, size_t len);

/* Each thread changed by cpumap_threads_schedule(), as it was. */
struct cpumap_threads_undo {
	size_t n;
	struct cpumap_thread was[CPUMAP_THREADS_MAX];
};

/* Schedules every thread of cpumap `map_id` as `want` (nothing to do when
 * it is unset), all or nothing: each CPU of `cpus`, and `also` unless it
 * is CPUSTEER_NON_IP_PASS, must have a thread, and when one cannot be
 * changed, those already changed are put back and one line names the
 * thread and why. `undo` (or NULL) gets the changed threads as they were,
 * for cpumap_threads_restore() when a later step fails.
 */
int cpumap_threads_schedule(__u32 map_id, const struct cpuset *cpus, __u32 also,
			    const struct kthread_sched *want, struct cpumap_threads_undo *undo);
void cpumap_threads_restore(const struct cpumap_threads_undo *undo);

/* Whether this process may schedule threads as `want`, tried on a child
 * of its own, which the kernel judges as it judges a kthread: the
 * capability CAP_SYS_NICE, and for fifo and rr no seccomp filter that
 * refuses real-time policies (systemd's RestrictRealtime=yes). Before a
 * change that would make new threads: once they are made, a refusal
 * could put back neither them nor the ones they replaced. 0, or -EPERM
 * after the line cpumap_threads_schedule() would print, for the first
 * thread of map `map_id`.
 */
int cpumap_threads_check(__u32 map_id, const struct kthread_sched *want);

#endif

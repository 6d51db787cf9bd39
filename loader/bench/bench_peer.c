// SPDX-License-Identifier: GPL-2.0
/* xdp-bench redirect-cpu as the peer scenario's receiver (see
 * bench_peer.h). It runs in the receiver's namespace, its output in
 * memfds; what it attached is found through the kernel (libxdp's view of
 * the device, then the program's maps), never through its output, whose
 * form changes between versions.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "attached_prog.h"
#include "bench_peer.h"
#include "cpuset.h"
#include "load_opts.h"
#include "log.h"

/* xdp-bench's stats interval, seconds: its totals count whole ones. */
#define PEER_INTERVAL_S 1
#define PEER_INTERVAL "1"

void peer_version(struct testbed *b, const char *path, char *buf, size_t len)
{
	char *argv[] = { (char *)path, "redirect-cpu", "--version", NULL };
	char out[256] = "";
	size_t n;

	/* It exits 1 after printing the version. */
	topology_run_in_ns(&b->topo, argv, out, sizeof(out));
	n = strcspn(out, "\n");
	out[n] = '\0';
	snprintf(buf, len, "%s", n ? out : "?");
}

/* ---- what it printed ---- */

/* The last len - 1 bytes that fd holds, NUL-terminated. */
static void tail(int fd, char *buf, size_t len)
{
	off_t size = lseek(fd, 0, SEEK_END), from = 0;
	ssize_t n;

	if (size > (off_t)len - 1)
		from = size - (len - 1);
	n = size > 0 ? pread(fd, buf, len - 1, from) : 0;
	buf[n > 0 ? n : 0] = '\0';
}

/* The last line of fd that is not blank, without its indentation. */
static void last_line(int fd, char *buf, size_t len)
{
	char text[2048], *end, *start;

	tail(fd, text, sizeof(text));
	end = text + strlen(text);
	while (end > text && isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	start = strrchr(text, '\n');
	start = start ? start + 1 : text;
	while (isspace((unsigned char)*start))
		start++;
	snprintf(buf, len, "%s", start);
}

/* The frames its totals say its program received, "Packets received :
 * 1,234,567" in the locale's digit grouping; NAN when they do not say.
 */
static double totals_received(int fd)
{
	char text[4096], *at = NULL, *next, *c;
	bool digits = false;
	double v = 0;

	tail(fd, text, sizeof(text));
	for (next = text; (next = strstr(next, "Packets received")); next++)
		at = next;
	c = at ? strchr(at, ':') : NULL;
	for (; c && *c && *c != '\n'; c++)
		if (isdigit((unsigned char)*c)) {
			v = v * 10 + (*c - '0');
			digits = true;
		}
	return digits ? v : NAN;
}

/* How it ended, and the last line of its stderr. */
static void explain(int status, int err_fd, char *why, size_t len)
{
	char line[160];

	last_line(err_fd, line, sizeof(line));
	if (!line[0])
		snprintf(line, sizeof(line), "nothing on stderr");
	if (WIFSIGNALED(status))
		snprintf(why, len, "killed by signal %d: %s", WTERMSIG(status), line);
	else
		snprintf(why, len, "exit status %d: %s", WEXITSTATUS(status), line);
}

/* ---- what it attached ---- */

static __u32 map_type(__u32 id)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_map_get_fd_by_id(id), err;

	if (fd < 0)
		return BPF_MAP_TYPE_UNSPEC;
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	return err ? BPF_MAP_TYPE_UNSPEC : info.type;
}

#define PEER_MAX_MAPS 64

/* Whether program `id` uses a cpumap; its id into *(__u32 *)arg. */
static bool uses_cpumap(__u32 id, const char *name, void *arg)
{
	__u32 ids[PEER_MAX_MAPS], len, i;
	struct bpf_prog_info info = {};
	int fd = bpf_prog_get_fd_by_id(id), err;

	(void)name;
	if (fd < 0)
		return false;
	info.nr_map_ids = PEER_MAX_MAPS;
	info.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(info);
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	for (i = 0; !err && i < info.nr_map_ids && i < PEER_MAX_MAPS; i++)
		if (map_type(ids[i]) == BPF_MAP_TYPE_CPUMAP) {
			*(__u32 *)arg = ids[i];
			return true;
		}
	return false;
}

static bool any_program(__u32 id, const char *name, void *arg)
{
	(void)id;
	(void)name;
	(void)arg;
	return true;
}

/* Whether a program is attached to ifindex, in any mode (with libxdp's
 * dispatcher: the dispatcher). Call inside the receiver's namespace.
 */
static bool xdp_attached(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	return !bpf_xdp_query(ifindex, 0, &q) && q.attach_mode != XDP_ATTACHED_NONE;
}

int peer_receiver_free(struct testbed *b)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int err = topology_enter(&b->topo);

	if (err)
		return err;
	err = bpf_xdp_query(b->topo.rx_ifindex, 0, &q) ? -errno : 0;
	topology_leave();
	if (err) {
		log_err("bench: cannot ask which XDP program %s runs: %s", b->topo.rx_if,
			strerror(-err));
		return err;
	}
	if (q.attach_mode == XDP_ATTACHED_NONE)
		return 0;
	log_err("bench: %s already runs XDP program %u: the peer scenario attaches its own there; unload that one first",
		b->topo.rx_if, q.prog_id ? q.prog_id : q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id);
	return -EBUSY;
}

/* What the receiver runs now: *attached whether any program, and p's
 * prog_id and cpumap_id those of the one that uses a cpumap (0 while
 * there is none).
 */
static int look(struct peer_run *p, struct testbed *b, bool *attached)
{
	struct attached_prog a;
	int err = topology_enter(&b->topo);

	if (err)
		return err;
	*attached = xdp_attached(b->topo.rx_ifindex);
	p->prog_id = 0;
	if (*attached && !attached_prog_find_by(b->topo.rx_ifindex, uses_cpumap, &p->cpumap_id, &a))
		p->prog_id = a.prog_id;
	topology_leave();
	return 0;
}

/* Whether cpumap `id` has an entry for every CPU of `set`: xdp-bench
 * attaches its program first and fills its cpumap after.
 */
static bool cpumap_holds(__u32 id, const struct cpuset *set)
{
	int fd = bpf_map_get_fd_by_id(id);
	bool all = fd >= 0;
	__u64 value;
	__u32 i;

	for (i = 0; all && i < set->n; i++)
		all = !bpf_map_lookup_elem(fd, &set->cpu[i], &value);
	if (fd >= 0)
		close(fd);
	return all;
}

/* Whatever a peer that was killed left attached: through libxdp, which
 * also takes its dispatcher and pins away, then, for what libxdp does not
 * understand (a dispatcher half made), by the kernel's own detach in each
 * mode. Nothing else runs on the receiver meanwhile: a test bed of ours,
 * or a device that bench found free.
 */
static int detach_leftovers(struct testbed *b)
{
	int ifindex = b->topo.rx_ifindex, tries, err = topology_enter(&b->topo);
	struct attached_prog a;
	bool stuck;

	if (err)
		return err;
	for (tries = 0; tries < 8 && !attached_prog_find_by(ifindex, any_program, NULL, &a); tries++)
		attached_prog_detach(ifindex, &a, b->topo.rx_if);
	if (xdp_attached(ifindex)) {
		bpf_xdp_detach(ifindex, XDP_FLAGS_DRV_MODE, NULL);
		bpf_xdp_detach(ifindex, XDP_FLAGS_SKB_MODE, NULL);
	}
	stuck = xdp_attached(ifindex);
	topology_leave();
	if (stuck) {
		log_err("bench: cannot detach the XDP program xdp-bench left on %s", b->topo.rx_if);
		return -EIO;
	}
	return 0;
}

/* ---- starting and stopping ---- */

static void close_outputs(struct peer_run *p)
{
	if (p->out_fd >= 0)
		close(p->out_fd);
	if (p->err_fd >= 0)
		close(p->err_fd);
	p->out_fd = p->err_fd = -1;
}

int peer_stop(struct peer_run *p, struct testbed *b, double *counted, char *why, size_t len)
{
	int status = 0, err = 0, derr;
	bool gone = false;

	if (counted)
		*counted = NAN;
	if (p->pid > 0) {
		gone = waitpid(p->pid, &status, WNOHANG) == p->pid;
		/* Its totals count whole intervals: one more holds every
		 * frame of the run.
		 */
		if (!gone && counted)
			bench_sleep(PEER_INTERVAL_S + 0.1);
		if (!gone)
			status = bench_stop_child(p->pid, SIGINT, PEER_GRACE_S);
		p->pid = 0;
	}
	if (gone) {
		if (why)
			explain(status, p->err_fd, why, len);
		err = -ECHILD;
	} else if (counted && p->out_fd >= 0) {
		*counted = totals_received(p->out_fd);
	}
	derr = detach_leftovers(b);
	close_outputs(p);
	return derr ?: err;
}

static int spawn(struct peer_run *p, struct testbed *b, const char *path, const char *mode,
		 const char *remote, const struct cpuset *set)
{
	char num[CPUSTEER_MAX_CPUS][12], qsize[12];
	char *argv[2 * CPUSTEER_MAX_CPUS + 14];
	int n = 0;
	__u32 i;

	argv[n++] = (char *)path;
	argv[n++] = "redirect-cpu";
	for (i = 0; i < set->n; i++) {
		snprintf(num[i], sizeof(num[i]), "%u", set->cpu[i]);
		argv[n++] = "--cpu";
		argv[n++] = num[i];
	}
	/* cpusteer's default queue, whatever xdp-bench's version defaults to. */
	snprintf(qsize, sizeof(qsize), "%u", DEFAULT_QSIZE);
	argv[n++] = "--program-mode";
	argv[n++] = (char *)mode;
	argv[n++] = "--remote-action";
	argv[n++] = (char *)remote;
	argv[n++] = "--qsize";
	argv[n++] = qsize;
	argv[n++] = "--interval";
	argv[n++] = PEER_INTERVAL;
	argv[n++] = b->topo.rx_if;
	argv[n] = NULL;
	p->out_fd = memfd_create("xdp-bench-stdout", MFD_CLOEXEC);
	p->err_fd = memfd_create("xdp-bench-stderr", MFD_CLOEXEC);
	if (p->out_fd < 0 || p->err_fd < 0)
		return -errno;
	fflush(stdout);
	p->pid = topology_spawn_tethered(&b->topo, argv, p->out_fd, p->err_fd);
	if (p->pid < 0) {
		log_err("cannot start %s in namespace %s: %s", path, b->topo.netns,
			strerror(-p->pid));
		return p->pid;
	}
	return 0;
}

int peer_start(struct peer_run *p, struct testbed *b, const char *path, const char *mode,
	       const char *remote, const char *cpus, char *why, size_t len)
{
	double end = bench_now() + PEER_READY_S, foreign = 0, now;
	struct cpuset set;
	bool attached;
	int err, derr, status;

	memset(p, 0, sizeof(*p));
	p->out_fd = p->err_fd = -1;
	err = cpuset_parse(&set, cpus);
	err = err ?: spawn(p, b, path, mode, remote, &set);
	for (; !err; bench_sleep(0.02)) {
		now = bench_now();
		if (bench_stop) {
			err = -EINTR;
		} else if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
			p->pid = 0;
			explain(status, p->err_fd, why, len);
			err = -ECHILD;
		} else if (!(err = look(p, b, &attached))) {
			if (p->prog_id && cpumap_holds(p->cpumap_id, &set))
				return 0;
			/* libxdp attaches its dispatcher with the program
			 * already in it; give a moment all the same.
			 */
			foreign = !attached || p->prog_id ? 0 : foreign ? foreign : now;
			if (foreign && now - foreign > 0.5) {
				snprintf(why, len, "the program it attached to %s uses no cpumap",
					 b->topo.rx_if);
				err = -ECHILD;
			} else if (now >= end) {
				snprintf(why, len, "not attached with its cpumap filled after %d s",
					 PEER_READY_S);
				err = -ECHILD;
			}
		}
	}
	derr = peer_stop(p, b, NULL, NULL, 0);
	return derr == -EIO ? derr : err;
}

// SPDX-License-Identifier: GPL-2.0
/* The tracepoints that stats, the exporter and the bench count: probe,
 * load and attach once; a counter map per instance; read.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "cpusteer.h"
#include "kernel_features.h"
#include "log.h"
#include "names.h"
#include "trace.h"
#include "trace.skel.h"

static const struct {
	const char *name;
	int args;	/* arguments the program reads, the last one included */
} tracepoints[TP_COUNT] = {
	[TP_CPUMAP_ENQUEUE] = { "xdp_cpumap_enqueue", 4 },
	[TP_CPUMAP_KTHREAD] = { "xdp_cpumap_kthread", 5 },
	[TP_XDP_EXCEPTION] = { "xdp_exception", 3 },
	[TP_XDP_REDIRECT_ERR] = { "xdp_redirect_err", 1 },
};

const char *tracepoint_name(enum tracepoint_id tp)
{
	return tp < TP_COUNT ? tracepoints[tp].name : "unknown";
}

const char *exception_slot_name(int slot)
{
	return slot <= XDP_REDIRECT ? xdp_verdict_name(slot) : "other";
}

static struct bpf_program *prog_of(struct trace *skel, enum tracepoint_id tp)
{
	switch (tp) {
	case TP_CPUMAP_ENQUEUE:
		return skel->progs.cpusteer_enqueue;
	case TP_CPUMAP_KTHREAD:
		return skel->progs.cpusteer_kthread;
	case TP_XDP_EXCEPTION:
		return skel->progs.cpusteer_exception;
	default:
		return skel->progs.cpusteer_redirect_err;
	}
}

static struct bpf_link **link_of(struct trace *skel, enum tracepoint_id tp)
{
	switch (tp) {
	case TP_CPUMAP_ENQUEUE:
		return &skel->links.cpusteer_enqueue;
	case TP_CPUMAP_KTHREAD:
		return &skel->links.cpusteer_kthread;
	case TP_XDP_EXCEPTION:
		return &skel->links.cpusteer_exception;
	default:
		return &skel->links.cpusteer_redirect_err;
	}
}

/* Decides which programs load; returns how many will. */
static int probe(struct trace_programs *p)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int tp, args, n = 0;

	if (libbpf_get_error(vmlinux)) {
		p->no_btf = true;
		for (tp = 0; tp < TP_COUNT; tp++)
			p->why_not[tp] = "no kernel BTF";
		return 0;
	}
	for (tp = 0; tp < TP_COUNT; tp++) {
		args = kernel_tracepoint_args(vmlinux, tracepoints[tp].name);
		if (args == -ENOENT)
			p->why_not[tp] = "not in this kernel";
		else if (args < tracepoints[tp].args)
			p->why_not[tp] = "different signature in this kernel";
		else
			n++;
	}
	btf__free(vmlinux);
	return n;
}

static void set_all_why(struct trace_programs *p, const char *why)
{
	int tp;

	for (tp = 0; tp < TP_COUNT; tp++)
		if (!p->why_not[tp])
			p->why_not[tp] = why;
}

/* A counter map: a per-CPU array of `entries` values of `value_size`
 * bytes, keyed by a __u32.
 */
static int new_counters(__u32 value_size, __u32 entries)
{
	return bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "cpusteer_trace", sizeof(__u32), value_size,
			      entries, NULL);
}

int trace_programs_open(struct trace_programs *p)
{
	int tp, err, template;

	memset(p, 0, sizeof(*p));
	p->ncpus = libbpf_num_possible_cpus();
	if (p->ncpus <= 0)
		return p->ncpus ? p->ncpus : -EINVAL;
	if (!probe(p))
		return 0;

	p->skel = trace__open();
	if (!p->skel) {
		set_all_why(p, "cannot open the tracing programs");
		return errno == ENOMEM ? -ENOMEM : 0;
	}
	for (tp = 0; tp < TP_COUNT; tp++)
		if (p->why_not[tp])
			bpf_program__set_autoload(prog_of(p->skel, tp), false);
	/* What the enqueue counter maps will be like, so that the
	 * programs' lookups in them are checked against their size (the
	 * possible CPUs).
	 */
	template = new_counters(sizeof(struct enqueue_count), 1 + p->ncpus);
	err = template < 0 ? -errno : bpf_map__set_inner_map_fd(p->skel->maps.enqueue_of, template);
	if (!err)
		err = trace__load(p->skel);
	if (template >= 0)
		close(template);
	if (err) {
		log_debug("cannot load the tracing programs: %s", strerror(-err));
		set_all_why(p, "tracing programs failed to load (-v for why)");
		trace__destroy(p->skel);
		p->skel = NULL;
		return 0;
	}
	for (tp = 0; tp < TP_COUNT; tp++) {
		struct bpf_link *link;

		if (p->why_not[tp])
			continue;
		link = bpf_program__attach(prog_of(p->skel, tp));
		err = libbpf_get_error(link);
		if (err) {
			log_debug("cannot attach tp_btf/%s: %s", tracepoints[tp].name,
				  strerror(-err));
			p->why_not[tp] = "attach failed (-v for why)";
			continue;
		}
		*link_of(p->skel, tp) = link;
		p->attached[tp] = true;
	}
	return 0;
}

/* Destroying the skeleton destroys its links: every tracepoint detaches. */
void trace_programs_close(struct trace_programs *p)
{
	trace__destroy(p->skel);
	p->skel = NULL;
}

/* A counter map of `entries` counters of `value_size` bytes a CPU, with
 * entry 0 saying that `owner` owns it, filed in the first free slot of
 * `slots` that the owner may use: 0, or a negative errno and why not.
 */
static int file_counters(struct tracer *t, struct bpf_map *slots, __u64 owner, __u32 value_size,
			 __u32 entries, struct trace_filed *out, const char **why)
{
	__u32 zero = 0, probe, slot, filed;
	int fd, err = 0, cpu;
	char *copies;

	fd = new_counters(value_size, 1 + entries);
	copies = calloc(t->ncpus, value_size);
	if (fd < 0 || !copies) {
		err = fd < 0 ? -errno : -ENOMEM;
		*why = "cannot make its counters (-v for why)";
		log_debug("cannot make a counter map: %s", strerror(-err));
		goto out;
	}
	for (cpu = 0; cpu < t->ncpus; cpu++)
		memcpy(copies + (size_t)cpu * value_size, &owner, sizeof(owner));
	if (bpf_map_update_elem(fd, &zero, copies, 0)) {
		err = -errno;
		*why = "cannot make its counters (-v for why)";
		log_debug("cannot mark a counter map: %s", strerror(-err));
		goto out;
	}
	*why = "too many instances counted";
	err = -ENOSPC;
	for (probe = 0; probe < TRACE_PROBES && err == -ENOSPC; probe++) {
		slot = trace_slot(owner, probe);
		if (!bpf_map__lookup_elem(slots, &slot, sizeof(slot), &filed, sizeof(filed), 0))
			continue;
		err = bpf_map__update_elem(slots, &slot, sizeof(slot), &fd, sizeof(fd), BPF_ANY);
		if (err) {
			*why = "cannot file its counters (-v for why)";
			log_debug("cannot file a counter map: %s", strerror(-err));
		}
	}
	if (!err) {
		*why = NULL;
		out->fd = fd;
		out->slot = slot;
	}
out:
	free(copies);
	if (err && fd >= 0)
		close(fd);
	return err;
}

static void unfile_counters(struct bpf_map *slots, struct trace_filed *filed)
{
	if (filed->fd < 0)
		return;
	bpf_map__delete_elem(slots, &filed->slot, sizeof(filed->slot), 0);
	close(filed->fd);
	filed->fd = -1;
}

/* The counters of tracepoint `tp` and of the tracepoints `also` (-1:
 * none) that count into the same map, when their programs are attached.
 * ENOMEM is the one failure the caller hears of.
 */
static int count(struct tracer *t, enum tracepoint_id tp, int also, struct bpf_map *slots,
		 __u64 owner, __u32 value_size, __u32 entries, struct trace_filed *out)
{
	int err;

	if (!t->attached[tp] && (also < 0 || !t->attached[also]))
		return 0;
	err = file_counters(t, slots, owner, value_size, entries, out, &t->why_not[tp]);
	if (!err)
		return 0;
	t->attached[tp] = false;
	if (also >= 0) {
		t->attached[also] = false;
		t->why_not[also] = t->why_not[tp];
	}
	return err == -ENOMEM ? err : 0;
}

int tracer_open(struct tracer *t, const struct trace_programs *p, __u32 cpumap_id,
		__u64 netns_ino, int ifindex)
{
	struct trace *k = p->skel;
	int err;

	memset(t, 0, sizeof(*t));
	t->programs = p;
	t->ncpus = p->ncpus;
	t->no_btf = p->no_btf;
	memcpy(t->attached, p->attached, sizeof(t->attached));
	memcpy(t->why_not, p->why_not, sizeof(t->why_not));
	t->enqueue.fd = t->kthread.fd = t->device.fd = -1;
	if (!k)
		return 0;
	if (!ifindex) {
		t->attached[TP_XDP_EXCEPTION] = t->attached[TP_XDP_REDIRECT_ERR] = false;
		t->why_not[TP_XDP_EXCEPTION] = t->why_not[TP_XDP_REDIRECT_ERR] =
			"interface not in this network namespace";
	}
	err = count(t, TP_CPUMAP_ENQUEUE, -1, k->maps.enqueue_of, cpumap_id,
		    sizeof(struct enqueue_count), t->ncpus, &t->enqueue);
	err = err ?: count(t, TP_CPUMAP_KTHREAD, -1, k->maps.kthread_of, cpumap_id,
			   sizeof(struct kthread_count), 1, &t->kthread);
	/* Both device tracepoints count into one map. */
	err = err ?: count(t, TP_XDP_EXCEPTION, TP_XDP_REDIRECT_ERR, k->maps.device_of,
			   trace_device_owner(netns_ino, ifindex), sizeof(struct device_count), 1,
			   &t->device);
	if (err)
		tracer_close(t);
	return err;
}

void tracer_close(struct tracer *t)
{
	const struct trace_programs *p = t->programs;

	if (!p || !p->skel)
		return;
	unfile_counters(p->skel->maps.enqueue_of, &t->enqueue);
	unfile_counters(p->skel->maps.kthread_of, &t->kthread);
	unfile_counters(p->skel->maps.device_of, &t->device);
	t->programs = NULL;
}

/* Every CPU's copy of entry `key` of counter map `fd`, into `v`. */
static int read_percpu(int fd, __u32 key, void *v)
{
	return bpf_map_lookup_elem(fd, &key, v) ? -errno : 0;
}

int tracer_read(const struct tracer *t, struct enqueue_count *enqueue,
		struct kthread_count *kthread, __u64 *exceptions, __u64 *redirect_errors)
{
	size_t each = sizeof(struct device_count) > sizeof(struct kthread_count)
			      ? sizeof(struct device_count) : sizeof(struct kthread_count);
	struct enqueue_count *enq;
	struct kthread_count *kt;
	struct device_count *dev;
	int n = t->ncpus, to, cpu, slot, err = 0;
	void *v;

	memset(enqueue, 0, (size_t)n * n * sizeof(*enqueue));
	memset(kthread, 0, (size_t)n * sizeof(*kthread));
	memset(exceptions, 0, TRACE_EXCEPTION_SLOTS * sizeof(*exceptions));
	*redirect_errors = 0;
	if (!t->programs)
		return 0;
	v = calloc(n, each);
	if (!v)
		return -ENOMEM;
	enq = v;
	kt = v;
	dev = v;
	for (to = 0; t->enqueue.fd >= 0 && to < n && !err; to++) {
		err = read_percpu(t->enqueue.fd, 1 + to, enq);
		for (cpu = 0; !err && cpu < n; cpu++)
			enqueue[cpu * n + to] = enq[cpu];
	}
	if (!err && t->kthread.fd >= 0) {
		err = read_percpu(t->kthread.fd, 1, kt);
		for (cpu = 0; !err && cpu < n; cpu++)
			kthread[cpu] = kt[cpu];
	}
	if (!err && t->device.fd >= 0) {
		err = read_percpu(t->device.fd, 1, dev);
		for (cpu = 0; !err && cpu < n; cpu++) {
			for (slot = 0; slot < TRACE_EXCEPTION_SLOTS; slot++)
				exceptions[slot] += dev[cpu].exceptions[slot];
			*redirect_errors += dev[cpu].redirect_errors;
		}
	}
	free(v);
	return err;
}


// SPDX-License-Identifier: GPL-2.0
/* Counter samples for stats: the steering maps per CPU, and the
 * tracepoints (probe, load, attach, read).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "cpusteer.h"
#include "instance.h"
#include "kernel_features.h"
#include "log.h"
#include "sums.h"
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
static int probe(struct tracer *t, int ifindex)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int tp, args, n = 0;

	if (libbpf_get_error(vmlinux)) {
		t->no_btf = true;
		for (tp = 0; tp < TP_COUNT; tp++)
			t->why_not[tp] = "no kernel BTF";
		return 0;
	}
	for (tp = 0; tp < TP_COUNT; tp++) {
		args = kernel_tracepoint_args(vmlinux, tracepoints[tp].name);
		if (args == -ENOENT)
			t->why_not[tp] = "not in this kernel";
		else if (args < tracepoints[tp].args)
			t->why_not[tp] = "different signature in this kernel";
		else if (!ifindex && (tp == TP_XDP_EXCEPTION || tp == TP_XDP_REDIRECT_ERR))
			t->why_not[tp] = "interface not in this network namespace";
		else
			n++;
	}
	btf__free(vmlinux);
	return n;
}

static void set_all_why(struct tracer *t, const char *why)
{
	int tp;

	for (tp = 0; tp < TP_COUNT; tp++)
		if (!t->why_not[tp])
			t->why_not[tp] = why;
}

int tracer_open(struct tracer *t, __u32 cpumap_id, int ifindex)
{
	struct stat ns;
	int tp, err;

	memset(t, 0, sizeof(*t));
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0)
		return t->ncpus ? t->ncpus : -EINVAL;
	/* The tracepoints see every namespace's devices; ours is the one
	 * this process runs in.
	 */
	if (ifindex && stat("/proc/self/ns/net", &ns))
		ifindex = 0;
	if (!probe(t, ifindex))
		return 0;

	t->skel = trace__open();
	if (!t->skel) {
		set_all_why(t, "cannot open the tracing programs");
		return errno == ENOMEM ? -ENOMEM : 0;
	}
	for (tp = 0; tp < TP_COUNT; tp++)
		if (t->why_not[tp])
			bpf_program__set_autoload(prog_of(t->skel, tp), false);
	bpf_map__set_max_entries(t->skel->maps.enq_processed, t->ncpus);
	bpf_map__set_max_entries(t->skel->maps.enq_drops, t->ncpus);
	bpf_map__set_max_entries(t->skel->maps.enq_bulks, t->ncpus);
	err = trace__load(t->skel);
	if (err) {
		log_debug("cannot load the tracing programs: %s", strerror(-err));
		set_all_why(t, "tracing programs failed to load (-v for why)");
		trace__destroy(t->skel);
		t->skel = NULL;
		return 0;
	}
	/* Filters before attach. Zero matches nothing (map ids start at 1,
	 * no device has index 0), so an unset filter never counts another
	 * instance's events.
	 */
	t->skel->bss->cpumap_id = cpumap_id;
	t->skel->bss->ifindex = ifindex;
	t->skel->bss->netns_ino = ifindex ? ns.st_ino : 0;

	for (tp = 0; tp < TP_COUNT; tp++) {
		struct bpf_link *link;

		if (t->why_not[tp])
			continue;
		link = bpf_program__attach(prog_of(t->skel, tp));
		err = libbpf_get_error(link);
		if (err) {
			log_debug("cannot attach tp_btf/%s: %s", tracepoints[tp].name,
				  strerror(-err));
			t->why_not[tp] = "attach failed (-v for why)";
			continue;
		}
		*link_of(t->skel, tp) = link;
		t->attached[tp] = true;
	}
	return 0;
}

/* Destroying the skeleton destroys its links: every tracepoint detaches. */
void tracer_close(struct tracer *t)
{
	trace__destroy(t->skel);
	t->skel = NULL;
}

int sample_alloc(struct stats_sample *s, int ncpus)
{
	memset(s, 0, sizeof(*s));
	s->rx = calloc(ncpus, sizeof(*s->rx));
	s->redirected = calloc((size_t)ncpus * ncpus, sizeof(*s->redirected));
	s->remote = calloc(ncpus, sizeof(*s->remote));
	s->enqueue = calloc((size_t)ncpus * ncpus, sizeof(*s->enqueue));
	s->kthread = calloc(ncpus, sizeof(*s->kthread));
	if (!s->rx || !s->redirected || !s->remote || !s->enqueue || !s->kthread) {
		sample_free(s);
		return -ENOMEM;
	}
	return 0;
}

void sample_free(struct stats_sample *s)
{
	free(s->rx);
	free(s->redirected);
	free(s->remote);
	free(s->enqueue);
	free(s->kthread);
	memset(s, 0, sizeof(*s));
}

void sample_copy(struct stats_sample *dst, const struct stats_sample *src, int n)
{
	dst->mono = src->mono;
	memcpy(dst->rx, src->rx, n * sizeof(*src->rx));
	memcpy(dst->redirected, src->redirected, (size_t)n * n * sizeof(*src->redirected));
	memcpy(dst->remote, src->remote, n * sizeof(*src->remote));
	memcpy(dst->enqueue, src->enqueue, (size_t)n * n * sizeof(*src->enqueue));
	memcpy(dst->kthread, src->kthread, n * sizeof(*src->kthread));
	memcpy(dst->exceptions, src->exceptions, sizeof(src->exceptions));
	dst->redirect_errors = src->redirect_errors;
}

static void sub_words(void *out, const void *a, const void *b, size_t bytes)
{
	const __u64 *x = a, *y = b;
	__u64 *o = out;
	size_t i;

	for (i = 0; i < bytes / sizeof(__u64); i++)
		o[i] = x[i] - y[i];
}

void sample_diff(struct stats_sample *out, const struct stats_sample *a,
		 const struct stats_sample *b, int n)
{
	_Static_assert(sizeof(struct cpusteer_counters) % 8 == 0, "__u64 words");
	_Static_assert(sizeof(struct cpusteer_remote_counters) % 8 == 0, "__u64 words");
	_Static_assert(sizeof(struct enqueue_count) % 8 == 0, "__u64 words");
	_Static_assert(sizeof(struct kthread_count) % 8 == 0, "__u64 words");

	out->mono = a->mono;
	sub_words(out->rx, a->rx, b->rx, n * sizeof(*a->rx));
	sub_words(out->redirected, a->redirected, b->redirected,
		  (size_t)n * n * sizeof(*a->redirected));
	sub_words(out->remote, a->remote, b->remote, n * sizeof(*a->remote));
	sub_words(out->enqueue, a->enqueue, b->enqueue, (size_t)n * n * sizeof(*a->enqueue));
	sub_words(out->kthread, a->kthread, b->kthread, n * sizeof(*a->kthread));
	sub_words(out->exceptions, a->exceptions, b->exceptions, sizeof(a->exceptions));
	out->redirect_errors = a->redirect_errors - b->redirect_errors;
}

/* Every CPU's copy of entry `key` of a per-CPU __u64 array. */
static int read_percpu(struct bpf_map *map, __u32 key, __u64 *vals, int ncpus)
{
	return bpf_map__lookup_elem(map, &key, sizeof(key), vals,
				    (size_t)ncpus * sizeof(__u64), 0);
}

static int read_enqueue(struct tracer *t, struct stats_sample *s, __u64 *v)
{
	int n = t->ncpus, to, from, err = 0;
	struct trace *k = t->skel;

	for (to = 0; to < n && !err; to++) {
		err = read_percpu(k->maps.enq_processed, to, v, n);
		for (from = 0; !err && from < n; from++)
			s->enqueue[from * n + to].processed = v[from];
		err = err ?: read_percpu(k->maps.enq_drops, to, v, n);
		for (from = 0; !err && from < n; from++)
			s->enqueue[from * n + to].drops = v[from];
		err = err ?: read_percpu(k->maps.enq_bulks, to, v, n);
		for (from = 0; !err && from < n; from++)
			s->enqueue[from * n + to].bulks = v[from];
	}
	return err;
}

static int read_kthread(struct tracer *t, struct stats_sample *s, __u64 *v)
{
	struct {
		struct bpf_map *map;
		size_t offset;
	} fields[] = {
		{ t->skel->maps.kt_processed, offsetof(struct kthread_count, processed) },
		{ t->skel->maps.kt_drops, offsetof(struct kthread_count, drops) },
		{ t->skel->maps.kt_sched, offsetof(struct kthread_count, sched) },
		{ t->skel->maps.kt_xdp_pass, offsetof(struct kthread_count, xdp_pass) },
		{ t->skel->maps.kt_xdp_drop, offsetof(struct kthread_count, xdp_drop) },
		{ t->skel->maps.kt_xdp_redirect, offsetof(struct kthread_count, xdp_redirect) },
	};
	size_t f;
	int cpu, err;

	for (f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		err = read_percpu(fields[f].map, 0, v, t->ncpus);
		if (err)
			return err;
		for (cpu = 0; cpu < t->ncpus; cpu++)
			*(__u64 *)((char *)&s->kthread[cpu] + fields[f].offset) = v[cpu];
	}
	return 0;
}

static int read_tracepoints(struct tracer *t, struct stats_sample *s)
{
	int n = t->ncpus, slot, err = 0;
	__u64 *v;

	memset(s->enqueue, 0, (size_t)n * n * sizeof(*s->enqueue));
	memset(s->kthread, 0, (size_t)n * sizeof(*s->kthread));
	memset(s->exceptions, 0, sizeof(s->exceptions));
	s->redirect_errors = 0;
	if (!t->skel)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (t->attached[TP_CPUMAP_ENQUEUE])
		err = read_enqueue(t, s, v);
	if (!err && t->attached[TP_CPUMAP_KTHREAD])
		err = read_kthread(t, s, v);
	for (slot = 0; !err && t->attached[TP_XDP_EXCEPTION] &&
		       slot < TRACE_EXCEPTION_SLOTS; slot++) {
		err = read_percpu(t->skel->maps.exceptions, slot, v, n);
		s->exceptions[slot] = err ? 0 : sum_u64(v, n);
	}
	if (!err && t->attached[TP_XDP_REDIRECT_ERR]) {
		err = read_percpu(t->skel->maps.redirect_errs, 0, v, n);
		s->redirect_errors = err ? 0 : sum_u64(v, n);
	}
	free(v);
	return err;
}

/* Per-CPU maps are read whole: one value per possible CPU. */
int sample_read(struct tracer *t, struct steer_instance *in, struct stats_sample *s)
{
	int err;

	clock_gettime(CLOCK_MONOTONIC, &s->mono);
	err = instance_read_counters_percpu(in, s->rx, s->remote);
	if (!err)
		err = instance_read_redirects(in, s->redirected);
	if (err) {
		log_err("cannot read the steering counters: %s", strerror(-err));
		return err;
	}
	err = read_tracepoints(t, s);
	if (err)
		log_err("cannot read the tracepoint counters: %s", strerror(-err));
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/* The maps of an instance and what the commands do with them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "indirection.h"
#include "instance.h"
#include "log.h"
#include "multilinear_key.h"
#include "steer.skel.h"
#include "steer_nic.skel.h"

/* Kernel ABI since 6.3, newer than Debian 12's kernel headers. */
#ifndef BPF_F_XDP_DEV_BOUND_ONLY
#define BPF_F_XDP_DEV_BOUND_ONLY (1U << 6)
#endif

/* An array map lays its values out 8 bytes apart, whatever their size. */
#define TABLE_STRIDE 8
#define TABLE_BYTES ((size_t)CPUSTEER_MAX_BUCKETS * TABLE_STRIDE)
/* Without membarrier: a program run takes microseconds; wait 20 ms. */
#define PROGRAM_RUN_PAUSE_US 20000

static __u32 *bucket_slot(const struct steer_instance *in, __u32 b)
{
	return (__u32 *)((char *)in->table + (size_t)b * TABLE_STRIDE);
}

void instance_init(struct steer_instance *in)
{
	int i;

	memset(in, 0, sizeof(*in));
	memset(&in->maps, 0xff, sizeof(in->maps));
	for (i = 0; i < REMOTE_ACTIONS; i++)
		in->remote_prog[i] = -1;
	in->steer_prog = -1;
}

int instance_map_table(struct steer_instance *in)
{
	void *p = mmap(NULL, TABLE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		       in->maps.bucket_table, 0);

	if (p == MAP_FAILED) {
		log_err("cannot map the bucket table: %s", strerror(errno));
		return -errno;
	}
	in->table = p;
	return 0;
}

/* The frags flag, the same on every program of the object (steer.bpf.c
 * says why): on, except for libxdp's dispatcher, whose extensions libxdp
 * loads without it.
 */
static void set_frags(struct steer *skel, bool frags)
{
	struct bpf_program *p;
	__u32 flags;

	bpf_object__for_each_program(p, skel->obj) {
		flags = bpf_program__flags(p) & ~BPF_F_XDP_HAS_FRAGS;
		bpf_program__set_flags(p, flags | (frags ? BPF_F_XDP_HAS_FRAGS : 0));
	}
}

/* Which programs a process loads, and how. */
struct open_how {
	bool record_decisions, with_steer, notouch;
	enum attach_path path;
	__u32 count_buckets;
	int nic_ifindex;
};

/* cpusteer_steer_nic, from its own object over the maps of `in`'s: the
 * program that reads the NIC's RX hash must be bound to its device at
 * load (the kernel then puts the driver's code in place of the call),
 * and then no loader could take the steering object whole. Its frags
 * flag is the other programs': they share the cpumap.
 */
static int load_nic_program(struct steer_instance *in, int ifindex, bool frags)
{
	struct steer_nic *nic = steer_nic__open();
	struct bpf_program *p;
	struct bpf_map *m;
	int err = nic ? 0 : -errno;

	in->nic = nic;
	if (err)
		return err;
	nic->rodata->nr_cpus = in->ncpus;
	bpf_object__for_each_map(m, nic->obj) {
		if (bpf_map__is_internal(m))
			continue;
		err = bpf_map__reuse_fd(m, bpf_map__fd(bpf_object__find_map_by_name(
						   in->skel->obj, bpf_map__name(m))));
		if (err)
			return err;
	}
	p = nic->progs.cpusteer_steer_nic;
	bpf_program__set_ifindex(p, ifindex);
	bpf_program__set_flags(p, BPF_F_XDP_DEV_BOUND_ONLY | (frags ? BPF_F_XDP_HAS_FRAGS : 0));
	return steer_nic__load(nic);
}

static int open_skeleton(struct steer_instance *in, const struct open_how *how)
{
	struct bpf_program *attach, *steer;
	struct steer *skel;
	int err;

	instance_init(in);
	in->ncpus = libbpf_num_possible_cpus();
	if (in->ncpus <= 0) {
		log_err("cannot count the possible CPUs: %s", strerror(-in->ncpus));
		return in->ncpus ? in->ncpus : -EINVAL;
	}
	skel = steer__open();
	if (!skel) {
		log_err("cannot open the BPF programs: %s", strerror(errno));
		return -errno;
	}
	in->skel = skel;
	skel->rodata->nr_cpus = in->ncpus;
	/* Indexed by CPU number: one slot per possible CPU. */
	bpf_map__set_max_entries(skel->maps.cpu_map, in->ncpus);
	bpf_map__set_value_size(skel->maps.counters, CPUSTEER_COUNTERS_VALUE_SIZE(in->ncpus));
	in->bucket_load_entries = how->count_buckets ? how->count_buckets : 1;
	bpf_map__set_max_entries(skel->maps.bucket_load, in->bucket_load_entries);
	bpf_map__set_max_entries(skel->maps.rule_hits, in->ncpus);
	steer = skel->progs.cpusteer_steer;
	attach = how->record_decisions ? skel->progs.cpusteer_classify
		 : how->notouch ? skel->progs.cpusteer_notouch
		 : steer;
	in->path = how->path;
	in->attach_name = how->nic_ifindex ? "cpusteer_steer_nic" : bpf_program__name(attach);
	set_frags(skel, how->path == ATTACH_SINGLE);
	if (how->path == ATTACH_DISPATCHER || how->nic_ifindex)
		bpf_program__set_autoload(attach, false);
	/* Only classify and the program tests read decisions, and only the
	 * tests that compare the two programs need both: the verifier's time
	 * on a copy nobody runs would be half of the load's. With --hash nic
	 * cpusteer_steer_nic is attached in place of cpusteer_steer.
	 */
	if (!how->record_decisions)
		bpf_program__set_autoload(skel->progs.cpusteer_classify, false);
	else if (!how->with_steer)
		bpf_program__set_autoload(steer, false);
	err = steer__load(skel);
	if (!err && how->nic_ifindex)
		err = load_nic_program(in, how->nic_ifindex, how->path == ATTACH_SINGLE);
	if (err && how->nic_ifindex) {
		/* Linux 6.3 to 6.15 refused a device-bound program that uses a
		 * cpumap, until a fix of June 2025 that stable kernels took.
		 */
		log_err("cannot load the BPF programs bound to the device for --hash nic: %s (kernels before 6.16 without its 2025 fix refuse a bound program that redirects into a cpumap; run with -v for the verifier log)",
			strerror(-err));
	} else if (err) {
		log_err("cannot load the BPF programs: %s (run with -v for the verifier log)",
			strerror(-err));
	}
	if (err) {
		instance_close(in);
		return err;
	}
	in->maps = (struct steer_maps){
		.cpu_map = bpf_map__fd(skel->maps.cpu_map),
		.bucket_table = bpf_map__fd(skel->maps.bucket_table),
		.config_map = bpf_map__fd(skel->maps.config_map),
		.config_slot = bpf_map__fd(skel->maps.config_slot),
		.counters = bpf_map__fd(skel->maps.counters),
		.remote_counters = bpf_map__fd(skel->maps.remote_counters),
		.remote_devmap = bpf_map__fd(skel->maps.remote_devmap),
		.instance_state = bpf_map__fd(skel->maps.instance_state),
		.bucket_load = bpf_map__fd(skel->maps.bucket_load),
		.rules_ipv4 = { bpf_map__fd(skel->maps.rules_ipv4_0),
				bpf_map__fd(skel->maps.rules_ipv4_1) },
		.rules_ipv6 = { bpf_map__fd(skel->maps.rules_ipv6_0),
				bpf_map__fd(skel->maps.rules_ipv6_1) },
		.rule_hits = bpf_map__fd(skel->maps.rule_hits),
	};
	in->remote_prog[REMOTE_PASS] = bpf_program__fd(skel->progs.cpusteer_remote_pass);
	in->remote_prog[REMOTE_DROP] = bpf_program__fd(skel->progs.cpusteer_remote_drop);
	in->remote_prog[REMOTE_REDIRECT] = bpf_program__fd(skel->progs.cpusteer_remote_redirect);
	if (how->nic_ifindex)
		in->steer_prog = bpf_program__fd(in->nic->progs.cpusteer_steer_nic);
	else if (how->path == ATTACH_SINGLE)
		in->steer_prog = bpf_program__fd(attach);
	err = instance_map_table(in);
	if (err)
		instance_close(in);
	return err;
}

int instance_open(struct steer_instance *in, bool record_decisions, bool notouch,
		  __u32 count_buckets)
{
	struct open_how how = { .record_decisions = record_decisions,
				.with_steer = !record_decisions, .notouch = notouch,
				.path = ATTACH_SINGLE, .count_buckets = count_buckets };

	return open_skeleton(in, &how);
}

int instance_open_both(struct steer_instance *in, __u32 count_buckets)
{
	struct open_how how = { .record_decisions = true, .with_steer = true,
				.path = ATTACH_SINGLE, .count_buckets = count_buckets };

	return open_skeleton(in, &how);
}

int instance_open_to_attach(struct steer_instance *in, const struct attach_opts *o)
{
	struct open_how how = { .with_steer = true, .notouch = o->notouch, .path = o->path,
				.count_buckets = o->count_buckets, .nic_ifindex = o->nic_ifindex };

	return open_skeleton(in, &how);
}

void instance_close(struct steer_instance *in)
{
	int *fds = (int *)&in->maps;
	size_t i;

	if (in->xdp)
		xdp_program__close(in->xdp);
	/* Owns steer_prog on ATTACH_DISPATCHER. */
	if (in->attach_obj)
		bpf_object__close(in->attach_obj);
	if (in->table)
		munmap(in->table, TABLE_BYTES);
	if (in->nic)
		steer_nic__destroy(in->nic);
	if (in->skel) {
		steer__destroy(in->skel);
	} else {
		/* Opened from pins: the fds are ours. */
		for (i = 0; i < sizeof(in->maps) / sizeof(int); i++)
			if (fds[i] >= 0)
				close(fds[i]);
		for (i = 0; i < REMOTE_ACTIONS; i++)
			if (in->remote_prog[i] >= 0)
				close(in->remote_prog[i]);
		if (in->steer_prog >= 0)
			close(in->steer_prog);
	}
	instance_init(in);
}

__u32 prog_id_of_fd(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}

/* The entry a CPU needs is there already: same queue size and program.
 * A cpumap lookup from user space reports the program by id.
 */
static bool entry_matches(struct steer_instance *in, __u32 cpu, const struct cpumap_opts *cm)
{
	struct bpf_cpumap_val val;
	int prog = in->remote_prog[cm->remote];

	if (bpf_map_lookup_elem(in->maps.cpu_map, &cpu, &val))
		return false;
	return val.qsize == cm->qsize && val.bpf_prog.id == (prog >= 0 ? prog_id_of_fd(prog) : 0);
}

static int ensure_entry(struct steer_instance *in, __u32 cpu, const struct cpumap_opts *cm)
{
	struct bpf_cpumap_val val = { .qsize = cm->qsize };

	if (entry_matches(in, cpu, cm))
		return 0;
	val.bpf_prog.fd = in->remote_prog[cm->remote] >= 0 ? in->remote_prog[cm->remote] : 0;
	if (!bpf_map_update_elem(in->maps.cpu_map, &cpu, &val, 0))
		return 0;
	/* A frags mismatch between programs is reported as ENOMEM. */
	log_err("cannot set up the cpumap entry of CPU %u: %s", cpu, strerror(errno));
	return -errno;
}

/* CPUs that need a cpumap entry: the steering set and the non-IP CPU. */
static bool cpu_in_use(const struct instance_target *t, __u32 cpu)
{
	return cpuset_contains(t->cpus, cpu) || cpu == t->cfg->non_ip_cpu;
}

static int lookup_zero(int fd, void *value)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(fd, &zero, value) ? -errno : 0;
}

static int update_zero(int fd, const void *value, const char *what)
{
	__u32 zero = 0;

	if (!bpf_map_update_elem(fd, &zero, value, 0))
		return 0;
	log_err("cannot write %s: %s", what, strerror(errno));
	return -errno;
}

/* The slot a packet reads (cpusteer.h). */
static int active_slot(struct steer_instance *in, __u32 *slot)
{
	if (lookup_zero(in->maps.config_slot, slot))
		return -errno;
	*slot %= CPUSTEER_CONFIG_SLOTS;
	return 0;
}

/* Returns once no program run that began before the call is still under
 * way. XDP programs run inside an RCU read-side section, and a global
 * membarrier is an RCU grace period. Kernels that refuse it (nohz_full)
 * get a pause far longer than any program run.
 */
unsigned int instance_grace_periods;

static void wait_for_running_programs(void)
{
	instance_grace_periods++;
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0)) {
		log_debug("membarrier: %s; pausing instead", strerror(errno));
		usleep(PROGRAM_RUN_PAUSE_US);
	}
}

/* Fill the slot no packet reads, then point packets at it. Waiting for the
 * runs that may still read the old slot makes it free for the next write:
 * a packet sees one whole configuration, never two halves. A configuration
 * already in force is left alone, wait and all: *waited says which. The
 * multilinear key words are drawn here, the one way into the map, so no
 * slot can hold words of another --key.
 */
static int write_config(struct steer_instance *in, const struct cpusteer_config *given,
			bool *waited)
{
	struct cpusteer_config now, cfg = *given;
	__u32 slot, zero = 0;
	int err = active_slot(in, &slot);

	*waited = false;
	if (err) {
		log_err("cannot read the configuration slot: %s", strerror(-err));
		return err;
	}
	multilinear_key_draw(&cfg);
	if (!bpf_map_lookup_elem(in->maps.config_map, &slot, &now) && !memcmp(&now, &cfg, sizeof(now)))
		return 0;
	slot = (slot + 1) % CPUSTEER_CONFIG_SLOTS;
	if (bpf_map_update_elem(in->maps.config_map, &slot, &cfg, 0) ||
	    bpf_map_update_elem(in->maps.config_slot, &zero, &slot, 0)) {
		log_err("cannot write the steering configuration: %s", strerror(errno));
		return -errno;
	}
	wait_for_running_programs();
	*waited = true;
	return 0;
}

int instance_write_config(struct steer_instance *in, const struct cpusteer_config *cfg)
{
	bool waited;

	return write_config(in, cfg, &waited);
}

int instance_read_redirect_target(struct steer_instance *in, __u32 *ifindex)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(in->maps.remote_devmap, &zero, ifindex) ? -errno : 0;
}

bool instance_redirect_target_gone(struct steer_instance *in, const struct cpumap_opts *cm)
{
	__u32 ifindex;

	if (cm->remote != REMOTE_REDIRECT)
		return false;
	return instance_read_redirect_target(in, &ifindex) || ifindex != cm->redirect_ifindex;
}

/* The second stage's target is filled before the entries that redirect
 * to it, and emptied only after no entry does. A target the maps already
 * name is left alone: when its device went away the kernel emptied the
 * slot, and writing it again would fail, or reach a device that took the
 * index since.
 */
static int set_redirect_target(struct steer_instance *in, const struct instance_target *t)
{
	const struct cpumap_opts *cm = t->cm, *from = t->from;
	char name[IF_NAMESIZE];
	__u32 zero = 0, now;

	if (cm->remote != REMOTE_REDIRECT)
		return 0;
	if (from && from->remote == REMOTE_REDIRECT && from->redirect_ifindex == cm->redirect_ifindex)
		return 0;
	if (!from && !instance_read_redirect_target(in, &now) && now == cm->redirect_ifindex)
		return 0;
	if (!bpf_map_update_elem(in->maps.remote_devmap, &zero, &cm->redirect_ifindex, 0))
		return 0;
	if (if_indextoname(cm->redirect_ifindex, name)) {
		log_err("cannot set the redirect target ifindex %u: %s", cm->redirect_ifindex,
			strerror(errno));
		return -errno;
	}
	if (t->going_back) {
		bpf_map_delete_elem(in->maps.remote_devmap, &zero);
		return 0;
	}
	log_err("cannot redirect to ifindex %u (--remote): that device is gone; name another with --remote, or --remote pass",
		cm->redirect_ifindex);
	return -ENODEV;
}

/* A devmap entry holds its device: let it go once nothing redirects there. */
static void clear_redirect_target(struct steer_instance *in, const struct cpumap_opts *cm)
{
	__u32 zero = 0;

	if (cm->remote != REMOTE_REDIRECT)
		bpf_map_delete_elem(in->maps.remote_devmap, &zero);
}


static void write_table(struct steer_instance *in, const __u32 *table, __u32 nbuckets)
{
	__u32 b;

	/* One whole-word store per bucket that changes: a packet reads either
	 * the old owner or the new one.
	 */
	for (b = 0; b < nbuckets; b++)
		if (*bucket_slot(in, b) != table[b])
			__atomic_store_n(bucket_slot(in, b), table[b], __ATOMIC_RELAXED);
}

/* Removes every cpumap entry `t` does not use. A packet that read a
 * bucket's old owner before the table changed may still be on its way to
 * that CPU's entry: the runs that began before the last write must end
 * before the first entry goes, whether or not the configuration changed
 * with the table (`waited`: its write waited already).
 */
static void drop_unused_entries(struct steer_instance *in, const struct instance_target *t,
				bool waited)
{
	struct bpf_cpumap_val val;
	__u32 cpu;

	for (cpu = 0; cpu < (__u32)in->ncpus; cpu++) {
		if (cpu_in_use(t, cpu) || bpf_map_lookup_elem(in->maps.cpu_map, &cpu, &val))
			continue;
		if (!waited)
			wait_for_running_programs();
		waited = true;
		bpf_map_delete_elem(in->maps.cpu_map, &cpu);
	}
}

int instance_converge(struct steer_instance *in, const struct instance_target *t)
{
	bool waited = false;
	int err = 0;
	__u32 i;

	err = set_redirect_target(in, t);
	for (i = 0; i < t->cpus->n && !err; i++)
		err = ensure_entry(in, t->cpus->cpu[i], t->cm);
	if (!err && t->cfg->non_ip_cpu != CPUSTEER_NON_IP_PASS)
		err = ensure_entry(in, t->cfg->non_ip_cpu, t->cm);
	if (err)
		return err;
	clear_redirect_target(in, t->cm);
	write_table(in, t->table, t->cfg->nbuckets);
	err = write_config(in, t->cfg, &waited);
	if (!err)
		drop_unused_entries(in, t, waited);
	return err;
}

int instance_configure(struct steer_instance *in, const struct cpuset *cpus,
		       const struct cpusteer_config *cfg, const struct cpumap_opts *cm)
{
	struct instance_target t = { .cpus = cpus, .cfg = cfg, .cm = cm };
	__u32 *table = malloc(cfg->nbuckets * sizeof(*table)), i;
	int err;

	if (!table)
		return -ENOMEM;
	for (i = 0; i < cfg->nbuckets; i++)
		table[i] = BUCKET_UNOWNED;
	indirection_rebalance(table, cfg->nbuckets, cpus);
	t.table = table;
	err = instance_converge(in, &t);
	free(table);
	return err;
}


int instance_read_config(struct steer_instance *in, struct cpusteer_config *cfg)
{
	__u32 slot;
	int err = active_slot(in, &slot);

	if (err)
		return err;
	return bpf_map_lookup_elem(in->maps.config_map, &slot, cfg) ? -errno : 0;
}

void instance_read_table(const struct steer_instance *in, __u32 *table, __u32 nbuckets)
{
	__u32 b;

	for (b = 0; b < nbuckets; b++)
		table[b] = __atomic_load_n(bucket_slot(in, b), __ATOMIC_RELAXED);
}

int instance_read_decision(struct steer_instance *in, struct cpusteer_decision *d)
{
	return lookup_zero(bpf_map__fd(in->skel->maps.decision), d);
}

/* An outcome no program writes, so a run that records nothing shows. */
int instance_clear_decision(struct steer_instance *in)
{
	struct cpusteer_decision d = { .outcome = ~0u };
	__u32 zero = 0;

	if (bpf_map_update_elem(bpf_map__fd(in->skel->maps.decision), &zero, &d, 0))
		return -errno;
	return 0;
}

/* The counters map's value for every possible CPU, each with its
 * redirect slots after it (cpusteer.h); the caller frees it.
 */
static void *read_counter_values(struct steer_instance *in, size_t *stride)
{
	__u32 zero = 0;
	void *all;

	/* A per-CPU value comes back rounded up to 8 bytes a CPU. */
	*stride = (CPUSTEER_COUNTERS_VALUE_SIZE(in->ncpus) + 7) & ~(size_t)7;
	all = calloc(in->ncpus, *stride);
	if (all && bpf_map_lookup_elem(in->maps.counters, &zero, all)) {
		free(all);
		return NULL;
	}
	return all;
}

int instance_read_counters_percpu(struct steer_instance *in, struct cpusteer_counters *per,
				  struct cpusteer_remote_counters *remote)
{
	size_t stride;
	char *all = read_counter_values(in, &stride);
	int cpu, err = all ? 0 : -EIO;

	for (cpu = 0; all && cpu < in->ncpus; cpu++)
		memcpy(&per[cpu], all + cpu * stride, sizeof(*per));
	free(all);
	if (!err && remote)
		err = lookup_zero(in->maps.remote_counters, remote);
	return err;
}

int instance_read_redirects(struct steer_instance *in, __u64 *per)
{
	size_t stride, n = in->ncpus, from;
	char *all = read_counter_values(in, &stride);

	if (!all)
		return -EIO;
	for (from = 0; from < n; from++)
		memcpy(&per[from * n], all + from * stride + sizeof(struct cpusteer_counters),
		       n * sizeof(*per));
	free(all);
	return 0;
}

/* A lookup per bucket: a few hundred system calls a second for a
 * balance step, where a batch would need a buffer of every bucket for
 * every possible CPU at once.
 */
int instance_read_bucket_loads(struct steer_instance *in, struct cpusteer_bucket_load *loads,
			       __u32 nbuckets)
{
	struct cpusteer_bucket_load *per;
	__u32 b;
	int cpu, err = 0;

	if (nbuckets > in->bucket_load_entries)
		return -ERANGE;
	per = calloc(in->ncpus, sizeof(*per));
	if (!per)
		return -ENOMEM;
	for (b = 0; b < nbuckets && !err; b++) {
		if (bpf_map_lookup_elem(in->maps.bucket_load, &b, per)) {
			err = -errno;
			break;
		}
		loads[b] = (struct cpusteer_bucket_load){ 0 };
		for (cpu = 0; cpu < in->ncpus; cpu++) {
			loads[b].packets += per[cpu].packets;
			loads[b].bytes += per[cpu].bytes;
		}
	}
	free(per);
	return err;
}

int instance_read_counters(struct steer_instance *in, struct cpusteer_counters *sum,
			   __u64 *redirected)
{
	size_t words = sizeof(*sum) / sizeof(__u64), w, n = in->ncpus, c, to, stride;
	char *all = read_counter_values(in, &stride);

	memset(sum, 0, sizeof(*sum));
	if (redirected)
		memset(redirected, 0, n * sizeof(*redirected));
	if (!all)
		return -EIO;
	for (c = 0; c < n; c++) {
		const __u64 *v = (const __u64 *)(all + c * stride);

		for (w = 0; w < words; w++)
			((__u64 *)sum)[w] += v[w];
		for (to = 0; redirected && to < n; to++)
			redirected[to] += v[words + to];
	}
	free(all);
	return 0;
}

int instance_prog_fd(struct steer_instance *in, bool notouch)
{
	return notouch ? bpf_program__fd(in->skel->progs.cpusteer_notouch) : in->steer_prog;
}

int instance_read_state(struct steer_instance *in, struct cpusteer_instance_state *st)
{
	int err = lookup_zero(in->maps.instance_state, st);

	if (!err && st->version != CPUSTEER_STATE_VERSION)
		return -EPROTO;
	return err;
}

int instance_read_state_to(struct steer_instance *in, struct cpusteer_instance_state *st,
			   const char *verb, const char *shown)
{
	int err = instance_read_state(in, st);

	if (err == -EPROTO)
		log_err("cannot %s %s: its record was made by another cpusteer version; cpusteer unload %s removes it",
			verb, shown, shown);
	else if (err)
		log_err("cannot %s %s: its record cannot be read: %s", verb, shown, strerror(-err));
	return err;
}

int instance_write_state(struct steer_instance *in, const struct cpusteer_instance_state *st)
{
	return update_zero(in->maps.instance_state, st, "the instance record");
}

__u32 instance_cpumap_id(struct steer_instance *in)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(in->maps.cpu_map, &info, &len))
		return 0;
	return info.id;
}

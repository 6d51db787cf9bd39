// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "indirection.h"
#include "instance.h"
#include "log.h"
#include "steer.skel.h"

int instance_open(struct steer_instance *in, bool record_decisions)
{
	int ncpus = libbpf_num_possible_cpus();
	int err;

	memset(in, 0, sizeof(*in));
	in->skel = steer__open();
	if (!in->skel) {
		log_err("cannot open the BPF programs: %s", strerror(errno));
		return -errno;
	}
	in->skel->rodata->record_decisions = record_decisions;
	/* The cpumap is indexed by CPU number, so it needs one slot per
	 * possible CPU and no more.
	 */
	if (ncpus > 0 && ncpus < CPUSTEER_MAX_CPUS)
		bpf_map__set_max_entries(in->skel->maps.cpu_map, ncpus);
	err = steer__load(in->skel);
	if (err) {
		log_err("cannot load the BPF programs: %s (run with -v for the verifier log)",
			strerror(-err));
		instance_close(in);
		return err;
	}
	return 0;
}

/* Closes this process's handles only: an attached program stays attached
 * (the netlink attach outlives the process) until instance_detach().
 */
void instance_close(struct steer_instance *in)
{
	if (in->xdp)
		xdp_program__close(in->xdp);
	in->xdp = NULL;
	steer__destroy(in->skel);
	in->skel = NULL;
}

static int remote_prog_fd(struct steer_instance *in, enum remote_action remote)
{
	switch (remote) {
	case REMOTE_PASS:
		return bpf_program__fd(in->skel->progs.cpusteer_remote_pass);
	case REMOTE_DROP:
		return bpf_program__fd(in->skel->progs.cpusteer_remote_drop);
	case REMOTE_REDIRECT:
		return bpf_program__fd(in->skel->progs.cpusteer_remote_redirect);
	default:
		return 0;
	}
}

static int set_cpu_entry(struct steer_instance *in, __u32 cpu, const struct cpumap_opts *cm)
{
	struct bpf_cpumap_val val = { .qsize = cm->qsize };
	int fd = bpf_map__fd(in->skel->maps.cpu_map);

	val.bpf_prog.fd = remote_prog_fd(in, cm->remote);
	if (!bpf_map_update_elem(fd, &cpu, &val, 0))
		return 0;
	/* A frags mismatch between programs is reported as ENOMEM. */
	log_err("cannot set up the cpumap entry of CPU %u: %s", cpu, strerror(errno));
	return -errno;
}

/* CPUs that need a cpumap entry: the steering set and the non-IP CPU. */
static bool cpu_in_use(const struct cpuset *set, __u32 non_ip_cpu, __u32 cpu)
{
	return cpuset_contains(set, cpu) || cpu == non_ip_cpu;
}

static int write_table(struct steer_instance *in, const __u32 *before,
		       const __u32 *after, __u32 nbuckets)
{
	int fd = bpf_map__fd(in->skel->maps.bucket_table);
	__u32 b;

	for (b = 0; b < nbuckets; b++) {
		if (before[b] == after[b])
			continue;
		if (bpf_map_update_elem(fd, &b, &after[b], 0)) {
			log_err("cannot update bucket %u: %s", b, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* Removes the cpumap entry of a CPU the new configuration no longer uses;
 * its kthread drains what is queued before it stops.
 */
static void drop_unused_entry(struct steer_instance *in, const struct steer_opts *o, __u32 cpu)
{
	if (!cpu_in_use(&o->cpus, o->cfg.non_ip_cpu, cpu))
		bpf_map_delete_elem(bpf_map__fd(in->skel->maps.cpu_map), &cpu);
}

static bool entry_needs_update(const struct cpuset *old_cpus, const struct cpumap_opts *old_cm,
			       const struct cpumap_opts *cm, __u32 cpu)
{
	return !old_cpus || !old_cm || !cpuset_contains(old_cpus, cpu) ||
	       memcmp(old_cm, cm, sizeof(*cm));
}

int instance_apply(struct steer_instance *in, const struct steer_opts *o,
		   const struct cpuset *old_cpus, const struct cpumap_opts *old_cm,
		   __u32 *table, const struct cpumap_opts *cm, __u32 *moved)
{
	__u32 nb = o->cfg.nbuckets, zero = 0, i, *before;
	struct cpusteer_config old_cfg;
	int err = 0;

	for (i = 0; i < o->cpus.n && !err; i++)
		if (entry_needs_update(old_cpus, old_cm, cm, o->cpus.cpu[i]))
			err = set_cpu_entry(in, o->cpus.cpu[i], cm);
	if (!err && o->cfg.non_ip_cpu != CPUSTEER_NON_IP_PASS &&
	    entry_needs_update(old_cpus, old_cm, cm, o->cfg.non_ip_cpu))
		err = set_cpu_entry(in, o->cfg.non_ip_cpu, cm);
	if (!err && cm->remote == REMOTE_REDIRECT &&
	    bpf_map_update_elem(bpf_map__fd(in->skel->maps.remote_devmap), &zero,
				&cm->redirect_ifindex, 0)) {
		log_err("cannot set the redirect target ifindex %u: %s",
			cm->redirect_ifindex, strerror(errno));
		err = -errno;
	}
	if (err)
		return err;

	before = malloc(nb * sizeof(*before));
	if (!before)
		return -ENOMEM;
	memcpy(before, table, nb * sizeof(*before));
	*moved = indirection_rebalance(table, nb, &o->cpus);
	err = write_table(in, before, table, nb);
	free(before);
	if (err)
		return err;

	if (old_cpus && bpf_map_lookup_elem(bpf_map__fd(in->skel->maps.config_map), &zero, &old_cfg))
		return -errno;
	err = instance_write_config(in, &o->cfg);
	if (err)
		return err;

	for (i = 0; old_cpus && i < old_cpus->n; i++)
		drop_unused_entry(in, o, old_cpus->cpu[i]);
	if (old_cpus && old_cfg.non_ip_cpu != CPUSTEER_NON_IP_PASS)
		drop_unused_entry(in, o, old_cfg.non_ip_cpu);
	return 0;
}

int instance_configure(struct steer_instance *in, const struct steer_opts *o,
		       const struct cpumap_opts *cm)
{
	__u32 *table = malloc(o->cfg.nbuckets * sizeof(*table)), i, moved;
	int err;

	if (!table)
		return -ENOMEM;
	for (i = 0; i < o->cfg.nbuckets; i++)
		table[i] = BUCKET_UNOWNED;
	err = instance_apply(in, o, NULL, NULL, table, cm, &moved);
	free(table);
	return err;
}

int instance_write_config(struct steer_instance *in, const struct cpusteer_config *cfg)
{
	__u32 zero = 0;

	if (bpf_map_update_elem(bpf_map__fd(in->skel->maps.config_map), &zero, cfg, 0)) {
		log_err("cannot write the steering configuration: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int instance_read_table(struct steer_instance *in, __u32 *table, __u32 nbuckets)
{
	int fd = bpf_map__fd(in->skel->maps.bucket_table);
	__u32 b;

	for (b = 0; b < nbuckets; b++) {
		if (bpf_map_lookup_elem(fd, &b, &table[b])) {
			log_err("cannot read bucket %u: %s", b, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

int instance_read_decision(struct steer_instance *in, struct cpusteer_decision *d)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(in->skel->maps.decision), &zero, d))
		return -errno;
	return 0;
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

int instance_read_counters_percpu(struct steer_instance *in, struct cpusteer_counters *per,
				  struct cpusteer_remote_counters *remote)
{
	int ncpus = libbpf_num_possible_cpus();
	__u32 zero = 0;
	int err;

	err = bpf_map__lookup_elem(in->skel->maps.counters, &zero, sizeof(zero), per,
				   ncpus * sizeof(*per), 0);
	if (!err && remote)
		err = bpf_map__lookup_elem(in->skel->maps.remote_counters, &zero, sizeof(zero),
					   remote, ncpus * sizeof(*remote), 0);
	return err;
}

int instance_read_counters(struct steer_instance *in, struct cpusteer_counters *sum)
{
	int ncpus = libbpf_num_possible_cpus(), c;
	size_t words = sizeof(*sum) / sizeof(__u64), w;
	struct cpusteer_counters *per;
	int err;

	per = calloc(ncpus, sizeof(*per));
	if (!per)
		return -ENOMEM;
	err = instance_read_counters_percpu(in, per, NULL);
	memset(sum, 0, sizeof(*sum));
	for (c = 0; !err && c < ncpus; c++)
		for (w = 0; w < words; w++)
			((__u64 *)sum)[w] += ((__u64 *)&per[c])[w];
	free(per);
	return err;
}

int instance_prog_fd(struct steer_instance *in, bool notouch)
{
	return bpf_program__fd(notouch ? in->skel->progs.cpusteer_notouch
				       : in->skel->progs.cpusteer_steer);
}

/* SPDX-License-Identifier: GPL-2.0 */
/* One steering instance: its maps and programs, either loaded by this
 * process from the skeleton (load, classify, bench) or opened from the
 * pins of a running instance (set, status, stats, unload; nothing is
 * loaded or verified then). Commands go through these functions, never
 * around them to raw map fds.
 */
#ifndef CPUSTEER_INSTANCE_H
#define CPUSTEER_INSTANCE_H

#include <stdbool.h>
#include "cpusteer.h"
#include "cpumap_threads.h"
#include "cpuset.h"

struct steer;
struct steer_nic;
struct xdp_program;
struct bpf_object;

/* Which second-stage program the cpumap entries carry. */
enum remote_action {
	REMOTE_NONE,	/* no program: frames go to the stack on the target CPU */
	REMOTE_PASS,
	REMOTE_DROP,
	REMOTE_REDIRECT,
	REMOTE_ACTIONS
};

/* What every cpumap entry gets. */
struct cpumap_opts {
	__u32 qsize;
	enum remote_action remote;
	__u32 redirect_ifindex;	/* REMOTE_REDIRECT only */
	/* How its kernel thread is scheduled: the change protocol applies
	 * it once the entries exist (cpumap_threads.h).
	 */
	struct kthread_sched kthread;
};

/* How the steering program gets onto the interface. libxdp can put a
 * program into its dispatcher only as an extension (freplace) program it
 * loads itself against the dispatcher: a program already loaded as XDP it
 * can only attach alone.
 */
enum attach_path {
	ATTACH_SINGLE,		/* loaded here as XDP; libxdp attaches it alone */
	ATTACH_DISPATCHER,	/* left unloaded for libxdp's dispatcher */
};

/* The maps, each an fd (-1 when absent). */
struct steer_maps {
	int cpu_map;
	int bucket_table;
	int config_map;
	int config_slot;
	int counters;
	int remote_counters;
	int remote_devmap;
	int instance_state;
	int bucket_load;
	/* Prefix rules: each family's two trie copies, by slot
	 * (CPUSTEER_RULES_COPY_1), and the hits per target CPU.
	 */
	int rules_ipv4[2];
	int rules_ipv6[2];
	int rule_hits;
};

struct steer_instance {
	struct steer *skel;		/* loaded here; else opened from pins */
	struct steer_nic *nic;		/* --hash nic: cpusteer_steer_nic, over skel's maps */
	struct steer_maps maps;		/* the skeleton's, or ours to close */
	int remote_prog[REMOTE_ACTIONS];	/* second stages; -1 for none */
	int steer_prog;			/* the program that is or will be attached;
					 * -1 until attached on ATTACH_DISPATCHER */
	enum attach_path path;
	const char *attach_name;	/* the program instance_attach() attaches */
	struct bpf_object *attach_obj;	/* ATTACH_DISPATCHER: where libxdp loads it from */
	void *table;			/* bucket_table, mapped */
	int ncpus;			/* possible CPUs */
	struct xdp_program *xdp;	/* set while this process holds the attach */
	int ifindex;
	int xdp_mode;
	__u32 bucket_load_entries;	/* buckets bucket_load can count */
};

/* What load asks of the programs it attaches. */
struct attach_opts {
	bool notouch;
	enum attach_path path;
	__u32 count_buckets;	/* --bucket-stats: the buckets counted; 0: none */
	/* --hash nic: the device cpusteer_steer_nic is bound to; 0: none */
	int nic_ifindex;
};

/* The configuration the maps are brought to. */
struct instance_target {
	const struct cpuset *cpus;
	const struct cpusteer_config *cfg;
	const struct cpumap_opts *cm;
	const __u32 *table;		/* cfg->nbuckets entries */
	/* The second stage the maps have now: a redirect target it already
	 * names is not written again. NULL when unknown (a new instance).
	 */
	const struct cpumap_opts *from;
	/* Going back to `from`'s predecessor after a failed change: a
	 * redirect target whose device is gone is then left empty, as the
	 * kernel left it, rather than refused.
	 */
	bool going_back;
};

/* An instance that holds nothing, safe to close. */
void instance_init(struct steer_instance *in);

/* Opens and loads the programs, unattached, with every map empty.
 * `record_decisions` picks cpusteer_classify, the steering program that
 * logs each decision for classify, in place of cpusteer_steer; `notouch`
 * picks the no-touch floor. `count_buckets` sizes the per-bucket load
 * counters (--bucket-stats) for that many buckets; 0 for none.
 */
int instance_open(struct steer_instance *in, bool record_decisions, bool notouch,
		  __u32 count_buckets);
/* cpusteer_classify, for its records, and cpusteer_steer over the same
 * maps: for tests that hold the one to the other.
 */
int instance_open_both(struct steer_instance *in, __u32 count_buckets);
/* The same for an instance that will be attached along `path`. On
 * ATTACH_DISPATCHER the program to attach is not loaded (libxdp loads it
 * when it attaches), and every program that meets the cpumap is loaded
 * without the frags flag, as libxdp loads its extensions: the kernel lets
 * only programs with one frags flag share a cpumap.
 */
int instance_open_to_attach(struct steer_instance *in, const struct attach_opts *o);
/* Closes this process's handles only: an attached program stays attached
 * (the netlink attach outlives the process) until instance_detach().
 */
void instance_close(struct steer_instance *in);

/* Brings the maps to `t`, whatever they held before, touching only what
 * differs, in the order that keeps every packet served: the redirect
 * target (when the second stage redirects), the cpumap entries for the
 * target CPUs (and the non-IP CPU), then the buckets, the configuration,
 * and last the removal of every cpumap entry no longer used. Entries that already match are left alone,
 * so their queues and kthreads carry on undisturbed. The same call
 * finishes what a killed command left half done, and undoes a failed one
 * when given the configuration from before.
 */
int instance_converge(struct steer_instance *in, const struct instance_target *t);

/* A fresh table of cfg->nbuckets buckets for `cpus`, converged. */
int instance_configure(struct steer_instance *in, const struct cpuset *cpus,
		       const struct cpusteer_config *cfg, const struct cpumap_opts *cm);

/* Makes `cfg` the configuration packets read; one already in force is
 * left alone.
 */
int instance_write_config(struct steer_instance *in, const struct cpusteer_config *cfg);
/* Grace periods waited by this process: program runs that began before
 * each wait had ended when it returned. For tests of the order of writes.
 */
extern unsigned int instance_grace_periods;
int instance_read_config(struct steer_instance *in, struct cpusteer_config *cfg);
/* Copies the first `nbuckets` buckets. */
void instance_read_table(const struct steer_instance *in, __u32 *table, __u32 nbuckets);
int instance_read_decision(struct steer_instance *in, struct cpusteer_decision *d);
/* The device the redirect second stage sends to; -ENOENT when its slot is
 * empty (never set, or its device went away).
 */
int instance_read_redirect_target(struct steer_instance *in, __u32 *ifindex);
/* Whether `cm` redirects (--remote redirect:) to a device that is gone:
 * the kernel empties the slot when its device goes away, and a device
 * made later at the same index is not put back in it.
 */
bool instance_redirect_target_gone(struct steer_instance *in, const struct cpumap_opts *cm);
int instance_clear_decision(struct steer_instance *in);

/* One value per possible CPU in each array; `remote` may be NULL. */
int instance_read_counters_percpu(struct steer_instance *in, struct cpusteer_counters *per,
				  struct cpusteer_remote_counters *remote);
/* Redirects as [receiving CPU * ncpus + target CPU]. */
int instance_read_redirects(struct steer_instance *in, __u64 *per);
/* Sums over all CPUs; `redirected` (may be NULL) gets one total per
 * target CPU.
 */
int instance_read_counters(struct steer_instance *in, struct cpusteer_counters *sum,
			   __u64 *redirected);
/* The load of buckets 0..nbuckets-1 summed over the receiving CPUs;
 * -ERANGE when the counters hold fewer buckets.
 */
int instance_read_bucket_loads(struct steer_instance *in, struct cpusteer_bucket_load *loads,
			       __u32 nbuckets);
int instance_prog_fd(struct steer_instance *in, bool notouch);

/* The pinned record; -EPROTO when it is of another cpusteer version. */
int instance_read_state(struct steer_instance *in, struct cpusteer_instance_state *st);
/* The same, for a command that changes the instance: a record it cannot
 * read gets one line saying "cannot VERB SHOWN" and why, with the way out
 * for another version's.
 */
int instance_read_state_to(struct steer_instance *in, struct cpusteer_instance_state *st,
			   const char *verb, const char *shown);
int instance_write_state(struct steer_instance *in, const struct cpusteer_instance_state *st);
__u32 instance_cpumap_id(struct steer_instance *in);
__u32 prog_id_of_fd(int fd);

/* The path for this kernel: the dispatcher where the kernel takes freplace
 * programs (kernel_freplace_probe()) and libxdp is not told to skip its
 * dispatcher, else the single program.
 */
enum attach_path instance_attach_path(void);
/* Attaches the program to attach with libxdp along the instance's path.
 * Call only after every map is filled. On ATTACH_DISPATCHER steer_prog
 * is the program libxdp loaded, from then on.
 */
int instance_attach(struct steer_instance *in, const char *shown, int ifindex, int xdp_mode);
/* Detaches what instance_attach() attached, in the mode it used. */
void instance_detach(struct steer_instance *in);

/* Maps the bucket table into this process, for reads and writes without
 * a system call per bucket.
 */
int instance_map_table(struct steer_instance *in);

/* Pins every map and program into the instance folder `dirfd`, the
 * record first, so that from the first pin on a later command finds the
 * instance. On failure the caller removes the folder's contents.
 */
int instance_pin(struct steer_instance *in, int dirfd);
/* Pins the steering program, which instance_pin() leaves out while it is
 * not yet loaded (ATTACH_DISPATCHER, before instance_attach()).
 */
int instance_pin_prog(struct steer_instance *in, int dirfd);
/* Opens only the pinned record of the instance in folder `dirfd`, into
 * an instance set up with instance_init(): enough for what a killed
 * command may have left. -ENOENT when there is none, -EPROTO when it is
 * another version's.
 */
int instance_open_record(struct steer_instance *in, int dirfd);
/* The record of the instance in folder `dirfd`, read through a handle
 * of its own: what instance_open_record() and instance_read_state() give.
 */
int instance_read_record(int dirfd, struct cpusteer_instance_state *st);
/* Opens a running instance from its folder: the pinned maps and
 * programs, shapes checked, nothing loaded. `what` names the instance in
 * the line a missing pin gets; NULL: no line (a reader that reports the
 * instance's health in its own way).
 */
int instance_open_pinned(struct steer_instance *in, int dirfd, const char *what);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* One steering instance: the loaded skeleton, its maps and, once attached,
 * its interface and pins. Commands go through these functions, never
 * around them to raw map fds.
 */
#ifndef CPUSTEER_INSTANCE_H
#define CPUSTEER_INSTANCE_H

#include <stdbool.h>
#include "cpusteer.h"
#include "options.h"

struct steer;
struct xdp_program;

/* Pins of the instance on IFACE live in CPUSTEER_PIN_ROOT/IFACE/. */
#define CPUSTEER_PIN_ROOT "/sys/fs/bpf/cpusteer"

/* Which second-stage program the cpumap entries carry. */
enum remote_action {
	REMOTE_NONE,	/* no program: frames go to the stack on the target CPU */
	REMOTE_PASS,
	REMOTE_DROP,
	REMOTE_REDIRECT,
};

/* What every cpumap entry gets. */
struct cpumap_opts {
	__u32 qsize;
	enum remote_action remote;
	__u32 redirect_ifindex;	/* REMOTE_REDIRECT only */
};

struct steer_instance {
	struct steer *skel;
	struct xdp_program *xdp;	/* set while this process holds the attach */
	int ifindex;
	int attached_fd;		/* the program given to libxdp */
	char pin_dir[128];
};

/* Opens and loads the programs, unattached. `record_decisions` makes the
 * steering program log each decision for classify.
 */
int instance_open(struct steer_instance *in, bool record_decisions);
void instance_close(struct steer_instance *in);

/* Brings the maps to the configuration in `o`. Order matters on a live
 * instance: cpumap entries for new CPUs first, then the buckets that move,
 * then the config, and last the removal of CPUs no longer used, so a packet
 * never meets a bucket whose CPU has no entry. `table` holds the current
 * table (BUCKET_UNOWNED entries for a fresh one) and is rebalanced in
 * place; *moved says how many buckets changed owner. With `old_cpus` and
 * `old_cm` (a running instance), cpumap entries that need no change are
 * left alone, so their queues and kthreads carry on undisturbed.
 */
int instance_apply(struct steer_instance *in, const struct steer_opts *o,
		   const struct cpuset *old_cpus, const struct cpumap_opts *old_cm,
		   __u32 *table, const struct cpumap_opts *cm, __u32 *moved);

/* instance_apply() for a new instance: a table of unowned buckets filled
 * from scratch.
 */
int instance_configure(struct steer_instance *in, const struct steer_opts *o,
		       const struct cpumap_opts *cm);
int instance_write_config(struct steer_instance *in, const struct cpusteer_config *cfg);
int instance_read_table(struct steer_instance *in, __u32 *table, __u32 nbuckets);
int instance_read_decision(struct steer_instance *in, struct cpusteer_decision *d);
int instance_clear_decision(struct steer_instance *in);
/* One value per possible CPU in each array; `remote` may be NULL. */
int instance_read_counters_percpu(struct steer_instance *in, struct cpusteer_counters *per,
				  struct cpusteer_remote_counters *remote);
/* Sums the per-CPU counters over all CPUs. */
int instance_read_counters(struct steer_instance *in, struct cpusteer_counters *sum);
int instance_prog_fd(struct steer_instance *in, bool notouch);

/* Whether pins made now would outlive this command (not so in a private
 * mount namespace with no bpffs, as under `ip netns exec`).
 */
int bpffs_check(void);
/* Mounts bpffs at /sys/fs/bpf when absent. */
int bpffs_ensure(void);
bool instance_is_pinned(const char *ifname);

/* Attaches the steering (or no-touch) program with libxdp, which uses its
 * dispatcher where the kernel allows it and falls back to a single-program
 * attach where it does not. Call only after every map is filled.
 */
int instance_attach(struct steer_instance *in, const char *ifname, int ifindex,
		    int xdp_mode, bool notouch);
void instance_detach(struct steer_instance *in);
/* Pins the maps and the attached program; on failure removes what it
 * pinned.
 */
int instance_pin(struct steer_instance *in, const char *ifname);
void instance_unpin(const char *ifname);
/* Opens a loaded instance from its pins: new program copies that share
 * the pinned maps (second-stage programs for `set` come from them).
 */
int instance_open_pinned(struct steer_instance *in, const char *ifname);

int instance_read_state(struct steer_instance *in, struct cpusteer_instance_state *st);
int instance_write_state(struct steer_instance *in, const struct cpusteer_instance_state *st);
int instance_read_config(struct steer_instance *in, struct cpusteer_config *cfg);
__u32 instance_cpumap_id(struct steer_instance *in);
__u32 instance_attached_prog_id(struct steer_instance *in);

#endif

// SPDX-License-Identifier: GPL-2.0
/* cpusteer load: everything is checked first; then, holding the
 * instance's lock with signals deferred, the change protocol (change.h)
 * makes the instance. A failure at any step undoes the steps before it,
 * so bad input leaves the interface, its settings and /sys/fs/bpf as they
 * were; a kill at any step leaves pins that say what happened (cpusteer
 * status) and that cpusteer unload removes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <xdp/libxdp.h>
#include "change.h"
#include "commands.h"
#include "device.h"
#include "kernel_features.h"
#include "load_opts.h"
#include "lock.h"
#include "log.h"
#include "names.h"

static void print_loaded(const struct load_opts *lo, const struct instance_dir *d,
			 const struct cpusteer_instance_state *st, enum attach_path path)
{
	char cpus[256], kthreads[48] = "";

	cpuset_format(&lo->steer.cpus, cpus, sizeof(cpus));
	if (lo->cm.kthread.policy != CPUSTEER_KTHREAD_UNSET) {
		strcpy(kthreads, ", kthreads ");
		kthread_sched_format(&lo->cm.kthread, kthreads + strlen(kthreads),
				     sizeof(kthreads) - strlen(kthreads));
	}
	printf("cpusteer: loaded on %s (%s mode, %s, program id %u): cpus %s, %u buckets, hash %s, qsize %u, remote %s%s%s\n",
	       d->shown, xdp_mode_name(lo->xdp_mode),
	       path == ATTACH_DISPATCHER ? "in libxdp's dispatcher" : "single program",
	       st->prog_id, cpus, lo->steer.cfg.nbuckets, hash_fn_name(lo->steer.cfg.hash_fn),
	       lo->cm.qsize, remote_action_name(lo->cm.remote), kthreads,
	       lo->notouch ? ", no-touch floor" : "");
	if (device_is_veth(lo->ifname))
		printf("note: %s is a veth: its peer must send with tx checksumming off (ethtool -K PEER tx off),\n"
		       "      or steered TCP/UDP arrives as checksum errors and is dropped by the stack\n",
		       d->shown);
	if (!(st->kernel_features & KF_CPUMAP_GRO))
		printf("note: this kernel's cpumap does not do GRO itself; steered TCP is not coalesced\n");
}

/* What holds the name when the recorded device no longer does: the same
 * device under its new name, or nothing here.
 */
static void describe_recorded_device(const struct cpusteer_instance_state *st, char *out,
				     size_t len)
{
	char name[IF_NAMESIZE], shown[IFNAME_SHOWN_LEN];

	if (state_device_name(st, name)) {
		log_printable(name, shown, sizeof(shown));
		snprintf(out, len, "now named %s", shown);
	} else {
		snprintf(out, len, "gone from this network namespace");
	}
}

/* The folder must hold nothing: an instance, or what a killed command
 * left, is unload's to remove first.
 */
static int check_not_loaded(struct instance_dir *d)
{
	struct cpusteer_instance_state st;
	char where[IFNAME_SHOWN_LEN + 16];
	int err;

	if (instance_dir_is_empty(d))
		return 0;
	err = instance_read_record(d->fd, &st);
	if (err == -EPROTO) {
		log_err("cannot load on %s: an instance whose record was made by another cpusteer version is there; cpusteer unload %s removes it first",
			d->shown, d->shown);
	} else if (err || !state_in_service(st.phase)) {
		log_err("cpusteer on %s was left unfinished by an interrupted command; run cpusteer unload %s first",
			d->shown, d->shown);
	} else if (!state_device_here(&st)) {
		describe_recorded_device(&st, where, sizeof(where));
		log_err("cannot load on %s: the instance of that name belongs to the device it was loaded on (ifindex %u), %s; cpusteer unload %s removes it first",
			d->shown, st.ifindex, where, d->shown);
	} else {
		log_err("cpusteer is already loaded on %s; use cpusteer set %s to change it%s",
			d->shown, d->shown,
			state_set_unfinished(st.phase) ? " (or to finish the set that did not)" : "");
	}
	return -EEXIST;
}

/* What load_opts asks for, as the change protocol takes it. */
static int load_locked(struct load_opts *lo, struct instance_dir *d, int ifindex)
{
	struct change_load l = {
		.ifname = lo->ifname, .ifindex = ifindex,
		.cpus = &lo->steer.cpus, .cfg = &lo->steer.cfg, .cm = &lo->cm,
		.dev = &lo->dev, .xdp_mode = lo->xdp_mode, .notouch = lo->notouch,
		.rules = &lo->rules,
	};
	struct cpusteer_instance_state st;
	enum attach_path path;
	int err = change_load(d, &l, &st, &path);

	if (!err)
		print_loaded(lo, d, &st, path);
	return err;
}

/* What --hash nic needs of the kernel and the mode, before anything is
 * made; a driver that gives no hash is only a note: the software hash
 * then serves every frame, as it would for the frames it has none for.
 */
static int check_nic_hash(struct load_opts *lo, const struct instance_dir *d, int ifindex)
{
	int err = 0;

	if (lo->steer.cfg.hash_fn != CPUSTEER_HASH_NIC)
		return 0;
	load_opts_blame(lo, "hash", lo->notouch ? "no-touch"
				  : lo->xdp_mode == XDP_MODE_SKB ? "xdp-mode" : NULL);
	if (lo->notouch) {
		log_err("--hash nic cannot go with --no-touch: the floor reads no hash");
		err = -EINVAL;
	} else if (lo->xdp_mode == XDP_MODE_SKB) {
		log_err("--hash nic needs --xdp-mode native: the kernel binds no program to a device in skb mode");
		err = -EINVAL;
	} else if (!kernel_has_rx_hash()) {
		log_err("cannot use --hash nic on %s: this kernel has no bpf_xdp_metadata_rx_hash (Linux 6.3 and later)",
			d->shown);
		err = -EOPNOTSUPP;
	}
	log_set_where(NULL);
	if (!err && !device_rx_hash(ifindex))
		log_err("note: the driver of %s gives XDP no RX hash: every frame takes the software hash (multilinear)",
			d->shown);
	return err;
}

/* --rules, read with the options, checked against the instance it is to
 * steer for.
 */
static int read_rules(struct load_opts *lo)
{
	const char *unread = rules_unread_by(lo->notouch, lo->steer.cfg.hash_fn);
	int err = 0;

	if (!lo->rules_path)
		return 0;
	if (unread) {
		load_opts_blame(lo, "rules", NULL);
		log_err("--rules cannot go with %s", unread);
		log_set_where(NULL);
		return -EINVAL;
	}
	err = rules_check_cpus(&lo->rules, &lo->steer.cpus);
	if (!err)
		lo->steer.cfg.rules = rules_kinds(&lo->rules);
	return err;
}

static int load(struct load_opts *lo)
{
	struct instance_dir d;
	int ifindex, err;

	err = instance_dir_init(&d, lo->ifname);
	if (err)
		return err;
	ifindex = if_nametoindex(lo->ifname);
	if (!ifindex) {
		log_err("cannot load on %s: no such interface", d.shown);
		return -ENODEV;
	}
	err = steer_opts_finish(&lo->steer);
	lo->steer.cfg.bucket_stats = lo->bucket_stats;
	if (!err)
		err = check_nic_hash(lo, &d, ifindex);
	if (!err)
		err = read_rules(lo);
	if (!err)
		err = bpffs_check();
	if (err)
		return err;
	signals_defer();
	/* Mount bpffs only now, so input rejected earlier leaves none. */
	err = bpffs_ensure();
	if (!err)
		err = instance_dir_open(&d, DIR_CREATE | DIR_LOCK_EX);
	if (err)
		return err;
	err = check_not_loaded(&d);
	if (!err)
		err = load_locked(lo, &d, ifindex);
	instance_dir_close(&d);
	signals_report_held("load", err);
	return err;
}

const struct cli_command load_command = {
	.name = "load",
	.summary = "attach to an interface, maps filled first",
	.operands = "IFACE",
	.about = "Attaches the steering program to IFACE, every map filled first.\n",
	.groups = {
		STEER_GROUP(struct load_opts, steer),
		CHANGE_GROUP,
		LOAD_ONLY_GROUP,
		CONFIG_GROUP,
	},
	.start = &load_start,
	.run = cmd_load,
};

int cmd_load(int argc, char **argv)
{
	struct load_opts lo;
	int err = load_opts_parse(&lo, &load_command, argc, argv);

	if (err)
		return cli_exit_status(err);
	if (require_root("load"))
		return EXIT_FAILURE;
	err = load(&lo);
	rules_free(&lo.rules);
	return exit_code(err);
}

// SPDX-License-Identifier: GPL-2.0
/* cpusteer status: what runs where, from the pins, the live maps, the
 * kernel's view of the attachment and the device, plus the kernel
 * features cpusteer found. It explains what an interrupted command left
 * and says which command removes it. Nothing is loaded: the maps are
 * opened from their pins.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include "attached_prog.h"
#include "commands.h"
#include "counters.h"
#include "cpumap_threads.h"
#include "device.h"
#include "elsewhere.h"
#include "indirection.h"
#include "json.h"
#include "kernel_features.h"
#include "log.h"
#include "rule_change.h"
#include "names.h"
#include "netns.h"
#include "options.h"
#include "trace.h"
#include "instance_health.h"
#include "instance_state.h"
#include "tunnel_opts.h"

struct status_view {
	const struct instance_dir *dir;
	struct cpusteer_instance_state st;
	struct cpusteer_config cfg;	/* live */
	struct cpusteer_counters counts;	/* since load, all CPUs */
	struct cpuset cpus, offline;
	__u32 owned[CPUSTEER_MAX_CPUS];
	__u32 counted_buckets;	/* what the bucket counters can hold */
	size_t rules;		/* prefix rules in force */
	int rx_hash;		/* device_rx_hash() of the interface */
	bool complete;		/* every pin there */
	struct instance_health health;
	struct device_settings dev, saved;
	struct kthread_sched kthread;	/* recorded (--kthread-sched) */
	struct cpumap_threads threads;	/* the cpumap's kthreads now */
	char problem[400];	/* what is wrong, and what to run */
};

static void count_rules(struct steer_instance *in, struct status_view *v)
{
	struct prefix_rules rs = { 0 };

	if (!rule_change_read(in, &rs))
		v->rules = rs.n;
	rules_free(&rs);
}

/* A command was killed in the middle of its work. */
static bool interrupted(const struct status_view *v)
{
	switch (v->health.problem) {
	case HEALTH_INCOMPLETE:
	case HEALTH_INTERRUPTED_LOAD:
	case HEALTH_INTERRUPTED_SET:
	case HEALTH_INTERRUPTED_BALANCE:
	case HEALTH_INTERRUPTED_UNLOAD:
		return true;
	default:
		return false;
	}
}

static void read_table(struct steer_instance *in, struct status_view *v)
{
	__u32 *table = v->cfg.nbuckets <= CPUSTEER_MAX_BUCKETS
			       ? calloc(v->cfg.nbuckets, sizeof(*table)) : NULL;

	if (!table)
		return;
	instance_read_table(in, table, v->cfg.nbuckets);
	indirection_count(table, v->cfg.nbuckets, &v->cpus, v->owned);
	free(table);
}

/* What the instance in the open folder is, as far as what is there
 * tells. Returns -EPROTO for a record of another version.
 */
static int collect(struct instance_dir *d, struct status_view *v)
{
	struct steer_instance in;
	struct cpumap_opts cm;
	int err;

	memset(v, 0, sizeof(*v));
	v->dir = d;
	err = instance_read_record(d->fd, &v->st);
	if (err == -EPROTO) {
		log_err("%s: its record was made by another cpusteer version; cpusteer unload %s removes it",
			d->shown, d->shown);
		return err;
	}
	v->complete = !err && !instance_open_pinned(&in, d->fd, d->shown);
	/* show_here(): only instances of this namespace are judged. */
	instance_health_judge(err ? NULL : &v->st, err, v->complete ? &in : NULL, true, &v->health);
	instance_health_describe(&v->health, d->shown, v->problem, sizeof(v->problem));
	if (!v->complete)
		return 0;
	state_get_cpus(&v->st, &v->cpus);
	cpuset_offline(&v->cpus, NULL, &v->offline);
	if (!instance_read_config(&in, &v->cfg))
		read_table(&in, v);
	instance_read_counters(&in, &v->counts, NULL);
	cpumap_threads_find(instance_cpumap_id(&in), &v->threads);
	v->counted_buckets = in.bucket_load_entries;
	count_rules(&in, v);
	instance_close(&in);
	state_get_saved(&v->st, &v->saved);
	state_get_cpumap(&v->st, &cm);
	v->kthread = cm.kthread;
	v->rx_hash = v->health.device_here ? device_rx_hash(v->st.ifindex) : -ENODEV;
	if (v->health.device_here)
		device_read(d->ifname, &v->dev);
	return 0;
}

static const char *attach_kind(const struct status_view *v)
{
	if (!v->health.attached)
		return "not attached";
	return v->health.att.dispatcher ? "libxdp dispatcher" : "single program (no libxdp dispatcher)";
}

/* Which way libxdp attached the program, and what decided it: the
 * kernel's answer to the freplace probe at load (kernel_features).
 */
static const char *attach_path_json(const struct status_view *v)
{
	if (!v->health.attached)
		return NULL;
	return v->health.att.dispatcher ? "dispatcher" : "single";
}

static const char *attach_path_text(const struct status_view *v)
{
	if (!v->health.attached)
		return "none (not attached)";
	if (v->health.att.dispatcher)
		return "freplace into libxdp's dispatcher: other libxdp programs can share the interface";
	if (!(v->st.kernel_features & KF_FREPLACE))
		return "single program: this kernel refuses freplace programs, which libxdp's dispatcher needs; no other XDP program can share the interface";
	return "single program although this kernel takes freplace programs (LIBXDP_SKIP_DISPATCHER=1 at load?); no other XDP program can share the interface";
}

/* A counter's total since load: an array's entries as "vxlan 638,
 * geneve 0, ...", a single counter as its count.
 */
static void format_counter(const struct counter_desc *c, const struct cpusteer_counters *k,
			   char *line, size_t len)
{
	size_t used = 0;
	__u32 i;

	if (!c->entry_name) {
		snprintf(line, len, "%llu", (unsigned long long)counter_value(c, k, 0));
		return;
	}
	line[0] = '\0';
	for (i = 0; i < c->n && used < len; i++)
		used += snprintf(line + used, len - used, "%s%s %llu", i ? ", " : "",
				 counter_entry_name(c, i), (unsigned long long)counter_value(c, k, i));
}

/* The counters status shows `when`, a line each. */
static void print_counters(const struct status_view *v, enum counter_shown when)
{
	const struct counter_desc *c;
	char line[256];

	for_each_counter(c) {
		if (!c->status || c->shown != when)
			continue;
		format_counter(c, &v->counts, line, sizeof(line));
		printf("  %-18s %s\n", c->status, line);
	}
}

/* What --inner names, and since load how many frames each tunnel kind
 * had steered by their inner flow and how many fell back to the outer.
 */
static void print_inner(const struct status_view *v)
{
	char inner[160];

	inner_format(&v->cfg, inner, sizeof(inner));
	printf("  %-18s %s\n", "inner", inner);
	if (!v->cfg.inner)
		return;
	print_counters(v, SHOWN_WITH_INNER);
}

static const char *rx_hash_support(int support)
{
	return support < 0 ? "the kernel does not say" : support ? "yes" : "no";
}

/* With --hash nic, where the hashes came from since load, and whether the
 * driver says it gives one at all.
 */
static void print_nic_hash(const struct status_view *v)
{
	if (v->cfg.hash_fn != CPUSTEER_HASH_NIC)
		return;
	print_counters(v, SHOWN_WITH_NIC_HASH);
	printf("  %-18s %s\n", "driver rx hash", rx_hash_support(v->rx_hash));
}

/* The recorded --kthread-sched, or that there is none. */
static void print_kthread_sched(const struct status_view *v)
{
	char as[32];

	kthread_sched_format(&v->kthread, as, sizeof(as));
	if (v->kthread.policy == CPUSTEER_KTHREAD_UNSET)
		printf("  %-18s not set: as the kernel made them\n", "kthread sched");
	else
		printf("  %-18s %s\n", "kthread sched", as);
}

/* A target CPU's kthread: pid, policy and priority (the nice value under
 * other), or that none was found.
 */
static void print_thread(const struct cpumap_thread *t)
{
	if (!t)
		printf(" %8s %-6s %5s", "none", "-", "-");
	else
		printf(" %8d %-6s %5d", t->pid, sched_policy_name(t->policy),
		       cpumap_thread_priority(t));
}

static void print_text(const struct status_view *v)
{
	char redirect[IFNAME_SHOWN_LEN] = "", non_ip[16], list[256], dev[160];
	char pins[4 * sizeof(v->dir->path)];
	char name[IF_NAMESIZE];
	__u32 i;

	printf("%s (ifindex %u)\n", v->dir->shown, v->st.ifindex);
	if (v->problem[0])
		printf("  %-18s NEEDS ATTENTION: %s\n", "state", v->problem);
	else
		printf("  %-18s ready\n", "state");
	log_printable(v->dir->path, pins, sizeof(pins));
	printf("  %-18s %s\n", "pins", pins);
	if (!v->complete)
		return;
	if (v->st.remote == REMOTE_REDIRECT) {
		if (if_indextoname(v->st.redirect_ifindex, name))
			log_printable(name, redirect, sizeof(redirect));
		else
			snprintf(redirect, sizeof(redirect), "ifindex %u", v->st.redirect_ifindex);
	}
	non_ip_format(&v->cfg, non_ip, sizeof(non_ip));
	printf("  %-18s %s, %s\n", "attach", xdp_mode_name(v->st.xdp_mode),
	       attach_kind(v));
	printf("  %-18s %s\n", "attach path", attach_path_text(v));
	printf("  %-18s %u (%s)%s\n", "program id", v->st.prog_id,
	       v->health.attached ? "attached" : "NOT attached", v->st.notouch ? ", no-touch floor" : "");
	printf("  %-18s %u, hash %s, %s, non-ip %s\n", "buckets", v->cfg.nbuckets,
	       hash_fn_name(v->cfg.hash_fn), v->cfg.symmetric ? "symmetric" : "not symmetric", non_ip);
	print_inner(v);
	print_nic_hash(v);
	print_counters(v, SHOWN_ALWAYS);
	if (v->cfg.bucket_stats)
		printf("  %-18s on, for up to %u buckets\n", "bucket stats", v->counted_buckets);
	else
		printf("  %-18s off\n", "bucket stats");
	printf("  %-18s %zu in force (cpusteer rule %s lists them)\n", "prefix rules", v->rules,
	       v->dir->shown);
	printf("  %-18s %u, remote %s%s%s\n", "queue size", v->st.qsize,
	       remote_action_name(v->st.remote), *redirect ? " to " : "", redirect);
	print_kthread_sched(v);
	printf("  %-18s %6s %6s %8s %8s %-6s %5s\n", "cpus", "cpu", "weight", "buckets", "kthread",
	       "policy", "prio");
	for (i = 0; i < v->cpus.n; i++) {
		printf("  %-18s %6u %6u %8u", "", v->cpus.cpu[i], v->cpus.weight[i], v->owned[i]);
		print_thread(cpumap_threads_of(&v->threads, v->cpus.cpu[i]));
		printf("%s\n", cpuset_contains(&v->offline, v->cpus.cpu[i]) ? "  OFFLINE" : "");
	}
	if (v->offline.n) {
		cpuset_format(&v->offline, list, sizeof(list));
		printf("  warning: CPU %s offline: its cpumap kthread runs unbound on other CPUs; drop it with cpusteer set %s --cpus ...\n",
		       list, v->dir->shown);
	}
	device_settings_format(&v->dev, dev, sizeof(dev));
	printf("  %-18s %s\n", "device now", v->health.device_here ? dev : "(interface gone)");
	device_settings_format(&v->saved, dev, sizeof(dev));
	printf("  %-18s %s\n", "restored on unload", dev);
}

/* Every counter status shows, whatever the settings: an array as an
 * object of its entries.
 */
static void json_counters(struct json *j, const struct status_view *v)
{
	const struct counter_desc *c;
	__u32 i;

	for_each_counter(c) {
		if (!c->status)
			continue;
		if (!c->entry_name) {
			json_uint(j, c->json_total_key, counter_value(c, &v->counts, 0));
			continue;
		}
		json_object_open(j, c->json_total_key);
		for (i = 0; i < c->n; i++)
			json_uint(j, counter_entry_name(c, i), counter_value(c, &v->counts, i));
		json_object_close(j);
	}
}

static void json_device(struct json *j, const char *key, const struct device_settings *d)
{
	json_object_open(j, key);
	if (d->mask & DEV_GRO)
		json_bool(j, "gro", d->gro);
	if (d->mask & DEV_GRO_FLUSH_TIMEOUT)
		json_uint(j, "gro_flush_timeout_ns", d->gro_flush_timeout);
	if (d->mask & DEV_DEFER_HARD_IRQS)
		json_uint(j, "defer_hard_irqs", d->defer_hard_irqs);
	if (d->mask & DEV_THREADED_NAPI)
		json_bool(j, "threaded_napi", d->threaded);
	json_object_close(j);
}

/* A target CPU's kthread; null when none was found. */
static void json_thread(struct json *j, const struct cpumap_thread *t)
{
	if (!t) {
		json_null(j, "kthread");
		return;
	}
	json_object_open(j, "kthread");
	json_uint(j, "pid", t->pid);
	json_string(j, "policy", sched_policy_name(t->policy));
	json_int(j, "priority", cpumap_thread_priority(t));
	json_object_close(j);
}

static void json_cpus(struct json *j, const struct status_view *v)
{
	__u32 i;

	json_array_open(j, "cpus");
	for (i = 0; i < v->cpus.n; i++) {
		json_object_open(j, NULL);
		json_uint(j, "cpu", v->cpus.cpu[i]);
		json_uint(j, "weight", v->cpus.weight[i]);
		json_uint(j, "buckets", v->owned[i]);
		json_bool(j, "online", !cpuset_contains(&v->offline, v->cpus.cpu[i]));
		json_thread(j, cpumap_threads_of(&v->threads, v->cpus.cpu[i]));
		json_object_close(j);
	}
	json_array_close(j);
}

static void print_json(struct json *j, const struct status_view *v)
{
	char buf[IF_NAMESIZE], inner[160];

	json_object_open(j, NULL);
	json_string(j, "interface", v->dir->ifname);
	json_uint(j, "ifindex", v->st.ifindex);
	json_string(j, "pins", v->dir->path);
	json_string(j, "phase", v->complete ? state_phase_name(v->st.phase) : "incomplete");
	json_bool(j, "interrupted", interrupted(v));
	json_string(j, "health", health_problem_name(v->health.problem));
	if (v->problem[0])
		json_string(j, "problem", v->problem);
	else
		json_null(j, "problem");
	json_bool(j, "interface_gone", v->complete && !v->health.device_here);
	json_bool(j, "attached", v->health.attached);
	json_uint(j, "program_id", v->st.prog_id);
	if (v->complete) {
		json_string(j, "xdp_mode", xdp_mode_name(v->st.xdp_mode));
		json_string(j, "attach_kind", attach_kind(v));
		if (attach_path_json(v))
			json_string(j, "attach_path", attach_path_json(v));
		else
			json_null(j, "attach_path");
		json_bool(j, "no_touch", v->st.notouch);
		json_uint(j, "buckets", v->cfg.nbuckets);
		json_string(j, "hash", hash_fn_name(v->cfg.hash_fn));
		json_bool(j, "symmetric", v->cfg.symmetric);
		inner_format(&v->cfg, inner, sizeof(inner));
		json_string(j, "inner", inner);
		json_counters(j, v);
		if (v->rx_hash < 0)
			json_null(j, "driver_rx_hash");
		else
			json_bool(j, "driver_rx_hash", v->rx_hash);
		json_bool(j, "bucket_stats", v->cfg.bucket_stats);
		json_uint(j, "prefix_rules", v->rules);
		if (v->cfg.bucket_stats)
			json_uint(j, "counted_buckets", v->counted_buckets);
		else
			json_null(j, "counted_buckets");
		if (v->cfg.non_ip_cpu == CPUSTEER_NON_IP_PASS)
			json_string(j, "non_ip", "pass");
		else
			json_uint(j, "non_ip", v->cfg.non_ip_cpu);
		json_uint(j, "qsize", v->st.qsize);
		json_string(j, "remote", remote_action_name(v->st.remote));
		if (v->st.remote == REMOTE_REDIRECT && if_indextoname(v->st.redirect_ifindex, buf))
			json_string(j, "redirect_to", buf);
		else
			json_null(j, "redirect_to");
		if (v->kthread.policy == CPUSTEER_KTHREAD_UNSET) {
			json_null(j, "kthread_sched");
		} else {
			kthread_sched_format(&v->kthread, buf, sizeof(buf));
			json_string(j, "kthread_sched", buf);
		}
		json_cpus(j, v);
		json_device(j, "device", &v->dev);
		json_device(j, "restore_on_unload", &v->saved);
	}
	json_object_close(j);
}

/* `bits`: as recorded by the instances' load, or probed now when none
 * is loaded (parsing the kernel's BTF costs tens of milliseconds).
 */
/* The NAPI netlink and freplace are probed now rather than taken from the
 * record: the running kernel is the one that loaded the instance either way.
 */
static void print_features(bool as_json, struct json *j, __u32 bits)
{
	static const char *const napi_json[] = { "none", "get", "set" };
	static const char *const napi_text[] = {
		[NAPI_NETLINK_NONE] = "no: NAPI settings are the device-wide ones of sysfs",
		[NAPI_NETLINK_GET] = "read only: NAPI settings are the device-wide ones of sysfs",
		[NAPI_NETLINK_SET] = "yes: NAPI settings per NAPI instance too",
	};
	enum napi_netlink napi = kernel_napi_netlink();
	int freplace = kernel_freplace_probe();
	bool gro = bits & KF_CPUMAP_GRO;
	int tp;

	if (as_json) {
		json_object_open(j, "kernel");
		json_bool(j, "btf", bits & KF_BTF);
		json_bool(j, "cpumap_gro", gro);
		json_string(j, "napi_netlink", napi_json[napi]);
		json_bool(j, "freplace", !freplace);
		json_bool(j, "rx_hash_kfunc", bits & KF_RX_HASH);
		json_object_open(j, "tracepoints");
		for (tp = 0; tp < TP_COUNT; tp++)
			json_bool(j, tracepoint_name(tp), bits & KF_TRACEPOINT(tp));
		json_object_close(j);
		json_object_close(j);
		return;
	}
	printf("kernel\n  %-18s %s\n", "BTF", bits & KF_BTF ? "yes" : "no (no tracepoint stats)");
	printf("  %-18s %s\n", "cpumap GRO",
	       gro ? "yes: the cpumap coalesces steered TCP itself"
		   : "no: this kernel's cpumap does not do GRO; steered TCP is not coalesced");
	printf("  %-18s %s\n", "NAPI netlink", napi_text[napi]);
	if (freplace)
		printf("  %-18s refused (%s): libxdp attaches a program alone, without its dispatcher\n",
		       "freplace", strerror(-freplace));
	else
		printf("  %-18s yes: libxdp's dispatcher can share an interface between programs\n",
		       "freplace");
	printf("  %-18s %s\n", "NIC RX hash",
	       bits & KF_RX_HASH ? "yes: --hash nic can read it, where the driver gives it"
				 : "no: --hash nic is refused (Linux 6.3 and later)");
	printf("  %-18s", "tracepoints");
	for (tp = 0; tp < TP_COUNT; tp++)
		printf(" %s%s", tracepoint_name(tp), bits & KF_TRACEPOINT(tp) ? "" : "(missing)");
	putchar('\n');
}

struct listing {
	bool as_json;
	struct json *j;
	const char *only;	/* IFACE given, or NULL */
	__u64 here;		/* this namespace's cookie */
	__u64 here_ino;
	int shown, elsewhere, errors;
	__u32 features;		/* as a loaded instance recorded them */
	bool have_features;
};

/* One instance of this namespace, shown in full. */
static void show_here(struct listing *l, const char *ifname)
{
	struct status_view v;
	struct instance_dir d;

	instance_dir_init_in(&d, ifname, l->here, l->here_ino);
	switch (instance_dir_open(&d, DIR_LOCK_SH)) {
	case 0:
		break;
	case -ENOENT:	/* unloaded while we waited for its lock */
		return;
	default:
		l->errors++;
		return;
	}
	if (instance_dir_is_empty(&d)) {
		/* A load killed before its first pin; load reuses it. */
		instance_dir_close(&d);
		return;
	}
	if (collect(&d, &v)) {
		l->errors++;
	} else {
		l->shown++;
		if (v.complete) {
			l->features = v.st.kernel_features;
			l->have_features = true;
		}
		if (l->as_json)
			print_json(l->j, &v);
		else
			print_text(&v);
	}
	instance_dir_close(&d);
}

/* An instance of another namespace: one line with how to reach it. */
static void show_elsewhere(struct listing *l, __u64 cookie, const char *ifname)
{
	char hint[400], args[96], pins[4 * sizeof(((struct instance_dir *)0)->path)];
	struct instance_dir d;
	struct elsewhere e;

	elsewhere_describe(cookie, ifname, &e);
	instance_dir_init_in(&d, ifname, cookie, e.netns_ino);
	l->elsewhere++;
	if (l->as_json) {
		json_object_open(l->j, NULL);
		json_string(l->j, "interface", d.ifname);
		json_string(l->j, "pins", d.path);
		if (e.ns_gone)
			json_null(l->j, "netns");
		else
			json_string(l->j, "netns", e.netns_path);
		json_object_close(l->j);
		return;
	}
	log_printable(d.path, pins, sizeof(pins));
	snprintf(args, sizeof(args), "status %s", d.shown);
	netns_hint(e.netns_path, args, hint, sizeof(hint));
	if (!e.ns_gone)
		printf("%s: in another network namespace: %s\n", d.shown, hint);
	else
		printf("%s: in a network namespace that no longer exists (pins %s; cpusteer unload %s removes them)\n",
		       d.shown, pins, d.shown);
}

static int visit_here(__u64 cookie, const char *ifname, void *arg)
{
	struct listing *l = arg;

	if (cookie == l->here && (!l->only || !strcmp(ifname, l->only)))
		show_here(l, ifname);
	return 0;
}

static int visit_elsewhere(__u64 cookie, const char *ifname, void *arg)
{
	struct listing *l = arg;

	if (cookie != l->here && (!l->only || !strcmp(ifname, l->only)))
		show_elsewhere(l, cookie, ifname);
	return 0;
}

/* IFACE has no instance here: the cpusteer program attached to it may
 * belong to an instance whose interface moved here or was renamed, or to
 * none (its pins are gone).
 */
static void report_missing(const struct listing *l, const char *ifname)
{
	char shown[IFNAME_SHOWN_LEN], owner[IFNAME_SHOWN_LEN];
	struct elsewhere e;
	struct attached_prog a;

	log_printable(ifname, shown, sizeof(shown));
	if (elsewhere_attached(ifname, &a, &e)) {
		if (!l->elsewhere)
			log_err("cpusteer is not loaded on %s in this network namespace", shown);
		return;
	}
	log_printable(e.ifname, owner, sizeof(owner));
	if (e.found)
		log_err("%s: cpusteer program %u belongs to the instance loaded on %s%s%s (the interface moved here or was renamed); cpusteer unload %s removes it",
			shown, a.prog_id, owner, e.ns_gone ? "" : " in ",
			e.ns_gone ? "" : e.netns_path, shown);
	else if (pin_tree_root_exists())
		log_err("%s: cpusteer program %u is attached with no pins (left by an older or interrupted cpusteer); cpusteer unload %s detaches it",
			shown, a.prog_id, shown);
	else
		log_err("%s: cpusteer program %u is attached, and %s does not exist on this bpffs, which may not be the one its pins are on",
			shown, a.prog_id, CPUSTEER_PIN_ROOT);
}

static int status(const char *ifname, bool as_json)
{
	struct listing l = { .as_json = as_json, .only = ifname };
	struct json j;
	int err;

	if (netns_self(&l.here, &l.here_ino))
		return -EIO;
	err = bpffs_check();
	if (err)
		return err;
	/* A pin tree cpusteer will not use (not root's, a link) is refused
	 * once, in one line, before anything is printed.
	 */
	err = pin_tree_walk(NULL, NULL);
	if (err)
		return err;
	l.j = &j;
	json_init(&j, stdout);
	if (as_json) {
		json_object_open(&j, NULL);
		json_array_open(&j, "instances");
	}
	pin_tree_walk(visit_here, &l);
	if (as_json) {
		json_array_close(&j);
		json_array_open(&j, "other_namespaces");
	}
	pin_tree_walk(visit_elsewhere, &l);
	if (as_json)
		json_array_close(&j);
	if (ifname && !l.shown && !l.errors)
		report_missing(&l, ifname);
	else if (!ifname && !l.shown && !l.elsewhere && !as_json)
		printf("no cpusteer instance is loaded\n");
	print_features(as_json, &j, l.have_features ? l.features : kernel_features_probe());
	if (as_json)
		json_object_close(&j);
	return l.errors || (ifname && !l.shown) ? -ENOENT : 0;
}

struct status_opts {
	bool as_json;
};

static const struct cli_option status_options[] = {
	CLI_FLAG("json", struct status_opts, as_json, "one JSON object"),
	{}
};

const struct cli_command status_command = {
	.name = "status",
	.summary = "show instances, their settings and kernel features",
	.operands = "[IFACE]",
	.about = "Shows each cpusteer instance of this network namespace (or the one on\n"
		 "IFACE): its state, attach mode, program, CPUs with weights and bucket\n"
		 "counts and kthreads (pid, policy, priority), queue size, second stage,\n"
		 "hash settings, the device's GRO/NAPI settings and what unload\n"
		 "restores, and the kernel features found.\n"
		 "Instances of other network namespaces are listed with the command that\n"
		 "reaches them.\n",
	.groups = { { status_options, 0 } },
	.run = cmd_status,
};

int cmd_status(int argc, char **argv)
{
	struct status_opts o = {};
	const char *ifname = NULL;
	int operand, err;

	err = cli_parse(&status_command, argc, argv, &o, &operand);
	if (err)
		return cli_exit_status(err);
	if (operand < argc) {
		ifname = argv[operand];
		if (ifname_check(ifname))
			return EXIT_USAGE;
	}
	if (require_root("status"))
		return EXIT_FAILURE;
	return exit_code(status(ifname, o.as_json));
}

// SPDX-License-Identifier: GPL-2.0
/* cpusteer status: what runs where, from the pins, the live maps and the
 * device, plus the kernel features cpusteer found.
 */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <xdp/libxdp.h>
#include "commands.h"
#include "device.h"
#include "kernel_features.h"
#include "indirection.h"
#include "instance.h"
#include "json.h"
#include "log.h"
#include "names.h"
#include "state.h"

static const char status_usage[] =
	"usage: cpusteer status [IFACE] [--json]\n"
	"Shows each cpusteer instance (or the one on IFACE): attach mode, program,\n"
	"CPUs with weights and bucket counts, queue size, second stage, hash\n"
	"settings, the device's GRO/NAPI settings, and the kernel features found.\n";

static const char *const tracepoints[] = {
	"xdp_cpumap_enqueue", "xdp_cpumap_kthread", "xdp_exception", "xdp_redirect_err",
};

struct status_view {
	const char *ifname;
	struct cpusteer_instance_state st;
	struct cpusteer_config cfg;
	struct cpuset cpus;
	__u32 owned[CPUSTEER_MAX_CPUS];
	bool attached, gone;
	char netns[256];
	const char *attach_kind;
	struct device_settings dev;
};

static void probe_attach(struct status_view *v)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(v->st.ifindex);
	__u32 id = 0;

	v->attach_kind = "none";
	if (libxdp_get_error(mp))
		return;
	if (xdp_multiprog__is_legacy(mp)) {
		v->attach_kind = "single program (no libxdp dispatcher)";
		id = xdp_program__id(xdp_multiprog__main_prog(mp));
		v->attached = id == v->st.prog_id;
	} else {
		struct xdp_program *p = NULL;

		v->attach_kind = "libxdp dispatcher";
		while ((p = xdp_multiprog__next_prog(p, mp)))
			v->attached |= xdp_program__id(p) == v->st.prog_id;
	}
	xdp_multiprog__close(mp);
}

static int collect(const char *ifname, struct status_view *v)
{
	struct steer_instance in;
	__u32 *table;
	int err;

	memset(v, 0, sizeof(*v));
	v->ifname = ifname;
	err = instance_open_pinned(&in, ifname);
	if (err)
		return err;
	err = instance_read_state(&in, &v->st);
	if (!err)
		err = instance_read_config(&in, &v->cfg);
	table = err ? NULL : calloc(v->cfg.nbuckets, sizeof(*table));
	if (table && !instance_read_table(&in, table, v->cfg.nbuckets)) {
		state_get_cpus(&v->st, &v->cpus);
		indirection_count(table, v->cfg.nbuckets, &v->cpus, v->owned);
	} else if (!err) {
		err = -EIO;
	}
	free(table);
	instance_close(&in);
	if (err) {
		log_err("cannot read the instance on %s: %s", ifname, strerror(-err));
		return err;
	}
	v->gone = !state_in_current_netns(&v->st) || if_nametoindex(ifname) != v->st.ifindex;
	if (v->gone) {
		v->attach_kind = state_netns_name(&v->st, v->netns, sizeof(v->netns))
					 ? "in another network namespace (see netns)"
					 : "unknown: the interface is gone (cpusteer unload removes the pins)";
		return 0;
	}
	probe_attach(v);
	device_read(ifname, &v->dev);
	return 0;
}

static void format_non_ip(const struct cpusteer_config *cfg, char *buf, size_t len)
{
	if (cfg->non_ip_cpu == CPUSTEER_NON_IP_PASS)
		snprintf(buf, len, "pass");
	else
		snprintf(buf, len, "cpu:%u", cfg->non_ip_cpu);
}

static void print_device(const char *label, const struct device_settings *d)
{
	printf("  %-18s", label);
	if (d->mask & DEV_GRO)
		printf(" gro %s", d->gro ? "on" : "off");
	if (d->mask & DEV_GRO_FLUSH_TIMEOUT)
		printf(" gro-flush-timeout %lluns", (unsigned long long)d->gro_flush_timeout);
	if (d->mask & DEV_DEFER_HARD_IRQS)
		printf(" defer-hard-irqs %u", d->defer_hard_irqs);
	if (d->mask & DEV_THREADED_NAPI)
		printf(" threaded-napi %s", d->threaded ? "on" : "off");
	printf("%s\n", d->mask ? "" : " none");
}

static void print_text(const struct status_view *v)
{
	char redirect[IF_NAMESIZE] = "", non_ip[16];
	struct device_settings saved;
	__u32 i;

	format_non_ip(&v->cfg, non_ip, sizeof(non_ip));
	if (v->st.remote == REMOTE_REDIRECT && !if_indextoname(v->st.redirect_ifindex, redirect))
		snprintf(redirect, sizeof(redirect), "ifindex %u", v->st.redirect_ifindex);
	printf("%s (ifindex %u%s%s)\n", v->ifname, v->st.ifindex, *v->netns ? ", netns " : "",
	       v->netns);
	printf("  %-18s %s, %s\n", "attach", v->st.xdp_mode == XDP_MODE_SKB ? "skb" : "native",
	       v->attach_kind);
	printf("  %-18s %u (%s)%s\n", "program id", v->st.prog_id,
	       v->attached ? "attached" : "NOT attached", v->st.notouch ? ", no-touch floor" : "");
	printf("  %-18s %u, hash %s, %s, non-ip %s\n", "buckets", v->cfg.nbuckets,
	       hash_fn_name(v->cfg.hash_fn), v->cfg.symmetric ? "symmetric" : "not symmetric", non_ip);
	printf("  %-18s %u, remote %s%s%s\n", "queue size", v->st.qsize,
	       remote_action_name(v->st.remote), *redirect ? " to " : "", redirect);
	printf("  %-18s %6s %6s %8s\n", "cpus", "cpu", "weight", "buckets");
	for (i = 0; i < v->cpus.n; i++)
		printf("  %-18s %6u %6u %8u\n", "", v->cpus.cpu[i], v->cpus.weight[i], v->owned[i]);
	print_device("device now", &v->dev);
	state_get_saved(&v->st, &saved);
	print_device("restored on unload", &saved);
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

static void print_json(struct json *j, const struct status_view *v)
{
	char buf[IF_NAMESIZE];
	struct device_settings saved;
	__u32 i;

	json_object_open(j, NULL);
	json_string(j, "interface", v->ifname);
	json_uint(j, "ifindex", v->st.ifindex);
	json_string(j, "xdp_mode", v->st.xdp_mode == XDP_MODE_SKB ? "skb" : "native");
	json_string(j, "attach_kind", v->attach_kind);
	json_uint(j, "program_id", v->st.prog_id);
	json_bool(j, "attached", v->attached);
	json_bool(j, "interface_gone", v->gone && !*v->netns);
	if (*v->netns)
		json_string(j, "netns", v->netns);
	else
		json_null(j, "netns");
	json_bool(j, "no_touch", v->st.notouch);
	json_uint(j, "buckets", v->cfg.nbuckets);
	json_string(j, "hash", hash_fn_name(v->cfg.hash_fn));
	json_bool(j, "symmetric", v->cfg.symmetric);
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
	json_array_open(j, "cpus");
	for (i = 0; i < v->cpus.n; i++) {
		json_object_open(j, NULL);
		json_uint(j, "cpu", v->cpus.cpu[i]);
		json_uint(j, "weight", v->cpus.weight[i]);
		json_uint(j, "buckets", v->owned[i]);
		json_object_close(j);
	}
	json_array_close(j);
	json_device(j, "device", &v->dev);
	state_get_saved(&v->st, &saved);
	json_device(j, "restore_on_unload", &saved);
	json_object_close(j);
}

static void print_features(bool as_json, struct json *j)
{
	bool gro = kernel_cpumap_does_gro();
	size_t i;

	if (as_json) {
		json_object_open(j, "kernel");
		json_bool(j, "btf", kernel_has_btf());
		json_bool(j, "cpumap_gro", gro);
		json_object_open(j, "tracepoints");
		for (i = 0; i < sizeof(tracepoints) / sizeof(tracepoints[0]); i++)
			json_bool(j, tracepoints[i], kernel_has_tracepoint(tracepoints[i]));
		json_object_close(j);
		json_object_close(j);
		return;
	}
	printf("kernel\n  %-18s %s\n", "BTF", kernel_has_btf() ? "yes" : "no (no tracepoint stats)");
	printf("  %-18s %s\n", "cpumap GRO",
	       gro ? "yes: the cpumap coalesces steered TCP itself"
		   : "no: this kernel's cpumap does not do GRO; steered TCP is not coalesced");
	printf("  %-18s", "tracepoints");
	for (i = 0; i < sizeof(tracepoints) / sizeof(tracepoints[0]); i++)
		printf(" %s%s", tracepoints[i], kernel_has_tracepoint(tracepoints[i]) ? "" : "(missing)");
	putchar('\n');
}

/* Every instance is a folder under the pin root. */
static int list_instances(char names[][NAME_MAX + 1], int max)
{
	DIR *d = opendir(CPUSTEER_PIN_ROOT);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max)
		if (e->d_name[0] != '.')
			memcpy(names[n++], e->d_name, sizeof(names[0]));
	closedir(d);
	return n;
}

int cmd_status(int argc, char **argv)
{
	static char names[64][NAME_MAX + 1];
	const char *ifname = NULL;
	struct status_view v;
	bool as_json = false;
	struct json j;
	int i, n, err = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			as_json = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(status_usage, stdout);
			return 0;
		} else if (argv[i][0] != '-' && !ifname)
			ifname = argv[i];
		else {
			fputs(status_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (require_root("status"))
		return 1;
	if (ifname) {
		n = 1;
		snprintf(names[0], sizeof(names[0]), "%s", ifname);
	} else {
		n = list_instances(names, 64);
	}
	json_init(&j, stdout);
	if (as_json) {
		json_object_open(&j, NULL);
		json_array_open(&j, "instances");
	} else if (!n) {
		printf("no cpusteer instance is loaded\n");
	}
	for (i = 0; i < n; i++) {
		if (collect(names[i], &v)) {
			err = 1;
			continue;
		}
		if (as_json)
			print_json(&j, &v);
		else
			print_text(&v);
	}
	if (as_json)
		json_array_close(&j);
	print_features(as_json, &j);
	if (as_json)
		json_object_close(&j);
	return err;
}

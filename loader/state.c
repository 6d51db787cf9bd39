// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "state.h"

static void record_from(struct cpusteer_device_record *r, const struct device_settings *d)
{
	r->mask = d->mask;
	r->gro = d->gro;
	r->threaded = d->threaded;
	r->defer_hard_irqs = d->defer_hard_irqs;
	r->gro_flush_timeout = d->gro_flush_timeout;
}

static void record_to(const struct cpusteer_device_record *r, struct device_settings *d)
{
	memset(d, 0, sizeof(*d));
	d->mask = r->mask;
	d->gro = r->gro;
	d->threaded = r->threaded;
	d->defer_hard_irqs = r->defer_hard_irqs;
	d->gro_flush_timeout = r->gro_flush_timeout;
}

void state_set_cpus(struct cpusteer_instance_state *st, const struct cpuset *set)
{
	st->ncpus = set->n;
	memcpy(st->cpus, set->cpu, sizeof(st->cpus));
	memcpy(st->weights, set->weight, sizeof(st->weights));
}

void state_get_cpus(const struct cpusteer_instance_state *st, struct cpuset *set)
{
	set->n = st->ncpus < CPUSTEER_MAX_CPUS ? st->ncpus : CPUSTEER_MAX_CPUS;
	memcpy(set->cpu, st->cpus, sizeof(set->cpu));
	memcpy(set->weight, st->weights, sizeof(set->weight));
}

__u64 current_netns_ino(void)
{
	struct stat sb;

	return stat("/proc/self/ns/net", &sb) ? 0 : sb.st_ino;
}

void state_from_opts(struct cpusteer_instance_state *st, const struct load_opts *lo, int ifindex)
{
	st->netns_ino = current_netns_ino();
	st->ifindex = ifindex;
	st->xdp_mode = lo->xdp_mode;
	st->notouch = lo->notouch;
	st->qsize = lo->cm.qsize;
	st->remote = lo->cm.remote;
	st->redirect_ifindex = lo->cm.redirect_ifindex;
	state_set_cpus(st, &lo->steer.cpus);
}

void state_set_device(struct cpusteer_instance_state *st, const struct device_settings *saved,
		      const struct device_settings *applied)
{
	record_from(&st->saved, saved);
	record_from(&st->applied, applied);
}

void state_get_saved(const struct cpusteer_instance_state *st, struct device_settings *saved)
{
	record_to(&st->saved, saved);
}

void state_get_applied(const struct cpusteer_instance_state *st, struct device_settings *applied)
{
	record_to(&st->applied, applied);
}

void state_get_cpumap(const struct cpusteer_instance_state *st, struct cpumap_opts *cm)
{
	cm->qsize = st->qsize;
	cm->remote = st->remote;
	cm->redirect_ifindex = st->redirect_ifindex;
}

/* Interface names are per network namespace, pins are not: the ifindex
 * recorded at load means something only in the namespace it came from.
 */
bool state_in_current_netns(const struct cpusteer_instance_state *st)
{
	return st->netns_ino == current_netns_ino();
}

bool state_netns_name(const struct cpusteer_instance_state *st, char *name, size_t len)
{
	struct dirent *e;
	char path[300];
	struct stat sb;
	bool found = false;
	DIR *d = opendir("/run/netns");

	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
		if (!stat(path, &sb) && sb.st_ino == st->netns_ino) {
			snprintf(name, len, "%s", e->d_name);
			found = true;
		}
	}
	if (d)
		closedir(d);
	return found;
}

// SPDX-License-Identifier: GPL-2.0
#include <string.h>
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

void state_from_opts(struct cpusteer_instance_state *st, const struct load_opts *lo, int ifindex)
{
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

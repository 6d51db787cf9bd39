// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include "instance_state.h"

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

void state_init(struct cpusteer_instance_state *st, const struct instance_dir *d, int ifindex)
{
	memset(st, 0, sizeof(*st));
	st->version = CPUSTEER_STATE_VERSION;
	st->netns_cookie = d->netns_cookie;
	st->netns_ino = d->netns_ino;
	st->ifindex = ifindex;
	memcpy(st->ifname, d->ifname, sizeof(st->ifname));
	state_enter(st, CPUSTEER_PHASE_LOADING);
}

void state_enter(struct cpusteer_instance_state *st, enum cpusteer_phase phase)
{
	st->phase = phase;
	st->phase_pid = getpid();
}

const char *state_phase_name(__u32 phase)
{
	switch (phase) {
	case CPUSTEER_PHASE_LOADING:
		return "loading";
	case CPUSTEER_PHASE_READY:
		return "ready";
	case CPUSTEER_PHASE_SETTING:
		return "setting";
	case CPUSTEER_PHASE_UNLOADING:
		return "unloading";
	case CPUSTEER_PHASE_BALANCING:
		return "balancing";
	case CPUSTEER_PHASE_SET_FAILED:
		return "set_failed";
	default:
		return "unknown";
	}
}

const char *state_phase_command(__u32 phase)
{
	switch (phase) {
	case CPUSTEER_PHASE_SETTING:
	case CPUSTEER_PHASE_SET_FAILED:
		return "set";
	case CPUSTEER_PHASE_UNLOADING:
		return "unload";
	case CPUSTEER_PHASE_BALANCING:
		return "balance";
	default:
		return "load";
	}
}

bool state_set_unfinished(__u32 phase)
{
	return phase == CPUSTEER_PHASE_SETTING || phase == CPUSTEER_PHASE_SET_FAILED;
}

bool state_in_service(__u32 phase)
{
	return phase == CPUSTEER_PHASE_READY || phase == CPUSTEER_PHASE_BALANCING ||
	       state_set_unfinished(phase);
}

void state_set_config(struct cpusteer_instance_state *st, const struct cpuset *cpus,
		      const struct cpusteer_config *cfg, const struct cpumap_opts *cm)
{
	st->ncpus = cpus->n;
	memcpy(st->cpus, cpus->cpu, sizeof(st->cpus));
	memcpy(st->weights, cpus->weight, sizeof(st->weights));
	st->cfg = *cfg;
	st->qsize = cm->qsize;
	st->remote = cm->remote;
	st->redirect_ifindex = cm->redirect_ifindex;
	st->kthread_policy = cm->kthread.policy;
	st->kthread_priority = cm->kthread.priority;
}

void state_get_cpus(const struct cpusteer_instance_state *st, struct cpuset *set)
{
	memset(set, 0, sizeof(*set));
	set->n = st->ncpus < CPUSTEER_MAX_CPUS ? st->ncpus : CPUSTEER_MAX_CPUS;
	memcpy(set->cpu, st->cpus, sizeof(set->cpu));
	memcpy(set->weight, st->weights, sizeof(set->weight));
}

void state_get_cpumap(const struct cpusteer_instance_state *st, struct cpumap_opts *cm)
{
	cm->qsize = st->qsize;
	cm->remote = st->remote < REMOTE_ACTIONS ? st->remote : REMOTE_NONE;
	cm->redirect_ifindex = st->redirect_ifindex;
	cm->kthread.policy = st->kthread_policy <= CPUSTEER_KTHREAD_RR ? st->kthread_policy
								       : CPUSTEER_KTHREAD_UNSET;
	cm->kthread.priority = st->kthread_priority;
}

bool state_device_name(const struct cpusteer_instance_state *st, char name[IF_NAMESIZE])
{
	__u8 mac[6];

	return if_indextoname(st->ifindex, name) && !device_hwaddr(name, mac) &&
	       !memcmp(mac, st->hwaddr, sizeof(mac));
}

bool state_device_here(const struct cpusteer_instance_state *st)
{
	char name[IF_NAMESIZE];

	return state_device_name(st, name) && !strncmp(name, st->ifname, sizeof(st->ifname));
}

void state_set_saved(struct cpusteer_instance_state *st, const struct device_settings *saved)
{
	record_from(&st->saved, saved);
}

void state_set_applied(struct cpusteer_instance_state *st, const struct device_settings *applied)
{
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

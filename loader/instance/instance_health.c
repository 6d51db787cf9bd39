// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <bpf/libbpf.h>
#include "instance.h"
#include "instance_health.h"
#include "instance_state.h"

/* Each problem's stable name, what happened and what puts it right. The
 * text may hold one number (`number` says which); the remedy names the
 * interface.
 */
enum problem_number { NO_NUMBER, PHASE_PID, OTHER_PROG_ID, REDIRECT_IFINDEX };

static const struct problem_text {
	const char *name, *what, *remedy;
	enum problem_number number;
} problems[HEALTH_PROBLEMS] = {
	[HEALTH_OK] = { "ok", NULL, NULL, NO_NUMBER },
	[HEALTH_OTHER_VERSION] = { "other_version",
		"its record was made by another cpusteer version",
		"cpusteer unload %s removes it", NO_NUMBER },
	[HEALTH_INCOMPLETE] = { "incomplete",
		"incomplete: an interrupted load or unload left part of its pins",
		"cpusteer unload %s removes them", NO_NUMBER },
	[HEALTH_INTERRUPTED_LOAD] = { "interrupted_load",
		"an interrupted load (pid %u) left it unfinished",
		"cpusteer unload %s removes it", PHASE_PID },
	[HEALTH_INTERRUPTED_SET] = { "interrupted_set",
		"a set (pid %u) was interrupted: the maps may be between two configurations",
		"cpusteer set %s finishes it", PHASE_PID },
	[HEALTH_INTERRUPTED_BALANCE] = { "interrupted_balance",
		"a balance step (pid %u) was interrupted with some of its bucket moves made, every bucket on a CPU of the instance",
		"cpusteer set %s, or the next balance step, closes it", PHASE_PID },
	[HEALTH_INTERRUPTED_UNLOAD] = { "interrupted_unload",
		"an interrupted unload (pid %u) left it unfinished",
		"cpusteer unload %s removes it", PHASE_PID },
	[HEALTH_SET_FAILED] = { "set_failed",
		"a set (pid %u) failed and could not put the maps back: they may be between two configurations",
		"cpusteer set %s finishes it", PHASE_PID },
	[HEALTH_INTERFACE_GONE] = { "interface_gone",
		"the interface is gone (deleted, replaced, renamed or moved)",
		"cpusteer unload %s cleans up", NO_NUMBER },
	[HEALTH_PROGRAM_REPLACED] = { "program_replaced",
		"another XDP program (id %u) is attached in place of cpusteer's",
		"cpusteer unload %s removes the rest and leaves that program", OTHER_PROG_ID },
	[HEALTH_NOT_ATTACHED] = { "not_attached",
		"its program is not attached (detached by hand?)",
		"cpusteer unload %s removes the rest", NO_NUMBER },
	[HEALTH_REDIRECT_TARGET_GONE] = { "redirect_target_gone",
		"the --remote redirect target (ifindex %u) is gone, and the frames steered to it are dropped",
		"cpusteer set %s --remote ... names another", REDIRECT_IFINDEX },
};

const char *health_problem_name(enum health_problem p)
{
	return p < HEALTH_PROBLEMS ? problems[p].name : "unknown";
}

static enum health_problem phase_problem(__u32 phase)
{
	switch (phase) {
	case CPUSTEER_PHASE_READY:
		return HEALTH_OK;
	case CPUSTEER_PHASE_SETTING:
		return HEALTH_INTERRUPTED_SET;
	case CPUSTEER_PHASE_BALANCING:
		return HEALTH_INTERRUPTED_BALANCE;
	case CPUSTEER_PHASE_UNLOADING:
		return HEALTH_INTERRUPTED_UNLOAD;
	case CPUSTEER_PHASE_SET_FAILED:
		return HEALTH_SET_FAILED;
	default:
		return HEALTH_INTERRUPTED_LOAD;
	}
}

/* The id of whatever XDP program the device runs, in any mode; 0 for none. */
static __u32 attached_prog_id(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query(ifindex, 0, &q))
		return 0;
	return q.prog_id ? q.prog_id : q.skb_prog_id ? q.skb_prog_id : q.drv_prog_id;
}

void instance_health_judge(const struct cpusteer_instance_state *st, int record_err,
			   struct steer_instance *in, bool in_its_netns, struct instance_health *h)
{
	struct cpumap_opts cm;

	memset(h, 0, sizeof(*h));
	if (record_err == -EPROTO) {
		h->problem = HEALTH_OTHER_VERSION;
		return;
	}
	if (!st || !in) {
		if (st)
			h->phase = st->phase;
		h->problem = HEALTH_INCOMPLETE;
		return;
	}
	h->phase = st->phase;
	h->phase_pid = st->phase_pid;
	h->redirect_ifindex = st->redirect_ifindex;
	h->device_here = in_its_netns && state_device_here(st);
	h->attached = h->device_here && !attached_prog_find(st->ifindex, st->prog_id, &h->att);
	if (h->device_here && !h->attached)
		h->other_prog_id = attached_prog_id(st->ifindex);
	h->problem = phase_problem(st->phase);
	if (h->problem != HEALTH_OK)
		return;
	state_get_cpumap(st, &cm);
	if (!h->device_here)
		h->problem = HEALTH_INTERFACE_GONE;
	else if (!h->attached)
		h->problem = h->other_prog_id ? HEALTH_PROGRAM_REPLACED : HEALTH_NOT_ATTACHED;
	else if (instance_redirect_target_gone(in, &cm))
		h->problem = HEALTH_REDIRECT_TARGET_GONE;
}

static __u32 number_of(const struct instance_health *h, enum problem_number which)
{
	switch (which) {
	case PHASE_PID:
		return h->phase_pid;
	case OTHER_PROG_ID:
		return h->other_prog_id;
	case REDIRECT_IFINDEX:
		return h->redirect_ifindex;
	default:
		return 0;
	}
}

void instance_health_describe(const struct instance_health *h, const char *shown, char *out,
			      size_t len)
{
	const struct problem_text *t = h->problem < HEALTH_PROBLEMS ? &problems[h->problem] : NULL;
	char what[256], remedy[128];

	if (!t || !t->what) {
		snprintf(out, len, "%s", t ? "" : "unknown problem");
		return;
	}
	/* The tables' own formats, each with the one argument it takes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(what, sizeof(what), t->what, number_of(h, t->number));
	snprintf(remedy, sizeof(remedy), t->remedy, shown);
#pragma GCC diagnostic pop
	snprintf(out, len, "%s; %s", what, remedy);
}

void health_describe_phase(const struct cpusteer_instance_state *st, const char *shown,
			   char *out, size_t len)
{
	struct instance_health h = { .problem = phase_problem(st->phase), .phase = st->phase,
				     .phase_pid = st->phase_pid };

	instance_health_describe(&h, shown, out, len);
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <bpf/libbpf.h>
#include "instance.h"
#include "instance_health.h"
#include "instance_state.h"

static const char *const problem_names[HEALTH_PROBLEMS] = {
	[HEALTH_OK] = "ok",
	[HEALTH_OTHER_VERSION] = "other_version",
	[HEALTH_INCOMPLETE] = "incomplete",
	[HEALTH_INTERRUPTED_LOAD] = "interrupted_load",
	[HEALTH_INTERRUPTED_SET] = "interrupted_set",
	[HEALTH_INTERRUPTED_BALANCE] = "interrupted_balance",
	[HEALTH_INTERRUPTED_UNLOAD] = "interrupted_unload",
	[HEALTH_SET_FAILED] = "set_failed",
	[HEALTH_INTERFACE_GONE] = "interface_gone",
	[HEALTH_PROGRAM_REPLACED] = "program_replaced",
	[HEALTH_NOT_ATTACHED] = "not_attached",
	[HEALTH_REDIRECT_TARGET_GONE] = "redirect_target_gone",
};

const char *health_problem_name(enum health_problem p)
{
	return p < HEALTH_PROBLEMS ? problem_names[p] : "unknown";
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

/* The second stage redirects through a devmap slot that the kernel empties
 * when its device goes away; a device made later at the same index is not
 * put back in it.
 */
static bool redirect_target_gone(const struct cpusteer_instance_state *st,
				 struct steer_instance *in)
{
	__u32 ifindex;

	if (st->remote != REMOTE_REDIRECT)
		return false;
	return instance_read_redirect_target(in, &ifindex) || ifindex != st->redirect_ifindex;
}

void instance_health_judge(const struct cpusteer_instance_state *st, int record_err,
			   struct steer_instance *in, struct instance_health *h)
{
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
	h->device_here = state_device_here(st);
	h->attached = h->device_here && !attachment_find(st->ifindex, st->prog_id, &h->att);
	if (h->device_here && !h->attached)
		h->other_prog_id = attached_prog_id(st->ifindex);
	h->problem = phase_problem(st->phase);
	if (h->problem != HEALTH_OK)
		return;
	if (!h->device_here)
		h->problem = HEALTH_INTERFACE_GONE;
	else if (!h->attached)
		h->problem = h->other_prog_id ? HEALTH_PROGRAM_REPLACED : HEALTH_NOT_ATTACHED;
	else if (redirect_target_gone(st, in))
		h->problem = HEALTH_REDIRECT_TARGET_GONE;
}

void instance_health_describe(const struct instance_health *h, const char *shown, char *out,
			      size_t len)
{
	switch (h->problem) {
	case HEALTH_OK:
		snprintf(out, len, "%s", "");
		break;
	case HEALTH_OTHER_VERSION:
		snprintf(out, len, "its record was made by another cpusteer version; cpusteer unload %s removes it",
			 shown);
		break;
	case HEALTH_INCOMPLETE:
		snprintf(out, len, "incomplete: an interrupted %s left part of its pins; cpusteer unload %s removes them",
			 state_phase_command(h->phase), shown);
		break;
	case HEALTH_INTERRUPTED_SET:
		snprintf(out, len, "a set (pid %u) was interrupted: the maps may be between two configurations; cpusteer set %s finishes it",
			 h->phase_pid, shown);
		break;
	case HEALTH_INTERRUPTED_BALANCE:
		snprintf(out, len, "a balance step (pid %u) was interrupted with some of its bucket moves made, every bucket on a CPU of the instance; cpusteer set %s, or the next balance step, closes it",
			 h->phase_pid, shown);
		break;
	case HEALTH_INTERRUPTED_LOAD:
	case HEALTH_INTERRUPTED_UNLOAD:
		snprintf(out, len, "an interrupted %s (pid %u) left it unfinished; cpusteer unload %s removes it",
			 state_phase_command(h->phase), h->phase_pid, shown);
		break;
	case HEALTH_SET_FAILED:
		snprintf(out, len, "a set (pid %u) failed and could not put the maps back: they may be between two configurations; cpusteer set %s finishes it",
			 h->phase_pid, shown);
		break;
	case HEALTH_INTERFACE_GONE:
		snprintf(out, len, "the interface is gone (deleted, replaced, renamed or moved); cpusteer unload %s cleans up",
			 shown);
		break;
	case HEALTH_PROGRAM_REPLACED:
		snprintf(out, len, "another XDP program (id %u) is attached in place of cpusteer's; cpusteer unload %s removes the rest and leaves that program",
			 h->other_prog_id, shown);
		break;
	case HEALTH_NOT_ATTACHED:
		snprintf(out, len, "its program is not attached (detached by hand?); cpusteer unload %s removes the rest",
			 shown);
		break;
	case HEALTH_REDIRECT_TARGET_GONE:
		snprintf(out, len, "the --remote redirect target (ifindex %u) is gone, and the frames steered to it are dropped; cpusteer set %s --remote ... names another",
			 h->redirect_ifindex, shown);
		break;
	default:
		snprintf(out, len, "unknown problem %d", h->problem);
		break;
	}
}

void health_describe_phase(const struct cpusteer_instance_state *st, const char *shown,
			   char *out, size_t len)
{
	struct instance_health h = { .problem = phase_problem(st->phase), .phase = st->phase,
				     .phase_pid = st->phase_pid };

	instance_health_describe(&h, shown, out, len);
}

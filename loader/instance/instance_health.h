/* SPDX-License-Identifier: GPL-2.0 */
/* Whether an instance is what its record says, and if not, the first
 * thing wrong with it and the command that puts it right. `status` prints
 * it and the exporter exports it, so both name the same problems; the
 * reason names below are part of the exporter's output (cpusteer.8).
 *
 * Judged under the instance's lock, shared or exclusive: a phase other
 * than ready then belongs to a command that is no longer running.
 */
#ifndef CPUSTEER_INSTANCE_HEALTH_H
#define CPUSTEER_INSTANCE_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include "attached_prog.h"
#include "cpusteer.h"

struct steer_instance;

/* In the order they are looked for: the first that holds is reported. */
enum health_problem {
	HEALTH_OK,
	HEALTH_OTHER_VERSION,		/* a record this cpusteer cannot read */
	HEALTH_INCOMPLETE,		/* pins missing: a load or unload killed */
	HEALTH_INTERRUPTED_LOAD,
	HEALTH_INTERRUPTED_SET,
	HEALTH_INTERRUPTED_BALANCE,
	HEALTH_INTERRUPTED_UNLOAD,
	HEALTH_SET_FAILED,		/* a set and its way back both failed */
	HEALTH_INTERFACE_GONE,
	HEALTH_PROGRAM_REPLACED,	/* another XDP program in its place */
	HEALTH_NOT_ATTACHED,
	HEALTH_REDIRECT_TARGET_GONE,	/* --remote redirect: to nowhere */
	HEALTH_PROBLEMS
};

struct instance_health {
	enum health_problem problem;
	__u32 phase;			/* the record's; 0 with no record */
	__u32 phase_pid;
	bool device_here;		/* the recorded device, at its index */
	bool attached;			/* the recorded program, on it */
	struct attached_prog att;	/* where attached */
	__u32 other_prog_id;		/* what is attached instead, if anything */
	__u32 redirect_ifindex;		/* the second stage's target */
};

/* Judges the instance from its record (NULL when it could not be read;
 * `record_err` says why) and, when every pin is there, the instance
 * opened from them (`in`, else NULL). Its interface and attachment are
 * looked up by ifindex, which means something only in the instance's
 * network namespace: the calling thread must be in it (`in_its_netns`),
 * else the interface counts as gone, with its namespace.
 */
void instance_health_judge(const struct cpusteer_instance_state *st, int record_err,
			   struct steer_instance *in, bool in_its_netns,
			   struct instance_health *h);

/* The problem's stable name: "ok", "interrupted_set", ... */
const char *health_problem_name(enum health_problem p);

/* What is wrong and what to run, for `status`; "" when nothing is.
 * `shown` is the interface as the operator spells it.
 */
void instance_health_describe(const struct instance_health *h, const char *shown, char *out,
			      size_t len);

/* The same for the phase of a record alone: what a command that finds the
 * instance in that phase tells the operator.
 */
void health_describe_phase(const struct cpusteer_instance_state *st, const char *shown,
			   char *out, size_t len);

#endif

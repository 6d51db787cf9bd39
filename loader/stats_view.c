// SPDX-License-Identifier: GPL-2.0
/* The counter arrays that stats, status and the exporter show. */
#include <stddef.h>
#include "names.h"
#include "stats_view.h"

const struct counter_group counter_groups[COUNTER_GROUPS] = {
	[GROUP_PASSED] = { "PASSED", "pass", "pass_reasons", offsetof(struct cpusteer_counters, passed),
	  CPUSTEER_PASS_REASONS, pass_reason_name },
	[GROUP_ERRORS] = { "ERRORS (passed)", "errors", "errors", offsetof(struct cpusteer_counters, errors),
	  CPUSTEER_ERRORS, error_name },
	[GROUP_INNER_STEERED] = { "INNER FLOW STEERED", "inner_steered", "inner_steered",
	  offsetof(struct cpusteer_counters, inner_steered), CPUSTEER_TUNNELS, tunnel_name },
	[GROUP_INNER_FALLBACK] = { "OUTER FLOW STEERED (tunnel)", "inner_fallback", "inner_fallback",
	  offsetof(struct cpusteer_counters, inner_fallback), CPUSTEER_INNER_FALLBACKS,
	  inner_fallback_name },
	[GROUP_NIC_HASH] = { "NIC HASH (--hash nic)", "nic_hash", "nic_hash",
	  offsetof(struct cpusteer_counters, nic_hash), CPUSTEER_NIC_HASH_OUTCOMES, nic_hash_name },
};

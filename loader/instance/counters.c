// SPDX-License-Identifier: GPL-2.0
/* The steering program's counters (counters.h), in the order the
 * outputs show them.
 */
#include "counters.h"
#include "names.h"

#define FIELD(name) .field = #name, .offset = offsetof(struct cpusteer_counters, name)
#define ARRAY(name, entries, namer) FIELD(name), .n = (entries), .entry_name = (namer)

/* The two counts of a layer-2 path's frames, which differ only in what
 * became of them.
 */
#define PATH_COUNTER(name, became, title_, status_) \
	{ ARRAY(name, CPUSTEER_PATH_KINDS, path_kind_name), .group = COUNTER_NOTE, \
	  .unit = "packets", \
	  .help = "packets that came by VLAN tags, a PPPoE session or MPLS labels and were " \
		  became ", by layer-2 path", \
	  .title = title_, .json_key = #name, .json_total_key = #name, .status = status_, \
	  .metric = #name, .label = "path" }

const struct counter_desc counter_descs[] = {
	{ FIELD(rx_packets), .n = 1, .group = COUNTER_RECEIVED, .unit = "packets",
	  .help = "packets the steering program saw, by receiving CPU",
	  .metric = "received", .per_cpu = true },
	{ .offset = sizeof(struct cpusteer_counters), .n = 0, .group = COUNTER_REDIRECTED,
	  .unit = "packets", .help = "packets steered to each target CPU",
	  .metric = "redirected", .per_cpu = true },
	{ ARRAY(passed, CPUSTEER_PASS_REASONS, pass_reason_name), .group = COUNTER_PASSED,
	  .unit = "packets", .help = "packets passed to the stack of the receiving CPU, by reason",
	  .title = "PASSED", .json_key = "pass", .json_total_key = "pass_reasons",
	  .metric = "passed", .label = "reason" },
	{ ARRAY(errors, CPUSTEER_ERRORS, error_name), .group = COUNTER_ERROR, .unit = "packets",
	  .help = "packets passed to the stack of the receiving CPU because steering failed, by error",
	  .title = "ERRORS (passed)", .json_key = "errors", .json_total_key = "errors",
	  .metric = "error", .label = "error" },
	{ ARRAY(inner_steered, CPUSTEER_TUNNELS, tunnel_name), .group = COUNTER_NOTE,
	  .unit = "packets",
	  .help = "tunnelled packets steered by their inner flow, or GTP-U by its tunnel "
		  "(load --inner), by tunnel",
	  .title = "INNER FLOW STEERED", .json_key = "inner_steered",
	  .json_total_key = "inner_steered", .status = "inner steered", .shown = SHOWN_WITH_INNER,
	  .metric = "inner_steered", .label = "tunnel" },
	{ ARRAY(inner_fallback, CPUSTEER_INNER_FALLBACKS, inner_fallback_name),
	  .group = COUNTER_NOTE, .unit = "packets",
	  .help = "tunnelled packets steered by their outer flow after all, by reason",
	  .title = "OUTER FLOW STEERED (tunnel)", .json_key = "inner_fallback",
	  .json_total_key = "inner_fallback", .status = "outer fallback",
	  .shown = SHOWN_WITH_INNER, .metric = "inner_fallback", .label = "reason" },
	{ ARRAY(tunnel_fallback, CPUSTEER_TUNNELS, tunnel_name), .group = COUNTER_NOTE,
	  .unit = "packets",
	  .help = "tunnelled packets steered by their outer flow after all, by tunnel",
	  .title = "OUTER FLOW STEERED (by tunnel)", .json_key = "tunnel_fallback",
	  .json_total_key = "tunnel_fallback", .status = "outer fallback by tunnel",
	  .shown = SHOWN_WITH_INNER, .metric = "tunnel_fallback", .label = "tunnel" },
	{ ARRAY(nic_hash, CPUSTEER_NIC_HASH_OUTCOMES, nic_hash_name), .group = COUNTER_NOTE,
	  .unit = "packets", .help = "with --hash nic, where each packet's hash came from",
	  .title = "NIC HASH (--hash nic)", .json_key = "nic_hash", .json_total_key = "nic_hash",
	  .status = "nic hash", .shown = SHOWN_WITH_NIC_HASH, .metric = "nic_hash",
	  .label = "source" },
	{ FIELD(seen_fragments), .n = 1, .group = COUNTER_NOTE, .unit = "packets",
	  .help = "IP fragments, steered by their addresses alone (only the first holds ports)",
	  .json_key = "seen_fragments", .json_total_key = "seen_fragments",
	  .status = "seen fragments", .metric = "fragment" },
	{ FIELD(seen_vlan), .n = 1, .group = COUNTER_NOTE, .unit = "packets",
	  .help = "packets that carried one or more whole VLAN tags, whatever became of them",
	  .json_key = "seen_vlan", .json_total_key = "seen_vlan", .status = "seen vlan",
	  .metric = "vlan" },
	{ FIELD(seen_l3_only), .n = 1, .group = COUNTER_NOTE, .unit = "packets",
	  .help = "IP packets of a protocol without ports that cpusteer reads (not TCP, UDP or "
		  "SCTP), steered by their addresses and protocol alone",
	  .json_key = "seen_l3_only", .json_total_key = "seen_l3_only", .status = "seen l3 only",
	  .metric = "l3_only" },
	{ FIELD(seen_pppoe), .n = 1, .group = COUNTER_NOTE, .unit = "packets",
	  .help = "packets that carried a whole PPPoE session header, whatever became of them",
	  .json_key = "seen_pppoe", .json_total_key = "seen_pppoe", .status = "seen pppoe",
	  .metric = "pppoe" },
	{ FIELD(seen_mpls), .n = 1, .group = COUNTER_NOTE, .unit = "packets",
	  .help = "packets that carried a whole MPLS label stack entry, whatever became of them",
	  .json_key = "seen_mpls", .json_total_key = "seen_mpls", .status = "seen mpls",
	  .metric = "mpls" },
	PATH_COUNTER(path_steered, "steered by their flow", "LAYER-2 PATH STEERED",
		     "path steered"),
	PATH_COUNTER(path_passed, "passed to the stack with a reason", "LAYER-2 PATH PASSED",
		     "path passed"),
};

const size_t ncounter_descs = sizeof(counter_descs) / sizeof(counter_descs[0]);

const char *counter_entry_name(const struct counter_desc *d, __u32 i)
{
	return d->entry_name ? d->entry_name(i) : d->field;
}

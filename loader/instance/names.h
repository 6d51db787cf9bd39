/* SPDX-License-Identifier: GPL-2.0 */
/* Names for counters, verdicts and settings, shared by every output. */
#ifndef CPUSTEER_NAMES_H
#define CPUSTEER_NAMES_H

#include "cpusteer.h"
#include "instance.h"
#include "name_table.h"

const char *pass_reason_name(__u32 reason);
const char *error_name(__u32 err);
/* enum cpusteer_tunnel as --inner spells it; "none" past the last. */
const char *tunnel_name(__u32 kind);
/* enum cpusteer_inner_fallback; "none" past the last. */
const char *inner_fallback_name(__u32 why);
/* With --hash nic, where a frame's hash came from: used (the NIC's), none
 * (the driver gave none), not_ip (the NIC's covers no IP header).
 */
const char *nic_hash_name(__u32 outcome);
/* enum cpusteer_path_kind: vlan, pppoe, mpls. */
const char *path_kind_name(__u32 kind);
const char *xdp_verdict_name(int verdict);
/* The settings' spellings, one table each for the option that takes
 * them and every output that shows them (name_table.h).
 */
extern const struct name_value hash_fn_names[];
extern const struct name_value remote_action_names[];
/* libxdp's enum xdp_attach_mode. */
extern const struct name_value xdp_mode_names[];
const char *hash_fn_name(__u32 fn);
const char *remote_action_name(enum remote_action remote);
const char *xdp_mode_name(int mode);
/* --kthread-sched's policies (enum cpusteer_kthread_policy). */
extern const struct name_value kthread_policy_names[];
/* A thread's policy (the kernel's SCHED_*) as chrt names it, lowercase:
 * other, fifo, rr, batch, idle, deadline, ext.
 */
const char *sched_policy_name(int policy);
const char *ip_proto_name(__u8 proto);

#endif

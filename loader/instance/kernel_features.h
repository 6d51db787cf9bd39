/* SPDX-License-Identifier: GPL-2.0 */
/* Probes of what the running kernel offers, so cpusteer degrades with a
 * message instead of failing where an older kernel lacks something.
 */
#ifndef CPUSTEER_KERNEL_FEATURES_H
#define CPUSTEER_KERNEL_FEATURES_H

#include <stdbool.h>
#include <linux/types.h>

struct btf;

/* What kernel_features_probe() found, as bits (the running kernel cannot
 * change under an instance, so load records them for status).
 */
#define KF_BTF (1u << 0)
#define KF_CPUMAP_GRO (1u << 1)
#define KF_TRACEPOINT(tp) (1u << (2 + (tp)))	/* enum tracepoint_id */
/* The top bits, clear of the tracepoints', so older records read alike. */
#define KF_FREPLACE (1u << 31)
#define KF_RX_HASH (1u << 30)

__u32 kernel_features_probe(void);

bool kernel_has_btf(void);
/* Whether this kernel's cpumap does GRO itself (upstream since 6.15):
 * kernel BTF gives struct bpf_cpu_map_entry a member named "gro". There
 * is no knob for it; GRO on the ingress device is what turns it off.
 */
bool kernel_cpumap_does_gro(void);
/* What the netdev generic netlink family offers for NAPI instances: the
 * family came in 6.3, NAPI_GET in 6.9, NAPI_SET in 6.13. Without NAPI_SET
 * the NAPI settings are only the device-wide ones of sysfs, which a
 * device in another namespace may not show.
 */
enum napi_netlink {
	NAPI_NETLINK_NONE,
	NAPI_NETLINK_GET,
	NAPI_NETLINK_SET,
};
enum napi_netlink kernel_napi_netlink(void);
/* Whether XDP programs can read the NIC's RX hash: vmlinux BTF has the
 * kfunc bpf_xdp_metadata_rx_hash (Linux 6.3 and later).
 */
bool kernel_has_rx_hash(void);
/* Whether an extension (freplace) program can be loaded against an XDP
 * program and attached to it, which libxdp's dispatcher is made of: 0, or
 * the kernel's negative errno (EPERM where it refuses extensions).
 */
int kernel_freplace_probe(void);
/* Whether tp_btf/NAME can attach: vmlinux BTF has btf_trace_NAME. */
bool kernel_has_tracepoint(const char *name);
/* The argument count of tracepoint NAME as tp_btf programs see it (the
 * kernel's private first parameter left out), or a negative errno.
 */
int kernel_tracepoint_args(const struct btf *vmlinux, const char *name);

#endif

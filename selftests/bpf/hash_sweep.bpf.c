// SPDX-License-Identifier: GPL-2.0
/* The flow hash of many flows in one BPF_PROG_TEST_RUN, for the
 * distribution tests (selftests/test_hash_distribution.c): user space
 * writes the flows and a configuration, one run hashes them all with
 * flow_hash() of bpf/hash.h, the steering program's own code, and user
 * space reads the hashes back. A frame per flow would cost a test run
 * each, a hundred times more than the hash.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "cpusteer.h"
#include "hash.h"

/* The flows of one structured set (65,536, a 16-bit field's worth). */
#define SWEEP_FLOWS 65536

/* Set by user space before each run: .bss is mapped into the test. */
struct cpusteer_config sweep_config;
__u32 sweep_count;
struct cpusteer_flow_key sweep_flows[SWEEP_FLOWS];
__u32 sweep_hashes[SWEEP_FLOWS];

/* The parser's flow of a flow key: flow_to_key (bpf/steer.h) undone. */
static __always_inline struct flow flow_of_key(const struct cpusteer_flow_key *k)
{
	struct flow f = { .proto = k->proto, .family = k->family };

	if (k->family == 6) {
		__builtin_memcpy(&f.addr[0], k->saddr, sizeof(k->saddr));
		__builtin_memcpy(&f.addr[2], k->daddr, sizeof(k->daddr));
	} else {
		f.addr[0] = k->saddr[0] | (__u64)k->daddr[0] << 32;
	}
	f.ports = bpf_htons(k->sport) | (__u32)bpf_htons(k->dport) << 16;
	return f;
}

static long hash_flow(__u32 i, void *unused)
{
	if (i >= SWEEP_FLOWS)
		return 1;
	sweep_hashes[i] = flow_hash(flow_of_key(&sweep_flows[i]), &sweep_config);
	return 0;
}

/* XDP only for BPF_PROG_TEST_RUN: the frame is not looked at. */
SEC("xdp")
int hash_sweep(struct xdp_md *ctx)
{
	bpf_loop(sweep_count, hash_flow, NULL, 0);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

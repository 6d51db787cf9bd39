/* SPDX-License-Identifier: GPL-2.0 */
/* SipHash-1-3's state and steps, shared: the programs hash flows with it
 * (--hash siphash13), and the loader draws the multilinear hash's key
 * words from the 128-bit --key with it, so that one --key gives the same
 * decisions under every family. docs/flow-hash.md has both uses.
 */
#ifndef CPUSTEER_SIPHASH_H
#define CPUSTEER_SIPHASH_H

#ifdef __BPF__
#include "vmlinux.h"
#else
#include <linux/types.h>
#endif

/* A call per round would cost the BPF program a call per round. */
#define SIP_INLINE static inline __attribute__((always_inline))

struct sip_state {
	__u64 v0, v1, v2, v3;
};

SIP_INLINE __u64 sip_rotl64(__u64 x, int bits)
{
	return (x << bits) | (x >> (64 - bits));
}

SIP_INLINE void sip_round(struct sip_state *s)
{
	s->v0 += s->v1;
	s->v1 = sip_rotl64(s->v1, 13) ^ s->v0;
	s->v0 = sip_rotl64(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = sip_rotl64(s->v3, 16) ^ s->v2;
	s->v0 += s->v3;
	s->v3 = sip_rotl64(s->v3, 21) ^ s->v0;
	s->v2 += s->v1;
	s->v1 = sip_rotl64(s->v1, 17) ^ s->v2;
	s->v2 = sip_rotl64(s->v2, 32);
}

SIP_INLINE void sip_init(struct sip_state *s, const __u64 key[2])
{
	s->v0 = key[0] ^ 0x736f6d6570736575ULL;
	s->v1 = key[1] ^ 0x646f72616e646f6dULL;
	s->v2 = key[0] ^ 0x6c7967656e657261ULL;
	s->v3 = key[1] ^ 0x7465646279746573ULL;
}

/* One 8-byte block, little-endian; the message's last block carries its
 * length in the top byte.
 */
SIP_INLINE void sip_absorb(struct sip_state *s, __u64 m)
{
	s->v3 ^= m;
	sip_round(s);
	s->v0 ^= m;
}

/* SipHash-1-3's three finishing rounds: the 64-bit result. */
SIP_INLINE __u64 sip_finish13(struct sip_state *s)
{
	s->v2 ^= 0xff;
	sip_round(s);
	sip_round(s);
	sip_round(s);
	return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

#endif /* CPUSTEER_SIPHASH_H */

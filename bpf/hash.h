/* SPDX-License-Identifier: GPL-2.0 */
/* Keyed flow hashes. SipHash-1-3 is the default: it is a keyed PRF, so a
 * sender who does not know the per-load key cannot choose flows that pile
 * onto one CPU; the kernel's own flow hash made the same move away from
 * jhash. jhash (Bob Jenkins' lookup3, keyed by its 32-bit initval only) is
 * kept as the cheaper alternative that `cpusteer bench --program` measures
 * against; docs/hash-choice.md has the figures.
 */
#ifndef CPUSTEER_HASH_H
#define CPUSTEER_HASH_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "cpusteer.h"

#define FLOW_KEY_WORDS64 (sizeof(struct cpusteer_flow_key) / sizeof(__u64))
#define FLOW_KEY_WORDS32 (sizeof(struct cpusteer_flow_key) / sizeof(__u32))

static __always_inline __u64 rotl64(__u64 x, int bits)
{
	return (x << bits) | (x >> (64 - bits));
}

static __always_inline __u32 rotl32(__u32 x, int bits)
{
	return (x << bits) | (x >> (32 - bits));
}

struct sip_state {
	__u64 v0, v1, v2, v3;
};

static __always_inline void sip_round(struct sip_state *s)
{
	s->v0 += s->v1;
	s->v1 = rotl64(s->v1, 13) ^ s->v0;
	s->v0 = rotl64(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl64(s->v3, 16) ^ s->v2;
	s->v0 += s->v3;
	s->v3 = rotl64(s->v3, 21) ^ s->v0;
	s->v2 += s->v1;
	s->v1 = rotl64(s->v1, 17) ^ s->v2;
	s->v2 = rotl64(s->v2, 32);
}

static __always_inline void sip_absorb(struct sip_state *s, __u64 m)
{
	s->v3 ^= m;
	sip_round(s);
	s->v0 ^= m;
}

static __always_inline void sip_init(struct sip_state *s, const __u64 key[2])
{
	s->v0 = key[0] ^ 0x736f6d6570736575ULL;
	s->v1 = key[1] ^ 0x646f72616e646f6dULL;
	s->v2 = key[0] ^ 0x6c7967656e657261ULL;
	s->v3 = key[1] ^ 0x7465646279746573ULL;
}

/* SipHash-1-3: one round per 8-byte word, three to finish. Messages here
 * are whole words, so the last block holds only the length byte. An IPv4
 * flow is packed into two words (addresses; ports, protocol, family)
 * rather than hashed as five mostly zero ones: three rounds fewer on the
 * most common packet. The family byte keeps the two layouts apart.
 */
static __always_inline __u32 siphash13_flow(const struct cpusteer_flow_key *fk,
					    const __u64 key[2])
{
	const __u64 *words = (const __u64 *)fk;
	__u64 ports = (__u64)fk->sport | (__u64)fk->dport << 16 |
		      (__u64)fk->proto << 32 | (__u64)fk->family << 40;
	struct sip_state s;
	__u64 out;
	int i;

	sip_init(&s, key);
	if (fk->family == 4) {
		sip_absorb(&s, (__u64)fk->saddr[0] | (__u64)fk->daddr[0] << 32);
		sip_absorb(&s, ports);
		sip_absorb(&s, 16ULL << 56);
	} else {
#pragma unroll
		for (i = 0; i < FLOW_KEY_WORDS64; i++)
			sip_absorb(&s, words[i]);
		sip_absorb(&s, (__u64)sizeof(*fk) << 56);
	}
	s.v2 ^= 0xff;
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	out = s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
	return (__u32)(out ^ (out >> 32));
}

static __always_inline void jhash_mix(__u32 *a, __u32 *b, __u32 *c)
{
	*a -= *c; *a ^= rotl32(*c, 4);  *c += *b;
	*b -= *a; *b ^= rotl32(*a, 6);  *a += *c;
	*c -= *b; *c ^= rotl32(*b, 8);  *b += *a;
	*a -= *c; *a ^= rotl32(*c, 16); *c += *b;
	*b -= *a; *b ^= rotl32(*a, 19); *a += *c;
	*c -= *b; *c ^= rotl32(*b, 4);  *b += *a;
}

static __always_inline void jhash_final(__u32 *a, __u32 *b, __u32 *c)
{
	*c ^= *b; *c -= rotl32(*b, 14);
	*a ^= *c; *a -= rotl32(*c, 11);
	*b ^= *a; *b -= rotl32(*a, 25);
	*c ^= *b; *c -= rotl32(*b, 16);
	*a ^= *c; *a -= rotl32(*c, 4);
	*b ^= *a; *b -= rotl32(*a, 14);
	*c ^= *b; *c -= rotl32(*b, 24);
}

/* lookup3's hashword over the ten 32-bit words of the key: three mixes of
 * three words each, then the tenth word and the final avalanche.
 */
static __always_inline __u32 jhash_flow(const struct cpusteer_flow_key *fk,
					const __u64 key[2])
{
	const __u32 *w = (const __u32 *)fk;
	__u32 initval = (__u32)(key[0] ^ (key[0] >> 32) ^ key[1] ^ (key[1] >> 32));
	__u32 a, b, c;
	int i;

	a = b = c = 0xdeadbeef + (FLOW_KEY_WORDS32 << 2) + initval;
#pragma unroll
	for (i = 0; i + 3 < FLOW_KEY_WORDS32; i += 3) {
		a += w[i];
		b += w[i + 1];
		c += w[i + 2];
		jhash_mix(&a, &b, &c);
	}
	a += w[FLOW_KEY_WORDS32 - 1];
	jhash_final(&a, &b, &c);
	return c;
}

static __always_inline bool addr_greater(const __u32 *x, const __u32 *y)
{
	int i;

#pragma unroll
	for (i = 0; i < 4; i++) {
		if (x[i] != y[i])
			return bpf_ntohl(x[i]) > bpf_ntohl(y[i]);
	}
	return false;
}

/* Symmetric mode puts the lower (address, port) end first, so that both
 * directions of a connection produce the same key.
 */
static __always_inline void flow_key_order_ends(struct cpusteer_flow_key *fk)
{
	__u32 tmp_addr[4];
	__u16 tmp_port;

	if (addr_greater(fk->saddr, fk->daddr) ||
	    (!addr_greater(fk->daddr, fk->saddr) && fk->sport > fk->dport)) {
		__builtin_memcpy(tmp_addr, fk->saddr, sizeof(tmp_addr));
		__builtin_memcpy(fk->saddr, fk->daddr, sizeof(tmp_addr));
		__builtin_memcpy(fk->daddr, tmp_addr, sizeof(tmp_addr));
		tmp_port = fk->sport;
		fk->sport = fk->dport;
		fk->dport = tmp_port;
	}
}

static __always_inline __u32 flow_hash(const struct cpusteer_flow_key *fk,
				       const struct cpusteer_config *cfg)
{
	if (cfg->hash_fn == CPUSTEER_HASH_JHASH)
		return jhash_flow(fk, cfg->key);
	return siphash13_flow(fk, cfg->key);
}

#endif /* CPUSTEER_HASH_H */

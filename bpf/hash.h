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
#include <bpf/bpf_endian.h>
#include "cpusteer.h"
#include "parse.h"

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


/* The hash message of a flow is its wire bytes: source address,
 * destination address, source port, destination port, protocol; 13 bytes
 * for IPv4, 37 for IPv6, ports zero when there are none. The lengths keep
 * the two families apart. docs/flow-hash.md has the format with worked
 * examples.
 */
#define FLOW_MSG_LEN_IPV4 13
#define FLOW_MSG_LEN_IPV6 37

/* The message's last SipHash block: its last five bytes (ports, then
 * protocol) and the message length in the top byte, as SipHash pads.
 */
static __always_inline __u64 flow_last_block(const struct flow *f)
{
	__u64 len = f->family == 6 ? FLOW_MSG_LEN_IPV6 : FLOW_MSG_LEN_IPV4;

	return (__u64)f->ports | (__u64)f->proto << 32 | len << 56;
}

/* SipHash-1-3: one round per 8-byte block, three to finish; the 64-bit
 * result is folded to 32 bits by XOR of its halves. The addresses are
 * whole blocks in both families, so the message needs no padding work.
 */
static __always_inline __u32 siphash13_flow(const struct flow *f, const __u64 key[2])
{
	struct sip_state s;
	__u64 out;

	sip_init(&s, key);
	sip_absorb(&s, f->addr[0]);
	if (f->family == 6) {
		sip_absorb(&s, f->addr[1]);
		sip_absorb(&s, f->addr[2]);
		sip_absorb(&s, f->addr[3]);
	}
	sip_absorb(&s, flow_last_block(f));
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

/* lookup3's hashword over the message as little-endian 32-bit words, the
 * last (the protocol) zero-padded: 4 words for IPv4, 10 for IPv6. The
 * initval is the XOR of the key's four 32-bit words.
 */
static __always_inline __u32 jhash_flow(const struct flow *f, const __u64 key[2])
{
	__u32 initval = (__u32)(key[0] ^ (key[0] >> 32) ^ key[1] ^ (key[1] >> 32));
	__u32 words = f->family == 6 ? 10 : 4;
	__u32 a, b, c;

	a = b = c = 0xdeadbeef + (words << 2) + initval;
	a += (__u32)f->addr[0];
	b += (__u32)(f->addr[0] >> 32);
	if (f->family == 6) {
		c += (__u32)f->addr[1];
		jhash_mix(&a, &b, &c);
		a += (__u32)(f->addr[1] >> 32);
		b += (__u32)f->addr[2];
		c += (__u32)(f->addr[2] >> 32);
		jhash_mix(&a, &b, &c);
		a += (__u32)f->addr[3];
		b += (__u32)(f->addr[3] >> 32);
	}
	c += f->ports;
	jhash_mix(&a, &b, &c);
	a += f->proto;
	jhash_final(&a, &b, &c);
	return c;
}

/* Symmetric mode makes the lower end the source, so that both directions
 * of a connection hash alike: addresses compare as big-endian numbers,
 * then ports as numbers when the addresses are equal.
 */
static __always_inline void flow_order_ends(struct flow *f)
{
	__u16 sport = bpf_ntohs((__u16)f->ports), dport = bpf_ntohs(f->ports >> 16);
	bool swap;

	if (f->family == 4) {
		__u32 src = bpf_ntohl((__u32)f->addr[0]);
		__u32 dst = bpf_ntohl((__u32)(f->addr[0] >> 32));

		swap = src > dst || (src == dst && sport > dport);
		if (swap)
			f->addr[0] = f->addr[0] >> 32 | f->addr[0] << 32;
	} else {
		__u64 src_hi = bpf_be64_to_cpu(f->addr[0]), src_lo = bpf_be64_to_cpu(f->addr[1]);
		__u64 dst_hi = bpf_be64_to_cpu(f->addr[2]), dst_lo = bpf_be64_to_cpu(f->addr[3]);
		__u64 hi = f->addr[0], lo = f->addr[1];

		swap = src_hi > dst_hi ||
		       (src_hi == dst_hi && (src_lo > dst_lo || (src_lo == dst_lo && sport > dport)));
		if (swap) {
			f->addr[0] = f->addr[2];
			f->addr[1] = f->addr[3];
			f->addr[2] = hi;
			f->addr[3] = lo;
		}
	}
	if (swap)
		f->ports = f->ports >> 16 | f->ports << 16;
}

/* The flow's hash under the configuration: `f` is a copy, so symmetric
 * ordering leaves the caller's flow as parsed.
 */
static __always_inline __u32 flow_hash(struct flow f, const struct cpusteer_config *cfg)
{
	if (cfg->symmetric)
		flow_order_ends(&f);
	if (cfg->hash_fn == CPUSTEER_HASH_JHASH)
		return jhash_flow(&f, cfg->key);
	return siphash13_flow(&f, cfg->key);
}

#endif /* CPUSTEER_HASH_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* Keyed flow hashes, both over the same message (docs/flow-hash.md):
 *  - multilinear, the default: a sum of key-weighted message words, a
 *    handful of independent multiplies. Pairwise independent for a sender
 *    who cannot see where flows land;
 *  - SipHash-1-3: a pseudo-random function, for a sender who can.
 * docs/hash-choice.md weighs the two with measured costs.
 */
#ifndef CPUSTEER_HASH_H
#define CPUSTEER_HASH_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "cpusteer.h"
#include "cpusteer_siphash.h"
#include "parse.h"

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
	out = sip_finish13(&s);
	return (__u32)(out ^ (out >> 32));
}

/* A fixed bijection of 32-bit values that moves every input bit into the
 * top bits (MurmurHash3's finalizer). Flows in an arithmetic progression
 * (ports in sequence, a swept prefix) give sums in one too, whose top bits
 * bunch into a few buckets for keys near a fraction of small denominator;
 * renaming the values breaks that pattern and keeps the pairwise
 * guarantee, since a bijection maps independent uniform values to
 * independent uniform values.
 */
static __always_inline __u32 spread_bits(__u32 h)
{
	__u64 x = h, low;

	/* In 64-bit registers, where only the low word is kept right: the
	 * multipliers are sign-extended, so that they fit an instruction's
	 * 32-bit immediate, and the low word is shifted right from the top,
	 * since a 32-bit shift of it cost a 64-bit mask. The barriers keep
	 * clang from folding either back into a 64-bit constant.
	 */
	x ^= x >> 16;
	x *= (__s32)0x85ebca6b;
	barrier_var(x);
	low = x << 32;
	barrier_var(low);
	x ^= low >> (32 + 13);
	x *= (__s32)0xc2b2ae35;
	barrier_var(x);
	low = x << 32;
	barrier_var(low);
	x ^= low >> (32 + 16);
	return x;
}

_Static_assert(CPUSTEER_MULTILINEAR_FOLDED == ((1u << 2) | (1u << 6) | (1u << 8)),
	       "multilinear_flow multiplies whole words by the folded key words");

/* The multilinear family (Lemire and Kaser, "Strongly universal string
 * hashing is fast", 2014): K0 + sum of K[i+1] * w[i] modulo 2^64, of which
 * the top 32 bits, through spread_bits(), are the hash. The words are the
 * message's 32-bit little-endian words with the length byte on top of the
 * last one, as in SipHash's last block; IPv4 uses K1..K4 and IPv6 K1..K10,
 * so the two families' messages never share a word vector. The products
 * do not wait on each other, unlike SipHash's rounds.
 */
static __always_inline __u32 multilinear_flow(const struct flow *f, const __u64 *k)
{
	__u64 tail = (__u64)f->proto | (__u64)(f->family == 6 ? FLOW_MSG_LEN_IPV6 :
							       FLOW_MSG_LEN_IPV4) << 24;
	/* k[2], k[6] and k[8] are stored folded (cpusteer.h): a whole word
	 * times the low half's multiplier gives the same sum.
	 */
	__u64 h = k[0] + k[1] * f->addr[0] + k[2] * (f->addr[0] >> 32);

	if (f->family == 6) {
		h += k[3] * (__u32)f->addr[1] + k[4] * (f->addr[1] >> 32) +
		     k[5] * f->addr[2] + k[6] * (f->addr[2] >> 32) +
		     k[7] * f->addr[3] + k[8] * (f->addr[3] >> 32) +
		     k[9] * (__u64)f->ports + k[10] * tail;
	} else {
		h += k[3] * (__u64)f->ports + k[4] * tail;
	}
	return spread_bits(h >> 32);
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

_Static_assert(__builtin_offsetof(struct cpusteer_config, symmetric) % 8 == 0 &&
	       __builtin_offsetof(struct cpusteer_config, rules) ==
	       __builtin_offsetof(struct cpusteer_config, symmetric) + 2 &&
	       __builtin_offsetof(struct cpusteer_config, hash_fn) ==
	       __builtin_offsetof(struct cpusteer_config, symmetric) + 4 &&
	       CPUSTEER_HASH_MULTILINEAR == 0,
	       "the default configuration is told by one 64-bit load");

/* Whether the configuration is the default one: multilinear, not
 * symmetric, no prefix rules. Read as one word, it costs a load and a
 * test instead of three of each, and the rules cost the default nothing.
 */
static __always_inline bool config_is_default(const struct cpusteer_config *cfg)
{
	return !*(const __u64 *)&cfg->symmetric;
}

/* The flow's hash under the configuration: `f` is a copy, so symmetric
 * ordering leaves the caller's flow as parsed. --hash nic comes here only
 * for frames the NIC gave no hash for, and takes the default.
 */
static __always_inline __u32 flow_hash(struct flow f, const struct cpusteer_config *cfg)
{
	if (config_is_default(cfg))
		return multilinear_flow(&f, cfg->multilinear_key);
	if (cfg->symmetric)
		flow_order_ends(&f);
	if (cfg->hash_fn == CPUSTEER_HASH_SIPHASH13)
		return siphash13_flow(&f, cfg->key);
	return multilinear_flow(&f, cfg->multilinear_key);
}

#endif /* CPUSTEER_HASH_H */

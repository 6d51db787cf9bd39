// SPDX-License-Identifier: GPL-2.0
/* The multilinear hash wants a random 64-bit word per message word; the
 * operator gives (or cpusteer draws) one 128-bit key. Key word i is
 * SipHash-1-3 under that key of the 8-byte little-endian number i: words
 * as good as random to whoever lacks the key, and the same ones again for
 * the same --key, so decisions stay reproducible (docs/flow-hash.md).
 */
#include "multilinear_key.h"
#include "cpusteer_siphash.h"

/* SipHash's last block of an 8-byte message: no bytes left, the length. */
#define EIGHT_BYTE_MESSAGE_END (8ULL << 56)

/* The program reads an address as 64-bit words a = lo + hi * 2^32. The
 * message gives lo and hi a multiplier each, K[i] and K[i+1], and
 *   K[i] * lo + K[i+1] * hi = K[i] * a + (K[i+1] - K[i] * 2^32) * hi
 * modulo 2^64: stored as K[i+1] - (K[i] << 32), the pair costs the program
 * one shift instead of three to cut out lo, for the same sum.
 */
void multilinear_key_fold(struct cpusteer_config *cfg)
{
	for (__u32 i = 1; i <= CPUSTEER_MULTILINEAR_WORDS; i++)
		if (CPUSTEER_MULTILINEAR_FOLDED & (1u << i))
			cfg->multilinear_key[i] -= cfg->multilinear_key[i - 1] << 32;
}

void multilinear_key_draw(struct cpusteer_config *cfg)
{
	for (__u64 i = 0; i <= CPUSTEER_MULTILINEAR_WORDS; i++) {
		struct sip_state s;

		sip_init(&s, cfg->key);
		sip_absorb(&s, i);
		sip_absorb(&s, EIGHT_BYTE_MESSAGE_END);
		cfg->multilinear_key[i] = sip_finish13(&s);
	}
	multilinear_key_fold(cfg);
}

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

void multilinear_key_draw(struct cpusteer_config *cfg)
{
	for (__u64 i = 0; i <= CPUSTEER_MULTILINEAR_WORDS; i++) {
		struct sip_state s;

		sip_init(&s, cfg->key);
		sip_absorb(&s, i);
		sip_absorb(&s, EIGHT_BYTE_MESSAGE_END);
		cfg->multilinear_key[i] = sip_finish13(&s);
	}
}

// SPDX-License-Identifier: GPL-2.0
#include "utf8.h"

int utf8_sequence(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return -1;	/* a continuation byte, or no lead byte at all */
	/* The second byte's range is narrower after these leads. */
	if (s[0] == 0xe0)
		lo = 0xa0;	/* below: overlong */
	else if (s[0] == 0xed)
		hi = 0x9f;	/* above: a surrogate, U+D800-U+DFFF */
	else if (s[0] == 0xf0)
		lo = 0x90;	/* below: overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f;	/* above: past U+10FFFF */
	for (i = 1; i < len; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi)
			return -i;
	return len;
}

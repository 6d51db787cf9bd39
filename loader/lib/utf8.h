/* SPDX-License-Identifier: GPL-2.0 */
/* Where UTF-8 is well formed, for the writers of text that must be UTF-8
 * (JSON, the exporter's labels) from names the system gives as bytes.
 */
#ifndef CPUSTEER_UTF8_H
#define CPUSTEER_UTF8_H

/* The length of the well-formed UTF-8 sequence that starts at `s`
 * (Unicode's table 3-7, as RFC 3629: no overlong form, no surrogate,
 * nothing above U+10FFFF), or, when none starts there, minus the length of
 * its maximal invalid subpart: the longest start of a well-formed sequence
 * there, and at least the one byte. The string's NUL ends a sequence cut
 * short like any other byte that cannot follow.
 */
int utf8_sequence(const unsigned char *s);

#endif

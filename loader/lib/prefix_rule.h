/* SPDX-License-Identifier: GPL-2.0 */
/* Prefix rules as text and as a set, apart from the maps that hold them
 * (rule_maps.h). A rule is written as a line of a rules file:
 *
 *   # subscribers on the access side
 *   dst 192.0.2.0/24     3
 *   src 2001:db8:40::/48 4-7
 *
 * the direction (src or dst: the address of the flow it matches), the
 * prefix, and the CPUs (a CPU list as --cpus takes it; with more than
 * one, the flow's hash picks among them). The prefix has no bits set past
 * its length, as ip-route(8) requires. `rule --list` prints the same
 * lines, so its output is a rules file.
 */
#ifndef CPUSTEER_PREFIX_RULE_H
#define CPUSTEER_PREFIX_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include "cpusteer.h"
#include "cpuset.h"

/* Longest lines a rules file may hold, and the largest file. */
#define RULE_LINE_MAX 256
#define RULES_FILE_MAX_BYTES (64u << 20)

struct prefix_rule {
	__u8 family;		/* 4 or 6 */
	__u8 direction;		/* CPUSTEER_RULE_SRC or CPUSTEER_RULE_DST */
	__u8 prefixlen;		/* 0-32 or 0-128 */
	__u8 addr[16];		/* network order; IPv4 in the first four */
	__u32 ncpus;
	__u32 cpu[CPUSTEER_MAX_RULE_CPUS];
};

/* A set of rules, in no order until rules_sort(). */
struct prefix_rules {
	struct prefix_rule *rule;
	size_t n, cap;
};

void rules_free(struct prefix_rules *rs);
/* Appends a copy of `r`; -ENOMEM. */
int rules_append(struct prefix_rules *rs, const struct prefix_rule *r);

/* Parses "DIR PREFIX CPUS" (`with_cpus`) or "DIR PREFIX" into *r. On a
 * bad rule, returns -EINVAL with what is wrong in `why`, or `why` empty
 * when a bad CPU list has been said on stderr already.
 */
int rule_parse(const char *text, bool with_cpus, struct prefix_rule *r, char *why, size_t len);

/* Every rule of a rules file's text (`len` bytes, NUL-terminated, cut
 * in place), in file order. A bad line, or a rule given twice (same
 * direction and prefix), is one line on stderr, "SHOWN:LINE: why".
 */
int rules_parse_text(char *text, size_t len, const char *shown, struct prefix_rules *rs);
/* The same for the file at `path` ("-": standard input), which must be
 * one only root or the caller can have written (config_file.h).
 */
int rules_read_file(const char *path, struct prefix_rules *rs);

/* Why a program would never read the rules: the floor, or the NIC's
 * hash; NULL when it reads them.
 */
const char *rules_unread_by(bool notouch, __u32 hash_fn);

/* Whether every CPU of the rules is one of `cpus`: if not, one line on
 * stderr naming the rule, and -EINVAL.
 */
int rules_check_cpus(const struct prefix_rules *rs, const struct cpuset *cpus);

/* "dst 192.0.2.0/24 3"; "dst 192.0.2.0/24" with `with_cpus` false. */
void rule_format(const struct prefix_rule *r, bool with_cpus, char *buf, size_t len);
/* "192.0.2.0/24" */
void rule_format_prefix(const struct prefix_rule *r, char *buf, size_t len);
const char *rule_direction_name(__u32 direction);

/* Orders by family, direction, prefix; then the same key is adjacent. */
void rules_sort(struct prefix_rules *rs);
/* The first rule of a sorted set that shares its key with the next one,
 * or NULL.
 */
const struct prefix_rule *rules_first_repeat(const struct prefix_rules *rs);

/* The CPUSTEER_RULES_* kind of one rule, and the kinds a set holds. */
__u16 rule_kind(const struct prefix_rule *r);
__u16 rules_kinds(const struct prefix_rules *rs);
/* The first rule that names a CPU outside `cpus`, with that CPU in *cpu. */
const struct prefix_rule *rules_outside(const struct prefix_rules *rs, const struct cpuset *cpus,
					__u32 *cpu);

#endif

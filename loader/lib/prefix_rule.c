// SPDX-License-Identifier: GPL-2.0
/* Prefix rules as text and as a set (prefix_rule.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config_file.h"
#include "log.h"
#include "prefix_rule.h"

void rules_free(struct prefix_rules *rs)
{
	free(rs->rule);
	*rs = (struct prefix_rules){ 0 };
}

int rules_append(struct prefix_rules *rs, const struct prefix_rule *r)
{
	struct prefix_rule *grown;
	size_t cap;

	if (rs->n == rs->cap) {
		cap = rs->cap ? 2 * rs->cap : 64;
		grown = realloc(rs->rule, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		rs->rule = grown;
		rs->cap = cap;
	}
	rs->rule[rs->n++] = *r;
	return 0;
}

const char *rule_direction_name(__u32 direction)
{
	return direction == CPUSTEER_RULE_SRC ? "src"
	       : direction == CPUSTEER_RULE_DST ? "dst" : "none";
}

/* Whether any bit of the address past the prefix is set. */
static bool has_host_bits(const struct prefix_rule *r)
{
	unsigned int bits = r->family == 4 ? 32 : 128, i;

	for (i = r->prefixlen; i < bits; i++)
		if (r->addr[i / 8] & (0x80 >> i % 8))
			return true;
	return false;
}

static int parse_prefix(const char *text, struct prefix_rule *r, char *why, size_t len)
{
	char addr[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long plen;

	if (strlen(text) >= sizeof(addr)) {
		snprintf(why, len, "'%.60s...' is no prefix", text);
		return -EINVAL;
	}
	strcpy(addr, text);
	slash = strchr(addr, '/');
	if (!slash) {
		snprintf(why, len, "prefix '%s' has no length: write it as ADDRESS/LENGTH", text);
		return -EINVAL;
	}
	*slash = '\0';
	memset(r->addr, 0, sizeof(r->addr));
	if (inet_pton(AF_INET, addr, r->addr) == 1)
		r->family = 4;
	else if (inet_pton(AF_INET6, addr, r->addr) == 1)
		r->family = 6;
	else {
		snprintf(why, len, "prefix '%s': '%s' is no IPv4 or IPv6 address", text, addr);
		return -EINVAL;
	}
	errno = 0;
	plen = strtoul(slash + 1, &end, 10);
	if (errno || end == slash + 1 || *end || slash[1] == '-' || slash[1] == '+' ||
	    plen > (r->family == 4 ? 32u : 128u)) {
		snprintf(why, len, "prefix '%s': the length must be 0 to %u", text,
			 r->family == 4 ? 32 : 128);
		return -EINVAL;
	}
	r->prefixlen = plen;
	if (has_host_bits(r)) {
		snprintf(why, len, "prefix '%s' has bits set past its length %lu", text, plen);
		return -EINVAL;
	}
	return 0;
}

static int cpu_cmp(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* The CPU list is checked by cpuset_parse, which says on stderr what is
 * wrong with it: `why` is then empty.
 */
static int parse_cpus(const char *text, struct prefix_rule *r, char *why, size_t len)
{
	struct cpuset set;
	__u32 i;

	if (cpuset_parse(&set, text)) {
		why[0] = '\0';
		return -EINVAL;
	}
	if (set.n > CPUSTEER_MAX_RULE_CPUS) {
		snprintf(why, len, "CPU list '%s' names %u CPUs, more than the %d of one rule",
			 text, set.n, CPUSTEER_MAX_RULE_CPUS);
		return -EINVAL;
	}
	r->ncpus = set.n;
	for (i = 0; i < set.n; i++)
		r->cpu[i] = set.cpu[i];
	/* In ascending order, as the spec picks among them: "7,3" is "3,7". */
	qsort(r->cpu, r->ncpus, sizeof(r->cpu[0]), cpu_cmp);
	return 0;
}

int rule_parse(const char *text, bool with_cpus, struct prefix_rule *r, char *why, size_t len)
{
	char copy[RULE_LINE_MAX], *word[3], *w, *save = NULL;
	int n = 0, want = with_cpus ? 3 : 2;

	memset(r, 0, sizeof(*r));
	if (strlen(text) >= sizeof(copy)) {
		snprintf(why, len, "a rule is at most %d characters", RULE_LINE_MAX - 1);
		return -EINVAL;
	}
	strcpy(copy, text);
	/* Every word counted: a word more is a bad rule, not one ignored. */
	for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (n++ < 3)
			word[n - 1] = w;
	if (n != want) {
		snprintf(why, len, "expected %s", with_cpus ? "src|dst PREFIX CPUS" : "src|dst PREFIX");
		return -EINVAL;
	}
	if (!strcmp(word[0], "src")) {
		r->direction = CPUSTEER_RULE_SRC;
	} else if (!strcmp(word[0], "dst")) {
		r->direction = CPUSTEER_RULE_DST;
	} else {
		snprintf(why, len, "'%.40s' is no direction: src or dst", word[0]);
		return -EINVAL;
	}
	if (parse_prefix(word[1], r, why, len))
		return -EINVAL;
	return with_cpus ? parse_cpus(word[2], r, why, len) : 0;
}

static int rules_cmp(const void *a, const void *b)
{
	const struct prefix_rule *x = a, *y = b;

	if (x->family != y->family)
		return x->family - y->family;
	if (x->direction != y->direction)
		return x->direction - y->direction;
	if (x->prefixlen != y->prefixlen)
		return x->prefixlen - y->prefixlen;
	return memcmp(x->addr, y->addr, sizeof(x->addr));
}

void rules_sort(struct prefix_rules *rs)
{
	if (rs->n)
		qsort(rs->rule, rs->n, sizeof(*rs->rule), rules_cmp);
}

const struct prefix_rule *rules_first_repeat(const struct prefix_rules *rs)
{
	size_t i;

	for (i = 1; i < rs->n; i++)
		if (!rules_cmp(&rs->rule[i - 1], &rs->rule[i]))
			return &rs->rule[i];
	return NULL;
}

/* Where a rule of the file was written: its line, by the rule's place
 * in file order.
 */
static unsigned int line_of(const unsigned int *lines, const struct prefix_rules *rs,
			    const struct prefix_rule *r)
{
	return lines[r - rs->rule];
}

/* A repeated rule, told by its two lines: sorted, the rules lose their
 * file order, so the check runs on a sorted copy of indexes.
 */
static int check_repeats(const struct prefix_rules *rs, const unsigned int *lines,
			 const char *shown)
{
	struct prefix_rules sorted = { 0 };
	const struct prefix_rule *dup;
	unsigned int first = 0, second = 0;
	char rule[RULE_LINE_MAX];
	size_t i;

	sorted.rule = malloc((rs->n ? rs->n : 1) * sizeof(*sorted.rule));
	if (!sorted.rule)
		return -ENOMEM;
	memcpy(sorted.rule, rs->rule, rs->n * sizeof(*sorted.rule));
	sorted.n = sorted.cap = rs->n;
	rules_sort(&sorted);
	dup = rules_first_repeat(&sorted);
	if (dup) {
		for (i = 0; i < rs->n; i++) {
			if (rules_cmp(&rs->rule[i], dup))
				continue;
			if (!first)
				first = line_of(lines, rs, &rs->rule[i]);
			else if (!second)
				second = line_of(lines, rs, &rs->rule[i]);
		}
		rule_format(dup, false, rule, sizeof(rule));
		log_err("%s:%u: rule %s is given again (first on line %u)", shown, second, rule,
			first);
	}
	free(sorted.rule);
	return dup ? -EINVAL : 0;
}

/* Each family's trie takes CPUSTEER_MAX_RULES; past it the kernel would
 * refuse the fill halfway.
 */
static int check_count(const struct prefix_rules *rs, const char *shown)
{
	size_t n[2] = { 0, 0 }, i;

	for (i = 0; i < rs->n; i++)
		n[rs->rule[i].family == 6]++;
	for (i = 0; i < 2; i++)
		if (n[i] > CPUSTEER_MAX_RULES) {
			log_err("%s: %zu IPv%d rules, more than the %d of one address family",
				shown, n[i], i ? 6 : 4, CPUSTEER_MAX_RULES);
			return -E2BIG;
		}
	return 0;
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

int rules_parse_text(char *text, size_t len, const char *shown, struct prefix_rules *rs)
{
	unsigned int line = 0, *lines = NULL, *grown;
	char *p = text, *end = text + len, *nl, *s, why[RULE_LINE_MAX + 64], where[300];
	struct prefix_rule r;
	int err = 0;

	while (p < end && !err) {
		nl = memchr(p, '\n', end - p);
		if (nl)
			*nl = '\0';
		line++;
		s = trim(p);
		p = nl ? nl + 1 : end;
		if (!*s || *s == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%u", shown, line);
		log_set_where(where);
		err = rule_parse(s, true, &r, why, sizeof(why));
		if (err && why[0])
			log_err("%s", why);
		log_set_where(NULL);
		if (err)
			break;
		if (rs->n == rs->cap) {
			grown = realloc(lines, (rs->cap ? 2 * rs->cap : 64) * sizeof(*lines));
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			lines = grown;
		}
		lines[rs->n] = line;
		err = rules_append(rs, &r);
	}
	if (!err)
		err = check_repeats(rs, lines, shown);
	if (!err)
		err = check_count(rs, shown);
	if (err == -ENOMEM)
		log_err("%s: out of memory at line %u", shown, line);
	free(lines);
	return err;
}

int rules_read_file(const char *path, struct prefix_rules *rs)
{
	bool from_stdin = !strcmp(path, "-");
	char shown[256], *text;
	size_t len;
	int err;

	if (from_stdin)
		snprintf(shown, sizeof(shown), "standard input");
	else
		log_printable(path, shown, sizeof(shown));
	text = from_stdin ? trusted_fd_read(STDIN_FILENO, shown, RULES_FILE_MAX_BYTES, &len)
			  : trusted_file_read(path, shown, RULES_FILE_MAX_BYTES, &len);
	if (!text)
		return -EINVAL;
	if (memchr(text, '\0', len)) {
		log_err("%s: a rules file is text: it holds a NUL byte", shown);
		free(text);
		return -EINVAL;
	}
	err = rules_parse_text(text, len, shown, rs);
	free(text);
	return err;
}

const char *rules_unread_by(bool notouch, __u32 hash_fn)
{
	if (notouch)
		return "the no-touch floor (--no-touch), which reads no address";
	if (hash_fn == CPUSTEER_HASH_NIC)
		return "--hash nic, which reads no address of a frame the NIC hashed";
	return NULL;
}

int rules_check_cpus(const struct prefix_rules *rs, const struct cpuset *cpus)
{
	char shown[RULE_LINE_MAX], list[256];
	const struct prefix_rule *r;
	__u32 cpu;

	r = rules_outside(rs, cpus, &cpu);
	if (!r)
		return 0;
	rule_format(r, true, shown, sizeof(shown));
	cpuset_format(cpus, list, sizeof(list));
	log_err("rule %s names CPU %u, which is not among --cpus %s", shown, cpu, list);
	return -EINVAL;
}

void rule_format_prefix(const struct prefix_rule *r, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	inet_ntop(r->family == 4 ? AF_INET : AF_INET6, r->addr, addr, sizeof(addr));
	snprintf(buf, len, "%s/%u", addr, r->prefixlen);
}

void rule_format(const struct prefix_rule *r, bool with_cpus, char *buf, size_t len)
{
	char prefix[INET6_ADDRSTRLEN + 8], cpus[RULE_LINE_MAX];
	struct cpuset set = { .n = r->ncpus };
	__u32 i;

	rule_format_prefix(r, prefix, sizeof(prefix));
	if (!with_cpus) {
		snprintf(buf, len, "%s %s", rule_direction_name(r->direction), prefix);
		return;
	}
	for (i = 0; i < r->ncpus && i < CPUSTEER_MAX_RULE_CPUS; i++)
		set.cpu[i] = r->cpu[i];
	cpuset_format(&set, cpus, sizeof(cpus));
	snprintf(buf, len, "%s %s %s", rule_direction_name(r->direction), prefix, cpus);
}

__u16 rule_kind(const struct prefix_rule *r)
{
	if (r->family == 4)
		return r->direction == CPUSTEER_RULE_SRC ? CPUSTEER_RULES_IPV4_SRC
							 : CPUSTEER_RULES_IPV4_DST;
	return r->direction == CPUSTEER_RULE_SRC ? CPUSTEER_RULES_IPV6_SRC
						 : CPUSTEER_RULES_IPV6_DST;
}

__u16 rules_kinds(const struct prefix_rules *rs)
{
	__u16 kinds = 0;
	size_t i;

	for (i = 0; i < rs->n; i++)
		kinds |= rule_kind(&rs->rule[i]);
	return kinds;
}

const struct prefix_rule *rules_outside(const struct prefix_rules *rs, const struct cpuset *cpus,
					__u32 *cpu)
{
	size_t i;
	__u32 c;

	for (i = 0; i < rs->n; i++)
		for (c = 0; c < rs->rule[i].ncpus; c++)
			if (!cpuset_contains(cpus, rs->rule[i].cpu[c])) {
				*cpu = rs->rule[i].cpu[c];
				return &rs->rule[i];
			}
	return NULL;
}

// SPDX-License-Identifier: GPL-2.0
/* An instance's prefix rules in its maps (rule_maps.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "rule_maps.h"

/* Either family's trie key, as bytes of the right size. */
union rule_key {
	struct cpusteer_rule_key_ipv4 v4;
	struct cpusteer_rule_key_ipv6 v6;
};

static int trie_fd(const struct steer_instance *in, int family, int copy)
{
	return family == 4 ? in->maps.rules_ipv4[copy] : in->maps.rules_ipv6[copy];
}

static void key_of(const struct prefix_rule *r, union rule_key *k)
{
	memset(k, 0, sizeof(*k));
	if (r->family == 4) {
		k->v4.prefixlen = 8 + r->prefixlen;
		k->v4.direction = r->direction;
		memcpy(k->v4.addr, r->addr, sizeof(k->v4.addr));
	} else {
		k->v6.prefixlen = 8 + r->prefixlen;
		k->v6.direction = r->direction;
		memcpy(k->v6.addr, r->addr, sizeof(k->v6.addr));
	}
}

static void value_of(const struct prefix_rule *r, struct cpusteer_rule *v)
{
	memset(v, 0, sizeof(*v));
	v->direction = r->direction;
	v->prefixlen = r->prefixlen;
	v->ncpus = r->ncpus;
	memcpy(v->cpu, r->cpu, sizeof(v->cpu));
}

/* The rule a trie entry holds; false for an entry no cpusteer wrote. */
static bool rule_of(int family, const union rule_key *k, const struct cpusteer_rule *v,
		    struct prefix_rule *r)
{
	unsigned int bits = family == 4 ? 32 : 128;
	__u32 plen = family == 4 ? k->v4.prefixlen : k->v6.prefixlen;

	memset(r, 0, sizeof(*r));
	r->family = family;
	r->direction = family == 4 ? k->v4.direction : k->v6.direction;
	memcpy(r->addr, family == 4 ? k->v4.addr : k->v6.addr, family == 4 ? 4 : 16);
	if (plen < 8 || plen - 8 > bits || plen - 8 != v->prefixlen || !v->ncpus ||
	    v->ncpus > CPUSTEER_MAX_RULE_CPUS || v->direction != r->direction)
		return false;
	r->prefixlen = plen - 8;
	r->ncpus = v->ncpus;
	memcpy(r->cpu, v->cpu, sizeof(r->cpu));
	return true;
}

static int read_trie(struct steer_instance *in, int family, int copy, struct prefix_rules *rs)
{
	int fd = trie_fd(in, family, copy), err;
	union rule_key k, next;
	struct cpusteer_rule v;
	struct prefix_rule r;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;	/* gone meanwhile: not ours to show */
		if (!rule_of(family, &k, &v, &r))
			return -EPROTO;
		err = rules_append(rs, &r);
		if (err)
			return err;
	}
	return errno == ENOENT ? 0 : -errno;
}

int rule_maps_read(struct steer_instance *in, int copy, struct prefix_rules *rs)
{
	int err = read_trie(in, 4, copy, rs);

	if (!err)
		err = read_trie(in, 6, copy, rs);
	if (err)
		log_err("cannot read the prefix rules: %s", strerror(-err));
	return err;
}

/* Deletes the first entry until none is left: a walk that deleted as it
 * went would lose its place.
 */
static int clear_trie(int fd)
{
	union rule_key k;

	while (!bpf_map_get_next_key(fd, NULL, &k))
		if (bpf_map_delete_elem(fd, &k) && errno != ENOENT)
			return -errno;
	return errno == ENOENT ? 0 : -errno;
}

bool rule_maps_empty(struct steer_instance *in, int copy)
{
	union rule_key k;

	return bpf_map_get_next_key(in->maps.rules_ipv4[copy], NULL, &k) && errno == ENOENT &&
	       bpf_map_get_next_key(in->maps.rules_ipv6[copy], NULL, &k) && errno == ENOENT;
}

int rule_maps_clear(struct steer_instance *in, int copy)
{
	int err = clear_trie(in->maps.rules_ipv4[copy]);

	if (!err)
		err = clear_trie(in->maps.rules_ipv6[copy]);
	if (err)
		log_err("cannot empty a copy of the prefix rules: %s", strerror(-err));
	return err;
}

static int update(struct steer_instance *in, int copy, const struct prefix_rule *r)
{
	struct cpusteer_rule v;
	union rule_key k;

	key_of(r, &k);
	value_of(r, &v);
	return bpf_map_update_elem(trie_fd(in, r->family, copy), &k, &v, BPF_ANY) ? -errno : 0;
}

int rule_maps_fill(struct steer_instance *in, int copy, const struct prefix_rules *rs)
{
	char shown[RULE_LINE_MAX];
	int err = rule_maps_clear(in, copy);
	size_t i;

	for (i = 0; i < rs->n && !err; i++) {
		err = update(in, copy, &rs->rule[i]);
		if (err) {
			rule_format(&rs->rule[i], true, shown, sizeof(shown));
			log_err("cannot add rule %s: %s", shown, strerror(-err));
		}
	}
	return err;
}

int rule_maps_put(struct steer_instance *in, int copy, const struct prefix_rule *r)
{
	char shown[RULE_LINE_MAX];
	int err = update(in, copy, r);

	if (err) {
		rule_format(r, true, shown, sizeof(shown));
		log_err("cannot add rule %s: %s", shown, strerror(-err));
	}
	return err;
}

int rule_maps_delete(struct steer_instance *in, int copy, const struct prefix_rule *r)
{
	union rule_key k;

	key_of(r, &k);
	return bpf_map_delete_elem(trie_fd(in, r->family, copy), &k) ? -errno : 0;
}

int rule_maps_get(struct steer_instance *in, int copy, struct prefix_rule *r)
{
	struct cpusteer_rule v;
	union rule_key k;

	key_of(r, &k);
	if (bpf_map_lookup_elem(trie_fd(in, r->family, copy), &k, &v))
		return -errno;
	/* An LPM lookup finds the longest prefix that holds the key's: the
	 * rule for exactly this one only when the lengths agree.
	 */
	if (v.prefixlen != r->prefixlen || v.direction != r->direction)
		return -ENOENT;
	return rule_of(r->family, &k, &v, r) ? 0 : -EPROTO;
}

int rule_maps_read_hits(struct steer_instance *in, __u64 *hits)
{
	int possible = libbpf_num_possible_cpus(), cpu, i;
	__u64 *per;

	if (possible <= 0)
		return -EINVAL;
	per = calloc(possible, sizeof(*per));
	if (!per)
		return -ENOMEM;
	for (cpu = 0; cpu < in->ncpus; cpu++) {
		__u32 key = cpu;

		hits[cpu] = 0;
		if (bpf_map_lookup_elem(in->maps.rule_hits, &key, per))
			continue;
		for (i = 0; i < possible; i++)
			hits[cpu] += per[i];
	}
	free(per);
	return 0;
}

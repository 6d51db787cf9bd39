/* SPDX-License-Identifier: GPL-2.0 */
/* An instance's prefix rules in its maps: each family's two trie copies
 * (cpusteer.h), and the hits per target CPU. Which copy is in force is
 * the configuration's to say (CPUSTEER_RULES_COPY_1); these functions
 * read and write whichever copy they are told.
 */
#ifndef CPUSTEER_RULE_MAPS_H
#define CPUSTEER_RULE_MAPS_H

#include "instance.h"
#include "prefix_rule.h"

/* The copy a configuration's `rules` puts in force, and the other. */
static inline int rules_copy_in_force(__u16 rules)
{
	return rules & CPUSTEER_RULES_COPY_1 ? 1 : 0;
}

/* Appends every rule of copy `copy` to *rs. */
int rule_maps_read(struct steer_instance *in, int copy, struct prefix_rules *rs);
/* Whether neither trie of copy `copy` holds a rule; a trie that cannot
 * be read is taken to hold some, so that its kinds stay looked up.
 */
bool rule_maps_empty(struct steer_instance *in, int copy);
/* Empties copy `copy`. */
int rule_maps_clear(struct steer_instance *in, int copy);
/* Empties copy `copy`, then writes every rule of `rs` into it. */
int rule_maps_fill(struct steer_instance *in, int copy, const struct prefix_rules *rs);
/* Adds `r` to copy `copy`, or gives its prefix r's CPUs: one update, which
 * a packet sees whole or not at all.
 */
int rule_maps_put(struct steer_instance *in, int copy, const struct prefix_rule *r);
/* Removes the rule with r's key from copy `copy`; -ENOENT when none. */
int rule_maps_delete(struct steer_instance *in, int copy, const struct prefix_rule *r);
/* Reads the rule with r's key from copy `copy` into *r; -ENOENT. */
int rule_maps_get(struct steer_instance *in, int copy, struct prefix_rule *r);

/* Frames a rule sent towards each CPU, summed over the receiving CPUs:
 * in->ncpus values.
 */
int rule_maps_read_hits(struct steer_instance *in, __u64 *hits);

#endif

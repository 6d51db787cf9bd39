// SPDX-License-Identifier: GPL-2.0
/* Changes to the prefix rules of a running instance (rule_change.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "change.h"
#include "log.h"
#include "rule_change.h"
#include "rule_maps.h"

static int live_rules(struct steer_instance *in, __u16 *rules)
{
	struct cpusteer_config cfg;

	if (instance_read_config(in, &cfg)) {
		log_err("cannot read the live configuration: %s", strerror(errno));
		return -EIO;
	}
	*rules = cfg.rules;
	return 0;
}

int rule_change_read_of(struct steer_instance *in, __u16 rules, struct prefix_rules *rs)
{
	int err = rules ? rule_maps_read(in, rules_copy_in_force(rules), rs) : 0;

	if (!err)
		rules_sort(rs);
	return err;
}

int rule_change_read(struct steer_instance *in, struct prefix_rules *rs)
{
	__u16 rules;
	int err = live_rules(in, &rules);

	return err ? err : rule_change_read_of(in, rules, rs);
}

int rule_change_replace(const struct instance_dir *d, struct steer_instance *in,
			const struct prefix_rules *rs)
{
	__u16 rules, next;
	int err = live_rules(in, &rules), target;

	if (err)
		return err;
	/* With no rules in force, neither copy is read: copy 0 it is. */
	target = rules ? !rules_copy_in_force(rules) : 0;
	err = rule_maps_fill(in, target, rs);
	next = rs->n ? rules_kinds(rs) | (target ? CPUSTEER_RULES_COPY_1 : 0) : 0;
	if (!err)
		err = change_rules_config(d, in, next);
	/* What is not in force now is emptied; a kill before leaves it for
	 * the next change, which empties a copy before it fills it.
	 */
	if (err) {
		/* Unless the configuration moved to it after all (a failure
		 * after the flip): then it is the rules in force.
		 */
		if (!live_rules(in, &rules) && (!rules || rules_copy_in_force(rules) != target))
			rule_maps_clear(in, target);
		return err;
	}
	return rule_maps_clear(in, !target);
}

int rule_change_put(const struct instance_dir *d, struct steer_instance *in,
		    const struct prefix_rule *r, struct prefix_rule *was, bool *replaced)
{
	__u16 rules, kind = rule_kind(r);
	int err = live_rules(in, &rules), copy;

	*replaced = false;
	if (err)
		return err;
	if (!rules) {
		struct prefix_rules one = { .rule = (struct prefix_rule *)r, .n = 1 };

		return rule_change_replace(d, in, &one);
	}
	copy = rules_copy_in_force(rules);
	*was = *r;
	*replaced = !rule_maps_get(in, copy, was);
	/* The kind is looked up before the rule is there to find. */
	if (!(rules & kind))
		err = change_rules_config(d, in, rules | kind);
	return err ? err : rule_maps_put(in, copy, r);
}

int rule_change_delete(const struct instance_dir *d, struct steer_instance *in,
		       const struct prefix_rule *r)
{
	__u16 rules;
	int err = live_rules(in, &rules), copy;

	if (err)
		return err;
	if (!rules)
		return -ENOENT;
	/* An LPM trie deletes the entry of exactly the key's length. */
	copy = rules_copy_in_force(rules);
	err = rule_maps_delete(in, copy, r);
	if (err && err != -ENOENT)
		log_err("cannot remove a rule: %s", strerror(-err));
	if (err)
		return err;
	/* The last rule gone, the default path is the frames' again. A kind
	 * that only some rules had is still looked up, in vain, until the
	 * next --replace.
	 */
	return rule_maps_empty(in, copy) ? change_rules_config(d, in, 0) : 0;
}

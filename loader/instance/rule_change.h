/* SPDX-License-Identifier: GPL-2.0 */
/* Changes to the prefix rules of a running instance, on the change
 * protocol (change.h): called with the instance's folder open and locked
 * and signals deferred. The configuration looks up a superset of the
 * kinds of rule the copy in force holds, so every step leaves the
 * packets the old rules or the new ones:
 *  - a new set of rules fills the copy not in force, then the
 *    configuration moves to it, then the old copy is emptied;
 *  - one rule is added, changed or removed in place, a single update of
 *    the copy in force; when its kind is new, the configuration first
 *    moves to one that looks it up.
 */
#ifndef CPUSTEER_RULE_CHANGE_H
#define CPUSTEER_RULE_CHANGE_H

#include "instance.h"
#include "pin_tree.h"
#include "prefix_rule.h"

/* Makes `rs` (checked: its CPUs the instance's, no key twice) the
 * instance's rules.
 */
int rule_change_replace(const struct instance_dir *d, struct steer_instance *in,
			const struct prefix_rules *rs);
/* Adds `r`, or gives its key r's CPUs; *was gets the rule it replaced,
 * and *replaced says whether there was one.
 */
int rule_change_put(const struct instance_dir *d, struct steer_instance *in,
		    const struct prefix_rule *r, struct prefix_rule *was, bool *replaced);
/* Removes the rule with r's key; -ENOENT, silently, when there is none;
 * any other failure with its line.
 */
int rule_change_delete(const struct instance_dir *d, struct steer_instance *in,
		       const struct prefix_rule *r);
/* The rules in force, sorted. */
int rule_change_read(struct steer_instance *in, struct prefix_rules *rs);
/* The same for the copy a configuration's `rules` names (none for 0):
 * the record's, which after a killed change is not yet the live one.
 */
int rule_change_read_of(struct steer_instance *in, __u16 rules, struct prefix_rules *rs);

#endif

// SPDX-License-Identifier: GPL-2.0
/* cpusteer rule: lists, adds, removes or replaces the prefix rules of a
 * running instance (prefix_rule.h for the form of a rule, rule_change.h
 * for how each change reaches the packets). One change per command,
 * under the instance's lock with signals deferred; with none, the rules
 * are listed in the form of a rules file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "change.h"
#include "commands.h"
#include "elsewhere.h"
#include "ifname.h"
#include "instance_state.h"
#include "json.h"
#include "lock.h"
#include "log.h"
#include "rule_change.h"

struct rule_opts {
	const char *add;
	const char *del;
	const char *replace;
	bool flush;
	bool json;
};

static const struct cli_option rule_options[] = {
	CLI_TEXT_OPTION("add", "RULE", struct rule_opts, add,
			"add RULE (\"src|dst PREFIX CPUS\", as a rules file's line),\n"
			"or give its prefix new CPUs", NULL),
	CLI_TEXT_OPTION("del", "RULE", struct rule_opts, del,
			"remove the rule \"src|dst PREFIX\"", NULL),
	CLI_TEXT_OPTION("replace", "FILE", struct rule_opts, replace,
			"make FILE's rules the only ones, all at once (-: standard\n"
			"input); an empty file removes every rule", NULL),
	CLI_FLAG("flush", struct rule_opts, flush, "remove every rule"),
	CLI_FLAG("json", struct rule_opts, json, "list the rules as one JSON object"),
	{}
};

static const struct rule_opts rule_start = { 0 };

static void list_text(const struct prefix_rules *rs)
{
	char line[RULE_LINE_MAX];
	size_t i;

	for (i = 0; i < rs->n; i++) {
		rule_format(&rs->rule[i], true, line, sizeof(line));
		printf("%s\n", line);
	}
}

static void list_json(const struct instance_dir *d, const struct prefix_rules *rs)
{
	char prefix[64];
	struct json j;
	size_t i;
	__u32 c;

	json_init(&j, stdout);
	json_object_open(&j, NULL);
	json_string(&j, "interface", d->ifname);
	json_array_open(&j, "rules");
	for (i = 0; i < rs->n; i++) {
		const struct prefix_rule *r = &rs->rule[i];

		rule_format_prefix(r, prefix, sizeof(prefix));
		json_object_open(&j, NULL);
		json_string(&j, "direction", rule_direction_name(r->direction));
		json_string(&j, "prefix", prefix);
		json_array_open(&j, "cpus");
		for (c = 0; c < r->ncpus; c++)
			json_uint(&j, NULL, r->cpu[c]);
		json_array_close(&j);
		json_object_close(&j);
	}
	json_array_close(&j);
	json_object_close(&j);
}

/* Rules steer only where the program reads addresses and the instance's
 * cpumap has entries for their CPUs.
 */
static int check_instance(const struct instance_dir *d, const struct cpusteer_instance_state *st)
{
	const char *unread;
	int err = change_check_running(d, st, "change the rules");

	if (err)
		return err;
	unread = rules_unread_by(st->notouch, st->cfg.hash_fn);
	if (unread) {
		log_err("cannot change the rules of %s: it runs %s", d->shown, unread);
		return -EINVAL;
	}
	return 0;
}

/* Every CPU a rule names must be one of the instance's. */
static int check_cpus(const struct instance_dir *d, const struct cpusteer_instance_state *st,
		      const struct prefix_rules *rs)
{
	char shown[RULE_LINE_MAX], list[256];
	const struct prefix_rule *r;
	struct cpuset cpus;
	__u32 cpu;

	state_get_cpus(st, &cpus);
	r = rules_outside(rs, &cpus, &cpu);
	if (!r)
		return 0;
	rule_format(r, true, shown, sizeof(shown));
	cpuset_format(&cpus, list, sizeof(list));
	log_err("rule %s names CPU %u, which is not one of %s's CPUs (%s); cpusteer set %s --cpus adds it",
		shown, cpu, d->shown, list, d->shown);
	return -EINVAL;
}

static int do_put(const struct instance_dir *d, struct steer_instance *in,
		  const struct cpusteer_instance_state *st, const struct prefix_rule *r)
{
	struct prefix_rules one = { .rule = (struct prefix_rule *)r, .n = 1 };
	char shown[RULE_LINE_MAX], before[RULE_LINE_MAX];
	struct prefix_rule was;
	bool replaced;
	int err = check_cpus(d, st, &one);

	if (!err)
		err = rule_change_put(d, in, r, &was, &replaced);
	if (err)
		return err;
	rule_format(r, true, shown, sizeof(shown));
	if (replaced) {
		rule_format(&was, true, before, sizeof(before));
		printf("cpusteer: %s: rule %s (was %s)\n", d->shown, shown, before);
	} else {
		printf("cpusteer: %s: rule %s added\n", d->shown, shown);
	}
	return 0;
}

static int do_delete(const struct instance_dir *d, struct steer_instance *in,
		     const struct prefix_rule *r)
{
	char shown[RULE_LINE_MAX];
	int err = rule_change_delete(d, in, r);

	rule_format(r, false, shown, sizeof(shown));
	if (err == -ENOENT)
		log_err("cannot remove rule %s from %s: it has no such rule (cpusteer rule %s lists them)",
			shown, d->shown, d->shown);
	else if (!err)
		printf("cpusteer: %s: rule %s removed\n", d->shown, shown);
	return err;
}

static int do_replace(const struct instance_dir *d, struct steer_instance *in,
		      const struct cpusteer_instance_state *st, struct prefix_rules *rs)
{
	int err = check_cpus(d, st, rs);

	if (!err)
		err = rule_change_replace(d, in, rs);
	if (!err)
		printf("cpusteer: %s: %zu rule%s in force\n", d->shown, rs->n, rs->n == 1 ? "" : "s");
	return err;
}

/* The change asked for, parsed before the instance is touched. */
struct rule_request {
	enum { LIST, PUT, DELETE, REPLACE } what;
	struct prefix_rule one;
	struct prefix_rules all;
};

static int change_locked(const struct instance_dir *d, struct steer_instance *in,
			 struct rule_request *q)
{
	struct cpusteer_instance_state st;
	int err = instance_read_state_to(in, &st, "change the rules of", d->shown);

	if (!err)
		err = check_instance(d, &st);
	if (err)
		return err;
	switch (q->what) {
	case PUT:
		return do_put(d, in, &st, &q->one);
	case DELETE:
		return do_delete(d, in, &q->one);
	default:
		return do_replace(d, in, &st, &q->all);
	}
}

static int run(const struct rule_opts *o, const char *ifname, struct rule_request *q)
{
	struct prefix_rules listed = { 0 };
	struct steer_instance in;
	struct instance_dir d;
	int err;

	err = elsewhere_open_here(&d, ifname, q->what == LIST ? DIR_LOCK_SH : DIR_LOCK_EX, "rule");
	if (!err)
		err = instance_open_pinned(&in, d.fd, d.shown);
	if (!err) {
		if (q->what == LIST) {
			err = rule_change_read(&in, &listed);
			if (!err && o->json)
				list_json(&d, &listed);
			else if (!err)
				list_text(&listed);
			rules_free(&listed);
		} else {
			err = change_locked(&d, &in, q);
		}
		instance_close(&in);
	}
	instance_dir_close(&d);
	if (q->what != LIST)
		signals_report_held("rule", err);
	return err;
}

/* One change at most, its text checked before any file is opened. */
static int parse_request(const struct rule_opts *o, struct rule_request *q)
{
	char why[RULE_LINE_MAX + 64];
	int given = !!o->add + !!o->del + !!o->replace + o->flush;

	if (given > 1) {
		log_err("rule: --add, --del, --replace and --flush are one change each: give one");
		return -EINVAL;
	}
	if (o->json && given) {
		log_err("rule: --json lists the rules; it goes with no change");
		return -EINVAL;
	}
	q->what = o->add ? PUT : o->del ? DELETE : o->replace || o->flush ? REPLACE : LIST;
	if ((o->add || o->del) && rule_parse(o->add ? o->add : o->del, !!o->add, &q->one, why,
					     sizeof(why))) {
		if (why[0])
			log_err("bad rule for --%s: %s", o->add ? "add" : "del", why);
		return -EINVAL;
	}
	return 0;
}

const struct cli_command rule_command = {
	.name = "rule",
	.summary = "list or change the prefix rules that pin flows to CPUs",
	.operands = "IFACE",
	.about = "A rule sends every flow whose source or destination address is in its\n"
		 "prefix to its CPU, or to one of its CPUs picked by the flow's hash,\n"
		 "ahead of the bucket table; the longest matching prefix wins, and of a\n"
		 "source and a destination rule of the same length, the destination's.\n"
		 "With no change given, lists the rules as a rules file's lines:\n"
		 "  dst 192.0.2.0/24 3\n"
		 "  src 2001:db8:40::/48 4-7\n",
	.groups = { { rule_options, 0 } },
	.start = &rule_start,
	.run = cmd_rule,
};

int cmd_rule(int argc, char **argv)
{
	struct rule_opts o = rule_start;
	struct rule_request q = { 0 };
	int operand, err;

	err = cli_parse(&rule_command, argc, argv, &o, &operand);
	if (err)
		return cli_exit_status(err);
	if (parse_request(&o, &q) || ifname_check(argv[operand]))
		return EXIT_USAGE;
	if (o.replace && rules_read_file(o.replace, &q.all))
		return EXIT_USAGE;
	if (require_root("rule")) {
		rules_free(&q.all);
		return EXIT_FAILURE;
	}
	err = run(&o, argv[operand], &q);
	rules_free(&q.all);
	return exit_code(err);
}

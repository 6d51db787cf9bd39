// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "elsewhere.h"
#include "lock.h"
#include "instance.h"
#include "invocation.h"
#include "log.h"
#include "netns.h"

int elsewhere_record(__u64 cookie, const char *ifname, struct cpusteer_instance_state *st)
{
	struct instance_dir d;
	int err;

	instance_dir_init_in(&d, ifname, cookie, 0);
	err = instance_dir_open(&d, 0);
	if (!err)
		err = instance_read_record(d.fd, st);
	instance_dir_close(&d);
	return err;
}

void elsewhere_describe(__u64 cookie, const char *ifname, struct elsewhere *e)
{
	struct cpusteer_instance_state st = { 0 };

	memset(e, 0, sizeof(*e));
	elsewhere_record(cookie, ifname, &st);
	e->found = true;
	e->netns_cookie = cookie;
	e->netns_ino = st.netns_ino;
	snprintf(e->ifname, sizeof(e->ifname), "%s", ifname);
	e->ns_gone = netns_locate(cookie, st.netns_ino, e->netns_path, sizeof(e->netns_path)) < 0;
	if (e->ns_gone)
		e->netns_path[0] = '\0';
}

struct search {
	const struct instance_dir *here;
	struct elsewhere *e;
};

static int look(__u64 cookie, const char *ifname, void *arg)
{
	struct search *s = arg;

	if (cookie == s->here->netns_cookie || strcmp(ifname, s->here->ifname))
		return 0;
	elsewhere_describe(cookie, ifname, s->e);
	return !s->e->ns_gone;
}

void elsewhere_find(const struct instance_dir *here, struct elsewhere *e)
{
	struct search s = { here, e };

	memset(e, 0, sizeof(*e));
	pin_tree_walk(look, &s);
}

struct owner_search {
	__u32 prog_id;
	struct elsewhere *e;
};

static int owns(__u64 cookie, const char *ifname, void *arg)
{
	struct owner_search *s = arg;
	struct cpusteer_instance_state st;

	if (elsewhere_record(cookie, ifname, &st) || st.prog_id != s->prog_id)
		return 0;
	elsewhere_describe(cookie, ifname, s->e);
	return 1;
}

int elsewhere_attached(const char *ifname, struct attached_prog *a, struct elsewhere *owner)
{
	struct owner_search s = { .e = owner };
	int ifindex = if_nametoindex(ifname);

	memset(owner, 0, sizeof(*owner));
	if (!ifindex || attached_prog_find(ifindex, 0, a))
		return -ENOENT;
	s.prog_id = a->prog_id;
	pin_tree_walk(owns, &s);
	return 0;
}

void elsewhere_report(const struct instance_dir *here, const struct elsewhere *e,
		      const char *command)
{
	char fallback[96], args[1024], hint[1280];

	if (!e->found) {
		log_err("cpusteer is not loaded on %s in this network namespace", here->shown);
		return;
	}
	if (e->ns_gone) {
		log_err("cpusteer is not loaded on %s in this network namespace; an instance of that name is left from a network namespace that no longer exists (cpusteer unload %s removes it)",
			here->shown, here->shown);
		return;
	}
	snprintf(fallback, sizeof(fallback), "%s %s", command, here->shown);
	invocation_format(fallback, args, sizeof(args));
	netns_hint(e->netns_path, args, hint, sizeof(hint));
	log_err("cpusteer is not loaded on %s in this network namespace, but in %s (%s)",
		here->shown, e->netns_path, hint);
}

void elsewhere_not_here(const struct instance_dir *here, const char *command)
{
	struct elsewhere e;

	elsewhere_find(here, &e);
	elsewhere_report(here, &e, command);
}

int elsewhere_open_here(struct instance_dir *d, const char *ifname, int lock,
			const char *command)
{
	int err;

	d->fd = -1;	/* for instance_dir_close, whatever fails */
	err = instance_dir_init(d, ifname);
	if (!err)
		err = bpffs_check();
	if (err)
		return err;
	if (lock == DIR_LOCK_EX)
		signals_defer();
	err = instance_dir_open(d, lock);
	if (err == -ENOENT || (!err && instance_dir_is_empty(d))) {
		elsewhere_not_here(d, command);
		err = -ENOENT;
	}
	return err;
}

// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "elsewhere.h"
#include "instance.h"
#include "log.h"
#include "netns.h"

struct search {
	const struct instance_dir *here;
	struct elsewhere *e;
};

static int look(__u64 cookie, const char *ifname, void *arg)
{
	struct search *s = arg;
	struct cpusteer_instance_state st;
	struct steer_instance in;
	struct instance_dir there;
	bool live;

	if (cookie == s->here->netns_cookie || strcmp(ifname, s->here->ifname))
		return 0;
	instance_dir_init_in(&there, ifname, cookie, 0);
	instance_init(&in);
	st.netns_ino = 0;
	if (!instance_dir_open(&there, 0) && !instance_open_record(&in, there.fd))
		instance_read_state(&in, &st);
	instance_close(&in);
	instance_dir_close(&there);
	live = !netns_locate(cookie, st.netns_ino, s->e->netns_path, sizeof(s->e->netns_path));
	s->e->found = true;
	s->e->ns_gone = !live;
	s->e->netns_cookie = cookie;
	s->e->netns_ino = st.netns_ino;
	return live;
}

void elsewhere_find(const struct instance_dir *here, struct elsewhere *e)
{
	struct search s = { here, e };

	memset(e, 0, sizeof(*e));
	pin_tree_walk(look, &s);
}

void elsewhere_report(const struct instance_dir *here, const struct elsewhere *e,
		      const char *command)
{
	char args[96], hint[512];

	if (!e->found) {
		log_err("cpusteer is not loaded on %s in this network namespace", here->shown);
		return;
	}
	if (e->ns_gone) {
		log_err("cpusteer is not loaded on %s in this network namespace; an instance of that name is left from a network namespace that no longer exists (cpusteer unload %s removes it)",
			here->shown, here->shown);
		return;
	}
	snprintf(args, sizeof(args), "%s %s", command, here->shown);
	netns_hint(e->netns_path, args, hint, sizeof(hint));
	log_err("cpusteer is not loaded on %s in this network namespace, but in %s (%s)",
		here->shown, e->netns_path, hint);
}

// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xdp/libxdp.h>
#include "attached_prog.h"
#include "log.h"

/* Program `*want` (an id), or with *want 0 one named like cpusteer's. */
static bool is_cpusteer(__u32 id, const char *name, void *want)
{
	__u32 prog_id = *(__u32 *)want;

	if (prog_id)
		return id == prog_id;
	return name && (!strcmp(name, "cpusteer_steer") || !strcmp(name, "cpusteer_notouch"));
}

static bool is_wanted(struct xdp_program *p, attached_prog_filter wanted, void *arg)
{
	return wanted(xdp_program__id(p), xdp_program__name(p), arg);
}

#define MAX_PROG_FDS 256

/* The descriptors of this process that point at a BPF program, up to
 * MAX_PROG_FDS; the number found, or -1 when there are more.
 */
static int prog_fds(int *fds)
{
	char path[sizeof("/proc/self/fd/") + sizeof(((struct dirent *)0)->d_name)], target[32];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	ssize_t len;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && n >= 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "anon_inode:bpf-prog"))
			continue;
		if (n == MAX_PROG_FDS)
			n = -1;
		else
			fds[n++] = atoi(e->d_name);
	}
	closedir(d);
	return n;
}

/* libxdp 1.3.1, Debian 12's, keeps open the descriptor it opens by id for
 * the device's program (fixed upstream in 2024: "libxdp: Fix bpf program
 * original file descriptor management"), one a call: the exporter, which
 * asks at every scrape, would run out of descriptors. Program descriptors
 * that were not open before the call and still are once libxdp let go of
 * everything are that one, and are closed here. Only this thread opens
 * BPF programs while it asks.
 */
static void close_leaked(const int *before, int nbefore)
{
	int after[MAX_PROG_FDS], nafter = prog_fds(after), i, j;

	for (i = 0; nbefore >= 0 && i < nafter; i++) {
		for (j = 0; j < nbefore && before[j] != after[i]; j++)
			;
		if (j == nbefore)
			close(after[i]);
	}
}

int attached_prog_find(int ifindex, __u32 prog_id, struct attached_prog *a)
{
	return attached_prog_find_by(ifindex, is_cpusteer, &prog_id, a);
}

int attached_prog_find_by(int ifindex, attached_prog_filter wanted, void *arg,
			  struct attached_prog *a)
{
	int before[MAX_PROG_FDS], nbefore = prog_fds(before);
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p = NULL;
	int err = -ENOENT;

	if (libxdp_get_error(mp)) {
		close_leaked(before, nbefore);
		return -ENOENT;
	}
	memset(a, 0, sizeof(*a));
	a->mode = xdp_multiprog__attach_mode(mp);
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && is_wanted(p, wanted, arg)) {
			a->prog_id = xdp_program__id(p);
			err = 0;
		}
	} else {
		a->dispatcher = true;
		while (err && (p = xdp_multiprog__next_prog(p, mp)))
			if (is_wanted(p, wanted, arg)) {
				a->prog_id = xdp_program__id(p);
				err = 0;
			}
	}
	xdp_multiprog__close(mp);
	close_leaked(before, nbefore);
	return err;
}

int attached_prog_detach(int ifindex, const struct attached_prog *a, const char *shown)
{
	struct xdp_program *xp = xdp_program__from_id(a->prog_id);
	int err = libxdp_get_error(xp);

	if (!err) {
		err = xdp_program__detach(xp, ifindex, a->mode, 0);
		xdp_program__close(xp);
	}
	if (err && err != -ENOENT)
		log_err("cannot detach program %u from %s: %s", a->prog_id, shown, strerror(-err));
	return err;
}

// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "log.h"
#include "netns.h"

int netns_self(__u64 *cookie, __u64 *ino)
{
	socklen_t len = sizeof(*cookie);
	struct stat sb;
	int fd, err = 0;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len))
		err = -errno;
	if (fd >= 0)
		close(fd);
	if (!err && stat(NETNS_SELF, &sb))
		err = -errno;
	if (err) {
		log_err("cannot identify this network namespace: %s (needs SO_NETNS_COOKIE, Linux 5.14)",
			strerror(-err));
		return err;
	}
	*ino = sb.st_ino;
	return 0;
}

struct ns_job {
	int nsfd;
	int (*fn)(void *arg);
	void *arg;
	int ret;
};

static void *ns_thread(void *p)
{
	struct ns_job *job = p;

	/* setns() moves only this thread; the process stays where it is. */
	job->ret = setns(job->nsfd, CLONE_NEWNET) ? -errno : job->fn(job->arg);
	return NULL;
}

int netns_run_in(int nsfd, int (*fn)(void *arg), void *arg)
{
	struct ns_job job = { .nsfd = nsfd, .fn = fn, .arg = arg };
	pthread_t t;
	int err;

	err = pthread_create(&t, NULL, ns_thread, &job);
	if (err)
		return -err;
	pthread_join(t, NULL);
	return job.ret;
}

static int cookie_here(void *arg)
{
	__u64 ino;

	return netns_self(arg, &ino);
}

/* Whether `path` enters the namespace with this cookie and inode. */
static bool path_is_netns(const char *path, __u64 cookie, __u64 ino)
{
	__u64 found = 0;
	struct stat sb;
	int fd, err;

	if (stat(path, &sb) || sb.st_ino != ino)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	err = netns_run_in(fd, cookie_here, &found);
	close(fd);
	return !err && found == cookie;
}

/* Calls fn(path) for every namespace file bind-mounted anywhere (where
 * `ip netns`, container runtimes and the like keep them), until fn
 * returns non-zero. The mount point is field 5 of /proc/self/mountinfo,
 * with spaces and the like written as octal escapes.
 */
static int walk_mounts(int (*fn)(const char *path, void *arg), void *arg)
{
	char line[1024], mnt[512], path[512];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	const char *p;
	size_t o;
	int ret = 0;

	while (f && !ret && fgets(line, sizeof(line), f)) {
		p = strstr(line, " - nsfs ");
		if (!p || sscanf(line, "%*s %*s %*s %*s %511s", mnt) != 1)
			continue;
		for (p = mnt, o = 0; *p && o + 1 < sizeof(path); o++) {
			if (p[0] == '\\' && strnlen(p, 4) == 4 && isdigit((unsigned char)p[1])) {
				path[o] = (char)strtol((char[]){ p[1], p[2], p[3], 0 }, NULL, 8);
				p += 4;
			} else {
				path[o] = *p++;
			}
		}
		path[o] = '\0';
		ret = fn(path, arg);
	}
	if (f)
		fclose(f);
	return ret;
}

/* Calls fn(path) for the names under /run/netns, every other bind-mounted
 * namespace, and /proc/PID/ns/net of every process, until fn returns
 * non-zero. A namespace none of these holds is gone, but for one kept
 * only by an open file descriptor.
 */
static int walk_paths(int (*fn)(const char *path, void *arg), void *arg)
{
	static const struct {
		const char *dir, *fmt;
		bool pids;
	} places[] = {
		{ "/run/netns", "/run/netns/%s", false },
		{ "/proc", "/proc/%s/ns/net", true },
	};
	char path[300];
	struct dirent *e;
	size_t i;
	int ret = 0;
	DIR *d;

	for (i = 0; i < sizeof(places) / sizeof(places[0]) && !ret; i++) {
		d = opendir(places[i].dir);
		while (d && !ret && (e = readdir(d))) {
			if (e->d_name[0] == '.' ||
			    (places[i].pids && !isdigit((unsigned char)e->d_name[0])))
				continue;
			snprintf(path, sizeof(path), places[i].fmt, e->d_name);
			ret = fn(path, arg);
		}
		if (d)
			closedir(d);
		if (!ret && !i)
			ret = walk_mounts(fn, arg);
	}
	return ret;
}

struct locate {
	__u64 cookie, ino;
	char *path;
	size_t len;
};

static int locate_one(const char *path, void *arg)
{
	struct locate *l = arg;

	if (!path_is_netns(path, l->cookie, l->ino))
		return 0;
	snprintf(l->path, l->len, "%s", path);
	return 1;
}

int netns_locate(__u64 cookie, __u64 ino, char *path, size_t len)
{
	struct locate l = { cookie, ino, path, len };

	return walk_paths(locate_one, &l) ? 0 : -ENOENT;
}

struct each {
	int (*fn)(const char *path, int nsfd, void *arg);
	void *arg;
	__u64 seen[512];
	size_t nseen;
};

static int each_one(const char *path, void *arg)
{
	struct each *w = arg;
	struct stat sb;
	size_t i;
	int fd, ret;

	if (stat(path, &sb))
		return 0;
	for (i = 0; i < w->nseen; i++)
		if (w->seen[i] == sb.st_ino)
			return 0;
	if (w->nseen < sizeof(w->seen) / sizeof(w->seen[0]))
		w->seen[w->nseen++] = sb.st_ino;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ret = w->fn(path, fd, w->arg);
	close(fd);
	return ret;
}

int netns_for_each(int (*fn)(const char *path, int nsfd, void *arg), void *arg,
		   bool include_self)
{
	struct each w = { .fn = fn, .arg = arg };
	struct stat self;
	int ret;

	if (include_self) {
		ret = each_one(NETNS_SELF, &w);
		if (ret)
			return ret;
	} else if (!stat(NETNS_SELF, &self)) {
		w.seen[w.nseen++] = self.st_ino;
	}
	return walk_paths(each_one, &w);
}

void netns_hint(const char *path, const char *args, char *out, size_t len)
{
	snprintf(out, len, "nsenter --net=%s cpusteer %s", path, args);
}

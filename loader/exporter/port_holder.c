// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include "log.h"
#include "port_holder.h"

#define TCP_LISTEN 0x0a		/* the state column of /proc/net/tcp */

struct endpoint {
	unsigned char addr[16];	/* 4 bytes for IPv4, 16 for IPv6 */
	size_t len;
	unsigned int port;
};

static bool all_zero(const struct endpoint *e)
{
	for (size_t i = 0; i < e->len; i++)
		if (e->addr[i])
			return false;
	return true;
}

/* Two sockets on one port collide on the same address, or when either
 * listens on every address (an IPv6 wildcard takes IPv4 too).
 */
static bool collides(const struct endpoint *a, const struct endpoint *b)
{
	return a->port == b->port &&
	       (all_zero(a) || all_zero(b) ||
		(a->len == b->len && !memcmp(a->addr, b->addr, a->len)));
}

/* The kernel prints an address as its 32-bit words, each as a number in
 * the machine's byte order: reading each word back as a number puts its
 * bytes where they were.
 */
static bool parse_addr(const char *hex, struct endpoint *e)
{
	size_t n = strlen(hex);
	char word[9] = "";

	if (n != 8 && n != 32)
		return false;
	e->len = n / 2;
	for (size_t i = 0; i < n; i += 8) {
		uint32_t w;

		memcpy(word, hex + i, 8);
		w = strtoul(word, NULL, 16);
		memcpy(e->addr + i / 2, &w, sizeof(w));
	}
	return true;
}

/* The inode of the listening socket in FILE (/proc/net/tcp or tcp6)
 * that collides with `want`; 0 when there is none.
 */
static unsigned long listening_inode(const char *file, const struct endpoint *want)
{
	FILE *f = fopen(file, "re");
	char line[512], hex[33];
	unsigned long inode, found = 0;
	unsigned int state;
	struct endpoint e;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %*u: %32[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %*u %*u %lu",
			   hex, &e.port, &state, &inode) == 4 &&
		    state == TCP_LISTEN && parse_addr(hex, &e) && collides(&e, want))
			found = inode;
	}
	fclose(f);
	return found;
}

/* Whether process `pid` has a descriptor of `link`. */
static bool holds(int proc, pid_t pid, const char *link)
{
	char path[64], target[64];
	struct dirent *d;
	bool found = false;
	DIR *fds;
	int fd;

	snprintf(path, sizeof(path), "%d/fd", (int)pid);
	fd = openat(proc, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	fds = fdopendir(fd);
	if (!fds) {
		close(fd);
		return false;
	}
	while (!found && (d = readdir(fds))) {
		ssize_t n = readlinkat(dirfd(fds), d->d_name, target, sizeof(target) - 1);

		if (n > 0) {
			target[n] = '\0';
			found = !strcmp(target, link);
		}
	}
	closedir(fds);
	return found;
}

static void read_comm(int proc, struct port_holder *h)
{
	char path[64], comm[32] = "";
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "%d/comm", (int)h->pid);
	fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
	}
	if (n > 0) {
		comm[n] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
	}
	log_printable(n > 0 ? comm : "?", h->comm, sizeof(h->comm));
}

/* The first process of /proc with a descriptor of socket `inode`. */
static int socket_holder(unsigned long inode, struct port_holder *h)
{
	int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = -ENOENT;
	char link[64];
	struct dirent *d;
	DIR *pids;

	if (proc < 0)
		return -ENOENT;
	pids = fdopendir(proc);
	if (!pids) {
		close(proc);
		return -ENOENT;
	}
	snprintf(link, sizeof(link), "socket:[%lu]", inode);
	while (err && (d = readdir(pids))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (!isdigit((unsigned char)d->d_name[0]) || *end || !holds(proc, pid, link))
			continue;
		h->pid = pid;
		read_comm(proc, h);
		err = 0;
	}
	closedir(pids);
	return err;
}

int port_holder_find(const struct sockaddr_storage *ss, struct port_holder *h)
{
	static const char *const tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	struct endpoint want = { 0 };
	unsigned long inode = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *v4 = (const struct sockaddr_in *)ss;

		want.len = sizeof(v4->sin_addr);
		memcpy(want.addr, &v4->sin_addr, want.len);
		want.port = ntohs(v4->sin_port);
	} else {
		const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)ss;

		want.len = sizeof(v6->sin6_addr);
		memcpy(want.addr, &v6->sin6_addr, want.len);
		want.port = ntohs(v6->sin6_port);
	}
	for (size_t i = 0; !inode && i < sizeof(tables) / sizeof(tables[0]); i++)
		inode = listening_inode(tables[i], &want);
	return inode ? socket_holder(inode, h) : -ENOENT;
}

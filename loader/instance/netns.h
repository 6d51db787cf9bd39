/* SPDX-License-Identifier: GPL-2.0 */
/* Network namespaces: which one this process is in, where another one
 * can be entered from, and running a function inside one.
 *
 * An instance belongs to the namespace its interface lives in. It is
 * recorded by the namespace's cookie, which the kernel never hands out
 * twice, not by its inode number, which a new namespace may get once the
 * old one is freed. The inode is kept beside it only to find the
 * namespace's name quickly.
 */
#ifndef CPUSTEER_NETNS_H
#define CPUSTEER_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* The cookie and inode of the calling thread's network namespace. The
 * cookie needs SO_NETNS_COOKIE (Linux 5.14; cpusteer's programs need 5.18
 * anyway); without it, one line and a negative errno.
 */
int netns_self(__u64 *cookie, __u64 *ino);

/* Runs fn(arg) on a thread of its own inside the network namespace of
 * `nsfd`, and returns what fn returned (or a negative errno when the
 * namespace cannot be entered). The caller's own namespace is untouched.
 */
int netns_run_in(int nsfd, int (*fn)(void *arg), void *arg);

/* Finds a path that enters the namespace with this cookie: a name under
 * /run/netns first, else /proc/PID/ns/net of a process inside it, each
 * checked by its cookie. `ino` narrows the search. 0 and the path in
 * `path`, or -ENOENT when no such namespace can be found from here (it is
 * gone, or nothing visible holds it).
 */
int netns_locate(__u64 cookie, __u64 ino, char *path, size_t len);

/* The path netns_for_each() gives for the caller's own namespace. */
#define NETNS_SELF "/proc/thread-self/ns/net"

/* Calls fn once for every network namespace that can be entered from
 * here (this one first with `include_self`, then named ones), with a path
 * to it and an open fd, until fn returns non-zero; returns that value.
 */
int netns_for_each(int (*fn)(const char *path, int nsfd, void *arg), void *arg,
		   bool include_self);

/* The command that runs `cpusteer ARGS` in the namespace at `path`, for
 * messages: "nsenter --net=PATH cpusteer ARGS".
 */
void netns_hint(const char *path, const char *args, char *out, size_t len);

#endif

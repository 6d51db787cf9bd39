/* SPDX-License-Identifier: GPL-2.0 */
/* Who holds a TCP port the exporter cannot listen on, so that the line
 * saying so names it: the listening socket's inode from
 * /proc/net/tcp and tcp6, then the process with a descriptor of that
 * socket in /proc/PID/fd. Both are the caller's view: its network
 * namespace's sockets, its PID namespace's processes.
 */
#ifndef CPUSTEER_PORT_HOLDER_H
#define CPUSTEER_PORT_HOLDER_H

#include <sys/socket.h>
#include <sys/types.h>

struct port_holder {
	pid_t pid;
	char comm[64];		/* /proc/PID/comm, made printable */
};

/* The process listening where a bind to `ss` collides: the same port on
 * the same address, or either address a wildcard. 0, or -ENOENT when no
 * such socket or no process holding it is in view.
 */
int port_holder_find(const struct sockaddr_storage *ss, struct port_holder *h);

#endif

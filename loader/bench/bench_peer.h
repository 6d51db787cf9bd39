/* SPDX-License-Identifier: GPL-2.0 */
/* The peer scenario's other steering program: xdp-tools' `xdp-bench
 * redirect-cpu` (Debian ships it), run on the receiver in one of its
 * program modes with the CPUs, queue size and remote action of cpusteer's
 * own cases. It is started, waited for until its cpumap holds every CPU,
 * and stopped with its program detached, even when it will not go.
 */
#ifndef CPUSTEER_BENCH_PEER_H
#define CPUSTEER_BENCH_PEER_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "testbed.h"

/* The longest xdp-bench may take to load, attach and fill its cpumap. */
#define PEER_READY_S 20
/* How long it gets to detach and exit after SIGINT. */
#define PEER_GRACE_S 3

struct peer_run {
	pid_t pid;		/* 0 once reaped */
	int out_fd, err_fd;	/* memfds of its stdout (its totals) and stderr */
	__u32 prog_id;		/* its program on the receiver */
	__u32 cpumap_id;
};

/* 0 when no XDP program runs on the receiver; -EBUSY after one line that
 * names the one that does.
 */
int peer_receiver_free(struct testbed *b);

/* `xdp-bench redirect-cpu --version` of the xdp-bench at PATH, its first
 * line into buf ("?" when it prints none).
 */
void peer_version(struct testbed *b, const char *path, char *buf, size_t len);

/* Starts the xdp-bench at PATH on the receiver in program mode MODE, with
 * --remote-action REMOTE over the CPUs of the --cpus list CPUS, and waits
 * until its program is attached and its cpumap holds every one of them.
 * Returns 0, -EINTR after Ctrl-C, or -ECHILD when it exits or does not get
 * there within PEER_READY_S: it is then stopped, and `why` says what
 * happened in one line (its exit status and the last line of its stderr).
 * Other errors are the bench's own.
 */
int peer_start(struct peer_run *p, struct testbed *b, const char *path, const char *mode,
	       const char *remote, const char *cpus, char *why, size_t len);

/* Stops it (SIGINT, on which xdp-bench detaches and prints its totals;
 * SIGKILL after PEER_GRACE_S) and detaches whatever program is left on
 * the receiver. *counted gets the frames xdp-bench says its program
 * received, a cross-check of the bench's own count (NAN when it did not
 * say). Returns 0; -ECHILD, with `why`, when it had exited before it was
 * told to; -EIO when a program stays attached.
 */
int peer_stop(struct peer_run *p, struct testbed *b, double *counted, char *why, size_t len);

#endif

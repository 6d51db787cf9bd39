/* SPDX-License-Identifier: GPL-2.0 */
/* The default test bed of bench and demo: a veth pair whose receiving end
 * sits in a network namespace of its own, created per run and removed
 * afterwards, also after Ctrl-C or an error.
 *
 *   host namespace                 namespace csb<pid>
 *   csbA<pid> 10.201.0.1/24 <----> csbB<pid> 10.201.0.2/24
 *   (generator transmits here)     (cpusteer loaded here)
 */
#ifndef CPUSTEER_TOPOLOGY_H
#define CPUSTEER_TOPOLOGY_H

#include <stdbool.h>
#include <linux/types.h>

struct topology {
	char netns[32];		/* name under /run/netns; empty: this namespace */
	char tx_if[16];		/* host side */
	char rx_if[16];		/* namespace side */
	int tx_ifindex;		/* in the host namespace */
	int rx_ifindex;		/* in the receiving namespace */
	__u8 tx_mac[6], rx_mac[6];
	bool created;
};

/* Creates namespace, veth pair and addresses, turns tx checksumming off on
 * the sender (a frame that crossed a cpumap has lost the "checksum left to
 * the device" mark a veth peer hands over, and the receiving stack would
 * drop it as a checksum error), and registers the topology for removal at
 * exit and on SIGINT/SIGTERM.
 */
int topology_create(struct topology *t);
/* Removes what topology_create made; safe to call twice. */
void topology_destroy(struct topology *t);
/* Runs argv (argv[0] a path) inside the receiving namespace, network
 * namespace only, so bpffs pins stay the host's. Returns the exit status,
 * or a negative errno. With `out` non-NULL, stdout is captured there.
 */
int topology_run_in_ns(const struct topology *t, char *const argv[], char *out, size_t out_len);
/* Runs argv in the background inside the namespace; returns its pid. */
int topology_spawn_in_ns(const struct topology *t, char *const argv[]);
/* The same with its stdout on `out_fd` and its stderr on `err_fd`, for a
 * child that must not outlive us: it gets SIGTERM should this process die
 * first (an XDP program left attached by a peer that nobody stops).
 */
int topology_spawn_tethered(const struct topology *t, char *const argv[], int out_fd, int err_fd);
/* Enters the receiving namespace (for netlink, sysfs via setns) and back. */
int topology_enter(const struct topology *t);
int topology_leave(void);

/* Reads fd to its end into out (NUL-terminated, at most len - 1 bytes
 * kept); returns the bytes kept.
 */
size_t read_bounded(int fd, char *out, size_t len);

/* The cpusteer that the bench drives: the one in this program's own
 * folder (that of the resolved /proc/self/exe), a regular file, it and
 * the folder owned by root or by this program's owner and writable by
 * nobody else, so that root never runs one found through PATH, or a
 * link or file another user could have put there. Found once; NULL
 * after one line saying why not.
 */
const char *cpusteer_beside(void);
/* Where program NAME is in $PATH (written to buf), or NULL when it is not
 * installed.
 */
const char *program_path(const char *name, char *buf, size_t len);

#endif

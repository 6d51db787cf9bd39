/* SPDX-License-Identifier: GPL-2.0 */
/* Who may hold one of the exporter's HTTP connections, and for how long.
 * Any local user can connect, and a client that sends its request a
 * header line at a time holds a connection (and its thread) for as long
 * as it likes. What such clients can take is bounded three ways:
 *
 *  - a deadline on each connection: GATE_REQUEST_SECONDS to send a whole
 *    request, from when it connected or had its previous answer, and
 *    GATE_ANSWER_SECONDS to take the answer; past it, it is closed;
 *  - GATE_PER_ADDRESS connections from one client address, so that one
 *    remote address cannot take every slot;
 *  - when every slot is taken (or every slot of the newcomer's address),
 *    the newcomer takes the place of the connection that has been
 *    waiting longest for its request, rather than being turned away.
 *
 * The last is what keeps scrapes answered: a local user can connect
 * from 127.0.0.1 as a local Prometheus does, and from any other
 * 127.0.0.0/8 address too, so addresses alone cannot tell them apart.
 * Prometheus sends its whole request at once, so it is waiting only for
 * the moment it takes to arrive, and the oldest idle connection is never
 * its own. A newcomer is turned away only when every slot is answering.
 *
 * Only the policy is here, with no socket and no lock: exporter_http.c
 * keeps a gate per server under its lock and shuts down the connections
 * it names.
 */
#ifndef CPUSTEER_EXPORTER_GATE_H
#define CPUSTEER_EXPORTER_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define GATE_SLOTS 64
#define GATE_PER_ADDRESS 16
#define GATE_REQUEST_SECONDS 5
#define GATE_ANSWER_SECONDS 10
/* Connections shut down still count until they are closed, which takes
 * a moment; beyond this many in all, newcomers wait in the backlog.
 */
#define GATE_TRACKED (2 * GATE_SLOTS)

struct gate_conn {
	int fd;
	unsigned char addr[17];	/* family, then the address */
	double since;		/* seconds: began waiting or answering */
	bool answering;		/* a whole request came; its answer is not sent */
	bool closing;		/* shut down: counts no more */
};

struct gate {
	struct gate_conn conn[GATE_TRACKED];
	size_t n;
};

/* Admits connection `fd` from `addr` at `now` (seconds, monotonic): 0,
 * with in *evict the connection it takes the place of (to shut down) or
 * -1; -EBUSY when it must be turned away.
 */
int gate_admit(struct gate *g, int fd, const struct sockaddr *addr, double now, int *evict);
/* A whole request came on `fd`. */
void gate_answering(struct gate *g, int fd, double now);
/* Its answer went out; a kept-alive connection waits for another. */
void gate_answered(struct gate *g, int fd, double now);
void gate_closed(struct gate *g, int fd);

/* Up to `max` connections past their deadline at `now`, into `fds`, and
 * marked closing; returns how many.
 */
size_t gate_expired(struct gate *g, double now, int *fds, size_t max);
/* When the next deadline falls (seconds, monotonic), or 0 for none. */
double gate_next_deadline(const struct gate *g);

#endif

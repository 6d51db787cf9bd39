// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include "exporter_gate.h"

/* An address as a key: its family, then its bytes. An IPv4 address
 * mapped into IPv6 (a dual-stack listener) is the IPv4 address.
 */
static void addr_key(const struct sockaddr *sa, unsigned char key[17])
{
	const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)sa;
	const struct sockaddr_in *v4 = (const struct sockaddr_in *)sa;

	memset(key, 0, 17);
	if (sa->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
		key[0] = AF_INET;
		memcpy(key + 1, &v6->sin6_addr.s6_addr[12], 4);
	} else if (sa->sa_family == AF_INET6) {
		key[0] = AF_INET6;
		memcpy(key + 1, &v6->sin6_addr, 16);
	} else if (sa->sa_family == AF_INET) {
		key[0] = AF_INET;
		memcpy(key + 1, &v4->sin_addr, 4);
	}
}

static struct gate_conn *find(struct gate *g, int fd)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->conn[i].fd == fd)
			return &g->conn[i];
	return NULL;
}

/* The connection waiting longest for its request, among those of `addr`
 * (NULL: among all), or NULL when every one is answering; and in *held
 * how many count.
 */
static struct gate_conn *longest_waiting(struct gate *g, const unsigned char *addr, size_t *held)
{
	struct gate_conn *oldest = NULL, *c;

	*held = 0;
	for (c = g->conn; c < g->conn + g->n; c++) {
		if (c->closing || (addr && memcmp(c->addr, addr, sizeof(c->addr))))
			continue;
		++*held;
		if (!c->answering && (!oldest || c->since < oldest->since))
			oldest = c;
	}
	return oldest;
}

int gate_admit(struct gate *g, int fd, const struct sockaddr *addr, double now, int *evict)
{
	struct gate_conn *its_oldest, *oldest, *victim = NULL, *c;
	unsigned char key[17];
	size_t its, all;
	bool full;

	*evict = -1;
	if (g->n == GATE_TRACKED)
		return -EBUSY;
	addr_key(addr, key);
	its_oldest = longest_waiting(g, key, &its);
	oldest = longest_waiting(g, NULL, &all);
	full = its >= GATE_PER_ADDRESS || all >= GATE_SLOTS;
	/* Its address's share full: one of its own goes. */
	if (full)
		victim = its >= GATE_PER_ADDRESS ? its_oldest : oldest;
	if (full && !victim)
		return -EBUSY;
	if (victim) {
		victim->closing = true;
		*evict = victim->fd;
	}
	c = &g->conn[g->n++];
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	memcpy(c->addr, key, sizeof(c->addr));
	c->since = now;
	return 0;
}

void gate_answering(struct gate *g, int fd, double now)
{
	struct gate_conn *c = find(g, fd);

	if (c && !c->answering) {
		c->answering = true;
		c->since = now;
	}
}

void gate_answered(struct gate *g, int fd, double now)
{
	struct gate_conn *c = find(g, fd);

	if (c) {
		c->answering = false;
		c->since = now;
	}
}

void gate_closed(struct gate *g, int fd)
{
	struct gate_conn *c = find(g, fd);

	if (c)
		*c = g->conn[--g->n];
}

static double deadline(const struct gate_conn *c)
{
	return c->since + (c->answering ? GATE_ANSWER_SECONDS : GATE_REQUEST_SECONDS);
}

size_t gate_expired(struct gate *g, double now, int *fds, size_t max)
{
	struct gate_conn *c;
	size_t n = 0;

	for (c = g->conn; c < g->conn + g->n && n < max; c++) {
		if (!c->closing && now >= deadline(c)) {
			c->closing = true;
			fds[n++] = c->fd;
		}
	}
	return n;
}

double gate_next_deadline(const struct gate *g)
{
	const struct gate_conn *c;
	double next = 0;

	for (c = g->conn; c < g->conn + g->n; c++)
		if (!c->closing && (!next || deadline(c) < next))
			next = deadline(c);
	return next;
}

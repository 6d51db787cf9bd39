// SPDX-License-Identifier: GPL-2.0
/* The exporter's gate (loader/exporter/exporter_gate.c): which
 * connection a newcomer takes the place of, when one is turned away, and
 * the deadlines; on made-up descriptors and addresses, at made-up times.
 *
 * Not in kernel runs: a policy in user space, the same on every kernel
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "exporter_gate.h"
#include "test_util.h"

static struct gate g;

static struct sockaddr_storage v4(const char *addr)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *a = (struct sockaddr_in *)&ss;

	a->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &a->sin_addr);
	return ss;
}

/* Admits fd from addr at time t; returns the fd it evicts, -1 for none,
 * or -EBUSY.
 */
static int admit(int fd, const char *addr, double t)
{
	struct sockaddr_storage ss = v4(addr);
	int evict, err = gate_admit(&g, fd, (struct sockaddr *)&ss, t, &evict);

	return err ? err : evict;
}

/* fds first..first+n-1 from addr, at times first.. on; all admitted
 * without an eviction.
 */
static void fill(int first, int n, const char *addr)
{
	int fd;

	for (fd = first; fd < first + n; fd++)
		ASSERT_EQ(admit(fd, addr, fd), -1, "admitted, no eviction");
}

static void test_an_address_has_its_share(void)
{
	memset(&g, 0, sizeof(g));
	fill(100, GATE_PER_ADDRESS, "10.0.0.1");
	ASSERT_EQ(admit(200, "10.0.0.1", 500), 100, "the newcomer takes the place of its oldest");
	ASSERT_EQ(admit(201, "10.0.0.1", 501), 101, "then of the next");
	ASSERT_EQ(admit(300, "10.0.0.2", 502), -1, "another address has room");
}

/* Every slot taken by idle connections: a newcomer takes the place of
 * the longest idle, whatever its address, and never of one answering.
 */
static void test_a_newcomer_takes_the_longest_idle(void)
{
	char addr[16];
	int i;

	memset(&g, 0, sizeof(g));
	for (i = 0; i < GATE_SLOTS / 4; i++) {
		snprintf(addr, sizeof(addr), "10.0.1.%d", i);
		fill(100 + 4 * i, 4, addr);
	}
	gate_answering(&g, 100, 1000);
	ASSERT_EQ(admit(500, "127.0.0.1", 1001), 101, "the longest idle, not the one answering");
	gate_answered(&g, 100, 1002);
	ASSERT_EQ(admit(501, "127.0.0.1", 1003), 102, "the next longest idle");
	gate_closed(&g, 101);
	gate_closed(&g, 102);
	ASSERT_EQ(admit(502, "127.0.0.1", 1004), 103, "still full: the next");
}

static void test_turned_away_only_when_all_are_answering(void)
{
	char addr[16];
	int fd;

	memset(&g, 0, sizeof(g));
	for (fd = 0; fd < GATE_SLOTS; fd++) {
		snprintf(addr, sizeof(addr), "10.0.2.%d", fd);
		ASSERT_EQ(admit(fd, addr, fd), -1, "admitted");
		gate_answering(&g, fd, fd);
	}
	ASSERT_EQ(admit(100, "127.0.0.1", 100), -EBUSY, "every slot answering: turned away");
	gate_closed(&g, 5);
	ASSERT_EQ(admit(101, "127.0.0.1", 101), -1, "a slot closed: admitted");

	memset(&g, 0, sizeof(g));
	for (fd = 0; fd < GATE_PER_ADDRESS; fd++) {
		ASSERT_EQ(admit(fd, "10.0.3.1", fd), -1, "admitted");
		gate_answering(&g, fd, fd);
	}
	ASSERT_EQ(admit(100, "10.0.3.1", 100), -EBUSY, "its share all answering: turned away");
}

/* A connection shut down counts no more, but stays tracked until it is
 * closed: beyond GATE_TRACKED of them, newcomers wait.
 */
static void test_closing_connections_are_bounded(void)
{
	int fd;

	memset(&g, 0, sizeof(g));
	fill(0, GATE_PER_ADDRESS, "10.0.4.1");
	for (fd = GATE_PER_ADDRESS; fd < GATE_TRACKED; fd++)
		ASSERT_EQ(admit(fd, "10.0.4.1", fd), fd - GATE_PER_ADDRESS, "evicts the oldest");
	ASSERT_EQ(admit(GATE_TRACKED, "10.0.4.1", 1000), -EBUSY, "none closed yet: turned away");
	gate_closed(&g, 0);
	ASSERT_EQ(admit(GATE_TRACKED, "10.0.4.1", 1001), GATE_TRACKED - GATE_PER_ADDRESS,
		  "one closed: admitted");
}

static void test_deadlines(void)
{
	int fds[4];

	memset(&g, 0, sizeof(g));
	ASSERT_EQ(admit(7, "10.0.5.1", 100), -1, "admitted");
	ASSERT_EQ(admit(8, "10.0.5.1", 101), -1, "admitted");
	ASSERT_TRUE(gate_next_deadline(&g) == 100 + GATE_REQUEST_SECONDS, "first deadline");
	gate_answering(&g, 8, 102);
	ASSERT_EQ(gate_expired(&g, 100 + GATE_REQUEST_SECONDS - 0.1, fds, 4), 0, "none yet");
	ASSERT_EQ(gate_expired(&g, 100 + GATE_REQUEST_SECONDS, fds, 4), 1, "the request deadline");
	ASSERT_EQ(fds[0], 7, "the idle one");
	ASSERT_TRUE(gate_next_deadline(&g) == 102 + GATE_ANSWER_SECONDS, "the answer's deadline");
	gate_answered(&g, 8, 103);
	ASSERT_TRUE(gate_next_deadline(&g) == 103 + GATE_REQUEST_SECONDS,
		    "kept alive: the next request's deadline");
	ASSERT_EQ(gate_expired(&g, 1000, fds, 4), 1, "it expires too");
	ASSERT_TRUE(gate_next_deadline(&g) == 0, "no deadline left");
}

/* A dual-stack listener sees IPv4 clients as ::ffff:a.b.c.d. */
static void test_mapped_ipv4_is_ipv4(void)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
	int evict;

	memset(&g, 0, sizeof(g));
	fill(0, GATE_PER_ADDRESS, "10.0.6.1");
	a->sin6_family = AF_INET6;
	inet_pton(AF_INET6, "::ffff:10.0.6.1", &a->sin6_addr);
	ASSERT_EQ(gate_admit(&g, 100, (struct sockaddr *)&ss, 100, &evict), 0, "admitted");
	ASSERT_EQ(evict, 0, "in the same share as 10.0.6.1");
}

static const struct tu_test tests[] = {
	TU_TEST(test_an_address_has_its_share),
	TU_TEST(test_a_newcomer_takes_the_longest_idle),
	TU_TEST(test_turned_away_only_when_all_are_answering),
	TU_TEST(test_closing_connections_are_bounded),
	TU_TEST(test_deadlines),
	TU_TEST(test_mapped_ipv4_is_ipv4),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}

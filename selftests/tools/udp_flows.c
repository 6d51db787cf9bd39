// SPDX-License-Identifier: GPL-2.0
/* udp_flows: a set of UDP flows between two addresses, for the network
 * namespace tests. Flow i is SRC:sport+i -> DST:dport+i, one socket per
 * flow on each side, IPv4 or IPv6 (taken from the addresses).
 *
 *   udp_flows recv FLOWS [--idle MS] [--max MS] [--expect N]
 *       binds DST:dport+i and connects to SRC:sport+i (the kernel records
 *       SO_INCOMING_CPU only on connected UDP sockets); prints "ready" once
 *       every socket is bound, then receives until --expect datagrams came,
 *       --max ms passed, SIGTERM/SIGINT, or, once SIGUSR1 said every sender
 *       is done, nothing came for --idle ms (default 1000). Idle time is not
 *       counted before SIGUSR1: on a slow machine a sender may start late
 *       or pause. Prints per flow the datagrams received and the
 *       SO_INCOMING_CPU of the last one (-1 when none came).
 *   udp_flows send FLOWS [--count N | --seconds S] [--gap US]
 *       binds SRC:sport+i, connects to DST:dport+i and sends rounds of one
 *       datagram per flow; prints how many were sent and how many failed.
 *   udp_flows pcap FLOWS --out FILE
 *       writes an Ethernet capture with one datagram per flow, the same
 *       5-tuples, for `cpusteer classify`.
 *
 *   FLOWS: --src ADDR --dst ADDR --sport PORT --dport PORT --flows N
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "capture.h"
#include "frame_builder.h"

#define MAX_FLOWS 1024
#define PAYLOAD 64

struct flows {
	int family;
	struct in6_addr src, dst;	/* IPv4 in the first 4 bytes */
	unsigned int sport, dport, n;
};

struct opts {
	struct flows f;
	const char *src, *dst, *out;
	long idle_ms, max_ms, expect, count, seconds, gap_us;
};

static volatile sig_atomic_t stop, senders_done;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_senders_done(int sig)
{
	(void)sig;
	senders_done = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "udp_flows: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fputs("usage: udp_flows recv|send|pcap --src ADDR --dst ADDR --sport P --dport P --flows N\n"
	      "       [--idle MS] [--max MS] [--expect N] [--count N] [--seconds S] [--gap US] [--out FILE]\n",
	      stderr);
	exit(2);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static long number(const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 0);

	if (!*arg || *end || v < 0)
		usage();
	return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "src", required_argument, NULL, 'S' },
		{ "dst", required_argument, NULL, 'D' },
		{ "sport", required_argument, NULL, 's' },
		{ "dport", required_argument, NULL, 'd' },
		{ "flows", required_argument, NULL, 'n' },
		{ "idle", required_argument, NULL, 'i' },
		{ "max", required_argument, NULL, 'm' },
		{ "expect", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 't' },
		{ "gap", required_argument, NULL, 'g' },
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, fam_src, fam_dst;

	memset(o, 0, sizeof(*o));
	o->idle_ms = 1000;
	o->max_ms = 30000;
	o->count = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'S': o->src = optarg; break;
		case 'D': o->dst = optarg; break;
		case 's': o->f.sport = number(optarg); break;
		case 'd': o->f.dport = number(optarg); break;
		case 'n': o->f.n = number(optarg); break;
		case 'i': o->idle_ms = number(optarg); break;
		case 'm': o->max_ms = number(optarg); break;
		case 'e': o->expect = number(optarg); break;
		case 'c': o->count = number(optarg); break;
		case 't': o->seconds = number(optarg); break;
		case 'g': o->gap_us = number(optarg); break;
		case 'o': o->out = optarg; break;
		default: usage();
		}
	}
	if (!o->src || !o->dst || !o->f.n || o->f.n > MAX_FLOWS ||
	    !o->f.sport || !o->f.dport || o->f.sport + o->f.n > 65536 ||
	    o->f.dport + o->f.n > 65536)
		usage();
	fam_src = strchr(o->src, ':') ? AF_INET6 : AF_INET;
	fam_dst = strchr(o->dst, ':') ? AF_INET6 : AF_INET;
	if (fam_src != fam_dst || inet_pton(fam_src, o->src, &o->f.src) != 1 ||
	    inet_pton(fam_dst, o->dst, &o->f.dst) != 1)
		usage();
	o->f.family = fam_src;
}

static socklen_t sockaddr_of(const struct flows *f, const struct in6_addr *addr,
			     unsigned int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (f->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, addr, 4);
		sin->sin_port = htons(port);
		return sizeof(*sin);
	}
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	sin6->sin6_family = AF_INET6;
	sin6->sin6_addr = *addr;
	sin6->sin6_port = htons(port);
	return sizeof(*sin6);
}

/* One socket bound to the local end of flow i and connected to its peer. */
static int flow_socket(const struct flows *f, unsigned int i, bool receiver)
{
	struct sockaddr_storage local, peer;
	socklen_t llen, plen;
	int fd, one = 1, rcvbuf = 4 << 20;

	if (receiver) {
		llen = sockaddr_of(f, &f->dst, f->dport + i, &local);
		plen = sockaddr_of(f, &f->src, f->sport + i, &peer);
	} else {
		llen = sockaddr_of(f, &f->src, f->sport + i, &local);
		plen = sockaddr_of(f, &f->dst, f->dport + i, &peer);
	}
	fd = socket(f->family, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* A deep queue, so a receiver that is slow to be scheduled on a
	 * busy 2-CPU machine does not lose datagrams to its socket.
	 */
	if (receiver && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&local, llen))
		die("bind");
	if (connect(fd, (struct sockaddr *)&peer, plen))
		die("connect");
	return fd;
}

static int do_recv(const struct opts *o)
{
	static struct pollfd pfd[MAX_FLOWS];
	static long received[MAX_FLOWS];
	static int cpu[MAX_FLOWS];
	const struct flows *f = &o->f;
	long total = 0, start, last = 0, done_at = 0;
	char buf[2048];
	unsigned int i;

	for (i = 0; i < f->n; i++) {
		pfd[i].fd = flow_socket(f, i, true);
		pfd[i].events = POLLIN;
		cpu[i] = -1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGUSR1, on_senders_done);
	printf("ready\n");
	fflush(stdout);
	start = now_ms();
	while (!stop) {
		long t = now_ms();
		int n;

		if (o->expect && total >= o->expect)
			break;
		if (senders_done && !done_at)
			done_at = t;
		if (t - start >= o->max_ms ||
		    (done_at && t - (last > done_at ? last : done_at) >= o->idle_ms))
			break;
		n = poll(pfd, f->n, 50);
		if (n < 0 && errno != EINTR)
			die("poll");
		for (i = 0; n > 0 && i < f->n; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			while (recv(pfd[i].fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0) {
				socklen_t len = sizeof(cpu[i]);

				received[i]++;
				total++;
				if (getsockopt(pfd[i].fd, SOL_SOCKET, SO_INCOMING_CPU, &cpu[i], &len))
					die("getsockopt SO_INCOMING_CPU");
			}
			last = now_ms();
		}
	}
	for (i = 0; i < f->n; i++)
		printf("flow %u sport %u dport %u received %ld cpu %d\n", i, f->sport + i,
		       f->dport + i, received[i], cpu[i]);
	printf("total %ld\n", total);
	return 0;
}

static int do_send(const struct opts *o)
{
	static int fds[MAX_FLOWS];
	const struct flows *f = &o->f;
	long sent = 0, failed = 0, round = 0, end = now_ms() + o->seconds * 1000;
	unsigned char payload[PAYLOAD] = {};
	struct timespec gap = { 0, o->gap_us * 1000 };
	unsigned int i;

	for (i = 0; i < f->n; i++)
		fds[i] = flow_socket(f, i, false);
	signal(SIGTERM, on_signal);
	while (!stop && (o->seconds ? now_ms() < end : round < o->count)) {
		for (i = 0; i < f->n; i++) {
			memcpy(payload, &i, sizeof(i));
			memcpy(payload + 4, &round, sizeof(round));
			if (send(fds[i], payload, sizeof(payload), 0) == sizeof(payload))
				sent++;
			else
				failed++;
			if (o->gap_us)
				nanosleep(&gap, NULL);
		}
		round++;
	}
	printf("sent %ld failed %ld\n", sent, failed);
	return failed ? 1 : 0;
}

/* Long enough for any frame pkt_build() may write (frame_builder.h). */
#define FRAME_CAP 512

static int do_pcap(const struct opts *o)
{
	unsigned char payload[PAYLOAD] = {};
	__u8 frame[FRAME_CAP];
	struct capture *out;
	struct pkt_spec s;
	unsigned int i;
	int err;

	if (!o->out)
		usage();
	out = capture_open_write(o->out);
	if (!out)
		exit(1);
	for (i = 0; i < o->f.n; i++) {
		pkt_spec_init(&s, o->f.family == AF_INET ? 4 : 6, IPPROTO_UDP);
		memcpy(s.saddr, &o->f.src, sizeof(s.saddr));
		memcpy(s.daddr, &o->f.dst, sizeof(s.daddr));
		s.sport = o->f.sport + i;
		s.dport = o->f.dport + i;
		/* What `send` puts first in flow i's datagrams, and an IP ID per
		 * flow, so a frame of the capture names its flow.
		 */
		s.ip_id = i;
		memcpy(payload, &i, sizeof(i));
		s.payload = payload;
		s.payload_len = sizeof(payload);
		capture_write(out, frame, pkt_build(&s, frame, sizeof(frame)));
	}
	err = capture_close(out);
	if (err) {
		errno = -err;
		die(o->out);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	const char *mode;

	if (argc < 2)
		usage();
	mode = argv[1];
	parse(argc - 1, argv + 1, &o);
	if (!strcmp(mode, "recv"))
		return do_recv(&o);
	if (!strcmp(mode, "send"))
		return do_send(&o);
	if (!strcmp(mode, "pcap"))
		return do_pcap(&o);
	usage();
	return 2;
}

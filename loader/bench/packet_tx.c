// SPDX-License-Identifier: GPL-2.0
/* The packet-socket transmitter (packet_tx.h). Each batch is one
 * sendmmsg of PACKET_TX_BATCH frames, each frame a buffer of its own
 * that keeps the flow it last carried: moving it to the next flow is a
 * port and an incremental checksum update, as in the live-frames program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/ethernet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include "clock.h"
#include "log.h"
#include "packet_tx.h"
#include "trafficgen_flow.h"

/* As many frames a call as the live-frames runs put in a batch. */
#define PACKET_TX_BATCH 64

struct packet_tx {
	const struct trafficgen_opts *o;
	const struct packet_tx_template *t;
	const char *label;
	int fd;
	struct sockaddr_ll to;
	__u8 *frames;		/* PACKET_TX_BATCH frames of t->len bytes */
	struct iovec iov[PACKET_TX_BATCH];
	struct mmsghdr msgs[PACKET_TX_BATCH];
	__u64 next;		/* the count of the next frame to send: picks its flow */
};

/* Bound to no protocol, the socket receives nothing, so the device's
 * frames are not cloned to it. Bypassing the qdisc hands each frame
 * straight to the driver, as a live-frames transmit does; a veth has no
 * queue to lose it in anyway.
 */
static int open_socket(struct packet_tx *tx, int ifindex)
{
	struct sockaddr_ll bound = { .sll_family = AF_PACKET, .sll_ifindex = ifindex };
	int one = 1, err = 0;

	tx->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (tx->fd < 0)
		err = -errno;
	else if (bind(tx->fd, (struct sockaddr *)&bound, sizeof(bound)) ||
		 setsockopt(tx->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)))
		err = -errno;
	if (err)
		log_err("cannot generate on %s: cannot open a packet socket on it: %s", tx->label,
			strerror(-err));
	return err;
}

static __u16 ethertype(const struct trafficgen_opts *o)
{
	return htons(o->family == 6 ? ETHERTYPE_IPV6 : ETHERTYPE_IP);
}

static int prepare(struct packet_tx *tx, int ifindex)
{
	__u32 len = tx->t->len;
	int i;

	tx->frames = malloc((size_t)PACKET_TX_BATCH * len);
	if (!tx->frames) {
		log_err("cannot generate on %s: out of memory", tx->label);
		return -ENOMEM;
	}
	/* A raw socket's frames carry their own Ethernet header: the
	 * address names only the device and the protocol.
	 */
	tx->to = (struct sockaddr_ll){ .sll_family = AF_PACKET, .sll_ifindex = ifindex,
				       .sll_protocol = ethertype(tx->o) };
	for (i = 0; i < PACKET_TX_BATCH; i++) {
		memcpy(tx->frames + (size_t)i * len, tx->t->data, len);
		tx->iov[i] = (struct iovec){ .iov_base = tx->frames + (size_t)i * len, .iov_len = len };
		tx->msgs[i].msg_hdr = (struct msghdr){ .msg_name = &tx->to,
						       .msg_namelen = sizeof(tx->to),
						       .msg_iov = &tx->iov[i], .msg_iovlen = 1 };
	}
	return 0;
}

/* Moves frame buffer `frame` to the flow of the count `n`. */
static void move_to_flow(const struct packet_tx *tx, __u8 *frame, __u64 n)
{
	const struct trafficgen_opts *o = tx->o;
	__u16 port = htons(TRAFFICGEN_BASE_PORT +
			   trafficgen_flow_of(n, o->flows, o->elephants, o->elephant_share));
	__u16 old, check;

	memcpy(&old, frame + tx->t->sport_off, 2);
	if (tx->t->csum_off) {
		memcpy(&check, frame + tx->t->csum_off, 2);
		check = trafficgen_port_csum(check, old, port, o->proto == IPPROTO_UDP);
		memcpy(frame + tx->t->csum_off, &check, 2);
	}
	memcpy(frame + tx->t->sport_off, &port, 2);
}

/* One sendmmsg of the next PACKET_TX_BATCH frames. A frame the socket
 * refused for want of buffers is sent again, as the same count, by the
 * next call. Returns 0 or a negative errno.
 */
static int send_batch(struct packet_tx *tx, struct trafficgen_result *res)
{
	int i, n;

	for (i = 0; i < PACKET_TX_BATCH; i++)
		move_to_flow(tx, tx->frames + (size_t)i * tx->t->len, tx->next + i);
	res->attempted += PACKET_TX_BATCH;
	n = sendmmsg(tx->fd, tx->msgs, PACKET_TX_BATCH, 0);
	if (n < 0) {
		if (errno == ENOBUFS || errno == EAGAIN) {
			sched_yield();
			return 0;
		}
		return -errno;
	}
	tx->next += n;
	res->sent += n;
	return 0;
}

static int send_until(struct packet_tx *tx, volatile int *stop, double end_ns,
		      struct trafficgen_result *res)
{
	int err;

	while (!(stop && *stop) && monotonic_ns() < end_ns) {
		err = send_batch(tx, res);
		if (err == -EINTR)
			continue;
		if (err) {
			log_err("cannot generate on %s: the packet socket refused a %u-byte frame: %s",
				tx->label, tx->t->len, strerror(-err));
			return err;
		}
	}
	return 0;
}

int packet_tx_run(int ifindex, const char *label, const struct packet_tx_template *t,
		  const struct trafficgen_opts *o, volatile int *stop, double end_ns,
		  struct trafficgen_result *res)
{
	struct packet_tx tx = { .o = o, .t = t, .label = label, .fd = -1 };
	int err = open_socket(&tx, ifindex);

	if (!err)
		err = prepare(&tx, ifindex);
	if (!err)
		err = send_until(&tx, stop, end_ns, res);
	free(tx.frames);
	if (tx.fd >= 0)
		close(tx.fd);
	return err;
}

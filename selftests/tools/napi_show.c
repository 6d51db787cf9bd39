// SPDX-License-Identifier: GPL-2.0
/* napi_show: the NAPI instances of a device and their settings, from the
 * netdev generic netlink family (NAPI_GET), so the network namespace tests
 * can see what a per-NAPI write changed: the device-wide sysfs files do
 * not show it.
 *
 *   napi_show IFACE
 *       one line per NAPI instance of IFACE in the caller's network
 *       namespace: "napi ID defer_hard_irqs N gro_flush_timeout N
 *       threaded N" (an attribute the kernel does not report prints as
 *       -1); nothing when it has none.
 */
#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

/* Kernel ABI numbers of the netdev family (Debian 12's headers predate
 * <linux/netdev.h>).
 */
#define NETDEV_CMD_NAPI_GET		11
#define NETDEV_A_NAPI_IFINDEX		1
#define NETDEV_A_NAPI_ID		2
#define NETDEV_A_NAPI_DEFER_HARD_IRQS	5
#define NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT	6
#define NETDEV_A_NAPI_THREADED		8	/* since 6.17 */

#define BUF_SIZE 32768

static char buf[BUF_SIZE];

struct req {
	struct nlmsghdr nh;
	struct genlmsghdr gh;
	char attrs[64];
};

static void die(const char *what)
{
	fprintf(stderr, "napi_show: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void add_attr(struct req *r, __u16 type, const void *data, __u16 len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void send_req(int fd, struct req *r)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	if (sendto(fd, r, r->nh.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		die("sendto");
}

/* Calls fn on every message of the reply until NLMSG_DONE (or, for a
 * plain request, the first answer). Returns the kernel's error, negative.
 */
static int recv_all(int fd, int (*fn)(struct nlmsghdr *, void *), void *ctx)
{
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;
		int multi = 0;

		if (n < 0)
			die("recv");
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
			multi |= nh->nlmsg_flags & NLM_F_MULTI;
			fn(nh, ctx);
		}
		if (!multi)
			return 0;
	}
}

#define for_each_attr(a, nh)                                                          \
	for (a = (struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);               \
	     (char *)a + NLA_HDRLEN <= (char *)nh + nh->nlmsg_len && a->nla_len >= NLA_HDRLEN; \
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))

static long long attr_uint(const struct nlattr *a)
{
	const char *p = (const char *)a + NLA_HDRLEN;
	__u32 v32;
	__u64 v64;

	if (a->nla_len - NLA_HDRLEN == 8) {
		memcpy(&v64, p, 8);
		return (long long)v64;
	}
	memcpy(&v32, p, 4);
	return v32;
}

static int family_id(struct nlmsghdr *nh, void *ctx)
{
	struct nlattr *a;

	for_each_attr(a, nh)
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			memcpy(ctx, (char *)a + NLA_HDRLEN, sizeof(__u16));
	return 0;
}

static int print_napi(struct nlmsghdr *nh, void *ctx)
{
	long long id = -1, defer = -1, flush = -1, threaded = -1;
	struct nlattr *a;

	(void)ctx;
	for_each_attr(a, nh) {
		if (a->nla_type == NETDEV_A_NAPI_ID)
			id = attr_uint(a);
		else if (a->nla_type == NETDEV_A_NAPI_DEFER_HARD_IRQS)
			defer = attr_uint(a);
		else if (a->nla_type == NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT)
			flush = attr_uint(a);
		else if (a->nla_type == NETDEV_A_NAPI_THREADED)
			threaded = attr_uint(a);
	}
	printf("napi %lld defer_hard_irqs %lld gro_flush_timeout %lld threaded %lld\n", id, defer,
	       flush, threaded);
	return 0;
}

int main(int argc, char **argv)
{
	struct req r;
	__u16 family = 0;
	__u32 ifindex;
	int fd, err;

	if (argc != 2) {
		fputs("usage: napi_show IFACE\n", stderr);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex)
		die(argv[1]);
	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (fd < 0)
		die("socket");

	memset(&r, 0, sizeof(r));
	r.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r.nh.nlmsg_type = GENL_ID_CTRL;
	r.nh.nlmsg_flags = NLM_F_REQUEST;
	r.gh.cmd = CTRL_CMD_GETFAMILY;
	r.gh.version = 1;
	add_attr(&r, CTRL_ATTR_FAMILY_NAME, "netdev", sizeof("netdev"));
	send_req(fd, &r);
	err = recv_all(fd, family_id, &family);
	if (err || !family) {
		errno = err ? -err : ENOENT;
		die("generic netlink family netdev");
	}

	memset(&r, 0, sizeof(r));
	r.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r.nh.nlmsg_type = family;
	r.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	r.gh.cmd = NETDEV_CMD_NAPI_GET;
	r.gh.version = 1;
	add_attr(&r, NETDEV_A_NAPI_IFINDEX, &ifindex, sizeof(ifindex));
	send_req(fd, &r);
	err = recv_all(fd, print_napi, NULL);
	if (err) {
		errno = -err;
		die("NAPI_GET");
	}
	close(fd);
	return 0;
}

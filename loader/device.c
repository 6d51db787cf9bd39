// SPDX-License-Identifier: GPL-2.0
/* Device knobs. device.h says which mechanism reads and writes what. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "device.h"
#include "log.h"

/* The netdev generic netlink family. Debian 12's kernel headers (6.1)
 * have no <linux/netdev.h>, so the numbers are spelled out here; they are
 * kernel ABI. Own names, so a newer system header cannot clash with them.
 */
#define ND_FAMILY_NAME			"netdev"
#define ND_CMD_NAPI_GET			11
#define ND_CMD_NAPI_SET			14
#define ND_A_NAPI_IFINDEX		1	/* u32 */
#define ND_A_NAPI_ID			2	/* u32 */
#define ND_A_NAPI_DEFER_HARD_IRQS	5	/* u32 */
#define ND_A_NAPI_GRO_FLUSH_TIMEOUT	6	/* uint: 4 or 8 bytes */
#define ND_A_NAPI_THREADED		8	/* u32, since 6.17 */
#define ND_A_NAPI_MAX			8

/* Netlink dumps come in skbs of at most 32 KiB; a smaller buffer would
 * truncate them.
 */
#define NL_BUF_SIZE 32768

#define NO_NAPI_WHY "the device has no NAPI instances (a veth has them only " \
		    "while GRO is on or an XDP program is attached)"

struct dev_ctx {
	const char *ifname;
	int ifindex;
	int ioctl_fd;		/* for ethtool; -1 until needed */
	int nl_fd;		/* generic netlink; -1 until needed */
	int nl_err;		/* why netlink is unusable, once known */
	__u16 nl_family;
	__u32 nl_seq;
	char *nl_buf;
	bool sysfs_ours;	/* /sys/class/net/IFACE is this device */
	char why[256];		/* the cause, when strerror() says too little */
};

struct knob {
	__u32 bit;
	const char *label;	/* in messages */
	const char *file;	/* under /sys/class/net/IFACE/; NULL for GRO */
	int napi_attr;
	int napi_len;		/* bytes of the value in NAPI_SET */
};

/* In the order apply changes them: GRO first, because on a veth it is
 * what creates (or removes) the NAPI instances the others act on.
 */
static const struct knob knobs[] = {
	{ DEV_GRO, "GRO", NULL, 0, 0 },
	{ DEV_GRO_FLUSH_TIMEOUT, "gro_flush_timeout", "gro_flush_timeout",
	  ND_A_NAPI_GRO_FLUSH_TIMEOUT, 8 },
	{ DEV_DEFER_HARD_IRQS, "napi_defer_hard_irqs", "napi_defer_hard_irqs",
	  ND_A_NAPI_DEFER_HARD_IRQS, 4 },
	{ DEV_THREADED_NAPI, "threaded NAPI", "threaded", ND_A_NAPI_THREADED, 4 },
};
#define NKNOBS (int)(sizeof(knobs) / sizeof(knobs[0]))

static __u64 field_get(const struct device_settings *s, __u32 bit)
{
	switch (bit) {
	case DEV_GRO:
		return s->gro;
	case DEV_GRO_FLUSH_TIMEOUT:
		return s->gro_flush_timeout;
	case DEV_DEFER_HARD_IRQS:
		return s->defer_hard_irqs;
	default:
		return s->threaded;
	}
}

static void field_put(struct device_settings *s, __u32 bit, __u64 v)
{
	switch (bit) {
	case DEV_GRO:
		s->gro = v;
		break;
	case DEV_GRO_FLUSH_TIMEOUT:
		s->gro_flush_timeout = v;
		break;
	case DEV_DEFER_HARD_IRQS:
		s->defer_hard_irqs = v;
		break;
	default:
		s->threaded = v;
	}
	s->mask |= bit;
}

static void set_why(struct dev_ctx *c, const char *why)
{
	snprintf(c->why, sizeof(c->why), "%s", why);
}

/* ---- ethtool ioctl ---------------------------------------------------- */

/* Interface ioctls act in the namespace of the socket: the caller's. */
static int dev_ioctl(struct dev_ctx *c, unsigned long req, struct ifreq *ifr)
{
	if (c->ioctl_fd < 0) {
		c->ioctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (c->ioctl_fd < 0)
			return -errno;
	}
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", c->ifname);
	return ioctl(c->ioctl_fd, req, ifr) < 0 ? -errno : 0;
}

static int ethtool_ioctl(struct dev_ctx *c, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_data = cmd;
	return dev_ioctl(c, SIOCETHTOOL, &ifr);
}

static int ethtool_get(struct dev_ctx *c, __u32 cmd, __u32 *val)
{
	struct ethtool_value ev = { .cmd = cmd };
	int err = ethtool_ioctl(c, &ev);

	if (!err)
		*val = ev.data;
	return err;
}

static int ethtool_set(struct dev_ctx *c, __u32 cmd, __u32 val)
{
	struct ethtool_value ev = { .cmd = cmd, .data = val };

	return ethtool_ioctl(c, &ev);
}

/* The kernel accepts a feature request it cannot honour (the driver's
 * fix_features wins), so read back what the device really does.
 */
static int gro_write(struct dev_ctx *c, __u32 on)
{
	__u32 now;
	int err;

	err = ethtool_set(c, ETHTOOL_SGRO, on);
	if (!err)
		err = ethtool_get(c, ETHTOOL_GGRO, &now);
	if (!err && now != on) {
		set_why(c, "the driver did not change it");
		err = -EOPNOTSUPP;
	}
	return err;
}

/* ---- sysfs ------------------------------------------------------------ */

static void sysfs_path(const struct dev_ctx *c, const char *file, char *buf, size_t len)
{
	snprintf(buf, len, "/sys/class/net/%s/%s", c->ifname, file);
}

static int sysfs_read(const struct dev_ctx *c, const char *file, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	sysfs_path(c, file, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	return 0;
}

static int sysfs_read_u64(const struct dev_ctx *c, const char *file, __u64 *val)
{
	char buf[64], *end;
	int err = sysfs_read(c, file, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

static int sysfs_write_u64(const struct dev_ctx *c, const char *file, __u64 val)
{
	char path[128], buf[32];
	int fd, len, err = 0;

	sysfs_path(c, file, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)val);
	if (write(fd, buf, len) != len)
		err = -errno;
	close(fd);
	return err;
}

/* /sys shows the network namespace it was mounted in, not the caller's:
 * after setns(2) or `nsenter --net`, /sys/class/net/eth0 may be another
 * namespace's eth0. Trust it only if ifindex and MAC both match the
 * device this process sees; a zero MAC (loopback, tunnels) proves nothing.
 */
static bool sysfs_shows_device(struct dev_ctx *c)
{
	unsigned char mac[6], zero[6] = { 0 };
	char buf[64];
	struct ifreq ifr;
	__u64 ifindex;

	if (sysfs_read_u64(c, "ifindex", &ifindex) || ifindex != (__u64)c->ifindex)
		return false;
	if (sysfs_read(c, "address", buf, sizeof(buf)) ||
	    sscanf(buf, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2],
		   &mac[3], &mac[4], &mac[5]) != 6 || !memcmp(mac, zero, 6))
		return false;
	memset(&ifr, 0, sizeof(ifr));
	if (dev_ioctl(c, SIOCGIFHWADDR, &ifr))
		return false;
	return !memcmp(ifr.ifr_hwaddr.sa_data, mac, 6);
}

static bool sysfs_usable(const struct dev_ctx *c, const struct knob *k)
{
	char path[128];

	if (!c->sysfs_ours)
		return false;
	sysfs_path(c, k->file, path, sizeof(path));
	return access(path, W_OK) == 0;
}

/* ---- generic netlink -------------------------------------------------- */

struct nl_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[64];
};

static void req_init(struct nl_req *r, __u16 type, __u16 flags, __u8 cmd)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->n.nlmsg_type = type;
	r->n.nlmsg_flags = NLM_F_REQUEST | flags;
	r->g.cmd = cmd;
	r->g.version = 1;
}

static void req_put(struct nl_req *r, __u16 type, const void *data, __u16 len)
{
	struct nlattr *a = (void *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static const void *attr_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static int attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

/* u32, or a variable-width uint (4 or 8 bytes); payloads are only 4-byte
 * aligned, hence memcpy.
 */
static __u64 attr_uint(const struct nlattr *a)
{
	__u32 v32 = 0;
	__u64 v64;

	if (attr_len(a) == 8) {
		memcpy(&v64, attr_data(a), 8);
		return v64;
	}
	if (attr_len(a) >= 4)
		memcpy(&v32, attr_data(a), 4);
	return v32;
}

/* Takes the next whole attribute off [*p, *p + *rem); NULL at the end. */
static const struct nlattr *attr_take(const char **p, int *rem)
{
	const struct nlattr *a = (const void *)*p;

	if (*rem < NLA_HDRLEN || a->nla_len < NLA_HDRLEN || a->nla_len > *rem)
		return NULL;
	*p += NLA_ALIGN(a->nla_len);
	*rem -= NLA_ALIGN(a->nla_len);
	return a;
}

/* tb[type] = the last attribute of each type below n. */
static void attr_index(const void *data, int len, const struct nlattr **tb, int n)
{
	const char *p = data;
	const struct nlattr *a;

	memset(tb, 0, n * sizeof(*tb));
	while ((a = attr_take(&p, &len)))
		if ((a->nla_type & NLA_TYPE_MASK) < n)
			tb[a->nla_type & NLA_TYPE_MASK] = a;
}

static void genl_index(const struct nlmsghdr *h, const struct nlattr **tb, int n)
{
	attr_index((const char *)NLMSG_DATA(h) + GENL_HDRLEN,
		   (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), tb, n);
}

/* The kernel's own explanation (extended ack), when it sent one. With
 * NETLINK_CAP_ACK the request is not echoed, so the TLVs follow the
 * nlmsgerr directly.
 */
static void nl_extack(struct dev_ctx *c, const struct nlmsghdr *h, int err)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int off = NLMSG_HDRLEN + sizeof(*e);

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	if ((int)h->nlmsg_len <= off)
		return;
	attr_index((const char *)h + off, h->nlmsg_len - off, tb, NLMSGERR_ATTR_MAX + 1);
	if (tb[NLMSGERR_ATTR_MSG] && attr_len(tb[NLMSGERR_ATTR_MSG]) > 1)
		snprintf(c->why, sizeof(c->why), "%s (%.*s)", strerror(-err),
			 attr_len(tb[NLMSGERR_ATTR_MSG]), (const char *)attr_data(tb[NLMSGERR_ATTR_MSG]));
}

/* The error an NLMSG_ERROR or NLMSG_DONE carries; 0 for an ACK. */
static int nl_status(struct dev_ctx *c, const struct nlmsghdr *h)
{
	int err = 0;

	if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
		memcpy(&err, NLMSG_DATA(h), sizeof(int));
	if (err < 0 && h->nlmsg_type == NLMSG_ERROR)
		nl_extack(c, h, err);
	return err > 0 ? -err : err;
}

typedef int (*nl_cb)(const struct nlmsghdr *h, void *arg);

/* Sends a request and feeds each reply to cb until the ACK, the end of
 * the dump or an error.
 */
static int nl_talk(struct dev_ctx *c, struct nl_req *r, nl_cb cb, void *arg)
{
	const struct nlmsghdr *h;
	ssize_t n, off;
	int err;

	r->n.nlmsg_seq = ++c->nl_seq;
	if (send(c->nl_fd, r, r->n.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		n = recv(c->nl_fd, c->nl_buf, NL_BUF_SIZE, MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n > NL_BUF_SIZE)
			return -EMSGSIZE;
		for (off = 0; off + NLMSG_HDRLEN <= n; off += NLMSG_ALIGN(h->nlmsg_len)) {
			h = (const void *)(c->nl_buf + off);
			if (h->nlmsg_len < NLMSG_HDRLEN || off + (ssize_t)h->nlmsg_len > n)
				return -EBADMSG;
			if (h->nlmsg_seq != r->n.nlmsg_seq)
				continue;	/* left over from an earlier request */
			if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE)
				return nl_status(c, h);
			err = cb ? cb(h, arg) : 0;
			if (err)
				return err;
		}
	}
}

struct family_info {
	__u16 id;
	bool napi_get, napi_set;
};

static int family_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1], *op_tb[CTRL_ATTR_OP_MAX + 1], *op;
	struct family_info *fi = arg;
	const char *p;
	int rem;

	genl_index(h, tb, CTRL_ATTR_MAX + 1);
	if (tb[CTRL_ATTR_FAMILY_ID])
		memcpy(&fi->id, attr_data(tb[CTRL_ATTR_FAMILY_ID]), sizeof(fi->id));
	if (!tb[CTRL_ATTR_OPS])
		return 0;
	p = attr_data(tb[CTRL_ATTR_OPS]);
	rem = attr_len(tb[CTRL_ATTR_OPS]);
	while ((op = attr_take(&p, &rem))) {
		attr_index(attr_data(op), attr_len(op), op_tb, CTRL_ATTR_OP_MAX + 1);
		if (!op_tb[CTRL_ATTR_OP_ID])
			continue;
		fi->napi_get |= attr_uint(op_tb[CTRL_ATTR_OP_ID]) == ND_CMD_NAPI_GET;
		fi->napi_set |= attr_uint(op_tb[CTRL_ATTR_OP_ID]) == ND_CMD_NAPI_SET;
	}
	return 0;
}

/* Opens the socket and resolves the netdev family once per call of the
 * public API; a kernel without NAPI_GET/NAPI_SET (before 6.13) cannot be
 * used.
 */
static int nl_ensure(struct dev_ctx *c)
{
	struct family_info fi = { 0 };
	struct nl_req r;
	int one = 1, err;

	if (c->nl_fd >= 0 || c->nl_err)
		return c->nl_err;
	c->nl_buf = malloc(NL_BUF_SIZE);
	c->nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (!c->nl_buf || c->nl_fd < 0)
		return c->nl_err = -errno;
	/* Ask for the kernel's text on errors, and not for our request back. */
	setsockopt(c->nl_fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(c->nl_fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	req_init(&r, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY);
	req_put(&r, CTRL_ATTR_FAMILY_NAME, ND_FAMILY_NAME, sizeof(ND_FAMILY_NAME));
	err = nl_talk(c, &r, family_cb, &fi);
	if (err || !fi.id || !fi.napi_get || !fi.napi_set)
		return c->nl_err = -EOPNOTSUPP;
	c->nl_family = fi.id;
	return 0;
}

struct napi {
	__u32 id;
	__u32 have;	/* bit n: attribute n came */
	__u64 val[ND_A_NAPI_MAX + 1];
};

struct napi_list {
	int ifindex;
	int n;
	struct napi *v;
};

static int napi_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[ND_A_NAPI_MAX + 1];
	struct napi_list *l = arg;
	struct napi *v, *napi;
	int i;

	genl_index(h, tb, ND_A_NAPI_MAX + 1);
	/* Filter here too: a kernel may ignore the ifindex in a dump request. */
	if (!tb[ND_A_NAPI_ID] || !tb[ND_A_NAPI_IFINDEX] ||
	    attr_uint(tb[ND_A_NAPI_IFINDEX]) != (__u64)l->ifindex)
		return 0;
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	napi = &v[l->n++];
	memset(napi, 0, sizeof(*napi));
	napi->id = attr_uint(tb[ND_A_NAPI_ID]);
	for (i = 0; i <= ND_A_NAPI_MAX; i++) {
		if (tb[i]) {
			napi->have |= 1u << i;
			napi->val[i] = attr_uint(tb[i]);
		}
	}
	return 0;
}

static int napi_dump(struct dev_ctx *c, struct napi_list *l)
{
	struct nl_req r;
	__u32 ifindex = c->ifindex;
	int err;

	l->ifindex = c->ifindex;
	err = nl_ensure(c);
	if (err && !c->sysfs_ours)
		set_why(c, "/sys/class/net does not show this network namespace's device "
			   "(a sysfs mounted inside that namespace would) and the kernel "
			   "lacks the netdev netlink NAPI commands");
	else if (err)
		set_why(c, "its sysfs file is not writable and the kernel lacks the "
			   "netdev netlink NAPI commands");
	if (err)
		return err;
	req_init(&r, c->nl_family, NLM_F_DUMP, ND_CMD_NAPI_GET);
	req_put(&r, ND_A_NAPI_IFINDEX, &ifindex, sizeof(ifindex));
	return nl_talk(c, &r, napi_cb, l);
}

/* The device's NAPI instances, which must exist and know the knob. */
static int napi_dump_for(struct dev_ctx *c, const struct knob *k, struct napi_list *l)
{
	int err = napi_dump(c, l);

	if (err)
		return err;
	if (!l->n) {
		set_why(c, NO_NAPI_WHY);
		return -ENODATA;
	}
	if (!(l->v[0].have & (1u << k->napi_attr))) {
		set_why(c, "this kernel has no such per-NAPI setting");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int napi_nl_read(struct dev_ctx *c, const struct knob *k, __u64 *val)
{
	struct napi_list l = { 0 };
	int err = napi_dump_for(c, k, &l);

	if (!err)
		*val = l.v[0].val[k->napi_attr];
	free(l.v);
	return err;
}

static int napi_set(struct dev_ctx *c, __u32 id, const struct knob *k, __u64 val)
{
	__u32 v32 = val;
	struct nl_req r;

	req_init(&r, c->nl_family, NLM_F_ACK, ND_CMD_NAPI_SET);
	req_put(&r, ND_A_NAPI_ID, &id, sizeof(id));
	if (k->napi_len == 8)
		req_put(&r, k->napi_attr, &val, 8);
	else
		req_put(&r, k->napi_attr, &v32, 4);
	return nl_talk(c, &r, NULL, NULL);
}

static int napi_nl_write(struct dev_ctx *c, const struct knob *k, __u64 val)
{
	struct napi_list l = { 0 };
	int i, err = napi_dump_for(c, k, &l);

	if (err == -ENODATA)
		err = -EOPNOTSUPP;
	for (i = 0; !err && i < l.n; i++)
		err = napi_set(c, l.v[i].id, k, val);
	free(l.v);
	return err;
}

/* ---- one knob --------------------------------------------------------- */

/* Returns -ENODATA when only NAPI instances could hold the value and the
 * device has none.
 */
static int knob_read(struct dev_ctx *c, const struct knob *k, __u64 *val)
{
	__u32 v32 = 0;
	int err;

	c->why[0] = '\0';
	if (!k->file) {
		err = ethtool_get(c, ETHTOOL_GGRO, &v32);
		*val = v32;
		return err;
	}
	if (sysfs_usable(c, k))
		return sysfs_read_u64(c, k->file, val);
	return napi_nl_read(c, k, val);
}

static int knob_write(struct dev_ctx *c, const struct knob *k, __u64 val)
{
	int err;

	c->why[0] = '\0';
	if (!k->file)
		return gro_write(c, val);
	if (!sysfs_usable(c, k)) {
		log_debug("%s on %s: via netlink, per NAPI", k->label, c->ifname);
		return napi_nl_write(c, k, val);
	}
	err = sysfs_write_u64(c, k->file, val);
	/* The kernel refuses threaded NAPI on a device with no instances. */
	if (err == -EOPNOTSUPP && k->bit == DEV_THREADED_NAPI)
		set_why(c, NO_NAPI_WHY);
	return err;
}

static int knob_fail(struct dev_ctx *c, const char *verb, const struct knob *k, int err)
{
	log_err("cannot %s %s on %s: %s", verb, k->label, c->ifname,
		c->why[0] ? c->why : strerror(-err));
	return err;
}

/* ---- the API ---------------------------------------------------------- */

static int ctx_open(struct dev_ctx *c, const char *ifname, bool quiet)
{
	memset(c, 0, sizeof(*c));
	c->ifname = ifname;
	c->ioctl_fd = c->nl_fd = -1;
	c->ifindex = if_nametoindex(ifname);
	if (!c->ifindex) {
		if (!quiet)
			log_err("no such interface: %s", ifname);
		return -ENODEV;
	}
	c->sysfs_ours = sysfs_shows_device(c);
	return 0;
}

static void ctx_close(struct dev_ctx *c)
{
	if (c->ioctl_fd >= 0)
		close(c->ioctl_fd);
	if (c->nl_fd >= 0)
		close(c->nl_fd);
	free(c->nl_buf);
}

int device_read(const char *ifname, struct device_settings *cur)
{
	struct dev_ctx c;
	__u64 val;
	int i, err;

	memset(cur, 0, sizeof(*cur));
	err = ctx_open(&c, ifname, false);
	if (err)
		return err;
	for (i = 0; i < NKNOBS; i++) {
		err = knob_read(&c, &knobs[i], &val);
		if (!err)
			field_put(cur, knobs[i].bit, val);
		else
			log_debug("cannot read %s on %s: %s", knobs[i].label, ifname,
				  c.why[0] ? c.why : strerror(-err));
	}
	ctx_close(&c);
	return 0;
}

static int check_want(struct dev_ctx *c, const struct device_settings *want)
{
	if (want->mask & ~DEV_ALL) {
		log_err("cannot change settings on %s: unknown setting bits 0x%x", c->ifname,
			want->mask & ~DEV_ALL);
		return -EINVAL;
	}
	if ((want->mask & DEV_GRO) && want->gro > 1) {
		log_err("cannot change GRO on %s: %u is not 0 or 1", c->ifname, want->gro);
		return -EINVAL;
	}
	if ((want->mask & DEV_THREADED_NAPI) && want->threaded > 1) {
		log_err("cannot change threaded NAPI on %s: %u is not 0 or 1", c->ifname,
			want->threaded);
		return -EINVAL;
	}
	return 0;
}

/* Records the value in *saved the first time, and in *before (what undo
 * writes back) before touching the device: a netlink write that fails
 * half way has already changed some NAPI instances.
 */
static int apply_one(struct dev_ctx *c, const struct knob *k, __u64 want,
		     struct device_settings *before, struct device_settings *saved)
{
	__u64 cur;
	int err;

	err = knob_read(c, k, &cur);
	if (err) {
		if (err == -ENODATA)
			err = -EOPNOTSUPP;
		return knob_fail(c, "change", k, err);
	}
	if (!(saved->mask & k->bit))
		field_put(saved, k->bit, cur);
	/* Equal values are not written: the kernel refuses even "threaded
	 * = 0" on a device without NAPI instances.
	 */
	if (cur == want)
		return 0;
	field_put(before, k->bit, cur);
	err = knob_write(c, k, want);
	return err ? knob_fail(c, "change", k, err) : 0;
}

/* In reverse order, so GRO (and with it a veth's NAPI instances) goes
 * back last. Failures here are only shown with -v: the error that made us
 * undo has been printed already.
 */
static void undo(struct dev_ctx *c, const struct device_settings *before)
{
	int i, err;

	for (i = NKNOBS - 1; i >= 0; i--) {
		if (!(before->mask & knobs[i].bit))
			continue;
		err = knob_write(c, &knobs[i], field_get(before, knobs[i].bit));
		if (err)
			log_debug("cannot undo %s on %s: %s", knobs[i].label, c->ifname,
				  c->why[0] ? c->why : strerror(-err));
	}
}

int device_apply(const char *ifname, const struct device_settings *want,
		 struct device_settings *saved)
{
	struct device_settings before = { 0 }, saved_in = *saved;
	struct dev_ctx c;
	int i, err;

	err = ctx_open(&c, ifname, false);
	if (err)
		return err;
	err = check_want(&c, want);
	for (i = 0; !err && i < NKNOBS; i++)
		if (want->mask & knobs[i].bit)
			err = apply_one(&c, &knobs[i], field_get(want, knobs[i].bit),
					&before, saved);
	if (err) {
		undo(&c, &before);
		*saved = saved_in;
	}
	ctx_close(&c);
	return err;
}

/* The kernel refuses the device-wide threaded setting while the device
 * has no NAPI instances, as a veth without GRO has none once its XDP
 * program is gone. Left alone, the value would still apply to the next
 * instances; GRO on for a moment gives the veth some to accept it.
 */
static int threaded_via_gro(struct dev_ctx *c, const struct knob *k, __u64 val)
{
	__u32 gro;
	int err;

	if (ethtool_get(c, ETHTOOL_GGRO, &gro) || gro || gro_write(c, 1))
		return -EOPNOTSUPP;
	log_debug("GRO on for a moment on %s, to restore threaded NAPI", c->ifname);
	err = knob_write(c, k, val);
	if (gro_write(c, 0) && !err) {
		set_why(c, "could not turn GRO back off after restoring it");
		err = -EIO;
	}
	return err;
}

static int restore_one(struct dev_ctx *c, const struct knob *k, __u64 val)
{
	__u64 cur;
	int err;

	err = knob_read(c, k, &cur);
	/* Per-NAPI values vanish with their instances, and new ones start
	 * from the device-wide value we never changed: nothing to put back.
	 */
	if (err == -ENODATA)
		return 0;
	if (err || cur == val)
		return err;
	err = knob_write(c, k, val);
	if (err == -EOPNOTSUPP && k->bit == DEV_THREADED_NAPI)
		err = threaded_via_gro(c, k, val);
	return err;
}

int device_restore(const char *ifname, const struct device_settings *saved)
{
	struct dev_ctx c;
	int i, err, first = 0;

	if (ctx_open(&c, ifname, true))
		return -ENODEV;
	for (i = NKNOBS - 1; i >= 0; i--) {
		if (!(saved->mask & knobs[i].bit))
			continue;
		err = restore_one(&c, &knobs[i], field_get(saved, knobs[i].bit));
		if (err && !first)
			first = knob_fail(&c, "restore", &knobs[i], err);
		else if (err)
			log_debug("cannot restore %s on %s: %s", knobs[i].label, ifname,
				  c.why[0] ? c.why : strerror(-err));
	}
	ctx_close(&c);
	return first;
}

bool device_cpumap_gro_probe(void)
{
	const struct btf_member *m;
	const struct btf_type *t;
	struct btf *btf;
	bool found = false;
	const char *name;
	__s32 id;
	int i;

	btf = btf__load_vmlinux_btf();
	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "bpf_cpu_map_entry", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0, m = t ? btf_members(t) : NULL; t && i < btf_vlen(t) && !found; i++, m++) {
		name = btf__name_by_offset(btf, m->name_off);
		found = name && !strcmp(name, "gro");
	}
	btf__free(btf);
	return found;
}

int device_set_tx_csum(const char *ifname, bool on)
{
	struct dev_ctx c;
	int err;

	err = ctx_open(&c, ifname, false);
	if (err)
		return err;
	err = ethtool_set(&c, ETHTOOL_STXCSUM, on);
	if (err)
		log_err("cannot turn tx checksumming %s on %s: %s", on ? "on" : "off", ifname,
			strerror(-err));
	ctx_close(&c);
	return err;
}

bool device_is_veth(const char *ifname)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct dev_ctx c;
	bool veth;

	if (ctx_open(&c, ifname, true))
		return false;
	veth = !ethtool_ioctl(&c, &info) && !strcmp(info.driver, "veth");
	ctx_close(&c);
	return veth;
}

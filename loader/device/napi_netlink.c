// SPDX-License-Identifier: GPL-2.0
/* NAPI_GET and NAPI_SET of the netdev generic netlink family, over a
 * plain netlink socket: a request, then its replies until the ACK or the
 * end of the dump.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "napi_netlink.h"

/* Kernel ABI, like the attribute numbers in napi_netlink.h. */
#define ND_FAMILY_NAME			"netdev"
#define ND_CMD_DEV_GET			1
#define ND_CMD_NAPI_GET			11
#define ND_CMD_NAPI_SET			14

/* Netlink dumps come in skbs of at most 32 KiB; a smaller buffer would
 * truncate them.
 */
#define NL_BUF_SIZE 32768

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
static void nl_extack(struct napi_nl *nl, const struct nlmsghdr *h, int err)
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
		snprintf(nl->why, sizeof(nl->why), "%s (%.*s)", strerror(-err),
			 attr_len(tb[NLMSGERR_ATTR_MSG]), (const char *)attr_data(tb[NLMSGERR_ATTR_MSG]));
}

/* The error an NLMSG_ERROR or NLMSG_DONE carries; 0 for an ACK. */
static int nl_status(struct napi_nl *nl, const struct nlmsghdr *h)
{
	int err = 0;

	if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
		memcpy(&err, NLMSG_DATA(h), sizeof(int));
	if (err < 0 && h->nlmsg_type == NLMSG_ERROR)
		nl_extack(nl, h, err);
	return err > 0 ? -err : err;
}

typedef int (*nl_cb)(const struct nlmsghdr *h, void *arg);

/* Sends a request and feeds each reply to cb until the ACK, the end of
 * the dump or an error.
 */
static int nl_talk(struct napi_nl *nl, struct nl_req *r, nl_cb cb, void *arg)
{
	const struct nlmsghdr *h;
	ssize_t n, off;
	int err;

	nl->why[0] = '\0';
	r->n.nlmsg_seq = ++nl->seq;
	if (send(nl->fd, r, r->n.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		n = recv(nl->fd, nl->buf, NL_BUF_SIZE, MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n > NL_BUF_SIZE)
			return -EMSGSIZE;
		for (off = 0; off + NLMSG_HDRLEN <= n; off += NLMSG_ALIGN(h->nlmsg_len)) {
			h = (const void *)(nl->buf + off);
			if (h->nlmsg_len < NLMSG_HDRLEN || off + (ssize_t)h->nlmsg_len > n)
				return -EBADMSG;
			if (h->nlmsg_seq != r->n.nlmsg_seq)
				continue;	/* left over from an earlier request */
			if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE)
				return nl_status(nl, h);
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

void napi_nl_init(struct napi_nl *nl)
{
	memset(nl, 0, sizeof(*nl));
	nl->fd = -1;
}

/* Opens the socket and resolves the family on the first call; the family
 * itself came in 6.3.
 */
static int open_family(struct napi_nl *nl)
{
	struct family_info fi = { 0 };
	struct nl_req r;
	int one = 1, err;

	if (nl->fd >= 0 || nl->err)
		return nl->err;
	nl->buf = malloc(NL_BUF_SIZE);
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (!nl->buf || nl->fd < 0)
		return nl->err = -errno;
	/* Ask for the kernel's text on errors, and not for our request back. */
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	req_init(&r, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY);
	req_put(&r, CTRL_ATTR_FAMILY_NAME, ND_FAMILY_NAME, sizeof(ND_FAMILY_NAME));
	err = nl_talk(nl, &r, family_cb, &fi);
	if (err || !fi.id)
		return nl->err = -EOPNOTSUPP;
	nl->family = fi.id;
	nl->can_get = fi.napi_get;
	nl->can_set = fi.napi_set;
	return 0;
}

int napi_nl_open_dump(struct napi_nl *nl)
{
	int err = open_family(nl);

	return err ? err : nl->can_get ? 0 : -EOPNOTSUPP;
}

int napi_nl_open(struct napi_nl *nl)
{
	int err = napi_nl_open_dump(nl);

	return err ? err : nl->can_set ? 0 : -EOPNOTSUPP;
}

struct dump_arg {
	int ifindex;
	struct napi_list *l;
};

static int napi_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[ND_A_NAPI_MAX + 1];
	const struct dump_arg *d = arg;
	struct napi_list *l = d->l;
	struct napi *v, *napi;
	int i;

	genl_index(h, tb, ND_A_NAPI_MAX + 1);
	/* Filter here too: a kernel may ignore the ifindex in a dump request. */
	if (!tb[ND_A_NAPI_ID] || !tb[ND_A_NAPI_IFINDEX] ||
	    attr_uint(tb[ND_A_NAPI_IFINDEX]) != (__u64)d->ifindex)
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

int napi_nl_dump(struct napi_nl *nl, int ifindex, struct napi_list *l)
{
	struct dump_arg d = { .ifindex = ifindex, .l = l };
	__u32 idx = ifindex;
	struct nl_req r;

	req_init(&r, nl->family, NLM_F_DUMP, ND_CMD_NAPI_GET);
	req_put(&r, ND_A_NAPI_IFINDEX, &idx, sizeof(idx));
	return nl_talk(nl, &r, napi_cb, &d);
}

int napi_nl_set(struct napi_nl *nl, __u32 id, int attr, int len, __u64 val)
{
	__u32 v32 = val;
	struct nl_req r;

	req_init(&r, nl->family, NLM_F_ACK, ND_CMD_NAPI_SET);
	req_put(&r, ND_A_NAPI_ID, &id, sizeof(id));
	if (len == 8)
		req_put(&r, attr, &val, 8);
	else
		req_put(&r, attr, &v32, 4);
	return nl_talk(nl, &r, NULL, NULL);
}

struct dev_arg {
	int ifindex;
	bool found;
	__u64 features;
};

static int dev_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[ND_A_DEV_XDP_RX_METADATA_FEATURES + 1];
	struct dev_arg *d = arg;

	genl_index(h, tb, ND_A_DEV_XDP_RX_METADATA_FEATURES + 1);
	if (!tb[ND_A_DEV_IFINDEX] || attr_uint(tb[ND_A_DEV_IFINDEX]) != (__u64)d->ifindex ||
	    !tb[ND_A_DEV_XDP_RX_METADATA_FEATURES])
		return 0;
	d->found = true;
	d->features = attr_uint(tb[ND_A_DEV_XDP_RX_METADATA_FEATURES]);
	return 0;
}

int netdev_nl_rx_metadata(struct napi_nl *nl, int ifindex, __u64 *features)
{
	struct dev_arg d = { .ifindex = ifindex };
	__u32 idx = ifindex;
	struct nl_req r;
	int err = open_family(nl);

	if (err)
		return err;
	req_init(&r, nl->family, NLM_F_ACK, ND_CMD_DEV_GET);
	req_put(&r, ND_A_DEV_IFINDEX, &idx, sizeof(idx));
	err = nl_talk(nl, &r, dev_cb, &d);
	if (err)
		return err;
	if (!d.found)
		return -EOPNOTSUPP;
	*features = d.features;
	return 0;
}

void napi_nl_close(struct napi_nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	free(nl->buf);
}

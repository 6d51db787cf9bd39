// SPDX-License-Identifier: GPL-2.0
/* Device knobs: which mechanism serves each knob, and apply, undo and
 * restore on top of them. device.h says which mechanism reads and writes
 * what; ethtool.c, net_sysfs.c and napi_netlink.c are the mechanisms.
 */
#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include "device.h"
#include "ethtool.h"
#include "ifname.h"
#include "log.h"
#include "napi_netlink.h"
#include "net_sysfs.h"

#define NO_NAPI_WHY "the device has no NAPI instances (a veth has them only " \
		    "while GRO is on or an XDP program is attached)"

struct dev_ctx {
	const char *ifname;
	char shown[IFNAME_SHOWN_LEN];	/* the name, escaped for messages */
	int ifindex;
	struct ethtool_dev eth;
	struct napi_nl nl;	/* opened only when sysfs will not do */
	int sysfs_root;		/* /sys, or a sysfs mounted for our namespace */
	bool sysfs_ours;	/* class/net/IFACE under sysfs_root is this device */
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

static const char *cause(const struct dev_ctx *c, int err)
{
	return c->why[0] ? c->why : strerror(-err);
}

/* ---- GRO -------------------------------------------------------------- */

/* The kernel accepts a feature request it cannot honour (the driver's
 * fix_features wins), so read back what the device really does.
 */
static int gro_write(struct dev_ctx *c, __u32 on)
{
	__u32 now;
	int err;

	err = ethtool_set_value(&c->eth, ETHTOOL_SGRO, on);
	if (!err)
		err = ethtool_get_value(&c->eth, ETHTOOL_GGRO, &now);
	if (!err && now != on) {
		set_why(c, "the driver did not change it");
		err = -EOPNOTSUPP;
	}
	return err;
}

/* ---- sysfs ------------------------------------------------------------ */

/* /sys shows the network namespace it was mounted in, not the caller's:
 * after setns(2) or `nsenter --net`, /sys/class/net/eth0 may be another
 * namespace's eth0. Trust it only if ifindex and MAC both match the
 * device this process sees; a zero MAC (loopback, tunnels) proves nothing.
 */
static bool sysfs_shows_device(struct dev_ctx *c)
{
	unsigned char mac[6], zero[6] = { 0 }, own[6];
	char buf[64];
	__u64 ifindex;

	if (net_sysfs_read_u64(c->sysfs_root, c->ifname, "ifindex", &ifindex) ||
	    ifindex != (__u64)c->ifindex)
		return false;
	if (net_sysfs_read(c->sysfs_root, c->ifname, "address", buf, sizeof(buf)) ||
	    sscanf(buf, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2],
		   &mac[3], &mac[4], &mac[5]) != 6 || !memcmp(mac, zero, 6))
		return false;
	if (ethtool_hwaddr(&c->eth, own))
		return false;
	return !memcmp(own, mac, 6);
}

static bool sysfs_usable(const struct dev_ctx *c, const struct knob *k)
{
	return c->sysfs_ours && net_sysfs_writable(c->sysfs_root, c->ifname, k->file);
}

/* When /sys shows another namespace and the kernel lacks the netdev
 * netlink NAPI commands (Debian 12's 6.1, say), a sysfs mounted by this
 * process shows its own namespace. Only then: a kernel with NAPI_SET gets
 * the netlink path, as device.h describes.
 */
static void sysfs_of_own_namespace(struct dev_ctx *c)
{
	int root;

	if (c->sysfs_ours || !napi_nl_open(&c->nl))
		return;
	root = net_sysfs_mount_own();
	if (root < 0) {
		log_debug("cannot mount a sysfs for %s's namespace: %s", c->shown,
			  strerror(-root));
		return;
	}
	c->sysfs_root = root;
	c->sysfs_ours = sysfs_shows_device(c);
	log_debug("%s: NAPI settings via a sysfs of this namespace%s", c->shown,
		  c->sysfs_ours ? "" : ", which does not show it either");
}

/* ---- per NAPI, over netlink ------------------------------------------- */

/* err, with the kernel's own explanation of a failed request as the cause
 * when it sent one.
 */
static int nl_result(struct dev_ctx *c, int err)
{
	if (err && c->nl.why[0])
		set_why(c, c->nl.why);
	return err;
}

/* The device's NAPI instances, which must exist and know the knob. */
static int napi_dump_for(struct dev_ctx *c, const struct knob *k, struct napi_list *l)
{
	int err = napi_nl_open(&c->nl);

	if (err && !c->sysfs_ours)
		set_why(c, "/sys/class/net does not show this network namespace's device, "
			   "a sysfs for this namespace could not be mounted, and the "
			   "kernel lacks the netdev netlink NAPI commands");
	else if (err)
		set_why(c, "its sysfs file is not writable and the kernel lacks the "
			   "netdev netlink NAPI commands");
	if (err)
		return err;
	err = nl_result(c, napi_nl_dump(&c->nl, c->ifindex, l));
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

static int napi_knob_read(struct dev_ctx *c, const struct knob *k, __u64 *val)
{
	struct napi_list l = { 0 };
	int err = napi_dump_for(c, k, &l);

	if (!err)
		*val = l.v[0].val[k->napi_attr];
	free(l.v);
	return err;
}

static int napi_knob_write(struct dev_ctx *c, const struct knob *k, __u64 val)
{
	struct napi_list l = { 0 };
	int i, err = napi_dump_for(c, k, &l);

	if (err == -ENODATA)
		err = -EOPNOTSUPP;
	for (i = 0; !err && i < l.n; i++)
		err = nl_result(c, napi_nl_set(&c->nl, l.v[i].id, k->napi_attr,
					       k->napi_len, val));
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
		err = ethtool_get_value(&c->eth, ETHTOOL_GGRO, &v32);
		*val = v32;
		return err;
	}
	if (sysfs_usable(c, k))
		return net_sysfs_read_u64(c->sysfs_root, c->ifname, k->file, val);
	return napi_knob_read(c, k, val);
}

static int knob_write(struct dev_ctx *c, const struct knob *k, __u64 val)
{
	int err;

	c->why[0] = '\0';
	if (!k->file)
		return gro_write(c, val);
	if (!sysfs_usable(c, k)) {
		log_debug("%s on %s: via netlink, per NAPI", k->label, c->shown);
		return napi_knob_write(c, k, val);
	}
	err = net_sysfs_write_u64(c->sysfs_root, c->ifname, k->file, val);
	/* The kernel refuses threaded NAPI on a device with no instances. */
	if (err == -EOPNOTSUPP && k->bit == DEV_THREADED_NAPI)
		set_why(c, NO_NAPI_WHY);
	return err;
}

static int knob_fail(struct dev_ctx *c, const char *verb, const struct knob *k, int err)
{
	log_err("cannot %s %s on %s: %s", verb, k->label, c->shown, cause(c, err));
	return err;
}

/* A failure the caller goes on from: shown only with -v. */
static void knob_note(const struct dev_ctx *c, const char *verb, const struct knob *k, int err)
{
	log_debug("cannot %s %s on %s: %s", verb, k->label, c->shown, cause(c, err));
}

/* ---- the API ---------------------------------------------------------- */

static int ctx_open(struct dev_ctx *c, const char *ifname, bool quiet)
{
	memset(c, 0, sizeof(*c));
	c->ifname = ifname;
	log_printable(ifname, c->shown, sizeof(c->shown));
	ethtool_dev_init(&c->eth, ifname);
	napi_nl_init(&c->nl);
	c->sysfs_root = NET_SYSFS_SYS;
	c->ifindex = if_nametoindex(ifname);
	if (!c->ifindex) {
		if (!quiet)
			log_err("no such interface: %s", c->shown);
		return -ENODEV;
	}
	c->sysfs_ours = sysfs_shows_device(c);
	sysfs_of_own_namespace(c);
	return 0;
}

static void ctx_close(struct dev_ctx *c)
{
	ethtool_dev_close(&c->eth);
	napi_nl_close(&c->nl);
	if (c->sysfs_root != NET_SYSFS_SYS)
		close(c->sysfs_root);
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
			knob_note(&c, "read", &knobs[i], err);
	}
	ctx_close(&c);
	return 0;
}

void device_settings_merge(struct device_settings *dst, const struct device_settings *src)
{
	int i;

	for (i = 0; i < NKNOBS; i++)
		if (src->mask & knobs[i].bit)
			field_put(dst, knobs[i].bit, field_get(src, knobs[i].bit));
}

int device_save(const char *ifname, __u32 mask, struct device_settings *saved)
{
	struct dev_ctx c;
	__u64 val;
	int i, err;

	err = ctx_open(&c, ifname, false);
	if (err)
		return err;
	for (i = 0; i < NKNOBS; i++) {
		if (!(mask & knobs[i].bit) || (saved->mask & knobs[i].bit))
			continue;
		err = knob_read(&c, &knobs[i], &val);
		if (!err)
			field_put(saved, knobs[i].bit, val);
	}
	ctx_close(&c);
	return 0;
}

static int check_want(struct dev_ctx *c, const struct device_settings *want)
{
	if (want->mask & ~DEV_ALL) {
		log_err("cannot change settings on %s: unknown setting bits 0x%x", c->shown,
			want->mask & ~DEV_ALL);
		return -EINVAL;
	}
	if ((want->mask & DEV_GRO) && want->gro > 1) {
		log_err("cannot change GRO on %s: %u is not 0 or 1", c->shown, want->gro);
		return -EINVAL;
	}
	/* The kernel keeps the count in an int: 6.1 takes 2147483648 and
	 * reads back -2147483648, later kernels refuse it with ERANGE once
	 * other settings may have changed. Refuse it before any write.
	 */
	if ((want->mask & DEV_DEFER_HARD_IRQS) && want->defer_hard_irqs > INT32_MAX) {
		log_err("cannot change napi_defer_hard_irqs on %s: %u is above %d, the largest the kernel keeps",
			c->shown, want->defer_hard_irqs, INT32_MAX);
		return -ERANGE;
	}
	if ((want->mask & DEV_THREADED_NAPI) && want->threaded > 1) {
		log_err("cannot change threaded NAPI on %s: %u is not 0 or 1", c->shown,
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
			knob_note(c, "undo", &knobs[i], err);
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

	if (ethtool_get_value(&c->eth, ETHTOOL_GGRO, &gro) || gro || gro_write(c, 1))
		return -EOPNOTSUPP;
	log_debug("GRO on for a moment on %s, to restore threaded NAPI", c->shown);
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
			knob_note(&c, "restore", &knobs[i], err);
	}
	ctx_close(&c);
	return first;
}

int device_set_tx_csum(const char *ifname, bool on)
{
	struct dev_ctx c;
	int err;

	err = ctx_open(&c, ifname, false);
	if (err)
		return err;
	err = ethtool_set_value(&c.eth, ETHTOOL_STXCSUM, on);
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
	veth = !ethtool_ioctl(&c.eth, &info) && !strcmp(info.driver, "veth");
	ctx_close(&c);
	return veth;
}

void device_settings_format(const struct device_settings *d, char *buf, size_t len)
{
	size_t off = 0;

#define PUT(...) (off += snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__))
	buf[0] = '\0';
	if (d->mask & DEV_GRO)
		PUT("%sgro %s", off ? ", " : "", d->gro ? "on" : "off");
	if (d->mask & DEV_GRO_FLUSH_TIMEOUT)
		PUT("%sgro-flush-timeout %lluns", off ? ", " : "",
		    (unsigned long long)d->gro_flush_timeout);
	if (d->mask & DEV_DEFER_HARD_IRQS)
		PUT("%sdefer-hard-irqs %u", off ? ", " : "", d->defer_hard_irqs);
	if (d->mask & DEV_THREADED_NAPI)
		PUT("%sthreaded-napi %s", off ? ", " : "", d->threaded ? "on" : "off");
#undef PUT
	if (!off)
		snprintf(buf, len, "none");
}

int device_hwaddr(const char *ifname, __u8 mac[6])
{
	struct ethtool_dev eth;
	int err;

	ethtool_dev_init(&eth, ifname);
	err = ethtool_hwaddr(&eth, mac);
	ethtool_dev_close(&eth);
	return err;
}

int device_rx_hash(int ifindex)
{
	struct napi_nl nl;
	__u64 features;
	int err;

	napi_nl_init(&nl);
	err = netdev_nl_rx_metadata(&nl, ifindex, &features);
	napi_nl_close(&nl);
	if (err)
		return -EOPNOTSUPP;
	return !!(features & ND_XDP_RX_METADATA_HASH);
}

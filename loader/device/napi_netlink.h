/* SPDX-License-Identifier: GPL-2.0 */
/* The netdev generic netlink family, as far as the device knobs need it:
 * NAPI_GET dumps a device's NAPI instances with their settings, NAPI_SET
 * changes one setting of one instance, DEV_GET says which XDP RX metadata
 * the driver gives. Netlink acts in the caller's network namespace,
 * whatever /sys shows; device.c uses it only where sysfs will not do (see
 * device.h).
 */
#ifndef CPUSTEER_NAPI_NETLINK_H
#define CPUSTEER_NAPI_NETLINK_H

#include <stdbool.h>
#include <linux/types.h>

/* NAPI attributes of the netdev family. Debian 12's kernel headers (6.1)
 * have no <linux/netdev.h>, so the numbers are spelled out here; they are
 * kernel ABI. Own names, so a newer system header cannot clash with them.
 */
#define ND_A_NAPI_IFINDEX		1	/* u32 */
#define ND_A_NAPI_ID			2	/* u32 */
#define ND_A_NAPI_DEFER_HARD_IRQS	5	/* u32 */
#define ND_A_NAPI_GRO_FLUSH_TIMEOUT	6	/* uint: 4 or 8 bytes */
#define ND_A_NAPI_THREADED		8	/* u32, since 6.17 */
#define ND_A_NAPI_MAX			8
#define ND_A_DEV_IFINDEX		1	/* u32 */
#define ND_A_DEV_XDP_RX_METADATA_FEATURES 5	/* u64, since 6.7 */
#define ND_XDP_RX_METADATA_HASH		(1ull << 1)

struct napi_nl {
	int fd;			/* -1 until napi_nl_open() */
	int err;		/* why netlink is unusable, once known */
	__u16 family;
	bool can_get;	/* the kernel has NAPI_GET (6.9) */
	bool can_set;	/* the kernel has NAPI_SET too (6.13) */
	__u32 seq;
	char *buf;
	/* The kernel's own explanation of the last failed request (its
	 * extended ack) after strerror(), or "" when it sent none.
	 */
	char why[256];
};

/* A NAPI instance as NAPI_GET reports it. */
struct napi {
	__u32 id;
	__u32 have;	/* bit n: attribute n came */
	__u64 val[ND_A_NAPI_MAX + 1];
};

struct napi_list {
	int n;
	struct napi *v;	/* the caller frees it */
};

void napi_nl_init(struct napi_nl *nl);

/* Opens the socket and resolves the family on the first call, and
 * remembers the outcome: -EOPNOTSUPP when the kernel lacks NAPI_GET or
 * NAPI_SET (before 6.13).
 */
int napi_nl_open(struct napi_nl *nl);

/* napi_nl_open() for a reader: needs only NAPI_GET (6.9), so it shows
 * the instances of a kernel that cannot change them yet.
 */
int napi_nl_open_dump(struct napi_nl *nl);

/* Appends the NAPI instances of device `ifindex` to *l. */
int napi_nl_dump(struct napi_nl *nl, int ifindex, struct napi_list *l);

/* Sets attribute `attr`, `len` (4 or 8) bytes wide, of NAPI instance `id`. */
int napi_nl_set(struct napi_nl *nl, __u32 id, int attr, int len, __u64 val);

/* The ND_XDP_RX_METADATA_* bits device `ifindex`'s driver implements;
 * -EOPNOTSUPP where the kernel does not say (before 6.7).
 */
int netdev_nl_rx_metadata(struct napi_nl *nl, int ifindex, __u64 *features);

void napi_nl_close(struct napi_nl *nl);

#endif

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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "napi_netlink.h"

static void die(const char *what, int err)
{
	fprintf(stderr, "napi_show: %s: %s\n", what, strerror(err));
	exit(1);
}

static long long attr_or_none(const struct napi *n, int attr)
{
	return n->have & (1u << attr) ? (long long)n->val[attr] : -1;
}

int main(int argc, char **argv)
{
	struct napi_list l = { 0 };
	struct napi_nl nl;
	int ifindex, err, i;

	if (argc != 2) {
		fputs("usage: napi_show IFACE\n", stderr);
		return 2;
	}
	ifindex = if_nametoindex(argv[1]);
	if (!ifindex)
		die(argv[1], errno);
	napi_nl_init(&nl);
	err = napi_nl_open_dump(&nl);
	if (err)
		die("generic netlink family netdev", -err);
	err = napi_nl_dump(&nl, ifindex, &l);
	if (err)
		die("NAPI_GET", -err);
	for (i = 0; i < l.n; i++)
		printf("napi %u defer_hard_irqs %lld gro_flush_timeout %lld threaded %lld\n",
		       l.v[i].id, attr_or_none(&l.v[i], ND_A_NAPI_DEFER_HARD_IRQS),
		       attr_or_none(&l.v[i], ND_A_NAPI_GRO_FLUSH_TIMEOUT),
		       attr_or_none(&l.v[i], ND_A_NAPI_THREADED));
	free(l.v);
	napi_nl_close(&nl);
	return 0;
}

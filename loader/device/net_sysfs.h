/* SPDX-License-Identifier: GPL-2.0 */
/* Files under /sys/class/net/IFACE/. /sys shows the network namespace it
 * was mounted in, not necessarily the caller's, so device.c trusts these
 * only once it has checked that they show its own device.
 */
#ifndef CPUSTEER_NET_SYSFS_H
#define CPUSTEER_NET_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* The file's text, cut to len - 1 bytes and terminated. */
int net_sysfs_read(const char *ifname, const char *file, char *buf, size_t len);
/* A decimal number, alone on its line. */
int net_sysfs_read_u64(const char *ifname, const char *file, __u64 *val);
int net_sysfs_write_u64(const char *ifname, const char *file, __u64 val);
bool net_sysfs_writable(const char *ifname, const char *file);

#endif

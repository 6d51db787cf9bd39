/* SPDX-License-Identifier: GPL-2.0 */
/* Files under class/net/IFACE/ of a sysfs. /sys shows the network
 * namespace it was mounted in, not necessarily the caller's (after
 * setns(2) or `nsenter --net` it shows the old one), so device.c trusts a
 * root only once it has checked that it shows its own device.
 */
#ifndef CPUSTEER_NET_SYSFS_H
#define CPUSTEER_NET_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <fcntl.h>
#include <linux/types.h>

/* `root` is NET_SYSFS_SYS for /sys, or an fd from net_sysfs_mount_own(). */
#define NET_SYSFS_SYS AT_FDCWD

/* The file's text, cut to len - 1 bytes and terminated. */
int net_sysfs_read(int root, const char *ifname, const char *file, char *buf, size_t len);
/* A decimal number, alone on its line. */
int net_sysfs_read_u64(int root, const char *ifname, const char *file, __u64 *val);
int net_sysfs_write_u64(int root, const char *ifname, const char *file, __u64 val);
bool net_sysfs_writable(int root, const char *ifname, const char *file);

/* A sysfs of the caller's network namespace, mounted nowhere: the fd of
 * a detached mount (close it when done), or a negative errno.
 */
int net_sysfs_mount_own(void);

#endif

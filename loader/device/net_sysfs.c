// SPDX-License-Identifier: GPL-2.0
/* Reads and writes of class/net/IFACE/FILE under a sysfs root: /sys, or a
 * sysfs of the caller's own network namespace (see net_sysfs.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mount.h>
#include "net_sysfs.h"

/* Relative to a detached mount's fd, or absolute under /sys. */
static void sysfs_path(int root, const char *ifname, const char *file, char *buf, size_t len)
{
	snprintf(buf, len, "%sclass/net/%s/%s", root == NET_SYSFS_SYS ? "/sys/" : "", ifname,
		 file);
}

int net_sysfs_read(int root, const char *ifname, const char *file, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	sysfs_path(root, ifname, file, path, sizeof(path));
	fd = openat(root, path, O_RDONLY | O_CLOEXEC);
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

int net_sysfs_read_u64(int root, const char *ifname, const char *file, __u64 *val)
{
	char buf[64], *end;
	int err = net_sysfs_read(root, ifname, file, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

int net_sysfs_write_u64(int root, const char *ifname, const char *file, __u64 val)
{
	char path[128], buf[32];
	int fd, len, err = 0;

	sysfs_path(root, ifname, file, path, sizeof(path));
	fd = openat(root, path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)val);
	if (write(fd, buf, len) != len)
		err = -errno;
	close(fd);
	return err;
}

bool net_sysfs_writable(int root, const char *ifname, const char *file)
{
	char path[128];

	sysfs_path(root, ifname, file, path, sizeof(path));
	return faccessat(root, path, W_OK, 0) == 0;
}

/* The kernel tags a new sysfs superblock with the mounting task's network
 * namespace, so class/net of this mount lists our devices whatever /sys
 * shows. The mount is never attached anywhere: nothing in the mount table
 * changes, and it goes away with the last fd.
 */
int net_sysfs_mount_own(void)
{
	int fs, mnt;

	fs = fsopen("sysfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		mnt = -errno;
	} else {
		mnt = fsmount(fs, FSMOUNT_CLOEXEC,
			      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
		if (mnt < 0)
			mnt = -errno;
	}
	close(fs);
	return mnt;
}

// SPDX-License-Identifier: GPL-2.0
/* Reads and writes of /sys/class/net/IFACE/FILE. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "net_sysfs.h"

static void sysfs_path(const char *ifname, const char *file, char *buf, size_t len)
{
	snprintf(buf, len, "/sys/class/net/%s/%s", ifname, file);
}

int net_sysfs_read(const char *ifname, const char *file, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	sysfs_path(ifname, file, path, sizeof(path));
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

int net_sysfs_read_u64(const char *ifname, const char *file, __u64 *val)
{
	char buf[64], *end;
	int err = net_sysfs_read(ifname, file, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

int net_sysfs_write_u64(const char *ifname, const char *file, __u64 val)
{
	char path[128], buf[32];
	int fd, len, err = 0;

	sysfs_path(ifname, file, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)val);
	if (write(fd, buf, len) != len)
		err = -errno;
	close(fd);
	return err;
}

bool net_sysfs_writable(const char *ifname, const char *file)
{
	char path[128];

	sysfs_path(ifname, file, path, sizeof(path));
	return access(path, W_OK) == 0;
}

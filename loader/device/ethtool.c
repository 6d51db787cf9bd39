// SPDX-License-Identifier: GPL-2.0
/* Interface ioctls on one device, over a socket opened on first use. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include "ethtool.h"

void ethtool_dev_init(struct ethtool_dev *e, const char *ifname)
{
	e->ifname = ifname;
	e->fd = -1;
}

void ethtool_dev_close(struct ethtool_dev *e)
{
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
}

/* Interface ioctls act in the namespace of the socket: the caller's. */
static int dev_ioctl(struct ethtool_dev *e, unsigned long req, struct ifreq *ifr)
{
	if (e->fd < 0) {
		e->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (e->fd < 0)
			return -errno;
	}
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", e->ifname);
	return ioctl(e->fd, req, ifr) < 0 ? -errno : 0;
}

int ethtool_ioctl(struct ethtool_dev *e, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_data = cmd;
	return dev_ioctl(e, SIOCETHTOOL, &ifr);
}

int ethtool_get_value(struct ethtool_dev *e, __u32 cmd, __u32 *val)
{
	struct ethtool_value ev = { .cmd = cmd };
	int err = ethtool_ioctl(e, &ev);

	if (!err)
		*val = ev.data;
	return err;
}

int ethtool_set_value(struct ethtool_dev *e, __u32 cmd, __u32 val)
{
	struct ethtool_value ev = { .cmd = cmd, .data = val };

	return ethtool_ioctl(e, &ev);
}

int ethtool_hwaddr(struct ethtool_dev *e, unsigned char mac[6])
{
	struct ifreq ifr;
	int err;

	memset(&ifr, 0, sizeof(ifr));
	err = dev_ioctl(e, SIOCGIFHWADDR, &ifr);
	if (!err)
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return err;
}

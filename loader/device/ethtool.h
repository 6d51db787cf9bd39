/* SPDX-License-Identifier: GPL-2.0 */
/* The interface ioctls behind the device knobs: ethtool commands (GRO, tx
 * checksumming, the driver's name) and the hardware address. An interface
 * ioctl acts in the network namespace of its socket, which is the
 * caller's, whatever /sys shows.
 */
#ifndef CPUSTEER_ETHTOOL_H
#define CPUSTEER_ETHTOOL_H

#include <linux/types.h>

struct ethtool_dev {
	const char *ifname;
	int fd;		/* -1 until the first ioctl opens it */
};

void ethtool_dev_init(struct ethtool_dev *e, const char *ifname);
void ethtool_dev_close(struct ethtool_dev *e);

/* Any ethtool command struct, e.g. struct ethtool_drvinfo. */
int ethtool_ioctl(struct ethtool_dev *e, void *cmd);

/* The commands that carry one struct ethtool_value, e.g. ETHTOOL_GGRO. */
int ethtool_get_value(struct ethtool_dev *e, __u32 cmd, __u32 *val);
int ethtool_set_value(struct ethtool_dev *e, __u32 cmd, __u32 val);

/* The first six bytes of the hardware address (SIOCGIFHWADDR). */
int ethtool_hwaddr(struct ethtool_dev *e, unsigned char mac[6]);

#endif

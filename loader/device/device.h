/* SPDX-License-Identifier: GPL-2.0 */
/* Device knobs that steering depends on: GRO, the NAPI settings
 * (gro_flush_timeout, napi_defer_hard_irqs, threaded NAPI) and tx
 * checksumming. `load`/`set` change them, `unload` puts them back.
 *
 * What is read and what is written, so that a restore is faithful:
 * - GRO and tx checksumming: the ethtool ioctl, in the caller's network
 *   namespace.
 * - The NAPI settings are read from and written to the device-wide sysfs
 *   files /sys/class/net/IFACE/{gro_flush_timeout,napi_defer_hard_irqs,
 *   threaded}. The kernel copies a device-wide write into every NAPI
 *   instance, and NAPI instances created later (a veth creates new ones
 *   when GRO is turned on or an XDP program is attached) start from the
 *   device-wide value. Per-NAPI writes over netlink change neither the
 *   device-wide value nor later instances: they would be lost when a veth
 *   re-creates its NAPIs.
 * - The netdev generic netlink family (NAPI_GET / NAPI_SET on every NAPI of
 *   the device) is used when this process's /sys does not show its own
 *   network namespace (entered with setns(2) or `nsenter --net`, so
 *   /sys/class/net lists another namespace's devices, possibly one with the
 *   same name) or the sysfs file is not writable. Then the values are
 *   read from the device's first NAPI instance and written to all of them,
 *   and only existing instances carry them.
 * - A kernel without NAPI_SET (before 6.13), when /sys shows another
 *   namespace: the device-wide files of a sysfs that this process mounts
 *   for its own namespace, detached (attached nowhere, gone when closed).
 */
#ifndef CPUSTEER_DEVICE_H
#define CPUSTEER_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* Bits of `mask`: which fields are meaningful. */
#define DEV_GRO              (1u << 0)
#define DEV_GRO_FLUSH_TIMEOUT (1u << 1)
#define DEV_DEFER_HARD_IRQS  (1u << 2)
#define DEV_THREADED_NAPI    (1u << 3)
#define DEV_ALL (DEV_GRO | DEV_GRO_FLUSH_TIMEOUT | DEV_DEFER_HARD_IRQS | DEV_THREADED_NAPI)

struct device_settings {
	__u32 mask;
	__u32 gro;              /* 0/1 */
	__u32 threaded;         /* 0/1 */
	__u32 defer_hard_irqs;
	__u64 gro_flush_timeout; /* ns */
};

/* All functions that return int return 0 or a negative errno and, on
 * error, print one line that names the interface, the setting and the
 * cause.
 */

/* Reads every setting the device has; a bit in cur->mask says the field
 * could be read. Without NAPI instances and without a usable sysfs (see
 * above) the NAPI settings are unreadable and their bits stay clear.
 */
int device_read(const char *ifname, struct device_settings *cur);

/* Copies into *dst every setting that src->mask holds. */
void device_settings_merge(struct device_settings *dst, const struct device_settings *src);

/* Records the current value of each setting in `mask` that *saved does
 * not hold yet, so that the record of what to restore can be written
 * before anything changes. A setting that cannot be read now is left out
 * (device_apply() records it when it reads it).
 */
int device_save(const char *ifname, __u32 mask, struct device_settings *saved);

/* Sets the fields in want->mask, in this order: GRO (on a veth it creates
 * or removes the NAPI instances the rest need), gro_flush_timeout,
 * napi_defer_hard_irqs, threaded. Before a field is first changed its
 * current value goes into *saved (and its bit into saved->mask), so after
 * several applies *saved still holds the values from before the first one.
 * On failure everything this call changed is set back and *saved is left
 * as it was. Start with *saved zeroed.
 */
int device_apply(const char *ifname, const struct device_settings *want,
		 struct device_settings *saved);

/* Sets back every field in saved->mask, in the reverse order of apply;
 * tries them all and returns the first error (printing only that one).
 * Returns -ENODEV without printing when the interface no longer exists.
 * Works after the XDP program is detached too: a veth without GRO then
 * has no NAPI instances and the kernel refuses the threaded setting, so
 * GRO is turned on for the moment it takes (per-NAPI values set over
 * netlink went away with the instances and need no restoring).
 */
int device_restore(const char *ifname, const struct device_settings *saved);

/* Turns tx checksumming on or off. A veth that sends traffic steered
 * through a cpumap needs it off: the "checksum offloaded" state of its
 * packets is lost on the way and the receiver drops them as bad.
 */
int device_set_tx_csum(const char *ifname, bool on);

/* "gro on, gro-flush-timeout 0ns, ..." for the fields in d->mask, or
 * "none".
 */
void device_settings_format(const struct device_settings *d, char *buf, size_t len);

/* The device's hardware address, silently. */
int device_hwaddr(const char *ifname, __u8 mac[6]);

/* Whether the ethtool driver name is "veth"; false on any error, silently. */
bool device_is_veth(const char *ifname);

/* Whether the driver of `ifindex` gives XDP programs the NIC's RX hash:
 * 1 or 0, or -EOPNOTSUPP where the kernel does not say (before 6.7).
 * veth gives it for frames that came through its peer's stack, never for
 * frames XDP sent; a NIC, as its RSS settings make it.
 */
int device_rx_hash(int ifindex);

#endif

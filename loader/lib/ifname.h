/* SPDX-License-Identifier: GPL-2.0 */
/* Interface names as the kernel accepts them. Every command checks the
 * name it was given before the name reaches a path or a system call, and
 * spells it two other ways: escaped for messages (a name may hold any
 * byte but '/', ':' and white space, terminal controls included) and as
 * the name of its pin folder (bpffs refuses names with a dot, and
 * "eth0.100" is the usual name of a VLAN interface).
 */
#ifndef CPUSTEER_IFNAME_H
#define CPUSTEER_IFNAME_H

#include <stddef.h>
#include <net/if.h>

/* Room for any name escaped by log_printable(), NUL included. */
#define IFNAME_SHOWN_LEN (4 * IF_NAMESIZE)

/* 0 when `name` is a name the kernel would give an interface; otherwise
 * one line on stderr ("bad interface name ...: why") and -EINVAL.
 */
int ifname_check(const char *name);

/* The pin folder's name for a checked interface name: each '.' becomes
 * ':', which no interface name holds, so the mapping is one to one.
 */
void ifname_to_pin_name(const char *name, char out[IF_NAMESIZE]);

/* The reverse; -EINVAL when `pin` is no pin folder name of a valid
 * interface name (silently: listing skips such folders).
 */
int ifname_from_pin_name(const char *pin, char out[IF_NAMESIZE]);

#endif

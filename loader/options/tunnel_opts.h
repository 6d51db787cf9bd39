/* SPDX-License-Identifier: GPL-2.0 */
/* --inner: which tunnels are steered by the flow they carry, and on which
 * UDP ports VXLAN, GENEVE and GTP-U are recognised, as the configuration holds
 * them (cpusteer.h) and as the command line and `status` spell them.
 */
#ifndef CPUSTEER_TUNNEL_OPTS_H
#define CPUSTEER_TUNNEL_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include "cpusteer.h"

#define VXLAN_DEFAULT_PORT 4789		/* IANA, RFC 7348 */
#define GENEVE_DEFAULT_PORT 6081	/* IANA, RFC 8926 */
#define GTPU_DEFAULT_PORT 2152		/* 3GPP TS 29.281 */

/* Whether a tunnel kind rides in UDP on ports of its own: VXLAN, GENEVE
 * and either GTP-U kind.
 */
bool tunnel_over_udp(__u32 kind);

/* The usual UDP port of VXLAN, GENEVE or either GTP-U kind. */
__u32 tunnel_default_port(__u32 kind);

/* "vxlan,geneve:6082,gre", "all" or "none" into the configuration's
 * tunnel fields, all of which it sets. One line and -EINVAL for a bad
 * list.
 */
int inner_parse(const char *arg, struct cpusteer_config *cfg);

/* The tunnel fields as inner_parse reads them, ports always shown:
 * "vxlan:4789,gre", or "none".
 */
void inner_format(const struct cpusteer_config *cfg, char *buf, size_t len);

#endif

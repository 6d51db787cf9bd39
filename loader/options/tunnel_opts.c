// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "log.h"
#include "names.h"
#include "tunnel_opts.h"

#define INNER_EXPECTED \
	"vxlan[:PORT], geneve[:PORT], gre, ipip, sit, erspan, gtpu[:PORT], gtpu-teid[:PORT], all or none"

bool tunnel_over_udp(__u32 kind)
{
	return kind == CPUSTEER_TUNNEL_VXLAN || kind == CPUSTEER_TUNNEL_GENEVE ||
	       kind == CPUSTEER_TUNNEL_GTPU || kind == CPUSTEER_TUNNEL_GTPU_TEID;
}

__u32 tunnel_default_port(__u32 kind)
{
	switch (kind) {
	case CPUSTEER_TUNNEL_VXLAN:
		return VXLAN_DEFAULT_PORT;
	case CPUSTEER_TUNNEL_GENEVE:
		return GENEVE_DEFAULT_PORT;
	default:
		return GTPU_DEFAULT_PORT;
	}
}

static int kind_by_name(const char *name, size_t len, __u32 *kind)
{
	__u32 k;

	for (k = 0; k < CPUSTEER_TUNNELS; k++) {
		if (strlen(tunnel_name(k)) == len && !strncmp(name, tunnel_name(k), len)) {
			*kind = k;
			return 0;
		}
	}
	return -EINVAL;
}

/* One more UDP port for `kind`; the same port twice for one kind is
 * harmless, for two kinds it is a contradiction.
 */
static int add_udp_port(struct cpusteer_config *cfg, __u32 kind, __u32 port)
{
	__be16 wire = htons(port);
	__u32 i;

	for (i = 0; i < cfg->udp_tunnel_ports; i++) {
		if (cfg->udp_tunnel_port[i] != wire)
			continue;
		if (cfg->udp_tunnel_kind[i] == kind)
			return 0;
		log_err("bad --inner: UDP port %u given for both %s and %s", port,
			tunnel_name(cfg->udp_tunnel_kind[i]), tunnel_name(kind));
		return -EINVAL;
	}
	if (cfg->udp_tunnel_ports == CPUSTEER_MAX_UDP_TUNNEL_PORTS) {
		log_err("bad --inner: more than %d UDP tunnel ports", CPUSTEER_MAX_UDP_TUNNEL_PORTS);
		return -EINVAL;
	}
	cfg->udp_tunnel_port[i] = wire;
	cfg->udp_tunnel_kind[i] = kind;
	cfg->udp_tunnel_ports++;
	cfg->udp_tunnel_filter |= 1ull << (port % 64);
	return 0;
}

static int add_kind(struct cpusteer_config *cfg, __u32 kind, const char *port_arg)
{
	__u32 port;
	int err;

	cfg->inner |= 1u << kind;
	if (!tunnel_over_udp(kind)) {
		if (port_arg) {
			log_err("bad --inner '%s:%s': %s is not carried over UDP and has no port",
				tunnel_name(kind), port_arg, tunnel_name(kind));
			return -EINVAL;
		}
		return 0;
	}
	port = tunnel_default_port(kind);
	if (port_arg) {
		err = parse_u32("--inner UDP port", port_arg, 1, 65535, &port);
		if (err)
			return err;
	}
	return add_udp_port(cfg, kind, port);
}

static int add_item(struct cpusteer_config *cfg, const char *item)
{
	const char *colon = strchr(item, ':');
	size_t len = colon ? (size_t)(colon - item) : strlen(item);
	__u32 kind;

	if (kind_by_name(item, len, &kind)) {
		log_err("bad --inner item '%s': expected %s", item, INNER_EXPECTED);
		return -EINVAL;
	}
	return add_kind(cfg, kind, colon ? colon + 1 : NULL);
}

static void inner_clear(struct cpusteer_config *cfg)
{
	cfg->inner = 0;
	cfg->udp_tunnel_ports = 0;
	cfg->udp_tunnel_filter = 0;
	memset(cfg->udp_tunnel_port, 0, sizeof(cfg->udp_tunnel_port));
	memset(cfg->udp_tunnel_kind, 0, sizeof(cfg->udp_tunnel_kind));
}

int inner_parse(const char *arg, struct cpusteer_config *cfg)
{
	char list[256], *item, *save = NULL;
	__u32 kind;
	int err;

	inner_clear(cfg);
	if (!strcmp(arg, "none"))
		return 0;
	/* Every kind steered by the inner flow: GTP-U by tunnel would take
	 * the same port as GTP-U by the inner flow.
	 */
	if (!strcmp(arg, "all")) {
		for (kind = 0; kind < CPUSTEER_TUNNELS; kind++) {
			if (kind != CPUSTEER_TUNNEL_GTPU_TEID)
				add_kind(cfg, kind, NULL);
		}
		return 0;
	}
	if (!*arg || strlen(arg) >= sizeof(list) || arg[strlen(arg) - 1] == ',' ||
	    strstr(arg, ",,") || *arg == ',') {
		log_err("bad --inner '%s': expected a comma-separated list of %s", arg,
			INNER_EXPECTED);
		return -EINVAL;
	}
	strcpy(list, arg);
	for (item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		err = add_item(cfg, item);
		if (err) {
			inner_clear(cfg);
			return err;
		}
	}
	return 0;
}

void inner_format(const struct cpusteer_config *cfg, char *buf, size_t len)
{
	size_t used = 0;
	__u32 kind, i;

	buf[0] = '\0';
	for (kind = 0; kind < CPUSTEER_TUNNELS && used < len; kind++) {
		if (!(cfg->inner & (1u << kind)))
			continue;
		if (!tunnel_over_udp(kind)) {
			used += snprintf(buf + used, len - used, "%s%s", used ? "," : "",
					 tunnel_name(kind));
			continue;
		}
		for (i = 0; i < cfg->udp_tunnel_ports && i < CPUSTEER_MAX_UDP_TUNNEL_PORTS &&
			    used < len; i++) {
			if (cfg->udp_tunnel_kind[i] == kind)
				used += snprintf(buf + used, len - used, "%s%s:%u",
						 used ? "," : "", tunnel_name(kind),
						 ntohs(cfg->udp_tunnel_port[i]));
		}
	}
	if (!used)
		snprintf(buf, len, "none");
}

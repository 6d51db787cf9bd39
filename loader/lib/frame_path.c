// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <linux/if_ether.h>
#include "frame_path.h"

#define VLAN_TAG_LEN 4
#define PPPOE_SESSION_LEN 8
#define MPLS_ENTRY_LEN 4

static __u16 be16_at(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

/* The TPIDs the program skips (bpf/parse.h): 802.1Q, 802.1AD, and the
 * two older outer-tag types.
 */
static bool is_tag_type(__u16 type)
{
	return type == ETH_P_8021Q || type == ETH_P_8021AD || type == ETH_P_QINQ1 ||
	       type == ETH_P_QINQ2;
}

static bool is_mpls_type(__u16 type)
{
	return type == ETH_P_MPLS_UC || type == ETH_P_MPLS_MC;
}

/* Walks as the program does, and only where the record says it read a
 * header of the kind whole: a tag the program met cut short is not one
 * it walked, and neither is one beyond its limit.
 */
void frame_path_read(const __u8 *frame, __u32 len, __u32 path, struct frame_path *p)
{
	__u32 off = ETH_HLEN;
	__u16 type;

	memset(p, 0, sizeof(*p));
	if (len < ETH_HLEN)
		return;
	type = be16_at(frame + 2 * ETH_ALEN);	/* after the two addresses */
	while ((path & CPUSTEER_PATH_VLAN) && is_tag_type(type) &&
	       p->ntags < CPUSTEER_MAX_VLAN_TAGS && off + VLAN_TAG_LEN <= len) {
		p->tag[p->ntags].tpid = type;
		p->tag[p->ntags].vid = be16_at(frame + off) & 0x0fff;
		p->tag[p->ntags].pcp = frame[off] >> 5;
		p->ntags++;
		type = be16_at(frame + off + 2);
		off += VLAN_TAG_LEN;
	}
	if ((path & CPUSTEER_PATH_PPPOE) && type == ETH_P_PPP_SES &&
	    off + PPPOE_SESSION_LEN <= len) {
		p->pppoe = true;
		p->session = be16_at(frame + off + 2);
		return;
	}
	while ((path & CPUSTEER_PATH_MPLS) && is_mpls_type(type) &&
	       p->nlabels < CPUSTEER_MAX_MPLS_LABELS && off + MPLS_ENTRY_LEN <= len) {
		const __u8 *e = frame + off;

		p->label[p->nlabels].label = (__u32)e[0] << 12 | e[1] << 4 | e[2] >> 4;
		p->label[p->nlabels].tc = (e[2] >> 1) & 7;
		p->label[p->nlabels].bottom = e[2] & 1;
		p->label[p->nlabels].ttl = e[3];
		off += MPLS_ENTRY_LEN;
		if (p->label[p->nlabels++].bottom)
			break;
	}
}

bool frame_path_empty(const struct frame_path *p)
{
	return !p->ntags && !p->pppoe && !p->nlabels;
}

void frame_path_print(const struct frame_path *p, FILE *f)
{
	const char *sep = "";
	unsigned int i;

	if (p->ntags) {
		fprintf(f, "vlan");
		for (i = 0; i < p->ntags; i++)
			fprintf(f, " %#06x:%u", p->tag[i].tpid, p->tag[i].vid);
		sep = ", ";
	}
	if (p->pppoe)
		fprintf(f, "%spppoe session %u", sep, p->session);
	if (p->nlabels) {
		fprintf(f, "%smpls", sep);
		for (i = 0; i < p->nlabels; i++)
			fprintf(f, " %u%s", p->label[i].label, p->label[i].bottom ? "/s" : "");
	}
}

void frame_path_json(struct json *j, const char *key, const struct frame_path *p)
{
	unsigned int i;

	json_object_open(j, key);
	json_array_open(j, "vlan");
	for (i = 0; i < p->ntags; i++) {
		json_object_open(j, NULL);
		json_uint(j, "tpid", p->tag[i].tpid);
		json_uint(j, "vid", p->tag[i].vid);
		json_uint(j, "pcp", p->tag[i].pcp);
		json_object_close(j);
	}
	json_array_close(j);
	if (p->pppoe)
		json_uint(j, "pppoe_session", p->session);
	else
		json_null(j, "pppoe_session");
	json_array_open(j, "mpls");
	for (i = 0; i < p->nlabels; i++) {
		json_object_open(j, NULL);
		json_uint(j, "label", p->label[i].label);
		json_uint(j, "tc", p->label[i].tc);
		json_bool(j, "bottom", p->label[i].bottom);
		json_uint(j, "ttl", p->label[i].ttl);
		json_object_close(j);
	}
	json_array_close(j);
	json_object_close(j);
}

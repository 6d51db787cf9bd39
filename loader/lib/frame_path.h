/* SPDX-License-Identifier: GPL-2.0 */
/* What a frame carries between its Ethernet header and its network
 * header, read back from its bytes for display, as far as the steering
 * program walked it: the decision record's path bits (CPUSTEER_PATH_*)
 * say which headers the program read whole, and this reads their fields.
 */
#ifndef CPUSTEER_FRAME_PATH_H
#define CPUSTEER_FRAME_PATH_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "cpusteer.h"
#include "json.h"

struct frame_path {
	unsigned int ntags;
	struct {
		__u16 tpid;
		__u16 vid;
		__u8 pcp;
	} tag[CPUSTEER_MAX_VLAN_TAGS];
	bool pppoe;
	__u16 session;		/* the PPPoE session ID */
	unsigned int nlabels;
	struct {
		__u32 label;
		__u8 tc;
		__u8 ttl;
		bool bottom;
	} label[CPUSTEER_MAX_MPLS_LABELS];
};

/* The headers `path` names, read from the frame's `len` bytes. */
void frame_path_read(const __u8 *frame, __u32 len, __u32 path, struct frame_path *p);
bool frame_path_empty(const struct frame_path *p);
/* "vlan 0x8100:12 0x88a8:200, pppoe session 7", or "mpls 100 200/s". */
void frame_path_print(const struct frame_path *p, FILE *f);
/* "path": {"vlan": [...], "pppoe_session": N or null, "mpls": [...]}. */
void frame_path_json(struct json *j, const char *key, const struct frame_path *p);

#endif /* CPUSTEER_FRAME_PATH_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* Ethernet pcap files in and out. libpcap's own <pcap/bpf.h> clashes with
 * <linux/bpf.h>, so only capture.c includes libpcap.
 */
#ifndef CPUSTEER_CAPTURE_H
#define CPUSTEER_CAPTURE_H

#include <stddef.h>
#include <linux/types.h>

struct capture;

/* Opens an Ethernet capture for reading; prints why and returns NULL. */
struct capture *capture_open_read(const char *path);
/* 1 with a frame, 0 at the end, negative errno after printing why. */
int capture_next(struct capture *c, const __u8 **frame, __u32 *len);
struct capture *capture_open_write(const char *path);
void capture_write(struct capture *c, const __u8 *frame, size_t len);
/* Frames read or written so far. */
unsigned long capture_frames(const struct capture *c);
/* Negative errno when a frame written could not be stored (a full
 * disk): pcap_dump() itself cannot tell.
 */
int capture_close(struct capture *c);

#endif

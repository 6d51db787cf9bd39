// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <pcap/pcap.h>
#include "capture.h"
#include "log.h"

struct capture {
	pcap_t *pcap;
	pcap_dumper_t *dumper;
	unsigned long frames;
	const char *path;
};

struct capture *capture_open_read(const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct capture *c;
	pcap_t *p = pcap_open_offline(path, errbuf);

	if (!p) {
		log_err("cannot read capture %s: %s", path, errbuf);
		return NULL;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		log_err("cannot classify %s: link type %s, but only Ethernet frames can be steered",
			path, pcap_datalink_val_to_name(pcap_datalink(p)) ?: "unknown");
		pcap_close(p);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		pcap_close(p);
		return NULL;
	}
	c->pcap = p;
	c->path = path;
	return c;
}

int capture_next(struct capture *c, const __u8 **frame, __u32 *len)
{
	struct pcap_pkthdr *hdr;
	int rc = pcap_next_ex(c->pcap, &hdr, frame);

	if (rc == PCAP_ERROR_BREAK)
		return 0;
	if (rc != 1) {
		log_err("cannot read frame %lu of %s: %s", c->frames + 1, c->path,
			pcap_geterr(c->pcap));
		return -EIO;
	}
	c->frames++;
	*len = hdr->caplen;
	return 1;
}

struct capture *capture_open_write(const char *path)
{
	struct capture *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->pcap = pcap_open_dead(DLT_EN10MB, 65535);
	c->dumper = c->pcap ? pcap_dump_open(c->pcap, path) : NULL;
	if (!c->dumper) {
		log_err("cannot write capture %s: %s", path,
			c->pcap ? pcap_geterr(c->pcap) : "libpcap failed");
		capture_close(c);
		return NULL;
	}
	c->path = path;
	return c;
}

/* Timestamps count up a microsecond a frame, so the order reads plainly. */
void capture_write(struct capture *c, const __u8 *frame, size_t len)
{
	struct pcap_pkthdr hdr = { .caplen = len, .len = len };

	hdr.ts.tv_sec = 1700000000;
	hdr.ts.tv_usec = c->frames++;
	pcap_dump((u_char *)c->dumper, &hdr, frame);
}

unsigned long capture_frames(const struct capture *c)
{
	return c->frames;
}

int capture_close(struct capture *c)
{
	int err = 0;

	if (!c)
		return 0;
	/* Buffered writes fail at the flush; pcap_dump_close() would hide
	 * that, so flush first.
	 */
	errno = 0;
	if (c->dumper && (pcap_dump_flush(c->dumper) || ferror(pcap_dump_file(c->dumper))))
		err = errno ? -errno : -EIO;
	if (c->dumper)
		pcap_dump_close(c->dumper);
	if (c->pcap)
		pcap_close(c->pcap);
	free(c);
	return err;
}

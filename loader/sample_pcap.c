// SPDX-License-Identifier: GPL-2.0
/* cpusteer sample-pcap: writes a capture that exercises every path of the
 * steering program, so classify has something real to read on a machine
 * with no traffic of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include "capture.h"
#include "commands.h"
#include "log.h"
#include "cli.h"
#include "frame_builder.h"

static void write_spec(struct capture *w, const struct pkt_spec *s)
{
	__u8 frame[512];
	size_t len = pkt_build(s, frame, sizeof(frame));

	if (len)
		capture_write(w, frame, len);
}

static void write_flows(struct capture *w, __u32 flows)
{
	struct pkt_spec s;
	__u32 i;

	for (i = 0; i < flows; i++) {
		pkt_spec_init(&s, i % 2 ? 6 : 4, i % 4 < 2 ? IPPROTO_UDP : IPPROTO_TCP);
		s.sport = 10000 + i;
		s.dport = 80 + i % 3;
		write_spec(w, &s);
	}
}

/* A GTP-U G-PDU with a PDU session container, as a 5G user plane
 * receives one from a base station.
 */
static void write_gtpu(struct capture *w)
{
	struct pkt_encap g = { .kind = CPUSTEER_TUNNEL_GTPU, .vni = 0x00c0ffee, .gtpu_ext = 1 };
	struct pkt_spec outer, in;
	__u8 frame[512];
	size_t len;

	pkt_spec_init(&outer, 4, IPPROTO_UDP);
	pkt_set_addr4(outer.saddr, 0x0a640001);		/* 10.100.0.1 */
	pkt_set_addr4(outer.daddr, 0x0a640002);
	outer.sport = outer.dport = 2152;
	pkt_spec_init(&in, 4, IPPROTO_TCP);
	len = pkt_build_tunnel(&outer, &g, &in, frame, sizeof(frame));
	if (len)
		capture_write(w, frame, len);
}

static void write_special_cases(struct capture *w)
{
	struct pkt_spec s;
	__u8 frame[512];
	size_t len;

	pkt_spec_init(&s, 4, IPPROTO_UDP);
	s.nvlan = 1;
	s.vlan_tpid[0] = 0x8100;
	s.vlan_tci[0] = 100;
	write_spec(w, &s);			/* same flow as untagged */
	s.nvlan = 2;
	s.vlan_tpid[0] = 0x88a8;
	s.vlan_tci[1] = 200;
	s.vlan_tpid[1] = 0x8100;
	write_spec(w, &s);			/* QinQ */
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	s.ipv4_options_len = 12;
	write_spec(w, &s);			/* IPv4 options */
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.ext[0] = 0;
	s.ext[1] = 60;
	s.next = 2;
	write_spec(w, &s);			/* hop-by-hop + destination options */
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	s.fragment = true;
	s.more_fragments = true;
	write_spec(w, &s);			/* first IPv4 fragment */
	s.more_fragments = false;
	s.frag_offset = 4;
	write_spec(w, &s);			/* last IPv4 fragment */
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.fragment = true;
	s.frag_offset = 4;
	write_spec(w, &s);			/* IPv6 fragment */
	pkt_spec_init(&s, 4, IPPROTO_SCTP);
	write_spec(w, &s);			/* SCTP */
	pkt_spec_init(&s, 4, IPPROTO_ICMP);
	write_spec(w, &s);			/* no ports: addresses + protocol */
	pkt_spec_init(&s, 0, 0);
	s.ethertype = 0x0806;
	write_spec(w, &s);			/* ARP-typed, non-IP */
	pkt_spec_init(&s, 4, IPPROTO_TCP);
	len = pkt_build(&s, frame, sizeof(frame));
	capture_write(w, frame, 14 + 20 + 2);	/* cut short of its Total Length */
	capture_write(w, frame, len < 10 ? len : 10); /* shorter than Ethernet */
	pkt_set_ip_length(&s, frame, 20 + 2);
	capture_write(w, frame, len);		/* a datagram that ends in its ports */
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	s.nvlan = 1;
	s.vlan_tpid[0] = 0x8100;
	s.vlan_tci[0] = 300;
	s.pppoe = true;
	s.pppoe_session = 7;
	write_spec(w, &s);			/* PPPoE session behind a tag */
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.nmpls = 2;
	s.mpls_label[0] = 100;
	s.mpls_label[1] = 200;
	write_spec(w, &s);			/* two MPLS labels */
	write_gtpu(w);
}

struct sample_pcap_opts {
	__u32 flows;
};

static const struct cli_option sample_pcap_options[] = {
	CLI_WHOLE_OPTION("flows", "N", struct sample_pcap_opts, flows, 1, 1000000,
			 "UDP/TCP flows over IPv4 and IPv6", "16", .what = "flow count"),
	{}
};

static const struct sample_pcap_opts sample_pcap_start = { .flows = 16 };

const struct cli_command sample_pcap_command = {
	.name = "sample-pcap",
	.summary = "write a capture that exercises every parsing path",
	.operands = "FILE.pcap",
	.about = "Writes an Ethernet capture with N UDP/TCP flows over IPv4 and IPv6,\n"
		 "then one frame of each special case: VLAN, QinQ, IPv4 options, IPv6\n"
		 "extension headers, fragments, SCTP, ICMP, ARP, a frame cut short of\n"
		 "its IP length, one too short to be Ethernet, a datagram that ends\n"
		 "inside its ports, a PPPoE session behind a tag, two MPLS labels\n"
		 "and a GTP-U G-PDU.\n",
	.groups = { { sample_pcap_options, 0 } },
	.start = &sample_pcap_start,
	.run = cmd_sample_pcap,
};

int cmd_sample_pcap(int argc, char **argv)
{
	struct capture *w;
	unsigned long frames;
	struct sample_pcap_opts o = sample_pcap_start;
	int operand, err;

	err = cli_parse(&sample_pcap_command, argc, argv, &o, &operand);
	if (err)
		return cli_exit_status(err);
	w = capture_open_write(argv[operand]);
	if (!w)
		return 1;
	write_flows(w, o.flows);
	write_special_cases(w);
	frames = capture_frames(w);
	/* A full disk shows only when the buffered frames are flushed. */
	err = capture_close(w);
	if (err) {
		log_err("cannot write capture %s: %s", argv[operand], strerror(-err));
		return 1;
	}
	printf("wrote %lu frames to %s\n", frames, argv[operand]);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* Every counter of the registry (loader/instance/counters.h) moves: for
 * each entry of each descriptor, a frame or a configuration that makes
 * the steering program count it, run through a fresh instance of its own.
 * The descriptors drive the test, so a counter added to the registry
 * without a way to move it here fails (every_counter_moves); the few that
 * no program test can move name the test that does, or say why none can.
 * A mover that changes the instance's maps has an instance of its own;
 * the others share one per set of options, since loading an instance is
 * most of what a mover costs.
 *
 * The instance and the frame runs are steer_fixture.h's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include "counters.h"
#include "indirection.h"
#include "names.h"
#include "steer_fixture.h"
#include "tunnel_opts.h"

/* Every entry of an array, in a mover. */
#define ANY_ENTRY ~0u

/* One way to make entry `index` of counter `field` count. */
struct mover {
	const char *field;	/* NULL: the redirect slots, by target CPU */
	__u32 index;		/* or ANY_ENTRY */
	const char *opt, *arg;	/* an option of the instance, or none */
	/* Sends what makes entry `index` count; false when this kernel
	 * cannot, having said why.
	 */
	bool (*make)(struct fixture *e, __u32 index);
	bool alters;		/* changes the instance's maps */
	/* Instead of `make`: no program test can move it, and this says
	 * what does, or why nothing can.
	 */
	const char *elsewhere;
};

static bool sent(const struct fixture_result *r, const char *what)
{
	ASSERT_EQ(r->err, 0, what);
	return true;
}

static bool send_spec(struct fixture *e, const struct pkt_spec *s, const char *what)
{
	struct fixture_result r = fixture_run_spec(e, s);

	return sent(&r, what);
}

static bool send_flow(struct fixture *e, __u32 index)
{
	struct pkt_spec s;

	(void)index;
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	return send_spec(e, &s, "a UDP flow");
}

/* The frames test_steer_prog's counters_reconcile_with_frames_sent
 * passes, one for each reason.
 */
static bool send_to_be_passed(struct fixture *e, __u32 reason)
{
	__u8 frame[FIXTURE_FRAME_CAP];
	struct pkt_spec s;
	struct fixture_result r;
	size_t len;
	int i;

	switch (reason) {
	case CPUSTEER_PASS_NON_IP:
		pkt_spec_init(&s, 0, 0);
		s.ethertype = 0x0806;
		return send_spec(e, &s, "ARP");
	case CPUSTEER_PASS_TRUNC_L2:
		pkt_spec_init(&s, 4, IPPROTO_UDP);
		fixture_add_vlan(&s, 0x8100, 1);
		fixture_build(&s, frame);
		r = fixture_run_frame(e, frame, ETH_HLEN + 2);
		return sent(&r, "VLAN tag cut short");
	case CPUSTEER_PASS_TRUNC_L3:
		pkt_spec_init(&s, 4, IPPROTO_TCP);
		fixture_build(&s, frame);
		r = fixture_run_frame(e, frame, ETH_HLEN + 10);
		return sent(&r, "IPv4 header cut");
	case CPUSTEER_PASS_BAD_L3:
		pkt_spec_init(&s, 4, IPPROTO_TCP);
		len = fixture_build(&s, frame);
		frame[ETH_HLEN] = 0x43;
		r = fixture_run_frame(e, frame, len);
		return sent(&r, "IHL 3");
	case CPUSTEER_PASS_TRUNC_L4:
		pkt_spec_init(&s, 4, IPPROTO_TCP);
		fixture_build(&s, frame);
		pkt_set_ip_length(&s, frame, 22);
		r = fixture_run_frame(e, frame, ETH_HLEN + 22);
		return sent(&r, "datagram ends in the ports");
	case CPUSTEER_PASS_EXT_HDRS:
		pkt_spec_init(&s, 6, IPPROTO_UDP);
		s.next = 9;
		for (i = 0; i < 9; i++)
			s.ext[i] = 60;
		return send_spec(e, &s, "9 extension headers");
	case CPUSTEER_PASS_VLAN_DEPTH:
		pkt_spec_init(&s, 4, IPPROTO_UDP);
		fixture_add_vlan_stack(&s, CPUSTEER_MAX_VLAN_TAGS + 1, 0);
		return send_spec(e, &s, "5 tags");
	case CPUSTEER_PASS_BAD_LENGTH:
		pkt_spec_init(&s, 4, IPPROTO_TCP);
		fixture_build(&s, frame);
		r = fixture_run_frame(e, frame, ETH_HLEN + 22);
		return sent(&r, "TCP cut in its ports");
	case CPUSTEER_PASS_HEADERS_IN_FRAGS:
		if (!fixture_kernel_splits_test_frames()) {
			printf("#   not run: %s\n", FIXTURE_NO_SPLIT_FRAMES);
			return false;
		}
		pkt_spec_init(&s, 6, IPPROTO_UDP);
		s.payload_len = 200;
		len = fixture_build(&s, frame);
		r = fixture_run_frame_how(e, frame, len, (struct fixture_run_how){ .linear = ETH_HLEN + 20 });
		return sent(&r, "IPv6 header on in a fragment");
	case CPUSTEER_PASS_MPLS_DEPTH:
		pkt_spec_init(&s, 4, IPPROTO_UDP);
		s.nmpls = CPUSTEER_MAX_MPLS_LABELS + 1;
		return send_spec(e, &s, "9 labels");
	case CPUSTEER_PASS_MPLS_PAYLOAD:
		pkt_spec_init(&s, 0, 0);
		s.nmpls = 1;
		return send_spec(e, &s, "a control word below the label");
	default:
		printf("#   no frame here is passed as %s\n", pass_reason_name(reason));
		tu_failures++;
		return false;
	}
}

/* Instance options "cpus 1": every bucket names CPU 1, whose cpumap
 * entry goes.
 */
static bool send_to_missing_cpumap_entry(struct fixture *e, __u32 index)
{
	__u32 cpu = 1;

	ASSERT_EQ(bpf_map_delete_elem(e->in.maps.cpu_map, &cpu), 0, "delete CPU 1's cpumap entry");
	return send_flow(e, index);
}

static bool send_to_bad_bucket(struct fixture *e, __u32 index)
{
	__u32 b, cpu = BUCKET_UNOWNED;

	for (b = 0; b < e->o.cfg.nbuckets; b++)
		ASSERT_EQ(bpf_map_update_elem(e->in.maps.bucket_table, &b, &cpu, 0), 0,
			  "a bucket naming no CPU");
	return send_flow(e, index);
}

static bool send_ipv6_fragment(struct fixture *e, __u32 index)
{
	struct pkt_spec s;

	(void)index;
	pkt_spec_init(&s, 6, IPPROTO_UDP);
	s.fragment = true;
	s.frag_offset = 3;
	return send_spec(e, &s, "IPv6 fragment");
}

static bool send_tagged_flow(struct fixture *e, __u32 index)
{
	struct pkt_spec s;

	(void)index;
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	fixture_add_vlan(&s, 0x8100, 1);
	return send_spec(e, &s, "tagged flow");
}

static bool send_pppoe_flow(struct fixture *e, __u32 index)
{
	struct pkt_spec s;

	(void)index;
	pkt_spec_init(&s, 6, IPPROTO_TCP);
	s.pppoe = true;
	return send_spec(e, &s, "PPPoE flow");
}

static bool send_mpls_flow(struct fixture *e, __u32 index)
{
	struct pkt_spec s;

	(void)index;
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	s.nmpls = 2;
	return send_spec(e, &s, "MPLS flow");
}

static bool send_path_flow(struct fixture *e, __u32 kind)
{
	if (kind == CPUSTEER_PATH_KIND_VLAN)
		return send_tagged_flow(e, 0);
	if (kind == CPUSTEER_PATH_KIND_PPPOE)
		return send_pppoe_flow(e, 0);
	return send_mpls_flow(e, 0);
}

/* A frame of each layer-2 path that is passed: five tags (vlan_depth),
 * PPPoE carrying LCP (non_ip), nine labels (mpls_depth).
 */
static bool send_path_passed(struct fixture *e, __u32 kind)
{
	struct pkt_spec s;

	pkt_spec_init(&s, 4, IPPROTO_UDP);
	if (kind == CPUSTEER_PATH_KIND_VLAN) {
		fixture_add_vlan_stack(&s, CPUSTEER_MAX_VLAN_TAGS + 1, 0);
	} else if (kind == CPUSTEER_PATH_KIND_PPPOE) {
		s.pppoe = true;
		s.ppp_proto = 0xc021;
	} else {
		s.nmpls = CPUSTEER_MAX_MPLS_LABELS + 1;
	}
	return send_spec(e, &s, path_kind_name(kind));
}

static bool send_icmp(struct fixture *e, __u32 index)
{
	struct pkt_spec s;

	(void)index;
	pkt_spec_init(&s, 4, IPPROTO_ICMP);
	return send_spec(e, &s, "ICMP");
}

/* A UDP flow in a tunnel of `kind`, over IPv4 (IPv6 for SIT), with the
 * UDP tunnels on their standard ports. `patch` (NULL: none) changes the
 * frame before it is sent, given the offsets of the tunnel header and of
 * the inner IP header.
 */
static bool send_tunnel(struct fixture *e, __u32 kind, struct pkt_spec *outer,
			void (*patch)(__u8 *frame, size_t tunnel, size_t inner_l3), const char *what)
{
	struct pkt_encap encap = { .kind = kind, .vni = 42 };
	size_t len, tunnel = pkt_l3_offset(outer) + fixture_ip_fixed_header_len(outer);
	struct pkt_spec in;
	__u8 frame[FIXTURE_FRAME_CAP];
	struct fixture_result r;

	pkt_spec_init(&in, kind == CPUSTEER_TUNNEL_SIT ? 6 : 4, IPPROTO_UDP);
	outer->dport = tunnel_default_port(kind);
	len = pkt_build_tunnel(outer, &encap, &in, frame, sizeof(frame));
	ASSERT_TRUE(len > 0, "tunnel frame fits");
	if (tunnel_over_udp(kind))
		tunnel += 8;
	if (patch)	/* the patches are of VXLAN, whose inner frame is Ethernet, and IPIP */
		patch(frame, tunnel, tunnel + (kind == CPUSTEER_TUNNEL_VXLAN ? 8 + ETH_HLEN : 0));
	r = fixture_run_frame(e, frame, len);
	return sent(&r, what);
}

/* Instance options "inner all", or "inner gtpu-teid" for that kind. */
static bool send_tunnelled_flow(struct fixture *e, __u32 kind)
{
	struct pkt_spec outer;

	pkt_spec_init(&outer, 4, IPPROTO_UDP);
	return send_tunnel(e, kind, &outer, NULL, tunnel_name(kind));
}

static void clear_vxlan_i_flag(__u8 *frame, size_t tunnel, size_t inner_l3)
{
	(void)inner_l3;
	frame[tunnel] = 0;
}

static void inner_ihl_4(__u8 *frame, size_t tunnel, size_t inner_l3)
{
	(void)tunnel;
	frame[inner_l3] = 0x44;
}

/* A GTP-U G-PDU made an echo request. */
static void gtpu_echo_request(__u8 *frame, size_t tunnel, size_t inner_l3)
{
	(void)inner_l3;
	frame[tunnel + 1] = 1;
}

/* 60 bytes of inner header in a datagram that ends sooner. */
static void inner_ihl_15(__u8 *frame, size_t tunnel, size_t inner_l3)
{
	(void)tunnel;
	frame[inner_l3] = 0x4f;
}

/* Where the payload of a tunnel of `kind` as send_cut_tunnel builds it
 * starts, from the end of its UDP header (UDP kinds) or of its outer IP
 * header: GTP-U by tunnel has none it reads, so its header's start.
 */
static size_t tunnel_header_len(__u32 kind)
{
	switch (kind) {
	case CPUSTEER_TUNNEL_VXLAN:
	case CPUSTEER_TUNNEL_GENEVE:
	case CPUSTEER_TUNNEL_GTPU:
		return 8;
	case CPUSTEER_TUNNEL_GRE:
		return 4;
	case CPUSTEER_TUNNEL_ERSPAN:	/* GRE with a sequence number, type II */
		return 8 + 8;
	default:
		return 0;
	}
}

/* Instance options "inner all", or "inner gtpu-teid" for that kind: a
 * tunnel of `kind` whose outer datagram ends 2 octets into what its
 * header carries (into the header, for GTP-U by tunnel): truncated.
 */
static bool send_cut_tunnel(struct fixture *e, __u32 kind)
{
	struct pkt_encap encap = { .kind = kind };
	__u8 frame[FIXTURE_FRAME_CAP], cut[FIXTURE_FRAME_CAP];
	struct pkt_spec outer, in;
	struct fixture_result r;
	size_t len, at;

	pkt_spec_init(&outer, 4, IPPROTO_UDP);
	pkt_spec_init(&in, kind == CPUSTEER_TUNNEL_SIT ? 6 : 4, IPPROTO_UDP);
	outer.dport = tunnel_default_port(kind);
	len = pkt_build_tunnel(&outer, &encap, &in, frame, sizeof(frame));
	ASSERT_TRUE(len > 0, "tunnel frame fits");
	at = pkt_l3_offset(&outer) + fixture_ip_fixed_header_len(&outer) +
	     (tunnel_over_udp(kind) ? 8 : 0) + tunnel_header_len(kind) + 2;
	fixture_cut_frame(&outer, frame, at, false, cut);
	pkt_set_ip_length(&outer, cut, at - pkt_l3_offset(&outer));
	r = fixture_run_frame(e, cut, at);
	ASSERT_EQ(r.d.inner_fallback, CPUSTEER_INNER_TRUNCATED, tunnel_name(kind));
	return sent(&r, tunnel_name(kind));
}

/* Instance options "inner all"; the rows of test_steer_tunnel's
 * unreadable tunnels and fragmented outer datagrams.
 */
static bool send_unreadable_tunnel(struct fixture *e, __u32 why)
{
	struct pkt_spec outer;

	pkt_spec_init(&outer, 4, IPPROTO_UDP);
	switch (why) {
	case CPUSTEER_INNER_TRUNCATED:
		return send_tunnel(e, CPUSTEER_TUNNEL_IPIP, &outer, inner_ihl_15,
				   "ipip, inner options past the outer datagram");
	case CPUSTEER_INNER_UNSUPPORTED:
		return send_tunnel(e, CPUSTEER_TUNNEL_VXLAN, &outer, clear_vxlan_i_flag,
				   "vxlan without its I flag");
	case CPUSTEER_INNER_MALFORMED:
		return send_tunnel(e, CPUSTEER_TUNNEL_IPIP, &outer, inner_ihl_4,
				   "ipip, inner IHL 4");
	case CPUSTEER_INNER_OUTER_FRAGMENT:
		outer.fragment = true;
		outer.more_fragments = true;
		return send_tunnel(e, CPUSTEER_TUNNEL_GRE, &outer, NULL,
				   "first fragment of a GRE datagram");
	case CPUSTEER_INNER_SIGNALLING:
		return send_tunnel(e, CPUSTEER_TUNNEL_GTPU, &outer, gtpu_echo_request,
				   "gtpu echo request");
	default:
		printf("#   no tunnel here falls back as %s\n", inner_fallback_name(why));
		tu_failures++;
		return false;
	}
}

static const struct mover movers[] = {
	{ "rx_packets", 0, .make = send_flow },
	{ NULL, 0, .opt = "cpus", .arg = "0", .make = send_flow },
	{ NULL, 1, .opt = "cpus", .arg = "1", .make = send_flow },
	{ "passed", ANY_ENTRY, .make = send_to_be_passed },
	{ "errors", CPUSTEER_ERR_NO_CPUMAP_ENTRY, .opt = "cpus", .arg = "1",
	  .make = send_to_missing_cpumap_entry, .alters = true },
	{ "errors", CPUSTEER_ERR_BAD_BUCKET, .make = send_to_bad_bucket, .alters = true },
	{ "inner_steered", CPUSTEER_TUNNEL_GTPU_TEID, .opt = "inner", .arg = "gtpu-teid",
	  .make = send_tunnelled_flow },
	{ "inner_steered", ANY_ENTRY, .opt = "inner", .arg = "all", .make = send_tunnelled_flow },
	{ "inner_fallback", ANY_ENTRY, .opt = "inner", .arg = "all",
	  .make = send_unreadable_tunnel },
	{ "tunnel_fallback", CPUSTEER_TUNNEL_GTPU_TEID, .opt = "inner", .arg = "gtpu-teid",
	  .make = send_cut_tunnel },
	{ "tunnel_fallback", ANY_ENTRY, .opt = "inner", .arg = "all", .make = send_cut_tunnel },
	{ "path_steered", ANY_ENTRY, .make = send_path_flow },
	{ "path_passed", ANY_ENTRY, .make = send_path_passed },
	/* --hash nic loads its program bound to the device, and the kernel
	 * takes no test runs of a bound program.
	 */
	{ "nic_hash", CPUSTEER_NIC_HASH_USED,
	  .elsewhere = "test_netns_nic_hash.sh, through a veth that gives its RX hash" },
	{ "nic_hash", CPUSTEER_NIC_HASH_NONE,
	  .elsewhere = "test_netns_nic_hash.sh, with frames a veth gives no hash for" },
	{ "nic_hash", CPUSTEER_NIC_HASH_L2,
	  .elsewhere = "test_netns_nic_hash.sh, with IP datagrams of no ports, whose hash a "
		       "veth gives with no IP type" },
	{ "seen_fragments", 0, .make = send_ipv6_fragment },
	{ "seen_vlan", 0, .make = send_tagged_flow },
	{ "seen_l3_only", 0, .make = send_icmp },
	{ "seen_pppoe", 0, .make = send_pppoe_flow },
	{ "seen_mpls", 0, .make = send_mpls_flow },
};

static bool same_string(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

static const struct mover *mover_of(const struct counter_desc *c, __u32 index)
{
	const struct mover *m;

	for (m = movers; m < movers + ARRAY_SIZE(movers); m++)
		if (same_string(m->field, c->field) && (m->index == index || m->index == ANY_ENTRY))
			return m;
	return NULL;
}

/* The entries a descriptor has here: the redirect slots of the
 * instance's CPUs, 0 and 1.
 */
static __u32 entries(const struct counter_desc *c)
{
	return c->n ? c->n : 2;
}

static __u64 moved_by(const struct counter_desc *c, __u32 index, const struct fixture_counts *d)
{
	return c->n ? counter_value(c, &d->c, index) : d->to[index];
}

/* The instances the movers that leave them as they were share. */
#define SHARED_INSTANCES 5

struct instances {
	struct fixture e[SHARED_INSTANCES];
	const struct mover *by[SHARED_INSTANCES];	/* whose options e[i] has */
	int err[SHARED_INSTANCES];			/* of its start */
};

static int start(struct fixture *e, const struct mover *m)
{
	int err;

	fixture_init(e);
	if (m->opt)
		fixture_opt(e, m->opt, m->arg);
	err = fixture_start(e);
	if (err) {
		printf("#   cannot set up the steering instance: %s\n", strerror(-err));
		tu_failures++;
	}
	return err;
}

/* A started instance with the options of `m`: `own`, or a shared one. */
static struct fixture *instance_for(const struct mover *m, struct fixture *own, struct instances *in)
{
	int i;

	if (m->alters)
		return start(own, m) ? NULL : own;
	for (i = 0; i < SHARED_INSTANCES && in->by[i]; i++)
		if (same_string(in->by[i]->opt, m->opt) && same_string(in->by[i]->arg, m->arg))
			return in->err[i] ? NULL : &in->e[i];
	ASSERT_TRUE(i < SHARED_INSTANCES, "SHARED_INSTANCES holds every set of options");
	if (i == SHARED_INSTANCES)
		return NULL;
	in->by[i] = m;
	in->err[i] = start(&in->e[i], m);
	return in->err[i] ? NULL : &in->e[i];
}

/* Runs mover `m` for entry `index` of `c`. */
static void expect_moves(const struct counter_desc *c, __u32 index, const struct mover *m,
			 struct instances *in, const char *what)
{
	struct fixture_counts before, after, d;
	char buf[160], moved[200];
	struct fixture own, *e = instance_for(m, &own, in);
	int err = e ? fixture_read_counts(e, &before) : -ENODEV;

	ASSERT_EQ(err, 0, "an instance and its counters");
	if (!err && m->make(e, index)) {
		ASSERT_EQ(fixture_read_counts(e, &after), 0, "read counters");
		d = fixture_counts_since(&before, &after);
		snprintf(buf, sizeof(buf), "%s moves (what moved: %s)", what,
			 fixture_format_counts(&d, moved, sizeof(moved)));
		ASSERT_TRUE(moved_by(c, index, &d) > 0, buf);
	}
	if (m->alters)
		fixture_stop(&own);
}

static void every_counter_moves(void)
{
	struct instances in = {};
	const struct counter_desc *c;
	const struct mover *m;
	char what[96];
	__u32 i;

	for_each_counter(c) {
		for (i = 0; i < entries(c); i++) {
			if (!c->field)
				snprintf(what, sizeof(what), "redirect slot of CPU %u", i);
			else if (c->entry_name)
				snprintf(what, sizeof(what), "%s[%s]", c->field, c->entry_name(i));
			else
				snprintf(what, sizeof(what), "%s", c->field);
			m = mover_of(c, i);
			if (!m) {
				printf("#   %s: no frame or setting here makes it move\n", what);
				tu_failures++;
			} else if (m->elsewhere) {
				printf("#   %s: moved by %s\n", what, m->elsewhere);
			} else {
				expect_moves(c, i, m, &in, what);
			}
		}
	}
	for (i = 0; i < SHARED_INSTANCES; i++)
		if (in.by[i])
			fixture_stop(&in.e[i]);
}

static const struct tu_test tests[] = {
	TU_TEST(every_counter_moves),
};

int main(void)
{
	return fixture_main(tests, ARRAY_SIZE(tests));
}

/* SPDX-License-Identifier: GPL-2.0 */
/* What the program tests of the steering object (the test_steer_*
 * programs) share. Crafted frames go through the real cpusteer_classify
 * with BPF_PROG_TEST_RUN, so every check reads what the kernel program
 * itself chose from its decision record: verdict, CPU, bucket, hash and
 * flow key. cpusteer_classify is cpusteer_steer compiled with the record
 * on; the fast cpusteer_steer and the no-touch floor record nothing, so
 * they are checked through their counters.
 *
 * Each instance is configured the way the commands do it: steer_opts from
 * option strings, steer_opts_finish, then instance_converge on a fresh table.
 * The machine has CPUs 0 and 1; every instance steers over "0-1" with a
 * fixed key, so results are reproducible from run to run.
 *
 * Besides the instance, how frames are run and what a result must look
 * like, this holds the frame sets that a topic's tests send and that
 * fast_program_agrees_with_classify (test_steer_prog) sends again.
 * Each test program is one test_steer_*.c linked with steer_fixture.c.
 */
#ifndef CPUSTEER_STEER_FIXTURE_H
#define CPUSTEER_STEER_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/if_ether.h>
#include <linux/types.h>
#include "cpusteer.h"
#include "frame_builder.h"
#include "instance.h"
#include "options.h"
#include "test_util.h"

#define FIXTURE_KEY_A "0123456789abcdef0fedcba987654321"
#define FIXTURE_KEY_B "a5a5a5a55a5a5a5a3c3c3c3cc3c3c3c3"

#define FIXTURE_FRAME_CAP 512

/* ---- a steering instance configured as the commands configure one ---- */

struct fixture {
	struct steer_instance in;
	struct steer_opts o;
	__u32 *table;
	bool loaded;
	bool with_steer;	/* cpusteer_steer loaded too (see fixture_init) */
};

/* Only options the tests get right; a failure here is a broken test. */
void fixture_opt(struct fixture *e, const char *name, const char *arg);

/* CPUs 0-1 and FIXTURE_KEY_A; callers add or override options before
 * fixture_start. Only cpusteer_classify is loaded, unless with_steer is
 * set before fixture_start for a test that runs cpusteer_steer too.
 */
void fixture_init(struct fixture *e);

int fixture_start(struct fixture *e);
void fixture_stop(struct fixture *e);

/* The steering counters summed over CPUs, and the redirects per target
 * CPU (the tests use CPUs 0 and 1) and in all.
 */
struct fixture_counts {
	struct cpusteer_counters c;
	__u64 to[2];
	__u64 redirected;
};

int fixture_read_counts(struct fixture *e, struct fixture_counts *n);

#define FIXTURE_START(e)                                                           \
	do {                                                                       \
		int _err = fixture_start(e);                                       \
		if (_err) {                                                        \
			printf("#   cannot set up the steering instance: %s\n",     \
			       strerror(-_err));                                   \
			tu_failures++;                                             \
			fixture_stop(e);                                           \
			return;                                                    \
		}                                                                  \
	} while (0)

/* What happened between two readings. */
struct fixture_counts fixture_counts_since(const struct fixture_counts *before,
					   const struct fixture_counts *after);

bool fixture_same_counts(const struct fixture_counts *a, const struct fixture_counts *b);

/* The counters that moved, for a failure message: "rx 1, passed[7] 1". */
const char *fixture_format_counts(const struct fixture_counts *d, char *buf, size_t len);

/* ---- running frames ---- */

struct fixture_result {
	int err;		/* negative errno of the test run itself */
	__u32 retval;		/* XDP verdict */
	struct cpusteer_decision d;	/* outcome ~0u: nothing recorded */
};

/* How a frame is handed to a program. */
struct fixture_run_how {
	int prog;		/* fd; 0: classify */
	__u32 repeat;		/* test runs in one call; 0: one */
	__u32 linear;		/* bytes in the linear part, the rest in
				 * fragments (a multi-buffer frame); 0: all */
};

struct fixture_result fixture_run_frame_how(struct fixture *e, const void *frame, __u32 len,
					    struct fixture_run_how how);
struct fixture_result fixture_run_frame(struct fixture *e, const void *frame, __u32 len);

/* Whether this kernel's BPF_PROG_TEST_RUN builds multi-buffer frames from
 * a short ctx_in data_end (Linux 6.18 and later; earlier kernels refuse
 * it with EINVAL). Tests of split frames leave them out where it cannot.
 */
bool fixture_kernel_splits_test_frames(void);

#define FIXTURE_NO_SPLIT_FRAMES \
	"BPF_PROG_TEST_RUN of this kernel cannot split a frame (Linux 6.18 can)"

size_t fixture_build(const struct pkt_spec *s, __u8 *buf);
struct fixture_result fixture_run_spec(struct fixture *e, const struct pkt_spec *s);

/* ---- what a result must look like ---- */

void fixture_expect_redirect(const struct fixture_result *r, const char *what);
void fixture_expect_pass(const struct fixture_result *r, __u32 reason, const char *what);

/* `got` must be redirected exactly where `want` was: same hash, same CPU. */
void fixture_expect_same_place(const struct fixture_result *want, const struct fixture_result *got,
			       const char *what);

bool fixture_same_key(const struct cpusteer_flow_key *a, const struct cpusteer_flow_key *b);

/* ---- frames whose IP length fields are set by hand ---- */

/* Not a pass reason: what cut_outcome() or a split case says of a frame
 * to be steered.
 */
#define FIXTURE_STEERED CPUSTEER_PASS_REASONS

size_t fixture_ip_fixed_header_len(const struct pkt_spec *s);

/* Fills the frame from `len` up to `to` bytes, as Ethernet padding or
 * trailing bytes a NIC passes on would; returns the new length.
 */
size_t fixture_pad_frame(__u8 *frame, size_t len, size_t to, __u8 fill);

/* Writes the first `cut` bytes of the frame built from `s` to `out`; with
 * `length_fits`, its IP length field (once the cut leaves it whole) says
 * the datagram ends at the cut. Returns the cut frame's length.
 */
size_t fixture_cut_frame(const struct pkt_spec *s, const __u8 *frame, size_t cut,
			 bool length_fits, __u8 *out);

/* ---- deterministic pseudo-random flows ---- */

/* Flow i of a random population: random addresses and ports, UDP or TCP,
 * IPv4 or IPv6 by `family` (0: alternate).
 */
void fixture_random_flow(struct pkt_spec *s, int family);

/* The frames below are built by the tests of more than one file: each
 * set belongs to the tests of the topic its section names, and
 * fast_program_agrees_with_classify (test_steer_prog) sends them all again.
 */

/* ---- VLAN tags and IPv6 extension headers ---- */

void fixture_add_vlan(struct pkt_spec *s, __u16 tpid, __u16 tci);
/* The four TPIDs a stack may use: 0x9200, 0x9100, 0x88a8, 0x8100. */
extern const __u16 fixture_vlan_tpids[4];
/* n more tags, of the TPIDs in turn from fixture_vlan_tpids[first % 4]:
 * stacks of every depth, rotated, put every TPID at every position.
 */
void fixture_add_vlan_stack(struct pkt_spec *s, int n, int first);

extern const __u8 fixture_ext_cycle[3];	/* hop-by-hop, routing, dest */

/* ---- IP length fields ---- */

/* A datagram whose IP length field is at odds with the frame or with its
 * own headers. Built with no payload: as built, the datagram is 28 bytes
 * (IPv4 UDP), 40 (IPv4 TCP) or 48 (IPv6 UDP), plus options and extension
 * headers.
 */
struct fixture_length_case {
	const char *name;
	int family;
	__u8 proto;
	int ipv4_options_len;
	bool hop_by_hop;	/* IPv6: a hop-by-hop header first */
	__u8 hop_len;		/* its Hdr Ext Len: 8-octet units past the first */
	bool fragment;		/* IPv6: an atomic fragment header */
	size_t dgram_len;	/* what the IP header claims, from itself on */
	size_t pad_to;		/* frame length after padding; 0: as built */
	__u32 reason;
};

extern const struct fixture_length_case fixture_length_cases[];
extern const size_t fixture_nlength_cases;

size_t fixture_build_length_case(const struct fixture_length_case *c, __u8 *frame);

/* ---- frames the program must survive ---- */

/* Any type (0), IPv4, IPv6, the four VLAN TPIDs, PPPoE's session stage
 * and MPLS.
 */
extern const __u16 fixture_random_types[9];

/* Random bytes sent down the parser of `type` (0: any): as drawn (kind
 * 0), with the IP version right (kind 1), or with the IP length field
 * agreeing with the frame too (kind 2), so that some get as far as the
 * hash.
 */
void fixture_random_frame(__u8 *frame, size_t len, __u16 type, int kind);

/* FIXTURE_NCUT_SPECS frames of every layer the parser walks, for cutting short:
 * tags, a PPPoE session, MPLS labels, IPv4 options, IPv6 extension headers,
 * fragments, protocols with and without ports.
 */
#define FIXTURE_NCUT_SPECS 10

void fixture_cut_specs(struct pkt_spec *specs);

/* ---- multi-buffer frames ---- */

/* A frame of several buffers, as a NIC with jumbo frames or header split
 * hands one over: BPF_PROG_TEST_RUN puts ctx_in's data_end bytes in the
 * linear part and the rest in fragments (Linux 6.18 and later). The
 * parser reads the linear part only; a header that runs on into the
 * fragments passes as headers_in_frags, while a datagram whose headers
 * fit is steered whatever its payload's layout, its lengths checked
 * against the whole frame. Every frame carries 200 bytes of payload.
 */
struct fixture_split_case {
	const char *name;
	int family;
	__u8 proto;
	int nvlan;
	int ipv4_options_len;
	int next;		/* IPv6 extension headers, from fixture_ext_cycle */
	bool jumbogram;		/* IPv6: Payload Length 0 (with next >= 1) */
	int dgram_extra;	/* bytes the IP header claims past the frame */
	__u32 linear;		/* bytes in the linear part */
	__u32 reason;		/* or FIXTURE_STEERED */
};

extern const struct fixture_split_case fixture_split_cases[];
extern const size_t fixture_nsplit_cases;

size_t fixture_build_split_case(const struct fixture_split_case *c, __u8 *frame);

/* ---- the test program ---- */

/* main's body: libbpf's own messages only on request (as in cpusteer -v),
 * then the plan and every test; main's exit status.
 */
int fixture_main(const struct tu_test *tests, size_t n);

#endif

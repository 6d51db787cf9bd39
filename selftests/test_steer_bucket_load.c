// SPDX-License-Identifier: GPL-2.0
/* --bucket-stats in the program: each frame hashed to a bucket adds one
 * packet and its length to that bucket, on the receiving CPU, and
 * nothing else does. The expected loads come from the decision record of
 * each frame, that is from the bucket the kernel program itself chose.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include "steer_fixture.h"

#define FLOWS 60

struct expected {
	__u64 packets[CPUSTEER_MAX_BUCKETS];
	__u64 bytes[CPUSTEER_MAX_BUCKETS];
};

static struct expected want;

static void start_counting(struct fixture *e, const char *buckets)
{
	fixture_init(e);
	fixture_opt(e, "buckets", buckets);
	e->o.cfg.bucket_stats = 1;
	memset(&want, 0, sizeof(want));
}

/* Flow i sent 1 + i % 3 times, at a length that differs by flow, so
 * that a count of packets or of bytes in the wrong bucket shows.
 */
static void send_flows(struct fixture *e, int prog, const char *what)
{
	__u8 frame[FIXTURE_FRAME_CAP];
	struct pkt_spec s;
	struct fixture_result r;
	__u32 times;
	size_t len;
	int i;

	rng_seed(41);
	for (i = 0; i < FLOWS; i++) {
		fixture_random_flow(&s, 0);
		s.payload_len = 10 + 3 * i;
		len = fixture_build(&s, frame);
		times = 1 + i % 3;
		/* The record names the bucket; the fast program has none. */
		r = fixture_run_frame(e, frame, len);
		ASSERT_EQ(r.err, 0, what);
		if (r.err || r.d.bucket >= CPUSTEER_MAX_BUCKETS)
			continue;
		if (prog)
			r = fixture_run_frame_how(e, frame, len, (struct fixture_run_how){ .prog = prog,
									  .repeat = times });
		else if (times > 1)
			r = fixture_run_frame_how(e, frame, len, (struct fixture_run_how){ .repeat = times - 1 });
		ASSERT_EQ(r.err, 0, what);
		want.packets[r.d.bucket] += times + (prog ? 1 : 0);
		want.bytes[r.d.bucket] += (times + (prog ? 1 : 0)) * len;
	}
}

static void send_unsteered(struct fixture *e)
{
	__u8 frame[FIXTURE_FRAME_CAP];
	struct pkt_spec s;
	struct fixture_result r;

	pkt_spec_init(&s, 0, 0);
	s.ethertype = 0x0806;
	r = fixture_run_frame_how(e, frame, fixture_build(&s, frame),
				  (struct fixture_run_how){ .repeat = 5 });
	fixture_expect_pass(&r, CPUSTEER_PASS_NON_IP, "ARP");
	pkt_spec_init(&s, 4, IPPROTO_TCP);
	fixture_build(&s, frame);
	r = fixture_run_frame_how(e, frame, ETH_HLEN + 10, (struct fixture_run_how){ .repeat = 3 });
	fixture_expect_pass(&r, CPUSTEER_PASS_TRUNC_L3, "IPv4 header cut");
}

/* Every bucket's load against `want`; the number of buckets that differ. */
static int check_loads(struct fixture *e, __u32 nbuckets, const char *what)
{
	struct cpusteer_bucket_load *got = calloc(nbuckets, sizeof(*got));
	__u64 packets = 0;
	int bad = 0;
	__u32 b;

	ASSERT_TRUE(got != NULL, "memory");
	if (!got)
		return -1;
	ASSERT_EQ(instance_read_bucket_loads(&e->in, got, nbuckets), 0, "read bucket loads");
	for (b = 0; b < nbuckets; b++) {
		packets += got[b].packets;
		if (got[b].packets == want.packets[b] && got[b].bytes == want.bytes[b])
			continue;
		if (bad++ < 5)
			printf("#   %s: bucket %u has %llu packets, %llu bytes; expected %llu, %llu\n",
			       what, b, (unsigned long long)got[b].packets,
			       (unsigned long long)got[b].bytes,
			       (unsigned long long)want.packets[b],
			       (unsigned long long)want.bytes[b]);
	}
	printf("#   %s: %llu packets over %u buckets\n", what, (unsigned long long)packets,
	       nbuckets);
	free(got);
	return bad;
}

static void each_steered_frame_counts_in_its_bucket(void)
{
	struct fixture e;

	start_counting(&e, "61");
	FIXTURE_START(&e);
	send_flows(&e, 0, "flow");
	send_unsteered(&e);
	ASSERT_EQ(check_loads(&e, 61, "classify"), 0, "buckets with a wrong load");
	fixture_stop(&e);
}

/* The load is the bucket's, not the CPU's: a frame whose CPU has no
 * cpumap entry still came through its bucket.
 */
static void frames_that_fail_still_count(void)
{
	struct fixture e;
	__u32 one = 1;

	start_counting(&e, "512");
	FIXTURE_START(&e);
	ASSERT_EQ(bpf_map_delete_elem(e.in.maps.cpu_map, &one), 0, "delete CPU 1's entry");
	send_flows(&e, 0, "flow, CPU 1 gone");
	ASSERT_EQ(check_loads(&e, 512, "CPU 1 gone"), 0, "buckets with a wrong load");
	fixture_stop(&e);
}

static void fast_program_counts_alike(void)
{
	struct fixture e;

	start_counting(&e, "512");
	e.with_steer = true;
	FIXTURE_START(&e);
	send_flows(&e, instance_prog_fd(&e.in, false), "flow, fast program");
	ASSERT_EQ(check_loads(&e, 512, "fast and classify"), 0, "buckets with a wrong load");
	fixture_stop(&e);
}

/* Counting off in the configuration: the map is there, nothing moves. */
static void switched_off_counts_nothing(void)
{
	struct fixture e;

	start_counting(&e, "512");
	FIXTURE_START(&e);
	e.o.cfg.bucket_stats = 0;
	ASSERT_EQ(instance_write_config(&e.in, &e.o.cfg), 0, "write configuration");
	send_flows(&e, 0, "flow, counting off");
	memset(&want, 0, sizeof(want));
	ASSERT_EQ(check_loads(&e, 512, "counting off"), 0, "buckets with a load");
	fixture_stop(&e);
}

/* A frame in fragments counts the bytes of its first buffer: counting the
 * fragments would take a helper call on every frame.
 */
static void split_frame_counts_first_buffer(void)
{
	__u8 frame[FIXTURE_FRAME_CAP];
	struct pkt_spec s;
	struct fixture_result r;
	struct fixture e;
	size_t len;

	if (!fixture_kernel_splits_test_frames()) {
		SKIP(FIXTURE_NO_SPLIT_FRAMES);
		return;
	}
	start_counting(&e, "512");
	FIXTURE_START(&e);
	pkt_spec_init(&s, 4, IPPROTO_UDP);
	s.payload_len = 300;
	len = fixture_build(&s, frame);
	r = fixture_run_frame_how(&e, frame, len, (struct fixture_run_how){ .linear = 64 });
	fixture_expect_redirect(&r, "split frame");
	if (r.d.bucket < CPUSTEER_MAX_BUCKETS) {
		want.packets[r.d.bucket] = 1;
		want.bytes[r.d.bucket] = 64;
	}
	ASSERT_EQ(check_loads(&e, 512, "split frame"), 0, "buckets with a wrong load");
	fixture_stop(&e);
}

/* The counters hold the buckets of the load and no more. */
static void reading_past_the_counted_buckets_is_refused(void)
{
	struct cpusteer_bucket_load *got = calloc(513, sizeof(*got));
	struct fixture e;

	start_counting(&e, "512");
	FIXTURE_START(&e);
	ASSERT_EQ(e.in.bucket_load_entries, 512, "counted buckets");
	ASSERT_EQ(instance_read_bucket_loads(&e.in, got, 513), -ERANGE, "read 513 buckets");
	free(got);
	fixture_stop(&e);
}

static const struct tu_test tests[] = {
	TU_TEST(each_steered_frame_counts_in_its_bucket),
	TU_TEST(frames_that_fail_still_count),
	TU_TEST(fast_program_counts_alike),
	TU_TEST(switched_off_counts_nothing),
	TU_TEST(split_frame_counts_first_buffer),
	TU_TEST(reading_past_the_counted_buckets_is_refused),
};

int main(void)
{
	return tu_run(tests, ARRAY_SIZE(tests));
}

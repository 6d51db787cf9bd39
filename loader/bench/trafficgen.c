// SPDX-License-Identifier: GPL-2.0
/* The traffic generator: builds one template frame, loads the trafficgen
 * program with the template's port and checksum offsets, and has the
 * kernel run it on the template in live-frames mode, batch after batch,
 * until the time is up. Each XDP_TX verdict is a frame transmitted on the
 * device, with the next flow's source port. Where the kernel refuses that
 * mode, the packet-socket transmitter sends the same frames.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "clock.h"
#include "log.h"
#include "frame_builder.h"
#include "packet_tx.h"
#include "sums.h"
#include "trafficgen.h"
#include "trafficgen.skel.h"

#define ETH_HLEN 14
#define VLAN_HLEN 4

/* 64 frames per batch is the NAPI budget: each batch is flushed to the
 * device and the peer's NAPI drains it when the batch ends, which a veth
 * peer's 256-slot ring absorbs without loss.
 */
#define GEN_BATCH 64
/* One test run lasts about this long in wall time, the other sending
 * thread's turns on the CPU included, so *stop is seen within ~10 ms even
 * when the estimate of the per-frame cost is off by half.
 */
#define GEN_CALL_NS 4e6
#define GEN_FIRST_REPEAT 4096
#define GEN_MAX_REPEAT (1 << 20)

struct gen_device {
	int ifindex;
	char label[IF_NAMESIZE + 24];	/* "vethA (ifindex 5)" for messages */
	__u8 mac[6];
	int mtu;
};

struct gen_frame {
	__u8 data[TRAFFICGEN_FRAME_BUF];
	__u32 len;
	__u32 sport_off, csum_off;
};

/* What the two sending threads share. */
struct gen_shared {
	const struct trafficgen_opts *opts;
	const struct gen_device *dev;
	const struct gen_frame *frame;
	int prog_fd;
	volatile int *stop;
	double end_ns;
	int failed;		/* a test run failed: both threads stop */
};

struct gen_sender {
	struct gen_shared *shared;
	pthread_t thread;
	__u64 attempted;
	int err;
};

static __u32 l3_len(int family)
{
	return family == 6 ? 40 : 20;
}

static __u32 l4_len(__u8 proto)
{
	return proto == IPPROTO_TCP ? 20 : 8;
}

__u32 trafficgen_min_frame_size(int family, __u8 proto)
{
	__u32 hdrs = ETH_HLEN + l3_len(family) + l4_len(proto);

	return hdrs > TRAFFICGEN_MIN_FRAME ? hdrs : TRAFFICGEN_MIN_FRAME;
}

/* Name, MAC and MTU of the device, by ioctl on its name. */
static int device_read(int ifindex, struct gen_device *d)
{
	char name[IF_NAMESIZE];
	struct ifreq ifr = {};
	int fd, err = 0;

	d->ifindex = ifindex;
	if (ifindex <= 0 || !if_indextoname(ifindex, name)) {
		log_err("cannot generate on ifindex %d: no such interface", ifindex);
		return -ENODEV;
	}
	snprintf(d->label, sizeof(d->label), "%s (ifindex %d)", name, ifindex);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		err = -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (!err && ioctl(fd, SIOCGIFHWADDR, &ifr))
		err = -errno;
	memcpy(d->mac, ifr.ifr_hwaddr.sa_data, 6);
	if (!err && ioctl(fd, SIOCGIFMTU, &ifr))
		err = -errno;
	d->mtu = ifr.ifr_mtu;
	if (fd >= 0)
		close(fd);
	if (err)
		log_err("cannot generate on %s: cannot read its MAC and MTU: %s", d->label,
			strerror(-err));
	return err;
}

static int check_shape(const struct trafficgen_opts *o, const struct gen_device *d)
{
	__u32 min = trafficgen_min_frame_size(o->family, o->proto);

	if (o->family != 4 && o->family != 6) {
		log_err("cannot generate on %s: bad family %d: expected 4 or 6", d->label, o->family);
		return -EINVAL;
	}
	if (o->proto != IPPROTO_UDP && o->proto != IPPROTO_TCP) {
		log_err("cannot generate on %s: bad protocol %u: expected UDP or TCP", d->label,
			o->proto);
		return -EINVAL;
	}
	if (o->frame_size < min || o->frame_size > TRAFFICGEN_MAX_FRAME) {
		log_err("cannot generate on %s: bad frame size %u: expected %u to %u bytes",
			d->label, o->frame_size, min, TRAFFICGEN_MAX_FRAME);
		return -EINVAL;
	}
	return 0;
}

/* A frame above the MTU would be counted as sent by the program and then
 * dropped without a trace by the redirect, which checks the length against
 * MTU + Ethernet header + one VLAN tag.
 */
static int check_opts(const struct trafficgen_opts *o, const struct gen_device *d)
{
	__u32 max_len = d->mtu + ETH_HLEN + VLAN_HLEN;
	int err = check_shape(o, d);

	if (err)
		return err;
	if (o->frame_size > max_len) {
		log_err("cannot generate on %s: a %u-byte frame exceeds its MTU of %d (at most %u bytes)",
			d->label, o->frame_size, d->mtu, max_len);
		return -EMSGSIZE;
	}
	if (!o->flows || o->flows > TRAFFICGEN_MAX_FLOWS) {
		log_err("cannot generate on %s: bad flow count %u: expected 1 to %u", d->label,
			o->flows, TRAFFICGEN_MAX_FLOWS);
		return -EINVAL;
	}
	if (o->elephants && (o->elephants >= o->flows || o->elephants > TRAFFICGEN_MAX_ELEPHANTS ||
			     !o->elephant_share || o->elephant_share > 99)) {
		log_err("cannot generate on %s: bad skew: %u elephants with %u%% of %u flows: expected 1 to %u elephants, fewer than the flows, with 1 to 99%%",
			d->label, o->elephants, o->elephant_share, o->flows,
			TRAFFICGEN_MAX_ELEPHANTS);
		return -EINVAL;
	}
	if (!(o->duration_s > 0) || !isfinite(o->duration_s)) {
		log_err("cannot generate on %s: bad duration %g s: expected a positive time",
			d->label, o->duration_s);
		return -EINVAL;
	}
	if (o->cpu < -1) {
		log_err("cannot generate on %s: bad CPU %d", d->label, o->cpu);
		return -EINVAL;
	}
	return 0;
}

static int parse_addr(const char *label, int family, const char *text, __u8 *out)
{
	if (inet_pton(family == 6 ? AF_INET6 : AF_INET, text, out) == 1)
		return 0;
	log_err("cannot generate on %s: bad IPv%d address '%s'", label, family, text);
	return -EINVAL;
}

static int set_addrs(const struct trafficgen_opts *o, const char *label, struct pkt_spec *s)
{
	const char *src = o->src_addr, *dst = o->dst_addr;
	int err;

	if (!src)
		src = o->family == 6 ? "fd21::1" : "10.201.0.1";
	if (!dst)
		dst = o->family == 6 ? "fd21::2" : "10.201.0.2";
	err = parse_addr(label, o->family, src, s->saddr);
	return err ? err : parse_addr(label, o->family, dst, s->daddr);
}

static bool ipv4_udp(const struct trafficgen_opts *o)
{
	return o->family == 4 && o->proto == IPPROTO_UDP;
}

static __u32 sport_off(const struct trafficgen_opts *o)
{
	return ETH_HLEN + l3_len(o->family);
}

static __u32 csum_off(const struct trafficgen_opts *o)
{
	return sport_off(o) + (o->proto == IPPROTO_TCP ? 16 : 6);
}

/* Flow `flow`'s frame with valid checksums, into buf (TRAFFICGEN_FRAME_BUF
 * bytes): pkt_build wants room for the longest header chain it can write.
 * IPv4 UDP goes out with no checksum (0), which IPv4 allows, so the
 * program has nothing to fix there. Returns the length or a negative errno.
 */
static int build_frame(const struct trafficgen_opts *o, const char *label, const __u8 *own_mac,
		       __u32 flow, __u8 *buf)
{
	static const __u8 broadcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	__u32 hdrs = ETH_HLEN + l3_len(o->family) + l4_len(o->proto);
	struct pkt_spec s;
	size_t len;
	int err;

	pkt_spec_init(&s, o->family, o->proto);
	memcpy(s.src_mac, o->src_mac ? o->src_mac : own_mac, 6);
	memcpy(s.dst_mac, o->dst_mac ? o->dst_mac : broadcast, 6);
	err = set_addrs(o, label, &s);
	if (err)
		return err;
	s.sport = TRAFFICGEN_BASE_PORT + flow;
	s.dport = o->dport ? o->dport : 9;
	s.payload_len = o->frame_size - hdrs;
	len = pkt_build(&s, buf, TRAFFICGEN_FRAME_BUF);
	if (len != o->frame_size) {
		log_err("cannot generate on %s: built a %zu-byte frame, not %u", label, len,
			o->frame_size);
		return -EINVAL;
	}
	if (ipv4_udp(o))
		memset(buf + csum_off(o), 0, 2);
	return len;
}

/* The template is the first flow's frame; the program moves it to the
 * other flows.
 */
static int build_template(const struct trafficgen_opts *o, const struct gen_device *d,
			  struct gen_frame *f)
{
	int len = build_frame(o, d->label, d->mac, 0, f->data);

	if (len < 0)
		return len;
	f->len = len;
	f->sport_off = sport_off(o);
	f->csum_off = ipv4_udp(o) ? 0 : csum_off(o);
	return 0;
}

int trafficgen_flow_frame(const struct trafficgen_opts *o, __u32 flow, __u8 *buf)
{
	static const __u8 no_mac[6];
	char label[32];

	snprintf(label, sizeof(label), "flow %u's frame", flow);
	if (flow >= TRAFFICGEN_MAX_FLOWS) {
		log_err("cannot generate on %s: flows end at %u", label, TRAFFICGEN_MAX_FLOWS - 1);
		return -EINVAL;
	}
	return build_frame(o, label, no_mac, flow, buf);
}

static int load_program(const struct trafficgen_opts *o, const struct gen_device *d,
			const struct gen_frame *f, struct trafficgen **out)
{
	struct trafficgen *skel = trafficgen__open();
	int err;

	if (!skel) {
		err = -errno;
		log_err("cannot generate on %s: cannot open the program: %s", d->label,
			strerror(-err));
		return err;
	}
	skel->rodata->flows = o->flows;
	skel->rodata->elephants = o->elephants;
	skel->rodata->elephant_share = o->elephant_share;
	skel->rodata->base_port = TRAFFICGEN_BASE_PORT;
	skel->rodata->sport_off = f->sport_off;
	skel->rodata->csum_off = f->csum_off;
	skel->rodata->csum_is_udp = o->proto == IPPROTO_UDP;
	err = trafficgen__load(skel);
	if (err) {
		log_err("cannot generate on %s: cannot load the program: %s", d->label,
			strerror(-err));
		trafficgen__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

/* The CPU both sending threads run on: the one asked for, or the one the
 * caller is on now. Sharing one CPU keeps the load at one CPU's worth.
 */
static int gen_cpu(const struct trafficgen_opts *o, const struct gen_device *d)
{
	int cpu = o->cpu >= 0 ? o->cpu : sched_getcpu();

	if (cpu < 0 || cpu >= CPU_SETSIZE) {
		log_err("cannot generate on %s: cannot tell which CPU to run on: %s", d->label,
			cpu < 0 ? strerror(errno) : "CPU number too large");
		return -EINVAL;
	}
	return cpu;
}

static int pin_caller(int cpu, const struct gen_device *d, cpu_set_t *old)
{
	cpu_set_t one;
	int err;

	if (sched_getaffinity(0, sizeof(*old), old)) {
		err = -errno;
		log_err("cannot generate on %s: cannot read the CPU affinity: %s", d->label,
			strerror(-err));
		return err;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		err = -errno;
		log_err("cannot generate on %s: cannot run on CPU %d: %s", d->label, cpu,
			strerror(-err));
		return err;
	}
	return 0;
}

/* Enough frames for about GEN_CALL_NS at the kernel's own per-frame cost
 * of the last run, and no more than the time left needs. The kernel's
 * figure leaves out the RCU grace period a run can spend installing the
 * program in the test-run dispatcher; sizing by wall time let one slow
 * grace period shrink every later run to a batch, each then paying two
 * grace periods, and the rate never recovered.
 */
static int next_repeat(double ns_per_frame, double left_ns)
{
	double want = (left_ns < GEN_CALL_NS ? left_ns : GEN_CALL_NS) / ns_per_frame;

	if (!(want >= GEN_BATCH))
		return GEN_BATCH;
	return want > GEN_MAX_REPEAT ? GEN_MAX_REPEAT : (int)want;
}

static bool should_stop(struct gen_shared *sh, double now)
{
	return (sh->stop && *sh->stop) || __atomic_load_n(&sh->failed, __ATOMIC_RELAXED) ||
	       now >= sh->end_ns;
}

/* A signal makes the kernel end a test run early with EINTR; the frames of
 * that run reach `sent` but not `attempted`, which counts whole runs only.
 */
static void send_loop(struct gen_sender *w)
{
	struct gen_shared *sh = w->shared;
	struct xdp_md ctx = { .data_end = sh->frame->len, .ingress_ifindex = sh->dev->ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = sh->frame->data,
		    .data_size_in = sh->frame->len, .ctx_in = &ctx, .ctx_size_in = sizeof(ctx),
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = GEN_BATCH);
	int repeat = GEN_FIRST_REPEAT, err;
	double t0, t1 = monotonic_ns();

	while (!should_stop(sh, t1)) {
		run.repeat = repeat;
		t0 = monotonic_ns();
		err = bpf_prog_test_run_opts(sh->prog_fd, &run);
		t1 = monotonic_ns();
		if (err == -EINTR)
			continue;
		if (err) {
			if (!__atomic_exchange_n(&sh->failed, 1, __ATOMIC_RELAXED))
				log_err("cannot generate on %s: test run failed: %s",
					sh->dev->label, strerror(-err));
			w->err = err;
			return;
		}
		w->attempted += repeat;
		repeat = next_repeat(run.duration ? run.duration : (t1 - t0) / repeat,
				     sh->end_ns - t1);
	}
}

static void *sender_thread(void *arg)
{
	send_loop(arg);
	return NULL;
}

static int start_helper(struct gen_sender *helper, int cpu)
{
	pthread_attr_t attr;
	cpu_set_t one;
	int err;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	err = pthread_attr_init(&attr);
	if (!err)
		err = pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
	if (!err)
		err = pthread_create(&helper->thread, &attr, sender_thread, helper);
	pthread_attr_destroy(&attr);
	if (err)
		log_err("cannot generate on %s: cannot start the second sending thread: %s",
			helper->shared->dev->label, strerror(err));
	return -err;
}

/* Every test run with repeat > 1 installs the program in the kernel's XDP
 * dispatcher and removes it afterwards, and each change waits for an RCU
 * grace period: about 24 ms a run here, which would dwarf runs of a few
 * ms. The dispatcher counts its users, so two threads on one CPU whose runs
 * overlap keep the program installed and only the first and last run pay.
 */
static int send_all(struct gen_shared *sh, int cpu, struct trafficgen_result *res)
{
	struct gen_sender caller = { .shared = sh }, helper = { .shared = sh };
	double start = monotonic_ns();
	int err;

	sh->end_ns = start + sh->opts->duration_s * 1e9;
	err = start_helper(&helper, cpu);
	if (err)
		return err;
	send_loop(&caller);
	pthread_join(helper.thread, NULL);
	res->seconds = (monotonic_ns() - start) / 1e9;
	res->attempted = caller.attempted + helper.attempted;
	return caller.err ? caller.err : helper.err;
}

static int sum_percpu(struct bpf_map *map, __u64 *total)
{
	int ncpus = libbpf_num_possible_cpus(), err;
	__u32 zero = 0;
	__u64 *vals;

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	err = bpf_map__lookup_elem(map, &zero, sizeof(zero), vals, ncpus * sizeof(*vals), 0);
	*total = err ? 0 : sum_u64(vals, ncpus);
	free(vals);
	return err;
}

static int read_counts(struct trafficgen *skel, const struct gen_device *d,
		       struct trafficgen_result *res)
{
	__u64 short_frames = 0;
	int err = sum_percpu(skel->maps.sent, &res->sent);

	if (!err)
		err = sum_percpu(skel->maps.short_frames, &short_frames);
	if (err) {
		log_err("cannot generate on %s: cannot read the program's counters: %s", d->label,
			strerror(-err));
		return err;
	}
	if (short_frames) {
		log_err("cannot generate on %s: the program dropped %llu frames as too short",
			d->label, (unsigned long long)short_frames);
		return -EPROTO;
	}
	return 0;
}

/* Loads the program, sends from two threads on the CPU the caller is
 * pinned to, reads the count.
 */
static int generate_live(const struct trafficgen_opts *o, const struct gen_device *d,
			 const struct gen_frame *f, int cpu, volatile int *stop,
			 struct trafficgen_result *res)
{
	struct gen_shared sh = { .opts = o, .dev = d, .frame = f, .stop = stop };
	struct trafficgen *skel;
	int err;

	err = load_program(o, d, f, &skel);
	if (err)
		return err;
	sh.prog_fd = bpf_program__fd(skel->progs.trafficgen_tx);
	err = send_all(&sh, cpu, res);
	if (!err)
		err = read_counts(skel, d, res);
	trafficgen__destroy(skel);
	return err;
}

static int generate_packet(const struct trafficgen_opts *o, const struct gen_device *d,
			   const struct gen_frame *f, volatile int *stop,
			   struct trafficgen_result *res)
{
	const struct packet_tx_template t = { .data = f->data, .len = f->len,
					      .sport_off = f->sport_off, .csum_off = f->csum_off };
	double start = monotonic_ns();
	int err;

	err = packet_tx_run(d->ifindex, d->label, &t, o, stop, start + o->duration_s * 1e9, res);
	res->seconds = (monotonic_ns() - start) / 1e9;
	return err;
}

/* Whether this kernel lets a test run transmit: kernels before 5.18 do
 * not know the flag (EINVAL), and a hardened 6.18 was seen to refuse it
 * (EPERM). Asked with a program that drops every frame, so the question
 * sends nothing. Returns 0 where allowed, else the refusal.
 */
static int live_frames_refusal(const struct gen_device *d, const struct gen_frame *f)
{
	const struct bpf_insn drop_all[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_DROP },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct xdp_md ctx = { .data_end = f->len, .ingress_ifindex = d->ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = f->data, .data_size_in = f->len,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx),
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .repeat = 1);
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "gen_live_probe", "GPL", drop_all, 2, NULL);
	int err;

	if (fd < 0)
		return fd;
	err = bpf_prog_test_run_opts(fd, &run);
	close(fd);
	return err;
}

/* The transmit asked for, or for TRAFFICGEN_TX_AUTO the best this kernel
 * allows, said once per process when it is not live frames.
 */
static int choose_transmit(const struct trafficgen_opts *o, const struct gen_device *d,
			   const struct gen_frame *f, enum trafficgen_transmit *out)
{
	static bool fallback_said;
	int refusal;

	*out = TRAFFICGEN_TX_PACKET_SOCKET;
	if (o->transmit == TRAFFICGEN_TX_PACKET_SOCKET)
		return 0;
	refusal = live_frames_refusal(d, f);
	if (!refusal) {
		*out = TRAFFICGEN_TX_LIVE_FRAMES;
		return 0;
	}
	if (o->transmit == TRAFFICGEN_TX_LIVE_FRAMES) {
		log_err("cannot generate on %s: this kernel refuses XDP live-frames test runs: %s",
			d->label, strerror(-refusal));
		return refusal;
	}
	if (!__atomic_exchange_n(&fallback_said, true, __ATOMIC_RELAXED))
		log_note("this kernel refuses XDP live-frames test runs (%s): the generator sends from a packet socket, at a higher cost per frame to its CPU",
			 strerror(-refusal));
	return 0;
}

/* Pins the caller to the generator's CPU and sends the way chosen. */
static int generate(const struct trafficgen_opts *o, const struct gen_device *d,
		    const struct gen_frame *f, volatile int *stop, struct trafficgen_result *res)
{
	int cpu = gen_cpu(o, d), err;
	cpu_set_t old_mask;

	if (cpu < 0)
		return cpu;
	err = choose_transmit(o, d, f, &res->transmit);
	if (!err)
		err = pin_caller(cpu, d, &old_mask);
	if (err)
		return err;
	if (res->transmit == TRAFFICGEN_TX_LIVE_FRAMES)
		err = generate_live(o, d, f, cpu, stop, res);
	else
		err = generate_packet(o, d, f, stop, res);
	sched_setaffinity(0, sizeof(old_mask), &old_mask);
	return err;
}

const struct name_value trafficgen_transmit_names[] = {
	{ .name = "auto", .value = TRAFFICGEN_TX_AUTO },
	{ .name = "live-frames", .value = TRAFFICGEN_TX_LIVE_FRAMES },
	{ .name = "packet-socket", .value = TRAFFICGEN_TX_PACKET_SOCKET },
	{}
};

int trafficgen_run(const struct trafficgen_opts *o, volatile int *stop,
		   struct trafficgen_result *res)
{
	struct gen_frame *frame;
	struct gen_device dev;
	int err;

	memset(res, 0, sizeof(*res));
	err = device_read(o->ifindex, &dev);
	if (!err)
		err = check_opts(o, &dev);
	if (err)
		return err;
	/* On the heap: 4 KiB, and callers may run one generator per thread. */
	frame = calloc(1, sizeof(*frame));
	if (!frame) {
		log_err("cannot generate on %s: out of memory", dev.label);
		return -ENOMEM;
	}
	err = build_template(o, &dev, frame);
	if (!err)
		err = generate(o, &dev, frame, stop, res);
	free(frame);
	return err;
}

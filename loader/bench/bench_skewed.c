// SPDX-License-Identifier: GPL-2.0
/* The skewed scenario's key search and balance runs (see bench_skewed.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench_skewed.h"
#include "cli.h"
#include "instance.h"
#include "log.h"
#include "options.h"

/* A key stacks the elephants with a chance of about 1 in
 * CPUs^(elephants - 1): 1 in 8 for 4 elephants on 2 CPUs, 1 in 4096 on 16.
 * Past this many keys, give up.
 */
#define SKEW_MAX_KEYS 100000
/* The search never sends a frame; the cpumap entries only have to exist
 * for the redirect to be chosen, so their queues stay small.
 */
#define SKEW_QSIZE 64

/* The elephants' frames, which no key changes. */
struct skew_frames {
	__u8 (*data)[TRAFFICGEN_FRAME_BUF];
	__u32 len;
	__u32 n;
};

static int build_frames(const struct trafficgen_opts *o, struct skew_frames *f)
{
	int len = 0;
	__u32 i;

	f->n = o->elephants;
	f->data = calloc(f->n, sizeof(*f->data));
	if (!f->data)
		return -ENOMEM;
	for (i = 0; i < f->n && len >= 0; i++)
		len = trafficgen_flow_frame(o, i, f->data[i]);
	f->len = len;
	return len < 0 ? len : 0;
}

/* Where the steering program sends one frame, by its recorded decision. */
static int place(struct steer_instance *in, const __u8 *frame, __u32 len,
		 struct cpusteer_decision *d)
{
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = frame, .data_size_in = len, .repeat = 1);
	int err = instance_clear_decision(in);

	if (!err && bpf_prog_test_run_opts(instance_prog_fd(in, false), &run))
		err = -errno;
	if (!err)
		err = instance_read_decision(in, d);
	if (!err && d->outcome != CPUSTEER_OUT_REDIRECT)
		err = -EPROTO;
	return err;
}

/* 1 when every elephant lands on one CPU (*cpu), each in a bucket of its
 * own: a bucket of two elephants would be more than balance could split.
 */
static int stacked(struct steer_instance *in, const struct skew_frames *f, __u32 *cpu)
{
	__u32 bucket[TRAFFICGEN_MAX_ELEPHANTS], i, j;
	struct cpusteer_decision d;
	int err;

	for (i = 0; i < f->n; i++) {
		err = place(in, f->data[i], f->len, &d);
		if (err)
			return err;
		if (i && d.cpu != *cpu)
			return 0;
		for (j = 0; j < i; j++)
			if (bucket[j] == d.bucket)
				return 0;
		*cpu = d.cpu;
		bucket[i] = d.bucket;
	}
	return 1;
}

/* Every family's key words come out of SipHash, a keyed PRF, under the
 * --key: the keys 1, 2, 3, ... place the elephants as independently of
 * each other as random keys would, and always in the same order. The
 * search uses the default family, as the load it is for does.
 */
static int search(struct steer_instance *in, struct cpusteer_config *cfg,
		  const struct skew_frames *f, struct skew_key *k)
{
	int found = 0;

	cfg->key[1] = 0;
	for (k->tried = 1; k->tried <= SKEW_MAX_KEYS; k->tried++) {
		cfg->key[0] = k->tried;
		found = instance_write_config(in, cfg) ?: stacked(in, f, &k->cpu);
		if (found)
			break;
	}
	if (found == 1) {
		key_format(cfg->key, k->hex, sizeof(k->hex));
		return 0;
	}
	if (found < 0)
		log_err("bench: cannot place the elephants' frames: %s", strerror(-found));
	else
		log_err("bench: none of %u hash keys puts the %u elephants on one CPU: too many CPUs for the skewed scenario",
			SKEW_MAX_KEYS, f->n);
	return found ?: -ENOENT;
}

int skew_find_key(const char *cpus, const struct trafficgen_opts *o, struct skew_key *k)
{
	struct cpumap_opts cm = { .qsize = SKEW_QSIZE, .remote = REMOTE_NONE };
	struct cpusteer_config cfg = { .nbuckets = CPUSTEER_DEFAULT_BUCKETS,
				       .non_ip_cpu = CPUSTEER_NON_IP_PASS };
	struct skew_frames f = {};
	struct steer_instance in;
	struct cpuset set;
	int err;

	memset(k, 0, sizeof(*k));
	err = cpuset_parse(&set, cpus);
	if (!err)
		err = build_frames(o, &f);
	if (err) {
		free(f.data);
		return err;
	}
	err = instance_open(&in, true, false, 0);
	if (!err) {
		err = instance_configure(&in, &set, &cfg, &cm);
		if (!err)
			err = search(&in, &cfg, &f, k);
		instance_close(&in);
	}
	free(f.data);
	return err;
}

/* ---- balance beside a case ---- */

int balance_start(struct balance_run *p, struct testbed *b)
{
	char *args[] = { "balance", b->topo.rx_if, "--interval", CLI_NUMBER(SKEW_INTERVAL), "--json",
			 NULL };

	p->pid = -1;
	p->out_fd = memfd_create("balance", MFD_CLOEXEC);
	if (p->out_fd < 0) {
		log_err("bench: cannot keep the output of cpusteer balance: %s", strerror(errno));
		return -errno;
	}
	p->pid = testbed_cli_spawn(b, args, p->out_fd);
	if (p->pid > 0)
		return 0;
	close(p->out_fd);
	return p->pid;
}

/* Its --json lines, one object a step, without a JSON parser: each move
 * names its "bucket", and only the step's own count is "buckets".
 */
static void tally_line(const char *line, struct balance_tally *t)
{
	const char *at = strstr(line, "\"buckets\":");
	__u32 moves = 0;

	t->steps++;
	if (at)
		t->buckets = strtoul(at + strlen("\"buckets\":"), NULL, 10);
	if (!strstr(line, "\"applied\":true"))
		return;
	for (at = line; (at = strstr(at, "\"bucket\":")); at++)
		moves++;
	t->moved += moves;
	if (moves > t->most)
		t->most = moves;
}

static void tally(int fd, struct balance_tally *t)
{
	off_t size = lseek(fd, 0, SEEK_END);
	char *text = size >= 0 ? malloc(size + 1) : NULL, *line, *save = NULL;
	ssize_t n;

	memset(t, 0, sizeof(*t));
	if (!text)
		return;
	n = pread(fd, text, size, 0);
	text[n > 0 ? n : 0] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		tally_line(line, t);
	free(text);
}

int balance_stop(struct balance_run *p, struct balance_tally *t)
{
	int status, rc;
	pid_t got;

	kill(p->pid, SIGTERM);
	do
		got = waitpid(p->pid, &status, 0);
	while (got < 0 && errno == EINTR);
	if (got < 0) {
		rc = -errno;
		log_err("bench: cannot wait for cpusteer balance: %s", strerror(-rc));
	} else {
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		if (rc)
			log_err("bench: cpusteer balance exited with status %d", rc);
	}
	tally(p->out_fd, t);
	close(p->out_fd);
	return rc ? -EIO : 0;
}

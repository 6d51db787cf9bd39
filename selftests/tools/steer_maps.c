// SPDX-License-Identifier: GPL-2.0
/* steer_maps: reads a loaded instance's pinned maps for the network
 * namespace tests, with bare bpf(2) calls (the tools link no libraries).
 *
 *   steer_maps counters PIN_DIR
 *       the counters, redirect_counts and remote_counters maps summed over
 *       CPUs, one "name value" line each: redirected_cpuN, rx_packets,
 *       redirected, passed, errors, remote_passed, remote_dropped,
 *       remote_redirected, remote_redirect_errors
 *   steer_maps table PIN_DIR N
 *       the CPU that owns each of the first N buckets, one per line
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include "cpusteer.h"

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int pinned(const char *dir, const char *name)
{
	char path[512];
	union bpf_attr attr;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uintptr_t)path;
	fd = sys_bpf(BPF_OBJ_GET, &attr);
	if (fd < 0) {
		fprintf(stderr, "steer_maps: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

static void lookup(int fd, __u32 key, void *value, const char *what)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)value;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr)) {
		fprintf(stderr, "steer_maps: lookup in %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

/* A per-CPU lookup returns one value per possible CPU, each padded to 8. */
static unsigned int possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	unsigned int a, b, n = 0;
	int c;

	if (!f) {
		perror("steer_maps: /sys/devices/system/cpu/possible");
		exit(1);
	}
	while (fscanf(f, "%u", &a) == 1) {
		b = a;
		c = fgetc(f);
		if (c == '-') {
			if (fscanf(f, "%u", &b) != 1)
				break;
			c = fgetc(f);
		}
		n += b - a + 1;
		if (c != ',')
			break;
	}
	fclose(f);
	return n;
}

#define ROUND8(x) (((x) + 7) & ~(size_t)7)

static int counters(const char *dir)
{
	unsigned int ncpus = possible_cpus(), c, i;
	size_t csz = ROUND8(sizeof(struct cpusteer_counters));
	size_t rsz = ROUND8(sizeof(struct cpusteer_remote_counters));
	char *cv = calloc(ncpus, csz), *rv = calloc(ncpus, rsz);
	unsigned long long *rc = calloc(ncpus, sizeof(*rc));
	unsigned long long rx = 0, red = 0, pass = 0, errs = 0, to;
	struct cpusteer_remote_counters rsum = {};
	int redirects;

	if (!cv || !rv || !rc)
		return 1;
	lookup(pinned(dir, "counters"), 0, cv, "counters");
	lookup(pinned(dir, "remote_counters"), 0, rv, "remote_counters");
	for (c = 0; c < ncpus; c++) {
		const struct cpusteer_counters *k = (const void *)(cv + c * csz);
		const struct cpusteer_remote_counters *r = (const void *)(rv + c * rsz);

		rx += k->rx_packets;
		for (i = 0; i < CPUSTEER_PASS_REASONS; i++)
			pass += k->passed[i];
		for (i = 0; i < CPUSTEER_ERRORS; i++)
			errs += k->errors[i];
		rsum.passed += r->passed;
		rsum.dropped += r->dropped;
		rsum.redirected += r->redirected;
		rsum.redirect_errors += r->redirect_errors;
	}
	/* Redirects are keyed by the target CPU, one value per receiving CPU. */
	redirects = pinned(dir, "redirect_counts");
	for (i = 0; i < ncpus; i++) {
		lookup(redirects, i, rc, "redirect_counts");
		for (c = 0, to = 0; c < ncpus; c++)
			to += rc[c];
		if (to)
			printf("redirected_cpu%u %llu\n", i, to);
		red += to;
	}
	printf("rx_packets %llu\nredirected %llu\n", rx, red);
	printf("passed %llu\nerrors %llu\n", pass, errs);
	printf("remote_passed %llu\nremote_dropped %llu\nremote_redirected %llu\n"
	       "remote_redirect_errors %llu\n", (unsigned long long)rsum.passed,
	       (unsigned long long)rsum.dropped, (unsigned long long)rsum.redirected,
	       (unsigned long long)rsum.redirect_errors);
	return 0;
}

static int table(const char *dir, const char *count)
{
	int fd = pinned(dir, "bucket_table");
	long n = strtol(count, NULL, 0), b;
	__u32 cpu;

	if (n <= 0 || n > CPUSTEER_MAX_BUCKETS) {
		fprintf(stderr, "steer_maps: bad bucket count '%s'\n", count);
		return 2;
	}
	for (b = 0; b < n; b++) {
		lookup(fd, b, &cpu, "bucket_table");
		printf("%u\n", cpu);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "counters"))
		return counters(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "table"))
		return table(argv[2], argv[3]);
	fputs("usage: steer_maps counters PIN_DIR | steer_maps table PIN_DIR N\n", stderr);
	return 2;
}

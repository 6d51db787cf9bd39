// SPDX-License-Identifier: GPL-2.0
/* steer_maps: reads a loaded instance's pinned maps for the network
 * namespace tests, with bare bpf(2) calls (the tools link no libraries).
 *
 *   steer_maps counters PIN_DIR
 *       the counters and remote_counters maps summed over CPUs, one
 *       "name value" line each: rx_packets, redirected, redirected_cpuN,
 *       passed, errors, remote_passed, remote_dropped, remote_redirected,
 *       remote_redirect_errors
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

/* The value size of the map behind fd. */
static size_t value_size(int fd)
{
	struct bpf_map_info info;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr)) {
		fprintf(stderr, "steer_maps: map info: %s\n", strerror(errno));
		exit(1);
	}
	return info.value_size;
}

/* Each CPU's counters value is the struct, then one redirect count per
 * possible CPU (cpusteer.h).
 */
static int counters(const char *dir)
{
	unsigned int ncpus = possible_cpus(), c, i;
	int cfd = pinned(dir, "counters");
	size_t csz = ROUND8(value_size(cfd));
	size_t rsz = ROUND8(sizeof(struct cpusteer_remote_counters));
	char *cv = calloc(ncpus, csz), *rv = calloc(ncpus, rsz);
	unsigned long long rx = 0, red = 0, pass = 0, errs = 0, *to = calloc(ncpus, sizeof(*to));
	struct cpusteer_remote_counters rsum = {};

	if (!cv || !rv || !to)
		return 1;
	lookup(cfd, 0, cv, "counters");
	lookup(pinned(dir, "remote_counters"), 0, rv, "remote_counters");
	for (c = 0; c < ncpus; c++) {
		const struct cpusteer_counters *k = (const void *)(cv + c * csz);
		const __u64 *redirected = (const void *)(k + 1);
		const struct cpusteer_remote_counters *r = (const void *)(rv + c * rsz);

		rx += k->rx_packets;
		for (i = 0; i < CPUSTEER_PASS_REASONS; i++)
			pass += k->passed[i];
		for (i = 0; i < CPUSTEER_ERRORS; i++)
			errs += k->errors[i];
		for (i = 0; i < ncpus; i++) {
			red += redirected[i];
			to[i] += redirected[i];
		}
		rsum.passed += r->passed;
		rsum.dropped += r->dropped;
		rsum.redirected += r->redirected;
		rsum.redirect_errors += r->redirect_errors;
	}
	printf("rx_packets %llu\nredirected %llu\n", rx, red);
	for (i = 0; i < ncpus; i++)
		if (to[i])
			printf("redirected_cpu%u %llu\n", i, to[i]);
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

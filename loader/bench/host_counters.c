// SPDX-License-Identifier: GPL-2.0
/* The host's own counters (see host_counters.h), read from /proc and
 * from the BPF program info.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "host_counters.h"

/* Sums a /proc/interrupts row (CAL, RES) over every CPU column. */
void read_ipi_counts(__u64 *call, __u64 *resched)
{
	char *line = NULL, *p, *end;
	size_t cap = 0;
	__u64 *dst;
	FILE *f = fopen("/proc/interrupts", "re");

	*call = *resched = 0;
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		p = line + strspn(line, " ");
		if (!strncmp(p, "CAL:", 4))
			dst = call;
		else if (!strncmp(p, "RES:", 4))
			dst = resched;
		else
			continue;
		for (p += 4;; p = end) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			*dst += v;
		}
	}
	free(line);
	fclose(f);
}

/* /proc/net/softnet_stat: one line per online CPU, hex columns; the
 * 13th column names the CPU on kernels that have it (offline CPUs leave
 * no line, so the line number alone can be wrong).
 */
void read_softnet_counts(struct softnet_counts *s)
{
	unsigned int col[16];
	char line[512];
	int n, cpu = 0;
	FILE *f = fopen("/proc/net/softnet_stat", "re");

	memset(s, 0, sizeof(*s));
	if (!f)
		return;
	for (; fgets(line, sizeof(line), f); cpu++) {
		n = sscanf(line, "%x %x %x %x %x %x %x %x %x %x %x %x %x", &col[0], &col[1],
			   &col[2], &col[3], &col[4], &col[5], &col[6], &col[7], &col[8],
			   &col[9], &col[10], &col[11], &col[12]);
		if (n >= 13)
			cpu = col[12];
		if (n < 3 || cpu >= CPUSTEER_MAX_CPUS)
			continue;
		s->processed[cpu] = col[0];
		s->dropped[cpu] = col[1];
		s->squeeze[cpu] = col[2];
	}
	fclose(f);
}

/* A veth counts in /proc/net/dev the frames its NAPI took and, as
 * rx_dropped, the ones its ring refused.
 */
int read_netdev_rx(int fd, const char *ifname, __u64 *rx, __u64 *drop)
{
	static char buf[65536];
	size_t len = strlen(ifname), got = 0;
	unsigned long long bytes, pkts, errs, drops;
	char *p;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while (got < sizeof(buf) - 1 && (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	buf[got] = '\0';
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		p += strspn(p, " ");
		if (strncmp(p, ifname, len) || p[len] != ':')
			continue;
		if (sscanf(p + len + 1, "%llu %llu %llu %llu", &bytes, &pkts, &errs, &drops) != 4)
			return -EINVAL;
		*rx = pkts;
		*drop = drops;
		return 0;
	}
	return -ENODEV;
}

void read_prog_run_time(int fd, __u64 *ns, __u64 *cnt)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	*ns = *cnt = 0;
	if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len)) {
		*ns = info.run_time_ns;
		*cnt = info.run_cnt;
	}
}

/* The kernel counts run time for the program it calls at the hook. An
 * extension in libxdp's dispatcher replaces one of the dispatcher's
 * functions outright, so its time is the dispatcher's; its tracing link
 * names the dispatcher (target_obj_id).
 */
static __u32 extension_target(__u32 prog_id)
{
	struct bpf_link_info info;
	__u32 id = 0, len, target = 0;
	int fd;

	while (!target && !bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.prog_id == prog_id &&
		    info.type == BPF_LINK_TYPE_TRACING)
			target = info.tracing.target_obj_id;
		close(fd);
	}
	return target;
}

int open_run_time_prog(__u32 prog_id)
{
	__u32 target = extension_target(prog_id);

	return bpf_prog_get_fd_by_id(target ? target : prog_id);
}

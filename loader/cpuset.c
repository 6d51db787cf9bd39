// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpuset.h"
#include "log.h"

static int parse_uint(const char *s, char **end, unsigned long max, unsigned long *out)
{
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoul(s, end, 10);
	if (errno || *out > max)
		return -ERANGE;
	return 0;
}

static int add_cpu(struct cpuset *set, unsigned long cpu, const char *list)
{
	if (cpuset_contains(set, cpu)) {
		log_err("bad CPU list '%s': CPU %lu is listed twice", list, cpu);
		return -EINVAL;
	}
	set->cpu[set->n] = cpu;
	set->weight[set->n] = 1;
	set->n++;
	return 0;
}

int cpuset_parse(struct cpuset *set, const char *list)
{
	const char *p = list;
	unsigned long lo, hi, cpu;
	char *end;
	int err;

	memset(set, 0, sizeof(*set));
	if (!*list) {
		log_err("bad CPU list '': the list is empty");
		return -EINVAL;
	}
	while (*p) {
		if (parse_uint(p, &end, CPUSTEER_MAX_CPUS - 1, &lo))
			goto bad;
		hi = lo;
		if (*end == '-' && parse_uint(end + 1, &end, CPUSTEER_MAX_CPUS - 1, &hi))
			goto bad;
		if (hi < lo)
			goto bad;
		for (cpu = lo; cpu <= hi; cpu++) {
			err = add_cpu(set, cpu, list);
			if (err)
				return err;
		}
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	return 0;
bad:
	log_err("bad CPU list '%s': expected CPU numbers below %d, as in 0-3,6",
		list, CPUSTEER_MAX_CPUS);
	return -EINVAL;
}

int cpuset_parse_weights(struct cpuset *set, const char *list)
{
	const char *p = list;
	unsigned long w, total = 0;
	__u32 i = 0;
	char *end;

	while (*p) {
		if (i == set->n || parse_uint(p, &end, 1000000, &w) ||
		    (*end && *end != ','))
			goto bad;
		set->weight[i++] = w;
		total += w;
		p = *end ? end + 1 : end;
	}
	if (i != set->n)
		goto bad;
	if (!total) {
		log_err("bad weights '%s': every weight is 0, so no CPU would get a bucket", list);
		return -EINVAL;
	}
	return 0;
bad:
	log_err("bad weights '%s': expected %u comma-separated numbers (0 to 1000000), one per CPU in --cpus",
		list, set->n);
	return -EINVAL;
}

bool cpuset_contains(const struct cpuset *set, __u32 cpu)
{
	__u32 i;

	for (i = 0; i < set->n; i++)
		if (set->cpu[i] == cpu)
			return true;
	return false;
}

/* /sys/devices/system/cpu/online is itself a CPU list. */
static int read_online(struct cpuset *online)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	size_t len;

	if (!f) {
		log_err("cannot read /sys/devices/system/cpu/online: %s", strerror(errno));
		return -errno;
	}
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len] = '\0';
	return cpuset_parse(online, buf);
}

int cpuset_online(struct cpuset *set)
{
	return read_online(set);
}

static int check_one(const struct cpuset *online, __u32 cpu)
{
	char path[64];

	if (cpuset_contains(online, cpu))
		return 0;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u", cpu);
	log_err("bad CPU %u: %s", cpu,
		access(path, F_OK) ? "no such CPU on this machine" : "the CPU is offline");
	return -ENODEV;
}

int cpu_check_online(__u32 cpu)
{
	struct cpuset online;
	int err = read_online(&online);

	return err ? err : check_one(&online, cpu);
}

int cpuset_check_online(const struct cpuset *set)
{
	struct cpuset online;
	__u32 i;
	int err = read_online(&online);

	for (i = 0; !err && i < set->n; i++)
		err = check_one(&online, set->cpu[i]);
	return err;
}

void cpuset_format(const struct cpuset *set, char *buf, size_t len)
{
	size_t off = 0;
	__u32 i, j;

	buf[0] = '\0';
	for (i = 0; i < set->n && off < len; i = j) {
		j = i + 1;
		while (j < set->n && set->cpu[j] == set->cpu[j - 1] + 1)
			j++;
		if (j - i > 1)
			off += snprintf(buf + off, len - off, "%s%u-%u", i ? "," : "",
					set->cpu[i], set->cpu[j - 1]);
		else
			off += snprintf(buf + off, len - off, "%s%u", i ? "," : "", set->cpu[i]);
	}
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpuset.h"
#include "log.h"

#define WORD_BITS (sizeof(unsigned long) * CHAR_BIT)

/* ---- the list syntax, shared by CPU lists, machine lists and weights ---- */

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

/* After an item comes the end or a comma and another item: an empty item
 * (",,", or a trailing comma) is a mistake, not nothing.
 */
static int next_item(const char **p, const char *end)
{
	if (*end == ',' && end[1]) {
		*p = end + 1;
		return 0;
	}
	if (*end)
		return -EINVAL;
	*p = end;
	return 0;
}

/* One "N" or "N-M" item. Returns 1 with the range, 0 at the end of the
 * list, or -EINVAL.
 */
static int next_range(const char **p, unsigned long *lo, unsigned long *hi)
{
	char *end;

	if (!**p)
		return 0;
	if (parse_uint(*p, &end, CPU_NUMBER_MAX, lo))
		return -EINVAL;
	*hi = *lo;
	if (*end == '-' && parse_uint(end + 1, &end, CPU_NUMBER_MAX, hi))
		return -EINVAL;
	if (*hi < *lo || next_item(p, end))
		return -EINVAL;
	return 1;
}

/* ---- what one instance targets ---- */

int cpuset_parse(struct cpuset *set, const char *list)
{
	/* Any number up to CPU_NUMBER_MAX may appear once: 8 KiB of bits. */
	unsigned long seen[(CPU_NUMBER_MAX + 1) / WORD_BITS] = {};
	unsigned long lo, hi, cpu, total = 0;
	const char *p = list;
	int more;

	memset(set, 0, sizeof(*set));
	if (!*list) {
		log_err("bad CPU list '': the list is empty");
		return -EINVAL;
	}
	while ((more = next_range(&p, &lo, &hi)) > 0) {
		for (cpu = lo; cpu <= hi; cpu++) {
			if (seen[cpu / WORD_BITS] & (1UL << cpu % WORD_BITS)) {
				log_err("bad CPU list '%s': CPU %lu is listed twice", list, cpu);
				return -EINVAL;
			}
			seen[cpu / WORD_BITS] |= 1UL << cpu % WORD_BITS;
			/* Keep counting past the cap, so the message gives the total. */
			if (total++ < CPUSTEER_MAX_CPUS) {
				set->cpu[set->n] = cpu;
				set->weight[set->n++] = 1;
			}
		}
	}
	if (more < 0) {
		log_err("bad CPU list '%s': expected CPU numbers from 0 to %d, as in 0-3,6",
			list, CPU_NUMBER_MAX);
		return -EINVAL;
	}
	if (total > CPUSTEER_MAX_CPUS) {
		log_err("bad CPU list '%s': %lu CPUs, more than the %d one instance can target",
			list, total, CPUSTEER_MAX_CPUS);
		return -E2BIG;
	}
	return 0;
}

void cpu_weights_parse(struct cpu_weights *w, const char *list)
{
	const char *p = list;
	unsigned long weight;
	char *end;

	memset(w, 0, sizeof(*w));
	w->list = list;
	while (*p) {
		if (w->n == CPUSTEER_MAX_CPUS || parse_uint(p, &end, 1000000, &weight) ||
		    next_item(&p, end)) {
			w->malformed = true;
			return;
		}
		w->weight[w->n++] = weight;
	}
}

int cpuset_weigh(struct cpuset *set, const struct cpu_weights *w)
{
	unsigned long total = 0;
	__u32 i;

	if (w->malformed || w->n != set->n) {
		log_err("bad weights '%s': expected %u comma-separated numbers (0 to 1000000), one per CPU in --cpus",
			w->list, set->n);
		return -EINVAL;
	}
	for (i = 0; i < w->n; i++)
		total += w->weight[i];
	if (!total) {
		log_err("bad weights '%s': every weight is 0, so no CPU would get a bucket", w->list);
		return -EINVAL;
	}
	memcpy(set->weight, w->weight, w->n * sizeof(w->weight[0]));
	return 0;
}

bool cpuset_contains(const struct cpuset *set, __u32 cpu)
{
	__u32 i;

	for (i = 0; i < set->n; i++)
		if (set->cpu[i] == cpu)
			return true;
	return false;
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

/* ---- what the machine has ---- */

int cpu_bitmap_parse(struct cpu_bitmap *bm, const char *list)
{
	unsigned long lo, hi, top = 0, cpu;
	const char *p = list;
	int more;

	memset(bm, 0, sizeof(*bm));
	/* The kernel writes an empty mask as an empty line. */
	while ((more = next_range(&p, &lo, &hi)) > 0)
		if (hi + 1 > top)
			top = hi + 1;
	if (more < 0)
		return -EINVAL;
	if (!top)
		return 0;
	bm->words = calloc((top + WORD_BITS - 1) / WORD_BITS, sizeof(*bm->words));
	if (!bm->words)
		return -ENOMEM;
	bm->nbits = top;
	p = list;
	while (next_range(&p, &lo, &hi) > 0)
		for (cpu = lo; cpu <= hi; cpu++)
			bm->words[cpu / WORD_BITS] |= 1UL << cpu % WORD_BITS;
	return 0;
}

int cpu_bitmap_read(struct cpu_bitmap *bm, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err;

	memset(bm, 0, sizeof(*bm));
	if (!f) {
		err = -errno;
		log_err("cannot read %s: %s", path, strerror(-err));
		return err;
	}
	/* One line, however many CPUs it names. */
	len = getline(&line, &cap, f);
	fclose(f);
	if (len < 0) {
		free(line);
		log_err("cannot read %s: the file is empty", path);
		return -EIO;
	}
	while (len && (line[len - 1] == '\n' || line[len - 1] == ' '))
		line[--len] = '\0';
	err = cpu_bitmap_parse(bm, line);
	if (err)
		log_err("cannot read %s: '%s' is not a CPU list", path, line);
	free(line);
	return err;
}

bool cpu_bitmap_test(const struct cpu_bitmap *bm, __u32 cpu)
{
	return cpu < bm->nbits && (bm->words[cpu / WORD_BITS] >> (cpu % WORD_BITS) & 1);
}

__u32 cpu_bitmap_count(const struct cpu_bitmap *bm)
{
	__u32 i, n = 0;

	for (i = 0; i < (bm->nbits + WORD_BITS - 1) / WORD_BITS; i++)
		n += __builtin_popcountl(bm->words[i]);
	return n;
}

void cpu_bitmap_free(struct cpu_bitmap *bm)
{
	free(bm->words);
	memset(bm, 0, sizeof(*bm));
}

int cpu_machine_read(struct cpu_machine *m)
{
	int err;

	memset(m, 0, sizeof(*m));
	err = cpu_bitmap_read(&m->possible, "/sys/devices/system/cpu/possible");
	if (!err)
		err = cpu_bitmap_read(&m->online, "/sys/devices/system/cpu/online");
	if (err)
		cpu_machine_free(m);
	return err;
}

void cpu_machine_free(struct cpu_machine *m)
{
	cpu_bitmap_free(&m->possible);
	cpu_bitmap_free(&m->online);
}

/* `*m` itself, or this machine read into `own` (zeroed by the caller, and
 * freed by it in any case).
 */
static int use_machine(const struct cpu_machine **m, struct cpu_machine *own)
{
	int err;

	if (*m)
		return 0;
	err = cpu_machine_read(own);
	*m = own;
	return err;
}

static int check_one(__u32 cpu, bool may_be_offline, const struct cpu_machine *m)
{
	if (!cpu_bitmap_test(&m->possible, cpu)) {
		log_err("bad CPU %u: no such CPU on this machine", cpu);
		return -ENODEV;
	}
	if (!may_be_offline && !cpu_bitmap_test(&m->online, cpu)) {
		log_err("bad CPU %u: the CPU is offline", cpu);
		return -ENODEV;
	}
	return 0;
}

int cpuset_check(const struct cpuset *set, const struct cpuset *running,
		 const struct cpu_machine *m)
{
	struct cpu_machine own = {};
	int err = use_machine(&m, &own);
	__u32 i;

	for (i = 0; !err && i < set->n; i++)
		err = check_one(set->cpu[i], running && cpuset_contains(running, set->cpu[i]), m);
	cpu_machine_free(&own);
	return err;
}

int cpu_check(__u32 cpu, const struct cpu_machine *m)
{
	struct cpu_machine own = {};
	int err = use_machine(&m, &own);

	if (!err)
		err = check_one(cpu, false, m);
	cpu_machine_free(&own);
	return err;
}

int cpuset_all_online(struct cpuset *set, const struct cpu_machine *m)
{
	struct cpu_machine own = {};
	int err = use_machine(&m, &own);
	__u32 cpu, n;

	memset(set, 0, sizeof(*set));
	if (err)
		goto out;
	n = cpu_bitmap_count(&m->online);
	if (n > CPUSTEER_MAX_CPUS) {
		log_err("cannot target every online CPU: %u are online, more than the %d one instance can target; choose some with --cpus",
			n, CPUSTEER_MAX_CPUS);
		err = -E2BIG;
		goto out;
	}
	for (cpu = 0; cpu < m->online.nbits; cpu++) {
		if (!cpu_bitmap_test(&m->online, cpu))
			continue;
		set->cpu[set->n] = cpu;
		set->weight[set->n++] = 1;
	}
out:
	cpu_machine_free(&own);
	return err;
}

int cpuset_offline(const struct cpuset *set, const struct cpu_machine *m,
		   struct cpuset *offline)
{
	struct cpu_machine own = {};
	int err = use_machine(&m, &own);
	__u32 i;

	memset(offline, 0, sizeof(*offline));
	for (i = 0; !err && i < set->n; i++) {
		if (cpu_bitmap_test(&m->online, set->cpu[i]))
			continue;
		offline->cpu[offline->n] = set->cpu[i];
		offline->weight[offline->n++] = set->weight[i];
	}
	cpu_machine_free(&own);
	return err;
}

int cpu_check_online(__u32 cpu)
{
	return cpu_check(cpu, NULL);
}

int cpuset_online(struct cpuset *set)
{
	return cpuset_all_online(set, NULL);
}

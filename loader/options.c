// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "log.h"
#include "options.h"

/* The key is written as 32 hex digits, most significant first. */
static int parse_key(const char *arg, __u64 key[2])
{
	char half[17];
	int i;

	if (strlen(arg) != 32 || strspn(arg, "0123456789abcdefABCDEF") != 32) {
		log_err("bad key '%s': expected exactly 32 hex digits (128 bits)", arg);
		return -EINVAL;
	}
	for (i = 0; i < 2; i++) {
		memcpy(half, arg + 16 * i, 16);
		half[16] = '\0';
		key[i] = strtoull(half, NULL, 16);
	}
	return 0;
}

void key_format(const __u64 key[2], char *buf, size_t len)
{
	snprintf(buf, len, "%016llx%016llx", (unsigned long long)key[0],
		 (unsigned long long)key[1]);
}

static int parse_non_ip(const char *arg, __u32 *cpu)
{
	if (!strcmp(arg, "pass")) {
		*cpu = CPUSTEER_NON_IP_PASS;
		return 0;
	}
	if (!strncmp(arg, "cpu:", 4))
		return parse_u32("non-IP CPU", arg + 4, 0, CPU_NUMBER_MAX, cpu);
	log_err("bad --non-ip '%s': expected pass or cpu:N", arg);
	return -EINVAL;
}

static int parse_hash(const char *arg, __u32 *fn)
{
	if (!strcmp(arg, "siphash13"))
		*fn = CPUSTEER_HASH_SIPHASH13;
	else if (!strcmp(arg, "jhash"))
		*fn = CPUSTEER_HASH_JHASH;
	else {
		log_err("bad --hash '%s': expected siphash13 or jhash", arg);
		return -EINVAL;
	}
	return 0;
}

int steer_opts_parse(struct steer_opts *o, int id, const char *arg)
{
	int err;

	switch (id) {
	case OPT_CPUS:
		o->cpus_given = true;
		err = cpuset_parse(&o->cpus, arg);
		break;
	case OPT_WEIGHTS:
		o->weights_given = true;
		o->weights_arg = arg;
		err = 0;
		break;
	case OPT_KEY:
		o->key_given = true;
		err = parse_key(arg, o->cfg.key);
		break;
	case OPT_SYMMETRIC:
		o->symmetric_given = true;
		o->cfg.symmetric = 1;
		err = 0;
		break;
	case OPT_BUCKETS:
		o->buckets_given = true;
		err = parse_u32("bucket count", arg, 1, CPUSTEER_MAX_BUCKETS, &o->cfg.nbuckets);
		break;
	case OPT_NON_IP:
		o->non_ip_given = true;
		err = parse_non_ip(arg, &o->cfg.non_ip_cpu);
		break;
	case OPT_HASH:
		o->hash_given = true;
		err = parse_hash(arg, &o->cfg.hash_fn);
		break;
	default:
		return 0;
	}
	return err ? err : 1;
}

int steer_opts_validate(const struct steer_opts *o, const struct cpuset *running)
{
	__u32 i, with_weight = 0;
	int err;

	err = cpuset_check(&o->cpus, running, o->machine);
	if (err)
		return err;
	for (i = 0; i < o->cpus.n; i++)
		with_weight += o->cpus.weight[i] > 0;
	if (!with_weight) {
		log_err("bad CPU set: no CPU has a weight, so no CPU would get a bucket");
		return -EINVAL;
	}
	if (o->cfg.nbuckets < with_weight) {
		log_err("bad bucket count %u: below the %u CPUs that have a weight, so some would get none",
			o->cfg.nbuckets, with_weight);
		return -EINVAL;
	}
	if (o->cfg.non_ip_cpu != CPUSTEER_NON_IP_PASS && !(running && !o->non_ip_given))
		return cpu_check(o->cfg.non_ip_cpu, o->machine);
	return 0;
}

int steer_opts_check_usage(const struct steer_opts *o)
{
	struct cpuset cpus;

	if (!o->weights_given || !o->cpus_given)
		return 0;
	cpus = o->cpus;
	return cpuset_parse_weights(&cpus, o->weights_arg);
}

int steer_opts_finish(struct steer_opts *o)
{
	int err;

	if (!o->cpus_given) {
		err = cpuset_all_online(&o->cpus, o->machine);
		if (err)
			return err;
	}
	if (o->weights_given) {
		err = cpuset_parse_weights(&o->cpus, o->weights_arg);
		if (err)
			return err;
	}
	if (!o->key_given &&
	    getrandom(o->cfg.key, sizeof(o->cfg.key), 0) != sizeof(o->cfg.key)) {
		log_err("cannot draw a random hash key: %s", strerror(errno));
		return -errno;
	}
	if (!o->buckets_given)
		o->cfg.nbuckets = CPUSTEER_DEFAULT_BUCKETS;
	if (!o->non_ip_given)
		o->cfg.non_ip_cpu = CPUSTEER_NON_IP_PASS;
	return steer_opts_validate(o, NULL);
}

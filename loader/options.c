// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include "config_file.h"
#include "log.h"
#include "names.h"
#include "options.h"
#include "tunnel_opts.h"

#define KEY_HEX_DIGITS 32
/* A key file holds the digits and at most a line break after them. */
#define KEY_FILE_MAX_BYTES 64

static bool is_key_hex(const char *arg)
{
	return strlen(arg) == KEY_HEX_DIGITS && strspn(arg, "0123456789abcdefABCDEF") == KEY_HEX_DIGITS;
}

/* --key is the 16 key bytes in order, as SipHash's reference defines a
 * key: k0 is bytes 0-7 and k1 bytes 8-15, each read little-endian. So any
 * SipHash-1-3 implementation given the same 32 hex digits as a byte
 * string computes the same flow hashes (docs/flow-hash.md).
 */
static void key_from_hex(const char *hex, __u64 key[2])
{
	char byte[3] = "";
	int i;

	key[0] = key[1] = 0;
	for (i = 0; i < 16; i++) {
		memcpy(byte, hex + 2 * i, 2);
		key[i / 8] |= (__u64)strtoul(byte, NULL, 16) << (8 * (i % 8));
	}
}

static int parse_key(const char *arg, __u64 key[2])
{
	if (!is_key_hex(arg)) {
		log_err("bad key '%s': expected exactly 32 hex digits (128 bits)", arg);
		return -EINVAL;
	}
	key_from_hex(arg, key);
	return 0;
}

/* The key file, or standard input for "-": the way to give a key that no
 * other user can read, as any can read a --key from /proc/PID/cmdline.
 * Its content is never shown, not even when it is no key.
 */
static int read_key_file(struct steer_opts *o)
{
	bool from_stdin = !strcmp(o->key_file, "-");
	char shown[256], *text;
	size_t len;
	int err = 0;

	if (from_stdin)
		snprintf(shown, sizeof(shown), "standard input (--key-file -)");
	else
		log_printable(o->key_file, shown, sizeof(shown));
	text = from_stdin ? trusted_fd_read(STDIN_FILENO, shown, KEY_FILE_MAX_BYTES, &len)
			  : trusted_file_read(o->key_file, shown, KEY_FILE_MAX_BYTES, &len);
	if (!text)
		return -EINVAL;
	/* `openssl rand -hex 16 >FILE` ends it with a line break. */
	if (len && text[len - 1] == '\n')
		text[--len] = '\0';
	if (len && text[len - 1] == '\r')
		text[--len] = '\0';
	if (len == KEY_HEX_DIGITS && is_key_hex(text)) {
		key_from_hex(text, o->cfg.key);
		o->key_given = true;
	} else {
		log_err("bad key in %s: expected exactly 32 hex digits (128 bits), then at most a line break",
			shown);
		err = -EINVAL;
	}
	explicit_bzero(text, len);
	free(text);
	return err;
}

void key_format(const __u64 key[2], char *buf, size_t len)
{
	size_t used = 0;
	int i;

	for (i = 0; i < 16 && used < len; i++)
		used += snprintf(buf + used, len - used, "%02x",
				 (unsigned)(key[i / 8] >> (8 * (i % 8))) & 0xff);
}

void non_ip_format(const struct cpusteer_config *cfg, char *buf, size_t len)
{
	if (cfg->non_ip_cpu == CPUSTEER_NON_IP_PASS)
		snprintf(buf, len, "pass");
	else
		snprintf(buf, len, "cpu:%u", cfg->non_ip_cpu);
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
	char expected[128];
	int v;

	if (!name_lookup(hash_fn_names, arg, &v)) {
		*fn = v;
		return 0;
	}
	names_expected(hash_fn_names, expected, sizeof(expected));
	log_err("bad --hash '%s': expected %s", arg, expected);
	return -EINVAL;
}

static int opt_cpus(void *opts, const char *arg)
{
	struct steer_opts *o = opts;

	o->cpus_given = true;
	return cpuset_parse(&o->cpus, arg);
}

/* Applied once the CPU list is known. */
static int opt_weights(void *opts, const char *arg)
{
	struct steer_opts *o = opts;

	o->weights_given = true;
	o->weights_arg = arg;
	return 0;
}

/* --key and --key-file give one setting: both in one place (the command
 * line, or one file) is a mistake to point out, not to settle by order.
 */
static int key_given_twice(void)
{
	log_err("--key and --key-file both give the hash key: give one of them");
	return -EINVAL;
}

static int opt_key(void *opts, const char *arg)
{
	struct steer_opts *o = opts;

	if (o->key_file)
		return key_given_twice();
	o->key_given = true;
	return parse_key(arg, o->cfg.key);
}

/* Read once every option is in (steer_opts_check_usage): load reads the
 * command line twice around a --config file, and standard input once.
 */
static int opt_key_file(void *opts, const char *arg)
{
	struct steer_opts *o = opts;

	if (o->key_given)
		return key_given_twice();
	o->key_file = arg;
	return 0;
}

static int opt_buckets(void *opts, const char *arg)
{
	struct steer_opts *o = opts;

	o->buckets_given = true;
	return parse_u32("bucket count", arg, 1, CPUSTEER_MAX_BUCKETS, &o->cfg.nbuckets);
}

static int opt_non_ip(void *opts, const char *arg)
{
	struct steer_opts *o = opts;

	o->non_ip_given = true;
	return parse_non_ip(arg, &o->cfg.non_ip_cpu);
}

static int opt_hash(void *opts, const char *arg)
{
	struct steer_opts *o = opts;

	o->hash_given = true;
	return parse_hash(arg, &o->cfg.hash_fn);
}

static int opt_inner(void *opts, const char *arg)
{
	struct steer_opts *o = opts;

	o->inner_given = true;
	return inner_parse(arg, &o->cfg);
}

const struct cli_option steer_options[] = {
	CLI_OPTION("cpus", "LIST", opt_cpus, "up to " CLI_NUMBER(CPUSTEER_MAX_CPUS) " target CPUs, e.g. 0-3,6",
	  "all online"),
	CLI_OPTION("weights", "LIST", opt_weights, "one weight per CPU in --cpus", "all 1"),
	CLI_OPTION("key", "HEX", opt_key, "128-bit hash key, 32 hex digits; other users\n"
		   "see it in /proc: prefer --key-file", "random"),
	CLI_OPTION("key-file", "FILE", opt_key_file, "the key from FILE (- for standard input),\n"
		   "32 hex digits and at most a line break", NULL),
	CLI_SWITCH_ON("symmetric", struct steer_opts, symmetric,
		      "both directions of a connection share a CPU"),
	CLI_OPTION("buckets", "N", opt_buckets, "indirection table size, 1-" CLI_NUMBER(CPUSTEER_MAX_BUCKETS),
	  CLI_NUMBER(CPUSTEER_DEFAULT_BUCKETS)),
	CLI_OPTION("non-ip", "pass|cpu:N", opt_non_ip, "verdict for non-IP frames", "pass"),
	CLI_OPTION("hash", "multilinear|siphash13|nic", opt_hash,
		   "flow hash; siphash13 if senders can time where\n"
		   "flows land; nic: the NIC's RX hash where it gives\n"
		   "one (load only; Linux 6.3+), multilinear elsewhere", "multilinear"),
	CLI_OPTION("inner", "LIST", opt_inner,
	  "steer tunnels by their inner flow: vxlan[:PORT],\ngeneve[:PORT], gre, ipip, sit, all or none",
	  "none"),
	{}
};

/* The steering options as a command of their own, for cli_blame. */
static const struct cli_command steer_group = {
	.name = "steer",
	.groups = { { steer_options, 0 } },
};

void steer_opts_blame(const struct steer_opts *o, const char *name, const char *or)
{
	cli_blame(&steer_group, (void *)o, name, or);
}

static int check_weighted(const struct steer_opts *o)
{
	__u32 i, with_weight = 0;

	for (i = 0; i < o->cpus.n; i++)
		with_weight += o->cpus.weight[i] > 0;
	if (!with_weight) {
		steer_opts_blame(o, "weights", "cpus");
		log_err("bad CPU set: no CPU has a weight, so no CPU would get a bucket");
		return -EINVAL;
	}
	if (o->cfg.nbuckets < with_weight) {
		steer_opts_blame(o, "buckets", "cpus");
		log_err("bad bucket count %u: below the %u CPUs that have a weight, so some would get none",
			o->cfg.nbuckets, with_weight);
		return -EINVAL;
	}
	return 0;
}

static int check_nic_hash(const struct steer_opts *o)
{
	if (o->cfg.hash_fn != CPUSTEER_HASH_NIC)
		return 0;
	if (o->cfg.inner) {
		steer_opts_blame(o, "hash", "inner");
		log_err("--hash nic cannot go with --inner: the NIC hashes a tunnel's frames by their outer header");
		return -EINVAL;
	}
	if (o->cfg.symmetric) {
		steer_opts_blame(o, "hash", "symmetric");
		log_err("--hash nic cannot go with --symmetric: the NIC's hash is symmetric only if the NIC is set so, which cpusteer cannot see");
		return -EINVAL;
	}
	return 0;
}

int steer_opts_validate(const struct steer_opts *o, const struct cpuset *running)
{
	int err;

	steer_opts_blame(o, "cpus", NULL);
	err = cpuset_check(&o->cpus, running, o->machine);
	if (!err)
		err = check_weighted(o);
	if (!err)
		err = check_nic_hash(o);
	if (!err && o->cfg.non_ip_cpu != CPUSTEER_NON_IP_PASS && !(running && !o->non_ip_given)) {
		steer_opts_blame(o, "non-ip", NULL);
		err = cpu_check(o->cfg.non_ip_cpu, o->machine);
	}
	log_set_where(NULL);
	return err;
}

int steer_opts_check_usage(struct steer_opts *o)
{
	struct cpuset cpus;
	int err = 0;

	if (o->key_file) {
		steer_opts_blame(o, "key-file", NULL);
		err = read_key_file(o);
	}
	log_set_where(NULL);
	if (!err && o->weights_given && o->cpus_given) {
		cpus = o->cpus;
		err = steer_opts_weigh(o, &cpus);
	}
	return err;
}

int steer_opts_weigh(const struct steer_opts *o, struct cpuset *cpus)
{
	int err;

	steer_opts_blame(o, "weights", NULL);
	err = cpuset_parse_weights(cpus, o->weights_arg);
	log_set_where(NULL);
	return err;
}

void steer_opts_forget_key(struct steer_opts *o)
{
	o->key_given = false;
	o->key_file = NULL;
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
		err = steer_opts_weigh(o, &o->cpus);
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
	o->cfg.symmetric = cli_switch_on(o->symmetric, false);
	return steer_opts_validate(o, NULL);
}

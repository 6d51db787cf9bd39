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
		o->given |= CLI_BIT(STEER_KEY);
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
	return parse_key(arg, o->cfg.key);
}

/* Read once every option is in (steer_opts_check_usage): load reads the
 * command line twice around a --config file, and standard input once.
 */
static int opt_key_file(void *opts, const char *arg)
{
	struct steer_opts *o = opts;

	if (steer_given(o, STEER_KEY))
		return key_given_twice();
	o->key_file = arg;
	return 0;
}

static int opt_non_ip(void *opts, const char *arg)
{
	return parse_non_ip(arg, &((struct steer_opts *)opts)->cfg.non_ip_cpu);
}

static int opt_inner(void *opts, const char *arg)
{
	return inner_parse(arg, &((struct steer_opts *)opts)->cfg);
}

/* Each option that needs a callback says why: --key and --key-file give
 * one setting two ways and refuse each other; --non-ip takes a word or a
 * CPU; --inner a list of tunnels with their ports.
 */
const struct cli_option steer_options[] = {
	[STEER_CPUS] = CLI_CPUS_OPTION("cpus", "LIST", struct steer_opts, cpus,
				       "up to " CLI_NUMBER(CPUSTEER_MAX_CPUS) " target CPUs, e.g. 0-3,6",
				       "all online"),
	[STEER_WEIGHTS] = CLI_WEIGHTS_OPTION("weights", "LIST", struct steer_opts, weights,
					  "one weight per CPU in --cpus", "all 1"),
	[STEER_KEY] = { .name = "key", .arg = "HEX", .parse = opt_key,
			.help = "128-bit hash key, 32 hex digits; other users\n"
				"see it in /proc: prefer --key-file",
			.def = "random", CLI_SPAN(struct steer_opts, cfg.key, cfg.key) },
	[STEER_KEY_FILE] = CLI_OPTION("key-file", "FILE", opt_key_file,
				      "the key from FILE (- for standard input),\n"
				      "32 hex digits and at most a line break", NULL),
	[STEER_SYMMETRIC] = CLI_SWITCH_ON("symmetric", struct steer_opts, symmetric,
					  "both directions of a connection share a CPU"),
	[STEER_BUCKETS] = CLI_WHOLE_OPTION("buckets", "N", struct steer_opts, cfg.nbuckets, 1,
					   CPUSTEER_MAX_BUCKETS,
					   "indirection table size, 1-" CLI_NUMBER(CPUSTEER_MAX_BUCKETS),
					   CLI_NUMBER(CPUSTEER_DEFAULT_BUCKETS), .what = "bucket count"),
	[STEER_NON_IP] = { .name = "non-ip", .arg = "pass|cpu:N", .parse = opt_non_ip,
			   .help = "verdict for non-IP frames", .def = "pass",
			   CLI_SPAN(struct steer_opts, cfg.non_ip_cpu, cfg.non_ip_cpu) },
	[STEER_HASH] = CLI_ENUM_OPTION("hash", hash_fn_names, struct steer_opts, cfg.hash_fn,
				       "flow hash; siphash13 if senders can time where\n"
				       "flows land; nic: the NIC's RX hash where it gives\n"
				       "one (load only; Linux 6.3+), multilinear elsewhere",
				       "multilinear"),
	/* bucket_stats, which lies among the tunnel fields, is load's alone:
	 * set keeps the running one whatever --inner says.
	 */
	[STEER_INNER] = { .name = "inner", .arg = "LIST", .parse = opt_inner,
			  .help = "steer tunnels by their inner flow: vxlan[:PORT],\n"
				  "geneve[:PORT], gre, ipip, sit, erspan, gtpu[:PORT],\n"
				  "all or none; gtpu-teid[:PORT]: GTP-U by tunnel",
			  .def = "none", CLI_SPAN(struct steer_opts, cfg.inner, cfg.udp_tunnel_filter) },
	[STEER_OPTIONS] = {}
};

static const struct steer_opts steer_start = STEER_START;

/* The steering options as a command of their own, for cli_blame. */
static const struct cli_command steer_group = {
	.name = "steer",
	.groups = { { steer_options, 0, CLI_GIVEN_AT(struct steer_opts, given) } },
	.start = &steer_start,
};

void steer_opts_init(struct steer_opts *o)
{
	*o = steer_start;
}

int steer_opts_set(struct steer_opts *o, const char *name, const char *arg)
{
	return cli_set_option(&steer_group, o, name, arg);
}

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
	if (!err && o->cfg.non_ip_cpu != CPUSTEER_NON_IP_PASS &&
	    !(running && !steer_given(o, STEER_NON_IP))) {
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
	if (!err && steer_given(o, STEER_WEIGHTS) && steer_given(o, STEER_CPUS)) {
		cpus = o->cpus;
		err = steer_opts_weigh(o, &cpus);
	}
	return err;
}

int steer_opts_weigh(const struct steer_opts *o, struct cpuset *cpus)
{
	int err;

	steer_opts_blame(o, "weights", NULL);
	err = cpuset_weigh(cpus, &o->weights);
	log_set_where(NULL);
	return err;
}

void steer_opts_forget_key(struct steer_opts *o)
{
	o->given &= ~(CLI_BIT(STEER_KEY) | CLI_BIT(STEER_KEY_FILE));
	o->key_file = NULL;
}

int steer_opts_finish(struct steer_opts *o)
{
	int err;

	if (!steer_given(o, STEER_CPUS)) {
		err = cpuset_all_online(&o->cpus, o->machine);
		if (err)
			return err;
	}
	if (steer_given(o, STEER_WEIGHTS)) {
		err = steer_opts_weigh(o, &o->cpus);
		if (err)
			return err;
	}
	if (!steer_given(o, STEER_KEY) &&
	    getrandom(o->cfg.key, sizeof(o->cfg.key), 0) != sizeof(o->cfg.key)) {
		log_err("cannot draw a random hash key: %s", strerror(errno));
		return -errno;
	}
	o->cfg.symmetric = cli_switch_on(o->symmetric, false);
	return steer_opts_validate(o, NULL);
}

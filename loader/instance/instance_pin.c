// SPDX-License-Identifier: GPL-2.0
/* The parts of an instance that outlive one process: the pins in the
 * instance's folder (pin_tree.h), made and opened relative to the
 * folder's verified descriptor.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "instance.h"
#include "log.h"
#include "pin_tree.h"

/* What the pins are called; the record is pinned first (and removed
 * last), so that a folder with any pin in it also says what it is.
 */
#define PROG_PIN "prog"

struct map_pin {
	const char *name;
	size_t offset;		/* in struct steer_maps */
	__u32 type, key_size, value_size;
};

static const struct map_pin map_pins[] = {
	{ INSTANCE_RECORD_PIN, offsetof(struct steer_maps, instance_state), BPF_MAP_TYPE_ARRAY, 4,
	  sizeof(struct cpusteer_instance_state) },
	{ "cpu_map", offsetof(struct steer_maps, cpu_map), BPF_MAP_TYPE_CPUMAP, 4,
	  sizeof(struct bpf_cpumap_val) },
	{ "bucket_table", offsetof(struct steer_maps, bucket_table), BPF_MAP_TYPE_ARRAY, 4, 4 },
	{ "config_map", offsetof(struct steer_maps, config_map), BPF_MAP_TYPE_ARRAY, 4,
	  sizeof(struct cpusteer_config) },
	{ "config_slot", offsetof(struct steer_maps, config_slot), BPF_MAP_TYPE_ARRAY, 4, 4 },
	/* Its value size follows the possible CPUs, checked on its own. */
	{ "counters", offsetof(struct steer_maps, counters), BPF_MAP_TYPE_PERCPU_ARRAY, 4, 0 },
	{ "remote_counters", offsetof(struct steer_maps, remote_counters),
	  BPF_MAP_TYPE_PERCPU_ARRAY, 4, sizeof(struct cpusteer_remote_counters) },
	{ "remote_devmap", offsetof(struct steer_maps, remote_devmap), BPF_MAP_TYPE_DEVMAP, 4, 4 },
	{ "bucket_load", offsetof(struct steer_maps, bucket_load), BPF_MAP_TYPE_PERCPU_ARRAY, 4,
	  sizeof(struct cpusteer_bucket_load) },
	{ "rules_ipv4_0", offsetof(struct steer_maps, rules_ipv4[0]), BPF_MAP_TYPE_LPM_TRIE,
	  sizeof(struct cpusteer_rule_key_ipv4), sizeof(struct cpusteer_rule) },
	{ "rules_ipv4_1", offsetof(struct steer_maps, rules_ipv4[1]), BPF_MAP_TYPE_LPM_TRIE,
	  sizeof(struct cpusteer_rule_key_ipv4), sizeof(struct cpusteer_rule) },
	{ "rules_ipv6_0", offsetof(struct steer_maps, rules_ipv6[0]), BPF_MAP_TYPE_LPM_TRIE,
	  sizeof(struct cpusteer_rule_key_ipv6), sizeof(struct cpusteer_rule) },
	{ "rules_ipv6_1", offsetof(struct steer_maps, rules_ipv6[1]), BPF_MAP_TYPE_LPM_TRIE,
	  sizeof(struct cpusteer_rule_key_ipv6), sizeof(struct cpusteer_rule) },
	{ "rule_hits", offsetof(struct steer_maps, rule_hits), BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8 },
};
#define NMAP_PINS (sizeof(map_pins) / sizeof(map_pins[0]))

static const char *const remote_pins[REMOTE_ACTIONS] = {
	[REMOTE_PASS] = "remote_pass",
	[REMOTE_DROP] = "remote_drop",
	[REMOTE_REDIRECT] = "remote_redirect",
};

static int *map_fd(struct steer_instance *in, const struct map_pin *p)
{
	return (int *)((char *)&in->maps + p->offset);
}

/* A path that names `name` inside the folder `dirfd` refers to, whatever
 * happens to the folder's own path meanwhile: bpf(2) takes paths only.
 */
static void pin_path(char *buf, size_t len, int dirfd, const char *name)
{
	snprintf(buf, len, "/proc/self/fd/%d/%s", dirfd, name);
}

static int pin_one(int fd, int dirfd, const char *name)
{
	char path[64];

	pin_path(path, sizeof(path), dirfd, name);
	if (!bpf_obj_pin(fd, path))
		return 0;
	log_err("cannot pin %s: %s", name, strerror(errno));
	return -errno;
}

int instance_pin(struct steer_instance *in, int dirfd)
{
	int err = 0, r;
	size_t i;

	for (i = 0; i < NMAP_PINS && !err; i++)
		err = pin_one(*map_fd(in, &map_pins[i]), dirfd, map_pins[i].name);
	for (r = 0; r < REMOTE_ACTIONS && !err; r++)
		if (remote_pins[r])
			err = pin_one(in->remote_prog[r], dirfd, remote_pins[r]);
	if (!err && in->steer_prog >= 0)
		err = instance_pin_prog(in, dirfd);
	return err;
}

int instance_pin_prog(struct steer_instance *in, int dirfd)
{
	return pin_one(in->steer_prog, dirfd, PROG_PIN);
}

static int get_pinned(int dirfd, const char *name)
{
	char path[64];

	pin_path(path, sizeof(path), dirfd, name);
	return bpf_obj_get(path);
}

/* Pins from another cpusteer version would be read as garbage. */
static int check_shape(int fd, const struct map_pin *p)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != p->type || info.key_size != p->key_size ||
	    (p->value_size && info.value_size != p->value_size))
		return -EPROTO;
	return 0;
}

static int map_entries(int fd, __u32 *entries)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*entries = info.max_entries;
	return 0;
}

int instance_open_record(struct steer_instance *in, int dirfd)
{
	const struct map_pin *p = &map_pins[0];
	int *fd = map_fd(in, p), err;

	*fd = get_pinned(dirfd, p->name);
	if (*fd < 0)
		return -errno;
	err = check_shape(*fd, p);
	if (err) {
		close(*fd);
		*fd = -1;
	}
	return err;
}

int instance_read_record(int dirfd, struct cpusteer_instance_state *st)
{
	struct steer_instance in;
	int err;

	instance_init(&in);
	err = instance_open_record(&in, dirfd);
	if (!err)
		err = instance_read_state(&in, st);
	instance_close(&in);
	return err;
}

int instance_open_pinned(struct steer_instance *in, int dirfd, const char *what)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	const char *name = NULL;
	int err = 0, r, *fd;
	size_t i;

	instance_init(in);
	for (i = 0; i < NMAP_PINS && !err; i++) {
		name = map_pins[i].name;
		fd = map_fd(in, &map_pins[i]);
		*fd = get_pinned(dirfd, name);
		err = *fd < 0 ? -errno : check_shape(*fd, &map_pins[i]);
	}
	for (r = 0; r < REMOTE_ACTIONS && !err; r++) {
		if (!remote_pins[r])
			continue;
		name = remote_pins[r];
		in->remote_prog[r] = get_pinned(dirfd, name);
		err = in->remote_prog[r] < 0 ? -errno : 0;
	}
	if (!err) {
		name = PROG_PIN;
		in->steer_prog = get_pinned(dirfd, name);
		err = in->steer_prog < 0 ? -errno : 0;
	}
	if (!err && bpf_obj_get_info_by_fd(in->maps.cpu_map, &info, &len))
		err = -errno;
	if (!err) {
		struct bpf_map_info counters = {};
		__u32 clen = sizeof(counters);

		name = "counters";
		if (bpf_obj_get_info_by_fd(in->maps.counters, &counters, &clen))
			err = -errno;
		else if (counters.value_size != CPUSTEER_COUNTERS_VALUE_SIZE(info.max_entries))
			err = -EPROTO;
	}
	if (err) {
		if (what)
			log_err("the instance on %s is incomplete (%s: %s); cpusteer unload removes it",
				what, name,
				err == -EPROTO ? "made by another cpusteer version" : strerror(-err));
		instance_close(in);
		return err;
	}
	in->ncpus = info.max_entries;
	err = map_entries(in->maps.bucket_load, &in->bucket_load_entries);
	if (!err)
		err = instance_map_table(in);
	if (err)
		instance_close(in);
	return err;
}

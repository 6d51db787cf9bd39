// SPDX-License-Identifier: GPL-2.0
/* The parts of an instance that outlive one process: the libxdp attach,
 * the pins under /sys/fs/bpf/cpusteer/IFACE/, and reopening from them.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "instance.h"
#include "log.h"
#include "steer.skel.h"

#define BPFFS_DIR "/sys/fs/bpf"
#define PROG_PIN "prog"

/* `ip netns exec` unshares the mount namespace for the one command it
 * runs, so our parent (the shell) is still in the lasting one. PID 1's
 * namespace would be the better reference but is not always readable.
 */
static bool mount_ns_is_private(void)
{
	struct stat self, parent;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", getppid());
	if (stat("/proc/self/ns/mnt", &self) || stat(path, &parent))
		return false;
	return self.st_ino != parent.st_ino || self.st_dev != parent.st_dev;
}

static bool bpffs_mounted(void)
{
	struct statfs st;

	return !statfs(BPFFS_DIR, &st) && st.f_type == BPF_FS_MAGIC;
}

int bpffs_check(void)
{
	/* A bpffs mounted in a private mount namespace vanishes with this
	 * command, and the pins with it, orphaning the attached program.
	 */
	if (!bpffs_mounted() && mount_ns_is_private()) {
		log_err("cannot pin: no bpffs at %s in this mount namespace (under ip netns exec?); "
			"enter only the network namespace instead: nsenter --net=/run/netns/NAME cpusteer ...",
			BPFFS_DIR);
		return -ENOENT;
	}
	return 0;
}

int bpffs_ensure(void)
{
	int err = bpffs_check();

	if (err || bpffs_mounted())
		return err;
	if (mount("bpf", BPFFS_DIR, "bpf", 0, "mode=0700")) {
		log_err("cannot mount bpffs at %s: %s (cpusteer keeps its state there)",
			BPFFS_DIR, strerror(errno));
		return -errno;
	}
	return 0;
}

static void pin_dir_of(char *buf, size_t len, const char *ifname)
{
	snprintf(buf, len, "%s/%s", CPUSTEER_PIN_ROOT, ifname);
}

bool instance_is_pinned(const char *ifname)
{
	char dir[128];

	pin_dir_of(dir, sizeof(dir), ifname);
	return !access(dir, F_OK);
}

/* The maps later commands need; the rest (rodata, the classify record)
 * belong to one process.
 */
static struct bpf_map **pinned_maps(struct steer *skel, size_t *n)
{
	static struct bpf_map *maps[7];

	maps[0] = skel->maps.cpu_map;
	maps[1] = skel->maps.bucket_table;
	maps[2] = skel->maps.config_map;
	maps[3] = skel->maps.counters;
	maps[4] = skel->maps.remote_counters;
	maps[5] = skel->maps.remote_devmap;
	maps[6] = skel->maps.instance_state;
	*n = 7;
	return maps;
}

int instance_attach(struct steer_instance *in, const char *ifname, int ifindex,
		    int xdp_mode, bool notouch)
{
	struct xdp_program *xp;
	int err;

	in->attached_fd = instance_prog_fd(in, notouch);
	xp = xdp_program__from_fd(in->attached_fd);
	err = libxdp_get_error(xp);
	if (err) {
		log_err("cannot hand the program to libxdp: %s", strerror(-err));
		return err;
	}
	err = xdp_program__attach(xp, ifindex, xdp_mode, 0);
	if (err) {
		xdp_program__close(xp);
		if (err == -EBUSY || err == -EEXIST)
			log_err("cannot attach to %s: another XDP program is attached and it is not a libxdp dispatcher (see xdp-loader status)",
				ifname);
		else if (err == -EOPNOTSUPP)
			log_err("cannot attach to %s: the driver does not support this XDP mode (try --xdp-mode skb)",
				ifname);
		else
			log_err("cannot attach to %s: %s", ifname, strerror(-err));
		return err;
	}
	in->xdp = xp;
	in->ifindex = ifindex;
	return 0;
}

void instance_detach(struct steer_instance *in)
{
	if (!in->xdp)
		return;
	xdp_program__detach(in->xdp, in->ifindex, XDP_MODE_UNSPEC, 0);
	xdp_program__close(in->xdp);
	in->xdp = NULL;
}

/* Removes every pin in the instance's folder, then the folder, then the
 * cpusteer root if no other instance is left.
 */
void instance_unpin(const char *ifname)
{
	char dir[128], path[400];
	struct dirent *e;
	DIR *d;

	pin_dir_of(dir, sizeof(dir), ifname);
	d = opendir(dir);
	if (d) {
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
	rmdir(CPUSTEER_PIN_ROOT);
}

int instance_pin(struct steer_instance *in, const char *ifname)
{
	char path[400];
	size_t n, i;
	struct bpf_map **maps = pinned_maps(in->skel, &n);
	int err = 0;

	pin_dir_of(in->pin_dir, sizeof(in->pin_dir), ifname);
	/* Pins are root's alone: they give full control of the steering. */
	if ((mkdir(CPUSTEER_PIN_ROOT, 0700) && errno != EEXIST) ||
	    mkdir(in->pin_dir, 0700)) {
		err = -errno;
		log_err("cannot create %s: %s", in->pin_dir, strerror(errno));
		rmdir(CPUSTEER_PIN_ROOT);
		return err;
	}
	for (i = 0; i < n && !err; i++) {
		snprintf(path, sizeof(path), "%s/%s", in->pin_dir, bpf_map__name(maps[i]));
		err = bpf_map__pin(maps[i], path);
	}
	if (!err) {
		snprintf(path, sizeof(path), "%s/%s", in->pin_dir, PROG_PIN);
		err = bpf_obj_pin(in->attached_fd, path) ? -errno : 0;
	}
	if (err) {
		log_err("cannot pin the instance under %s: %s", in->pin_dir, strerror(-err));
		instance_unpin(ifname);
	}
	return err;
}

/* Pins from another cpusteer version would be read as garbage. */
static int same_shape(const struct bpf_map *map, int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != bpf_map__type(map) || info.key_size != bpf_map__key_size(map) ||
	    info.value_size != bpf_map__value_size(map))
		return -EPROTO;
	return 0;
}

int instance_open_pinned(struct steer_instance *in, const char *ifname)
{
	char path[400];
	size_t n, i;
	struct bpf_map **maps;
	int err, fd;

	memset(in, 0, sizeof(*in));
	pin_dir_of(in->pin_dir, sizeof(in->pin_dir), ifname);
	if (access(in->pin_dir, F_OK)) {
		log_err("cpusteer is not loaded on %s (no %s; use cpusteer load)", ifname, in->pin_dir);
		return -ENOENT;
	}
	in->skel = steer__open();
	if (!in->skel)
		return -errno;
	maps = pinned_maps(in->skel, &n);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", in->pin_dir, bpf_map__name(maps[i]));
		fd = bpf_obj_get(path);
		/* reuse_fd takes the map's real definition from the kernel;
		 * pin-path reuse would compare it with ours and refuse the
		 * devmap, which the kernel marks read-only for programs. The
		 * shape is checked here instead, flags aside.
		 */
		err = fd < 0 ? -errno : same_shape(maps[i], fd);
		if (!err)
			err = bpf_map__reuse_fd(maps[i], fd);
		if (fd >= 0)
			close(fd);
		if (err) {
			log_err("the instance on %s is half gone (%s: %s); run cpusteer unload %s",
				ifname, path, strerror(-err), ifname);
			instance_close(in);
			return err;
		}
	}
	err = steer__load(in->skel);
	if (err) {
		log_err("cannot reopen the instance on %s: %s", ifname, strerror(-err));
		instance_close(in);
	}
	return err;
}

static int lookup_zero(struct bpf_map *map, void *value)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(bpf_map__fd(map), &zero, value) ? -errno : 0;
}

int instance_read_state(struct steer_instance *in, struct cpusteer_instance_state *st)
{
	return lookup_zero(in->skel->maps.instance_state, st);
}

int instance_write_state(struct steer_instance *in, const struct cpusteer_instance_state *st)
{
	__u32 zero = 0;

	if (bpf_map_update_elem(bpf_map__fd(in->skel->maps.instance_state), &zero, st, 0)) {
		log_err("cannot record the instance state: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int instance_read_config(struct steer_instance *in, struct cpusteer_config *cfg)
{
	return lookup_zero(in->skel->maps.config_map, cfg);
}

__u32 instance_cpumap_id(struct steer_instance *in)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_map__fd(in->skel->maps.cpu_map), &info, &len))
		return 0;
	return info.id;
}

__u32 instance_attached_prog_id(struct steer_instance *in)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(in->attached_fd, &info, &len))
		return 0;
	return info.id;
}

// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <pwd.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include "invocation.h"
#include "lock.h"
#include "log.h"
#include "netns.h"
#include "pin_tree.h"

#define BPFFS_DIR "/sys/fs/bpf"
#define ROOT_NAME "cpusteer"
#define NS_PREFIX "ns"

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

static int open_root(bool create);

static bool bpffs_mounted(void)
{
	struct statfs st;

	return !statfs(BPFFS_DIR, &st) && st.f_type == BPF_FS_MAGIC;
}

int bpffs_check(void)
{
	char path[128] = "/run/netns/NAME", args[1024], hint[1280];
	__u64 cookie, ino;

	/* A bpffs mounted in a private mount namespace vanishes with this
	 * command, and the pins with it, orphaning the attached program; and
	 * the instances pinned on the host's cannot be seen from there.
	 */
	if (bpffs_mounted() || !mount_ns_is_private())
		return 0;
	if (!netns_self(&cookie, &ino))
		netns_locate(cookie, ino, path, sizeof(path));
	invocation_format("...", args, sizeof(args));
	netns_hint(path, args, hint, sizeof(hint));
	log_err("cannot reach cpusteer's pins: no bpffs at %s in this mount namespace (ip netns exec mounts a /sys of its own, which hides the host's); enter only the network namespace instead: %s",
		BPFFS_DIR, hint);
	return -ENOENT;
}

bool pin_tree_root_exists(void)
{
	int fd = open_root(false);

	if (fd < 0)
		return false;
	close(fd);
	return true;
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

int instance_dir_init(struct instance_dir *d, const char *ifname)
{
	__u64 cookie;
	int err = ifname_check(ifname);

	__u64 ino;

	if (!err)
		err = netns_self(&cookie, &ino);
	if (err)
		return err;
	instance_dir_init_in(d, ifname, cookie, ino);
	return 0;
}

void instance_dir_init_in(struct instance_dir *d, const char *ifname, __u64 cookie, __u64 ino)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->ifname, sizeof(d->ifname), "%s", ifname);
	log_printable(ifname, d->shown, sizeof(d->shown));
	ifname_to_pin_name(ifname, d->pin_name);
	d->netns_cookie = cookie;
	d->netns_ino = ino;
	snprintf(d->path, sizeof(d->path), "%s/" NS_PREFIX "%llu/%s", CPUSTEER_PIN_ROOT,
		 (unsigned long long)cookie, d->pin_name);
	d->fd = -1;
}

/* A command walks the tree more than once (status lists this namespace's
 * instances, then the others'; unload looks for an owner): each refusal
 * is said once a process.
 */
static bool already_refused(const char *shown)
{
	static char said[8][96];
	static unsigned int n;
	unsigned int i;

	for (i = 0; i < n && i < 8; i++)
		if (!strcmp(said[i], shown))
			return true;
	snprintf(said[n++ % 8], sizeof(said[0]), "%s", shown);
	return false;
}

/* Why a folder is not used, and what puts it right, in one line: a
 * folder another user made where cpusteer's belongs (the bpffs root is
 * often writable by everyone) is removed by root, and cpusteer makes it
 * again, root's.
 */
static void refuse_folder(const char *shown, const struct stat *sb, bool on_bpffs)
{
	struct passwd *pw;
	char owner[96];

	if (already_refused(shown))
		return;
	if (!on_bpffs) {
		log_err("refusing %s: not on bpffs; remove it as root (rm -r %s)", shown, shown);
		return;
	}
	if (sb->st_uid != 0) {
		pw = getpwuid(sb->st_uid);
		if (pw)
			snprintf(owner, sizeof(owner), "user %.64s (uid %u)", pw->pw_name,
				 (unsigned int)sb->st_uid);
		else
			snprintf(owner, sizeof(owner), "uid %u", (unsigned int)sb->st_uid);
		log_err("refusing %s: it belongs to %s, not root, who could plant pins in it; remove it as root (rm -r %s) and cpusteer makes it again, root's",
			shown, owner, shown);
		return;
	}
	log_err("refusing %s: writable by users other than root (mode %04o), who could plant pins in it; remove it as root (rm -r %s) and cpusteer makes it again, mode 0700",
		shown, (unsigned int)(sb->st_mode & 07777), shown);
}

/* Opens `name` under `parent` (making it first with `create`) and accepts
 * it only as a root-owned directory on bpffs that no one else can write
 * to. -ENOENT silently when it does not exist.
 */
static int open_checked(int parent, const char *name, const char *shown, bool create)
{
	struct statfs sfs;
	struct stat sb;
	int fd, err;

	if (create && mkdirat(parent, name, 0700) && errno != EEXIST) {
		/* The parent was removed under us (it was empty): the caller
		 * starts over.
		 */
		if (errno == ENOENT)
			return -ENOENT;
		log_err("cannot create %s: %s", shown, strerror(errno));
		return -errno;
	}
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return -ENOENT;
		err = errno == ELOOP ? -ENOTDIR : -errno;
		if (already_refused(shown))
			return err;
		if (err == -ENOTDIR)
			log_err("refusing %s: not a directory (a link or a file); remove it as root (rm %s)",
				shown, shown);
		else
			log_err("cannot open %s: %s", shown, strerror(-err));
		return err;
	}
	if (fstat(fd, &sb) || fstatfs(fd, &sfs)) {
		log_err("cannot inspect %s: %s", shown, strerror(errno));
		close(fd);
		return -EIO;
	}
	if (sfs.f_type != BPF_FS_MAGIC || sb.st_uid != 0 || (sb.st_mode & 022)) {
		refuse_folder(shown, &sb, sfs.f_type == BPF_FS_MAGIC);
		close(fd);
		return -EPERM;
	}
	/* Pins give full control of the steering: root's eyes only. */
	if ((sb.st_mode & 077) && fchmod(fd, 0700)) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int open_root(bool create)
{
	int bpffs = open(BPFFS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;
	struct statfs sfs;

	if (bpffs < 0 || fstatfs(bpffs, &sfs) || sfs.f_type != BPF_FS_MAGIC) {
		if (bpffs >= 0)
			close(bpffs);
		if (!create)
			return -ENOENT;
		log_err("cannot use %s: not a bpffs mount", BPFFS_DIR);
		return -ENODEV;
	}
	fd = open_checked(bpffs, ROOT_NAME, CPUSTEER_PIN_ROOT, create);
	close(bpffs);
	return fd;
}

int bpffs_check_libxdp_dir(void)
{
	int bpffs = open(BPFFS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;

	if (bpffs < 0)
		return -errno;
	fd = open_checked(bpffs, "xdp", BPFFS_DIR "/xdp", true);
	close(bpffs);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static int open_ns(int root, __u64 cookie, bool create)
{
	char name[32], shown[64];

	snprintf(name, sizeof(name), NS_PREFIX "%llu", (unsigned long long)cookie);
	snprintf(shown, sizeof(shown), "%s/%s", CPUSTEER_PIN_ROOT, name);
	return open_checked(root, name, shown, create);
}

/* Root, namespace and instance folders in turn; *parent (optional) keeps
 * the namespace folder open.
 */
static int open_chain(const struct instance_dir *d, bool create, int *parent)
{
	int root, ns, fd;

	root = open_root(create);
	if (root < 0)
		return root;
	ns = open_ns(root, d->netns_cookie, create);
	close(root);
	if (ns < 0)
		return ns;
	fd = open_checked(ns, d->pin_name, d->path, create);
	if (fd >= 0 && parent)
		*parent = ns;
	else
		close(ns);
	return fd;
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* The folder `fd` is still the one the path names: not removed by the
 * command whose lock we waited for.
 */
static bool still_linked(const struct instance_dir *d, int fd)
{
	int again = open_chain(d, false, NULL);
	bool same = again >= 0 && same_file(again, fd);

	if (again >= 0)
		close(again);
	return same;
}

bool instance_dir_current(const struct instance_dir *d)
{
	return d->fd >= 0 && still_linked(d, d->fd);
}

int instance_dir_open(struct instance_dir *d, int flags)
{
	bool create = flags & DIR_CREATE;
	int attempt, fd, err;

	/* A folder removed between our steps (by an unload that held it)
	 * sends us round again; a few rounds are more than races need.
	 */
	for (attempt = 0; attempt < 20; attempt++) {
		fd = open_chain(d, create, NULL);
		if (fd == -ENOENT && create)
			continue;
		if (fd < 0)
			return fd;
		if (flags & (DIR_LOCK_EX | DIR_LOCK_SH)) {
			err = lock_wait(fd, flags & DIR_LOCK_EX ? LOCK_EX : LOCK_SH, d->shown);
			if (err) {
				close(fd);
				return err;
			}
		}
		if (still_linked(d, fd)) {
			d->fd = fd;
			return 0;
		}
		close(fd);
		if (!create)
			return -ENOENT;
	}
	log_err("cannot open %s: it keeps disappearing", d->path);
	return -EAGAIN;
}

void instance_dir_close(struct instance_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

/* Calls fn(dirfd, name) for every entry of the folder but . and .. */
static int for_each_entry(int dirfd, int (*fn)(int dirfd, const char *name, void *arg), void *arg)
{
	int copy = dup(dirfd), err = 0;
	struct dirent *e;
	DIR *dir;

	dir = copy >= 0 ? fdopendir(copy) : NULL;
	if (!dir) {
		if (copy >= 0)
			close(copy);
		return -errno;
	}
	/* The copy shares the folder's read position with `dirfd`: an earlier
	 * walk that stopped halfway would make this one skip what it read.
	 */
	rewinddir(dir);
	while (!err && (e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			err = fn(dirfd, e->d_name, arg);
	closedir(dir);
	return err;
}

static int found_one(int dirfd, const char *name, void *arg)
{
	(void)dirfd;
	(void)name;
	(void)arg;
	return 1;
}

bool instance_dir_is_empty(const struct instance_dir *d)
{
	return !for_each_entry(d->fd, found_one, NULL);
}

static int unlink_pin(int dirfd, const char *name, void *arg)
{
	const char *keep = arg;

	if ((keep && !strcmp(name, keep)) || !unlinkat(dirfd, name, 0) || errno == ENOENT)
		return 0;
	log_err("cannot remove pin %s: %s", name, strerror(errno));
	return -errno;
}

/* rmdir of `name` under `parent`; a folder others still use stays. */
static void remove_if_empty(int parent, const char *name)
{
	unlinkat(parent, name, AT_REMOVEDIR);
}

/* The namespace folder, if nothing is left in it. The root folder stays
 * for good: removed, it could be made again by any user where the bpffs
 * root is writable by everyone, and then refused by every command.
 */
static void prune(__u64 cookie)
{
	char ns_name[32];
	int root = open_root(false);

	if (root < 0)
		return;
	snprintf(ns_name, sizeof(ns_name), NS_PREFIX "%llu", (unsigned long long)cookie);
	remove_if_empty(root, ns_name);
	close(root);
}

void instance_dir_prune(const struct instance_dir *d)
{
	prune(d->netns_cookie);
}

int instance_dir_remove(struct instance_dir *d)
{
	int ns = -1, fd, err;

	/* The record goes last: until then the folder says what it is. */
	err = for_each_entry(d->fd, unlink_pin, INSTANCE_RECORD_PIN);
	if (!err)
		err = unlink_pin(d->fd, INSTANCE_RECORD_PIN, NULL);
	if (err)
		return err;
	fd = open_chain(d, false, &ns);
	if (fd >= 0 && same_file(fd, d->fd) && unlinkat(ns, d->pin_name, AT_REMOVEDIR)) {
		err = -errno;
		log_err("cannot remove %s: %s", d->path, strerror(errno));
	}
	if (fd >= 0) {
		close(fd);
		close(ns);
	}
	prune(d->netns_cookie);
	return err;
}

struct walk {
	int (*fn)(__u64 netns_cookie, const char *ifname, void *arg);
	void *arg;
	__u64 cookie;
};

static int walk_instance(int nsfd, const char *name, void *arg)
{
	struct walk *w = arg;
	char ifname[IF_NAMESIZE];
	struct stat sb;

	/* Only folders of valid names; anything else is not an instance. */
	if (ifname_from_pin_name(name, ifname) ||
	    fstatat(nsfd, name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(sb.st_mode))
		return 0;
	return w->fn(w->cookie, ifname, w->arg);
}

static int walk_ns(int root, const char *name, void *arg)
{
	struct walk *w = arg;
	char *end;
	int ns, err;

	const char *digits = name + strlen(NS_PREFIX);

	if (strncmp(name, NS_PREFIX, strlen(NS_PREFIX)) || !*digits ||
	    strspn(digits, "0123456789") != strlen(digits))
		return 0;
	w->cookie = strtoull(digits, &end, 10);
	ns = open_ns(root, w->cookie, false);
	if (ns < 0)
		return 0;
	err = for_each_entry(ns, walk_instance, w);
	close(ns);
	return err;
}

int pin_tree_walk(int (*fn)(__u64 netns_cookie, const char *ifname, void *arg), void *arg)
{
	struct walk w = { .fn = fn, .arg = arg };
	int root = open_root(false), err;

	if (root < 0)
		return root == -ENOENT ? 0 : root;
	err = fn ? for_each_entry(root, walk_ns, &w) : 0;
	close(root);
	return err;
}

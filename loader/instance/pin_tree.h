/* SPDX-License-Identifier: GPL-2.0 */
/* Where instances keep their pins, and how they are reached safely:
 *
 *   /sys/fs/bpf/cpusteer/             root-only (0700), on bpffs
 *     ns<cookie>/                     one folder per network namespace
 *       <interface>/                  one folder per instance: its pins
 *
 * The bpffs root is often world-writable (mode 1777), so any user can
 * make names in it. Every level is therefore opened relative to the one
 * above without following links, and used only if it is a directory on
 * bpffs, owned by root, that no one else can write to. Interface names
 * are checked (ifname.h) before they are used, and spelt without dots,
 * which bpffs refuses.
 *
 * Commands that change an instance hold an exclusive lock (flock) on its
 * folder from before the first change to the last; readers take a shared
 * one. An instance's folder is removed only under its exclusive lock, and
 * whoever gets the lock after that finds it gone and starts over. A
 * namespace folder is removed whenever it is found empty; a command that
 * finds one gone while it makes its own folder starts over. The root
 * folder, once made (by `load`, or at boot by the tmpfiles.d entry that
 * `make install` and the package ship), is never removed: while it is
 * missing, any user can make it where the bpffs root is mode 1777, and
 * every command would then refuse it.
 */

/* The pin that records the instance (struct cpusteer_instance_state). */
#define INSTANCE_RECORD_PIN "instance_state"
#ifndef CPUSTEER_PIN_TREE_H
#define CPUSTEER_PIN_TREE_H

#include <stdbool.h>
#include <net/if.h>
#include <linux/types.h>
#include "ifname.h"

#define CPUSTEER_PIN_ROOT "/sys/fs/bpf/cpusteer"

/* Whether this command reaches the bpffs that holds every instance's
 * pins: not so in a private mount namespace with no bpffs, as under
 * `ip netns exec`, whose /sys of its own hides the host's. Pins made there
 * would vanish with the command, orphaning the attached program, and the
 * instances pinned on the host would look absent, and be taken for gone.
 * Every command that reads or changes an instance asks first: one line
 * with the command to run instead, and -ENOENT.
 */
int bpffs_check(void);
/* Whether cpusteer's root folder is there. It is never removed once made,
 * so an instance missing from a tree that has it is provably not pinned;
 * without it, this may not be the bpffs the instance was pinned on.
 */
bool pin_tree_root_exists(void);
/* Mounts bpffs at /sys/fs/bpf when absent. */
int bpffs_ensure(void);

/* libxdp keeps its state and its lock in /sys/fs/bpf/xdp, created if
 * absent and then trusted: make it root's before libxdp does, or refuse
 * one a user planted (a link, or a folder whose lock the user holds would
 * stall every attach).
 */
int bpffs_check_libxdp_dir(void);

struct instance_dir {
	char ifname[IF_NAMESIZE];
	char shown[IFNAME_SHOWN_LEN];	/* the name, escaped for messages */
	char pin_name[IF_NAMESIZE];
	__u64 netns_cookie;
	__u64 netns_ino;
	char path[96];			/* for messages and status */
	int fd;				/* the folder, -1 while not open */
};

enum instance_dir_flags {
	DIR_CREATE = 1 << 0,	/* make the folders that are missing */
	DIR_LOCK_EX = 1 << 1,	/* for commands that change the instance */
	DIR_LOCK_SH = 1 << 2,	/* for commands that only read it */
};

/* The instance of `ifname` in the caller's network namespace. Checks the
 * name (one line and -EINVAL when it is bad); touches no file.
 */
int instance_dir_init(struct instance_dir *d, const char *ifname);
/* The instance of `ifname` in the namespace with this cookie and inode. */
void instance_dir_init_in(struct instance_dir *d, const char *ifname, __u64 cookie, __u64 ino);

/* Opens the instance's folder and takes the lock asked for (waiting a few
 * seconds for a holder, then naming it). -ENOENT, silently, when the
 * folder does not exist and DIR_CREATE is not given; other failures print
 * one line.
 */
int instance_dir_open(struct instance_dir *d, int flags);
/* Closes the folder, which also lets go of its lock. */
void instance_dir_close(struct instance_dir *d);

/* Whether the open folder is still the instance's: not removed by an
 * unload since it was opened.
 */
bool instance_dir_current(const struct instance_dir *d);
/* Whether the open folder holds no pin at all. */
bool instance_dir_is_empty(const struct instance_dir *d);
/* Unlinks every pin in the open folder, the folder itself, and the
 * namespace folder if that leaves it empty.
 */
int instance_dir_remove(struct instance_dir *d);

/* Removes the namespace folder of `d` if it is empty (as a load killed
 * before it made the instance's folder leaves it).
 */
void instance_dir_prune(const struct instance_dir *d);

/* Calls fn for every instance folder under the root, in any namespace;
 * stops at and returns fn's first non-zero result. A root that is there
 * but refused (see above) is a negative errno, after one line; with fn
 * NULL only that is checked.
 */
int pin_tree_walk(int (*fn)(__u64 netns_cookie, const char *ifname, void *arg), void *arg);

#endif

// SPDX-License-Identifier: GPL-2.0
/* The namespaced veth pair that bench and demo build for themselves. It
 * is made with iproute2 (the tool operators would use, and the one whose
 * netns files `ip netns exec` and nsenter understand) and removed by an
 * exit hook and a signal hook, so a Ctrl-C never leaves it behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/if.h>
#include "bench_commands.h"
#include "device.h"
#include "log.h"
#include "topology.h"

static struct topology *registered;
static int host_ns_fd = -1;

/* Whether what `path` holds is this program's to trust: owned by root or
 * by whoever owns the program itself (who could have changed the
 * program anyway), and writable by nobody else, or, a folder, with the
 * sticky bit, under which others cannot rename or remove what they do
 * not own. One line when not.
 */
static bool trusted(const char *path, const struct stat *st, uid_t owner)
{
	bool others_write = st->st_mode & (S_IWGRP | S_IWOTH);
	bool sticky_folder = S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX);

	if (st->st_uid != 0 && st->st_uid != owner) {
		log_err("will not run cpusteer: %s belongs to uid %u, neither root nor the owner "
			"of " BENCH_PROGRAM, path, (unsigned int)st->st_uid);
		return false;
	}
	if (others_write && !sticky_folder) {
		log_err("will not run cpusteer: users other than its owner may write %s (mode %03o)",
			path, (unsigned int)(st->st_mode & 0777));
		return false;
	}
	return true;
}

/* Whether every folder from `dir` up to / is trusted, so that nobody
 * else can put another file or folder where cpusteer is looked for.
 */
static bool folders_trusted(const char *dir, uid_t owner)
{
	char path[PATH_MAX], *slash;
	struct stat st;

	snprintf(path, sizeof(path), "%s", dir);
	for (;;) {
		if (stat(path[0] ? path : "/", &st)) {
			log_err("cannot find cpusteer: %s: %s", path[0] ? path : "/", strerror(errno));
			return false;
		}
		if (!trusted(path[0] ? path : "/", &st, owner))
			return false;
		if (!path[0])
			return true;
		slash = strrchr(path, '/');
		*slash = '\0';
	}
}

/* cpusteer_beside's search, into `path`. */
static bool find_beside(char path[PATH_MAX])
{
	struct stat self, cs;
	char *slash;
	ssize_t n;

	n = readlink("/proc/self/exe", path, PATH_MAX - sizeof("/cpusteer"));
	if (n < 0 || stat("/proc/self/exe", &self)) {
		log_err("cannot find cpusteer: where this program is: %s", strerror(errno));
		return false;
	}
	path[n] = '\0';
	/* The kernel's resolved path: absolute, every link resolved. */
	slash = strrchr(path, '/');
	*slash = '\0';
	if (!folders_trusted(path, self.st_uid))
		return false;
	strcpy(slash, "/cpusteer");
	if (lstat(path, &cs)) {
		log_err("cannot run cpusteer: %s: %s (" BENCH_PROGRAM " drives the cpusteer of "
			"its own folder)", path, strerror(errno));
		return false;
	}
	if (!S_ISREG(cs.st_mode)) {
		log_err("will not run cpusteer: %s is not a regular file (%s)", path,
			S_ISLNK(cs.st_mode) ? "a symbolic link" : "of another type");
		return false;
	}
	return trusted(path, &cs, self.st_uid);
}

const char *cpusteer_beside(void)
{
	static char path[PATH_MAX];
	static bool found;

	if (!found)
		found = find_beside(path);
	return found ? path : NULL;
}

const char *program_path(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[1024], *dir, *save = NULL;

	snprintf(dirs, sizeof(dirs), "%s", path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, len, "%s/%s", dir, name);
		if (!access(buf, X_OK))
			return buf;
	}
	return NULL;
}

/* Runs a command with no shell, quietly; returns its exit status. */
static int run_quiet(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, STDOUT_FILENO);
		dup2(devnull, STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int step(const char *what, char *const argv[])
{
	int rc = run_quiet(argv);

	if (rc)
		log_err("cannot set up the test topology: %s failed (exit %d)", what, rc);
	return rc ? -EIO : 0;
}

static int read_mac(const char *ifname, __u8 mac[6])
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM, 0), err = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		err = -errno;
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
	return err;
}

static int netns_fd(const struct topology *t)
{
	char path[64];

	snprintf(path, sizeof(path), "/run/netns/%s", t->netns);
	return open(path, O_RDONLY | O_CLOEXEC);
}

int topology_enter(const struct topology *t)
{
	int fd;

	if (!t->netns[0])
		return 0;
	if (host_ns_fd < 0)
		host_ns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	fd = netns_fd(t);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		log_err("cannot enter namespace %s: %s", t->netns, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	close(fd);
	return 0;
}

int topology_leave(void)
{
	if (host_ns_fd >= 0 && setns(host_ns_fd, CLONE_NEWNET))
		return -errno;
	return 0;
}

static void remove_at_exit(void)
{
	if (registered)
		topology_destroy(registered);
}

/* The hook restores default handling and re-raises, so the exit status
 * still says which signal ended the run.
 */
static void remove_on_signal(int sig)
{
	remove_at_exit();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int configure(struct topology *t)
{
	char *const add_ns[] = { "ip", "netns", "add", t->netns, NULL };
	char *const add_veth[] = { "ip", "link", "add", t->tx_if, "type", "veth", "peer", "name",
				   t->rx_if, "netns", t->netns, NULL };
	char *const addr_tx[] = { "ip", "addr", "add", "10.201.0.1/24", "dev", t->tx_if, NULL };
	char *const up_tx[] = { "ip", "link", "set", t->tx_if, "up", NULL };
	char *const addr_rx[] = { "ip", "-n", t->netns, "addr", "add", "10.201.0.2/24", "dev",
				  t->rx_if, NULL };
	char *const up_rx[] = { "ip", "-n", t->netns, "link", "set", t->rx_if, "up", NULL };
	char *const up_lo[] = { "ip", "-n", t->netns, "link", "set", "lo", "up", NULL };
	int err;

	err = step("ip netns add", add_ns);
	if (!err)
		t->created = true;
	if (!err)
		err = step("ip link add veth", add_veth);
	if (!err)
		err = step("ip addr add", addr_tx);
	if (!err)
		err = step("ip link set up", up_tx);
	if (!err)
		err = step("ip addr add (namespace)", addr_rx);
	if (!err)
		err = step("ip link set up (namespace)", up_rx);
	if (!err)
		err = step("ip link set lo up (namespace)", up_lo);
	return err;
}

static int learn_receiver(struct topology *t)
{
	int err = topology_enter(t);

	if (err)
		return err;
	t->rx_ifindex = if_nametoindex(t->rx_if);
	err = read_mac(t->rx_if, t->rx_mac);
	topology_leave();
	if (!t->rx_ifindex || err) {
		log_err("cannot find %s in namespace %s", t->rx_if, t->netns);
		return -ENODEV;
	}
	return 0;
}

int topology_create(struct topology *t)
{
	int err;

	memset(t, 0, sizeof(*t));
	snprintf(t->netns, sizeof(t->netns), "csb%d", getpid());
	snprintf(t->tx_if, sizeof(t->tx_if), "csbA%d", getpid());
	snprintf(t->rx_if, sizeof(t->rx_if), "csbB%d", getpid());
	registered = t;
	atexit(remove_at_exit);
	signal(SIGINT, remove_on_signal);
	signal(SIGTERM, remove_on_signal);

	err = configure(t);
	if (!err) {
		t->tx_ifindex = if_nametoindex(t->tx_if);
		err = read_mac(t->tx_if, t->tx_mac);
	}
	if (!err)
		err = learn_receiver(t);
	/* A veth sender leaves checksums to offload; that state does not
	 * survive the cpumap, and the receiver would drop steered TCP/UDP.
	 */
	if (!err)
		err = device_set_tx_csum(t->tx_if, false);
	if (err)
		topology_destroy(t);
	return err;
}

/* Deleting the namespace takes the veth pair with it; the pins of an
 * instance loaded on the receiver are the caller's to unload first.
 */
void topology_destroy(struct topology *t)
{
	char *const del_link[] = { "ip", "link", "del", t->tx_if, NULL };
	char *const del_ns[] = { "ip", "netns", "del", t->netns, NULL };

	if (!t->created)
		return;
	run_quiet(del_link);
	run_quiet(del_ns);
	t->created = false;
	if (registered == t)
		registered = NULL;
}

/* Past len the rest is read and dropped, so a chatty child never blocks
 * on a full pipe.
 */
size_t read_bounded(int fd, char *out, size_t len)
{
	char spill[512];
	size_t got = 0;
	ssize_t n;

	while ((n = read(fd, got + 1 < len ? out + got : spill,
			 got + 1 < len ? len - 1 - got : sizeof(spill))) > 0)
		if (got + 1 < len)
			got += n;
	out[got] = '\0';
	return got;
}

/* A child that `deathsig` ends when this process dies first: set before
 * exec, and checked against a parent that died before it was set.
 */
static pid_t fork_in_ns(const struct topology *t, char *const argv[], int out_fd, int err_fd,
			int deathsig)
{
	pid_t parent = getpid(), pid = fork();

	if (pid)
		return pid;
	if (deathsig && (prctl(PR_SET_PDEATHSIG, deathsig) || getppid() != parent))
		_exit(126);
	if (topology_enter(t))
		_exit(126);
	if (out_fd >= 0)
		dup2(out_fd, STDOUT_FILENO);
	if (err_fd >= 0)
		dup2(err_fd, STDERR_FILENO);
	execv(argv[0], argv);
	_exit(127);
}

int topology_spawn_in_ns(const struct topology *t, char *const argv[])
{
	pid_t pid = fork_in_ns(t, argv, -1, -1, 0);

	return pid < 0 ? -errno : pid;
}

int topology_spawn_tethered(const struct topology *t, char *const argv[], int out_fd, int err_fd)
{
	pid_t pid = fork_in_ns(t, argv, out_fd, err_fd, SIGTERM);

	return pid < 0 ? -errno : pid;
}

int topology_run_in_ns(const struct topology *t, char *const argv[], char *out, size_t out_len)
{
	int pipefd[2] = { -1, -1 }, status;
	pid_t pid;

	if (out && pipe(pipefd))
		return -errno;
	pid = fork_in_ns(t, argv, out ? pipefd[1] : -1, -1, 0);
	if (pid < 0)
		return -errno;
	if (out) {
		close(pipefd[1]);
		read_bounded(pipefd[0], out, out_len);
		close(pipefd[0]);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

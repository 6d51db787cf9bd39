// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "ifname.h"
#include "lock.h"
#include "log.h"

static const int deferred[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void deferred_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < sizeof(deferred) / sizeof(deferred[0]); i++)
		sigaddset(set, deferred[i]);
}

void signals_defer(void)
{
	sigset_t set;

	deferred_set(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* The first deferred signal that is pending, or 0. */
static int deferred_pending(void)
{
	sigset_t pending;
	size_t i;

	if (sigpending(&pending))
		return 0;
	for (i = 0; i < sizeof(deferred) / sizeof(deferred[0]); i++)
		if (sigismember(&pending, deferred[i]))
			return deferred[i];
	return 0;
}

void signals_report_held(const char *command, int err)
{
	struct timespec none = { 0 };
	int sig = deferred_pending();
	sigset_t one;

	if (!sig)
		return;
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigtimedwait(&one, NULL, &none);
	log_err("note: %s arrived during %s and was held until it %s", strsignal(sig), command,
		err ? "failed" : "finished");
}

/* The process holding a flock on `fd`'s file, from /proc/locks, with its
 * command line: "pid 123 (cpusteer set eth0 --cpus 1)".
 */
static void describe_holder(int fd, char *out, size_t len)
{
	char line[256], cmd[128], shown[4 * sizeof(cmd)];
	unsigned int maj, min;
	unsigned long ino;
	struct stat sb;
	int pid, hfd;
	ssize_t n, i;
	FILE *f;

	snprintf(out, len, "another command");
	if (fstat(fd, &sb) || !(f = fopen("/proc/locks", "re")))
		return;
	pid = 0;
	while (!pid && fgets(line, sizeof(line), f)) {
		/* "1: FLOCK  ADVISORY  WRITE 123 00:1e:4567 0 EOF"; waiters
		 * show as "1: -> FLOCK ..." and are skipped.
		 */
		if (sscanf(line, "%*d: FLOCK %*s %*s %d %x:%x:%lu", &pid, &maj, &min, &ino) != 4 ||
		    maj != major(sb.st_dev) || min != minor(sb.st_dev) || ino != sb.st_ino)
			pid = 0;
	}
	fclose(f);
	if (!pid)
		return;
	snprintf(line, sizeof(line), "/proc/%d/cmdline", pid);
	hfd = open(line, O_RDONLY | O_CLOEXEC);
	n = hfd >= 0 ? read(hfd, cmd, sizeof(cmd) - 1) : -1;
	if (hfd >= 0)
		close(hfd);
	if (n <= 0) {
		snprintf(out, len, "pid %d", pid);
		return;
	}
	for (i = 0; i < n - 1; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	cmd[n] = '\0';
	log_printable(cmd, shown, sizeof(shown));
	snprintf(out, len, "pid %d (%s)", pid, shown);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* flock(fd, op) tried every 20 ms until `deadline`: 0, -EWOULDBLOCK when
 * it is still held then, -EINTR when `hear` and a deferred signal is
 * pending, or another negative errno.
 */
static int poll_lock(int fd, int op, double deadline, bool hear)
{
	struct timespec slice = { 0, 20 * 1000 * 1000 };

	for (;;) {
		if (!flock(fd, op | LOCK_NB))
			return 0;
		if (errno != EWOULDBLOCK)
			return -errno;
		if (now() >= deadline)
			return -EWOULDBLOCK;
		/* A command that defers signals still hears them here. */
		if (hear && deferred_pending())
			return -EINTR;
		nanosleep(&slice, NULL);
	}
}

int lock_wait(int fd, int op, const char *what)
{
	int err = poll_lock(fd, op, now() + LOCK_WAIT_SECONDS, true);
	char holder[600];

	if (!err)
		return 0;
	if (err == -EINTR) {
		log_err("interrupted while waiting for %s", what);
		return err;
	}
	if (err != -EWOULDBLOCK) {
		log_err("cannot lock the state of %s: %s", what, strerror(-err));
		return err;
	}
	describe_holder(fd, holder, sizeof(holder));
	log_err("%s is busy: %s is using it; waited %d s, try again", what, holder,
		LOCK_WAIT_SECONDS);
	return -EBUSY;
}

int lock_try(int fd, int op, double seconds)
{
	int err = poll_lock(fd, op, now() + seconds, false);

	return err == -EWOULDBLOCK ? -EBUSY : err;
}

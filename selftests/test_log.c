// SPDX-License-Identifier: GPL-2.0
/* The messages of loader/lib/log.c. Callers report a failure and then
 * return -errno, so a message must leave errno as it found it, even when
 * its own write fails: the stream here is /dev/full, where every write
 * fails with ENOSPC.
 *
 * Not in kernel runs: pure user space, the same on every kernel
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "test_util.h"

/* What errno holds before each message: not ENOSPC, so that a message
 * that let its failed write through is seen.
 */
#define CALLER_ERRNO ENODEV

/* Points `f` (stderr or stdout, unbuffered) at /dev/full, runs `say`,
 * puts `f` back, and checks that the write failed and errno did not move.
 */
static void check_errno_kept(FILE *f, void (*say)(void), const char *what)
{
	int full = open("/dev/full", O_WRONLY | O_CLOEXEC), fd = fileno(f), saved, kept, failed;

	if (full < 0)
		SKIP("no /dev/full");
	fflush(f);
	saved = dup(fd);
	dup2(full, fd);
	close(full);
	errno = CALLER_ERRNO;
	say();
	kept = errno;
	failed = ferror(f);
	clearerr(f);
	dup2(saved, fd);
	close(saved);
	ASSERT_TRUE(failed, "the message's write to /dev/full failed");
	ASSERT_EQ(kept, CALLER_ERRNO, what);
}

static void say_err(void)
{
	log_err("cannot open %s: %s", "eth9", strerror(errno));
}

static void say_info(void)
{
	log_info("loaded on %s", "eth9");
}

static void say_debug(void)
{
	log_verbose = true;
	log_debug("attaching to %s", "eth9");
	log_verbose = false;
}

static void log_err_keeps_errno(void)
{
	check_errno_kept(stderr, say_err, "errno after log_err");
}

static void log_info_keeps_errno(void)
{
	check_errno_kept(stdout, say_info, "errno after log_info");
}

static void log_debug_keeps_errno(void)
{
	check_errno_kept(stderr, say_debug, "errno after log_debug");
}

static const struct tu_test tests[] = {
	TU_TEST(log_err_keeps_errno),
	TU_TEST(log_info_keeps_errno),
	TU_TEST(log_debug_keeps_errno),
};

int main(void)
{
	/* stdout unbuffered, as stderr is: log_info's write then happens,
	 * and fails, inside the call.
	 */
	setvbuf(stdout, NULL, _IONBF, 0);
	return tu_run(tests, ARRAY_SIZE(tests));
}

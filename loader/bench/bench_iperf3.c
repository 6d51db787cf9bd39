// SPDX-License-Identifier: GPL-2.0
/* iperf3 through the test bed (see bench_iperf3.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "bench_iperf3.h"
#include "log.h"

/* The server prints a banner, and complaints when a run is cut short,
 * that do not belong among the live lines; the spawn helper gives the
 * child our stdout and stderr, so point them at /dev/null for the moment
 * of the fork. A server that fails shows up as the client's failure.
 */
static pid_t spawn_server(struct testbed *b, const char *iperf3)
{
	char *argv[] = { (char *)iperf3, "-s", "-1", "-B", "10.201.0.2", NULL };
	int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (out >= 0 && err >= 0 && null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	pid = topology_spawn_in_ns(&b->topo, argv);
	if (out >= 0 && err >= 0) {
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
	}
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	if (null >= 0)
		close(null);
	return pid;
}

/* The client's JSON goes to a memfd: nothing on disk, and no pipe that
 * fills up while we are busy sampling.
 */
static pid_t spawn_client(const char *iperf3, bool udp, double seconds, int out_fd)
{
	/* 18 bytes of UDP payload make a 64-byte frame with its FCS. */
	static char *const udp_args[] = { "-u", "-b", "0", "-l", "18", "-P", "4", NULL };
	char *argv[16] = { (char *)iperf3, "-c", "10.201.0.2", "-t", NULL, "-J" };
	char secs[16];
	int null, n = 6, i;
	pid_t pid;

	snprintf(secs, sizeof(secs), "%d", (int)ceil(seconds));
	argv[4] = secs;
	for (i = 0; udp && udp_args[i]; i++)
		argv[n++] = udp_args[i];
	argv[n] = NULL;
	pid = fork();
	if (pid)
		return pid;
	null = open("/dev/null", O_WRONLY);
	dup2(out_fd, STDOUT_FILENO);
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	execv(argv[0], argv);
	_exit(127);
}

/* end.sum_received.bits_per_second of iperf3 -J, without a JSON parser:
 * "end" closes the document and the key is unique after "sum_received",
 * so the tail is enough however many intervals came before.
 */
static double received_gbps(int fd)
{
	static char buf[65536];
	off_t size = lseek(fd, 0, SEEK_END), from;
	const char *p;
	ssize_t n;

	from = size > (off_t)sizeof(buf) - 1 ? size - (off_t)sizeof(buf) + 1 : 0;
	n = pread(fd, buf, sizeof(buf) - 1, from);
	if (n <= 0)
		return NAN;
	buf[n] = '\0';
	p = strstr(buf, "\"sum_received\"");
	p = p ? strstr(p, "\"bits_per_second\"") : NULL;
	p = p ? strchr(p, ':') : NULL;
	return p ? strtod(p + 1, NULL) / 1e9 : NAN;
}

/* The server may not listen yet when the client starts: a client that
 * fails within half a second is started again, a few times.
 */
static int run_client(const char *iperf3, bool udp, double seconds, struct observer *ob,
		      const char *label, int out_fd)
{
	struct watch_until u = {};
	double t0;
	int tries, err;

	for (tries = 0; tries < 20; tries++) {
		if (ftruncate(out_fd, 0))
			return -errno;
		t0 = bench_now();
		u.pid = spawn_client(iperf3, udp, seconds, out_fd);
		if (u.pid < 0)
			return -errno;
		err = observer_watch(ob, label, &u);
		if (err) {
			bench_reap_child(u.pid, 0, SIGKILL);
			return err;
		}
		if (WIFEXITED(u.status) && !WEXITSTATUS(u.status))
			return 0;
		if (bench_now() - t0 > 0.5)
			break;
		bench_sleep(0.1);
		observer_mark(ob);
	}
	log_err("iperf3 client to 10.201.0.2 failed (status %d)", u.status);
	return -EIO;
}

int iperf3_run(struct testbed *b, const char *iperf3, bool udp, double seconds,
	       struct observer *ob, const char *label, struct bench_figures *f)
{
	pid_t server;
	int fd, err;

	fd = memfd_create("iperf3", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	server = spawn_server(b, iperf3);
	err = server < 0 ? server : bench_sleep(0.2);
	if (!err)
		err = observer_mark(ob);
	if (!err)
		err = run_client(iperf3, udp, seconds, ob, label, fd);
	bench_reap_child(server, 3, SIGKILL);
	if (!err) {
		observer_final_figures(ob, f);
		f->gbps = udp ? NAN : received_gbps(fd);
	}
	close(fd);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/* cpusteer exporter: the counters of every cpusteer instance on the host,
 * of every network namespace, for Prometheus: served over HTTP
 * (exporter_http.c), written to a file for node_exporter's textfile
 * collector (exporter_textfile.c), or both. The main thread reads the
 * instances (exporter_scan.c) whenever a scrape asks and every --interval
 * for the file, and formats them (exporter_metrics.c).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include "clock.h"
#include "commands.h"
#include "exporter_http.h"
#include "exporter_metrics.h"
#include "exporter_scan.h"
#include "exporter_textfile.h"
#include "log.h"
#include "pin_tree.h"

/* Loopback: the counters say how the host's traffic is spread, which is
 * for the machine's own Prometheus agent unless the operator says
 * otherwise. Port 19435: Prometheus's default port allocations list gives
 * every port of 9100-9999 to an exporter, and its overflow runs upward
 * from 10000; an exporter that is not on the list is to take a port
 * outside them (9435, this one's first port, is ebpf_exporter's, the
 * exporter a BPF user most likely runs beside it). 19435 is far above
 * the overflow, below the kernel's ephemeral ports (32768-60999), so no
 * outgoing connection takes it, and names no service of /etc/services.
 */
#define DEFAULT_LISTEN "127.0.0.1:19435"
#define DEFAULT_INTERVAL 15

struct exporter_opts {
	struct listen_addr listen;
	bool listening;		/* --listen, or the default */
	const char *textfile;
	double interval;
	__u64 given;		/* CLI_BIT(i) for exporter_options[i] given */
	bool once;
	bool no_tracepoints;
};

struct exporter {
	struct scan *scan;
	struct http_server *http;	/* NULL: not serving */
	struct textfile file;		/* dir -1: no --textfile */
	double interval_ns;
	int signals;			/* signalfd of SIGINT and SIGTERM */
};

/* One exposition of every instance, in *text; or a negative errno after
 * one line.
 */
static int collect(struct exporter *x, char **text, size_t *len)
{
	struct metrics_scrape s;
	FILE *f;
	int err = scan_update(x->scan, &s);

	*text = NULL;
	if (err)
		return err;
	f = open_memstream(text, len);
	if (f)
		err = metrics_write(f, &s);
	if (!f || fclose(f) || err) {
		if (f)
			free(*text);
		*text = NULL;
		log_err("exporter: out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* The file, or stdout without --textfile. */
static int write_once(struct exporter *x)
{
	char *text;
	size_t len;
	int err = collect(x, &text, &len);

	if (!err && x->file.dir >= 0)
		err = textfile_write(&x->file, text, len);
	else if (!err && (fwrite(text, 1, len, stdout) != len || fflush(stdout)))
		err = -EIO;
	free(text);
	return err;
}

/* Until SIGINT or SIGTERM: an exposition whenever requests wait for one,
 * and the file every interval, the first version of which is written
 * before anything is served: a file that cannot be written fails the
 * start, a later failure only its version.
 */
static int run(struct exporter *x)
{
	struct pollfd fds[2] = {
		{ .fd = x->signals, .events = POLLIN },
		{ .fd = x->http ? http_wake_fd(x->http) : -1, .events = POLLIN },
	};
	double next = 0, now;
	unsigned long upto;
	int err, timeout;
	char *text;
	size_t len;
	bool due;

	if (x->file.dir >= 0) {
		err = write_once(x);
		if (err)
			return err;
		next = monotonic_ns() + x->interval_ns;
	}
	for (;;) {
		now = monotonic_ns();
		timeout = x->file.dir < 0 ? -1 : next > now ? (int)((next - now) / 1e6) + 1 : 0;
		if (poll(fds, 2, timeout) < 0 && errno != EINTR) {
			log_err("exporter: poll: %s", strerror(errno));
			return -errno;
		}
		if (fds[0].revents)
			return 0;
		upto = x->http ? http_waiting(x->http) : 0;
		now = monotonic_ns();
		due = x->file.dir >= 0 && now >= next;
		if (!upto && !due)
			continue;
		err = collect(x, &text, &len);
		if (err == -ENOTRECOVERABLE)
			return err;
		if (due) {
			if (text)
				textfile_write(&x->file, text, len);
			next = next + x->interval_ns > now ? next + x->interval_ns
							   : now + x->interval_ns;
		}
		if (x->http)
			http_publish(x->http, text, len, upto);
		else
			free(text);
	}
}

/* A running exporter hears SIGINT and SIGTERM on a signalfd only, so no
 * thread is interrupted by them, and a lock wait sees them pending and
 * gives up (lock.h).
 */
static int start(struct exporter *x, const struct exporter_opts *o)
{
	sigset_t set;
	int err;

	if (o->textfile) {
		err = textfile_open(&x->file, o->textfile);
		if (err)
			return err;
	}
	if (!o->once) {
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGTERM);
		sigprocmask(SIG_BLOCK, &set, NULL);
		x->signals = signalfd(-1, &set, SFD_CLOEXEC);
		if (x->signals < 0) {
			log_err("exporter: signalfd: %s", strerror(errno));
			return -errno;
		}
	}
	x->interval_ns = o->interval * 1e9;
	err = o->listening ? http_start(&x->http, &o->listen) : 0;
	return err ?: scan_open(&x->scan, !o->no_tracepoints);
}

static void stop(struct exporter *x)
{
	http_stop(x->http);
	scan_close(x->scan);
	textfile_close(&x->file);
	if (x->signals >= 0)
		close(x->signals);
}

static int opt_listen(void *opts, const char *arg)
{
	struct exporter_opts *o = opts;

	o->listening = true;
	return listen_addr_parse(&o->listen, arg);
}

static const struct cli_option exporter_options[] = {
	CLI_OPTION("listen", "ADDR:PORT", opt_listen,
		   "serve /metrics there; [ADDR]:PORT for IPv6",
		   DEFAULT_LISTEN ", unless --textfile or --once"),
	CLI_TEXT_OPTION("textfile", "FILE", struct exporter_opts, textfile,
		   "write the metrics to FILE every --interval, replacing it\n"
		   "whole (node_exporter's textfile collector); serves them\n"
		   "too only with --listen", NULL),
	CLI_SECONDS_OPTION("interval", "S", struct exporter_opts, interval, 3600,
			   "seconds between two versions of --textfile", CLI_NUMBER(DEFAULT_INTERVAL)),
	CLI_FLAG("once", struct exporter_opts, once,
		 "read the instances once, write --textfile (or stdout), exit"),
	/* Their programs run at every cpumap bulk flush and kthread round
	 * while the exporter runs: about 20 ns a frame against the steering
	 * program's 90, whatever the number of instances, measured with
	 * bpf_stats under a gen flood.
	 */
	CLI_FLAG("no-tracepoints", struct exporter_opts, no_tracepoints,
		 "attach no tracepoint program: the cpumap, kthread\n"
		 "and XDP error series stay 0, and cost the data path\n"
		 "nothing"),
	{}
};

static const struct exporter_opts exporter_start = { .interval = DEFAULT_INTERVAL };

const struct cli_command exporter_command = {
	.name = "exporter",
	.summary = "serve every instance's counters to Prometheus",
	.about = "Serves the counters and settings of every cpusteer instance on this host,\n"
		 "of every network namespace, in Prometheus's text format at\n"
		 "http://ADDR:PORT/metrics, or writes them to a file for node_exporter's\n"
		 "textfile collector. Every scrape walks the instances anew: one loaded since\n"
		 "appears, one unloaded goes. Each series has the labels interface and netns\n"
		 "(the cookie of the instance's network namespace, as in its pin folder\n"
		 "/sys/fs/bpf/cpusteer/ns<cookie>). Counters are exact counts: the steering\n"
		 "program's since load, the cpumap and XDP error tracepoints' since the\n"
		 "exporter first read the instance. Runs until Ctrl-C or SIGTERM.\n",
	.groups = { { exporter_options, 0, CLI_GIVEN_AT(struct exporter_opts, given) } },
	.start = &exporter_start,
	.run = cmd_exporter,
};

int cmd_exporter(int argc, char **argv)
{
	struct exporter_opts o = exporter_start;
	struct exporter x = { .file.dir = -1, .signals = -1 };
	int operand, err;

	err = cli_parse(&exporter_command, argc, argv, &o, &operand);
	if (err)
		return cli_exit_status(err);
	if (o.once && o.listening) {
		log_err("exporter: --once writes once and serves nothing: leave out --listen");
		return EXIT_USAGE;
	}
	if (cli_given(&exporter_command, &o, "interval") && (!o.textfile || o.once)) {
		log_err("exporter: --interval sets how often --textfile is written: it needs --textfile, without --once");
		return EXIT_USAGE;
	}
	if (!o.listening && !o.textfile && !o.once)
		o.listening = !listen_addr_parse(&o.listen, DEFAULT_LISTEN);
	if (require_root("exporter"))
		return EXIT_FAILURE;
	/* Under ip netns exec every instance would look gone. */
	if (bpffs_check())
		return EXIT_FAILURE;
	err = start(&x, &o);
	if (!err)
		err = o.once ? write_once(&x) : run(&x);
	stop(&x);
	return exit_code(err);
}

// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "log.h"

bool log_verbose;
static const char *log_where;

void log_set_where(const char *where)
{
	log_where = where;
}

/* A message may quote names and arguments from the command line or the
 * system, which may hold terminal controls: those bytes are written as
 * \xNN, so one message is one line and changes nothing on the terminal.
 *
 * errno is the caller's again on return: callers report a failure and
 * then return -errno, and a write to a full or closed stream sets errno
 * to its own failure.
 */
static void vprint(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	int caller_errno = errno;
	char line[1024];
	const char *p;

	vsnprintf(line, sizeof(line), fmt, ap);
	fputs(prefix, f);
	for (p = line; *p; p++) {
		unsigned char c = *p;

		if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('\n', f);
	errno = caller_errno;
}

void log_err(const char *fmt, ...)
{
	char prefix[256];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "cpusteer: %s%s", log_where ? log_where : "",
		 log_where ? ": " : "");
	va_start(ap, fmt);
	vprint(stderr, prefix, fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint(stdout, "", fmt, ap);
	va_end(ap);
}

void log_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint(stderr, "cpusteer: note: ", fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	vprint(stderr, "cpusteer: debug: ", fmt, ap);
	va_end(ap);
}

/* libbpf's and libxdp's own output, warnings included, is shown only with
 * -v: cpusteer reports every failure itself in one line, and a multi-line
 * verifier dump would bury it.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return log_verbose ? vfprintf(stderr, fmt, ap) : 0;
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return log_verbose ? vfprintf(stderr, fmt, ap) : 0;
}

void log_setup_libs(void)
{
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}

void log_printable(const char *in, char *out, size_t len)
{
	size_t o = 0;
	int n;

	for (; *in && o + 1 < len; in++) {
		unsigned char c = *in;

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			out[o++] = c;
			continue;
		}
		n = snprintf(out + o, len - o, "\\x%02x", c);
		if (n < 0 || (size_t)n >= len - o)
			break;
		o += n;
	}
	out[o] = '\0';
}

int require_root(const char *command)
{
	if (geteuid() == 0)
		return 0;
	log_err("%s needs root (CAP_BPF, CAP_NET_ADMIN and bpffs access)", command);
	return -EPERM;
}

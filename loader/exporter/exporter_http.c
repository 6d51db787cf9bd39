// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <microhttpd.h>
#include "cli.h"
#include "exporter_http.h"
#include "exporter_metrics.h"
#include "log.h"

/* Connections served at once (a thread each), and how long an idle one
 * may hold its thread.
 */
#define HTTP_MAX_CONNECTIONS 64
#define HTTP_IDLE_SECONDS 30

struct http_server {
	struct MHD_Daemon *mhd;
	int wake;			/* eventfd: a request waits */
	pthread_mutex_t lock;		/* guards what follows */
	pthread_cond_t ready;		/* an exposition was published */
	unsigned long asked;		/* requests numbered so far */
	unsigned long served;		/* requests up to this one have theirs */
	bool stopping;
	char *text;			/* the newest exposition, NULL if it failed */
	size_t len;
};

int listen_addr_parse(struct listen_addr *a, const char *arg)
{
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&a->ss;
	struct sockaddr_in *v4 = (struct sockaddr_in *)&a->ss;
	char host[INET6_ADDRSTRLEN], shown[256];
	const char *end, *port;
	bool bracket = arg[0] == '[';
	__u32 p;

	memset(a, 0, sizeof(*a));
	end = bracket ? strstr(arg, "]:") : strrchr(arg, ':');
	port = end ? end + (bracket ? 2 : 1) : NULL;
	if (end && (size_t)(end - arg - bracket) < sizeof(host))
		snprintf(host, sizeof(host), "%.*s", (int)(end - arg - bracket), arg + bracket);
	else
		host[0] = '\0';
	if (!end || !host[0] ||
	    (bracket ? inet_pton(AF_INET6, host, &v6->sin6_addr) : inet_pton(AF_INET, host, &v4->sin_addr)) != 1) {
		log_printable(arg, shown, sizeof(shown));
		log_err("bad --listen '%s': expected ADDR:PORT or [ADDR]:PORT with a numeric IPv4 or IPv6 address",
			shown);
		return -EINVAL;
	}
	if (parse_u32("--listen port", port, 1, 65535, &p))
		return -EINVAL;
	if (bracket) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(p);
		a->len = sizeof(*v6);
		inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
	} else {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(p);
		a->len = sizeof(*v4);
		inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
	}
	snprintf(a->shown, sizeof(a->shown), bracket ? "[%s]:%u" : "%s:%u", host, p);
	return 0;
}

/* Bound and listening here, so that a port in use is told apart from
 * every other failure of libmicrohttpd's start, which sets no errno.
 */
static int listen_on(const struct listen_addr *a)
{
	int fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), on = 1;

	if (fd >= 0 && !setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) &&
	    !bind(fd, (const struct sockaddr *)&a->ss, a->len) && !listen(fd, HTTP_MAX_CONNECTIONS))
		return fd;
	log_err("cannot listen on %s: %s", a->shown, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     const char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned int status, const char *text)
{
	return reply(c, status, "text/plain; charset=utf-8", text, strlen(text));
}

/* Waits, without a deadline of its own, for the main thread: a scraper
 * that gives up closes the connection, and a stop wakes every waiter.
 */
static enum MHD_Result reply_metrics(struct http_server *h, struct MHD_Connection *c)
{
	enum MHD_Result ret;
	unsigned long mine;

	pthread_mutex_lock(&h->lock);
	mine = ++h->asked;
	eventfd_write(h->wake, 1);
	while (!h->stopping && h->served < mine)
		pthread_cond_wait(&h->ready, &h->lock);
	if (h->stopping)
		ret = reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "cpusteer exporter: stopping\n");
	else if (!h->text)
		ret = reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				 "cpusteer exporter: cannot read the instances (its stderr says why)\n");
	else
		ret = reply(c, MHD_HTTP_OK, METRICS_CONTENT_TYPE, h->text, h->len);
	pthread_mutex_unlock(&h->lock);
	return ret;
}

/* Answers at the first call, before any request body is read: none is
 * needed, and libmicrohttpd closes a connection whose body it skipped.
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "cpusteer exporter: only GET and HEAD\n");
	if (strcmp(url, "/metrics"))
		return reply_text(c, MHD_HTTP_NOT_FOUND,
				  "cpusteer exporter: the metrics are at /metrics\n");
	return reply_metrics(cls, c);
}

/* libmicrohttpd's own messages, with -v. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[512];

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	log_debug("libmicrohttpd: %s", line);
}

int http_start(struct http_server **out, const struct listen_addr *a)
{
	struct http_server *h = calloc(1, sizeof(*h));
	int fd;

	if (!h)
		return -ENOMEM;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->ready, NULL);
	h->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->wake < 0) {
		log_err("exporter: cannot make an eventfd: %s", strerror(errno));
		http_stop(h);
		return -EIO;
	}
	fd = listen_on(a);
	if (fd < 0) {
		http_stop(h);
		return -EADDRNOTAVAIL;
	}
	h->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
				  MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, h,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  MHD_OPTION_LISTEN_SOCKET, fd,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNECTIONS,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_IDLE_SECONDS,
				  MHD_OPTION_END);
	if (!h->mhd) {
		log_err("cannot serve on %s: libmicrohttpd did not start (-v for why)", a->shown);
		close(fd);
		http_stop(h);
		return -EIO;
	}
	*out = h;
	return 0;
}

void http_stop(struct http_server *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stopping = true;
	pthread_cond_broadcast(&h->ready);
	pthread_mutex_unlock(&h->lock);
	/* Joins the connection threads, closes the listening socket. */
	if (h->mhd)
		MHD_stop_daemon(h->mhd);
	if (h->wake >= 0)
		close(h->wake);
	pthread_cond_destroy(&h->ready);
	pthread_mutex_destroy(&h->lock);
	free(h->text);
	free(h);
}

int http_wake_fd(const struct http_server *h)
{
	return h->wake;
}

unsigned long http_waiting(struct http_server *h)
{
	unsigned long upto;
	eventfd_t n;

	eventfd_read(h->wake, &n);
	pthread_mutex_lock(&h->lock);
	upto = h->asked > h->served ? h->asked : 0;
	pthread_mutex_unlock(&h->lock);
	return upto;
}

void http_publish(struct http_server *h, char *text, size_t len, unsigned long upto)
{
	pthread_mutex_lock(&h->lock);
	free(h->text);
	h->text = text;
	h->len = len;
	if (upto > h->served)
		h->served = upto;
	pthread_cond_broadcast(&h->ready);
	pthread_mutex_unlock(&h->lock);
}

/* SPDX-License-Identifier: GPL-2.0 */
/* The HTTP side of `cpusteer exporter`: libmicrohttpd serves GET and HEAD
 * of /metrics, one thread per connection; 404 for any other path, 405
 * for any other method. A request does not read the instances itself:
 * it asks the main thread for a fresh exposition and waits for it
 * (exporter_scan.h says why only the main thread reads them). Requests
 * that arrive while one is being made share the next one, so any number
 * of concurrent scrapes costs one read of the instances at a time.
 * Connections come in through a gate of its own (exporter_gate.h), which
 * bounds what idle and trickling clients can hold.
 */
#ifndef CPUSTEER_EXPORTER_HTTP_H
#define CPUSTEER_EXPORTER_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

struct listen_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	char shown[64];		/* "127.0.0.1:19435", "[::1]:19435" */
};

/* "ADDR:PORT" or "[ADDR]:PORT", ADDR a numeric IPv4 or IPv6 address and
 * PORT 1-65535; 0, or -EINVAL after one line.
 */
int listen_addr_parse(struct listen_addr *a, const char *arg);

struct http_server;

/* Listens on `a` and serves; one line when it cannot, naming the holder
 * of a port in use when it can ("cannot listen on 127.0.0.1:19435:
 * Address already in use by python3 (pid 4242)").
 */
int http_start(struct http_server **h, const struct listen_addr *a);
/* Stops serving; requests still waiting are answered 503. */
void http_stop(struct http_server *h);

/* Readable while a request waits for an exposition. */
int http_wake_fd(const struct http_server *h);
/* Empties the wake fd; the number of the newest request waiting, or 0
 * when none waits.
 */
unsigned long http_waiting(struct http_server *h);
/* Takes `text` (NULL: it could not be made, and requests get 500) as the
 * exposition for every request up to number `upto`.
 */
void http_publish(struct http_server *h, char *text, size_t len, unsigned long upto);

#endif

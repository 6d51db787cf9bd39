// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <linux/types.h>
#include "exporter_textfile.h"
#include "log.h"

int textfile_open(struct textfile *t, const char *path)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char dir[PATH_MAX];

	t->dir = -1;
	log_printable(path, t->shown, sizeof(t->shown));
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strlen(name) > NAME_MAX ||
	    (size_t)(name - path) >= sizeof(dir)) {
		log_err("bad --textfile '%s': expected the path of a file", t->shown);
		return -EINVAL;
	}
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	t->dir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->dir < 0) {
		log_err("cannot write %s: its folder: %s", t->shown, strerror(errno));
		return -errno;
	}
	snprintf(t->name, sizeof(t->name), "%s", name);
	return 0;
}

void textfile_close(struct textfile *t)
{
	if (t->dir >= 0)
		close(t->dir);
	t->dir = -1;
}

/* A new file of a random hidden name next to FILE (node_exporter reads
 * only *.prom files), in `tmp`. O_EXCL refuses any name that exists, a
 * link included: another name is drawn.
 */
static int create_temp(const struct textfile *t, char tmp[NAME_MAX + 1])
{
	__u64 r = 0;
	int fd = -1, attempt;

	for (attempt = 0; fd < 0 && attempt < 16; attempt++) {
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r += getpid() + attempt;
		snprintf(tmp, NAME_MAX + 1, ".%.200s.%016llx", t->name, (unsigned long long)r);
		fd = openat(t->dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd < 0 ? -errno : fd;
}

int textfile_write(const struct textfile *t, const char *text, size_t len)
{
	char tmp[NAME_MAX + 1];
	int fd = create_temp(t, tmp), err = 0;
	size_t done = 0;
	ssize_t n;

	if (fd < 0) {
		log_err("cannot write %s: %s", t->shown, strerror(-fd));
		return fd;
	}
	/* node_exporter runs as a user of its own: no umask may hide it. */
	if (fchmod(fd, 0644))
		err = -errno;
	while (!err && done < len) {
		n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			err = n < 0 ? -errno : -EIO;
		else
			done += n;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(t->dir, tmp, t->dir, t->name))
		err = -errno;
	if (err) {
		unlinkat(t->dir, tmp, 0);
		log_err("cannot write %s: %s", t->shown, strerror(-err));
		return err;
	}
	/* The rename itself, should the machine stop now. */
	fsync(t->dir);
	return 0;
}

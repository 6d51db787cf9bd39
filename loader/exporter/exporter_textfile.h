/* SPDX-License-Identifier: GPL-2.0 */
/* exporter --textfile: the exposition written for node_exporter's
 * textfile collector, which reads FILE whenever it is scraped. Each
 * version is written whole to a new hidden file in FILE's folder,
 * synced, then renamed over FILE: a reader sees the old text or the new,
 * never part of one. The new file is made with O_EXCL and O_NOFOLLOW
 * relative to the folder, opened once, under a random name; the rename
 * replaces whatever FILE is, a link someone planted included, without
 * writing where the link points.
 */
#ifndef CPUSTEER_EXPORTER_TEXTFILE_H
#define CPUSTEER_EXPORTER_TEXTFILE_H

#include <limits.h>
#include <stddef.h>

struct textfile {
	int dir;			/* FILE's folder */
	char name[NAME_MAX + 1];	/* FILE's own name in it */
	char shown[256];		/* FILE, for messages */
};

/* Opens FILE's folder; one line and a negative errno when it cannot. */
int textfile_open(struct textfile *t, const char *path);
/* Replaces FILE with `text`; one line and a negative errno on failure,
 * FILE then untouched.
 */
int textfile_write(const struct textfile *t, const char *text, size_t len);
void textfile_close(struct textfile *t);

#endif

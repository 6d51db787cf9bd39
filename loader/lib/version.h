/* SPDX-License-Identifier: GPL-2.0 */
/* What this build is: the version (debian/changelog's, the one place it
 * is written), the git commit it was built from, the compiler that built
 * its BPF programs, and the libbpf and libxdp it was built against and
 * runs with. `PROGRAM version` and `--version` print it, the exporter
 * gives it as cpusteer_build_info.
 */
#ifndef CPUSTEER_VERSION_H
#define CPUSTEER_VERSION_H

#include <stdio.h>
#include "cli.h"

struct build_info {
	const char *version;
	const char *commit;		/* 12 hex digits, "-dirty" after; or "unknown" */
	const char *bpf_compiler;	/* as `clang --version` names itself */
	const char *libbpf_built, *libxdp_built;	/* pkg-config's, at build time */
	char libbpf[32];		/* the library this process runs with */
	/* The version of the libxdp.so file loaded, which may lag the
	 * release's; "unknown" when it cannot tell.
	 */
	char libxdp[32];
};

void build_info_get(struct build_info *b);

/* The lines of `PROGRAM version` for people. */
void build_info_print(const struct build_info *b, const char *program, FILE *f);

/* `version`, a command of both programs; --version and -V say the same. */
extern const struct cli_command version_command;
int cmd_version(int argc, char **argv);

#endif

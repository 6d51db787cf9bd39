// SPDX-License-Identifier: GPL-2.0
/* The build's identity (version.h). The Makefile writes build/version.h
 * with what it knew at build time; the libraries' versions at run time
 * are asked of them: libbpf says its own, libxdp (which has no call for
 * it) is known by the file the dynamic linker loaded, libxdp.so.X.Y.Z,
 * whose version is the library's and may lag the release's (libxdp 1.3.1
 * installs libxdp.so.1.3.0).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "build_version.h"
#include "json.h"
#include "version.h"

/* dl_iterate_phdr's callback: the version in the file name libxdp.so.1
 * resolves to.
 */
static int find_libxdp(struct dl_phdr_info *info, size_t size, void *arg)
{
	char *out = arg, real[PATH_MAX];
	const char *v;

	(void)size;
	if (!strstr(info->dlpi_name, "/libxdp.so") || !realpath(info->dlpi_name, real))
		return 0;
	v = strstr(strrchr(real, '/'), ".so.");
	if (!v)
		return 0;
	snprintf(out, 32, "%s", v + 4);
	return 1;
}

void build_info_get(struct build_info *b)
{
	const char *libbpf = libbpf_version_string();

	memset(b, 0, sizeof(*b));
	b->version = CPUSTEER_VERSION;
	b->commit = CPUSTEER_COMMIT;
	b->bpf_compiler = CPUSTEER_BPF_COMPILER;
	b->libbpf_built = CPUSTEER_LIBBPF_BUILT;
	b->libxdp_built = CPUSTEER_LIBXDP_BUILT;
	/* libbpf says "v1.1". */
	snprintf(b->libbpf, sizeof(b->libbpf), "%s", libbpf[0] == 'v' ? libbpf + 1 : libbpf);
	if (!dl_iterate_phdr(find_libxdp, b->libxdp))
		snprintf(b->libxdp, sizeof(b->libxdp), "unknown");
}

void build_info_print(const struct build_info *b, const char *program, FILE *f)
{
	fprintf(f, "%s %s (commit %s)\n", program, b->version, b->commit);
	fprintf(f, "libbpf %s (built against %s), libxdp.so.%s (built against libxdp %s)\n",
		b->libbpf, b->libbpf_built, b->libxdp, b->libxdp_built);
	fprintf(f, "BPF programs built with %s\n", b->bpf_compiler);
}

static void print_json(const struct build_info *b, const char *program)
{
	struct json j;

	json_init(&j, stdout);
	json_object_open(&j, NULL);
	json_string(&j, "program", program);
	json_string(&j, "version", b->version);
	json_string(&j, "commit", b->commit);
	json_string(&j, "libbpf", b->libbpf);
	json_string(&j, "libbpf_built", b->libbpf_built);
	json_string(&j, "libxdp", b->libxdp);
	json_string(&j, "libxdp_built", b->libxdp_built);
	json_string(&j, "bpf_compiler", b->bpf_compiler);
	json_object_close(&j);
}

struct version_opts {
	bool json;
};

static const struct cli_option version_options[] = {
	CLI_FLAG("json", struct version_opts, json, "one JSON object"),
	{}
};

const struct cli_command version_command = {
	.name = "version",
	.summary = "the version, commit, libraries and BPF compiler",
	.about = "Prints this build's version and git commit, the libbpf and libxdp it\n"
		 "runs with and was built against, and the compiler of its BPF programs.\n"
		 "--version and -V print the same.\n",
	.groups = { { version_options, 0 } },
	.run = cmd_version,
};

int cmd_version(int argc, char **argv)
{
	struct version_opts o = {};
	struct build_info b;
	int operand, err;

	err = cli_parse(&version_command, argc, argv, &o, &operand);
	if (err)
		return cli_exit_status(err);
	build_info_get(&b);
	if (o.json)
		print_json(&b, cli_program_name);
	else
		build_info_print(&b, cli_program_name, stdout);
	return 0;
}

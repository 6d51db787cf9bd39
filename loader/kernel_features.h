/* SPDX-License-Identifier: GPL-2.0 */
/* Probes of what the running kernel offers, so cpusteer degrades with a
 * message instead of failing where an older kernel lacks something.
 */
#ifndef CPUSTEER_KERNEL_FEATURES_H
#define CPUSTEER_KERNEL_FEATURES_H

#include <stdbool.h>

struct btf;

bool kernel_has_btf(void);
/* Whether tp_btf/NAME can attach: vmlinux BTF has btf_trace_NAME. */
bool kernel_has_tracepoint(const char *name);
/* The argument count of tracepoint NAME as tp_btf programs see it (the
 * kernel's private first parameter left out), or a negative errno.
 */
int kernel_tracepoint_args(const struct btf *vmlinux, const char *name);

#endif

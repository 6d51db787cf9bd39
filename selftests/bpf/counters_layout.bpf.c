// SPDX-License-Identifier: GPL-2.0
/* Not a program: struct cpusteer_counters as the BPF compiler lays it
 * out, in this object's BTF, for selftests/test_counters.c. The steering
 * object's BTF holds only the types its maps and global functions name,
 * and its counters map is sized in bytes, not by this struct (the
 * redirect slots follow it).
 */
#include "vmlinux.h"
#include "cpusteer.h"

struct cpusteer_counters counters_layout;

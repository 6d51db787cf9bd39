#!/usr/bin/env bash
# The Makefile's header dependencies (the .d files -MMD writes): a
# changed header rebuilds the objects whose source includes it and no
# other, a changed program rebuilds only the objects that include its
# skeleton, and a change of the contract (include/cpusteer.h) rebuilds
# the BPF objects. Asked of `make -n -W FILE`, what make would do were
# FILE just changed, against the tree as `make all` left it: nothing is
# built or touched.
#
# Not in kernel runs: no kernel in it, the same make on every kernel
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

# What `make all` would compile (not only link) were FILE just changed:
# the outputs, one a line, sorted.
compiled_after() {	# [FILE]
	make -n -C "$TU_TOP" --no-print-directory ${1:+-W "$1"} all 2>/dev/null |
		awk '/ -c / { for (i = 1; i < NF; i++) if ($i == "-o") print $(i + 1) }' | sort
}

# The loader objects whose source includes HEADER (by its bare name).
loader_includers() {	# HEADER
	(cd "$TU_TOP" && grep -l "^#include \"$1\"" loader/*.c loader/*/*.c) |
		sed 's|^|build/|; s|\.c$|.o|' | sort
}

# A loader header that no other header includes, and which only some
# objects include, so that what it rebuilds is its includers' objects.
test_loader_header_rebuilds_its_includers() {
	local header=loader/instance/multilinear_key.h

	t_eq "headers including ${header##*/}" "" \
		"$(cd "$TU_TOP" && grep -l "^#include \"${header##*/}\"" loader/*.h loader/*/*.h)"
	t_eq "loader objects compiled after a change of $header" \
		"$(loader_includers "${header##*/}" | paste -sd ' ')" \
		"$(compiled_after "$header" | grep '^build/loader/' | paste -sd ' ')"
}

test_program_rebuilds_its_skeleton_users() {
	t_eq "loader objects compiled after a change of bpf/steer.bpf.c" \
		"$(loader_includers steer.skel.h | paste -sd ' ')" \
		"$(compiled_after bpf/steer.bpf.c | grep '^build/loader/' | paste -sd ' ')"
}

test_contract_rebuilds_the_programs() {
	local compiled

	compiled=$(compiled_after include/cpusteer.h | paste -sd ' ')
	case " $compiled " in
	*" build/steer.bpf.o "*) ;;
	*) t_fail "a change of include/cpusteer.h compiles no build/steer.bpf.o: $compiled" ;;
	esac
}

all_tests() {
	t_run loader_header_rebuilds_its_includers test_loader_header_rebuilds_its_includers
	t_run program_rebuilds_its_skeleton_users test_program_rebuilds_its_skeleton_users
	t_run contract_rebuilds_the_programs test_contract_rebuilds_the_programs
}

t_plan_of all_tests
# What make would do anyway would hide what a change adds to it.
pending=$(compiled_after | paste -sd ' ')
[ -z "$pending" ] || t_skip_all "the tree is not built (make all first): $(echo "$pending" | cut -c 1-200)"
all_tests
t_exit

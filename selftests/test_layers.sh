#!/usr/bin/env bash
# scripts/check-layers.sh, which every make runs, against copies of the
# loader tree with one violation planted each: it must name the file and
# fail, and pass the tree as it is. A check that cannot fail would let the
# folders drift from what ARCHITECTURE.md says of them.
#
# Not in kernel runs: no kernel in it, the same script on every kernel
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

t_tmpdir

# A copy of the script and of loader/ in a fresh folder: TREE.
copy_tree() {	# NAME
	TREE=$T_TMP/$1
	mkdir -p "$TREE/scripts"
	cp "$TU_TOP/scripts/check-layers.sh" "$TREE/scripts/"
	cp -r "$TU_TOP/loader" "$TREE/"
}

# Runs the check in TREE: its stderr to CHECK_ERR, its status to CHECK_RC.
check() {
	CHECK_ERR=$("$TREE/scripts/check-layers.sh" 2>&1 >/dev/null)
	CHECK_RC=$?
}

# The check fails with a line naming FILE.
expect_refused() {	# FILE
	check
	t_ne "exit status with $1 planted" 0 "$CHECK_RC"
	case $CHECK_ERR in
	*"$1"*) ;;
	*) t_fail "no line names $1: $CHECK_ERR" ;;
	esac
}

test_tree_passes() {
	copy_tree clean
	check
	t_eq "exit status on the tree" 0 "$CHECK_RC"
	t_eq "what it prints on the tree" "" "$CHECK_ERR"
}

# A lower layer reaching up: the instance into the option layer.
test_instance_may_not_include_options() {
	copy_tree upward
	sed -i '0,/^#include "/s//#include "options.h"\n#include "/' "$TREE/loader/instance/change_set.c"
	expect_refused loader/instance/change_set.c
}

# One command sharing a header of its own with another.
test_commands_folder_holds_one_header() {
	copy_tree shared
	printf '/* shared by two commands */\n' >"$TREE/loader/set_shared.h"
	expect_refused loader/set_shared.h
}

# The operator commands never depend on the bench.
test_command_may_not_include_bench() {
	copy_tree bench
	sed -i '0,/^#include "/s//#include "bench.h"\n#include "/' "$TREE/loader/status.c"
	expect_refused loader/status.c
}

# A folder the table does not know is refused, not let through.
test_unknown_folder_refused() {
	copy_tree unknown
	mkdir "$TREE/loader/extra"
	printf '#include "commands.h"\n' >"$TREE/loader/extra/extra.c"
	expect_refused loader/extra/extra.c
}

all_tests() {
	t_run layers_tree_passes test_tree_passes
	t_run layers_instance_may_not_include_options test_instance_may_not_include_options
	t_run layers_commands_folder_holds_one_header test_commands_folder_holds_one_header
	t_run layers_command_may_not_include_bench test_command_may_not_include_bench
	t_run layers_unknown_folder_refused test_unknown_folder_refused
}

t_plan_of all_tests
all_tests
t_exit

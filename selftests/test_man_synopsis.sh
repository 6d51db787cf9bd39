#!/usr/bin/env bash
# Each program's man page as man shows it on a narrow terminal: no option
# name or value in its SYNOPSIS is split by hyphenation ("--sym‐" on one
# line, "metric" on the next), so that what the page shows can be typed.
#
# Not in kernel runs: no kernel in it, only groff
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

# The SYNOPSIS of PAGE as groff sets it at WIDTH columns, one line each.
synopsis_at() {	# PAGE WIDTH
	groff -man -Tutf8 -P-cbou -rLL="$2"n "$TU_TOP/$1" 2>/dev/null |
		sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d'
}

test_synopsis_is_not_hyphenated() {
	local page width split

	if ! command -v groff >/dev/null; then
		t_skip "no groff to set the pages with"
		return
	fi
	for page in cpusteer.8 cpusteer-bench.8; do
		for width in 40 50 60 70 80; do
			# A hyphen (U+2010) or '-' ending a line after a letter
			# ends a word that goes on on the next line.
			split=$(synopsis_at "$page" "$width" | grep -E '[[:alnum:]](‐|-)$' | head -3)
			[ -z "$split" ] ||
				t_fail "$page at $width columns splits an option name: $split"
			[ -n "$(synopsis_at "$page" "$width")" ] ||
				t_fail "$page at $width columns: no SYNOPSIS"
		done
	done
}

all_tests() {
	t_run synopsis_is_not_hyphenated test_synopsis_is_not_hyphenated
}

t_plan_of all_tests
all_tests
t_exit

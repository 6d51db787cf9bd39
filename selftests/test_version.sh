#!/usr/bin/env bash
# `cpusteer version`, --version and -V (and cpusteer-bench's): one text,
# whose version is debian/changelog's (the package's), whose commit is
# the checkout's, and whose libraries and compiler are those this build
# runs with and was built by, each read here another way.
#
# Not in kernel runs: no kernel in it, the same binary on every kernel
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

BENCH=$TU_TOP/build/cpusteer-bench

changelog_version() {
	sed -n '1s/^cpusteer (\([^)]*\)).*/\1/p' "$TU_TOP/debian/changelog"
}

test_three_spellings_agree() {
	local v

	v=$("$CPUSTEER" version) || t_fail "cpusteer version failed"
	t_eq "cpusteer --version" "$v" "$("$CPUSTEER" --version)"
	t_eq "cpusteer -V" "$v" "$("$CPUSTEER" -V)"
	t_eq "lines of cpusteer version" 3 "$(printf '%s\n' "$v" | wc -l)"
}

test_version_and_commit() {
	local first commit

	first=$("$CPUSTEER" version | head -n 1)
	commit=$(git -C "$TU_TOP" rev-parse --short=12 HEAD 2>/dev/null) || commit=unknown
	case $first in
	"cpusteer $(changelog_version) (commit $commit)" | \
	"cpusteer $(changelog_version) (commit $commit-dirty)") ;;
	*) t_fail "first line '$first': expected cpusteer $(changelog_version) (commit $commit)" ;;
	esac
}

test_json_fields() {
	local out want_xdp want_bpf lib

	out=$("$CPUSTEER" version --json) || { t_fail "version --json failed"; return; }
	t_eq "version" "$(changelog_version)" "$(jq -r .version <<<"$out")"
	t_eq "program" cpusteer "$(jq -r .program <<<"$out")"
	t_eq "bpf_compiler" "$(clang --version | head -n 1)" "$(jq -r .bpf_compiler <<<"$out")"
	t_eq "libbpf_built" "$(pkg-config --modversion libbpf)" "$(jq -r .libbpf_built <<<"$out")"
	t_eq "libxdp_built" "$(pkg-config --modversion libxdp)" "$(jq -r .libxdp_built <<<"$out")"
	# The files the dynamic linker resolves for this binary.
	lib=$(ldd "$CPUSTEER" | awk '$1 ~ /^libxdp\.so/ { print $3 }')
	want_xdp=$(readlink -f "$lib")
	t_eq "libxdp" "${want_xdp##*.so.}" "$(jq -r .libxdp <<<"$out")"
	lib=$(ldd "$CPUSTEER" | awk '$1 ~ /^libbpf\.so/ { print $3 }')
	want_bpf=$(readlink -f "$lib")
	want_bpf=${want_bpf##*.so.}
	# libbpf gives its major and minor only.
	t_eq "libbpf" "${want_bpf%.*}" "$(jq -r .libbpf <<<"$out")"
}

test_bench_program_says_its_name() {
	t_eq "cpusteer-bench --version" \
		"$("$CPUSTEER" version | sed '1s/^cpusteer /cpusteer-bench /')" \
		"$("$BENCH" --version)"
}

all_tests() {
	t_run version_three_spellings_agree test_three_spellings_agree
	t_run version_and_commit test_version_and_commit
	t_run version_json_fields test_json_fields
	t_run version_bench_program_says_its_name test_bench_program_says_its_name
}

t_plan_of all_tests
command -v jq >/dev/null || t_skip_all "needs jq"
all_tests
t_exit

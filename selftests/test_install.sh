#!/usr/bin/env bash
# make install and make uninstall under DESTDIR, and the bash completions
# they install, one per program (cpusteer, cpusteer-bench): made from the
# option tables, each must offer every command of its program, fixed
# values where an option has them, and interface names where an
# interface goes (that each form of a command offers exactly what it
# accepts, test_completion.sh checks on the tree's build). The systemd
# units it installs pass systemd's own check, run the installed binary on
# files under SYSCONFDIR, are sandboxed (systemd-analyze security: at
# most 4.0 for the exporter, 6.0 for the loader), and the loader's is
# enabled as a want of the interface's device.
#
# Not in kernel runs: no kernel in it, and make writes to the tree (2 s on the host)
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

t_tmpdir
ROOT=$T_TMP/root
COMPLETIONS=$ROOT/usr/share/bash-completion/completions

# The completions bash would offer for the command line PROGRAM WORDS...,
# the last being the word under the cursor, by the function PROGRAM's
# script registers; one per line, sorted.
complete_words() {	# PROGRAM WORDS...
	bash -c '. "$1" || exit 1; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		 fn=$(complete -p "$1" | awk "{ print \$3 }") && "$fn"
		 printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETIONS/$1" "$@" | sort
}

test_install_puts_the_listed_files() {
	local out files

	out=$(make -s -C "$TU_TOP" install DESTDIR="$ROOT" PREFIX=/usr 2>&1) ||
		{ t_fail "make install failed: $out"; return; }
	files=$(cd "$ROOT" && find . -type f | sort | tr '\n' ' ')
	t_eq "installed files" \
		"./usr/lib/systemd/system/cpusteer-exporter.service ./usr/lib/systemd/system/cpusteer@.service ./usr/lib/tmpfiles.d/cpusteer.conf ./usr/sbin/cpusteer ./usr/sbin/cpusteer-bench ./usr/share/bash-completion/completions/cpusteer ./usr/share/bash-completion/completions/cpusteer-bench ./usr/share/cpusteer/prometheus/cpusteer-dashboard.json ./usr/share/cpusteer/prometheus/cpusteer-rules.yml ./usr/share/doc/cpusteer/examples/IFACE.conf ./usr/share/man/man8/cpusteer-bench.8 ./usr/share/man/man8/cpusteer.8 " \
		"$files"
	for p in cpusteer cpusteer-bench; do
		"$ROOT/usr/sbin/$p" --help >/dev/null || t_fail "the installed $p does not run"
		cmp -s "$TU_TOP/$p.8" "$ROOT/usr/share/man/man8/$p.8" ||
			t_fail "the installed $p.8 is not the tree's"
		[ "$(stat -c %a "$ROOT/usr/sbin/$p")" = 755 ] || t_fail "$p is not mode 755"
	done
}

# Installed where its paths are real (no DESTDIR), so that systemd can
# check the commands it would run; --man=no: the page is not in man's path.
PREFIX_DIR=$T_TMP/prefix
UNITS=$PREFIX_DIR/lib/systemd/system
install_prefix() {
	local out

	[ -d "$UNITS" ] && return
	out=$(make -s -C "$TU_TOP" install PREFIX="$PREFIX_DIR" SYSCONFDIR="$T_TMP/etc" 2>&1) ||
		{ t_fail "make install failed: $out"; return 1; }
}

test_units_verify() {
	local prefix=$PREFIX_DIR units=$UNITS unit out

	unit=$units/cpusteer@.service
	install_prefix || return
	if ! command -v systemd-analyze >/dev/null; then
		t_skip "no systemd-analyze to check the units with"
		return
	fi
	out=$(systemd-analyze verify --man=no "$unit" "$units/cpusteer-exporter.service" 2>&1)
	t_eq "systemd-analyze verify: status $? and" "status 0 and " "status $? and $out"
	t_eq "the exporter unit's command" \
		"ExecStart=$prefix/sbin/cpusteer exporter \$ARGS" \
		"$(grep '^ExecStart=' "$units/cpusteer-exporter.service")"
	t_eq "the unit's start command" \
		"ExecStart=$prefix/sbin/cpusteer load %I --config $T_TMP/etc/cpusteer/%I.conf" \
		"$(grep '^ExecStart=' "$unit")"
	t_eq "the unit's reload command" \
		"ExecReload=$prefix/sbin/cpusteer set %I --config $T_TMP/etc/cpusteer/%I.conf" \
		"$(grep '^ExecReload=' "$unit")"
}

# The figure systemd-analyze gives UNIT offline, e.g. 2.5.
exposure() {	# UNIT
	systemd-analyze security --offline=yes "$1" 2>/dev/null |
		sed -n 's/^.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p'
}

test_units_exposure() {
	local unit limit figure

	install_prefix || return
	if ! command -v systemd-analyze >/dev/null; then
		t_skip "no systemd-analyze to score the units with"
		return
	fi
	if ! systemd-analyze security --help | grep -q -- --offline; then
		t_skip "systemd-analyze $(systemd-analyze --version | awk 'NR == 1 { print $2 }') has no --offline"
		return
	fi
	for unit in cpusteer-exporter.service:4.0 cpusteer@.service:6.0; do
		limit=${unit#*:} unit=${unit%:*}
		figure=$(exposure "$UNITS/$unit")
		[ -n "$figure" ] || { t_fail "$unit: no exposure level from systemd-analyze"; continue; }
		awk -v f="$figure" -v l="$limit" 'BEGIN { exit !(f <= l) }' ||
			t_fail "$unit: exposure $figure, above $limit"
	done
}

# systemctl enable cpusteer@IFACE links it into the device's wants, so
# that the interface pulls it in whenever it appears; a name with a "-"
# goes escaped (systemd-escape --template), to the device unit of that
# same escaped name.
test_unit_enable_wants_device() {
	local wants=$ROOT/etc/systemd/system escaped instance out

	if ! command -v systemctl >/dev/null; then
		t_skip "no systemctl to enable the unit with"
		return
	fi
	escaped=$(systemd-escape --template cpusteer@.service br-lan)
	instance=${escaped#cpusteer@} instance=${instance%.service}
	t_eq "the escaped instance" 'br\x2dlan' "$instance"
	out=$(systemctl --root="$ROOT" enable cpusteer@eth0.service "$escaped" 2>&1) ||
		{ t_fail "systemctl enable failed: $out"; return; }
	t_eq "cpusteer@eth0's link" /usr/lib/systemd/system/cpusteer@.service \
		"$(readlink "$wants/sys-subsystem-net-devices-eth0.device.wants/cpusteer@eth0.service")"
	t_eq "cpusteer@br-lan's link" /usr/lib/systemd/system/cpusteer@.service \
		"$(readlink "$wants/sys-subsystem-net-devices-$instance.device.wants/$escaped")"
	out=$(systemctl --root="$ROOT" disable cpusteer@eth0.service "$escaped" 2>&1) ||
		t_fail "systemctl disable failed: $out"
	t_eq "links left after disable" "" "$(find "$wants" -type l)"
}

test_completion_completes_commands() {
	t_eq "cpusteer lo<TAB>" load "$(complete_words cpusteer lo)"
	t_eq "cpusteer b<TAB>" "balance" "$(complete_words cpusteer b)"
	t_eq "cpusteer s<TAB>" "$(printf '%s\n' sample-pcap set stats status)" \
		"$(complete_words cpusteer s)"
	t_eq "cpusteer-bench <TAB>" "$(printf '%s\n' --help --version bench demo gen version)" \
		"$(complete_words cpusteer-bench '')"
	t_eq "cpusteer --v<TAB>" --version "$(complete_words cpusteer --v)"
}

test_completion_offers_values_and_interfaces() {
	t_eq "load IFACE --hash <TAB>" "$(printf '%s\n' multilinear nic siphash13)" \
		"$(complete_words cpusteer load lo --hash '')"
	t_eq "set IFACE --gro <TAB>" "$(printf '%s\n' off on)" \
		"$(complete_words cpusteer set lo --gro '')"
	t_eq "load IFACE --qsize <TAB>" "" "$(complete_words cpusteer load lo --qsize '')"
	t_eq "status l<TAB>" "lo" "$(complete_words cpusteer status l | grep -x lo)"
	t_eq "cpusteer-bench bench --dev l<TAB>" "lo" \
		"$(complete_words cpusteer-bench bench --dev l | grep -x lo)"
}

test_uninstall_removes_them() {
	local out left

	out=$(make -s -C "$TU_TOP" uninstall DESTDIR="$ROOT" PREFIX=/usr 2>&1) ||
		{ t_fail "make uninstall failed: $out"; return; }
	left=$(cd "$ROOT" && find . -type f | tr '\n' ' ')
	t_eq "files left after uninstall" "" "$left"
}

all_tests() {
	t_run install_puts_the_listed_files test_install_puts_the_listed_files
	t_run units_verify test_units_verify
	t_run units_exposure test_units_exposure
	t_run unit_enable_wants_device test_unit_enable_wants_device
	t_run completion_completes_commands test_completion_completes_commands
	t_run completion_offers_values_and_interfaces test_completion_offers_values_and_interfaces
	t_run uninstall_removes_them test_uninstall_removes_them
}

t_plan_of all_tests
all_tests
t_exit

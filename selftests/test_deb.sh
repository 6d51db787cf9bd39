#!/usr/bin/env bash
# The Debian packages (debian/), cpusteer and cpusteer-bench, built once
# with dpkg-buildpackage -b from a copy of the working tree (tracked files
# and untracked ones git does not ignore), never in the tree itself: the
# build leaves the copy as git found it, lintian finds no error, the two
# packages hold what make install installs plus each one's Debian
# changelog and copyright, cpusteer-bench the bench's program, page and
# completion and cpusteer the rest, cpusteer-bench depends on cpusteer of
# its version and cpusteer on nothing the bench runs, and their
# maintainer scripts start nothing. Then apt installs both on this
# machine, both binaries run (the bench's demo drives the installed
# cpusteer), and a purge leaves no file of them behind; that part is
# skipped when it could clobber a cpusteer already installed here.
#
# Not in kernel runs: no kernel in it, and it compiles the tool (35 s on the host)

# shellcheck disable=SC2317 # the test functions run through t_run
set -u
. "$(dirname "$0")/lib.sh"

t_tmpdir
SRC=$T_TMP/cpusteer	# the copy; the packages land in its parent, $T_TMP
DEB=			# the cpusteer package, once built
BENCH_DEB=		# the cpusteer-bench package
PACKAGES="cpusteer cpusteer-bench"
WE_INSTALLED=		# 1 while this test has them installed
# What cpusteer-bench ships, one a line; cpusteer ships the rest of make
# install's files.
BENCH_FILES="/usr/sbin/cpusteer-bench
/usr/share/man/man8/cpusteer-bench.8
/usr/share/bash-completion/completions/cpusteer-bench"

# Make's variables of a calling make (make test) must not steer the
# package build's makes.
unset MAKEFLAGS MFLAGS MAKELEVEL

# The working tree as git sees it, without what it ignores (build/); all
# but build/ and .git when the tree is no git checkout.
copy_tree() {	# DEST
	mkdir -p "$1" || return 1
	if git -C "$TU_TOP" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$TU_TOP" && git ls-files -z --cached --others --exclude-standard |
			tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$1"
	else
		tar -C "$TU_TOP" --exclude=./build --exclude=./.git -cf - . | tar -xf - -C "$1"
	fi
}

# The files (not directories) a tree or a package holds, as absolute
# paths, one a line, sorted.
tree_files() {	# DIR
	(cd "$1" && find . ! -type d | sed 's|^\.||' | LC_ALL=C sort)
}

deb_files() {	# DEB
	dpkg-deb --fsys-tarfile "$1" | tar -t | sed -n 's|^\./|/|; /\/$/!p' | LC_ALL=C sort
}

test_package_builds() {
	local tool log=$T_TMP/build.log

	for tool in dpkg-buildpackage dh lintian git; do
		command -v "$tool" >/dev/null ||
			t_abort "$tool is not installed (scripts/setup.sh installs it)"
	done
	copy_tree "$SRC" || t_abort "cannot copy the tree to $SRC"
	# A repository of the copy, for build_leaves_the_tree_clean.
	(cd "$SRC" && git -c init.defaultBranch=copy init -q && git add -A) >/dev/null 2>&1 ||
		t_fail "cannot make a git index of the copy"
	# noautodbgsym: the debug symbols' package is not under test, and
	# making it takes a third of the build.
	if ! (cd "$SRC" && DEB_BUILD_OPTIONS="parallel=$(nproc) noautodbgsym" \
		dpkg-buildpackage -us -uc -b) >"$log" 2>&1; then
		t_fail "dpkg-buildpackage -us -uc -b failed; its last lines:"
		tail -n 15 "$log" | sed 's/^/#     /'
		t_abort "not run: no package was built"
	fi
	DEB=$(find "$T_TMP" -maxdepth 1 -name 'cpusteer_*_amd64.deb' | head -n 1)
	BENCH_DEB=$(find "$T_TMP" -maxdepth 1 -name 'cpusteer-bench_*_amd64.deb' | head -n 1)
	if [ -z "$DEB" ] || [ -z "$BENCH_DEB" ]; then
		t_abort "dpkg-buildpackage made no cpusteer_*_amd64.deb and cpusteer-bench_*_amd64.deb: $(cd "$T_TMP" && echo *)"
	fi
}

# debian/.gitignore and .gitignore hold everything the build leaves.
test_build_leaves_the_tree_clean() {
	local new changed

	new=$(cd "$SRC" && git ls-files --others --exclude-standard | tr '\n' ' ')
	changed=$(cd "$SRC" && git diff --name-only | tr '\n' ' ')
	t_eq "files the build left that git does not ignore" "" "$new"
	t_eq "files of the tree the build changed" "" "$changed"
}

test_lintian_finds_no_errors() {
	local out lines

	out=$(lintian -I "$DEB" "$BENCH_DEB" 2>&1 | grep -v '^running with root privileges')
	mapfile -t lines <<<"$out"
	[ -n "$out" ] && printf '# lintian: %s\n' "${lines[@]}"
	grep -q '^E: ' <<<"$out" && t_fail "lintian reports errors: $(grep '^E: ' <<<"$out" | tr '\n' ' ')"
	return 0
}

# A file of PACKAGE as make install names it: a man page (or large
# document) that dh_compress gzipped under the name before, one a line,
# sorted.
packaged_as_installed() {	# DEB INSTALLED
	deb_files "$1" | while IFS= read -r f; do
		if [[ $f == *.gz ]] && grep -qxF "${f%.gz}" <<<"$2"; then
			echo "${f%.gz}"
		else
			echo "$f"
		fi
	done | LC_ALL=C sort
}

# make install with the arguments debian/rules gives it, against the
# packages together: the same files (and each package's own changelog and
# copyright, and cpusteer's lintian overrides), the same content (the
# binaries aside, which the packages have stripped; man pages gzipped),
# the same modes, all root's; and which package holds which.
test_packages_hold_what_make_install_installs() {
	local args out root=$T_TMP/make-install debroot=$T_TMP/deb-root
	local installed packaged bench_packaged expected f p missing extra

	args=$(cd "$SRC" && debian/rules print-install-args) ||
		{ t_fail "debian/rules print-install-args failed"; return; }
	# shellcheck disable=SC2086 # the arguments, one a word
	out=$(make -s -C "$SRC" install DESTDIR="$root" $args 2>&1) ||
		{ t_fail "make install $args failed: $out"; return; }
	installed=$(tree_files "$root")
	packaged=$(packaged_as_installed "$DEB" "$installed")
	bench_packaged=$(packaged_as_installed "$BENCH_DEB" "$installed")
	expected=$(printf '%s\n' "$installed" /usr/share/doc/cpusteer/changelog.gz \
		/usr/share/doc/cpusteer/copyright /usr/share/lintian/overrides/cpusteer \
		/usr/share/doc/cpusteer-bench/changelog.gz /usr/share/doc/cpusteer-bench/copyright |
		LC_ALL=C sort)
	missing=$(comm -23 <(echo "$expected") <(printf '%s\n' "$packaged" "$bench_packaged" | LC_ALL=C sort) |
		tr '\n' ' ')
	extra=$(comm -13 <(echo "$expected") <(printf '%s\n' "$packaged" "$bench_packaged" | LC_ALL=C sort) |
		tr '\n' ' ')
	t_eq "files make install installs that the packages lack" "" "$missing"
	t_eq "files of the packages make install does not install" "" "$extra"
	t_eq "files of cpusteer-bench" \
		"$(printf '%s\n' "$BENCH_FILES" /usr/share/doc/cpusteer-bench/changelog.gz \
			/usr/share/doc/cpusteer-bench/copyright | LC_ALL=C sort | tr '\n' ' ')" \
		"$(tr '\n' ' ' <<<"$bench_packaged")"
	t_eq "files of the bench in cpusteer" "" \
		"$(grep -xF "$BENCH_FILES" <<<"$packaged" | tr '\n' ' ')"

	mkdir -p "$debroot" || { t_fail "cannot make $debroot"; return; }
	for p in "$DEB" "$BENCH_DEB"; do
		dpkg-deb -x "$p" "$debroot" || { t_fail "dpkg-deb -x $p failed"; return; }
	done
	while IFS= read -r f; do
		p=$debroot$f
		[ -e "$p" ] || p=$p.gz
		[ -e "$p" ] || continue
		t_eq "mode of $f" "$(stat -c %a "$root$f")" "$(stat -c %a "$p")"
		[[ $f == /usr/sbin/* ]] && continue
		if [ "$p" = "$debroot$f" ]; then
			cmp -s "$root$f" "$p" || t_fail "$f in the package differs from make install's"
		else
			zcat "$p" | cmp -s "$root$f" - || t_fail "$f.gz in the package is not make install's $f"
		fi
	done <<<"$installed"
	out=$( { dpkg-deb -c "$DEB"; dpkg-deb -c "$BENCH_DEB"; } |
		awk '$2 != "root/root" { print $2, $6 }' | tr '\n' ' ')
	t_eq "files of the packages not owned by root/root" "" "$out"
}

# cpusteer-bench drives the cpusteer beside it, of its own version;
# cpusteer needs none of what the bench runs.
test_packages_depend_as_they_run() {
	local depends

	depends=$(dpkg-deb -f "$BENCH_DEB" Depends)
	[[ ", $depends, " == *", cpusteer (= $(dpkg-deb -f "$DEB" Version)), "* ]] ||
		t_fail "cpusteer-bench's Depends names no cpusteer of its version: $depends"
	[[ ", $depends, " == *", iproute2, "* ]] || t_fail "cpusteer-bench's Depends lacks iproute2: $depends"
	t_eq "what cpusteer-bench recommends" ethtool "$(dpkg-deb -f "$BENCH_DEB" Recommends)"
	t_eq "what cpusteer-bench suggests" "iperf3, xdp-tools" "$(dpkg-deb -f "$BENCH_DEB" Suggests)"
	t_eq "what cpusteer depends on, recommends and suggests that the bench runs" "" \
		"$(dpkg-deb -f "$DEB" Depends Recommends Suggests | grep -oE 'iproute2|ethtool|iperf3|xdp-tools')"
}

# dh_installsystemd enables and starts the units a package ships unless
# told not to (debian/rules tells it so for the exporter's; templates
# such as cpusteer@.service it never enables). The scripts it writes keep
# an administrator's choice over upgrades (stop before, enable again what
# was enabled), but none may start a unit.
test_packages_start_nothing() {
	local deb ctl script found

	for deb in "$DEB" "$BENCH_DEB"; do
		ctl=$T_TMP/control.${deb##*/}
		dpkg-deb -e "$deb" "$ctl" || { t_fail "dpkg-deb -e $deb failed"; return; }
		for script in preinst postinst prerm postrm; do
			[ -f "$ctl/$script" ] || continue
			found=$(grep -nE 'deb-systemd-invoke +(start|restart|try-restart|reload)|systemctl .*(start|restart)|invoke-rc\.d' \
				"$ctl/$script" | tr '\n' ' ')
			t_eq "what ${deb##*/}'s $script starts" "" "$found"
		done
	done
}

# Why installing the packages here could clobber something; empty when not.
install_hazard() {
	local package state f inst

	for package in $PACKAGES; do
		state=$(dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>/dev/null)
		if [ -n "$state" ] && [ "${state:1:1}" != n ]; then
			echo "a $package package is on this machine (dpkg state '$state'); removing it is not this test's to do"
			return
		fi
	done
	for f in $(deb_files "$DEB") $(deb_files "$BENCH_DEB"); do
		if [ -e "$f" ] || [ -L "$f" ]; then
			echo "$f already exists here; installing would overwrite it and purging would remove it"
			return
		fi
	done
	inst=$(apt-get -s install --no-install-recommends "$DEB" "$BENCH_DEB" 2>/dev/null |
		awk '$1 == "Inst" && $2 != "cpusteer" && $2 != "cpusteer-bench" { print $2 }' | tr '\n' ' ')
	[ -z "$inst" ] ||
		echo "apt would also install ${inst}which purging cpusteer would leave behind"
}

purge_ours() {
	[ "$WE_INSTALLED" = 1 ] || return 0
	# shellcheck disable=SC2086 # the package names, one a word
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $PACKAGES >/dev/null 2>&1
	WE_INSTALLED=
}

# The PIDs of processes running the packages' binaries: another cpusteer
# (a build tree's, on a shared machine) is not the packages' doing.
installed_running() {
	local pid

	for pid in $(pgrep -x cpusteer) $(pgrep -x cpusteer-bench); do
		[[ $(readlink "/proc/$pid/exe") == /usr/sbin/cpusteer* ]] && printf '%s ' "$pid"
	done
}

test_apt_installs_them_and_they_run() {
	local why out package

	[ "$(id -u)" = 0 ] || { t_skip "needs root"; return; }
	why=$(install_hazard)
	[ -z "$why" ] || { t_skip "$why"; return; }
	t_on_exit purge_ours
	WE_INSTALLED=1
	out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"$DEB" "$BENCH_DEB" 2>&1) ||
		{ t_fail "apt-get install $DEB $BENCH_DEB failed: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; return; }
	for package in $PACKAGES; do
		t_eq "dpkg state of $package after install" "ii " \
			"$(dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>&1)"
	done
	out=$(/usr/sbin/cpusteer --help 2>&1) || t_fail "/usr/sbin/cpusteer --help failed: $out"
	grep -q load <<<"$out" || t_fail "/usr/sbin/cpusteer --help lists no load command"
	# The version is the package's: one place says it.
	t_eq "version of the installed cpusteer" "$(dpkg-deb -f "$DEB" Version)" \
		"$(/usr/sbin/cpusteer version --json | jq -r .version)"
	out=$(/usr/sbin/cpusteer-bench demo --duration 1 2>&1) ||
		t_fail "/usr/sbin/cpusteer-bench demo --duration 1 failed: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
	grep -q '^cpusteer unloaded, test bed removed$' <<<"$out" ||
		t_fail "the installed demo did not load and unload the installed cpusteer: $(tail -n 1 <<<"$out")"
	t_eq "processes of the installed programs after install" "" "$(installed_running)"
	# What enabling makes, with or without a running systemd.
	t_eq "cpusteer units enabled after install" "" \
		"$(find /etc/systemd/system -name 'cpusteer*' 2>/dev/null | tr '\n' ' ')"
	if [ -d /run/systemd/system ]; then
		t_eq "cpusteer units after install" "" \
			"$(systemctl list-units --all --no-legend 'cpusteer*' 2>&1 | tr '\n' ' ')"
	fi
}

test_purge_leaves_nothing() {
	local out f package left=

	[ "$WE_INSTALLED" = 1 ] || { t_skip "this test did not install the package"; return; }
	# shellcheck disable=SC2086 # the package names, one a word
	out=$(DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $PACKAGES 2>&1) ||
		{ t_fail "apt-get purge $PACKAGES failed: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; return; }
	WE_INSTALLED=
	# Forgotten by dpkg, or at most known as not installed.
	for package in $PACKAGES; do
		out=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null)
		[ -z "$out" ] || [ "$out" = not-installed ] || t_fail "dpkg state of $package after purge: $out"
	done
	for f in $(deb_files "$DEB") $(deb_files "$BENCH_DEB") /usr/share/doc/cpusteer \
		/usr/share/doc/cpusteer-bench /etc/cpusteer; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			left="$left$f "
		fi
	done
	t_eq "what is left after purge" "" "$left"
}

all_tests() {
	t_run package_builds test_package_builds
	t_run build_leaves_the_tree_clean test_build_leaves_the_tree_clean
	t_run lintian_finds_no_errors test_lintian_finds_no_errors
	t_run packages_hold_what_make_install_installs test_packages_hold_what_make_install_installs
	t_run packages_depend_as_they_run test_packages_depend_as_they_run
	t_run packages_start_nothing test_packages_start_nothing
	t_run apt_installs_them_and_they_run test_apt_installs_them_and_they_run
	t_run purge_leaves_nothing test_purge_leaves_nothing
}

t_plan_of all_tests
all_tests
t_exit

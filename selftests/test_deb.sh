#!/usr/bin/env bash
# The Debian package (debian/), built once with dpkg-buildpackage -b from
# a copy of the working tree (tracked files and untracked ones git does
# not ignore), never in the tree itself: the build leaves the copy as git
# found it, lintian finds no error, the package holds what make install
# installs plus the Debian changelog and copyright, and its maintainer
# scripts start nothing. Then apt installs it on this machine, the binary
# runs, and a purge leaves no file of it behind; that part is skipped
# when it could clobber a cpusteer already installed here.
#
# Not in kernel runs: no kernel in it, and it compiles the tool (35 s on the host)

# shellcheck disable=SC2317 # the test functions run through t_run
set -u
. "$(dirname "$0")/lib.sh"

t_tmpdir
SRC=$T_TMP/cpusteer	# the copy; the packages land in its parent, $T_TMP
DEB=			# the package, once built
WE_INSTALLED=		# 1 while this test has it installed

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
	[ -n "$DEB" ] || t_abort "dpkg-buildpackage made no cpusteer_*_amd64.deb: $(cd "$T_TMP" && echo *)"
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

	out=$(lintian -I "$DEB" 2>&1 | grep -v '^running with root privileges')
	mapfile -t lines <<<"$out"
	[ -n "$out" ] && printf '# lintian: %s\n' "${lines[@]}"
	grep -q '^E: ' <<<"$out" && t_fail "lintian reports errors: $(grep '^E: ' <<<"$out" | tr '\n' ' ')"
	return 0
}

# make install with the arguments debian/rules gives it, against the
# package: the same files (and the package's own changelog, copyright and
# lintian overrides), the same content (the binary aside, which the
# package has stripped; man pages gzipped), the same modes, all root's.
test_package_holds_what_make_install_installs() {
	local args out root=$T_TMP/make-install debroot=$T_TMP/deb-root
	local installed packaged expected f p missing extra

	args=$(cd "$SRC" && debian/rules print-install-args) ||
		{ t_fail "debian/rules print-install-args failed"; return; }
	# shellcheck disable=SC2086 # the arguments, one a word
	out=$(make -s -C "$SRC" install DESTDIR="$root" $args 2>&1) ||
		{ t_fail "make install $args failed: $out"; return; }
	installed=$(tree_files "$root")
	# dh_compress gzips man pages (and large documents): the name before.
	packaged=$(deb_files "$DEB" | while IFS= read -r f; do
		if [[ $f == *.gz ]] && grep -qxF "${f%.gz}" <<<"$installed"; then
			echo "${f%.gz}"
		else
			echo "$f"
		fi
	done | LC_ALL=C sort)
	expected=$(printf '%s\n' "$installed" /usr/share/doc/cpusteer/changelog.gz \
		/usr/share/doc/cpusteer/copyright /usr/share/lintian/overrides/cpusteer |
		LC_ALL=C sort)
	missing=$(comm -23 <(echo "$expected") <(echo "$packaged") | tr '\n' ' ')
	extra=$(comm -13 <(echo "$expected") <(echo "$packaged") | tr '\n' ' ')
	t_eq "files make install installs that the package lacks" "" "$missing"
	t_eq "files of the package make install does not install" "" "$extra"

	mkdir -p "$debroot" || { t_fail "cannot make $debroot"; return; }
	dpkg-deb -x "$DEB" "$debroot" || { t_fail "dpkg-deb -x failed"; return; }
	while IFS= read -r f; do
		p=$debroot$f
		[ -e "$p" ] || p=$p.gz
		[ -e "$p" ] || continue
		t_eq "mode of $f" "$(stat -c %a "$root$f")" "$(stat -c %a "$p")"
		[ "$f" = /usr/sbin/cpusteer ] && continue
		if [ "$p" = "$debroot$f" ]; then
			cmp -s "$root$f" "$p" || t_fail "$f in the package differs from make install's"
		else
			zcat "$p" | cmp -s "$root$f" - || t_fail "$f.gz in the package is not make install's $f"
		fi
	done <<<"$installed"
	out=$(dpkg-deb -c "$DEB" | awk '$2 != "root/root" { print $2, $6 }' | tr '\n' ' ')
	t_eq "files of the package not owned by root/root" "" "$out"
}

# dh_installsystemd enables and starts the units a package ships unless
# told not to (debian/rules tells it so for the exporter's; templates
# such as cpusteer@.service it never enables). The scripts it writes keep
# an administrator's choice over upgrades (stop before, enable again what
# was enabled), but none may start a unit.
test_package_starts_nothing() {
	local ctl=$T_TMP/control script found

	dpkg-deb -e "$DEB" "$ctl" || { t_fail "dpkg-deb -e failed"; return; }
	for script in preinst postinst prerm postrm; do
		[ -f "$ctl/$script" ] || continue
		found=$(grep -nE 'deb-systemd-invoke +(start|restart|try-restart|reload)|systemctl .*(start|restart)|invoke-rc\.d' \
			"$ctl/$script" | tr '\n' ' ')
		t_eq "what $script starts" "" "$found"
	done
}

# Why installing the package here could clobber something; empty when not.
install_hazard() {
	local state f inst

	state=$(dpkg-query -W -f='${db:Status-Abbrev}' cpusteer 2>/dev/null)
	if [ -n "$state" ] && [ "${state:1:1}" != n ]; then
		echo "a cpusteer package is on this machine (dpkg state '$state'); removing it is not this test's to do"
		return
	fi
	for f in $(deb_files "$DEB"); do
		if [ -e "$f" ] || [ -L "$f" ]; then
			echo "$f already exists here; installing would overwrite it and purging would remove it"
			return
		fi
	done
	inst=$(apt-get -s install --no-install-recommends "$DEB" 2>/dev/null |
		awk '$1 == "Inst" && $2 != "cpusteer" { print $2 }' | tr '\n' ' ')
	[ -z "$inst" ] ||
		echo "apt would also install ${inst}which purging cpusteer would leave behind"
}

purge_ours() {
	[ "$WE_INSTALLED" = 1 ] || return 0
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q cpusteer >/dev/null 2>&1
	WE_INSTALLED=
}

# The PIDs of processes running the package's binary: another cpusteer
# (a build tree's, on a shared machine) is not the package's doing.
installed_running() {
	local pid

	for pid in $(pgrep -x cpusteer); do
		[ "$(readlink "/proc/$pid/exe")" = /usr/sbin/cpusteer ] && printf '%s ' "$pid"
	done
}

test_apt_installs_it_and_it_runs() {
	local why out

	[ "$(id -u)" = 0 ] || { t_skip "needs root"; return; }
	why=$(install_hazard)
	[ -z "$why" ] || { t_skip "$why"; return; }
	t_on_exit purge_ours
	WE_INSTALLED=1
	out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$DEB" 2>&1) ||
		{ t_fail "apt-get install $DEB failed: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; return; }
	t_eq "dpkg state after install" "ii " "$(dpkg-query -W -f='${db:Status-Abbrev}' cpusteer 2>&1)"
	out=$(/usr/sbin/cpusteer --help 2>&1) || t_fail "/usr/sbin/cpusteer --help failed: $out"
	grep -q load <<<"$out" || t_fail "/usr/sbin/cpusteer --help lists no load command"
	t_eq "processes of the installed cpusteer after install" "" "$(installed_running)"
	# What enabling makes, with or without a running systemd.
	t_eq "cpusteer units enabled after install" "" \
		"$(find /etc/systemd/system -name 'cpusteer*' 2>/dev/null | tr '\n' ' ')"
	if [ -d /run/systemd/system ]; then
		t_eq "cpusteer units after install" "" \
			"$(systemctl list-units --all --no-legend 'cpusteer*' 2>&1 | tr '\n' ' ')"
	fi
}

test_purge_leaves_nothing() {
	local out f left=

	[ "$WE_INSTALLED" = 1 ] || { t_skip "this test did not install the package"; return; }
	out=$(DEBIAN_FRONTEND=noninteractive apt-get purge -y -q cpusteer 2>&1) ||
		{ t_fail "apt-get purge cpusteer failed: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; return; }
	WE_INSTALLED=
	# Forgotten by dpkg, or at most known as not installed.
	out=$(dpkg-query -W -f='${db:Status-Status}' cpusteer 2>/dev/null)
	[ -z "$out" ] || [ "$out" = not-installed ] || t_fail "dpkg state after purge: $out"
	for f in $(deb_files "$DEB") /usr/share/doc/cpusteer /etc/cpusteer; do
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
	t_run package_holds_what_make_install_installs test_package_holds_what_make_install_installs
	t_run package_starts_nothing test_package_starts_nothing
	t_run apt_installs_it_and_it_runs test_apt_installs_it_and_it_runs
	t_run purge_leaves_nothing test_purge_leaves_nothing
}

t_plan_of all_tests
all_tests
t_exit

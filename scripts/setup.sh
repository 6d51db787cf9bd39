#!/usr/bin/env bash
# Installs what cpusteer needs to build and test on Debian 12. Idempotent:
# packages already present are left alone, and apt is not touched at all
# when nothing is missing.
#   scripts/setup.sh                  the build, the selftests, the demo
#   scripts/setup.sh --kernels [DIR]  also what selftests/kernels/run.sh
#                                     needs: QEMU, and with DIR the test
#                                     guests' kernel packages (Debian 12's
#                                     current 6.1 and 6.1-rt and the newest
#                                     6.12 and 6.12-rt it offers;
#                                     KERNEL_SET=6.1 only the first two),
#                                     downloaded into DIR (kept
#                                     there: only a newer version is fetched
#                                     again) and listed in DIR/current with
#                                     the suite each runs
set -eu
# clang-16 and clang-19 besides the default clang: selftests/test_compilers.sh
# builds and loads the BPF objects with each.
# libmicrohttpd: the exporter's HTTP server. debhelper and lintian:
# selftests/test_deb.sh builds the Debian package and checks it. strace:
# tests kill a command at a chosen system call. curl: the exporter's tests
# scrape it. xz-utils and zstd: kernel packages ship their modules
# compressed, and the guests' initramfs takes them uncompressed (its
# test makes compressed ones).
packages="clang clang-16 clang-19 llvm make gcc pkg-config libbpf-dev bpftool libxdp-dev xdp-tools
libelf-dev zlib1g-dev libpcap-dev libmicrohttpd-dev iproute2 ethtool iperf3 tcpdump procps
jq python3 util-linux debhelper lintian strace curl xz-utils zstd"
kernels_dir=
if [ "${1:-}" = --kernels ]; then
	kernels_dir=${2:-}
	# The guests boot from an initramfs packed with cpio; libc6-dev's
	# static libc links its init. kmod: depmod indexes each package's
	# modules, and the guest's kernel loads veth and others with modprobe.
	packages="$packages qemu-system-x86 cpio libc6-dev kmod"
fi
# The test guests' kernels, each with the suite it runs (selftests/kernels/
# run.sh): Debian 12's own 6.1 and 6.1-rt, through the metapackages that
# track them, and the 6.12 LTS and 6.12-rt packages of its security suite,
# the newest of each, since no metapackage of Debian 12 tracks them. Four
# full suites under emulation do not fit CI's time: beside 6.12 the 6.1
# kernels run the short suite. KERNEL_SET=6.1 boots only those two, with
# the full suite.
case ${KERNEL_SET:-all} in
6.1)
	kernel_sources="meta:linux-image-amd64:full meta:linux-image-rt-amd64:full"
	;;
all)
	kernel_sources="meta:linux-image-amd64:short meta:linux-image-rt-amd64:short
newest:linux-image-6.12.*+deb12-amd64-unsigned:full
newest:linux-image-6.12.*+deb12-rt-amd64-unsigned:full"
	;;
*)
	echo "setup: bad KERNEL_SET '$KERNEL_SET': expected 6.1 or all" >&2
	exit 1
	;;
esac

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "setup: missing packages:$missing; run as root to install them" >&2
		exit 1
	fi
	echo "setup: installing$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi

# The exporter's tests check its output with promtool, from Debian's
# prometheus package. Installing that package would also enable and start
# a Prometheus server on this machine, so only promtool is taken from it.
promtool=$(dirname "$0")/../build/tools/promtool
if [ ! -x "$promtool" ]; then
	echo "setup: fetching promtool from Debian's prometheus package"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -qq prometheus 2>/dev/null) ||
		{ apt-get update -qq && (cd "$tmp" && apt-get download -qq prometheus); } || {
		echo "setup: cannot download Debian's prometheus package for promtool" >&2
		exit 1
	}
	dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/root"
	mkdir -p "${promtool%/*}"
	install -m 0755 "$tmp/root/usr/bin/promtool" "$promtool.new"
	mv "$promtool.new" "$promtool"
	rm -rf "$tmp"
	trap - EXIT
fi
[ -n "$kernels_dir" ] || exit 0

# The image package a source names: what METAPACKAGE depends on (the
# versioned image package), or the highest version of the packages whose
# names match the glob, the version being the part the star stands for.
kernel_image() {	# meta:METAPACKAGE | newest:GLOB
	local kind=${1%%:*} what=${1#*:} prefix suffix
	case $kind in
	meta)
		apt-cache depends --important "$what" 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n 1
		;;
	newest)
		prefix=${what%%\**} suffix=${what#*\*}
		apt-cache pkgnames "$prefix" 2>/dev/null |
			while read -r name; do
				# Only names of the glob's shape: a dotted version
				# where the star is, nothing else.
				v=${name#"$prefix"}
				v=${v%"$suffix"}
				[ "$prefix$v$suffix" = "$name" ] && [[ $v =~ ^[0-9]+(\.[0-9]+)*$ ]] &&
					echo "$v $name"
			done | sort -V | tail -n 1 | awk '{ print $2 }'
		;;
	esac
}

# The file name apt would download for the image package a source names.
kernel_file() {	# SOURCE
	local image
	image=$(kernel_image "$1")
	[ -n "$image" ] || return 1
	apt-get download --print-uris "$image" 2>/dev/null | awk '{ print $2 }' | grep .
}

if [ "$(dpkg --print-architecture)" != amd64 ]; then
	echo "setup: Debian's kernel packages for the test guests are amd64 ones; this is $(dpkg --print-architecture)" >&2
	exit 1
fi
mkdir -p "$kernels_dir"
files=""
for source in $kernel_sources; do
	suite=${source##*:}
	source=${source%:*}
	# A machine whose package lists are missing or older than the
	# archive knows no current kernel: refresh them once.
	f=$(kernel_file "$source") || { apt-get update -qq && f=$(kernel_file "$source"); } || {
		echo "setup: cannot find the kernel package of ${source#*:}" >&2
		exit 1
	}
	if [ ! -s "$kernels_dir/$f" ]; then
		echo "setup: downloading $f"
		tmp=$(mktemp -d "$kernels_dir/download.XXXXXX")
		if ! (cd "$tmp" && apt-get download -qq "${f%%_*}" 2>/dev/null) || [ ! -s "$tmp/$f" ]; then
			rm -rf "$tmp"
			echo "setup: cannot download $f" >&2
			exit 1
		fi
		mv "$tmp/$f" "$kernels_dir/$f"
		rmdir "$tmp"
	fi
	files="$files$f $suite
"
done
# The list of current packages is replaced whole, then older ones go.
list=$(mktemp "$kernels_dir/current.XXXXXX")
printf '%s' "$files" > "$list"
chmod 644 "$list"
mv "$list" "$kernels_dir/current"
for old in "$kernels_dir"/*.deb; do
	awk '{ print $1 }' "$kernels_dir/current" | grep -qxF "${old##*/}" || rm -f "$old"
done

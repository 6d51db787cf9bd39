#!/usr/bin/env bash
# Installs what cpusteer needs to build and test on Debian 12. Idempotent:
# packages already present are left alone, and apt is not touched at all
# when nothing is missing.
set -eu
# clang-16 and clang-19 besides the default clang: selftests/test_compilers.sh
# builds and loads the BPF objects with each.
packages="clang clang-16 clang-19 llvm make gcc pkg-config libbpf-dev bpftool libxdp-dev xdp-tools
libelf-dev zlib1g-dev libpcap-dev iproute2 ethtool iperf3 tcpdump procps
jq python3 util-linux"
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

#!/usr/bin/env bash
# Puts into STAGE/modules/ the modules a test guest's initramfs loads to
# reach the shared root (virtio PCI, 9p over virtio, overlayfs), each
# after its dependencies, and their names in that order in
# STAGE/modules/order, which the guest's PID 1 (guest_init.c) reads.
#
#   selftests/kernels/initramfs_modules.sh MODULES_DIR STAGE
#
# MODULES_DIR is a kernel package's lib/modules/VERSION, with the
# modules.dep depmod wrote (already the full closure of each module). A
# package may ship its modules compressed (6.12's are NAME.ko.xz):
# modules.dep names them so, modules.builtin without the suffix, and
# they go into the initramfs uncompressed, since PID 1 loads each with a
# plain finit_module.
set -u
dir=$1 stage=$2
want=(virtio_pci 9pnet_virtio 9p overlay)
seen=' '

# Prints the path (relative to DIR) of module NAME after those of its
# dependencies, each once.
add() {	# NAME (.ko, compressed or not)
	local path=${1%.xz} dep line
	path=${path%.zst}
	path=${path%.gz}
	line=$(grep -m1 -E "^[^:]*/${path//./\\.}(\.xz|\.zst|\.gz)?:" "$dir/modules.dep") || {
		grep -q "/${path##*/}$" "$dir/modules.builtin" 2>/dev/null && return 0
		echo "test-kernels: module ${path##*/} not in $dir" >&2
		return 1
	}
	for dep in ${line#*:}; do
		add "${dep##*/}" || return 1
	done
	path=${line%%:*}
	case $seen in
	*" $path "*) ;;
	*) seen="$seen$path "; echo "$path" ;;
	esac
}

order=$(for m in "${want[@]}"; do add "$m.ko" || exit 1; done) || exit 1
mkdir -p "$stage/modules" || exit 1
while read -r m; do
	[ -n "$m" ] || continue
	ko=${m##*/}
	case $m in
	*.xz) ko=${ko%.xz}; xz -dc "$dir/$m" > "$stage/modules/$ko" ;;
	*.zst) ko=${ko%.zst}; zstd -qdc "$dir/$m" > "$stage/modules/$ko" ;;
	*.gz) ko=${ko%.gz}; gzip -dc "$dir/$m" > "$stage/modules/$ko" ;;
	*) cp "$dir/$m" "$stage/modules/" ;;
	esac || exit 1
	echo "$ko"
done <<<"$order" > "$stage/modules/order"

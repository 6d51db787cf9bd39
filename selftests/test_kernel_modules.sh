#!/usr/bin/env bash
# selftests/kernels/initramfs_modules.sh, which builds the module list of
# each test guest's initramfs: dependencies first and each once, modules
# compressed as 6.12's packages ship them (xz; zstd and gzip too) put in
# uncompressed for a plain finit_module, built-in ones skipped, and a
# missing one refused by name. On a fake lib/modules tree.
#
# Not in kernel runs: no kernel in it, only files the host prepares
set -u
# shellcheck disable=SC2317 # the test functions run through t_run
. "$(dirname "$0")/lib.sh"

MODULES=$TU_TOP/selftests/kernels/initramfs_modules.sh
t_tmpdir

# A fake modules tree in T_TMP/mods: NAME.ko files holding "module NAME",
# compressed as their path in modules.dep says.
fake_tree() {
	local d=$T_TMP/mods path name

	rm -rf "$d" "$T_TMP/stage"
	mkdir -p "$d"
	cat >"$d/modules.dep" <<'DEP'
kernel/drivers/virtio/virtio_pci.ko.xz: kernel/drivers/virtio/virtio_pci_modern_dev.ko.xz
kernel/drivers/virtio/virtio_pci_modern_dev.ko.xz:
kernel/net/9p/9pnet_virtio.ko.zst: kernel/net/9p/9pnet.ko.gz
kernel/net/9p/9pnet.ko.gz:
kernel/fs/9p/9p.ko: kernel/net/9p/9pnet.ko.gz
DEP
	echo kernel/fs/overlayfs/overlay.ko >"$d/modules.builtin"
	while IFS=: read -r path _; do
		mkdir -p "$d/${path%/*}"
		name=${path##*/}
		name=${name%%.ko*}
		case $path in
		*.xz) echo "module $name" | xz -c >"$d/$path" ;;
		*.zst) echo "module $name" | zstd -qc >"$d/$path" ;;
		*.gz) echo "module $name" | gzip -c >"$d/$path" ;;
		*) echo "module $name" >"$d/$path" ;;
		esac
	done <"$d/modules.dep"
}

test_order_and_contents() {
	local m

	fake_tree
	"$MODULES" "$T_TMP/mods" "$T_TMP/stage" || { t_fail "it failed on the fake tree"; return; }
	t_eq "the order" "virtio_pci_modern_dev.ko virtio_pci.ko 9pnet.ko 9pnet_virtio.ko 9p.ko" \
		"$(tr '\n' ' ' <"$T_TMP/stage/modules/order" | sed 's/ $//')"
	for m in virtio_pci_modern_dev virtio_pci 9pnet 9pnet_virtio 9p; do
		t_eq "$m.ko in the initramfs" "module $m" "$(cat "$T_TMP/stage/modules/$m.ko" 2>&1)"
	done
	t_eq "files in the initramfs's folder" 6 "$(find "$T_TMP/stage/modules" -type f | wc -l)"
}

test_missing_module_refused() {
	local err

	fake_tree
	: >"$T_TMP/mods/modules.builtin"
	err=$("$MODULES" "$T_TMP/mods" "$T_TMP/stage" 2>&1)
	t_ne "exit status without overlay" 0 "$?"
	t_eq "the line" "test-kernels: module overlay.ko not in $T_TMP/mods" "$err"
}

all_tests() {
	t_run kernel_modules_order_and_contents test_order_and_contents
	t_run kernel_modules_missing_module_refused test_missing_module_refused
}

t_plan_of all_tests
for tool in xz zstd gzip; do
	command -v "$tool" >/dev/null || t_skip_all "needs $tool to make compressed modules"
done
all_tests
t_exit

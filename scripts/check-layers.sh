#!/usr/bin/env bash
# Checks that loader files include only headers of their own layer or of
# a layer below it (ARCHITECTURE.md), so the folders keep meaning what
# they say: an operator command never depends on the bench, a device knob
# never on an instance, no command on another. Prints one line per
# violation and fails if any.
#   scripts/check-layers.sh
set -u
cd "$(dirname "$0")/.." || exit 1

# What each folder may include, besides include/, the generated
# skeletons and system headers.
declare -A may_include=(
	[loader/lib]="loader/lib"
	[loader/device]="loader/lib loader/device"
	[loader/instance]="loader/lib loader/device loader/instance"
	[loader/options]="loader/lib loader/device loader/instance loader/options"
	[loader/views]="loader/lib loader/device loader/instance loader/options loader/views"
	[loader]="loader/lib loader/device loader/instance loader/options loader/views loader"
	[loader/bench]="loader/lib loader/device loader/instance loader/options loader/views loader loader/bench"
	[loader/exporter]="loader/lib loader/device loader/instance loader/options loader/views loader loader/exporter"
)

# The folder of every loader header, by bare name.
declare -A folder_of
for header in loader/*.h loader/*/*.h; do
	folder_of[${header##*/}]=${header%/*}
done

bad=0
# The commands' folder holds one header, the command table's: what two
# commands share belongs to a layer below, so that no command includes
# another.
for header in loader/*.h; do
	[ "$header" = loader/commands.h ] && continue
	echo "check-layers: $header: the commands' folder holds no header but commands.h; move what commands share to a layer below" >&2
	bad=1
done
# grep prints FILE:#include "HEADER" for every quoted include.
while IFS=: read -r file line; do
	header=${line#*\"}
	header=${header%\"*}
	from=${file%/*}
	to=${folder_of[$header]:-}
	[ -n "$to" ] || continue	# include/, a skeleton or a system header
	if [ -z "${may_include[$from]+set}" ]; then
		echo "check-layers: $file: folder $from is not in the layer table" >&2
		bad=1
		continue
	fi
	case " ${may_include[$from]} " in
	*" $to "*) ;;
	*)
		echo "check-layers: $file includes $to/$header: $from may not depend on $to" >&2
		bad=1
		;;
	esac
done < <(grep -H '^#include "' loader/*.[ch] loader/*/*.[ch])
exit $bad

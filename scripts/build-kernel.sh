#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernel.sh KDIR O FRAGMENT CC JOBS
#
# Builds an x86_64 bzImage out of tree: tinyconfig plus FRAGMENT.  The
# configuration is made again only when the fragment changed, and every
# option of the fragment must survive olddefconfig.
set -euo pipefail

kdir=$1 out=$(realpath -m "$2") frag=$(realpath -m "$3") cc=$4 jobs=$5
mkdir -p "$out"
# scripts/mutant.sh changes a file of the tree for its build under this
# lock, held exclusive: a build beside it would take the mutant's file.
if [ -z "${XT_MUTANT_BUILD:-}" ]; then
	exec 9>"$kdir/.xen_timer-mutant.lock"
	flock -s 9
	"$(dirname "$0")/mutant.sh" leftover "$kdir" || exit 1
fi
stamp=$out/.fragment

if ! cmp -s "$frag" "$stamp" || [ ! -f "$out/.config" ]; then
	echo "== kernel: configuring $out (tinyconfig + $(basename "$frag"))"
	make -s -C "$kdir" O="$out" ARCH=x86_64 CC="$cc" tinyconfig >/dev/null
	"$kdir/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" >/dev/null
	make -s -C "$kdir" O="$out" ARCH=x86_64 CC="$cc" olddefconfig >/dev/null
	"$(dirname "$0")/fragment-check.sh" "$frag" "$out/.config" || exit 1
	cp "$frag" "$stamp"
fi

echo "== kernel: building $out/arch/x86/boot/bzImage (-j$jobs, CC=$cc; a cold build takes minutes)"
start=$(date +%s)
make -C "$kdir" O="$out" ARCH=x86_64 CC="$cc" -j"$jobs" bzImage 2>&1 | {
	n=0
	while IFS= read -r line; do
		case $line in
		"  CC "* | "  AR "* | "  LD "*)
			n=$((n + 1))
			[ $((n % 250)) = 0 ] && echo "== kernel: $n objects, $(($(date +%s) - start)) s"
			;;
		*"error:"* | *"Error "* | *"warning: "*) echo "$line" ;;
		esac
	done
}
[ "${PIPESTATUS[0]}" = 0 ] || { echo "build-kernel: make bzImage failed" >&2; exit 1; }
echo "== kernel: $out/arch/x86/boot/bzImage ready ($(($(date +%s) - start)) s)"

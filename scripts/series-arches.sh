#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series-arches.sh KDIR OUTDIR CONFIGDIR ARCH...
#
# Builds the kernel of KDIR (the series applied) for each ARCH as the
# 0-day bot would: tinyconfig plus CONFIGDIR/ARCH.config (KUnit with
# KUNIT_ALL_TESTS, CONFIG_WERROR), out of tree in OUTDIR/ARCH, with
# Debian's cross compiler and ccache.  Every option of the fragment must
# survive olddefconfig (a dropped one would build something else), and
# the whole image must link: a test that calls what the architecture
# does not have fails here, not on the list.
set -euo pipefail

die() { echo "series-arches: $*" >&2; exit 1; }
[ $# -ge 4 ] || die "usage: series-arches.sh KDIR OUTDIR CONFIGDIR ARCH..."
kdir=$1 out=$(realpath -m "$2") cfgdir=$(realpath -m "$3")
shift 3
[ -f "$kdir/Makefile" ] || die "no kernel tree at $kdir"
# The series' tree, as mkseries.sh leaves it: not a tree on another branch.
[ "$(git -C "$kdir" symbolic-ref -q --short HEAD 2>/dev/null)" = xen-timer-series ] ||
	die "$kdir is not on branch xen-timer-series"

ccache=$(command -v ccache || true)
n=$#
i=0
start=$(date +%s)
for arch in "$@"; do
	i=$((i + 1))
	frag=$cfgdir/$arch.config
	[ -f "$frag" ] || die "no configuration fragment $frag for '$arch'"
	case $arch in
	arm64) cross=aarch64-linux-gnu- ; target=Image ;;
	i386) cross=i686-linux-gnu- ; target=bzImage ;;
	m68k) cross=m68k-linux-gnu- ; target=vmlinux ;;
	*) die "unknown architecture '$arch': arm64, i386 or m68k" ;;
	esac
	command -v "${cross}gcc" >/dev/null ||
		die "${cross}gcc missing: run scripts/deps.sh (gcc-${cross%-})"
	o=$out/$arch
	mkdir -p "$o"
	mk() { make -s -C "$kdir" O="$o" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="${ccache:+ccache }${cross}gcc" "$@"; }
	echo "== series-arches [$i/$n] $arch: tinyconfig + $(basename "$frag") ($(($(date +%s) - start)) s)"
	mk tinyconfig >/dev/null
	"$kdir/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$frag" >/dev/null
	mk olddefconfig >/dev/null
	"$(dirname "$0")/fragment-check.sh" "$frag" "$o/.config" ||
		die "$arch: the configuration is not the one asked for"
	echo "== series-arches [$i/$n] $arch: building $target, -j$(nproc) (a cold build takes minutes)"
	# How far, once a minute: the objects built so far.
	(while sleep 60; do
		echo "== series-arches [$i/$n] $arch: $(find "$o" -name '*.o' | wc -l) objects ($(($(date +%s) - start)) s)"
	done) &
	ticker=$!
	# (|| true: under set -e a trap's failing kill would be the exit status.)
	trap 'kill $ticker 2>/dev/null || true' EXIT
	if ! mk -j"$(nproc)" "$target" >"$o/build.log" 2>&1; then
		grep -E 'error|warning|undefined reference' "$o/build.log" | head -n 20
		die "$arch: the kernel does not build with the series (log: $o/build.log)"
	fi
	kill $ticker 2>/dev/null || true
	trap - EXIT
	echo "== series-arches [$i/$n] $arch: built ($(($(date +%s) - start)) s)"
done
echo "== series-arches: $n architectures build with the series ($(($(date +%s) - start)) s)"

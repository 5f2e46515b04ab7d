#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-debian-kernel.sh SERIES DIR [FLAVOUR]
#
# Puts Debian's prebuilt kernel of SERIES (7.3, 6.12 or 6.1) at
# DIR/vmlinuz: apt-get download of the newest matching package, only its
# vmlinuz extracted, with the Xen modules a dom0 needs for xl
# (DOM0_MODULES, decompressed, in DIR/modules/, in load order in
# DIR/modules/order).  6.12 and 6.1: linux-image-X.Y.*-amd64-unsigned
# (bookworm), which holds both; 7.3: trixie-backports' split packages,
# linux-binary-7.3.*-amd64 (the image) and linux-modules-7.3.*-amd64.
# FLAVOUR: amd64 (the default) or rt-amd64, Debian's PREEMPT_RT build
# (7.3 only: linux-binary-7.3.*-rt-amd64).
# Cached: nothing happens when DIR has them.
set -euo pipefail

series=$1 dir=$2 flavour=${3:-amd64}
case $series/$flavour in
*/amd64 | 7.3/rt-amd64) ;;
*) echo "fetch-debian-kernel: no $flavour flavour of $series here (amd64; rt-amd64 for 7.3)" >&2; exit 1 ;;
esac
# xenfs needs xen-privcmd: this is the order insmod takes them in.
DOM0_MODULES="xen-evtchn xen-privcmd xenfs xen-gntdev xen-gntalloc"
[ -s "$dir/vmlinuz" ] && [ -s "$dir/modules/order" ] && exit 0
mkdir -p "$dir"
case $series in
6.1) re='^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' ;;
6.12) re='^linux-image-6\.12\.[0-9]+(\+deb[0-9]+)?-amd64-unsigned$' ;;
7.3) re="^linux-binary-7\\.3\\.[0-9]+(\\+deb[0-9]+)?-$flavour\$"
	[ "$(id -u)" = 0 ] && "$(dirname "$0")/apt-suites.sh" ;;
*) echo "fetch-debian-kernel: no Debian kernel for $series here (7.3, 6.12 or 6.1)" >&2; exit 1 ;;
esac
newest() { apt-cache search --names-only "$re" | awk '{print $1}' | sort -V | tail -n 1; }
pkg=$(newest)
if [ -z "$pkg" ]; then
	apt-get update -qq >/dev/null 2>&1 || true
	pkg=$(newest)
fi
[ -n "$pkg" ] || { echo "fetch-debian-kernel: no package matches $re in apt's lists" >&2; exit 1; }
pkgs=$pkg
# trixie's kernel keeps its modules in a package of their own.
case $pkg in linux-binary-*) pkgs="$pkg linux-modules-${pkg#linux-binary-}" ;; esac
echo "== debian kernel: apt-get download $pkgs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q $pkgs >/dev/null 2>&1) ||
	{ echo "fetch-debian-kernel: apt-get download $pkgs failed" >&2; exit 1; }
for deb in "$tmp"/*.deb; do
	# bookworm: /boot/vmlinuz-*, /lib/modules; trixie: /usr/lib/modules.
	dpkg-deb --fsys-tarfile "$deb" | tar -C "$tmp" -x --wildcards --no-anchored \
		'boot/vmlinuz-*' 'modules/*/vmlinuz' 'kernel/drivers/xen/*' 2>/dev/null || true
done
vmlinuz=$(find "$tmp" -path '*/boot/vmlinuz-*' -o -path '*/modules/*/vmlinuz' | head -n 1)
[ -n "$vmlinuz" ] || { echo "fetch-debian-kernel: $pkgs hold no vmlinuz" >&2; exit 1; }
mkdir -p "$dir/modules"
for m in $DOM0_MODULES; do
	ko=$(find "$tmp" -path '*/drivers/xen/*' -name "$m.ko*" | head -n 1)
	[ -n "$ko" ] || { echo "fetch-debian-kernel: $pkg has no $m module" >&2; exit 1; }
	case $ko in
	*.xz) xz -dc "$ko" >"$dir/modules/$m.ko" ;;
	*.zst) zstd -qdc "$ko" >"$dir/modules/$m.ko" ;;
	*) cp "$ko" "$dir/modules/$m.ko" ;;
	esac
done
echo "$DOM0_MODULES" >"$dir/modules/order"
mv "$vmlinuz" "$dir/vmlinuz"
echo "$pkg" >"$dir/package"

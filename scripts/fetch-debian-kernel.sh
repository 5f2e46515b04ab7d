#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-debian-kernel.sh SERIES DIR
#
# Puts Debian's prebuilt kernel of SERIES (6.12 or 6.1) at DIR/vmlinuz:
# apt-get download of the newest linux-image-SERIES.*-amd64-unsigned, and
# only its vmlinuz extracted, with the Xen modules a dom0 needs for xl
# (DOM0_MODULES, decompressed, in DIR/modules/, in load order in
# DIR/modules/order).  Cached: nothing happens when DIR has them.
set -euo pipefail

series=$1 dir=$2
# xenfs needs xen-privcmd: this is the order insmod takes them in.
DOM0_MODULES="xen-evtchn xen-privcmd xenfs xen-gntdev xen-gntalloc"
[ -s "$dir/vmlinuz" ] && [ -s "$dir/modules/order" ] && exit 0
mkdir -p "$dir"
re="^linux-image-${series//./\\.}\\.[0-9]+(\\+deb[0-9]+)?-amd64-unsigned\$"
[ "$series" = 6.1 ] && re='^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$'
pkg=$(apt-cache search --names-only "$re" | awk '{print $1}' | sort -V | tail -n 1)
if [ -z "$pkg" ]; then
	apt-get update -qq >/dev/null 2>&1 || true
	pkg=$(apt-cache search --names-only "$re" | awk '{print $1}' | sort -V | tail -n 1)
fi
[ -n "$pkg" ] || { echo "fetch-debian-kernel: no package matches $re in apt's lists" >&2; exit 1; }
echo "== debian kernel: apt-get download $pkg"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
	{ echo "fetch-debian-kernel: apt-get download $pkg failed" >&2; exit 1; }
dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -C "$tmp" -x --wildcards './boot/vmlinuz-*' \
	'./lib/modules/*/kernel/drivers/xen/*'
mkdir -p "$dir/modules"
for m in $DOM0_MODULES; do
	ko=$(find "$tmp/lib/modules" -name "$m.ko*" | head -n 1)
	[ -n "$ko" ] || { echo "fetch-debian-kernel: $pkg has no $m module" >&2; exit 1; }
	case $ko in
	*.xz) xz -dc "$ko" >"$dir/modules/$m.ko" ;;
	*.zst) zstd -qdc "$ko" >"$dir/modules/$m.ko" ;;
	*) cp "$ko" "$dir/modules/$m.ko" ;;
	esac
done
echo "$DOM0_MODULES" >"$dir/modules/order"
mv "$tmp"/boot/vmlinuz-* "$dir/vmlinuz"
echo "$pkg" >"$dir/package"

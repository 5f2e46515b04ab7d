#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-debian-kernel.sh SERIES DIR
#
# Puts Debian's prebuilt kernel of SERIES (6.12 or 6.1) at DIR/vmlinuz:
# apt-get download of the newest linux-image-SERIES.*-amd64-unsigned, and
# only its vmlinuz extracted.  Cached: nothing happens when DIR has it.
set -euo pipefail

series=$1 dir=$2
[ -s "$dir/vmlinuz" ] && exit 0
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
dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -C "$tmp" -x --wildcards './boot/vmlinuz-*'
mv "$tmp"/boot/vmlinuz-* "$dir/vmlinuz"
echo "$pkg" >"$dir/package"

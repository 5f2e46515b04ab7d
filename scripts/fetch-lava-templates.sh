#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-lava-templates.sh DIR: LAVA's device-type templates (base.jinja2,
# qemu.jinja2, ...) from Debian's lava-server package, unpacked under DIR
# (DIR/usr/share/lava-server/device-types), without installing the server:
# scripts/lava-local.sh renders a job's device from them, as a server
# does.  Cached: nothing happens when DIR has them.
set -euo pipefail

dir=$1
types=$dir/usr/share/lava-server/device-types
[ -s "$types/qemu.jinja2" ] && exit 0
mkdir -p "$dir"
cd "$dir"
rm -f lava-server_*.deb
if ! apt-get download -q lava-server >/dev/null 2>&1; then
	echo "fetch-lava-templates: apt-get download lava-server failed (run apt-get update)" >&2
	exit 1
fi
dpkg-deb -x lava-server_*.deb .
rm -f lava-server_*.deb
[ -s "$types/qemu.jinja2" ] || { echo "fetch-lava-templates: no qemu.jinja2 in lava-server" >&2; exit 1; }
echo "== LAVA device-types templates in $types"

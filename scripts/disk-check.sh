#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# disk-check.sh WHAT NEED_GB DIR: fail in one line, before any step, when
# the disk of DIR cannot hold NEED_GB of build output beside what DIR
# already holds.  A build or a boot that runs out of space half-way ends
# in git's or Python's error about a file, blaming a step for the host's
# disk; this names the disk instead.
set -euo pipefail

what=$1 need_gb=$2 dir=$3
case $need_gb in '' | *[!0-9]*)
	echo "disk-check: NEED_GB must be a whole number of GB, not '$need_gb'" >&2
	exit 2 ;;
esac
# The nearest directory that exists: DIR itself is made by the build.
at=$dir
until [ -d "$at" ]; do at=$(dirname "$at"); done
need=$((need_gb * 1024 * 1024))
free=$(df -Pk "$at" | awk 'NR == 2 { print $4 }')
[ "$free" -ge "$need" ] && exit 0
# Only then count what is built already (a warm build/ needs less).
have=0
[ -d "$dir" ] && have=$(du -sk "$dir" | cut -f1)
[ $((free + have)) -ge "$need" ] && exit 0
gb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1048576 }'; }
echo "$what: needs about $need_gb GB for $dir ($(gb "$have") GB there," \
	"$(gb "$free") GB free on its disk): free $(gb $((need - free - have))) GB and run it again" >&2
exit 1

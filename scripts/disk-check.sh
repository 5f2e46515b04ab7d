#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# disk-check.sh WHAT DIR [NEED_GB]: fail in one line, before any step, when the disk
# of DIR cannot hold what WHAT (make, check or ci) leaves in DIR beside
# what DIR already holds.  A build or a boot that runs out of space half-way ends
# in git's or Python's error about a file, blaming a step for the host's
# disk; this names the disk instead.
set -euo pipefail

[ $# = 2 ] || [ $# = 3 ] || { echo "usage: disk-check.sh make|check|ci DIR [NEED_GB]" >&2; exit 2; }
what=$1 dir=$2
# What each leaves in build/ on a clean clone, with a margin (RESULTS.md,
# du -sk build): make 2.4 GB (the 7.3 tree 1.8, the Debian 13 root 0.5);
# make check 15.3 GB (9.8 of it the three series' git trees); CI's
# .ci/run 17.1 GB: that, the builds of series-bisect and series-arches
# (0.2 GB each) and the LAVA lab's root (1.4 GB).
case $what in
make) need_gb=4 ;;
check) need_gb=17 what="make check" ;;
ci) need_gb=19 what=.ci/run ;;
*) echo "disk-check: WHAT must be make, check or ci, not '$what'" >&2; exit 2 ;;
esac
# NEED_GB, given, instead of WHAT's (the host tests ask for more than any disk).
if [ $# = 3 ]; then
	need_gb=$3
	case $need_gb in '' | *[!0-9]*)
		echo "disk-check: NEED_GB must be a whole number of GB, not '$need_gb'" >&2
		exit 2 ;;
	esac
fi
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

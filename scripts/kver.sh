#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kver.sh tree KDIR           the X.Y version of the kernel tree KDIR
# kver.sh series REPO X.Y     the directory of the series for Linux X.Y
# kver.sh list                the versions of the series, mainline first
# kver.sh backports           the versions of the stable backports
#
# The one place that knows which kernels the suite has a series for:
# mainline (patches/, written against 7.3, for 7.0 and later, linux-next
# included) and the stable backports, patches/6.12/ and patches/6.1/.
set -euo pipefail

mainline=7.3
backports="6.12 6.1"

die() { echo "kver: $*" >&2; exit 1; }
case ${1:-} in
tree)
	[ -f "${2:-}/Makefile" ] || die "${2:-}: no kernel Makefile"
	awk '$1 == "VERSION" {v = $3} $1 == "PATCHLEVEL" {p = $3} END {if (v != "") print v "." p}' "$2/Makefile"
	;;
series)
	repo=$2 v=$3
	case " $backports " in
	*" $v "*) echo "$repo/patches/$v"; exit 0 ;;
	esac
	case $v in
	[7-9].* | [1-9][0-9].*) echo "$repo/patches" ;;
	*) die "no series for Linux $v: the suite has mainline (7.0 and later, written against $mainline) and the ${backports// / and } backports" ;;
	esac
	;;
list) echo "$mainline $backports" ;;
backports) echo "$backports" ;;
*) die "usage: kver.sh tree KDIR | series REPO X.Y | list | backports" ;;
esac

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# render-file.sh REPO KDIR FILE
#
# Prints the suite's new file FILE (a path under REPO, as in the kernel)
# as it goes into the tree KDIR: since v6.13 symbol namespaces are string
# literals, so the KUnit suite is adapted to such a tree, and before v6.11
# the default slop was 100000 ns, which the 6.1 series keeps.
# prepare-tree.sh and mkseries.sh both use it, so that the tree and the
# series carry the same files.
set -euo pipefail

repo=$1 kdir=$2 f=$3
kver=$(awk '$1 == "VERSION" {v = $3} $1 == "PATCHLEVEL" {p = $3} END {print v "." p}' "$kdir/Makefile")
if [ "$f" = lib/xen_timer_slop_kunit.c ] &&
   grep -q 'MODULE_INFO(import_ns, ns)' "$kdir/include/linux/module.h"; then
	sed 's/^MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);/MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");/' "$repo/$f"
elif [ "$kver" = 6.1 ] && [ "$f" = include/linux/xen_timer_slop.h ]; then
	sed 's/^#define XEN_TIMER_SLOP_DEFAULT_NS\t1$/#define XEN_TIMER_SLOP_DEFAULT_NS\t100000/' "$repo/$f"
else
	cat "$repo/$f"
fi

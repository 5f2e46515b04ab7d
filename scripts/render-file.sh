#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# render-file.sh REPO KDIR FILE         the file as it goes into KDIR
# render-file.sh --path REPO KDIR FILE  where it goes in KDIR
#
# The suite's new files are written for mainline (7.3): FILE is a path
# under REPO, as in a 7.3 tree.  For an older tree (the stable backports)
# this adapts one to the tree's version:
#   - before v7.0 clockevents_program_event() clamped a short delta up to
#     min_delta_ns and programmed that; since "clockevents: Prevent timer
#     interrupt starvation" it programs min_delta_ticks once and skips
#     further short programs while that forced event is pending: the
#     file's own form for such a tree is REPO/backports/FILE;
#   - before v6.9 kselftest.h had no ksft_test_result_code().
# Every file goes to the same path in every tree (--path says where).
# prepare-tree.sh and mkseries.sh both use it, so that the tree and the
# series carry the same files.
set -euo pipefail

path_only=
[ "${1:-}" = --path ] && { path_only=1; shift; }
repo=$1 kdir=$2 f=$3
v=$("$repo/scripts/kver.sh" tree "$kdir")
kver=$((${v%.*} * 1000 + ${v#*.}))
before() { [ "$kver" -lt $(($1 * 1000 + $2)) ]; }

if [ -n "$path_only" ]; then
	echo "$f"
	exit 0
fi

sed_args=()
src=$repo/$f
if before 7 0 && [ -f "$repo/backports/$f" ]; then
	src=$repo/backports/$f
fi
if before 6 9; then
	# No ksft_test_result_code() before v6.9: the line it prints.
	sed_args+=(-e 's/^#define xt_test_skip(name, reason) ksft_test_result_code(KSFT_SKIP, name, "%s", reason)$/#define xt_test_skip(name, reason) \\\n\t(ksft_inc_xskip_cnt(), printf("ok %u %s # SKIP %s\\n", ksft_test_num(), name, reason))/')
fi
if [ ${#sed_args[@]} = 0 ]; then
	cat "$src"
else
	sed "${sed_args[@]}" "$src"
fi

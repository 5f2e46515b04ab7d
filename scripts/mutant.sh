#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mutant.sh KDIR OUT NAME FRAGMENT CC JOBS
#
# Builds into OUT an x86_64 kernel whose xen_timer_slop= is broken on
# purpose, to count how often the suite catches it ('make misses'):
#
#   ignored   the early_param handler returns at once: the parameter is
#             accepted and has no effect (as if the early_param were gone)
#   forced    the slop is 100000 ns whatever the command line says
#   bypassed  min_delta_ns is right, but the vcpuop timer fires after 1 ns
#             when the clockevents core clamped a delta up to it: the slop
#             shows in /proc/timer_list and is not in effect
#
# arch/x86/xen/time.c of KDIR is changed only for the build, under a lock,
# and put back (with a new mtime, so that other builds redo time.o)
# whatever happens.
set -euo pipefail

kdir=$1 out=$2 name=$3 frag=$4 cc=$5 jobs=$6
here=$(cd "$(dirname "$0")" && pwd)
src=$kdir/arch/x86/xen/time.c

die() { echo "mutant: $*" >&2; exit 1; }
[ -f "$src" ] || die "$src missing: run 'make tree' first"

case $name in
ignored)
	# The first statement of parse_xen_timer_slop() becomes a return.
	expr='/^static int __init parse_xen_timer_slop(char \*ptr)$/,/^}$/ s/^\tret = xen_timer_slop_parse(/\treturn 0;\t\/* mutant: ignored *\/\n&/'
	;;
forced)
	expr='/^static int __init parse_xen_timer_slop(char \*ptr)$/,/^}$/ s/^\txen_timer_slop_apply(&xen_timerop_clockevent, slop);$/\tslop = 100000;\t\/* mutant: forced *\/\n&/'
	;;
bypassed)
	expr='/^static int xen_vcpuop_set_next_event(/,/^}$/ s/^\tsingle.timeout_abs_ns = get_abs_timeout(delta);$/\tif (delta <= evt->min_delta_ns)\t\/* mutant: bypassed *\/\n\t\tdelta = 1;\n&/'
	;;
*)
	die "unknown mutant '$name': ignored, forced or bypassed"
	;;
esac

exec 9>"$kdir/.xen_timer-mutant.lock"
flock 9
backup=$(mktemp)
cp -p "$src" "$backup"
trap 'cat "$backup" >"$src"; rm -f "$backup"' EXIT
sed "$expr" "$backup" >"$src"
if cmp -s "$src" "$backup"; then
	die "mutant '$name' matched nothing in $src: update scripts/mutant.sh for this tree"
fi
echo "== mutant $name: $(diff "$backup" "$src" | grep -c '^>') lines changed in arch/x86/xen/time.c"
"$here/build-kernel.sh" "$kdir" "$out" "$frag" "$cc" "$jobs"

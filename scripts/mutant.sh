#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mutant.sh KDIR OUT NAME FRAGMENT CC JOBS
# mutant.sh slop NAME
# mutant.sh leftover KDIR
# mutant.sh list
#
# Builds into OUT an x86_64 kernel whose xen_timer_slop= is broken on
# purpose, to count how often the suite catches it ('make misses'); or
# prints the xen_timer_slop= (ns) the mutant is booted with, one at which
# its breakage shows; or fails, in one line, if a file of KDIR still holds
# a mutant's line (build-kernel.sh asks before every build):
#
#   ignored   the early_param handler returns at once: the parameter is
#             accepted and has no effect (as if the early_param were gone)
#   forced    the slop is 100000 ns whatever the command line says
#   bypassed  min_delta_ns is right, but the vcpuop timer fires after 1 ns
#             when the clockevents core clamped a delta up to it: the slop
#             shows in /proc/timer_list and is not in effect
#   doubled   min_delta_ns is right, but the vcpuop timer fires after twice
#             the slop when the core clamped a delta up to it: short timers
#             are held back by more than the slop allows
#   abslate   absolute clock_nanosleep() of CLOCK_MONOTONIC wakes 2 ms
#             late (common_nsleep_timens() in kernel/time/posix-timers.c;
#             common_nsleep() is CLOCK_REALTIME's): periodic sleeps fire
#             later than one-shot ones, which check (b) compares them with
#
# and one kernel that is not broken, to show the selftests judge a
# kernel by what it does, not by its version:
#
#   oldcore   clockevents_program_event() as before v7.0 (d6e152d905bd,
#             "clockevents: Prevent timer interrupt starvation",
#             reverted there): every short delta raised to min_delta_ns
#             and programmed, under a 7.x version.  The selftests pass it;
#             the clockevents KUnit suite, which pins mainline's core,
#             fails it
#
# The file of KDIR is changed only for the build, under a lock, and put
# back (with a new mtime, so that other builds redo its object) whatever
# happens.
set -euo pipefail

die() { echo "mutant: $*" >&2; exit 1; }

# The files the mutants change; each marks its lines "/* mutant: NAME */".
files='arch/x86/xen/time.c kernel/time/posix-timers.c kernel/time/clockevents.c'

# A mutant's line left in KDIR (its build killed before the file was put
# back) would make every later kernel of KDIR a mutant, and the next
# mutant build a mutant of two.
leftover() {
	local f line
	for f in $files; do
		line=$(grep -o '/\* mutant: [a-z]* \*/' "$1/$f" 2>/dev/null | head -n1) || true
		[ -z "$line" ] ||
			die "$1/$f still holds a line of scripts/mutant.sh ('$line'): remove $1 and run 'make tree'"
	done
}

if [ "${1:-}" = leftover ]; then
	[ $# = 2 ] || die "usage: mutant.sh leftover KDIR"
	leftover "$2"
	exit 0
fi

# The kernels make misses builds: in each the slop is not in effect, and
# the checks must flag every one.  oldcore (7.3 with the clockevents core
# of 6.x) is not one of them: there the slop is in effect, and only the
# KUnit case of patch 3 tells it apart.
if [ "${1:-}" = list ]; then
	echo ignored forced bypassed doubled abslate
	exit 0
fi

if [ "${1:-}" = slop ]; then
	case ${2:-} in
	# The parameter is ignored: a slop the default (1 ns) differs from.
	ignored) echo 200000 ;;
	# Forced to 100000 ns: another value, which the default of 6.x before
	# 6.11 and the host's 50 us both stay below.
	forced) echo 50000 ;;
	# Short timers fire at once, or twice as late: a slop that the
	# emulated platform resolves (2 ms, as boot-check's).
	bypassed | doubled) echo 2000000 ;;
	# Nothing to do with the slop: the default.
	abslate) echo default ;;
	# A slop the emulated platform resolves.
	oldcore) echo 2000000 ;;
	*) die "unknown mutant '${2:-}': ignored, forced, bypassed, doubled, abslate or oldcore" ;;
	esac
	exit 0
fi
[ $# = 6 ] || die "usage: mutant.sh KDIR OUT NAME FRAGMENT CC JOBS | mutant.sh slop NAME | mutant.sh leftover KDIR | mutant.sh list"
kdir=$1 out=$2 name=$3 frag=$4 cc=$5 jobs=$6
here=$(cd "$(dirname "$0")" && pwd)
file=arch/x86/xen/time.c

case $name in
ignored)
	# The first statement of parse_xen_timer_slop() becomes a return.
	expr='/^VISIBLE_IF_KUNIT int __init parse_xen_timer_slop(char \*ptr)$/,/^}$/ s/^\tif (!ptr)$/\treturn 0;\t\/* mutant: ignored *\/\n&/'
	;;
forced)
	expr='/^VISIBLE_IF_KUNIT int __init parse_xen_timer_slop(char \*ptr)$/,/^}$/ s/^\txen_timerop_clockevent.min_delta_ns = slop;$/\tslop = 100000;\t\/* mutant: forced *\/\n&/'
	;;
bypassed)
	expr='/^static int xen_vcpuop_set_next_event(/,/^}$/ s/^\tsingle.timeout_abs_ns = get_abs_timeout(delta);$/\tif (delta <= evt->min_delta_ns)\t\/* mutant: bypassed *\/\n\t\tdelta = 1;\n&/'
	;;
doubled)
	expr='/^static int xen_vcpuop_set_next_event(/,/^}$/ s/^\tsingle.timeout_abs_ns = get_abs_timeout(delta);$/\tif (delta <= evt->min_delta_ns)\t\/* mutant: doubled *\/\n\t\tdelta = 2 * evt->min_delta_ns;\n&/'
	;;
abslate)
	file=kernel/time/posix-timers.c
	expr='/^static int common_nsleep_timens(/,/^}$/ s/^\tktime_t texp = timespec64_to_ktime(\*rqtp);$/&\n\n\tif (flags \& TIMER_ABSTIME)\t\/* mutant: abslate *\/\n\t\ttexp = ktime_add_us(texp, 2000);/'
	;;
oldcore)
	file=kernel/time/clockevents.c
	expr='/^int clockevents_program_event(/,/^}$/ { /^\tdelta = ktime_to_ns(ktime_sub(expires, ktime_get()));$/,/^}$/c\
\tdelta = ktime_to_ns(ktime_sub(expires, ktime_get()));\t/* mutant: oldcore */\
\tif (delta <= 0)\
\t\treturn force ? clockevents_program_min_delta(dev) : -ETIME;\
\tdelta = min(delta, (int64_t)dev->max_delta_ns);\
\tdelta = max(delta, (int64_t)dev->min_delta_ns);\
\tcycles = ((u64)delta * dev->mult) >> dev->shift;\
\tif (dev->set_next_event((unsigned long)cycles, dev))\
\t\treturn force ? clockevents_program_min_delta(dev) : -ETIME;\
\treturn 0;\
}
}'
	;;
*)
	die "unknown mutant '$name': ignored, forced, bypassed, doubled, abslate or oldcore"
	;;
esac
case " $files " in
*" $file "*) ;;
*) die "$file is not in mutant.sh's files: add it, or leftover() misses its lines" ;;
esac
src=$kdir/$file
[ -f "$src" ] || die "$src missing: run 'make tree' first"

exec 9>"$kdir/.xen_timer-mutant.lock"
flock 9
leftover "$kdir"
backup=$(mktemp)
cp -p "$src" "$backup"
trap 'cat "$backup" >"$src"; rm -f "$backup"' EXIT
# bash runs the EXIT trap for a signal only if the signal is trapped: a
# SIGTERM (CI's timeout, kill) left the tree mutated, and every later
# build of it a mutant.  The build runs in the background so that a
# signal is handled at once, not when the build ends.
build=
for sig in HUP INT TERM; do
	# shellcheck disable=SC2064 # the signal's name now, the pid then
	trap "[ -z \"\$build\" ] || { pkill -P \$build; kill \$build; } 2>/dev/null
		trap - $sig; exit 1" $sig
done
sed "$expr" "$backup" >"$src"
if cmp -s "$src" "$backup"; then
	die "mutant '$name' matched nothing in $src: update scripts/mutant.sh for this tree"
fi
echo "== mutant $name: $(diff "$backup" "$src" | grep -c '^>') lines changed in $file"
XT_MUTANT_BUILD=1 "$here/build-kernel.sh" "$kdir" "$out" "$frag" "$cc" "$jobs" &
build=$!
wait $build

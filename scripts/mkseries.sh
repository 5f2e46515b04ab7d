#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkseries.sh REPO GITTREE OUT [BISECT_O KCONFIG]
#
# Writes the whole contribution as one git format-patch series with a
# cover letter into OUT: patches/ with the new files folded into the
# patches that need them (and their MAINTAINERS lines), against the
# pristine base of Debian's linux-source-6.12.  GITTREE is a git tree
# made from that tarball once (base tagged "xen-timer-base").  Then runs
# checkpatch --strict on every patch and, when BISECT_O is given, builds
# the x86_64 guest kernel (the configuration KCONFIG, the .config of
# 'make kernel') after every patch, out of tree in BISECT_O.  The last
# patch is built first, so that ccache has it all from 'make kernel'
# (same relative layout, CCACHE_BASEDIR), then the others newest first,
# each an incremental build of what that patch changes.
set -euo pipefail

repo=$(cd "$1" && pwd)
g=$2 out=$3 bisect=${4:-} kconfig=${5:-}
tarball=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
die() { echo "mkseries: $*" >&2; exit 1; }
say() { echo "== patches: $*"; }
gg() { git -C "$g" -c user.name="$(git -C "$repo" config user.name || echo xen_timer)" \
	   -c user.email="$(git -C "$repo" config user.email || echo xen_timer@localhost)" "$@"; }

if ! git -C "$g" rev-parse -q --verify xen-timer-base >/dev/null 2>&1; then
	[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"
	say "making the pristine git tree $g (a few minutes, once)"
	rm -rf "$g" "$g.tmp"
	mkdir -p "$g.tmp"
	tar -C "$g.tmp" -xf "$tarball"
	mv "$g.tmp"/* "$g"
	rmdir "$g.tmp"
	gg init -q
	gg add -f .
	gg commit -q -m "Linux $(make -s -C "$g" kernelversion) (Debian linux-source-6.12)"
	gg tag xen-timer-base
fi

gg am --abort >/dev/null 2>&1 || true
gg checkout -q -f -B xen-timer-series xen-timer-base
gg clean -q -f -d -x

maint() {	# insert F: line $2 after the line $1 of XEN HYPERVISOR X86
	python3 - "$g/MAINTAINERS" "$1" "$2" <<'PY'
import sys
path, after, new = sys.argv[1], sys.argv[2], sys.argv[3]
s = open(path).read()
sec = s.index('\nXEN HYPERVISOR X86\n')
pos = s.index('\n' + after + '\n', sec) + len(after) + 2
open(path, 'w').write(s[:pos] + new + '\n' + s[pos:])
PY
}

fold() {	# add files from the repo to the last commit
	local f
	for f in "$@"; do
		mkdir -p "$g/$(dirname "$f")"
		cp -r "$repo/$f" "$g/$(dirname "$f")/"
		gg add -f "$f"
	done
	gg add MAINTAINERS
	gg commit -q --amend --no-edit
}

for p in "$repo"/patches/*.patch; do
	gg am -q "$p" || die "$(basename "$p") does not apply to the pristine base"
	case $(basename "$p") in
	0001-*)
		maint $'F:\tarch/x86/xen/' $'F:\tinclude/linux/xen_timer_slop.h'
		maint $'F:\tinclude/linux/xen_timer_slop.h' $'F:\tlib/xen_timer_slop.c'
		fold include/linux/xen_timer_slop.h lib/xen_timer_slop.c
		;;
	0003-*)
		maint $'F:\tlib/xen_timer_slop.c' $'F:\tlib/xen_timer_slop_kunit.c'
		fold lib/xen_timer_slop_kunit.c
		;;
	0005-*)
		maint $'F:\tlib/xen_timer_slop_kunit.c' $'F:\ttools/testing/selftests/xen_timer/'
		fold tools/testing/selftests/xen_timer
		gg commit -q --amend -s -F - <<'MSG'
selftests: Add xen_timer tests of xen_timer_slop=

Two kselftests for a Xen guest, both skipped anywhere else:

xen_timer_slop_test checks that every online CPU's current clockevent is
"xen" and that its min_delta_ns in /proc/timer_list is the slop the
kernel command line asks for: the last valid xen_timer_slop= (memparse()
rules on kernels that do not reject malformed values), or the default,
1 ns since v6.11 and 100000 ns before.

xen_timer_latency_test checks that the slop S is in effect on the timer
path, differentially so that it holds under emulation (one-shot sleeps
of S/10 and S take the same median time when both are raised to S), and
measures cyclictest-style periodic sleep latency at 50 and 1000 us
against thresholds taken from the cyclictest tables posted with the
original xen_timer_slop= patch.
MSG
		;;
	esac
done
n=$(gg rev-list --count xen-timer-base..HEAD)

rm -rf "$out"
mkdir -p "$out"
gg format-patch -q --cover-letter -o "$out" xen-timer-base..HEAD
cover=$(ls "$out"/0000-cover-letter.patch)
table=$(ls -t "${RESULTS:-$repo/build/results}"/matrix-*-summary.txt 2>/dev/null | head -n 1 || true)
python3 - "$cover" "${table:-}" <<'PY'
import sys
path, table = sys.argv[1], sys.argv[2]
s = open(path).read()
blurb = """xen_timer_slop= sets the minimum delta of the Xen clockevent devices.
Nothing tested it, and it had drifted: malformed values were silently
turned into a slop (abc -> 0, 5000abc -> 5000, 16E -> 0), 5G made every
timer wait 5.4 s, a bare "xen_timer_slop" dereferenced NULL, and the
documented default was still 100000 although the code says 1.

Patch 1 moves the parsing into a strict helper in lib/ that keeps the
value of everything memparse() consumed in full and rejects the rest.
Patches 2-3 add a KUnit suite (parsing, propagation into the templates,
clamping by clockevents_program_event(), and with CONFIG_XEN the real
templates and per-CPU devices).  Patch 4 fixes the documentation,
patch 5 adds kselftests that run inside a Xen guest.

How tested: kunit.py run on UML and on x86_64 under QEMU with several
xen_timer_slop= values; the x86_64 kernel booted as PV dom0 under Xen
4.17 in QEMU, with KUnit at boot and the selftests passing; each check
shown to fail against a deliberately broken helper or time.c.
"""
if table:
    blurb += "\nThe patch thread's cyclictest table, reproduced under Xen 4.17 in QEMU\n"
    blurb += "without KVM (Debian's 6.12 guest; absolute numbers are emulation's):\n\n"
    blurb += open(table).read().rstrip() + "\n"
s = s.replace('*** SUBJECT HERE ***', 'x86/xen: Harden and test the xen_timer_slop= boot parameter')
s = s.replace('*** BLURB HERE ***', blurb.rstrip())
open(path, 'w').write(s)
PY
say "$n patches and a cover letter in $out"

bad=0
for p in "$out"/0*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	r=$(perl "$g/scripts/checkpatch.pl" --strict "$p" 2>&1 | grep '^total:')
	case $r in
	"total: 0 errors, 0 warnings, 0 checks"*) ;;
	*) echo "mkseries: checkpatch $(basename "$p"): $r" >&2; bad=1 ;;
	esac
done
[ $bad = 0 ] || exit 1
say "checkpatch --strict: $n patches clean"

# The series applies to the pristine base with no fuzz.
gg checkout -q -f -B xen-timer-check xen-timer-base
gg am -q $(ls "$out"/0*-*.patch | grep -v 0000-cover-letter) 2>/dev/null || true
gg am --abort >/dev/null 2>&1 || true
[ "$(gg rev-list --count xen-timer-base..HEAD)" = "$n" ] ||
	die "the series does not apply with git am to the pristine base"
gg diff --quiet xen-timer-series HEAD || die "git am of the series does not give the series"
say "git am applies all $n to the pristine base"

[ -n "$bisect" ] || exit 0
[ -f "$kconfig" ] || die "no kernel configuration '$kconfig': run 'make kernel' first"
mkdir -p "$bisect"
k=0
start=$(date +%s)
for c in $(gg rev-list xen-timer-base..xen-timer-series); do
	k=$((k + 1))
	i=$((n - k + 1))
	gg checkout -q -f "$c"
	cp "$kconfig" "$bisect/.config"
	say "bisect [$k/$n] building after patch $i: $(gg log -1 --format=%s "$c") ($(($(date +%s) - start)) s)"
	make -s -C "$g" O="$bisect" ARCH=x86_64 olddefconfig >/dev/null
	make -s -C "$g" O="$bisect" ARCH=x86_64 CC="${KCC:-gcc}" -j"$(nproc)" bzImage >/dev/null 2>"$bisect/err.log" ||
		{ tail -n 20 "$bisect/err.log"; die "the kernel does not build after patch $i"; }
done
gg checkout -q -f xen-timer-series
say "the x86_64 guest kernel builds after each of the $n patches ($(($(date +%s) - start)) s)"

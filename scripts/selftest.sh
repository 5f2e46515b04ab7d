#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest.sh KDIR OUT KUNIT_PY: the xen_timer kselftests run in the tree
# of KDIR as the CI bots run them (make -C tools/testing/selftests
# TARGETS=xen_timer run_tests), built in OUT/kselftest/host.  Off Xen they
# skip, each with its reason; the run passes when its output is valid TAP
# that kunit.py parses with each of the three tests in it, and Linaro's
# test-definitions (LKFT) record each as what it printed.
set -uo pipefail

die() { echo "selftest: $*" >&2; exit 2; }
[ $# = 3 ] || die "usage: selftest.sh KDIR OUT KUNIT_PY"
kdir=$1 out=$2 kunit_py=$3
[ -d "$kdir/tools/testing/selftests/xen_timer" ] || die "no tools/testing/selftests/xen_timer in $kdir: run make tree"
PYTHON=${PYTHON:-python3}
PYTHONPATH="$(cd "$(dirname "$0")/.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

echo "== selftest: $(basename "$kdir"), make -C tools/testing/selftests TARGETS=xen_timer run_tests"
mkdir -p "$out"
log=$out/selftest.log
make -s -C "$kdir/tools/testing/selftests" TARGETS=xen_timer \
	O="$out/kselftest/host" run_tests >"$log" 2>&1
rc=$?
cat "$log"
[ $rc = 0 ] || { echo "selftest: run_tests exited $rc ($log)" >&2; exit 1; }
"$PYTHON" -m harness ktap-check "$kunit_py" "$log" \
	xen_timer_slop_test xen_timer_program_test xen_timer_latency_test &&
	"$PYTHON" -m harness lkft-check "$log"

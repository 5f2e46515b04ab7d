#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lava-check.sh TEMPLATES OUT NAME COMPARE -- HARNESS_ARGS...: make check's
# LAVA step.  One config of HARNESS_ARGS (the harness's settings and
# files, with --out OUT; the config is chosen below) as a LAVA job
# (python3 -m harness lava --name NAME), run here by lava-run
# (scripts/lava-local.sh, TEMPLATES: lava-server's device-types), its log
# merged (python3 -m harness merge): its verdicts must equal those of the
# same config in the run JSON COMPARE.  A job that ends INFRA (LAVA, the
# emulator or Xen broke it) is run again, twice at most.  SKIP (exit 0)
# where lava-run cannot run: not installed, or not root.
set -uo pipefail

die() { echo "lava-check: $*" >&2; exit 2; }
if [ $# -lt 5 ] || [ "$5" != -- ]; then
	die "usage: lava-check.sh TEMPLATES OUT NAME COMPARE -- HARNESS_ARGS..."
fi
templates=$1 out=$2 name=$3 compare=$4
shift 5
# One config is run: a PV dom0 with a 2 ms slop, the platform's quickest
# boot that shows the slop.  It comes last, after what the user set: the
# harness takes the VAR=VALUE words of a command line as one run.
set -- "$@" GUEST_TYPES=pv GUEST_SLOPS=2000000
here=$(dirname "$0")
PYTHON=${PYTHON:-python3}
# The harness is the package harness/ at the repository's root.
PYTHONPATH="$(cd "$here/.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
if ! command -v lava-run >/dev/null; then
	echo "lava-check: SKIP: lava-run missing (make deps installs lava-dispatcher)"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "lava-check: SKIP: lava-run runs jobs as root only"
	exit 0
fi
[ -f "$compare" ] || die "$compare does not exist"
"$PYTHON" -m harness lava "$@" --name "$name" || exit 1
tries=3
for try in $(seq $tries); do
	echo "== lava-check: try $try of $tries"
	rm -rf "$out/$name-lava/logs"
	"$here/lava-local.sh" "$templates" "$out/$name-lava/jobs" || exit 1
	"$PYTHON" -m harness merge "$@" --name "$name" --compare "$compare"
	rc=$?
	[ $rc = 3 ] || exit $rc
	echo "lava-check: INFRA: LAVA, the emulator or Xen broke a job, not the kernel: again"
done
exit 3

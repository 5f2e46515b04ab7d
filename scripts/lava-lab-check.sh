#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lava-lab-check.sh LABDIR COMPARE -- HARNESS_ARGS...: the matrix through
# a real LAVA server, end to end.  A lab of Debian's lava-server and two
# lava-workers is started in LABDIR (scripts/lava-lab.sh), two configs of
# HARNESS_ARGS (a PV dom0 at the guest's default slop and at 2 ms) go
# through it with python3 -m harness lab, the images served from here:
# their merged verdicts must equal those of the same configs in the run
# JSON COMPARE.  Then what the lab must get right when things go wrong:
#   - a job the server refuses (a device type it does not have): one
#     line naming the job and the server's reason, exit 2;
#   - a token the server refuses: one line, exit 2;
#   - a bad init (rdinit=/bogus): FAIL, exit 1, never submitted again;
#   - a job cancelled on the server while it boots: INFRA, submitted
#     again, and the run passes.
# The lab is stopped at the end, whatever happened.  SKIP (exit 0) where
# a lab cannot run: not root.
set -uo pipefail

die() { echo "lava-lab-check: $*" >&2; exit 2; }
if [ $# -lt 3 ] || [ "$3" != -- ]; then
	die "usage: lava-lab-check.sh LABDIR COMPARE -- HARNESS_ARGS..."
fi
labdir=$1 compare=$2
shift 3
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
PYTHONPATH="$(cd "$here/.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH
if [ "$(id -u)" != 0 ]; then
	echo "lava-lab-check: SKIP: a LAVA lab's root needs root"
	exit 0
fi
[ -f "$compare" ] || die "$compare does not exist: run make boot-check first"
# The images, served from here to the lab's workers (the same network).
images_url=http://127.0.0.1:${LAB_IMAGES_PORT:-8099}

"$here/lava-lab.sh" start "$labdir" 2 || exit 3
trap '"$here/lava-lab.sh" stop "$labdir" >/dev/null' EXIT
# shellcheck disable=SC1091
. "$labdir/env"
lab=(--base-url "$images_url" LAVA_URL="$LAVA_URL" LAVA_TOKEN_FILE="$LAVA_TOKEN_FILE")
fails=0
bad() { echo "lava-lab-check: FAIL: $*" >&2; fails=$((fails + 1)); }
step() { echo "== lava-lab-check [$1/5] $2 ($(($(date +%s) - t0)) s)"; }
t0=$(date +%s)

# What the user set comes first, the configs of this check last: the
# harness takes the VAR=VALUE words of a command line as one run.
step 1 "two configs through the lab, against $(basename "$compare")"
"$PYTHON" -m harness lab "$@" --name lava-lab-check --compare "$compare" "${lab[@]}" \
	GUEST_TYPES=pv 'GUEST_SLOPS=default 2000000'
rc=$?
[ $rc = 0 ] || bad "the lab's verdicts: exit $rc"

step 2 "a job the server refuses"
jobs=$(dirname "$compare")/lava-lab-check-lava/jobs
refused=$(mktemp -d)
first=("$jobs"/*.yaml)
sed 's/^device_type: qemu$/device_type: xt-no-such-type/' "${first[0]}" \
	>"$refused/001-refused.yaml"
out=$("$PYTHON" -c 'import sys; from harness import lab
lab.lab_command(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[3] + "/logs", 0)' \
	"$LAVA_URL" "$LAVA_TOKEN_FILE" "$refused" 2>&1 >/dev/null)
rc=$?
echo "$out"
{ [ $rc = 2 ] && [ "$(grep -c . <<<"$out")" = 1 ] &&
	grep -q "001-refused: the LAVA server refused the job (HTTP 400): .*xt-no-such-type" <<<"$out"; } ||
	bad "a refused job: exit $rc, not one line naming the job and the server's reason"
echo wrong-token >"$refused/token"
out=$("$PYTHON" -m harness lab "$@" --name lava-lab-check-token "${lab[@]}" \
	LAVA_TOKEN_FILE="$refused/token" GUEST_TYPES=pv GUEST_SLOPS=2000000 2>&1 >/dev/null)
rc=$?
echo "$out"
{ [ $rc = 2 ] && [ "$(grep -c . <<<"$out")" = 1 ]; } || bad "a refused token: exit $rc, not one line"
rm -rf "$refused"

step 3 "a bad init: FAIL, not submitted again"
"$PYTHON" -m harness lab "$@" --name lava-lab-check-bogus "${lab[@]}" \
	GUEST_TYPES=pv GUEST_SLOPS=2000000 'GUEST_ARGS=rdinit=/bogus init=/bogus' >/dev/null
rc=$?
tries=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["lab_jobs"][0]["tries"])' \
	"$(dirname "$compare")/lava-lab-check-bogus.json" 2>/dev/null)
{ [ $rc = 1 ] && [ "$tries" = 1 ]; } || bad "a bad init: exit $rc and ${tries:-no} tries, not FAIL in 1"

step 4 "a job cancelled on the server while it boots: INFRA, submitted again"
"$PYTHON" -m harness lab "$@" --name lava-lab-check-cancel "${lab[@]}" \
	GUEST_TYPES=pv GUEST_SLOPS=2000000 &
pid=$!
# The first job the server runs, cancelled 10 s into its boot.
"$PYTHON" - "$LAVA_URL" "$LAVA_TOKEN_FILE" <<'PY'
import sys, time
from harness import lab
c = lab.Client(sys.argv[1], lab.read_token(sys.argv[2]))
for _ in range(300):
    running = c.jobs_in('Running')
    if running:
        time.sleep(10)
        c.cancel(int(running[0]['id']))
        print(f'lava-lab-check: cancelled job {running[0]["id"]} on the server, 10 s into its boot')
        break
    time.sleep(1)
else:
    sys.exit('lava-lab-check: no job of the cancel step ran within 300 s')
PY
wait $pid
rc=$?
tries=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["lab_jobs"][0]["tries"])' \
	"$(dirname "$compare")/lava-lab-check-cancel.json" 2>/dev/null)
{ [ $rc = 0 ] && [ "$tries" = 2 ]; } || bad "a cancelled job: exit $rc and ${tries:-no} tries, not PASS in 2"

step 5 "the lab stopped"
[ $fails = 0 ] || { echo "lava-lab-check: $fails of the lab's checks failed" >&2; exit 1; }
echo "== lava-lab-check: the lab's verdicts equal the local boots'; a refused job, a refused" \
	"token, a bad init and a cancelled job each handled ($(($(date +%s) - t0)) s)"

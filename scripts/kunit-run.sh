#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit-run.sh MIN_CASES MAX_SKIPS LOG BUILD_DIR kunit.py ...
#
# Runs kunit.py with --json=LOG.json, keeps its output in LOG, and fails
# unless its JSON has at least MIN_CASES cases, none failed or crashed and
# at most MAX_SKIPS skipped (python3 -m harness kunit-check).  While kunit.py
# builds, prints every 30 s how many objects BUILD_DIR has.
set -uo pipefail

min=$1 maxskip=$2 log=$3 bdir=$4
shift 4
start=$(date +%s)
(
	while sleep 30; do
		echo "== kunit: $(($(date +%s) - start)) s, $(find "$bdir" -name '*.o' 2>/dev/null | wc -l) objects in $bdir"
	done
) &
ticker=$!
trap 'kill $ticker 2>/dev/null || true' EXIT
rm -f "$log.json"
"$@" --json="$log.json" 2>&1 | tee "$log" | grep -E --line-buffered 'Building|Starting|Testing complete|FAILED|SKIPPED|ERROR|error:|Elapsed'
rc=${PIPESTATUS[0]}
kill $ticker 2>/dev/null
if [ ! -s "$log.json" ]; then
	echo "kunit: kunit.py failed (exit $rc) and wrote no results; see $log" >&2
	exit 1
fi
# The harness is the package harness/ at the repository's root.
root=$(cd "$(dirname "$0")/.." && pwd)
PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" python3 -m harness kunit-check \
	"$log.json" "$log" "$min" "$maxskip" || exit 1
if [ "$rc" != 0 ]; then
	echo "kunit: kunit.py exited $rc although its results passed; see $log" >&2
	exit 1
fi

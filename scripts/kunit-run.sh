#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit-run.sh MIN_CASES MAX_SKIPS LOG BUILD_DIR kunit.py ...
#
# Runs kunit.py, keeps its output in LOG, and fails unless it ran at least
# MIN_CASES cases, none failed and at most MAX_SKIPS were skipped.  While
# kunit.py builds, prints every 30 s how many objects BUILD_DIR has.
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
trap 'kill $ticker 2>/dev/null' EXIT
"$@" 2>&1 | tee "$log" | grep -E --line-buffered 'Building|Starting|Testing complete|FAILED|SKIPPED|ERROR|error:|Elapsed'
rc=${PIPESTATUS[0]}
kill $ticker 2>/dev/null
sum=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -o 'Ran [0-9]* tests: .*' | tail -n 1)
ran=$(echo "$sum" | sed -n 's/Ran \([0-9]*\) tests.*/\1/p')
failed=$(echo "$sum" | sed -n 's/.*failed: \([0-9]*\).*/\1/p')
skipped=$(echo "$sum" | sed -n 's/.*skipped: \([0-9]*\).*/\1/p')
crashed=$(echo "$sum" | sed -n 's/.*crashed: \([0-9]*\).*/\1/p')
if [ "$rc" != 0 ] || [ -z "$ran" ]; then
	echo "kunit: kunit.py failed (exit $rc); see $log" >&2
	exit 1
fi
if [ "${failed:-0}" != 0 ] || [ "${crashed:-0}" != 0 ]; then
	echo "kunit: ${failed:-0} failed, ${crashed:-0} crashed; see $log" >&2
	exit 1
fi
if [ "$ran" -lt "$min" ]; then
	echo "kunit: only $ran cases ran, expected at least $min: a test went missing; see $log" >&2
	exit 1
fi
if [ "${skipped:-0}" -gt "$maxskip" ]; then
	echo "kunit: $skipped cases skipped, at most $maxskip expected here; see $log" >&2
	exit 1
fi
echo "kunit: $ran cases, ${skipped:-0} skipped, 0 failed"

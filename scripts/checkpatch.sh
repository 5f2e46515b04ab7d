#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh REPO KDIR: scripts/checkpatch.pl --strict on every stored
# patch (mainline, 6.12, 6.1 and kunit-tool: the edits, which carry
# nobody's sign-off; mkseries.sh checks the series as mailed, signed) and
# every new kernel file (backports/: their older kernels' forms); fails
# on any error, warning or check.
set -uo pipefail

repo=$1 kdir=$2
cp=$kdir/scripts/checkpatch.pl
bad=0
files=$(cd "$repo" && find arch kernel lib include tools backports -type f -name '*.[ch]' 2>/dev/null | sort)
# The kernel's series; patches/logspec/ is a patch to KernelCI's logspec.
patches=$(ls "$repo"/patches/*.patch "$repo"/patches/[0-9]*/*.patch \
	"$repo"/patches/kunit-tool/*.patch | grep -v /0000-cover-letter.patch)
for p in $patches; do
	# The Fixes: ids are upstream's: not in this repository's history.
	out=$(perl "$cp" --strict --no-tree --ignore UNKNOWN_COMMIT_ID,MISSING_SIGN_OFF "$p" 2>&1)
	if ! grep -q 'total: 0 errors, 0 warnings, 0 checks' <<<"$out"; then
		echo "$out"; bad=1
	fi
done
for f in $files; do
	out=$(perl "$cp" --strict --no-tree -f "$repo/$f" 2>&1)
	if ! grep -q 'total: 0 errors, 0 warnings, 0 checks' <<<"$out"; then
		echo "$out"; bad=1
	fi
done
n=$(echo "$patches" | wc -w)
if [ $bad = 0 ]; then
	echo "checkpatch --strict: $n patches and $(echo "$files" | wc -w) files clean"
else
	echo "checkpatch --strict: problems above" >&2
	exit 1
fi

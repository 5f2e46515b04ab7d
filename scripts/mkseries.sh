#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkseries.sh REPO KVER GITTREE write|check [BISECT_O KCONFIG]
#
# patches/ (patches/6.1/ for KVER 6.1) is the series as sent: git
# format-patch output with a cover letter, the suite's new files inside
# the patches that add them.  It is the source of the edits to files the
# kernel already has and of the commit messages; lib/, include/ and
# tools/ are the source of the new files.  This script refreshes one from
# the other:
#
#   git am of the series onto the pristine base of Debian's
#   linux-source-KVER (GITTREE, a git tree made from the tarball once,
#   tagged xen-timer-base, with fixed dates so that every commit id is
#   the same on every machine); each new file a patch adds is replaced by
#   the repository's (scripts/render-file.sh), with the repository's new
#   files beside it; then git format-patch --cover-letter, keeping the
#   cover letter's subject and text.
#
# write puts the result into the series directory; check fails, naming
# the file, when the series directory differs from it ("make patches"
# has not been run since lib/, include/, tools/ or the series changed).
# Both then run checkpatch --strict on every patch and check that git am
# of the result onto the base gives the same tree.  With BISECT_O, the
# x86_64 guest kernel (the configuration KCONFIG) is built after every
# patch, out of tree in BISECT_O, the last patch first so that ccache has
# it from 'make kernel' (CCACHE_BASEDIR, same relative layout), then the
# others newest first, each an incremental build.
set -euo pipefail

repo=$(cd "$1" && pwd)
kver=$2 g=$3 mode=$4 bisect=${5:-} kconfig=${6:-}
die() { echo "mkseries: $*" >&2; exit 1; }
say() { echo "== patches $kver: $*"; }

case $kver in
6.12) series=$repo/patches ;;
6.1) series=$repo/patches/6.1 ;;
*) die "no series for Linux $kver (6.12 or 6.1)" ;;
esac
case $mode in write | check) ;; *) die "mode must be write or check, not '$mode'" ;; esac
tarball=${TARBALL:-/usr/src/linux-source-$kver.tar.xz}
rel=${series#"$repo"/}

mapfile -t want < <(find "$series" -maxdepth 1 -name '0[0-9][0-9][0-9]-*.patch' \
	! -name '0000-cover-letter.patch' | sort)
[ ${#want[@]} -gt 0 ] || die "no patches in $rel"
cover_old=$series/0000-cover-letter.patch
[ -f "$cover_old" ] || die "$rel/0000-cover-letter.patch missing"

# Whoever sends the series commits it: the author of its first patch.
ident=$(git mailinfo /dev/null /dev/null <"${want[0]}")
name=$(echo "$ident" | sed -n 's/^Author: //p')
email=$(echo "$ident" | sed -n 's/^Email: //p')
[ -n "$name" ] && [ -n "$email" ] || die "$(basename "${want[0]}") has no From: line"
gg() { git -C "$g" -c user.name="$name" -c user.email="$email" -c core.abbrev=12 "$@"; }

if ! git -C "$g" rev-parse -q --verify xen-timer-base >/dev/null 2>&1; then
	[ -f "$tarball" ] || die "$tarball missing: run 'make deps' (apt-get install $(basename "$tarball" .tar.xz))"
	say "making the pristine git tree $g from $(basename "$tarball") (a few minutes, once)"
	rm -rf "$g" "$g.tmp"
	mkdir -p "$g.tmp"
	tar -C "$g.tmp" -xf "$tarball"
	mv "$g.tmp"/* "$g"
	rmdir "$g.tmp"
	gg init -q
	gg add -f .
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		gg commit -q -m "Linux $(make -s -C "$g" kernelversion) (Debian linux-source-$kver)"
	gg tag xen-timer-base
fi

gg am --abort >/dev/null 2>&1 || true
gg checkout -q -f -B xen-timer-series xen-timer-base
gg clean -q -f -d -x

# The suite's new files, as the series must carry them.
mapfile -t files < <(cd "$repo" && find lib include tools -type f | sort)
declare -A owner=()
for p in "${want[@]}"; do
	gg am -q --committer-date-is-author-date "$p" >/dev/null 2>&1 ||
		die "$rel/$(basename "$p") does not apply to the pristine base (git am)"
	mapfile -t added < <(gg diff-tree -r --no-commit-id --name-only --diff-filter=A HEAD)
	declare -A adds=() newdirs=()
	for f in "${added[@]}"; do
		adds[$f]=1
		d=$(dirname "$f")
		gg cat-file -e "xen-timer-base:$d" 2>/dev/null || newdirs[$d]=1
	done
	# The patch carries the repository's version of every new file it
	# adds, and the repository's other files in a directory it creates.
	for f in "${files[@]}"; do
		[ -z "${owner[$f]:-}" ] || continue
		[ -n "${adds[$f]:-}" ] || [ -n "${newdirs[$(dirname "$f")]:-}" ] || continue
		owner[$f]=$(basename "$p")
		"$repo/scripts/render-file.sh" "$repo" "$g" "$f" >"$g/$f"
		chmod --reference="$repo/$f" "$g/$f"
		gg add -f "$f"
	done
	unset adds newdirs
	if ! gg diff --cached --quiet; then
		GIT_COMMITTER_DATE=$(gg log -1 --format=%ad --date=raw) gg commit -q --amend --no-edit
	fi
done
for f in "${files[@]}"; do
	[ -n "${owner[$f]:-}" ] ||
		die "$f is in no patch of $rel: add it to the patch that should carry it (git am, git add, git commit --amend, make patches)"
done
n=${#want[@]}

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gg format-patch -q --cover-letter --base=xen-timer-base -o "$out" xen-timer-base..HEAD
# The cover letter keeps its subject and text; its date is the series'.
python3 - "$out/0000-cover-letter.patch" "$cover_old" "$(gg log -1 --format=%aD)" <<'PY' || die "cannot carry over the cover letter of $rel"
import re
import sys
new_path, old_path, date = sys.argv[1:]
new, old = open(new_path).read(), open(old_path).read()
head, _, body = old.partition('\n\n')
m = re.search(r'^Subject: \[PATCH [0-9]+/[0-9]+\] (.*(?:\n .*)*)$', head, re.M)
end = re.search(r'^\S[^\n]* \([0-9]+\):$', body, re.M)
if not m or not end:
    sys.exit('mkseries: no subject and text in the old cover letter')
subject, blurb = m.group(1), body[:end.start()].rstrip('\n')
new = new.replace('*** SUBJECT HERE ***', subject, 1).replace('*** BLURB HERE ***', blurb, 1)
new = re.sub(r'^Date: .*$', 'Date: ' + date, new, count=1, flags=re.M)
open(new_path, 'w').write(new)
PY

if [ "$mode" = write ]; then
	find "$series" -maxdepth 1 -name '0[0-9][0-9][0-9]-*.patch' -delete
	cp "$out"/*.patch "$series/"
	say "wrote $n patches and the cover letter to $rel"
else
	stale=$( (cd "$out" && ls) | sort)
	have=$(find "$series" -maxdepth 1 -name '0[0-9][0-9][0-9]-*.patch' -printf '%f\n' | sort)
	[ "$stale" = "$have" ] || die "$rel is stale: the series would be $(echo $stale), it has $(echo $have); run 'make patches'"
	# The patches first: the cover letter only differs when they do.
	for f in $(echo "$stale" | grep -v 0000-cover-letter) 0000-cover-letter.patch; do
		cmp -s "$out/$f" "$series/$f" ||
			die "$rel/$f is stale against lib/, include/, tools/ or the series: run 'make patches' (first changed line: $(diff "$series/$f" "$out/$f" | grep -m1 -E '^[<>] [+-]([^+-]|$)' | cut -c1-100))"
	done
	say "$rel is up to date: $n patches and the cover letter"
fi

bad=0
for p in "$out"/0*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	# Debian's python3, which has ply for checkpatch's SPDX check, even
	# where another python3 comes first in PATH.
	r=$(PATH=/usr/bin:$PATH perl "$g/scripts/checkpatch.pl" --strict "$p" 2>&1 | grep '^total:' || true)
	case $r in
	"total: 0 errors, 0 warnings, 0 checks"*) ;;
	*) echo "mkseries: checkpatch $(basename "$p"): $r" >&2; bad=1 ;;
	esac
done
[ $bad = 0 ] || exit 1
say "checkpatch --strict: $n patches clean"

# The series applies to the pristine base with no fuzz.
gg checkout -q -f -B xen-timer-check xen-timer-base
gg am -q $(ls "$out"/0*-*.patch | grep -v 0000-cover-letter) >/dev/null 2>&1 || true
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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkseries.sh REPO KVER GITTREE write|store|check|take [BISECT_O KCONFIG]
#
# The series is kept in two sources, each stored once:
#   - the suite's new files, in arch/, kernel/ and tools/ at their 7.3
#     paths (scripts/render-file.sh adapts one to an older tree);
#   - the edits to files the kernel already has, with the commit
#     messages: patches/ (mainline, 7.3), patches/6.12/ and patches/6.1/
#     (the stable backports), git format-patch output without the new
#     files, and the cover letter.
# A new file goes into the first patch that edits the Makefile that
# builds it: that of the nearest directory above it with a Makefile in
# the base (arch/x86/xen/Makefile for arch/x86/xen/time_kunit.c,
# tools/testing/selftests/Makefile for tools/testing/selftests/xen_timer/).
#
# This script joins them into the series as it is mailed: git am of the
# edits onto the pristine base of Debian's linux-source-KVER (GITTREE, a
# git tree made from the tarball once, tagged xen-timer-base, with fixed
# dates so that every commit id is the same on every machine), each
# patch amended with its new files, then git format-patch --cover-letter
# --signoff into GITTREE.mail/ (the cover letter keeps the stored subject
# and text), From: and Signed-off-by: its sender's (scripts/sender.sh).
# The same commits without the new files, and without anybody's From: or
# Signed-off-by:, are the stored edits: store puts them into the series
# directory, write does that and writes the mail (refused, after storing,
# without a sender of one's own), check fails, naming the file, when the
# series directory differs from them ("make patches" has not been run
# since a new file moved or a commit was amended).  store and check need
# no sender: their series, for checkpatch and git am, goes to
# GITTREE.check/ under a stand-in identity that is never mailed.
# take is how an edit or a commit message is changed: after 'make
# patches', amend the commits of branch xen-timer-series in GITTREE
# (git commit --amend, git rebase -i xen-timer-base), then take stores
# that branch's edits and messages and runs store.  A new file is
# changed in the repository, not there.
# Both then run checkpatch --strict on every mailed patch and check that
# git am of the mail onto the base gives the same tree.  With BISECT_O,
# the x86_64 guest kernel (the configuration KCONFIG) is built after
# every patch, out of tree in BISECT_O, the last patch first so that
# ccache has it from 'make kernel' (CCACHE_BASEDIR, same relative
# layout), then the others newest first, each an incremental build; a
# patch that changes no kernel source needs no build of its own.
set -euo pipefail

# The kernel's make runs on its own: a jobserver of make check's -j2
# is not passed down to this script ("jobserver unavailable").
unset MAKEFLAGS MFLAGS MAKELEVEL
repo=$(cd "$1" && pwd)
kver=$2 g=$(realpath -m "$3") mode=$4 bisect=${5:-} kconfig=${6:-}
die() { echo "mkseries: $*" >&2; exit 1; }
say() { echo "== patches $kver: $*"; }

# XT_SERIES names another series of the same base (patches/kunit-tool,
# mailed on its own), kept on branch XT_BRANCH, mailed to XT_MAIL.
series=${XT_SERIES:+$repo/$XT_SERIES}
[ -n "$series" ] || series=$("$repo/scripts/kver.sh" series "$repo" "$kver") || exit 1
branch=${XT_BRANCH:-xen-timer-series}
# A stable backport's patches say which tree they are for.
case $series in
"$repo"/patches/[0-9]*) prefix="PATCH $kver" ;;
*) prefix=PATCH ;;
esac
case $mode in write | store | check | take) ;; *) die "mode must be write, store, check or take, not '$mode'" ;; esac
tarball=${TARBALL:-/usr/src/linux-source-$kver.tar.xz}
rel=${series#"$repo"/}
mail=${XT_MAIL:-$g.mail}

mapfile -t want < <(find "$series" -maxdepth 1 -name '0[0-9][0-9][0-9]-*.patch' \
	! -name '0000-cover-letter.patch' | sort)
[ ${#want[@]} -gt 0 ] || die "no patches in $rel"
cover_old=$series/0000-cover-letter.patch
[ -f "$cover_old" ] || die "$rel/0000-cover-letter.patch missing"

# The stored patches carry nobody's From: or Signed-off-by:.  write
# mails the series as its sender (scripts/sender.sh: git's user.name and
# user.email, refused when they are not a person's own), From: and
# Signed-off-by: as 'git format-patch -s' gives them; it stores the
# edits first, which need no sender.  check and take need none: the
# commits of GITTREE and the series checkpatch reads ($g.check/) are
# made by a stand-in that is never mailed.
name='xen_timer check' email='check@xen-timer.invalid'
sender=
if [ "$mode" = write ]; then
	sender=$("$repo/scripts/sender.sh" "$repo" 2>&1) || sender_err=$sender sender=
	if [ -n "$sender" ]; then
		name=${sender% <*} email=${sender##* <} email=${email%>}
	fi
fi
# A stored patch as git am takes it: with the author's From: line.
authored() { sed "1a From: $name <$email>" "$1"; }
# A patch as stored: without its From: line (and its continuation lines);
# the cover letter's shortlog under no one's name.
unauthored() {
	sed -i -e '/^From: /,/^[^ ]/{/^From: /d;/^ /d}' \
		-e "s/^$name (\([0-9]*\)):\$/xen_timer series (\1):/" "$@"
}
# No automatic gc: the tree's 90,000 loose objects would make each git am
# start a repack of the whole tree in the background, CPU taken from the
# guests boot-check runs beside the series checks.
gg() {
	git -C "$g" -c user.name="$name" -c user.email="$email" -c core.abbrev=12 \
		-c gc.auto=0 -c maintenance.auto=false "$@"
}

if ! git -C "$g" rev-parse -q --verify xen-timer-base >/dev/null 2>&1; then
	[ -f "$tarball" ] || die "$tarball missing: run 'make deps KVER=$kver'"
	say "making the pristine git tree $g from $(basename "$tarball") (a few minutes, once)"
	rm -rf "$g" "$g.tmp"
	mkdir -p "$g.tmp"
	tar -C "$g.tmp" -xf "$tarball"
	mv "$g.tmp"/* "$g"
	rmdir "$g.tmp"
	gg init -q
	# Uncompressed objects: half the CPU of git add (the ids are the same).
	gg -c core.looseCompression=0 add -f .
	# The base's id is in every stored series (base-commit:): fixed
	# dates and a fixed author, whoever makes the tree (a sender or not).
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		gg -c user.name='xen_timer check' -c user.email='check@xen-timer.invalid' \
		commit -q -m "Linux $(make -s -C "$g" kernelversion) (Debian linux-source-$kver)"
	gg tag xen-timer-base
fi

# The suite's new files: repository path -> path in this tree.
declare -A dst=() owner=()
mapfile -t files < <(cd "$repo" && find arch kernel lib include tools -type f 2>/dev/null | sort)
[ -z "${XT_SERIES:-}" ] || files=()	# a series of edits alone
declare -A mkfile=()
for f in "${files[@]}"; do
	dst[$f]=$("$repo/scripts/render-file.sh" --path "$repo" "$g" "$f")
	d=$(dirname "${dst[$f]}")
	until [ "$d" = . ] || gg cat-file -e "xen-timer-base:$d/Makefile" 2>/dev/null; do
		d=$(dirname "$d")
	done
	[ "$d" != . ] || die "${dst[$f]}: no directory above it has a Makefile in the base"
	mkfile[$f]=$d/Makefile
done

if [ "$mode" = take ]; then
	gg rev-parse -q --verify $branch >/dev/null || die "no branch $branch in $g: run 'make patches' first"
	gg diff --quiet && gg diff --cached --quiet || die "$g has uncommitted changes: commit them to $branch first"
	for f in "${files[@]}"; do
		gg cat-file -e "$branch:${dst[$f]}" 2>/dev/null || continue
		"$repo/scripts/render-file.sh" "$repo" "$g" "$f" |
			cmp -s - <(gg show "$branch:${dst[$f]}") ||
			die "${dst[$f]} differs from the repository's $f: change new files in the repository"
	done
	excl=()
	for f in "${files[@]}"; do excl+=(":(exclude)${dst[$f]}"); done
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	gg format-patch -q --zero-commit -o "$tmp" xen-timer-base..$branch -- . "${excl[@]}"
	unauthored "$tmp"/*.patch
	sed -i '/^Signed-off-by: /d' "$tmp"/*.patch
	find "$series" -maxdepth 1 -name '0[0-9][0-9][0-9]-*.patch' ! -name '0000-cover-letter.patch' -delete
	cp "$tmp"/*.patch "$series/"
	say "took $(ls "$tmp" | wc -l) patches from branch $branch of $g"
	exec "$0" "$repo" "$kver" "$g" store
fi

gg am --abort >/dev/null 2>&1 || true
gg checkout -q -f -B $branch xen-timer-base
gg clean -q -f -d -x

for p in "${want[@]}"; do
	authored "$p" | gg am -q --committer-date-is-author-date >/dev/null 2>&1 || {
		gg am --abort >/dev/null 2>&1 || true
		die "$rel/$(basename "$p") does not apply to the pristine base (git am)"
	}
	# The new files whose Makefile this patch edits first.
	mapfile -t edited < <(gg show --format= --name-only HEAD)
	for f in "${files[@]}"; do
		[ -z "${owner[$f]:-}" ] || continue
		t=${dst[$f]}
		printf '%s\n' "${edited[@]}" | grep -xF "${mkfile[$f]}" >/dev/null || continue
		[ -e "$g/$t" ] && die "$t is in the pristine base already"
		owner[$f]=$(basename "$p")
		mkdir -p "$(dirname "$g/$t")"
		"$repo/scripts/render-file.sh" "$repo" "$g" "$f" >"$g/$t"
		chmod --reference="$repo/$f" "$g/$t"
		gg add -f "$t"
	done
	if ! gg diff --cached --quiet; then
		GIT_COMMITTER_DATE=$(gg log -1 --format=%ad --date=raw) gg commit -q --amend --no-edit
	fi
done
for f in "${files[@]}"; do
	[ -n "${owner[$f]:-}" ] ||
		die "${dst[$f]} is in no patch of $rel: no patch edits ${mkfile[$f]}, which should build it"
done
n=${#want[@]}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The cover letter keeps its subject and text; its date is the series'.
cover() {
	python3 - "$1/0000-cover-letter.patch" "$cover_old" "$(gg log -1 --format=%aD)" <<'PY' || die "cannot carry over the cover letter of $rel"
import re
import sys
new_path, old_path, date = sys.argv[1:]
new, old = open(new_path).read(), open(old_path).read()
head, _, body = old.partition('\n\n')
m = re.search(r'^Subject: \[PATCH[^]]* [0-9]+/[0-9]+\] (.*(?:\n .*)*)$', head, re.M)
end = re.search(r'^\S[^\n]* \([0-9]+\):$', body, re.M)
if not m or not end:
    sys.exit('mkseries: no subject and text in the old cover letter')
subject, blurb = m.group(1), body[:end.start()].rstrip('\n')
new = new.replace('*** SUBJECT HERE ***', subject, 1).replace('*** BLURB HERE ***', blurb, 1)
new = re.sub(r'^Date: .*$', 'Date: ' + date, new, count=1, flags=re.M)
open(new_path, 'w').write(new)
PY
}
# The series as mailed, and the stored edits: the same commits without
# the new files, and without commit ids (--zero-commit), which change
# with every new file; so a stored edit changes only when it does.
mkdir "$tmp/mail" "$tmp/edits"
gg format-patch -q --signoff --subject-prefix="$prefix" --cover-letter --base=xen-timer-base -o "$tmp/mail" \
	xen-timer-base..HEAD
cover "$tmp/mail"
excl=()
for f in "${files[@]}"; do excl+=(":(exclude)${dst[$f]}"); done
gg format-patch -q --zero-commit --subject-prefix="$prefix" --cover-letter --base=xen-timer-base -o "$tmp/edits" xen-timer-base..HEAD \
	-- . "${excl[@]}"
cover "$tmp/edits"
unauthored "$tmp/edits"/*.patch
[ "$(ls "$tmp/edits" | wc -l)" = $((n + 1)) ] ||
	die "a patch of $rel adds new files only: every patch must edit a file the kernel has (MAINTAINERS at least)"
# Only a sender's series is the mail; the stand-in's is for the checks.
[ -n "$sender" ] || mail=$g.check
rm -rf "$mail"
cp -r "$tmp/mail" "$mail"

if [ "$mode" != check ]; then
	find "$series" -maxdepth 1 -name '0[0-9][0-9][0-9]-*.patch' -delete
	cp "$tmp/edits"/*.patch "$series/"
	say "stored $n patches and the cover letter in $rel (the edits, nobody's sign-off)"
	if [ "$mode" = write ] && [ -z "$sender" ]; then
		echo "mkseries: not mailed: ${sender_err#sender: }" >&2
		exit 1
	fi
	[ -z "$sender" ] || say "the series as $sender mails it is in $mail"
else
	now=$( (cd "$tmp/edits" && ls) | sort)
	have=$(find "$series" -maxdepth 1 -name '0[0-9][0-9][0-9]-*.patch' -printf '%f\n' | sort)
	[ "$now" = "$have" ] || die "$rel is stale: the series would be $(echo $now), it has $(echo $have); run 'make patches'"
	# The patches first: the cover letter only differs when they do.
	for f in $(echo "$now" | grep -v 0000-cover-letter) 0000-cover-letter.patch; do
		cmp -s "$tmp/edits/$f" "$series/$f" ||
			die "$rel/$f is stale against the series: run 'make patches' (first changed line: $(diff "$series/$f" "$tmp/edits/$f" | grep -m1 -E '^[<>] ' | cut -c1-100))"
	done
	say "$rel is up to date: $n patches and the cover letter"
fi

bad=0
for p in "$mail"/0*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	# Debian's python3, which has ply for checkpatch's SPDX check, even
	# where another python3 comes first in PATH.
	# The base is a tarball without history: the Fixes: ids are
	# upstream's, which checkpatch cannot look up here.  A new file in a
	# directory MAINTAINERS already covers needs no MAINTAINERS hunk:
	# get_maintainer.pl checks each below.
	r=$(PATH=/usr/bin:$PATH perl "$g/scripts/checkpatch.pl" --strict \
		--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$p" 2>&1 | grep '^total:' || true)
	case $r in
	"total: 0 errors, 0 warnings, 0 checks"*) ;;
	*) echo "mkseries: checkpatch $(basename "$p"): $r" >&2; bad=1 ;;
	esac
	# Without history here checkpatch takes every commit id for unknown
	# and skips its style; in a maintainer's tree it checks it: a commit
	# named in prose is 'commit 0123456789ab ("subject")'.
	r=$(perl "$g/scripts/checkpatch.pl" --no-tree --types GIT_COMMIT_ID "$p" 2>&1 |
		grep -A2 '^ERROR' || true)
	[ -z "$r" ] || { echo "mkseries: checkpatch $(basename "$p"): $r" >&2; bad=1; }
done
for f in "${files[@]}"; do
	m=$(cd "$g" && perl scripts/get_maintainer.pl --no-git -f "${dst[$f]}" 2>/dev/null || true)
	grep -q '(maintainer:' <<<"$m" ||
		{ echo "mkseries: no maintainer in MAINTAINERS covers ${dst[$f]}" >&2; bad=1; }
done
[ $bad = 0 ] || exit 1
say "checkpatch --strict: $n mailed patches clean; MAINTAINERS covers every new file"

# The mailed series applies to the pristine base with no fuzz.
gg checkout -q -f -B xen-timer-check xen-timer-base
gg am -q $(ls "$mail"/0*-*.patch | grep -v 0000-cover-letter) >/dev/null 2>&1 || true
gg am --abort >/dev/null 2>&1 || true
[ "$(gg rev-list --count xen-timer-base..HEAD)" = "$n" ] ||
	die "the series does not apply with git am to the pristine base"
gg diff --quiet $branch HEAD || die "git am of the series does not give the series"
say "git am applies all $n to the pristine base"

[ -n "$bisect" ] || { gg checkout -q -f $branch; exit 0; }
[ -f "$kconfig" ] || die "no kernel configuration '$kconfig': run 'make kernel' first"
mkdir -p "$bisect"
k=0
start=$(date +%s)
for c in $(gg rev-list xen-timer-base..$branch); do
	k=$((k + 1))
	i=$((n - k + 1))
	# A patch that changes nothing the kernel is built from (documentation,
	# tools, MAINTAINERS) builds what the patch before it builds.
	changed=$(gg diff --name-only "$c^" "$c")
	if ! grep -qvE '^(Documentation/|tools/|MAINTAINERS$)' <<<"$changed"; then
		say "bisect [$k/$n] patch $i changes no kernel source: $(gg log -1 --format=%s "$c")"
		continue
	fi
	gg checkout -q -f "$c"
	cp "$kconfig" "$bisect/.config"
	say "bisect [$k/$n] building after patch $i: $(gg log -1 --format=%s "$c") ($(($(date +%s) - start)) s)"
	make -s -C "$g" O="$bisect" ARCH=x86_64 olddefconfig >/dev/null
	make -s -C "$g" O="$bisect" ARCH=x86_64 CC="${KCC:-gcc}" -j"$(nproc)" bzImage >/dev/null 2>"$bisect/err.log" ||
		{ tail -n 20 "$bisect/err.log"; die "the kernel does not build after patch $i"; }
done
gg checkout -q -f $branch
say "the x86_64 guest kernel builds after each of the $n patches ($(($(date +%s) - start)) s)"

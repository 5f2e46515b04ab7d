#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prepare-tree.sh REPO KDIR
#
# Makes KDIR a Linux tree carrying this suite: unpacks Debian's
# linux-source-X.Y into KDIR when KDIR does not exist yet (X.Y from KDIR's
# name, linux-X.Y or linux-source-X.Y, else 7.3; TARBALL= overrides),
# applies the edits of the series of the tree's version (scripts/kver.sh:
# REPO/patches/ for mainline, 7.0 and later, REPO/patches/6.12/ and
# REPO/patches/6.1/ for the backports, and REPO/patches/kunit-tool/ on
# mainline; git am in a git work tree, patch -p1
# otherwise) and copies the suite's new files to their paths in that
# version (scripts/render-file.sh).
#
# Idempotent: patches already in the tree are skipped and files are only
# copied when they differ, so a second run touches nothing and triggers
# no rebuild.  A patch that does not apply stops the run with one line
# naming the patch, the file and the lines it expected there (the
# upstream context); patches applied by this run are taken back first,
# so the tree is left as it was.
set -euo pipefail

repo=$(cd "$1" && pwd)
kdir=$2
ver=$(basename "$kdir" | sed -n 's/^linux-\(source-\)\{0,1\}\([0-9]*\.[0-9]*\)$/\2/p')
tarball=${TARBALL:-/usr/src/linux-source-${ver:-7.3}.tar.xz}

die() { echo "prepare-tree: $*" >&2; exit 1; }
say() { echo "prepare-tree: $*"; }

if [ ! -e "$kdir" ]; then
	[ -f "$tarball" ] || die "$tarball missing: run 'make deps' (apt-get install $(basename "$tarball" .tar.xz))"
	say "unpacking $(basename "$tarball") into $kdir (about a minute)"
	tmp=$kdir.unpack.$$
	rm -rf "$tmp" && mkdir -p "$tmp"
	tar -C "$tmp" -xf "$tarball"
	top=$(ls "$tmp")
	[ "$(echo "$top" | wc -l)" = 1 ] && [ -f "$tmp/$top/Makefile" ] ||
		die "$tarball does not hold one kernel tree"
	mv "$tmp/$top" "$kdir"
	rmdir "$tmp"
fi
kdir=$(cd "$kdir" && pwd)
[ -f "$kdir/Makefile" ] && [ -d "$kdir/arch/x86/xen" ] ||
	die "$kdir is not a Linux source tree"

# The series for this tree's version.
kver=$("$repo/scripts/kver.sh" tree "$kdir")
series=$("$repo/scripts/kver.sh" series "$repo" "$kver") || exit 1

is_git=0
if [ -e "$kdir/.git" ] && [ "$(git -C "$kdir" rev-parse --show-toplevel 2>/dev/null)" = "$kdir" ]; then
	is_git=1
fi

# The file a patch fails on, from a dry run's output.
failing_file() {
	local p=$1
	if [ $is_git = 1 ]; then
		git -C "$kdir" apply --check "$p" 2>&1 |
			sed -n 's/^error: patch failed: \(.*\):[0-9]*$/\1/p; s/^error: \(.*\): No such file or directory$/\1/p' | head -n 1
	else
		(cd "$kdir" && patch -p1 --dry-run --forward <"$p" 2>&1 || true) |
			awk '/^checking file /{f=$3} /^patching file /{f=$3} /FAILED|No file to patch|Reversed/{print f; exit}'
	fi
}

# What patch P expects in file F that the tree's F lacks: the first
# context or removed lines of a hunk that are not in the file, with the
# line the hunk is for (the upstream context it was written against).
expected_context() {
	[ -n "$2" ] && [ -f "$kdir/$2" ] || return 0
	python3 - "$1" "$2" "$kdir/$2" <<'PY'
import re
import sys
patch, name, path = sys.argv[1:]
have = {line.strip() for line in open(path, errors='replace')}
on, hunk, start = False, [], 0


def report():
    missing = [line for line in hunk if line.strip() and line.strip() not in have]
    if missing:
        shown = ' / '.join('"%s"' % m.strip()[:60] for m in missing[:2])
        print(f'{shown} near line {start}')
        sys.exit(0)


for line in open(patch, errors='replace').read().splitlines():
    if line.startswith('diff --git '):
        if on:
            report()
        on, hunk, start = line.split()[2] == 'a/' + name, [], 0
    elif on and line.startswith('@@ '):
        report()
        hunk, start = [], int(re.match(r'@@ -(\d+)', line).group(1))
    elif on and start and line[:1] in (' ', '-'):
        hunk.append(line[1:])
if on:
    report()
PY
}

subject() { git mailinfo /dev/null /dev/null <"$1" | sed -n 's/^Subject: //p'; }
# The stored patches carry nobody's From: (the sender's is added when the
# series is mailed): in a git tree they are committed as its own user's,
# or the suite's where it has none.
authored() {
	local who
	who="$(git -C "$kdir" config user.name || echo xen_timer) <$(git -C "$kdir" config user.email || echo xen_timer@localhost)>"
	sed "1a From: $who" "$1"
}

# A plain tree records the patches it carries in $state, so that a second
# run knows them and a changed series replaces the old one.
state=$kdir/.xen_timer-patches
mkdir -p "$state"
p_apply() { (cd "$kdir" && patch -p1 --forward -s --no-backup-if-mismatch <"$1"); }
p_revert() { (cd "$kdir" && patch -p1 -R -s --no-backup-if-mismatch <"$1"); }

# With the kunit.py fix, mailed on its own, on mainline (it reads KUnit
# at boot right); in the order of their names, which is how a plain
# tree's record lists them.
extra=
[ "$series" != "$repo/patches" ] || extra=$repo/patches/kunit-tool
mapfile -t want < <(find "$series" $extra -maxdepth 1 -name '0[0-9][0-9][0-9]-*.patch' \
	! -name '0000-cover-letter.patch' | awk -F/ '{ print $NF "\t" $0 }' | sort | cut -f2)
total=${#want[@]}
applied_here=()
reverted_here=()

rollback() {
	local i
	for ((i = ${#applied_here[@]} - 1; i >= 0; i--)); do
		if [ $is_git = 1 ]; then
			git -C "$kdir" reset -q --keep HEAD~1
		else
			p_revert "${applied_here[$i]}"
			rm -f "$state/$(basename "${applied_here[$i]}")"
		fi
	done
	for ((i = ${#reverted_here[@]} - 1; i >= 0; i--)); do
		p_apply "${reverted_here[$i]}" && cp "${reverted_here[$i]}" "$state/"
	done
}

if [ $is_git = 0 ]; then
	# Keep the recorded patches that equal the wanted ones, in order;
	# take back the rest, newest first.
	mapfile -t have < <(ls "$state"/*.patch 2>/dev/null)
	keep=0
	while [ $keep -lt ${#have[@]} ] && [ $keep -lt $total ] &&
	      cmp -s "${have[$keep]}" "${want[$keep]}"; do
		keep=$((keep + 1))
	done
	old=$(mktemp -d)
	trap 'rm -rf "$old"' EXIT
	for ((i = ${#have[@]} - 1; i >= keep; i--)); do
		mv "${have[$i]}" "$old/"
		tmp=$old/$(basename "${have[$i]}")
		p_revert "$tmp" || die "cannot take back the old $(basename "$tmp") from $kdir"
		reverted_here+=("$tmp")
		say "took back the old $(basename "${have[$i]}")"
	done
fi

n=0
for p in "${want[@]}"; do
	n=$((n + 1))
	name=$(basename "$p")
	if [ $is_git = 1 ]; then
		if git -C "$kdir" log -n 200 --format=%s | grep -xF "$(subject "$p")" >/dev/null; then
			continue
		fi
		if git -C "$kdir" apply --check "$p" 2>/dev/null &&
		   authored "$p" | git -C "$kdir" am -q >/dev/null 2>&1; then
			applied_here+=("$p")
			say "[$n/$total] applied $name (git am)"
			continue
		fi
		git -C "$kdir" am --abort >/dev/null 2>&1 || true
	else
		if cmp -s "$p" "$state/$name"; then
			continue
		fi
		if (cd "$kdir" && patch -p1 -R --dry-run -s -f <"$p" >/dev/null 2>&1); then
			cp "$p" "$state/"	# in the tree, but not recorded
			continue
		fi
		if (cd "$kdir" && patch -p1 --dry-run --forward -s <"$p" >/dev/null 2>&1); then
			p_apply "$p"
			cp "$p" "$state/"
			applied_here+=("$p")
			say "[$n/$total] applied $name"
			continue
		fi
	fi
	f=$(failing_file "$p") || true
	ctx=$(expected_context "$p" "$f")
	rollback
	die "${series#"$repo"/}/$name does not apply to ${f:-the tree} in $kdir${ctx:+, which lacks $ctx}; tree left as it was"
done

# New files, at their kernel paths, as scripts/render-file.sh adapts them
# to the tree's version.
render() { "$repo/scripts/render-file.sh" "$repo" "$kdir" "$1"; }
copied=0
: >"$state/files.new"
while IFS= read -r f; do
	rel=$("$repo/scripts/render-file.sh" --path "$repo" "$kdir" "$f")
	dst=$kdir/$rel
	echo "$rel" >>"$state/files.new"
	if ! render "$f" | cmp -s - "$dst"; then
		mkdir -p "$(dirname "$dst")"
		render "$f" >"$dst"
		chmod --reference="$repo/$f" "$dst"
		copied=$((copied + 1))
	fi
done < <(cd "$repo" && find arch kernel lib include tools -type f 2>/dev/null | sort)
# What an earlier run copied and the suite no longer has (a renamed or
# dropped source) goes, so that the tree holds the series' files only.
removed=0
if [ -f "$state/files" ]; then
	while IFS= read -r rel; do
		[ -n "$rel" ] && [ -f "$kdir/$rel" ] || continue
		rm -f "$kdir/$rel"
		removed=$((removed + 1))
	done < <(sort "$state/files" | comm -23 - <(sort "$state/files.new"))
fi
mv "$state/files.new" "$state/files"

say "$kdir (Linux $kver) ready: $total patches ($((total - ${#applied_here[@]})) already in)," \
	"$copied files copied${removed:+$([ "$removed" = 0 ] || echo ", $removed no longer the suite's removed")}"

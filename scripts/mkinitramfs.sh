#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh KSELFTEST_DIR OUT.cpio.gz
#
# Builds the guest's initramfs: busybox-static, the xen_timer kselftest
# install package (KSELFTEST_DIR, from 'make -C tools/testing/selftests
# TARGETS=xen_timer install', built static), cyclictest from rt-tests and
# coreutils' timeout with the libraries they need, and scripts/guest-init
# as /init.
set -euo pipefail

ksft=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)

die() { echo "mkinitramfs: $*" >&2; exit 1; }
[ -x /bin/busybox ] || die "/bin/busybox missing: run 'make deps' (busybox-static)"
file -L /bin/busybox | grep -q 'statically linked' || die "/bin/busybox is not static: install busybox-static"
[ -x /usr/bin/cyclictest ] || die "/usr/bin/cyclictest missing: run 'make deps' (rt-tests)"
/usr/bin/timeout --foreground 1 true 2>/dev/null || die "/usr/bin/timeout lacks --foreground: install coreutils"
[ -x "$ksft/run_kselftest.sh" ] || die "$ksft has no run_kselftest.sh: not a kselftest install"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,lib64,lib/x86_64-linux-gnu,usr/bin}
cp /bin/busybox "$root/bin/busybox"
for app in $(/bin/busybox --list); do
	[ -e "$root/bin/$app" ] || ln -s busybox "$root/bin/$app"
done
# Dynamic binaries from the host, with the libraries they need.
copy_bin() {
	local lib
	cp "$1" "$root$1"
	for lib in $(ldd "$1" | awk '/=> \//{print $3} /^\t\/lib/{print $1}'); do
		cp -L "$lib" "$root$lib"
	done
}
copy_bin /usr/bin/cyclictest
# run_kselftest.sh enforces the settings file's timeout only with
# /usr/bin/timeout --foreground, which busybox's timeout lacks.
copy_bin /usr/bin/timeout
cp -a "$ksft" "$root/kselftest"
cp "$here/guest-init" "$root/init"
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"

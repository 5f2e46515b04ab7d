#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh KSELFTEST_DIR OUT.cpio.gz
#
# Builds the guest's initramfs: busybox-static, the xen_timer kselftest
# install package (KSELFTEST_DIR, from 'make -C tools/testing/selftests
# TARGETS=xen_timer install', built static), cyclictest from rt-tests and
# coreutils' timeout with the libraries they need, and guest/guest-init
# as /init.
set -euo pipefail

ksft=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)

. "$here/initramfs-lib.sh"
[ -x /usr/bin/cyclictest ] || die "/usr/bin/cyclictest missing: run 'make deps' (rt-tests)"
/usr/bin/timeout --foreground 1 true 2>/dev/null || die "/usr/bin/timeout lacks --foreground: install coreutils"
[ -x "$ksft/run_kselftest.sh" ] || die "$ksft has no run_kselftest.sh: not a kselftest install"

new_root
copy_bin /usr/bin/cyclictest
# run_kselftest.sh enforces the settings file's timeout only with
# /usr/bin/timeout --foreground, which busybox's timeout lacks.
copy_bin /usr/bin/timeout
cp -a "$ksft" "$root/kselftest"
cp "$here/guest-init" "$root/init"
chmod +x "$root/init"
write_cpio "$out"

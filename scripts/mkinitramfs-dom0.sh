#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs-dom0.sh GUEST_KERNEL GUEST_INITRD OUT.cpio.gz [MODULES_DIR]
#
# The initramfs of the PV dom0 that starts the xen_timer guest as a PVH
# domU with xl (scripts/dom0-init): busybox-static, Debian's Xen 4.17
# tools (xen-utils-4.17) with the libraries they load, and the guest's
# kernel and initramfs in /guest.  The same kernel is the dom0: a kernel
# with the dom0 drivers as modules (Debian's) gets them from MODULES_DIR
# (fetch-debian-kernel.sh: the .ko files and their load order).
set -euo pipefail

kernel=$1 guest_initrd=$2 out=$3 moddir=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
xbin=/usr/lib/xen-4.17/bin

. "$here/initramfs-lib.sh"
[ -x $xbin/xl ] || die "$xbin/xl missing: run 'make deps' (xen-utils-4.17)"
for f in "$kernel" "$guest_initrd" ${moddir:+"$moddir/order"}; do
	[ -f "$f" ] || die "$f does not exist"
done

new_root
mkdir -p "$root"/{etc/xen,guest,var}
for b in xl xenstored xenconsoled xenconsole xen-init-dom0 libxl-save-helper xenctx; do
	copy_bin $xbin/$b
done
# glibc loads it when xl's threads are cancelled; without it xl aborts.
cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 "$root/lib/x86_64-linux-gnu/"
cp "$kernel" "$root/guest/kernel"
# xenctx names the domU's vCPU addresses with it when its console stalls.
smap=$(dirname "$kernel")/../../../System.map
[ -f "$smap" ] && cp "$smap" "$root/guest/System.map"
cp "$guest_initrd" "$root/guest/initrd"
if [ -n "$moddir" ]; then
	mkdir -p "$root/lib/xt-modules"
	for m in $(cat "$moddir/order"); do
		cp "$moddir/$m.ko" "$root/lib/xt-modules/"
	done
	cp "$moddir/order" "$root/lib/xt-modules/"
fi
cp "$here/dom0-init" "$root/init"
chmod +x "$root/init"
write_cpio "$out"

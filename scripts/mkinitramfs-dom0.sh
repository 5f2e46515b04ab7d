#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs-dom0.sh [--hvm] GUEST_KERNEL GUEST_INITRD OUT.cpio.gz [MODULES_DIR]
#
# The initramfs of the PV dom0 that starts the xen_timer guest as a PVH
# or HVM domU with xl (scripts/dom0-init): busybox-static, Debian's Xen
# 4.17 tools (xen-utils-4.17) with the libraries they load, and the
# guest's kernel (decompressed: /guest/vmlinux) and initramfs in /guest.  With --hvm also what an HVM
# domU needs: hvmloader, SeaBIOS and the device model (qemu-system-xen's
# QEMU, with its libraries, the option ROM of its -kernel boot and the
# keymap it reads even without a display), 12 MB more compressed.  The
# same kernel is the dom0: a kernel with the dom0 drivers as modules
# (Debian's) gets them from MODULES_DIR (fetch-debian-kernel.sh: the .ko
# files and their load order).
set -euo pipefail

hvm=
[ "${1:-}" = --hvm ] && { hvm=1; shift; }
[ $# -ge 3 ] || { echo "usage: $0 [--hvm] GUEST_KERNEL GUEST_INITRD OUT.cpio.gz [MODULES_DIR]" >&2; exit 1; }
kernel=$1 guest_initrd=$2 out=$3 moddir=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
xbin=/usr/lib/xen-4.17/bin
# The paths libxl of xen-utils-4.17 looks for them at.
dm=/usr/libexec/xen-qemu-system-i386
hvm_files="/usr/lib/xen-4.17/boot/hvmloader /usr/share/seabios/bios-256k.bin
	/usr/share/qemu/linuxboot_dma.bin /usr/share/qemu/linuxboot.bin
	/usr/share/qemu/keymaps/en-us"

. "$here/initramfs-lib.sh"
[ -x $xbin/xl ] || die "$xbin/xl missing: run 'make deps' (xen-utils-4.17)"
if [ -n "$hvm" ]; then
	[ -x $dm ] || die "$dm missing: run 'make deps' (qemu-system-xen)"
	for f in $hvm_files; do
		[ -f "$f" ] || die "$f missing: run 'make deps'"
	done
fi
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
if [ -n "$hvm" ]; then
	copy_bin $dm
	for f in $hvm_files; do
		mkdir -p "$root$(dirname "$f")"
		cp "$f" "$root$f"
	done
fi
# PV and PVH domUs boot the ELF kernel, an HVM one the bzImage (QEMU's
# -kernel boot in the device model).
vmlinux_of "$kernel" "$root/guest/vmlinux"
[ -n "$hvm" ] && cp "$kernel" "$root/guest/kernel"
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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs-dom0.sh [--hvm] [--xen-root ROOT] GUEST_KERNEL GUEST_INITRD OUT.cpio.gz [MODULES_DIR]
#
# The initramfs of the PV dom0 that starts the xen_timer guest as a PV,
# PVH or HVM domU with xl (guest/dom0-init): busybox-static, Xen's
# tools with the libraries they load, and the guest's kernel
# (decompressed: /guest/vmlinux) and initramfs in /guest.  The tools are
# the host's (Debian 12: xen-utils-4.17), or with --xen-root those of
# the Debian 13 root of scripts/platform-root.sh (xen-utils-4.20, with
# that root's libc and loader): the toolstack must be the hypervisor's
# version.  With --hvm also what an HVM domU needs: hvmloader, SeaBIOS
# and the device model (qemu-system-xen's QEMU, with its libraries, the
# option ROM of its -kernel boot and the keymap it reads even without a
# display), 12 MB more compressed.  The same kernel is the dom0: a kernel
# with the dom0 drivers as modules (Debian's) gets them from MODULES_DIR
# (fetch-debian-kernel.sh: the .ko files and their load order).
set -euo pipefail

hvm='' sys=''
while [ $# -gt 0 ]; do
	case $1 in
	--hvm) hvm=1; shift ;;
	--xen-root) sys=$(cd "${2:?--xen-root needs a directory}" && pwd); shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 3 ] || { echo "usage: $0 [--hvm] [--xen-root ROOT] GUEST_KERNEL GUEST_INITRD OUT.cpio.gz [MODULES_DIR]" >&2; exit 1; }
kernel=$1 guest_initrd=$2 out=$3 moddir=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
# The one Xen toolstack of the root (dom0-init puts it in PATH).
xbin=$(ls -d "$sys"/usr/lib/xen-*/bin 2>/dev/null | head -1)
xbin=${xbin#"$sys"}
# The paths libxl looks for them at.
dm=/usr/libexec/xen-qemu-system-i386
hvm_files="${xbin%/bin}/boot/hvmloader /usr/share/seabios/bios-256k.bin
	/usr/share/qemu/linuxboot_dma.bin /usr/share/qemu/keymaps/en-us"
# QEMU 7.2's device model may take this ROM instead; QEMU 11.1 has none.
hvm_optional=/usr/share/qemu/linuxboot.bin

. "$here/initramfs-lib.sh"
[ -n "$xbin" ] && [ -x "$sys$xbin/xl" ] ||
	die "${sys:-the host}: no /usr/lib/xen-*/bin/xl: run 'make deps' (xen-utils)"
if [ -n "$hvm" ]; then
	[ -x "$sys$dm" ] || die "$sys$dm missing: run 'make deps' (qemu-system-xen)"
	for f in $hvm_files; do
		[ -f "$sys$f" ] || die "$sys$f missing: run 'make deps'"
	done
fi
for f in "$kernel" "$guest_initrd" ${moddir:+"$moddir/order"}; do
	[ -f "$f" ] || die "$f does not exist"
done

new_root
mkdir -p "$root"/{etc/xen,guest,var}
for b in xl xenstored xenconsoled xenconsole xen-init-dom0 libxl-save-helper xenctx; do
	copy_bin "$xbin/$b" "$sys"
done
# glibc loads it when xl's threads are cancelled; without it xl aborts.
cp -L "$sys/lib/x86_64-linux-gnu/libgcc_s.so.1" "$root/lib/x86_64-linux-gnu/"
if [ -n "$hvm" ]; then
	copy_bin $dm "$sys"
	for f in $hvm_files; do
		mkdir -p "$root$(dirname "$f")"
		cp "$sys$f" "$root$f"
	done
	[ -f "$sys$hvm_optional" ] && cp "$sys$hvm_optional" "$root$hvm_optional"
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

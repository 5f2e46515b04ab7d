#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# platform-root.sh ROOT: a Debian 13 root under build/ with Xen 4.20 (the
# hypervisor and xen-utils-4.20) and QEMU 11.1 (qemu-system-x86 and the
# device model qemu-system-xen, from trixie-backports), made once with
# mmdebstrap from the Debian archive this machine's apt uses.  Nothing
# of the machine changes: the harness runs QEMU through the root's own
# loader (scripts/tcg/qemu-root), and guest/mkinitramfs-dom0.sh copies
# dom0's toolstack from it with the root's libraries.
#
# Done when ROOT/.xt-root-done names the same packages; otherwise made
# again in ROOT.tmp and moved into place, so an interrupted run leaves
# nothing half made.  Root only (mmdebstrap's root mode).
set -euo pipefail

[ $# = 1 ] || { echo "usage: $0 ROOT" >&2; exit 2; }
root=$1
# From trixie-backports (QEMU 11.1: one qemu-system-common for both).
bpo="qemu-system-x86 qemu-system-xen qemu-system-data seabios ipxe-qemu"
# From trixie.
main="xen-hypervisor-4.20-amd64 xen-utils-4.20 ovmf libgcc-s1"
want="trixie: $main; trixie-backports: $bpo"
done_file=$root/.xt-root-done
[ -f "$done_file" ] && [ "$(cat "$done_file")" = "$want" ] && exit 0

[ "$(id -u)" = 0 ] || { echo "platform-root: making the Debian 13 root needs root (mmdebstrap); run: sudo $0 $root" >&2; exit 1; }
command -v mmdebstrap >/dev/null || {
	echo "platform-root: installing mmdebstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
}
# The archive this machine's bookworm comes from (as apt-suites.sh).
uri=$( (cat /etc/apt/sources.list.d/*.sources 2>/dev/null || true) |
	awk '/^URIs:/ {u = $2} /^Suites:/ && / bookworm( |$)/ {print u; exit}')
[ -n "$uri" ] || uri=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$uri" ] || uri=http://deb.debian.org/debian

tmp=$root.tmp
rm -rf "$tmp"
mkdir -p "$(dirname "$root")"
start=$(date +%s)
echo "platform-root: [1/2] Debian 13 base and Xen 4.20 into $tmp (from $uri)"
pkgs=$(echo "$main" | tr ' ' ,)
mmdebstrap --variant=apt --mode=root --include="$pkgs" \
	--customize-hook='chroot "$1" apt-get install -y -qq --no-install-recommends -t trixie-backports '"$bpo"' >/dev/null' \
	--skip=cleanup/apt/lists \
	trixie "$tmp" "deb $uri trixie main" "deb $uri trixie-backports main" \
	2> >(grep -E '^(E:|W: .*(fail|error))' >&2 || true) >/dev/null
echo "platform-root: [2/2] checking what the harness takes from it"
for f in usr/bin/qemu-system-x86_64 usr/lib/xen-4.20/bin/xl usr/libexec/xen-qemu-system-i386 \
	usr/lib/xen-4.20/boot/hvmloader usr/share/seabios/bios-256k.bin usr/share/ovmf/OVMF.fd; do
	[ -e "$tmp/$f" ] || { echo "platform-root: $f missing from the root made in $tmp" >&2; exit 1; }
done
ls "$tmp"/boot/xen-4.20*-amd64.gz >/dev/null 2>&1 ||
	{ echo "platform-root: no boot/xen-4.20*-amd64.gz in $tmp" >&2; exit 1; }
# QEMU as the harness and LAVA's dispatcher call it, first in PATH: the
# root's binary through the root's loader, its firmware and modules.
mkdir -p "$tmp/xt-bin"
cat >"$tmp/xt-bin/qemu-system-x86_64" <<'WRAP'
#!/bin/sh
# platform-root.sh: the Debian 13 root's QEMU, run through its own loader.
r=$(cd "$(dirname "$0")/.." && pwd)
QEMU_MODULE_DIR=$r/usr/lib/x86_64-linux-gnu/qemu exec "$r/lib64/ld-linux-x86-64.so.2" \
	--library-path "$r/lib/x86_64-linux-gnu:$r/usr/lib/x86_64-linux-gnu" \
	"$r/usr/bin/qemu-system-x86_64" -L "$r/usr/share/qemu" -L "$r/usr/share/seabios" "$@"
WRAP
chmod +x "$tmp/xt-bin/qemu-system-x86_64"
"$tmp/xt-bin/qemu-system-x86_64" --version | awk 'NR == 1 && /version 11/ { ok = 1 } END { exit !ok }' ||
	{ echo "platform-root: the root's QEMU does not run: $("$tmp/xt-bin/qemu-system-x86_64" --version 2>&1 | head -1)" >&2; exit 1; }
echo "$want" >"$tmp/.xt-root-done"
rm -rf "$root"
mv "$tmp" "$root"
echo "platform-root: $root ready in $(( $(date +%s) - start )) s ($(du -sh "$root" | cut -f1)):" \
	"Xen $(zcat "$root"/usr/share/doc/xen-hypervisor-4.20-amd64/changelog.Debian.gz | head -1 | grep -o '([^)]*)')," \
	"QEMU $("$root/xt-bin/qemu-system-x86_64" --version | head -1 | awk '{print $4}')"

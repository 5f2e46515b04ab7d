#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [KVER|-]: install what the suite needs from Debian's archive,
# with Debian's linux-source-KVER (6.12 when not given; - for none: the
# kernel tree is yours), or, when not root, say which apt-get command to
# run.  Quiet when all is there.
set -euo pipefail

# command-or-file  package
need=(
	"gcc gcc" "make make" "flex flex" "bison bison" "bc bc" "perl perl"
	"python3 python3" "cpio cpio" "xz xz-utils" "patch patch" "git git"
	"file file" "rsync rsync" "ccache ccache" "gnuplot gnuplot-nox" "clang clang"
	"qemu-system-x86_64 qemu-system-x86" "cyclictest rt-tests" "stress-ng stress-ng"
	"/usr/include/libelf.h libelf-dev" "/usr/include/openssl/ssl.h libssl-dev"
	"/boot/xen-4.17-amd64.gz xen-hypervisor-4.17-amd64"
	"/usr/share/qemu/qboot.rom qemu-system-data"
	"/usr/lib/xen-4.17/bin/xl xen-utils-4.17"
	"/usr/libexec/xen-qemu-system-i386 qemu-system-xen" "/usr/share/seabios/bios-256k.bin seabios"
	"/usr/share/ovmf/OVMF.fd ovmf"
	"/usr/lib/python3/dist-packages/ply/__init__.py python3-ply"
	"/usr/lib/python3/dist-packages/git/__init__.py python3-git"
	"/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a libclang-rt-14-dev"
)

kver=${1:-6.12}
case $kver in
-) ;;
6.1 | 6.12) need+=("/usr/src/linux-source-$kver.tar.xz linux-source-$kver") ;;
*) echo "deps: Debian has no linux-source-$kver here (6.12 or 6.1); give KDIR= a tree" >&2; exit 1 ;;
esac

missing=()
for n in "${need[@]}"; do
	what=${n% *}
	pkg=${n#* }
	if [[ $what == /* ]]; then
		[ -e "$what" ] && continue
	else
		command -v "$what" >/dev/null 2>&1 && continue
	fi
	missing+=("$pkg")
done
# busybox must be the static one: it runs in the guest.
if ! { [ -x /bin/busybox ] && file -L /bin/busybox | grep -q 'statically linked'; }; then
	missing+=(busybox-static)
fi

[ ${#missing[@]} = 0 ] && exit 0
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages; run as root: apt-get update && $cmd" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

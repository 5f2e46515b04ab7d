#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [KVER...|-]: install what the suite needs from Debian's archive,
# with Debian's linux-source-KVER of each KVER (7.3 when not given; - for
# none: the kernel tree is yours), or, when not root, say which apt-get
# command to run.  Quiet when all is there.
#
# Linux 7.3 is in Debian's trixie-backports suite, not in bookworm: the
# suite is added to apt's sources (the archive this machine already uses)
# with pin priority 1, so that it gives the packages named from it and
# never upgrades anything (apt-get install PKG/trixie-backports).
set -euo pipefail

# command, file or pkg:package, and the package that gives it
need=(
	"gcc gcc" "make make" "flex flex" "bison bison" "bc bc" "perl perl"
	"python3 python3" "cpio cpio" "xz xz-utils" "zstd zstd" "patch patch" "git git"
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
	"mypy mypy" "pkg:libclang-rt-dev libclang-rt-dev"
	# LAVA: lava-run runs make check's LAVA job here (lava_common checks
	# every job's schema)
	"lava-run lava-dispatcher"
	# lkft-check: tappy, a TAP consumer, reads every selftest stream
	"/usr/lib/python3/dist-packages/tap/__init__.py python3-tap"
	# make series-arches: the cross compilers the 0-day bot would use
	"aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu" "i686-linux-gnu-gcc gcc-i686-linux-gnu"
	"m68k-linux-gnu-gcc gcc-m68k-linux-gnu"
)

for kver in "${@:-7.3}"; do
	case $kver in
	-) ;;
	6.1 | 6.12) need+=("/usr/src/linux-source-$kver.tar.xz linux-source-$kver") ;;
	7.3) need+=("/usr/src/linux-source-$kver.tar.xz linux-source-$kver/trixie-backports") ;;
	*) echo "deps: Debian has no linux-source-$kver here (7.3, 6.12 or 6.1); give KDIR= a tree" >&2; exit 1 ;;
	esac
done

missing=()
for n in "${need[@]}"; do
	what=${n% *}
	pkg=${n#* }
	if [[ $what == pkg:* ]]; then
		# A package whose files have no fixed path (libFuzzer's runtime
		# lives under the version of clang).
		[ "$(dpkg-query -W -f '${db:Status-Status}' "${what#pkg:}" 2>/dev/null)" = installed ] &&
			continue
	elif [[ $what == /* ]]; then
		[ -e "$what" ] && continue
	else
		command -v "$what" >/dev/null 2>&1 && continue
	fi
	missing+=("$pkg")
done
# busybox must be the static one: it runs in the guest.
if ! { [ -x /bin/busybox ] && file -L /bin/busybox | grep 'statically linked' >/dev/null; }; then
	missing+=(busybox-static)
fi

[ ${#missing[@]} = 0 ] && exit 0
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
suites=
how=
case " ${missing[*]}" in
*"/trixie-backports"*)
	suites=1
	how=" $0 (it adds Debian's trixie-backports suite at pin priority 1), or"
	;;
esac
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages; run as root:$how apt-get update && $cmd" >&2
	exit 1
fi
[ -n "$suites" ] && "$(dirname "$0")/apt-suites.sh"
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

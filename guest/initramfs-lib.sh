# SPDX-License-Identifier: GPL-2.0
#
# Sourced by mkinitramfs.sh and mkinitramfs-dom0.sh: a root in $root with
# busybox-static, host binaries with their libraries, and the cpio.

die() { echo "$(basename "$0" .sh): $*" >&2; exit 1; }

# new_root: $root, a temporary tree with busybox and its applets.
new_root() {
	[ -x /bin/busybox ] && file -L /bin/busybox | grep 'statically linked' >/dev/null ||
		die "/bin/busybox missing or not static: run 'make deps' (busybox-static)"
	root=$(mktemp -d)
	trap 'rm -rf "$root"' EXIT
	mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,lib64,lib/x86_64-linux-gnu,usr/bin}
	cp /bin/busybox "$root/bin/busybox"
	for app in $(/bin/busybox --list); do
		[ -e "$root/bin/$app" ] || ln -s busybox "$root/bin/$app"
	done
}

# copy_bin PATH [SYSROOT]: a dynamic binary with the libraries it needs,
# from the host, or from the root SYSROOT (platform-root.sh's Debian 13,
# whose libc the host's may not run): its own loader lists them there.
copy_bin() {
	local sys=${2:-} lib list
	mkdir -p "$root$(dirname "$1")"
	cp "$sys$1" "$root$1"
	if [ -n "$sys" ]; then
		list=$("$sys/lib64/ld-linux-x86-64.so.2" --library-path \
			"$sys/lib/x86_64-linux-gnu:$sys/usr/lib/x86_64-linux-gnu" --list "$sys$1")
	else
		list=$(ldd "$1")
	fi
	for lib in $(echo "$list" | awk '/=> \//{print $3; next} /^\t\/lib/{print $1}'); do
		mkdir -p "$root$(dirname "${lib#"$sys"}")"
		cp -L "$lib" "$root${lib#"$sys"}"
	done
}

# write_cpio OUT: $root as a gzipped newc archive, replaced atomically.
write_cpio() {
	(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$1.tmp"
	mv "$1.tmp" "$1"
}

# vmlinux_of BZIMAGE OUT: the ELF kernel inside a bzImage, decompressed.
# xl's domain builder otherwise decompresses a PV or PVH domU's kernel in
# dom0 for every domU, seconds of emulated CPU each.  The payload is where
# the boot protocol's header (2.08+) says; the decompressors may complain
# of the size the kernel appends to it, so the result is checked instead.
vmlinux_of() {
	local setup off len magic
	setup=$(od -An -tu1 -j $((0x1f1)) -N1 "$1" | tr -d ' ')
	[ "$setup" = 0 ] && setup=4
	off=$(od -An -tu4 -j $((0x248)) -N4 "$1" | tr -d ' ')
	len=$(od -An -tu4 -j $((0x24c)) -N4 "$1" | tr -d ' ')
	magic=$(od -An -tx1 -j $(((setup + 1) * 512 + off)) -N4 "$1" | tr -d ' ')
	tail -c +$(((setup + 1) * 512 + off + 1)) "$1" | head -c "$len" |
		case $magic in
		1f8b*) gzip -dc 2>/dev/null ;;
		fd377a58) xz -dc 2>/dev/null ;;
		28b52ffd) zstd -dcq 2>/dev/null ;;
		*) die "$1: a kernel payload this script cannot decompress (magic $magic)" ;;
		esac >"$2" || true
	[ "$(od -An -tx1 -N4 "$2" | tr -d ' ')" = 7f454c46 ] ||
		die "$1: no ELF kernel in its payload (magic $magic)"
}

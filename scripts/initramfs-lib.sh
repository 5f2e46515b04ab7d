# SPDX-License-Identifier: GPL-2.0
#
# Sourced by mkinitramfs.sh and mkinitramfs-dom0.sh: a root in $root with
# busybox-static, host binaries with their libraries, and the cpio.

die() { echo "$(basename "$0" .sh): $*" >&2; exit 1; }

# new_root: $root, a temporary tree with busybox and its applets.
new_root() {
	[ -x /bin/busybox ] && file -L /bin/busybox | grep -q 'statically linked' ||
		die "/bin/busybox missing or not static: run 'make deps' (busybox-static)"
	root=$(mktemp -d)
	trap 'rm -rf "$root"' EXIT
	mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,lib64,lib/x86_64-linux-gnu,usr/bin}
	cp /bin/busybox "$root/bin/busybox"
	for app in $(/bin/busybox --list); do
		[ -e "$root/bin/$app" ] || ln -s busybox "$root/bin/$app"
	done
}

# copy_bin PATH: a dynamic binary from the host, with the libraries it needs.
copy_bin() {
	local lib
	mkdir -p "$root$(dirname "$1")"
	cp "$1" "$root$1"
	for lib in $(ldd "$1" | awk '/=> \//{print $3} /^\t\/lib/{print $1}'); do
		cp -L "$lib" "$root$lib"
	done
}

# write_cpio OUT: $root as a gzipped newc archive, replaced atomically.
write_cpio() {
	(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$1.tmp"
	mv "$1.tmp" "$1"
}

# SPDX-License-Identifier: GPL-2.0
"""The platforms a guest boots on: Xen and the QEMU that runs it, each
from a Debian release's packages.  Debian 12's are the machine's own
(make deps installs them); Debian 13's live in a root under build/ that
scripts/platform-root.sh makes once with mmdebstrap (the machine is not
upgraded): Xen 4.20 from trixie, QEMU 11.1 from trixie-backports, run
through the root's loader (ROOT/xt-bin/qemu-system-x86_64).

The Xen version is the run's axis (XENS=, as KVERS= is the kernel's);
QEMU= runs every Xen under one QEMU instead of its own Debian's, to tell
a Xen's fault from a QEMU's.
"""

from __future__ import annotations

import dataclasses
import os
import struct


@dataclasses.dataclass(frozen=True)
class Platform:
    """One Xen, the Debian release it comes from and that release's QEMU.
    root: the directory under the platform dir that holds it, '' for the
    machine itself."""
    xen: str
    qemu: str
    debian: str
    root: str

    def path(self, platform_dir: str, path: str) -> str:
        """path (absolute, as Debian installs it) in this platform's root."""
        if not self.root:
            return path
        return os.path.join(platform_dir, self.root, path.lstrip('/'))

    @property
    def xen_gz(self) -> str:
        return f'/boot/xen-{self.xen}-amd64.gz'

    @property
    def xen_efi(self) -> str:
        return f'/boot/xen-{self.xen}-amd64.efi'


# The root scripts/platform-root.sh makes, under the platform dir.
DEB13_ROOT = 'deb13'
PLATFORMS = {
    '4.17': Platform(xen='4.17', qemu='7.2', debian='Debian 12', root=''),
    '4.20': Platform(xen='4.20', qemu='11.1', debian='Debian 13', root=DEB13_ROOT),
}
# Each QEMU, by the root it comes from.
QEMUS = {p.qemu: p for p in PLATFORMS.values()}
# QEMU=own: each Xen under its own Debian's QEMU.
OWN_QEMU = 'own'
OVMF = '/usr/share/ovmf/OVMF.fd'


def qemu_of(xen: str, qemu: str) -> Platform:
    """The platform whose QEMU runs Xen xen under QEMU=qemu."""
    return PLATFORMS[xen] if qemu == OWN_QEMU else QEMUS[qemu]


def qemu_binary(xen: str, qemu: str, platform_dir: str) -> str:
    """The qemu-system-x86_64 to run: the machine's (found in PATH) or a
    root's wrapper."""
    p = qemu_of(xen, qemu)
    if not p.root:
        return 'qemu-system-x86_64'
    return os.path.join(platform_dir, p.root, 'xt-bin', 'qemu-system-x86_64')


def describe(xen: str, qemu: str) -> str:
    """'Xen 4.20 (Debian 13), QEMU 11.1 (Debian 13)', as reports and
    INFRA reasons name the platform."""
    x, q = PLATFORMS[xen], qemu_of(xen, qemu)
    return f'Xen {x.xen} ({x.debian}), QEMU {q.qemu} ({q.debian})'


def roots_needed(xens: tuple[str, ...], qemu: str) -> tuple[str, ...]:
    """The roots a run needs made (platform-root.sh)."""
    out = {PLATFORMS[x].root for x in xens} | {qemu_of(x, qemu).root for x in xens}
    return tuple(sorted(r for r in out if r))


class PlatformError(Exception):
    """A Xen binary the harness cannot read what it needs from."""


# Xen x86's link address: the hypervisor runs at XEN_VIRT_START + 2 MB,
# and its multiboot ELF (xen-VERSION-amd64.gz, unpacked) loads that image
# at 2 MB physical, one segment.
_XEN_VIRT_IMAGE = 0xffff82d040200000
# struct kernel_param (xen/include/xen/param.h): name, type, len, par.
_KPARAM = struct.Struct('<QIIQ')
_OPT_UINT = 1


def timer_slop_default(elf: str) -> int:
    """Xen's timer_slop default, ns, as the binary that boots holds it:
    the variable integer_param("timer_slop", timer_slop) points at, read
    through that parameter's struct kernel_param (xen/common/timer.c;
    the binary is stripped, its parameter table is not)."""
    try:
        with open(elf, 'rb') as f:
            data = f.read()
    except OSError as e:
        raise PlatformError(f'{elf}: {e.strerror}') from None
    if data[:4] != b'\x7fELF' or data[4] != 1:
        raise PlatformError(f'{elf}: not a 32-bit ELF (an unpacked xen-*-amd64.gz)')
    if len(data) < 0x54:
        raise PlatformError(f'{elf}: too short for an ELF with a program header')
    phoff: int = struct.unpack_from('<I', data, 28)[0]
    off: int
    paddr: int
    filesz: int
    _, off, _, paddr, filesz = struct.unpack_from('<5I', data, min(phoff, len(data) - 20))

    def file_offset(va: int) -> int:
        o: int = va - _XEN_VIRT_IMAGE - (paddr - 0x200000) + off
        if not off <= o <= min(off + filesz, len(data)) - 4:
            raise PlatformError(f'{elf}: address {va:#x} is not in its image')
        return o

    name = data.find(b'\0timer_slop\0')
    if name < 0:
        raise PlatformError(f'{elf}: no timer_slop parameter')
    ptr = struct.pack('<Q', _XEN_VIRT_IMAGE + (paddr - 0x200000) + name + 1 - off)
    at = data.find(ptr)
    while 0 <= at <= len(data) - _KPARAM.size:
        _, kind, size, var = _KPARAM.unpack_from(data, at)
        if kind == _OPT_UINT and size == 4 and at % 8 == off % 8:
            return int(struct.unpack_from('<I', data, file_offset(var))[0])
        at = data.find(ptr, at + 1)
    raise PlatformError(f'{elf}: no integer parameter named timer_slop')

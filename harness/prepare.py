# SPDX-License-Identifier: GPL-2.0
"""What a run boots, made before it: the platform roots, each Xen's ELF,
each Xen's dom0 initramfs (prepare, the Makefile's step).

Which of them a make target needs follows from its profile's settings
(XENS, QEMU, GUEST_TYPES) and what the user set: the Debian 13 root
(scripts/platform-root.sh) when a Xen or the QEMU lives there; each Xen's
ELF, gunzipped from its Debian package's xen-V-amd64.gz; and where a
guest type is a domU, dom0's initramfs with that Xen's toolstack
(guest/mkinitramfs-dom0.sh, --hvm for an HVM domU's device model).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import typing
import zlib

from . import boot, platforms, request, settings
from .model import die

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def values(profiles: list[str], assign: list[str]) -> list[dict[str, object]]:
    """The typed settings of each profile, with what the user set."""
    table = request.SETTINGS
    out = []
    for p in profiles:
        if p not in settings.PROFILES:
            die(f'prepare: no profile "{p}"')
        text = request.setting_texts(table, p, assign, {})
        out.append({s.key: s.parse(text[s.key]) for s in table})
    return out


def run(cmd: list[str]) -> None:
    if subprocess.run(cmd).returncode:
        die(f'prepare: {os.path.relpath(cmd[0], TOP)} failed')


def roots(vals: list[dict[str, object]], platform_dir: str) -> None:
    """The Debian 13 root, where a Xen or the QEMU of a profile is its."""
    need: set[str] = set()
    for v in vals:
        need.update(platforms.roots_needed(typing.cast(tuple[str, ...], v['xens']),
                                           typing.cast(str, v['qemu'])))
    for root in sorted(need):
        run([os.path.join(TOP, 'scripts', 'platform-root.sh'), os.path.join(platform_dir, root)])


def xen_elfs(xens: list[str], platform_dir: str, xen_dir: str) -> None:
    """Each Xen's ELF, made again when its package's image is newer."""
    os.makedirs(xen_dir, exist_ok=True)
    for x in xens:
        plat = platforms.PLATFORMS[x]
        gz, elf = plat.path(platform_dir, plat.xen_gz), os.path.join(xen_dir, f'xen-{x}.elf')
        if os.path.exists(elf) and os.path.getmtime(elf) > os.path.getmtime(gz):
            continue
        with open(gz, 'rb') as f:
            data = zlib.decompress(f.read(), 16 + zlib.MAX_WBITS)
        with open(elf + '.tmp', 'wb') as f:
            f.write(data)
        os.replace(elf + '.tmp', elf)


def dom0_initrds(v: dict[str, object], platform_dir: str, kernel: str, initrd: str,
                 out: str, modules: str) -> None:
    """dom0's initramfs for each Xen of the profile, when a guest type
    is a domU; out has {xen} for the version."""
    types = typing.cast(tuple[str, ...], v['guest_types'])
    if not any(boot.GUEST_TYPES[t].domu for t in types):
        return
    for x in typing.cast(tuple[str, ...], v['xens']):
        root = platforms.PLATFORMS[x].root
        cmd = [os.path.join(TOP, 'guest', 'mkinitramfs-dom0.sh'),
               *(['--hvm'] if 'hvm' in types else []),
               *(['--xen-root', os.path.join(platform_dir, root)] if root else []),
               kernel, initrd, out.replace('{xen}', x), *([modules] if modules else [])]
        run(cmd)
        print(f'== dom0 initramfs {out.replace("{xen}", x)}{" --hvm" if "hvm" in types else ""}')


def command(ns: argparse.Namespace) -> int:
    vals = values(ns.profile or ['make'], ns.assign)
    roots(vals, ns.platform_dir)
    if ns.xen_dir:
        xen_elfs(sorted({x for v in vals for x in typing.cast(tuple[str, ...], v['xens'])}),
                 ns.platform_dir, ns.xen_dir)
    if ns.dom0:
        if len(ns.dom0) not in (3, 4):
            die('prepare --dom0 KERNEL INITRD OUT [MODULES]')
        kernel, initrd, out, *mods = ns.dom0
        for f in (kernel, initrd):
            if not os.path.isfile(f):
                die(f'prepare: {f} does not exist')
        dom0_initrds(vals[0], ns.platform_dir, kernel, initrd, out, mods[0] if mods else '')
    return 0


def add(p: argparse.ArgumentParser) -> None:
    p.add_argument('--profile', action='append', choices=tuple(settings.PROFILES),
                   help='a make target\'s profile (repeat it: the roots and Xens of each)')
    p.add_argument('--platform-dir', required=True, help='where the Debian 13 root goes')
    p.add_argument('--xen-dir', default='', help='make each Xen\'s ELF here (xen-V.elf)')
    p.add_argument('--dom0', nargs='+', metavar='KERNEL INITRD OUT [MODULES]',
                   help="dom0's initramfs of the first profile's Xens, OUT with {xen}")
    p.add_argument('assign', nargs='*', metavar='VAR=VALUE')
    p.set_defaults(func=command)


# SPDX-License-Identifier: GPL-2.0
"""The misses command (make misses): each kernel of scripts/mutant.sh, a
xen_timer_slop= broken on purpose, built, its dom0 initramfs made
(guest/mkinitramfs-dom0.sh), and booted as repeat --expect-flagged at
the slop its breakage shows at: the suite must flag every boot of every
mutant.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import typing

from . import boot, model, platforms, request, run
from .model import die
from .request import SETTINGS, XEN_FIELD, KernelSet, Request

# The repository's scripts/ (mutant.sh) and guest/ (mkinitramfs-dom0.sh).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(ROOT, 'scripts')
GUEST = os.path.join(ROOT, 'guest')
MUTANT_SH = os.path.join(SCRIPTS, 'mutant.sh')


def mutant_files(bdir: str, mutant: str) -> tuple[str, str]:
    """A mutant's kernel and the dom0 initramfs that starts it, below
    bdir (misses --build-dir)."""
    return (os.path.join(bdir, f'mutant-{mutant}', 'arch/x86/boot/bzImage'),
            os.path.join(bdir, f'initramfs-dom0-mutant-xen{XEN_FIELD}.cpio.gz'))


def kernel_sets(ns: argparse.Namespace) -> tuple[KernelSet, ...]:
    """The guest kernel of a misses command line, as request.kernel_sets
    gives a run's: each mutant's, built when it comes (misses), its names
    checked against scripts/mutant.sh first."""
    ns.kernel, ns.dom0_initrd = mutant_files(ns.build_dir, '')
    ns.kernel_set = []
    for m in ns.mutants.split():
        if subprocess.run([MUTANT_SH, 'slop', m], capture_output=True).returncode:
            die(f'--mutants: "{m}" is not a mutant of scripts/mutant.sh')
    return request.kernel_sets(ns)


def mutant_slop(mutant: str) -> int | None:
    """The guest slop a mutant's breakage shows at (scripts/mutant.sh slop
    NAME), read as GUEST_SLOPS reads a value: None for "default"."""
    text = subprocess.run([MUTANT_SH, 'slop', mutant], capture_output=True, text=True,
                          check=True).stdout
    setting = next(s for s in SETTINGS if s.key == 'guest_slops')
    slops = typing.cast(tuple[int | None, ...], setting.parse(text))
    if len(slops) != 1:
        die(f'scripts/mutant.sh slop {mutant}: "{text.strip()}" is not one slop')
    return slops[0]


def misses(args: Request) -> int:
    """Each mutant built (scripts/mutant.sh), its dom0 initramfs made, and
    booted as repeat --expect-flagged at the slop its breakage shows at;
    stops at the first mutant that was not flagged every time."""
    kdir, bdir, config, kcc, jobs = args.mutant_build
    for n, m in enumerate(args.mutants, 1):
        slop = mutant_slop(m)
        kernel, dom0_initrd = mutant_files(bdir, m)
        print(f'== misses: mutant {m} ({n} of {len(args.mutants)}), '
              f'xen_timer_slop={"default" if slop is None else slop}, '
              f'{args.runs} boots as each of {" ".join(args.guest_types)}', flush=True)
        steps = [[MUTANT_SH, kdir, os.path.join(bdir, f'mutant-{m}'), m, config, kcc, jobs]]
        for xv in (args.xens if any(boot.GUEST_TYPES[t].domu for t in args.guest_types)
                   else ()):
            root = platforms.PLATFORMS[xv].root
            steps.append([os.path.join(GUEST, 'mkinitramfs-dom0.sh'),
                          *(['--hvm'] if 'hvm' in args.guest_types else []),
                          *(['--xen-root', os.path.join(args.platform_dir, root)] if root else []),
                          kernel, args.initrd, dom0_initrd.replace(XEN_FIELD, xv)])
        for step in steps:
            if subprocess.run(step).returncode:
                print(f'harness: misses: {os.path.basename(step[0])} failed for mutant {m}',
                      file=sys.stderr)
                return model.EXIT_FAIL
        rc = run.run(dataclasses.replace(args, cmd='repeat', expect_flagged=True,
                                         kernels=(KernelSet('', kernel, dom0_initrd),),
                                         guest_slops=(slop,),
                                         name=f'{args.name}-{m}'))
        if rc:
            return rc
    return model.EXIT_PASS

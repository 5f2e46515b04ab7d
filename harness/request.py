# SPDX-License-Identifier: GPL-2.0
"""What one run was asked to do: the Request, built once from the parsed
command line, every file and setting checked (one line and exit 2 for
the first that is wrong).

SETTINGS is the settings table (settings.py) with this harness's guest
types (boot.GUEST_TYPES) and platforms (platforms.py); KernelSet is one
guest kernel of the run's kernel axis.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
import typing
from typing import Callable

from . import boot, console, platforms, settings
from .model import CheckSettings, GuestSettings, die

SETTINGS = settings.settings(tuple(boot.GUEST_TYPES), tuple(platforms.PLATFORMS),
                             (platforms.OWN_QEMU, *platforms.QEMUS))


# In a file option's path: the Xen version's file (a Xen ELF, a dom0
# initramfs with that Xen's toolstack).
XEN_FIELD = "{xen}"


@dataclasses.dataclass(frozen=True)
class KernelSet:
    """One guest kernel of the run: its version (the configs' lead, ''
    with one kernel), the kernel, the dom0 initramfs that starts it as a
    domU (it holds the kernel), and the kernel of that dom0 ('' the same;
    another for a kernel that cannot be its own dom0, as PREEMPT_RT's)."""
    version: str
    kernel: str
    dom0_initrd: str
    dom0_kernel: str = ''

    def boots(self, domu: bool) -> str:
        """What Xen boots as dom0 for a domU type (domu) or a dom0 type."""
        return (self.dom0_kernel or self.kernel) if domu else self.kernel


@dataclasses.dataclass(frozen=True)
class Request:
    """What one run was asked to do, built once from the command line:
    the settings of SETTINGS (typed) and the files.  guest holds what
    the guest's command line is made of, check how a console is judged
    (INTERVALS and SPIKE_US among it: the reports read them there)."""
    cmd: str
    name: str
    out: str
    # Xen's ELF, and the dom0 initramfs of each kernel below, with
    # XEN_FIELD for the Xen version.
    xen: str
    initrd: str
    # The kernel axis, one KernelSet per guest kernel.
    kernels: tuple[KernelSet, ...]
    # The Xen axis (platforms.py): its versions, the QEMU that runs them,
    # where platform-root.sh made the Debian 13 root.
    xens: tuple[str, ...]
    qemu: str
    platform_dir: str
    guest_types: tuple[str, ...]
    xen_slops: tuple[int | None, ...]
    guest_slops: tuple[int | None, ...]
    default_config: bool
    samples: int
    vcpus: int
    memory: int
    timeout: int
    retries: int
    accel: str
    taskset: str
    runs: int
    host_load: str
    params_file: str
    expect_flagged: bool
    guest: GuestSettings
    check: CheckSettings
    # dom0's xt_domu_*= (VCPUS, MEMORY).
    domu_params: tuple[str, ...]
    # misses: the mutants, and (KDIR, BUILD_DIR, CONFIG, CC, JOBS) to
    # build them with.
    mutants: tuple[str, ...] = ()
    mutant_build: tuple[str, str, str, str, str] = ('', '', '', '', '')
    # lava: where a lab fetches the images; merge: the jobs' logs, and a
    # run's JSON whose verdicts they must equal.
    base_url: str = ''
    logs: str = ''
    compare: str = ''
    # lab: the LAVA server, and the file of its user's API token.
    lava_url: str = ''
    lava_token_file: str = ''
    # Each Xen's timer_slop default, ns, read from its binary.
    xen_slop_defaults: tuple[int, ...] = ()

    @property
    def repeat(self) -> int:
        return self.runs if self.cmd in settings.REPEAT else 1

    def xen_elf(self, xen: str) -> str:
        return self.xen.replace(XEN_FIELD, xen)

    def platform(self, xen: str) -> str:
        return platforms.describe(xen, self.qemu)

    def qemu_binary(self, xen: str) -> str:
        return platforms.qemu_binary(xen, self.qemu, self.platform_dir)


def setting_texts(table: tuple[settings.Setting, ...], profile: str, assign: list[str],
                  options: dict[str, str | None]) -> dict[str, str]:
    """Each setting's text: the profile's default, then VAR=VALUE, then
    the option; every one checked (one line and exit 2 if bad)."""
    try:
        text = settings.defaults(table, profile)
        for a in assign:
            s, value = settings.assignment(table, a)
            text[s.key] = value
        text.update({k: v for k, v in options.items() if v is not None})
        for s in table:
            s.parse(text[s.key])
    except settings.SettingError as e:
        die(str(e))
    return text


def parse_settings(ns: argparse.Namespace) -> dict[str, object]:
    """The typed value of every setting: those ns.cmd takes from the
    command line, the others their defaults."""
    table = settings.for_command(SETTINGS, ns.cmd)
    text = setting_texts(table, ns.profile, ns.assign, {s.key: getattr(ns, s.key) for s in table})
    return {s.key: s.parse(text.get(s.key, s.default)) for s in SETTINGS}


# The guest kernels of a run's parsed command line: kernel_sets, or for
# misses mutants.kernel_sets (which imports this module).
KernelSets = Callable[[argparse.Namespace], tuple[KernelSet, ...]]


def request_of(ns: argparse.Namespace, kernel_sets_of: KernelSets) -> Request:
    """The request of a run command's parsed command line ns, every file
    and setting checked (one line and exit 2 for the first that is
    wrong); kernel_sets_of(ns) gives its guest kernels."""
    v = parse_settings(ns)
    types = typing.cast(tuple[str, ...], v['guest_types'])
    if v['host_load'] and not shutil.which('stress-ng'):
        die('stress-ng missing: run make deps')
    if v['taskset'] and not shutil.which('taskset'):
        die('taskset missing (util-linux)')
    domu = [t for t in types if boot.GUEST_TYPES[t].domu]
    for t in domu:
        g = boot.GUEST_TYPES[t]
        room = g.memory_mb - boot.mb(g.dom0_mem) - boot.XEN_RESERVE_MB
        if typing.cast(int, v['memory']) > room:
            die(f'MEMORY: a {t} domU has at most {room} MB here, not {v["memory"]}')
    kernels = kernel_sets_of(ns)
    xens = typing.cast(tuple[str, ...], v['xens'])
    qemu = typing.cast(str, v['qemu'])
    for path in (ns.xen, *(k.dom0_initrd for k in kernels)):
        if len(xens) > 1 and path and XEN_FIELD not in path:
            die(f'XENS has {len(xens)} versions: {path} needs {XEN_FIELD} for each one\'s')
    for root in platforms.roots_needed(xens, qemu):
        if not os.path.isdir(os.path.join(ns.platform_dir, root)):
            die(f'XENS={" ".join(xens)} QEMU={qemu} needs the Debian 13 root '
                f'{os.path.join(ns.platform_dir or "--platform-dir", root)}: run make deps')
    xen_slop_defaults = [check_platform(ns, xv, qemu, types, kernels, bool(domu))
                         for xv in xens]
    if ns.kunit_boot and not ns.kunit_py:
        die('--kunit-boot needs --kunit-py')
    base_url = getattr(ns, 'base_url', '')
    if base_url and not re.match(r'(https?|file)://\S+$', base_url):
        die(f'--base-url: "{base_url}" is not an http://, https:// or file:// URL')
    compare = getattr(ns, 'compare', '')
    if compare and not os.path.isfile(compare):
        die(f'--compare: {compare} does not exist')
    lava_url, token_file = typing.cast(str, v['lava_url']), typing.cast(str, v['lava_token_file'])
    if ns.cmd == 'lab':
        if not re.match(r'https?://[^/\s]+/?$', lava_url):
            die(f'LAVA_URL: "{lava_url}" is not a LAVA server\'s http:// or https:// URL')
        if not token_file or not os.path.isfile(token_file):
            die(f'LAVA_TOKEN_FILE: "{token_file}" is not a file holding an API token')
        if not base_url.startswith('http'):
            die('lab: --base-url must say where the lab\'s workers fetch the images '
                '(http://127.0.0.1:PORT: served from here)')
    guest = GuestSettings(params=settings.guest_params(SETTINGS, v),
                          hist_us=console.CYCLICTEST_HIST_US,
                          rt_priority=console.CYCLICTEST_RT_PRIORITY,
                          guest_args=typing.cast(str, v['guest_args']))
    check = CheckSettings(intervals=typing.cast(tuple[int, ...], v['intervals']),
                          spike_us=console.SPIKE_US,
                          tests=(console.SLOP_TEST,) if ns.cmd == 'edge' else
                          (console.SLOP_TEST, console.PROGRAM_TEST,
                           console.LATENCY_TEST),
                          kunit_py=ns.kunit_py, kunit_boot=ns.kunit_boot,
                          kunit_min=ns.kunit_min)
    return Request(cmd=ns.cmd, mutants=tuple(getattr(ns, 'mutants', '').split()),
                   mutant_build=(getattr(ns, 'kdir', ''), getattr(ns, 'build_dir', ''),
                                 getattr(ns, 'config', ''), getattr(ns, 'kcc', ''),
                                 getattr(ns, 'jobs', '')),
                   domu_params=settings.guest_params(SETTINGS, v, domu=True),
                   name=ns.name, out=os.path.abspath(ns.out), xen=ns.xen,
                   initrd=ns.initrd, kernels=kernels, platform_dir=ns.platform_dir,
                   params_file=getattr(ns, 'params_file', ''),
                   expect_flagged=getattr(ns, 'expect_flagged', False),
                   guest=guest, check=check, base_url=base_url,
                   logs=getattr(ns, 'logs', ''), compare=compare,
                   lava_url=lava_url.rstrip('/'), lava_token_file=token_file,
                   xen_slop_defaults=tuple(xen_slop_defaults),
                   **{k: v[k] for k in (
                       'guest_types', 'xens', 'qemu', 'xen_slops', 'guest_slops', 'default_config',
                       'samples', 'vcpus', 'memory', 'timeout', 'retries', 'accel', 'taskset',
                       'runs', 'host_load')})  # type: ignore[arg-type]


def kernel_sets(ns: argparse.Namespace) -> tuple[KernelSet, ...]:
    """The guest kernels of the run: each --kernel-set, or the one of
    --kernel (misses: mutants.kernel_sets sets that one first)."""
    if ns.kernel_set and (ns.kernel or ns.dom0_initrd or ns.dom0_kernel):
        die('give --kernel-set or --kernel and --dom0-initrd, not both')
    for ks in ns.kernel_set:
        if len(ks) not in (3, 4):
            die(f'--kernel-set {" ".join(ks)}: give VERSION KERNEL DOM0_INITRD [DOM0_KERNEL]')
    if not ns.kernel_set and not ns.kernel:
        die('no guest kernel: give --kernel or --kernel-set')
    kernels = (tuple(KernelSet(*ks) for ks in ns.kernel_set)
               or (KernelSet('', ns.kernel, ns.dom0_initrd, ns.dom0_kernel),))
    if len({k.version for k in kernels}) != len(kernels):
        die('--kernel-set: each version once')
    return kernels


def check_platform(ns: argparse.Namespace, xv: str, qemu: str, types: tuple[str, ...],
                   kernels: tuple[KernelSet, ...], domu: bool) -> int:
    """What a run on Xen XV needs: each kernel's files (and dom0's
    initramfs for XV when a type has a domU), Xen, the guest's initramfs,
    the firmware of an EFI type and QEMU.  Returns Xen's timer_slop
    default, read from the binary."""
    for k in kernels:
        if domu and not k.dom0_initrd:
            die(f'guest type {next(t for t in types if boot.GUEST_TYPES[t].domu)} '
                'needs --dom0-initrd (guest/mkinitramfs-dom0.sh)')
        for f in (k.kernel, *([k.dom0_kernel] if k.dom0_kernel else []),
                  *([k.dom0_initrd.replace(XEN_FIELD, xv)] if domu else [])):
            if ns.cmd != 'misses' and not os.path.isfile(f):
                die(f'{f} does not exist')
    for f in (ns.xen.replace(XEN_FIELD, xv), ns.initrd):
        if not os.path.isfile(f):
            die(f'{f} does not exist')
    slop = xen_slop_default(xv, ns.xen.replace(XEN_FIELD, xv))
    plat = platforms.PLATFORMS[xv]
    if any(boot.GUEST_TYPES[t].efi for t in types):
        for f in (plat.path(ns.platform_dir, plat.xen_efi),
                  plat.path(ns.platform_dir, platforms.OVMF)):
            if not os.path.isfile(f):
                die(f'{f} missing, needed by a PVH dom0: run make deps')
    qbin = platforms.qemu_binary(xv, qemu, ns.platform_dir)
    if ns.cmd not in ('lava', 'merge', 'lab') and not shutil.which(qbin):
        die(f'{qbin} missing: run make deps')
    return slop


def xen_slop_default(xen: str, elf: str) -> int:
    """Xen's timer_slop default as the binary that boots holds it; the
    configs that leave Xen's slop out (and the selftest's --host-slop-ns
    for them) take XEN_DEFAULT_TIMER_SLOP_NS, so a Xen whose default is
    another is refused rather than judged by the wrong bound."""
    try:
        ns = platforms.timer_slop_default(elf)
    except platforms.PlatformError as e:
        die(f"Xen {xen}'s timer_slop default: {e}")
    if ns != settings.XEN_DEFAULT_TIMER_SLOP_NS:
        die(f"Xen {xen}'s timer_slop default is {ns} ns ({elf}); the configs that leave it "
            f'out assume {settings.XEN_DEFAULT_TIMER_SLOP_NS} ns')
    return ns

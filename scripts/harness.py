#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot Xen with a guest kernel under QEMU, run the xen_timer suite inside,
and print the patch thread's latency table.

  harness.py matrix       Xen timer_slop x guest xen_timer_slop=, the thread's table
  harness.py edge         one boot per line of --params-file, slop test only
  harness.py repeat       every config RUNS times: how often each check flagged
  harness.py misses       each scripts/mutant.sh kernel built, then repeat: all flagged?
  harness.py lava         the matrix as LAVA jobs (xt_lava), one per config, for a lab
  harness.py merge        the logs of those jobs judged as local boots: the same reports
  harness.py settings     the settings table (xt_settings), or a list make reads
  harness.py kunit-cases, kunit-check, ktap-check, lkft-check: the checks of
                          make check's kunit, selftest and boot-check steps

The run subcommands take every setting of xt_settings as an option
(--samples 200) or as make writes it (SAMPLES=200), over the defaults of
a --profile (a make target's); the Makefile passes on only what the user
set.

Each configuration is one boot (xt_boot) per guest type (--guest-types):
pv, the guest kernel as Xen's PV dom0 with the initramfs of
scripts/mkinitramfs.sh, whose /init prints results between "@@XT" marker
lines (xt_console); pvh, the same kernel as PV dom0 with
--dom0-initrd (scripts/mkinitramfs-dom0.sh) starting itself as a PVH
domU with that initramfs.  Every boot has a timeout; a
panic, a hang or a guest that never reaches its end marker is reported
with the last console lines, and the run goes on.  The verdicts
(xt_verdict) check every KTAP stream with the tree's kunit.py; the
reports (xt_report) are a table, a summary, a plot and a JSON.

Each boot ends PASS, FAIL (the kernel's fault) or INFRA (the emulator's,
Xen's or the firmware's; xt_model); an INFRA boot is booted again
--retries times, every try's console kept.  Exit status 0 when every
config passed, 1 if any failed (repeat --expect-flagged: if any passed),
3 if none failed but some still ended INFRA after the retries, 2 on bad
arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import typing
from typing import Callable, Iterator, NoReturn

import ktap_check
import xt_boot
import xt_console
import xt_kunit
import xt_lava
import xt_lkft
import xt_model
import xt_platform
import xt_report
import xt_settings
import xt_verdict
from xt_model import (BootResult, CheckSettings, Config, GroupRecord, GuestSettings, Outcome,
                      Try)

SETTINGS = xt_settings.settings(tuple(xt_boot.GUEST_TYPES), tuple(xt_platform.PLATFORMS),
                                (xt_platform.OWN_QEMU, *xt_platform.QEMUS))
# In a file option's path: the Xen version's file (a Xen ELF, a dom0
# initramfs with that Xen's toolstack).
XEN_FIELD = "{xen}"
RUN_COMMANDS = ('matrix', 'edge', 'repeat', 'misses', 'lava', 'merge')


def die(msg: str) -> NoReturn:
    print(f'harness: {msg}', file=sys.stderr)
    sys.exit(xt_model.EXIT_USAGE)


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
    the settings of xt_settings.SETTINGS (typed) and the files."""
    cmd: str
    name: str
    out: str
    # Xen's ELF, and the dom0 initramfs of each kernel below, with
    # XEN_FIELD for the Xen version.
    xen: str
    initrd: str
    # The kernel axis, one KernelSet per guest kernel.
    kernels: tuple[KernelSet, ...]
    # The Xen axis (xt_platform): its versions, the QEMU that runs them,
    # where platform-root.sh made the Debian 13 root.
    xens: tuple[str, ...]
    qemu: str
    platform_dir: str
    guest_types: tuple[str, ...]
    xen_slops: tuple[int | None, ...]
    guest_slops: tuple[int | None, ...]
    default_config: bool
    intervals: tuple[int, ...]
    samples: int
    oneshot: int
    spike_us: int
    vcpus: int
    memory: int
    timeout: int
    retries: int
    accel: str
    taskset: str
    lat_opts: str
    guest_args: str
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
    # Each Xen's timer_slop default, ns, read from its binary.
    xen_slop_defaults: tuple[int, ...] = ()

    @property
    def repeat(self) -> int:
        return self.runs if self.cmd in xt_settings.REPEAT else 1

    def xen_elf(self, xen: str) -> str:
        return self.xen.replace(XEN_FIELD, xen)

    def platform(self, xen: str) -> str:
        return xt_platform.describe(xen, self.qemu)

    def qemu_binary(self, xen: str) -> str:
        return xt_platform.qemu_binary(xen, self.qemu, self.platform_dir)


def file_options(p: argparse.ArgumentParser) -> None:
    p.add_argument('--xen', required=True,
                   help="Xen's ELF (gunzipped xen-V-amd64.gz); " + XEN_FIELD + ' in it: '
                   "each XENS version's")
    p.add_argument('--platform-dir', default='',
                   help="scripts/platform-root.sh's roots' directory (Xen 4.20, QEMU 11.1)")
    p.add_argument('--kernel', default='', help='the guest kernel')
    p.add_argument('--kernel-set', action='append', nargs='+', default=[],
                   metavar='VERSION KERNEL DOM0_INITRD [DOM0_KERNEL]',
                   help='a guest kernel as an axis value (instead of --kernel, '
                   '--dom0-initrd and --dom0-kernel; repeat it): its version leads the '
                   'config names')
    p.add_argument('--dom0-kernel', default='',
                   help="the kernel of the domU types' dom0 (default: the guest kernel)")
    p.add_argument('--initrd', required=True, help="scripts/mkinitramfs.sh's initramfs")
    p.add_argument('--dom0-initrd', default='',
                   help="scripts/mkinitramfs-dom0.sh's initramfs, for the domU types; "
                   + XEN_FIELD + " in it: each XENS version's")
    p.add_argument('--out', required=True, help='results directory')
    p.add_argument('--name', default='matrix', help='prefix of the result files')
    p.add_argument('--kunit-py', default='',
                   help="the tree's kunit.py, to parse every KTAP stream with")
    p.add_argument('--kunit-boot', action='store_true',
                   help='the guest runs KUnit at boot: its KTAP must pass')
    p.add_argument('--kunit-min', type=int, default=1,
                   help='fail unless KUnit at boot ran at least this many cases')


def setting_options(p: argparse.ArgumentParser, cmd: str) -> None:
    """The settings of SETTINGS that cmd takes, as options and as make
    writes them (VAR=VALUE); a profile changes their defaults."""
    p.add_argument('--profile', default='make', choices=tuple(xt_settings.PROFILES),
                   help="the defaults of a make target (see 'harness.py settings')")
    for s in xt_settings.for_command(SETTINGS, cmd):
        p.add_argument(s.option, dest=s.key, default=None, metavar=s.make,
                       help=f'{s.help} ({s.describe()}; default {s.default or "none"})')
    p.add_argument('assign', nargs='*', metavar='VAR=VALUE',
                   help='a setting as make writes it (SAMPLES=200)')


def setting_texts(table: tuple[xt_settings.Setting, ...], profile: str, assign: list[str],
                  options: dict[str, str | None]) -> dict[str, str]:
    """Each setting's text: the profile's default, then VAR=VALUE, then
    the option; every one checked (one line and exit 2 if bad)."""
    try:
        text = xt_settings.defaults(table, profile)
        for a in assign:
            s, value = xt_settings.assignment(table, a)
            text[s.key] = value
        text.update({k: v for k, v in options.items() if v is not None})
        for s in table:
            s.parse(text[s.key])
    except xt_settings.SettingError as e:
        die(str(e))
    return text


def parse_settings(ns: argparse.Namespace) -> dict[str, object]:
    """The typed value of every setting: those ns.cmd takes from the
    command line, the others their defaults."""
    table = xt_settings.for_command(SETTINGS, ns.cmd)
    text = setting_texts(table, ns.profile, ns.assign, {s.key: getattr(ns, s.key) for s in table})
    return {s.key: s.parse(text.get(s.key, s.default)) for s in SETTINGS}


def cmd_settings(ns: argparse.Namespace) -> int:
    """The settings table, a list the Makefile reads, or one setting's
    value under a profile and assignments."""
    if ns.list:
        lists = {'guest-types': tuple(xt_boot.GUEST_TYPES),
                 'domu-types': tuple(t for t, g in xt_boot.GUEST_TYPES.items() if g.domu),
                 'make-vars': tuple(s.make for s in SETTINGS),
                 # Each Xen version's root under the platform dir, VERSION=ROOT
                 # ('' for the machine's own), and the QEMU versions' likewise.
                 'xen-roots': tuple(f'{x}={p.root}' for x, p in xt_platform.PLATFORMS.items()),
                 'qemu-roots': tuple(f'{q}={p.root}' for q, p in xt_platform.QEMUS.items())}
        if ns.list not in lists:
            die(f'settings --list: "{ns.list}" is not one of {" ".join(lists)}')
        print(' '.join(lists[ns.list]))
        return 0
    if ns.get:
        by_make = {s.make: s for s in SETTINGS}
        if ns.get not in by_make:
            die(f'settings --get: "{ns.get}" is not one of {" ".join(by_make)}')
        # Every setting is checked, so that make stops at a bad one.
        text = setting_texts(SETTINGS, ns.profile, ns.assign, {})
        print(text[by_make[ns.get].key])
        return 0
    print(xt_settings.markdown(SETTINGS), end='')
    return 0


def add_settings(p: argparse.ArgumentParser) -> None:
    p.add_argument('--list', default='', help='guest-types, domu-types, make-vars, '
                   'xen-roots or qemu-roots, on one line')
    p.add_argument('--get', default='', metavar='VAR', help='the value of one setting')
    p.add_argument('--profile', default='make', choices=tuple(xt_settings.PROFILES))
    p.add_argument('assign', nargs='*', metavar='VAR=VALUE')
    p.set_defaults(func=cmd_settings)


def cmd_kunit_cases(ns: argparse.Namespace) -> int:
    return xt_kunit.cases_command(ns.source)


def add_kunit_cases(p: argparse.ArgumentParser) -> None:
    p.add_argument('source', nargs='+', help='KUnit source files')
    p.set_defaults(func=cmd_kunit_cases)


def cmd_kunit_check(ns: argparse.Namespace) -> int:
    rc, line = xt_kunit.check(ns.json, ns.log, ns.min_cases, ns.max_skips)
    print(line, file=sys.stderr if rc else sys.stdout)
    return rc


def add_kunit_check(p: argparse.ArgumentParser) -> None:
    p.add_argument('json', help="kunit.py's --json file")
    p.add_argument('log', help="kunit.py's output")
    p.add_argument('min_cases', type=int)
    p.add_argument('max_skips', type=int)
    p.set_defaults(func=cmd_kunit_check)


def cmd_ktap_check(ns: argparse.Namespace) -> int:
    return ktap_check.check(ns.kunit_py, ns.file, ns.tests)


def add_ktap_check(p: argparse.ArgumentParser) -> None:
    p.add_argument('kunit_py', help="the tree's kunit.py")
    p.add_argument('file', help='a KTAP stream or run_kselftest.sh output')
    p.add_argument('tests', nargs='*', help='selftests that must have run and ended ok')
    p.set_defaults(func=cmd_ktap_check)


def cmd_lkft_check(ns: argparse.Namespace) -> int:
    return xt_lkft.check_files(ns.files)


def add_lkft_check(p: argparse.ArgumentParser) -> None:
    p.add_argument('files', nargs='+', help='run_kselftest.sh outputs')
    p.set_defaults(func=cmd_lkft_check)


TOOL_COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    'settings': ('the settings table, or a list the Makefile reads', add_settings),
    'kunit-cases': ('how many results KUnit sources give (KUNIT_MIN_CASES)', add_kunit_cases),
    'kunit-check': ("judge kunit.py's JSON: at least MIN_CASES, none failed, "
                    'at most MAX_SKIPS skipped', add_kunit_check),
    'ktap-check': ("parse a KTAP stream and its nested ones with the tree's kunit.py",
                   add_ktap_check),
    'lkft-check': ("what Linaro's parse-output.py would record of run_kselftest.sh "
                   'outputs: one name per result', add_lkft_check),
}


def build_parser() -> argparse.ArgumentParser:
    """The run commands (each with the settings table's options) and the
    tool commands."""
    ap = argparse.ArgumentParser(description=(__doc__ or '').splitlines()[0])
    sub = ap.add_subparsers(dest='cmd', metavar='|'.join((*RUN_COMMANDS, *TOOL_COMMANDS)))
    sub.required = True
    helps = {'matrix': 'the slop matrix and the thread table',
             'edge': 'one boot per line of guest parameters',
             'repeat': 'every config RUNS times, count what flagged',
             'misses': 'each mutant of scripts/mutant.sh built and booted RUNS times: '
             'succeed only if every boot was flagged',
             'lava': 'one LAVA job per config of the matrix, and the device dictionary',
             'merge': "the LAVA jobs' logs judged as local boots: table, JSON, KTAP"}
    for cmd in RUN_COMMANDS:
        p = sub.add_parser(cmd, help=helps[cmd])
        file_options(p)
        setting_options(p, cmd)
        if cmd == 'edge':
            p.add_argument('--params-file', required=True,
                           help='one boot per line of guest parameters, slop test only')
        if cmd == 'repeat':
            p.add_argument('--expect-flagged', action='store_true',
                           help='a broken kernel: succeed only if every boot was flagged')
        if cmd == 'misses':
            p.add_argument('--mutants', required=True, help='mutants of scripts/mutant.sh')
            p.add_argument('--kdir', required=True, help='the kernel tree to build them from')
            p.add_argument('--build-dir', required=True,
                           help='each mutant is built in BUILD_DIR/mutant-NAME')
            p.add_argument('--config', required=True, help='the config fragment')
            p.add_argument('--kcc', default='gcc', help='the compiler (ccache gcc)')
            p.add_argument('--jobs', default='2')
        if cmd == 'lava':
            p.add_argument('--base-url', default='',
                           help='where the lab fetches the images directory '
                           '(default: file:// of it, for lava-run here)')
        if cmd == 'merge':
            p.add_argument('--logs', default='',
                           help="the jobs' logs, each named as its job file with .log "
                           '(default OUT/NAME-lava/logs)')
            p.add_argument('--compare', default='',
                           help="a run's JSON: fail unless the merged verdicts equal its "
                           'verdicts of the same configs')
    for cmd, (help_, add) in TOOL_COMMANDS.items():
        add(sub.add_parser(cmd, help=help_))
    return ap


def parse_args(argv: list[str]) -> Request:
    """The request of a run command, every file and setting checked (one
    line and exit 2 for the first that is wrong); a tool command runs here
    and exits with its code."""
    ns = build_parser().parse_args(argv)
    if ns.cmd in TOOL_COMMANDS:
        sys.exit(ns.func(ns))
    v = parse_settings(ns)
    types = typing.cast(tuple[str, ...], v['guest_types'])
    if v['host_load'] and not shutil.which('stress-ng'):
        die('stress-ng missing: run make deps')
    if v['taskset'] and not shutil.which('taskset'):
        die('taskset missing (util-linux)')
    domu = [t for t in types if xt_boot.GUEST_TYPES[t].domu]
    for t in domu:
        g = xt_boot.GUEST_TYPES[t]
        room = g.memory_mb - xt_boot.mb(g.dom0_mem) - xt_boot.XEN_RESERVE_MB
        if typing.cast(int, v['memory']) > room:
            die(f'MEMORY: a {t} domU has at most {room} MB here, not {v["memory"]}')
    kernels = kernel_sets(ns)
    xens = typing.cast(tuple[str, ...], v['xens'])
    qemu = typing.cast(str, v['qemu'])
    for path in (ns.xen, *(k.dom0_initrd for k in kernels)):
        if len(xens) > 1 and path and XEN_FIELD not in path:
            die(f'XENS has {len(xens)} versions: {path} needs {XEN_FIELD} for each one\'s')
    for root in xt_platform.roots_needed(xens, qemu):
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
    intervals = typing.cast(tuple[int, ...], v['intervals'])
    guest = GuestSettings(params=xt_settings.guest_params(SETTINGS, v),
                          hist_us=xt_console.CYCLICTEST_HIST_US,
                          rt_priority=xt_console.CYCLICTEST_RT_PRIORITY,
                          guest_args=typing.cast(str, v['guest_args']))
    check = CheckSettings(intervals=intervals, spike_us=typing.cast(int, v['spike_us']),
                          tests=(xt_console.SLOP_TEST,) if ns.cmd == 'edge' else
                          (xt_console.SLOP_TEST, xt_console.PROGRAM_TEST,
                           xt_console.LATENCY_TEST),
                          kunit_py=ns.kunit_py, kunit_boot=ns.kunit_boot,
                          kunit_min=ns.kunit_min)
    return Request(cmd=ns.cmd, mutants=tuple(getattr(ns, 'mutants', '').split()),
                   mutant_build=(getattr(ns, 'kdir', ''), getattr(ns, 'build_dir', ''),
                                 getattr(ns, 'config', ''), getattr(ns, 'kcc', ''),
                                 getattr(ns, 'jobs', '')),
                   domu_params=xt_settings.guest_params(SETTINGS, v, domu=True),
                   name=ns.name, out=os.path.abspath(ns.out), xen=ns.xen,
                   initrd=ns.initrd, kernels=kernels, platform_dir=ns.platform_dir,
                   params_file=getattr(ns, 'params_file', ''),
                   expect_flagged=getattr(ns, 'expect_flagged', False),
                   guest=guest, check=check, base_url=base_url,
                   logs=getattr(ns, 'logs', ''), compare=compare,
                   xen_slop_defaults=tuple(xen_slop_defaults),
                   **{k: v[k] for k in (
                       'guest_types', 'xens', 'qemu', 'xen_slops', 'guest_slops', 'default_config',
                       'intervals', 'samples', 'oneshot', 'spike_us', 'vcpus', 'memory',
                       'timeout', 'retries', 'accel', 'taskset', 'lat_opts', 'guest_args',
                       'runs', 'host_load')})  # type: ignore[arg-type]


def kernel_sets(ns: argparse.Namespace) -> tuple[KernelSet, ...]:
    """The guest kernels of the run: each --kernel-set, or the one of
    --kernel (misses: each mutant's, built when it comes, its names
    checked against scripts/mutant.sh)."""
    if ns.cmd == 'misses':
        ns.kernel, ns.dom0_initrd = mutant_files(ns.build_dir, '')
        ns.kernel_set = []
        for m in ns.mutants.split():
            if subprocess.run([MUTANT_SH, 'slop', m], capture_output=True).returncode:
                die(f'--mutants: "{m}" is not a mutant of scripts/mutant.sh')
    elif ns.kernel_set and (ns.kernel or ns.dom0_initrd or ns.dom0_kernel):
        die('give --kernel-set or --kernel and --dom0-initrd, not both')
    for ks in ns.kernel_set:
        if len(ks) not in (3, 4):
            die(f'--kernel-set {" ".join(ks)}: give VERSION KERNEL DOM0_INITRD [DOM0_KERNEL]')
    if not ns.kernel_set and not ns.kernel:
        die('no guest kernel: give --kernel or --kernel-set')
    kernels = tuple(KernelSet(*ks) for ks in ns.kernel_set) or \
        (KernelSet('', ns.kernel, ns.dom0_initrd, ns.dom0_kernel),)
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
            die(f'guest type {next(t for t in types if xt_boot.GUEST_TYPES[t].domu)} '
                'needs --dom0-initrd (scripts/mkinitramfs-dom0.sh)')
        for f in (k.kernel, *([k.dom0_kernel] if k.dom0_kernel else []),
                  *([k.dom0_initrd.replace(XEN_FIELD, xv)] if domu else [])):
            if ns.cmd != 'misses' and not os.path.isfile(f):
                die(f'{f} does not exist')
    for f in (ns.xen.replace(XEN_FIELD, xv), ns.initrd):
        if not os.path.isfile(f):
            die(f'{f} does not exist')
    slop = xen_slop_default(xv, ns.xen.replace(XEN_FIELD, xv))
    plat = xt_platform.PLATFORMS[xv]
    if any(xt_boot.GUEST_TYPES[t].efi for t in types):
        for f in (plat.path(ns.platform_dir, plat.xen_efi),
                  plat.path(ns.platform_dir, xt_platform.OVMF)):
            if not os.path.isfile(f):
                die(f'{f} missing, needed by a PVH dom0: run make deps')
    qbin = xt_platform.qemu_binary(xv, qemu, ns.platform_dir)
    if ns.cmd not in ('lava', 'merge') and not shutil.which(qbin):
        die(f'{qbin} missing: run make deps')
    return slop


def xen_slop_default(xen: str, elf: str) -> int:
    """Xen's timer_slop default as the binary that boots holds it; the
    configs that leave Xen's slop out (and the selftest's --host-slop-ns
    for them) take XEN_DEFAULT_TIMER_SLOP_NS, so a Xen whose default is
    another is refused rather than judged by the wrong bound."""
    try:
        ns = xt_platform.timer_slop_default(elf)
    except xt_platform.PlatformError as e:
        die(f"Xen {xen}'s timer_slop default: {e}")
    if ns != xt_settings.XEN_DEFAULT_TIMER_SLOP_NS:
        die(f"Xen {xen}'s timer_slop default is {ns} ns ({elf}); the configs that leave it "
            f'out assume {xt_settings.XEN_DEFAULT_TIMER_SLOP_NS} ns')
    return ns


def configs_of(args: Request) -> list[Config]:
    """Every config of the run, each repeated, kernel outermost, then the
    Xen, then the guest type."""
    return [dataclasses.replace(c, kernel=kv, xen=xv if len(args.xens) > 1 else '')
            for kv in (k.version for k in args.kernels) for xv in args.xens
            for c in type_configs(args)]


def type_configs(args: Request) -> list[Config]:
    if args.cmd == 'edge':
        try:
            with open(args.params_file) as f:
                plines = [l.strip() for l in f if l.strip() and not l.startswith('#')]
        except OSError as e:
            die(f'{args.params_file}: {e.strerror}')
        return [Config('', t, None, None, '' if p == '(none)' else p)
                for t in args.guest_types for p in plines]
    slops = [(x, g) for x in args.xen_slops for g in args.guest_slops]
    if args.default_config and (None, None) not in slops:
        slops.append((None, None))
    return [Config('', t, x, g, None, run if args.repeat > 1 else 0)
            for t in args.guest_types for x, g in slops for run in range(1, args.repeat + 1)]


@dataclasses.dataclass
class Job:
    """One config of the run and its tries so far."""
    k: int
    tag: str
    config: Config
    tries: list[Try] = dataclasses.field(default_factory=list)
    result: BootResult | None = None


def try_done(args: Request, job: Job, r: BootResult, retry: bool = True) -> bool:
    """Record one try of job (its result r): True if it is to be booted
    again (it ended INFRA, has tries left and the run goes on).  A FAIL
    never is."""
    n = len(job.tries) + 1
    ttag = try_tag(args, job)
    # A finished boot that is INFRA: checks the platform could not resolve.
    # One the platform ended first (a triple fault after the selftests)
    # is its death's, which the checks it printed do not explain.
    platform = [f for f in r.failures() if f.startswith(xt_model.PLATFORM_FLAG)]
    job.tries.append(Try(r.outcome, platform[0] if platform and r.finished
                         and r.outcome is Outcome.INFRA else r.status,
                         r.seconds, r.console, r.facts.noise_checks))
    nfail = sum(v.status is xt_model.Status.FAIL for v in r.facts.results)
    why = r.status if not r.finished else f'boot ok, {nfail} checks failed'
    if platform:
        why += f', {len(platform)} the platform could not resolve ({platform[0]})'
    if r.finished and r.facts.bad_exit:
        why += f', {" and ".join(r.facts.bad_exit)} ended without pass or skip'
    if r.finished and r.kunit is not None and not r.kunit.ok:
        why += ', KUnit failed'
    print(f'{ttag}: {str(r.outcome).upper()} ({why}) in {r.seconds:.0f} s', flush=True)
    if r.outcome is Outcome.INFRA and retry and n <= args.retries:
        print(f'{ttag}: the emulator, Xen or the firmware broke, not the kernel: '
              'booting it again', flush=True)
        return True
    r.tries = list(job.tries)
    job.result = r
    return False


def try_tag(args: Request, job: Job) -> str:
    n = len(job.tries) + 1
    return job.tag if n == 1 else f'{job.tag} (try {n} of {args.retries + 1})'


def try_idx(job: Job) -> str:
    n = len(job.tries) + 1
    return str(job.k) if n == 1 else f'{job.k}.try{n}'


def boot_config(args: Request, machine: xt_boot.Machine, boots: str,
                job: Job) -> None:
    """Boot one config whose guest is dom0, again while it ends INFRA
    (--retries more times)."""
    while True:
        boot = xt_boot.Boot(machine, job.config.xen_slop, args.guest.cmdline(job.config))
        ttag = try_tag(args, job)
        print(f'{ttag}: booting', flush=True)
        boot.run(lambda s: print(f'{ttag}: {s}', flush=True))
        r = xt_verdict.evaluate(boot, job.config, args.check, boots, try_idx(job))
        r.xen_cmdline = boot.xen_cmd
        if not try_done(args, job, r):
            return


def boot_group(args: Request, machine: xt_boot.Machine, boots: str,
               jobs: list[Job], gtag: str, groups: list[GroupRecord]) -> None:
    """Boot Xen and dom0 once for the jobs' domUs, again for those that
    ended INFRA (while they have tries left) or never ran (an earlier
    domU hung the boot, QEMU or dom0 died): each try of a config is one
    domU.  Every boot gives at least the domU it ended in a result, so
    the loop ends."""
    pending = list(jobs)
    nboot = 0
    while pending:
        nboot += 1
        # The Xen command line of the first: Xen's default timer_slop and
        # the same value given are one group.
        gb = xt_boot.GroupBoot(machine, pending[0].config.xen_slop,
                               [args.guest.cmdline(j.config) for j in pending])
        btag = gtag if nboot == 1 else f'{gtag} (boot {nboot})'
        tags = [try_tag(args, j) for j in pending]
        print(f'{btag}: booting Xen and dom0 for {len(pending)} domUs: '
              + ', '.join(f'[{j.k}]' for j in pending), flush=True)
        glog = os.path.join(boots, f'group-{len(groups) + 1}.log')
        try:
            gb.run(lambda i, s: print(f'{tags[i] if i >= 0 else btag}: {s}', flush=True))
        except Stopped:
            # The domUs that were over are judged, and every console so
            # far is kept: a starved boot of 20 domUs may have run for hours.
            print(f'{btag}: stopped; its console so far: {glog}', flush=True)
            judge_group(args, boots, gb, pending, glog, groups, stopped=True)
            raise
        finally:
            with open(glog, 'w') as f:
                f.write('\n'.join(gb.lines) + '\n')
        print(f'{btag}: Xen and dom0 took {gb.shared_seconds:.0f} s, the boot '
              f'{gb.seconds:.0f} s', flush=True)
        ngroups = len(groups)
        again = judge_group(args, boots, gb, pending, glog, groups)
        if len(groups) == ngroups:
            # Cannot happen: the domU that ended a boot has its result.
            die(f'{btag}: internal error: no domU of the boot got a result')
        pending = again


def judge_group(args: Request, boots: str, gb: xt_boot.GroupBoot, jobs: list[Job],
                glog: str, groups: list[GroupRecord], stopped: bool = False) -> list[Job]:
    """Judge the domUs of the Xen boot gb (its console glog) that are
    over, each a try of its job: all of them, or if gb was stopped those
    that ended before the stop (gb.settled()).  The boot joins groups if
    one had a result.  Returns the jobs to boot again: those the boot
    never reached and the INFRA ones with tries left, none if stopped."""
    parts = gb.settled() if stopped else gb.parts
    group = GroupRecord(index=len(groups) + 1, xen_cmdline=gb.xen_cmd,
                        guest_type=gb.m.guest.name, seconds=round(gb.seconds, 1),
                        shared_seconds=round(gb.shared_seconds, 1),
                        shared_timing=dict(gb.shared_timing), console=glog)
    again = []
    for j, part in zip(jobs, parts):
        if not part.reached:
            print(f'{try_tag(args, j)}: not run (the boot ended before its domU); '
                  'booting it again', flush=True)
            again.append(j)
            continue
        r = xt_verdict.evaluate(part, j.config, args.check, boots, try_idx(j))
        r.xen_cmdline = gb.xen_cmd
        r.group = group.index
        group.configs.append(j.k)
        if try_done(args, j, r, retry=not stopped):
            again.append(j)
    if group.configs:
        groups.append(group)
    return again


@contextlib.contextmanager
def host_load(cpus: str) -> Iterator[None]:
    """stress-ng keeping the host CPUs cpus busy for as long as it lasts."""
    if not cpus:
        yield
        return
    load = subprocess.Popen(['stress-ng', '--quiet', '--cpu', '1', '--taskset', cpus],
                            stdin=subprocess.DEVNULL)
    print(f'harness: stress-ng --cpu 1 on host CPU {cpus}', flush=True)
    try:
        yield
    finally:
        load.terminate()
        load.wait()


SCRIPTS = os.path.dirname(os.path.abspath(__file__))
MUTANT_SH = os.path.join(SCRIPTS, 'mutant.sh')


def mutant_files(bdir: str, mutant: str) -> tuple[str, str]:
    """A mutant's kernel and the dom0 initramfs that starts it, below
    bdir (misses --build-dir)."""
    return (os.path.join(bdir, f'mutant-{mutant}', 'arch/x86/boot/bzImage'),
            os.path.join(bdir, f'initramfs-dom0-mutant-xen{XEN_FIELD}.cpio.gz'))


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
        for xv in args.xens if any(xt_boot.GUEST_TYPES[t].domu for t in args.guest_types) \
                else ():
            root = xt_platform.PLATFORMS[xv].root
            steps.append([os.path.join(SCRIPTS, 'mkinitramfs-dom0.sh'),
                          *(['--hvm'] if 'hvm' in args.guest_types else []),
                          *(['--xen-root', os.path.join(args.platform_dir, root)] if root else []),
                          kernel, args.initrd, dom0_initrd.replace(XEN_FIELD, xv)])
        for step in steps:
            if subprocess.run(step).returncode:
                print(f'harness: misses: {os.path.basename(step[0])} failed for mutant {m}',
                      file=sys.stderr)
                return xt_model.EXIT_FAIL
        rc = run(dataclasses.replace(args, cmd='repeat', expect_flagged=True,
                                     kernels=(KernelSet('', kernel, dom0_initrd),),
                                     guest_slops=(slop,),
                                     name=f'{args.name}-{m}'))
        if rc:
            return rc
    return xt_model.EXIT_PASS


@contextlib.contextmanager
def only_run(out: str, name: str) -> Iterator[None]:
    """One run of a name in a results directory at a time: a second one
    would delete the first's consoles under it."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f'.{name}.lock'), 'w') as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            die(f'another run named {name} is writing {out}: let it end, or give another --name')
        yield


class Stopped(Exception):
    """SIGTERM or SIGHUP: end the run through every finally (QEMU killed,
    temporary files removed).  judged: what run() wrote of the configs
    whose boots were over (how many of how many, and where), if any."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum
        self.judged = ''


def _stop(signum: int, _frame: object) -> None:
    raise Stopped(signum)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _stop)
    try:
        with only_run(args.out, args.name):
            if args.cmd == 'lava':
                return lava_jobs(args)
            with host_load(args.host_load):
                return misses(args) if args.cmd == 'misses' else run(args)
    except Stopped as e:
        print(f'harness: stopped by {signal.Signals(e.signum).name}: '
              f'{e.judged or "no verdict"} (the run, not the kernel)', file=sys.stderr)
        return 128 + e.signum
    except OSError as e:
        # The host's, not the kernel's: a full disk, a file gone.
        where = f': {e.filename}' if e.filename else ''
        print(f'harness: {e.strerror or e}{where} (the host, not the kernel under test)',
              file=sys.stderr)
        return xt_model.EXIT_INFRA


MachineKey = tuple[str, str, str]


def machine_key(args: Request, c: Config) -> MachineKey:
    """The machine a config boots on: its kernel, Xen and guest type."""
    return (c.kernel, c.xen or args.xens[0], c.guest_type)


def machines_of(args: Request, accel_args: list[str]) -> dict[MachineKey, xt_boot.Machine]:
    """The machine of each kernel, Xen and guest type."""
    out = {}
    for k in args.kernels:
        for xv in args.xens:
            plat = xt_platform.PLATFORMS[xv]
            for t in args.guest_types:
                domu = xt_boot.GUEST_TYPES[t].domu
                out[(k.version, xv, t)] = xt_boot.Machine(
                    guest=xt_boot.GUEST_TYPES[t], xen=args.xen_elf(xv), kernel=k.boots(domu),
                    initrd=k.dom0_initrd.replace(XEN_FIELD, xv) if domu else args.initrd,
                    vcpus=args.vcpus, timeout=args.timeout, accel_args=tuple(accel_args),
                    taskset=args.taskset, domu_params=args.domu_params,
                    qemu=args.qemu_binary(xv),
                    xen_efi=plat.path(args.platform_dir, plat.xen_efi),
                    ovmf=plat.path(args.platform_dir, xt_platform.OVMF),
                    platform=args.platform(xv))
    return out


def names_of_kernels(args: Request) -> str:
    """The kernel axis as the reports name it: '7.3 vmlinuz, 6.12 vmlinuz'."""
    return ', '.join(f'{k.version + " " if k.version else ""}{os.path.basename(k.kernel)}'
                     + (f' (dom0 of its domUs: {k.dom0_kernel})' if k.dom0_kernel else '')
                     for k in args.kernels)


def lava_accel(args: Request) -> list[str]:
    """A LAVA job's acceleration: KVM only when asked for (ACCEL=kvm), as
    a lab's device cannot be probed from here."""
    return xt_boot.KVM_ARGS if args.accel == 'kvm' else []


def job_stem(k: int, c: Config) -> str:
    """A config's LAVA job file and log name, without the extension."""
    return f'{k:03d}-{xt_report.slug(c.name)}'


def lava_configs(args: Request) -> list[Config]:
    """The configs of the run that LAVA's qemu device type can boot: a
    guest type that boots Xen from OVMF is left out, and said so."""
    efi = [t for t in args.guest_types if xt_boot.GUEST_TYPES[t].efi]
    if len(efi) == len(args.guest_types):
        die(f'guest types {" ".join(efi)}: none LAVA\'s qemu deploy can boot')
    if efi:
        print(f'harness: {args.cmd}: {" ".join(efi)} left out: it boots Xen from OVMF and a '
              "FAT drive, which LAVA's qemu deploy cannot give", flush=True)
    return [c for c in configs_of(args) if c.guest_type not in efi]


def lava_jobs(args: Request) -> int:
    """One LAVA job per config, the images they name, the device
    dictionary; every job checked against LAVA's schema."""
    configs = lava_configs(args)
    outdir = os.path.join(args.out, f'{args.name}-lava')
    jobs_dir, images = os.path.join(outdir, 'jobs'), os.path.join(outdir, 'images')
    shutil.rmtree(jobs_dir, ignore_errors=True)
    os.makedirs(jobs_dir)
    machines = machines_of(args, lava_accel(args))
    try:
        names = xt_lava.image_names(list(machines.values()), [k[0] for k in machines])
    except xt_lava.LavaError as e:
        die(str(e))
    base = args.base_url.rstrip('/') or f'file://{images}'
    urls = {f: f'{base}/{n}' for f, n in names.items()}
    paths = []
    for k, c in enumerate(configs, 1):
        m = machines[machine_key(args, c)]
        try:
            job = xt_lava.job(m, c, args.guest.cmdline(c),
                              f'xen_timer {args.name} [{k}/{len(configs)}] {c.name}', urls)
        except xt_lava.LavaError as e:
            die(str(e))
        paths.append(os.path.join(jobs_dir, f'{job_stem(k, c)}.yaml'))
        with open(paths[-1], 'w') as f:
            f.write(xt_lava.yaml(job))
    xt_lava.link_images(names, images)
    with open(os.path.join(outdir, 'device.jinja2'), 'w') as f:
        f.write(xt_lava.DEVICE_DICT)
    bad, why = xt_lava.validate(paths)
    for line in bad:
        print(f'harness: lava: invalid job: {line}', file=sys.stderr)
    print(f'harness: {len(paths)} LAVA jobs in {jobs_dir}; ' +
          (f'not checked against LAVA\'s schema: {why}' if why else
           f'{len(paths) - len(bad)} valid by LAVA\'s job schema'))
    print(f'harness: images in {images} (the lab fetches them from {base}); the device '
          f'dictionary {os.path.join(outdir, "device.jinja2")}; each job\'s log to '
          f'{os.path.join(outdir, "logs")}/<job file name>.log, then harness.py merge')
    return xt_model.EXIT_FAIL if bad else xt_model.EXIT_PASS


def boot_all(args: Request, configs: list[Config], boots: str
             ) -> tuple[list[BootResult], list[GroupRecord], str, str, Stopped | None]:
    """Boot every config here: (results, the Xen boots that ran domUs,
    the acceleration, why, the stop that ended the run early with the
    results of the boots that were over, or None)."""
    try:
        accel_args, accel, accel_why = xt_boot.choose_accel(
            args.accel, args.xen_elf(args.xens[0]), args.vcpus,
            need_hap=any(xt_boot.GUEST_TYPES[t].cpu_model for t in args.guest_types),
            qemu=args.qemu_binary(args.xens[0]))
    except xt_boot.AccelError as e:
        die(str(e))
    machines = machines_of(args, accel_args)
    kernel_names = names_of_kernels(args)
    print(f'harness: QEMU accel {accel.upper()} ({accel_why})', flush=True)
    print(f'harness: platform {"; ".join(args.platform(x) for x in args.xens)}', flush=True)
    print(f'harness: {args.cmd}, {len(configs)} configs, guest {kernel_names} '
          f'({" ".join(args.guest_types)}), {args.vcpus} vCPUs, {args.samples} samples per interval, '
          f'QEMU {accel.upper()}', flush=True)
    jobs = [Job(k, f'[{k}/{len(configs)}] {c.name}', c) for k, c in enumerate(configs, 1)]
    # A domU type's configs of one Xen boot share it (boot_group); a guest
    # that is dom0 boots once per config.
    grouped: dict[tuple[str, str, str, int], list[Job]] = {}
    for j in jobs:
        if xt_boot.GUEST_TYPES[j.config.guest_type].domu:
            grouped.setdefault(j.config.xen_key, []).append(j)
    groups: list[GroupRecord] = []
    done_groups = set()
    stopped = None
    try:
        for j in jobs:
            machine = machines[machine_key(args, j.config)]
            if not machine.guest.domu:
                boot_config(args, machine, boots, j)
                continue
            key = j.config.xen_key
            if key in done_groups:
                continue
            done_groups.add(key)
            _, _, t, x = key
            gtag = (f'[Xen {len(done_groups)}/{len(grouped)}] {j.config.lead}{t.upper()} '
                    f'Xen ({x})')
            boot_group(args, machine, boots, grouped[key], gtag, groups)
    except Stopped as e:
        stopped = e
    return [j.result for j in jobs if j.result is not None], groups, accel, accel_why, stopped


def merge_logs(args: Request, configs: list[Config], boots: str) -> list[BootResult]:
    """Each config's LAVA job log judged as a local boot of it: a missing
    log, or one LAVA ended before the end marker, is INFRA."""
    logs = args.logs or os.path.join(args.out, f'{args.name}-lava', 'logs')
    machines = machines_of(args, lava_accel(args))
    results = []
    for k, c in enumerate(configs, 1):
        m = machines[machine_key(args, c)]
        cmdline = args.guest.cmdline(c)
        path = os.path.join(logs, f'{job_stem(k, c)}.log')
        try:
            boot = (xt_lava.Replay(m, cmdline, xt_lava.read_log(path)) if os.path.exists(path)
                    else xt_lava.missing_log(m, cmdline, path))
        except (xt_lava.LavaError, OSError) as e:
            die(str(e))
        r = xt_verdict.evaluate(boot, c, args.check, boots, str(k))
        r.xen_cmdline = xt_boot.xen_cmdline(m, c.xen_slop)
        r.tries = [Try(r.outcome, r.status, r.seconds, r.console, r.facts.noise_checks)]
        print(f'[{k}/{len(configs)}] {c.name}: {str(r.outcome).upper()} ({r.status}) '
              f'from {os.path.basename(path)}', flush=True)
        results.append(r)
    return results


def run(args: Request) -> int:
    """Boot (or merge) every config, report, and return the run's exit code."""
    configs = lava_configs(args) if args.cmd == 'merge' else configs_of(args)
    # Each boot's console and KTAP streams go below the results, not beside.
    boots = os.path.join(args.out, f'{args.name}-boots')
    shutil.rmtree(boots, ignore_errors=True)
    os.makedirs(boots)
    t0 = time.monotonic()
    groups: list[GroupRecord] = []
    stopped = None
    if args.cmd == 'merge':
        results = merge_logs(args, configs, boots)
        accel = 'kvm' if lava_accel(args) else 'tcg'
        accel_why = "the LAVA jobs' context"
    else:
        results, groups, accel, accel_why, stopped = boot_all(args, configs, boots)
        if stopped is not None and not results:
            raise stopped
    total = time.monotonic() - t0
    renamed, disagree = cross_boot_differences(args, results)
    summary = xt_model.RunSummary(
        name=args.name, command=args.cmd, guest_types=args.guest_types,
        guest_kernel=names_of_kernels(args),
        kernels=tuple((k.version, os.path.basename(k.kernel)) for k in args.kernels),
        accel=accel, accel_why=accel_why, vcpus=args.vcpus, domu_memory_mb=args.memory,
        samples=args.samples, intervals=args.intervals, seconds=total, repeat=args.repeat,
        retries=0 if args.cmd == 'merge' else args.retries, results=tuple(results),
        groups=tuple(groups), name_differences=tuple(renamed),
        type_differences=tuple(disagree),
        platforms=tuple((x, args.platform(x), d)
                        for x, d in zip(args.xens, args.xen_slop_defaults)),
        stopped=signal.Signals(stopped.signum).name if stopped else '',
        configs_asked=len(configs))
    files = write_reports(args, summary, f'{accel.upper()} ({accel_why})')
    if stopped is not None:
        # The boots that were over have their verdicts; the run has none.
        js = os.path.join(args.out, f'{args.name}.json')
        stopped.judged = (f'{len(results)} of {len(configs)} configs judged, in {js}; '
                          'the rest have no verdict')
        raise stopped
    print(f'harness: {len(configs)} configs in {total:.0f} s; {files}; consoles in {boots}')
    return run_exit(args, summary)


def cross_boot_differences(args: Request,
                           results: list[BootResult]) -> tuple[list[str], list[str]]:
    """Result names that differ between finished boots, and results on
    which the guest types disagree: each printed, both returned (either
    fails the run)."""
    renamed = xt_verdict.name_differences(results)
    for line in renamed:
        print(f'harness: result names differ: {line}')
    finished = [r for r in results if r.finished]
    if finished and not renamed:
        print(f'harness: the same {len(finished[0].names)} result names in every finished boot')
    disagree = xt_verdict.type_differences(results)
    for line in disagree:
        print(f'harness: guest types disagree on {line}')
    if args.cmd == 'edge' and len(args.guest_types) > 1 and not disagree:
        print(f'harness: {", ".join(t.upper() for t in args.guest_types)} made the same '
              'min_delta_ns of every line')
    return renamed, disagree


def write_reports(args: Request, summary: xt_model.RunSummary, accel_desc: str) -> str:
    """The run's table (and summary table, or the edge run's params table),
    plot, repeat table, KTAP and JSON, written to OUT and the tables
    printed; returns where they went, for the last lines."""
    results = list(summary.results)
    intervals = list(args.intervals)
    txt = os.path.join(args.out, f'{args.name}.txt')
    with open(txt, 'w') as f:
        xt_report.print_table(results, intervals, args.spike_us, accel_desc, f)
    png = None
    if args.cmd == 'edge':
        table = xt_report.params_table(results, summary.guest_kernel, accel_desc)
        with open(os.path.join(args.out, f'{args.name}-params.txt'), 'w') as f:
            f.write(table)
    else:
        xt_report.print_table(results, intervals, args.spike_us, accel_desc, sys.stdout)
        table = xt_report.summary_table(results, intervals, args.spike_us, accel_desc)
        with open(os.path.join(args.out, f'{args.name}-summary.txt'), 'w') as f:
            f.write(table)
        png = xt_report.plot(results, intervals, args.name, args.out)
    print(table)
    if args.repeat > 1:
        rtable = xt_report.repeat_table(results)
        with open(os.path.join(args.out, f'{args.name}-repeat.txt'), 'w') as f:
            f.write(rtable)
        print(rtable)
    ktap = os.path.join(args.out, f'{args.name}.ktap')
    with open(ktap, 'w') as f:
        f.write(xt_report.run_ktap(results, args.name, accel_desc))
    js = os.path.join(args.out, f'{args.name}.json')
    xt_report.write_json(js, summary.as_json())
    if summary.groups:
        print(f'harness: {len(summary.groups)} Xen boots ran the domUs of '
              f'{sum(len(g.configs) for g in summary.groups)} tries, '
              f'{sum(g.shared_seconds for g in summary.groups):.0f} s of them Xen and dom0')
    return f'table {txt}, JSON {js}, KTAP {ktap}' + (f', plot {png}' if png else '')


def run_exit(args: Request, summary: xt_model.RunSummary) -> int:
    """The counts, and the exit code: a difference between boots or with
    --compare's run fails; --expect-flagged wants every boot flagged;
    else the worst outcome (xt_model.run_exit)."""
    passed, failed, infra = (summary.count(o) for o in (Outcome.PASS, Outcome.FAIL,
                                                         Outcome.INFRA))
    print(f'harness: {passed} passed, {failed} failed, {infra} infra '
          f'({summary.infra_tries} infra tries, --retries {summary.retries})')
    if infra:
        print(f'harness: {infra} configs still ended INFRA after {summary.retries} '
              'retries: LAVA, the emulator, Xen or the firmware broke them, not the kernel '
              f'(exit {xt_model.EXIT_INFRA})')
    if args.compare:
        differ = compare_runs(args, [r.as_json() for r in summary.results])
        if differ:
            return differ
    differs = bool(summary.name_differences or summary.type_differences)
    if args.expect_flagged:
        print(f'harness: a broken kernel: {failed} of {len(summary.results)} boots '
              f'flagged, {passed} missed, {infra} infra')
        if passed or differs:
            return xt_model.EXIT_FAIL
        return xt_model.EXIT_INFRA if infra else xt_model.EXIT_PASS
    if differs:
        return xt_model.EXIT_FAIL
    return xt_model.run_exit(r.outcome for r in summary.results)


def compare_runs(args: Request, configs: list[dict[str, typing.Any]]) -> int:
    """merge --compare: the merged verdicts against another run's of the
    same configs.  Returns the exit code of a disagreement (INFRA when a
    config of either ended INFRA: nothing to compare), else 0."""
    try:
        with open(args.compare) as f:
            other = json.load(f)['configs']
    except (OSError, ValueError, KeyError, TypeError) as e:
        die(f'--compare: {args.compare} is not a run\'s JSON ({e})')
    names = {c['config'] for c in configs}
    other = [c for c in other if c['config'] in names]
    infra = [c['config'] for c in (*configs, *other) if c['outcome'] == str(Outcome.INFRA)]
    bad, notes = xt_verdict.run_differences(configs, other)
    for line in notes:
        print(f'harness: compare: {line} (the config\'s verdict is the same)')
    if infra:
        print(f'harness: compare: {infra[0]} ended INFRA: its verdicts cannot be compared '
              f'(exit {xt_model.EXIT_INFRA})')
        return xt_model.EXIT_INFRA
    for line in bad:
        print(f'harness: compare: {line}')
    if bad:
        return xt_model.EXIT_FAIL
    print(f'harness: compare: the verdicts of {len(configs)} configs equal those of '
          f'{args.compare}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

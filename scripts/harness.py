#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot Xen with a guest kernel under QEMU, run the xen_timer suite inside,
and print the patch thread's latency table.

  harness.py matrix  Xen timer_slop x guest xen_timer_slop=, the thread's table
  harness.py edge    one boot per line of --params-file, slop test only
  harness.py repeat  every config --runs times: how often each check flagged

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
import os
import re
import shutil
import subprocess
import sys
import time
from typing import Iterator, NoReturn

import xt_boot
import xt_console
import xt_model
import xt_report
import xt_verdict
from xt_model import (BootResult, CheckSettings, Config, GroupRecord, GuestSettings, Outcome,
                      Try)

DEFAULT = 'default'


def die(msg: str) -> NoReturn:
    print(f'harness: {msg}', file=sys.stderr)
    sys.exit(xt_model.EXIT_USAGE)


def slop_list(text: str, name: str) -> list[int | None]:
    """Slops in ns, "default" (None) for the parameter left out."""
    out: list[int | None] = []
    for item in text.replace(',', ' ').split():
        if item == DEFAULT:
            out.append(None)
        elif re.fullmatch(r'[0-9]+', item):
            out.append(int(item))
        else:
            die(f'{name}: "{item}" is neither a number of ns nor "default"')
    if not out:
        die(f'{name}: empty list')
    return out


def int_list(text: str, name: str, lo: int, hi: int) -> list[int]:
    out = []
    for item in text.replace(',', ' ').split():
        if not re.fullmatch(r'[0-9]+', item) or not lo <= int(item) <= hi:
            die(f'{name}: "{item}" is not a whole number in {lo}..{hi}')
        out.append(int(item))
    if not out:
        die(f'{name}: empty list')
    return out


def type_list(text: str) -> list[str]:
    out: list[str] = []
    for item in text.replace(',', ' ').split():
        if item not in xt_boot.GUEST_TYPES:
            die(f'GUEST_TYPES: "{item}" is not one of {" ".join(sorted(xt_boot.GUEST_TYPES))}')
        if item not in out:
            out.append(item)
    if not out:
        die('GUEST_TYPES: empty list')
    return out


def common_options(p: argparse.ArgumentParser) -> None:
    p.add_argument('--xen', required=True, help="Xen's ELF (gunzipped xen-4.17-amd64.gz)")
    p.add_argument('--kernel', default='', help='the guest kernel')
    p.add_argument('--kernel-set', action='append', nargs=3, default=[],
                   metavar=('VERSION', 'KERNEL', 'DOM0_INITRD'),
                   help='a guest kernel as an axis value (instead of --kernel and '
                   '--dom0-initrd; repeat it): its version leads the config names')
    p.add_argument('--initrd', required=True, help="scripts/mkinitramfs.sh's initramfs")
    p.add_argument('--dom0-initrd', default='',
                   help="scripts/mkinitramfs-dom0.sh's initramfs, for the domU types")
    p.add_argument('--out', required=True, help='results directory')
    p.add_argument('--name', default='matrix', help='prefix of the result files')
    p.add_argument('--guest-types', default='pv',
                   help=f'one or more of {" ".join(xt_boot.GUEST_TYPES)}; each config boots as each')
    p.add_argument('--intervals', default='50 1000',
                   help='intervals of the latency test and cyclictest, us')
    p.add_argument('--samples', default='1000', help='samples per interval')
    p.add_argument('--oneshot', default='200', help="the latency test's least number of one-shot reference sleeps")
    p.add_argument('--vcpus', default='2')
    p.add_argument('--timeout', default='300', help='seconds per boot (per domU)')
    p.add_argument('--spike-us', default='100', help="the table's spike threshold, us")
    p.add_argument('--lat-opts', default='', help='more options for xen_timer_latency_test')
    p.add_argument('--guest-args', default='', help="more on the guest's command line")
    p.add_argument('--kunit-py', default='',
                   help="the tree's kunit.py, to parse every KTAP stream with")
    p.add_argument('--kunit-boot', action='store_true',
                   help='the guest runs KUnit at boot: its KTAP must pass')
    p.add_argument('--kunit-min', type=int, default=1,
                   help='fail unless KUnit at boot ran at least this many cases')
    p.add_argument('--accel', default='auto', choices=('auto', 'kvm', 'tcg'),
                   help='QEMU acceleration; auto probes KVM with a short Xen boot')
    p.add_argument('--taskset', default='', help='host CPUs to pin QEMU to (taskset -c)')
    p.add_argument('--retries', default='2',
                   help='boot a config again this many times while it ends INFRA')


def slop_options(p: argparse.ArgumentParser) -> None:
    p.add_argument('--xen-slops', default='50000 5000',
                   help='Xen timer_slop= values, ns, or "default" for none')
    p.add_argument('--guest-slops', default='100000 5000',
                   help='guest xen_timer_slop= values, ns, or "default" for none')
    p.add_argument('--no-default-config', action='store_true',
                   help='skip the extra config with both defaults')


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or '').splitlines()[0])
    sub = ap.add_subparsers(dest='cmd', metavar='matrix|edge|repeat')
    sub.required = True
    fmt = argparse.ArgumentDefaultsHelpFormatter
    m = sub.add_parser('matrix', help='the slop matrix and the thread table', formatter_class=fmt)
    common_options(m)
    slop_options(m)
    e = sub.add_parser('edge', help='one boot per line of guest parameters', formatter_class=fmt)
    common_options(e)
    e.add_argument('--params-file', required=True,
                   help='one boot per line of guest parameters, slop test only')
    r = sub.add_parser('repeat', help='every config --runs times, count what flagged',
                       formatter_class=fmt)
    common_options(r)
    slop_options(r)
    r.add_argument('--runs', required=True)
    r.add_argument('--expect-flagged', action='store_true',
                   help='a broken kernel: succeed only if every boot was flagged')
    r.add_argument('--host-load', default='', metavar='CPUS',
                   help='keep the host CPUs CPUS busy while it runs (stress-ng --cpu 1)')
    args = ap.parse_args(argv)

    args.intervals = int_list(args.intervals, 'INTERVALS', 1, 1000000)
    args.samples = int_list(args.samples, 'SAMPLES', 1, 10000000)[0]
    args.oneshot = int_list(args.oneshot, 'ONESHOT', 10, 1000000)[0]
    args.vcpus = int_list(args.vcpus, 'VCPUS', 1, 64)[0]
    args.timeout = int_list(args.timeout, 'TIMEOUT', 10, 86400)[0]
    args.spike_us = int_list(args.spike_us, 'SPIKE_US', 1, 10000000)[0]
    args.retries = int_list(args.retries, 'RETRIES', 0, 10)[0]
    args.repeat = int_list(args.runs, 'RUNS', 1, 1000)[0] if args.cmd == 'repeat' else 1
    args.expect_flagged = getattr(args, 'expect_flagged', False)
    args.host_load = getattr(args, 'host_load', '')
    if args.host_load and not re.fullmatch(r'\d+([-,]\d+)*', args.host_load):
        die(f'--host-load: {args.host_load!r} is not a CPU list like 1 or 0-1')
    if args.host_load and not shutil.which('stress-ng'):
        die('stress-ng missing: run make deps')
    args.params_file = getattr(args, 'params_file', '')
    if args.taskset and not re.fullmatch(r'\d+([-,]\d+)*', args.taskset):
        die(f'--taskset: {args.taskset!r} is not a CPU list like 0 or 0-1')
    if args.taskset and not shutil.which('taskset'):
        die('taskset missing (util-linux)')
    args.guest_types = type_list(args.guest_types)
    domu = [t for t in args.guest_types if xt_boot.GUEST_TYPES[t].domu]
    if args.kernel_set and (args.kernel or args.dom0_initrd):
        die('give --kernel-set or --kernel and --dom0-initrd, not both')
    if not args.kernel_set and not args.kernel:
        die('no guest kernel: give --kernel or --kernel-set')
    # The kernel axis: (version or '', kernel, dom0 initramfs).
    args.kernels = [tuple(k) for k in args.kernel_set] or [('', args.kernel, args.dom0_initrd)]
    if len({k[0] for k in args.kernels}) != len(args.kernels):
        die('--kernel-set: each version once')
    for _, kernel, dom0_initrd in args.kernels:
        if domu and not dom0_initrd:
            die(f'guest type {domu[0]} needs --dom0-initrd (scripts/mkinitramfs-dom0.sh)')
        for f in (kernel, *([dom0_initrd] if domu else [])):
            if not os.path.isfile(f):
                die(f'{f} does not exist')
    for f in (args.xen, args.initrd):
        if not os.path.isfile(f):
            die(f'{f} does not exist')
    if args.kunit_boot and not args.kunit_py:
        die('--kunit-boot needs --kunit-py')
    if any(xt_boot.GUEST_TYPES[t].efi for t in args.guest_types):
        for f in (xt_boot.XEN_EFI, xt_boot.OVMF):
            if not os.path.isfile(f):
                die(f'{f} missing, needed by a PVH dom0: run make deps')
    if not shutil.which('qemu-system-x86_64'):
        die('qemu-system-x86_64 missing: run make deps')
    args.guest = GuestSettings(intervals=tuple(args.intervals), samples=args.samples,
                               oneshot=args.oneshot, hist_us=xt_console.CYCLICTEST_HIST_US,
                               rt_priority=xt_console.CYCLICTEST_RT_PRIORITY,
                               lat_opts=args.lat_opts, guest_args=args.guest_args)
    args.check = CheckSettings(intervals=tuple(args.intervals), spike_us=args.spike_us,
                               tests=(xt_console.SLOP_TEST,) if args.cmd == 'edge' else
                               (xt_console.SLOP_TEST, xt_console.PROGRAM_TEST,
                                xt_console.LATENCY_TEST),
                               kunit_py=args.kunit_py, kunit_boot=args.kunit_boot,
                               kunit_min=args.kunit_min)
    return args


def configs_of(args: argparse.Namespace) -> list[Config]:
    """Every config of the run, each repeated, kernel outermost, then the
    guest type."""
    return [dataclasses.replace(c, kernel=kv) for kv, _, _ in args.kernels
            for c in type_configs(args)]


def type_configs(args: argparse.Namespace) -> list[Config]:
    if args.cmd == 'edge':
        try:
            with open(args.params_file) as f:
                plines = [l.strip() for l in f if l.strip() and not l.startswith('#')]
        except OSError as e:
            die(f'{args.params_file}: {e.strerror}')
        return [Config('', t, None, None, '' if p == '(none)' else p)
                for t in args.guest_types for p in plines]
    xs = slop_list(args.xen_slops, 'XEN_SLOPS')
    gs = slop_list(args.guest_slops, 'GUEST_SLOPS')
    slops = [(x, g) for x in xs for g in gs]
    if not args.no_default_config and (None, None) not in slops:
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


def try_done(args: argparse.Namespace, job: Job, r: BootResult) -> bool:
    """Record one try of job (its result r): True if it is to be booted
    again (it ended INFRA and has tries left).  A FAIL never is."""
    n = len(job.tries) + 1
    ttag = try_tag(args, job)
    # A finished boot that is INFRA: checks the platform could not resolve.
    platform = [f for f in r.failures() if f.startswith(xt_model.PLATFORM_FLAG)]
    job.tries.append(Try(r.outcome, platform[0] if platform and r.outcome is Outcome.INFRA
                         else r.status, r.seconds, r.console))
    nfail = sum(v.status is xt_model.Status.FAIL for v in r.facts.results)
    why = r.status if not r.finished else f'boot ok, {nfail} checks failed'
    if platform:
        why += f', {len(platform)} the platform could not resolve ({platform[0]})'
    if r.finished and r.facts.bad_exit:
        why += f', {" and ".join(r.facts.bad_exit)} ended without pass or skip'
    if r.finished and r.kunit is not None and not r.kunit.ok:
        why += ', KUnit failed'
    print(f'{ttag}: {str(r.outcome).upper()} ({why}) in {r.seconds:.0f} s', flush=True)
    if r.outcome is Outcome.INFRA and n <= args.retries:
        print(f'{ttag}: the emulator, Xen or the firmware broke, not the kernel: '
              'booting it again', flush=True)
        return True
    r.tries = list(job.tries)
    job.result = r
    return False


def try_tag(args: argparse.Namespace, job: Job) -> str:
    n = len(job.tries) + 1
    return job.tag if n == 1 else f'{job.tag} (try {n} of {args.retries + 1})'


def try_idx(job: Job) -> str:
    n = len(job.tries) + 1
    return str(job.k) if n == 1 else f'{job.k}.try{n}'


def boot_config(args: argparse.Namespace, machine: xt_boot.Machine, boots: str,
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


def boot_group(args: argparse.Namespace, machine: xt_boot.Machine, boots: str,
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
        gb.run(lambda i, s: print(f'{tags[i] if i >= 0 else btag}: {s}', flush=True))
        glog = os.path.join(boots, f'group-{len(groups) + 1}.log')
        with open(glog, 'w') as f:
            f.write('\n'.join(gb.lines) + '\n')
        group = GroupRecord(index=len(groups) + 1, xen_cmdline=gb.xen_cmd,
                            guest_type=machine.guest.name, seconds=round(gb.seconds, 1),
                            shared_seconds=round(gb.shared_seconds, 1),
                            shared_timing=dict(gb.shared_timing), console=glog)
        groups.append(group)
        print(f'{btag}: Xen and dom0 took {gb.shared_seconds:.0f} s, the boot '
              f'{gb.seconds:.0f} s', flush=True)
        again = []
        for j, part in zip(pending, gb.parts):
            if not part.reached:
                print(f'{try_tag(args, j)}: not run (the boot ended before its domU); '
                      'booting it again', flush=True)
                again.append(j)
                continue
            r = xt_verdict.evaluate(part, j.config, args.check, boots, try_idx(j))
            r.xen_cmdline = gb.xen_cmd
            r.group = group.index
            group.configs.append(j.k)
            if try_done(args, j, r):
                again.append(j)
        if not group.configs:
            # Cannot happen: the domU that ended a boot has its result.
            die(f'{btag}: internal error: no domU of the boot got a result')
        pending = again


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


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    with host_load(args.host_load):
        return run(args)


def run(args: argparse.Namespace) -> int:
    configs = configs_of(args)
    args.out = os.path.abspath(args.out)
    # Each boot's console and KTAP streams go below the results, not beside.
    boots = os.path.join(args.out, f'{args.name}-boots')
    shutil.rmtree(boots, ignore_errors=True)
    os.makedirs(boots)
    try:
        accel_args, accel, accel_why = xt_boot.choose_accel(
            args.accel, args.xen, args.vcpus,
            need_hap=any(xt_boot.GUEST_TYPES[t].cpu_model for t in args.guest_types))
    except xt_boot.AccelError as e:
        die(str(e))
    accel_desc = f'{accel.upper()} ({accel_why})'
    machines = {(kv, t): xt_boot.Machine(guest=xt_boot.GUEST_TYPES[t], xen=args.xen,
                                         kernel=kernel,
                                         initrd=dom0_initrd if xt_boot.GUEST_TYPES[t].domu
                                         else args.initrd,
                                         vcpus=args.vcpus, timeout=args.timeout,
                                         accel_args=tuple(accel_args), taskset=args.taskset)
                for kv, kernel, dom0_initrd in args.kernels for t in args.guest_types}
    kernel_names = ', '.join(f'{kv + " " if kv else ""}{os.path.basename(k)}'
                             for kv, k, _ in args.kernels)
    print(f'harness: QEMU accel {accel_desc}', flush=True)
    print(f'harness: {args.cmd}, {len(configs)} configs, guest {kernel_names} '
          f'({" ".join(args.guest_types)}), {args.vcpus} vCPUs, {args.samples} samples per interval, '
          f'QEMU {accel.upper()}', flush=True)
    t0 = time.monotonic()
    jobs = [Job(k, f'[{k}/{len(configs)}] {c.name}', c) for k, c in enumerate(configs, 1)]
    # A domU type's configs of one Xen boot share it (boot_group); a guest
    # that is dom0 boots once per config.
    grouped: dict[tuple[str, str, int], list[Job]] = {}
    for j in jobs:
        if xt_boot.GUEST_TYPES[j.config.guest_type].domu:
            grouped.setdefault(j.config.xen_key, []).append(j)
    groups: list[GroupRecord] = []
    done_groups = set()
    for j in jobs:
        machine = machines[(j.config.kernel, j.config.guest_type)]
        if not machine.guest.domu:
            boot_config(args, machine, boots, j)
            continue
        key = j.config.xen_key
        if key in done_groups:
            continue
        done_groups.add(key)
        kv, t, x = key
        gtag = (f'[Xen {len(done_groups)}/{len(grouped)}] {kv + " " if kv else ""}'
                f'{t.upper()} Xen ({x})')
        boot_group(args, machine, boots, grouped[key], gtag, groups)
    results = [j.result for j in jobs if j.result is not None]
    total = time.monotonic() - t0
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

    txt = os.path.join(args.out, f'{args.name}.txt')
    with open(txt, 'w') as f:
        xt_report.print_table(results, args.intervals, args.spike_us, accel_desc, f)
    png = None
    if args.cmd == 'edge':
        table = xt_report.params_table(results, kernel_names, accel_desc)
        with open(os.path.join(args.out, f'{args.name}-params.txt'), 'w') as f:
            f.write(table)
    else:
        xt_report.print_table(results, args.intervals, args.spike_us, accel_desc, sys.stdout)
        table = xt_report.summary_table(results, args.intervals, args.spike_us, accel_desc)
        with open(os.path.join(args.out, f'{args.name}-summary.txt'), 'w') as f:
            f.write(table)
        png = xt_report.plot(results, args.intervals, args.name, args.out)
    print(table)
    if args.repeat > 1:
        rtable = xt_report.repeat_table(results)
        with open(os.path.join(args.out, f'{args.name}-repeat.txt'), 'w') as f:
            f.write(rtable)
        print(rtable)
    count = {o: sum(r.outcome is o for r in results) for o in Outcome}
    summary = {'name': args.name, 'command': args.cmd, 'guest_types': args.guest_types,
               'guest_kernel': kernel_names,
               'kernels': [{'version': kv, 'kernel': os.path.basename(k)}
                           for kv, k, _ in args.kernels],
               'accel': accel, 'accel_why': accel_why, 'vcpus': args.vcpus,
               'samples': args.samples, 'intervals': args.intervals,
               'seconds': round(total, 1), 'repeat': args.repeat,
               'passed': count[Outcome.PASS], 'failed': count[Outcome.FAIL],
               'infra': count[Outcome.INFRA], 'retries': args.retries,
               'infra_tries': sum(r.infra_tries for r in results),
               'name_differences': renamed, 'type_differences': disagree,
               'groups': [g.as_json() for g in groups],
               'configs': [r.as_json() for r in results]}
    ktap = os.path.join(args.out, f'{args.name}.ktap')
    with open(ktap, 'w') as f:
        f.write(xt_report.run_ktap(results, args.name, accel_desc))
    js = os.path.join(args.out, f'{args.name}.json')
    xt_report.write_json(js, summary)
    if groups:
        print(f'harness: {len(groups)} Xen boots ran the domUs of '
              f'{sum(len(g.configs) for g in groups)} tries, '
              f'{sum(g.shared_seconds for g in groups):.0f} s of them Xen and dom0')
    print(f'harness: {len(configs)} configs in {total:.0f} s; table {txt}, JSON {js}, KTAP {ktap}'
          + (f', plot {png}' if png else '') + f'; consoles in {boots}')
    print(f'harness: {summary["passed"]} passed, {summary["failed"]} failed, '
          f'{summary["infra"]} infra ({summary["infra_tries"]} infra tries, '
          f'--retries {args.retries})')
    if summary['infra']:
        print(f'harness: {summary["infra"]} configs still ended INFRA after {args.retries} '
              'retries: the emulator, Xen or the firmware broke them, not the kernel '
              f'(exit {xt_model.EXIT_INFRA})')
    if args.expect_flagged:
        print(f'harness: a broken kernel: {summary["failed"]} of {len(results)} boots '
              f'flagged, {summary["passed"]} missed, {summary["infra"]} infra')
        if summary['passed'] or renamed or disagree:
            return xt_model.EXIT_FAIL
        return xt_model.EXIT_INFRA if summary['infra'] else xt_model.EXIT_PASS
    if renamed or disagree:
        return xt_model.EXIT_FAIL
    return xt_model.run_exit(r.outcome for r in results)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

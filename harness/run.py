# SPDX-License-Identifier: GPL-2.0
"""The run: every config of a Request booted (or merged from LAVA's
logs), each boot judged, the reports written, and the run's exit code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import typing
from typing import Any, Iterator

from . import boot, lava, model, platforms, report, verdict
from .model import BootResult, Config, GroupRecord, MachineKey, Outcome, Try, die
from .request import XEN_FIELD, Request


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
    return [Config('', t, x, g, None, n if args.repeat > 1 else 0)
            for t in args.guest_types for x, g in slops for n in range(1, args.repeat + 1)]


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
    # A try's reason (BootResult.reason): a finished boot that is INFRA,
    # the first check the platform could not resolve; one the platform
    # ended first (a triple fault after the selftests), its death's.
    platform = [f for f in r.failures() if f.startswith(model.PLATFORM_FLAG)]
    job.tries.append(Try(r.outcome, r.reason, r.seconds, r.console, r.facts.noise))
    nfail = sum(v.status is model.Status.FAIL for v in r.facts.results)
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


def boot_config(args: Request, machine: boot.Machine, boots: str,
                job: Job) -> None:
    """Boot one config whose guest is dom0, again while it ends INFRA
    (--retries more times)."""
    while True:
        qemu = boot.Boot(machine, job.config.xen_slop, args.guest.cmdline(job.config))
        ttag = try_tag(args, job)
        print(f'{ttag}: booting', flush=True)
        qemu.run(lambda s: print(f'{ttag}: {s}', flush=True))
        r = verdict.evaluate(qemu, job.config, args.check, boots, try_idx(job))
        r.xen_cmdline = qemu.xen_cmd
        if not try_done(args, job, r):
            return


def boot_group(args: Request, machine: boot.Machine, boots: str,
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
        gb = boot.GroupBoot(machine, pending[0].config.xen_slop,
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


def judge_group(args: Request, boots: str, gb: boot.GroupBoot, jobs: list[Job],
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
        r = verdict.evaluate(part, j.config, args.check, boots, try_idx(j))
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


def machine_key(args: Request, c: Config) -> MachineKey:
    """The machine a config boots on: its kernel, Xen and guest type."""
    return (c.kernel, c.xen or args.xens[0], c.guest_type)


def machines_of(args: Request, accel_args: list[str]) -> dict[MachineKey, boot.Machine]:
    """The machine of each kernel, Xen and guest type."""
    out = {}
    for k in args.kernels:
        for xv in args.xens:
            plat = platforms.PLATFORMS[xv]
            for t in args.guest_types:
                domu = boot.GUEST_TYPES[t].domu
                out[(k.version, xv, t)] = boot.Machine(
                    guest=boot.GUEST_TYPES[t], xen=args.xen_elf(xv), kernel=k.boots(domu),
                    initrd=k.dom0_initrd.replace(XEN_FIELD, xv) if domu else args.initrd,
                    vcpus=args.vcpus, timeout=args.timeout, accel_args=tuple(accel_args),
                    taskset=args.taskset, domu_params=args.domu_params,
                    qemu=args.qemu_binary(xv),
                    xen_efi=plat.path(args.platform_dir, plat.xen_efi),
                    ovmf=plat.path(args.platform_dir, platforms.OVMF),
                    platform=args.platform(xv))
    return out


def names_of_kernels(args: Request) -> str:
    """The kernel axis as the reports name it: '7.3 vmlinuz, 6.12 vmlinuz'."""
    return ', '.join(f'{k.version + " " if k.version else ""}{os.path.basename(k.kernel)}'
                     + (f' (dom0 of its domUs: {k.dom0_kernel})' if k.dom0_kernel else '')
                     for k in args.kernels)


def boot_all(args: Request, configs: list[Config], boots: str
             ) -> tuple[list[BootResult], list[GroupRecord], str, str, Stopped | None]:
    """Boot every config here: (results, the Xen boots that ran domUs,
    the acceleration, why, the stop that ended the run early with the
    results of the boots that were over, or None)."""
    try:
        accel_args, accel, accel_why = boot.choose_accel(
            args.accel, args.xen_elf(args.xens[0]), args.vcpus,
            need_hap=any(boot.GUEST_TYPES[t].cpu_model for t in args.guest_types),
            qemu=args.qemu_binary(args.xens[0]))
    except boot.AccelError as e:
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
        if boot.GUEST_TYPES[j.config.guest_type].domu:
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


def run(args: Request, lab_jobs: tuple[dict[str, Any], ...] = ()) -> int:
    """Boot (or merge: merge and lab) every config, report, and return the
    run's exit code; lab_jobs: the LAVA server's record of each job."""
    merging = args.cmd in ('merge', 'lab')
    configs = lava.lava_configs(args, configs_of) if merging else configs_of(args)
    # Each boot's console and KTAP streams go below the results, not beside.
    boots = os.path.join(args.out, f'{args.name}-boots')
    shutil.rmtree(boots, ignore_errors=True)
    os.makedirs(boots)
    t0 = time.monotonic()
    groups: list[GroupRecord] = []
    stopped = None
    if merging:
        results = lava.merge_logs(args, configs, boots, machines_of, machine_key)
        lab_tries(results, configs, lab_jobs)
        accel = 'kvm' if lava.lava_accel(args) else 'tcg'
        accel_why = "the LAVA jobs' context"
    else:
        results, groups, accel, accel_why, stopped = boot_all(args, configs, boots)
        if stopped is not None and not results:
            raise stopped
    total = time.monotonic() - t0
    renamed, disagree = cross_boot_differences(args, results)
    summary = model.RunSummary(
        name=args.name, command=args.cmd, guest_types=args.guest_types,
        guest_kernel=names_of_kernels(args),
        kernels=tuple((k.version, os.path.basename(k.kernel)) for k in args.kernels),
        accel=accel, accel_why=accel_why, vcpus=args.vcpus, domu_memory_mb=args.memory,
        samples=args.samples, intervals=args.check.intervals, seconds=total, repeat=args.repeat,
        retries=0 if args.cmd == 'merge' else args.retries, results=tuple(results),
        groups=tuple(groups), name_differences=tuple(renamed),
        type_differences=tuple(disagree),
        platforms=tuple((x, args.platform(x), d)
                        for x, d in zip(args.xens, args.xen_slop_defaults)),
        stopped=signal.Signals(stopped.signum).name if stopped else '',
        configs_asked=len(configs), lab_jobs=lab_jobs)
    files = write_reports(args, summary, f'{accel.upper()} ({accel_why})')
    if stopped is not None:
        # The boots that were over have their verdicts; the run has none.
        js = os.path.join(args.out, f'{args.name}.json')
        stopped.judged = (f'{len(results)} of {len(configs)} configs judged, in {js}; '
                          'the rest have no verdict')
        raise stopped
    print(f'harness: {len(configs)} configs in {total:.0f} s; {files}; consoles in {boots}')
    return run_exit(args, summary)


def lab_tries(results: list[BootResult], configs: list[Config],
              lab_jobs: tuple[dict[str, Any], ...]) -> None:
    """A lab's earlier tries of a job (it ended them Incomplete or
    Canceled and the harness submitted the job again) as the INFRA tries
    of its config, before the try whose log was merged."""
    by_stem = {j['job']: j for j in lab_jobs}
    for k, (r, c) in enumerate(zip(results, configs), 1):
        job = by_stem.get(lava.job_stem(k, c))
        if job is None:
            continue
        earlier = [Try(Outcome.INFRA, f"the lab ended LAVA job {t['id']} {t['health']}", 0.0, '')
                   for t in job['times'][:-1]]
        r.tries = earlier + r.tries


def cross_boot_differences(args: Request,
                           results: list[BootResult]) -> tuple[list[str], list[str]]:
    """Result names that differ between finished boots, and results on
    which the guest types disagree: each printed, both returned (either
    fails the run)."""
    renamed = verdict.name_differences(results)
    for line in renamed:
        print(f'harness: result names differ: {line}')
    finished = [r for r in results if r.finished]
    if finished and not renamed:
        print(f'harness: the same {len(finished[0].names)} result names in every finished boot')
    disagree = verdict.type_differences(results)
    for line in disagree:
        print(f'harness: guest types disagree on {line}')
    if args.cmd == 'edge' and len(args.guest_types) > 1 and not disagree:
        print(f'harness: {", ".join(t.upper() for t in args.guest_types)} made the same '
              'min_delta_ns of every line')
    return renamed, disagree


def write_reports(args: Request, summary: model.RunSummary, accel_desc: str) -> str:
    """The run's table (and summary table, or the edge run's params table),
    plot, repeat table, KTAP and JSON, written to OUT and the tables
    printed; returns where they went, for the last lines."""
    results = list(summary.results)
    intervals, spike_us = list(args.check.intervals), args.check.spike_us
    txt = os.path.join(args.out, f'{args.name}.txt')
    with open(txt, 'w') as f:
        report.print_table(results, intervals, spike_us, accel_desc, f)
    png = None
    if args.cmd == 'edge':
        table = report.params_table(results, summary.guest_kernel, accel_desc)
        with open(os.path.join(args.out, f'{args.name}-params.txt'), 'w') as f:
            f.write(table)
    else:
        report.print_table(results, intervals, spike_us, accel_desc, sys.stdout)
        table = report.summary_table(results, intervals, spike_us, accel_desc)
        with open(os.path.join(args.out, f'{args.name}-summary.txt'), 'w') as f:
            f.write(table)
        png = report.plot(results, intervals, args.name, args.out)
    print(table)
    if args.repeat > 1:
        rtable = report.repeat_table(results)
        with open(os.path.join(args.out, f'{args.name}-repeat.txt'), 'w') as f:
            f.write(rtable)
        print(rtable)
    ktap = os.path.join(args.out, f'{args.name}.ktap')
    with open(ktap, 'w') as f:
        f.write(report.run_ktap(results, args.name, accel_desc))
    js = os.path.join(args.out, f'{args.name}.json')
    report.write_json(js, summary.as_json())
    if summary.groups:
        print(f'harness: {len(summary.groups)} Xen boots ran the domUs of '
              f'{sum(len(g.configs) for g in summary.groups)} tries, '
              f'{sum(g.shared_seconds for g in summary.groups):.0f} s of them Xen and dom0')
    return f'table {txt}, JSON {js}, KTAP {ktap}' + (f', plot {png}' if png else '')


def run_exit(args: Request, summary: model.RunSummary) -> int:
    """The counts, and the exit code: a difference between boots or with
    --compare's run fails; --expect-flagged wants every boot flagged;
    else the worst outcome (model.run_exit)."""
    passed, failed, infra = (summary.count(o) for o in (Outcome.PASS, Outcome.FAIL,
                                                         Outcome.INFRA))
    print(f'harness: {passed} passed, {failed} failed, {infra} infra '
          f'({summary.infra_tries} infra tries, --retries {summary.retries})')
    if infra:
        print(f'harness: {infra} configs still ended INFRA after {summary.retries} '
              'retries: LAVA, the emulator, Xen or the firmware broke them, not the kernel '
              f'(exit {model.EXIT_INFRA})')
    if args.compare:
        differ = compare_runs(args, [r.as_json() for r in summary.results])
        if differ:
            return differ
    differs = bool(summary.name_differences or summary.type_differences)
    if args.expect_flagged:
        print(f'harness: a broken kernel: {failed} of {len(summary.results)} boots '
              f'flagged, {passed} missed, {infra} infra')
        if passed or differs:
            return model.EXIT_FAIL
        return model.EXIT_INFRA if infra else model.EXIT_PASS
    if differs:
        return model.EXIT_FAIL
    return model.run_exit(r.outcome for r in summary.results)


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
    bad, notes = verdict.run_differences(configs, other)
    for line in notes:
        print(f'harness: compare: {line} (the config\'s verdict is the same)')
    if infra:
        print(f'harness: compare: {infra[0]} ended INFRA: its verdicts cannot be compared '
              f'(exit {model.EXIT_INFRA})')
        return model.EXIT_INFRA
    for line in bad:
        print(f'harness: compare: {line}')
    if bad:
        return model.EXIT_FAIL
    print(f'harness: compare: the verdicts of {len(configs)} configs equal those of '
          f'{args.compare}')
    return 0

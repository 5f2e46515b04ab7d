# SPDX-License-Identifier: GPL-2.0
"""The harness's data, typed as kunit.py types its own (TestStatus, the
request and result dataclasses): a run's settings, each config of it,
what a console says, and a boot's result with its tries.

A boot has one of three outcomes, as LAVA has Incomplete beside Fail:

  PASS   the guest reached its end marker and every check passed;
  FAIL   the kernel's fault: a check failed, or the guest kernel panicked,
         oopsed or hung after it started;
  INFRA  the emulator's, Xen's or the firmware's: the boot broke before
         the tests finished with no guest panic (a Xen triple fault of an
         HVM/PVH vCPU, a guest that rebooted, QEMU or Xen dying, the
         toolstack failing to start the domU, a timeout before the guest
         kernel started).

An INFRA boot is tried again (--retries); a FAIL never is, so a real
kernel crash cannot be retried into a pass.  The same outcome drives the
retries, every report and the exit status.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import sys
from typing import Any, Iterable, NoReturn

from . import settings

# The selftests.
SLOP_TEST = 'xen_timer_slop_test'
PROGRAM_TEST = 'xen_timer_program_test'
LATENCY_TEST = 'xen_timer_latency_test'

# What marks a failure the platform explains (judge.py): a boot flagged
# by such failures alone is INFRA, and booted again.
PLATFORM_FLAG = 'the platform\'s: '

XEN_DEFAULT_TIMER_SLOP_NS = settings.XEN_DEFAULT_TIMER_SLOP_NS


class Outcome(enum.Enum):
    PASS = 'pass'
    FAIL = 'fail'
    INFRA = 'infra'

    def __str__(self) -> str:
        return self.value


class Status(enum.Enum):
    """One KTAP result."""
    PASS = 'pass'
    FAIL = 'fail'
    SKIP = 'skip'

    def __str__(self) -> str:
        return self.value


# The harness's exit status: any FAIL wins over INFRA (the kernel's fault
# is the news); INFRA alone has its own status, so that CI can tell "the
# emulator broke" from "the kernel broke".
EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_INFRA = 0, 1, 2, 3


def die(msg: str) -> NoReturn:
    """A bad argument, setting or file: one line, and EXIT_USAGE.  Here,
    with the exit statuses, so that every module of the harness can."""
    print(f'harness: {msg}', file=sys.stderr)
    sys.exit(EXIT_USAGE)


# The machine a config boots on: its kernel version, Xen version and
# guest type (run.machine_key).
MachineKey = tuple[str, str, str]


@dataclasses.dataclass(frozen=True)
class Ending:
    """How a console ended: reached is True when the guest printed its end
    marker (the checks then decide), else outcome and reason say why not.
    kind is a fixed phrase per cause ("panic", "hang", "Xen", ...), what
    the reports count boots by; detail is the line or the figures."""
    outcome: Outcome
    kind: str
    detail: str = ''
    reached: bool = False

    @property
    def reason(self) -> str:
        return f'{self.kind}: {self.detail}' if self.detail else self.kind


REACHED = Ending(Outcome.PASS, 'ok', reached=True)


@dataclasses.dataclass(frozen=True)
class Config:
    """One config of a run: the kernel (its version on the kernel axis,
    '' otherwise), the guest type, Xen's timer_slop and the guest's
    xen_timer_slop= (None: the default), or an edge run's guest
    parameters; run: which of --runs repeats (0: not repeated); xen: the
    Xen version on the Xen axis ('' otherwise: the run's one Xen)."""
    kernel: str
    guest_type: str
    xen_slop: int | None
    guest_slop: int | None
    params: str | None = None
    run: int = 0
    xen: str = ''

    @property
    def label(self) -> str:
        """The config's name without its repeat: the thread's row title,
        led by the guest type and the kernel version."""
        if self.params is not None:
            name = f'{self.guest_type.upper()} {self.params or "(none)"}'
        else:
            x = (f'default, {XEN_DEFAULT_TIMER_SLOP_NS}' if self.xen_slop is None
                 else str(self.xen_slop))
            g = 'default' if self.guest_slop is None else str(self.guest_slop)
            name = f'{self.guest_type.upper()} Xen ({x}) | Guest ({g})'
        return f'{self.lead}{name}'

    @property
    def lead(self) -> str:
        """What leads its name on the kernel and Xen axes: '7.3 Xen-4.20 '."""
        return ''.join(f'{w} ' for w in (self.kernel, f'Xen-{self.xen}' if self.xen else '')
                       if w)

    @property
    def name(self) -> str:
        return f'{self.label} #{self.run}' if self.run else self.label

    @property
    def xen_key(self) -> tuple[str, str, str, int]:
        """Configs one Xen boot can run as domUs: the same kernel, Xen,
        guest type and Xen timer_slop (Xen's default and the same value
        given are one Xen)."""
        x = XEN_DEFAULT_TIMER_SLOP_NS if self.xen_slop is None else self.xen_slop
        return (self.kernel, self.xen, self.guest_type, x)


@dataclasses.dataclass(frozen=True)
class GuestSettings:
    """What guest/guest-init is told on the guest's command line (it has
    no defaults of its own): params, the xt_*= of the run's settings
    (settings.guest_params), then per config the slop or the edge
    parameters and Xen's timer_slop."""
    params: tuple[str, ...]
    hist_us: int
    rt_priority: int
    guest_args: str = ''

    def cmdline(self, c: Config) -> str:
        """The guest's command line: its console, the slop or the edge
        parameters, and the xt_*= settings."""
        guest = ['console=hvc0']
        if c.params is not None:
            guest += c.params.split()
        elif c.guest_slop is not None:
            guest.append(f'xen_timer_slop={c.guest_slop}')
        guest += [*self.params, f'xt_hist_us={self.hist_us}', f'xt_rt_prio={self.rt_priority}']
        # What the host holds a guest timer back by: Xen's timer_slop.
        guest.append(f'xt_host_slop={XEN_DEFAULT_TIMER_SLOP_NS if c.xen_slop is None else c.xen_slop}')
        if c.params is not None:
            guest.append('xt_latency=0')
        return ' '.join(guest + self.guest_args.split())


@dataclasses.dataclass(frozen=True)
class CheckSettings:
    """How a console is judged: the selftests it must have run, the
    tree's kunit.py for every KTAP stream, KUnit at boot."""
    intervals: tuple[int, ...]
    spike_us: int
    tests: tuple[str, ...]
    kunit_py: str = ''
    kunit_boot: bool = False
    kunit_min: int = 1


@dataclasses.dataclass(frozen=True)
class KtapResult:
    """One result line of a selftest's KTAP: test is the selftest, name
    '' for a test skipped before its first result ("1..0 # SKIP").  As
    judged (judge.py): platform, why the platform explains a FAIL or a
    SKIP; kernels_skip, a skip under Xen that is the kernel's."""
    test: str
    name: str
    status: Status
    reason: str | None = None
    platform: str | None = None
    kernels_skip: bool = False

    def as_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {'test': self.test, 'name': self.name, 'verdict': str(self.status)}
        if self.reason is not None:
            d['reason'] = self.reason
        if self.platform is not None:
            d['platform'] = self.platform
        return d


@dataclasses.dataclass
class Latency:
    """One interval as one tool measured it (us): ours (XT_LAT) or
    cyclictest's (its summary and a histogram of hist_limit_us buckets).
    A quantile past that histogram's last bucket is None: shown, and
    written to the JSON, as '>hist_limit_us'."""
    samples: int
    min_us: float
    avg_us: float
    max_us: float
    p99_us: float | None
    spikes: int
    p50_us: float | None = None
    p999_us: float | None = None
    overflows: int = 0
    hist: dict[int, int] = dataclasses.field(default_factory=dict)
    hist_limit_us: int | None = None

    def shown(self, key: str) -> float | int | str | None:
        """A field as the reports show it: a quantile past the histogram
        as '>N'."""
        v = getattr(self, key)
        if v is None and key in QUANTILES and self.hist_limit_us is not None:
            return f'>{self.hist_limit_us}'
        return v  # type: ignore[no-any-return]

    def as_json(self) -> dict[str, Any]:
        d = {k: self.shown(k) for k in dataclasses.asdict(self)}
        for k in ('hist', 'hist_limit_us'):
            d.pop(k)
        return {k: v for k, v in d.items() if v is not None}


# The quantiles of a Latency, which a histogram may not reach.
QUANTILES = ('p50_us', 'p99_us', 'p999_us')


@dataclasses.dataclass
class Interval:
    ours: Latency | None = None
    cyclictest: Latency | None = None


@dataclasses.dataclass(frozen=True)
class XtCpu:
    """xen_timer_slop_test's XT_CPU line: one CPU's tick device, the
    clockevent in use, its min_delta_ns and the one expected (-1: not
    given, or none to expect)."""
    cpu: int
    device: str
    current: str
    min_delta_ns: int
    expected_ns: int


@dataclasses.dataclass(frozen=True)
class XtProg:
    """xen_timer_program_test's XT_PROG line: what the kernel asked of the
    Xen timer while the test's expiries ran (requests, the short ones, the
    device's calls and those below or not at the slop), the fires and how
    many were judged, early (by up to early_by_ns) or beside a clock that
    stood still (stuck), the quickest forced fire and its limit (0: not
    judged), the probes' missed hits."""
    slop_ns: int
    events: int
    requests: int
    short: int
    calls: int
    below_slop: int
    short_not_slop: int
    fires: int
    judged: int
    early: int
    early_by_ns: int
    stuck: int
    forced: int
    forced_min_ns: int
    normal: int
    normal_p10_ns: int
    late_limit_ns: int
    missed: int


@dataclasses.dataclass(frozen=True)
class XtLat:
    """xen_timer_latency_test's XT_LAT line: one interval's figures over
    the run and the limits it was held to, ns (spikes: a percentage of
    the samples over spike_ns; over: how many were over over_us)."""
    interval_us: int
    samples: int
    min_ns: int
    avg_ns: float
    max_ns: int
    p50_ns: int
    p99_ns: float
    spikes_pct: float
    spike_ns: int
    over: int
    over_us: int
    ref_samples: int
    ref_avg_ns: float
    ref_p99_ns: float
    avg_limit_ns: float
    p99_limit_ns: float
    spikes_limit_pct: float


@dataclasses.dataclass(frozen=True)
class XtChunk:
    """xen_timer_latency_test's XT_CHUNK line: one of the ten chunks of an
    interval, its periodic sleeps' figures against the limits its own
    one-shot sleeps set, and their median (ref_p50_ns)."""
    interval_us: int
    chunk: int
    samples: int
    avg_ns: float
    avg_limit_ns: float
    p99_ns: float
    p99_limit_ns: float
    spikes_pct: float
    spikes_limit_pct: float
    ref_samples: int
    ref_p50_ns: int

    def value(self, check: str) -> float:
        """The chunk's figure of a check: avg, p99 or spikes."""
        return {'avg': self.avg_ns, 'p99': self.p99_ns, 'spikes': self.spikes_pct}[check]

    def limit(self, check: str) -> float:
        return {'avg': self.avg_limit_ns, 'p99': self.p99_limit_ns,
                'spikes': self.spikes_limit_pct}[check]


# The XT_* lines the selftests print, by tag: each field is a key=value
# of the line, of the field's type.  XT_EV (a trace event around a
# violation) is for the reader of the console alone.
XT_RECORDS: dict[str, type] = {'XT_CPU': XtCpu, 'XT_PROG': XtProg, 'XT_LAT': XtLat,
                               'XT_CHUNK': XtChunk}
XT_UNPARSED: tuple[str, ...] = ()


@dataclasses.dataclass
class ConsoleFacts:
    """What a finished console says (console.parse): the selftests'
    results, the latency figures, what each CPU's clockevent had, the
    kernel's words on the parameter.  problems: a selftest or the runner
    missing; bad_exit: selftests that exited with neither pass nor skip,
    or gave no result; streams: each KTAP stream, by name."""
    results: list[KtapResult] = dataclasses.field(default_factory=list)
    intervals: dict[int, Interval] = dataclasses.field(default_factory=dict)
    problems: list[str] = dataclasses.field(default_factory=list)
    bad_exit: list[str] = dataclasses.field(default_factory=list)
    streams: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    cpus: list[XtCpu] = dataclasses.field(default_factory=list)
    prog_check: XtProg | None = None
    chunks: list[XtChunk] = dataclasses.field(default_factory=list)
    cmdline: str | None = None
    dmesg: list[str] = dataclasses.field(default_factory=list)

    @property
    def noise(self) -> list[str]:
        """The results the platform explained (judge.py), each with why."""
        return [f'{r.test}: {r.name or "(all)"}: {r.platform}' for r in self.results if r.platform]

    @property
    def min_delta_ns(self) -> str | None:
        """The xen clockevent's min_delta_ns as the slop test found it on
        each CPU: one value when they agree, else each CPU's."""
        vals = [str(c.min_delta_ns) for c in self.cpus]
        if not vals:
            return None
        return vals[0] if len(set(vals)) == 1 else '/'.join(vals)


@dataclasses.dataclass
class StreamCheck:
    """One KTAP stream read by the tree's kunit.py: ok, its summary line
    (kunit.py's words), the names of its results, where it was written."""
    ok: bool
    summary: str
    names: list[str]
    path: str


@dataclasses.dataclass
class Try:
    """One boot of a config: the console it left, how it ended, and the
    results the platform explained (judge.py), each with why."""
    outcome: Outcome
    reason: str
    seconds: float
    console: str
    noise: list[str] = dataclasses.field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {'outcome': str(self.outcome), 'reason': self.reason,
                'seconds': round(self.seconds, 1), 'console': self.console,
                'noise': self.noise}


@dataclasses.dataclass
class BootResult:
    """One boot of a config, judged: how its console ended, what it said,
    every KTAP stream through kunit.py; tries: every boot of the config,
    this one last."""
    config: Config
    ending: Ending
    seconds: float
    console: str
    facts: ConsoleFacts
    guest_cmdline: str = ''
    xen_cmdline: str = ''
    timing: dict[str, float] = dataclasses.field(default_factory=dict)
    group: int | None = None
    streams: dict[str, StreamCheck] = dataclasses.field(default_factory=dict)
    kunit: StreamCheck | None = None
    last_lines: list[str] = dataclasses.field(default_factory=list)
    tries: list[Try] = dataclasses.field(default_factory=list)

    @property
    def finished(self) -> bool:
        """The guest reached its end marker and ran every selftest."""
        return self.ending.reached and not self.facts.problems

    @property
    def status(self) -> str:
        """'ok' when finished, else why not."""
        if not self.ending.reached:
            return self.ending.reason
        return self.facts.problems[0] if self.facts.problems else 'ok'

    def failures(self) -> list[str]:
        """What flagged the boot, one line per detector (the console, KUnit
        at boot, each selftest, each failed result, each stream kunit.py
        could not read), sorted; empty for a pass."""
        found = []
        if not self.finished:
            kind = self.ending.kind if not self.ending.reached else self.status
            found.append(f'boot ({self.outcome_of_console}): {kind}')
        if self.kunit is not None and not self.kunit.ok:
            found.append('KUnit at boot')
        for test in self.facts.bad_exit:
            found.append(f'{test}: ended without pass or skip (failed, crashed or timed out)')
        for r in self.facts.results:
            name = re.sub(r'^cpu[0-9]+_', 'cpuN_', r.name)
            if r.platform:
                found.append(f'{PLATFORM_FLAG}{r.test}: {name}')
            elif r.status is Status.FAIL:
                found.append(f'{r.test}: {name}')
            elif r.kernels_skip:
                found.append(f'{r.test}: skipped under Xen ({r.reason})')
        for name, s in self.streams.items():
            if not s.ok:
                found.append(f'kunit.py parse of {name}')
        return sorted(set(found))

    @property
    def outcome_of_console(self) -> Outcome:
        """The console's own verdict: how it ended when the guest did not
        reach its end marker, else FAIL (a selftest missing)."""
        return self.ending.outcome if not self.ending.reached else Outcome.FAIL

    @property
    def outcome(self) -> Outcome:
        """PASS, else the console's verdict; INFRA where only checks the
        platform could not resolve flagged a finished boot."""
        found = self.failures()
        if not found:
            return Outcome.PASS
        if self.finished and all(f.startswith(PLATFORM_FLAG) for f in found):
            return Outcome.INFRA
        return self.outcome_of_console

    @property
    def reason(self) -> str:
        """Why the boot ended as it did, in one phrase: 'ok' for a pass;
        how the console ended when the guest did not finish; the first
        check the platform could not resolve for an INFRA boot that did;
        else what flagged it."""
        found = self.failures()
        if not self.finished or not found:
            return self.status
        if self.outcome is Outcome.INFRA:
            return found[0]
        return 'flagged by ' + '; '.join(f for f in found if not f.startswith(PLATFORM_FLAG))

    @property
    def names(self) -> list[str]:
        """Every result name the boot reported, stream by stream."""
        out = [f'{s}.{n}' for s, c in self.streams.items() for n in c.names]
        return out + [f'kunit.{n}' for n in (self.kunit.names if self.kunit else [])]

    @property
    def infra_tries(self) -> int:
        return sum(t.outcome is Outcome.INFRA for t in self.tries)

    def as_json(self) -> dict[str, Any]:
        c = self.config
        f = self.facts
        d: dict[str, Any] = {
            'config': c.name, 'kernel': c.kernel, 'guest_type': c.guest_type,
            'xen_slop': 'default' if c.xen_slop is None else c.xen_slop,
            'guest_slop': 'default' if c.guest_slop is None else c.guest_slop,
            'params': c.params, 'guest_cmdline': self.guest_cmdline,
            'xen_cmdline': self.xen_cmdline, 'group': self.group,
            'outcome': str(self.outcome), 'status': self.status,
            'seconds': round(self.seconds, 1), 'console': self.console,
            'timing': self.timing, 'names': self.names,
            'verdicts': [r.as_json() for r in f.results],
            'intervals': {i: {k: v.as_json() for k, v in (('ours', iv.ours),
                                                          ('cyclictest', iv.cyclictest)) if v}
                          for i, iv in f.intervals.items()},
            'problems': f.problems, 'bad_exit': f.bad_exit,
            'cpus': [dataclasses.asdict(c) for c in f.cpus],
            'min_delta_ns': f.min_delta_ns,
            'prog_check': dataclasses.asdict(f.prog_check) if f.prog_check else None,
            'noise': f.noise,
            'chunks': [dataclasses.asdict(c) for c in f.chunks],
            'cmdline': f.cmdline, 'dmesg': f.dmesg,
            'ktap_parse': {n: s.summary for n, s in self.streams.items()},
            'ktap_files': {n: s.path for n, s in self.streams.items()},
            'flagged_by': self.failures(),
            'tries': [t.as_json() for t in self.tries], 'infra_tries': self.infra_tries,
        }
        if self.kunit is not None:
            d['kunit'] = {'ok': self.kunit.ok, 'summary': self.kunit.summary,
                          'file': self.kunit.path}
        if self.last_lines:
            d['last_lines'] = self.last_lines
        return d


@dataclasses.dataclass
class GroupRecord:
    """One QEMU + Xen + dom0 boot that ran domUs (boot.GroupBoot): its
    shared part (Xen, dom0) once, the configs whose tries it ran."""
    index: int
    xen_cmdline: str
    guest_type: str
    seconds: float
    shared_seconds: float
    shared_timing: dict[str, float]
    console: str
    configs: list[int] = dataclasses.field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class RunSummary:
    """A whole run as its JSON gives it: what was asked (the name, the
    command, the settings that shape every boot), how long it took, its
    results and the Xen boots that ran domUs, and what the results of
    the run disagree on."""
    name: str
    command: str
    guest_types: tuple[str, ...]
    guest_kernel: str
    kernels: tuple[tuple[str, str], ...]
    accel: str
    accel_why: str
    vcpus: int
    domu_memory_mb: int
    samples: int
    intervals: tuple[int, ...]
    seconds: float
    repeat: int
    retries: int
    results: tuple[BootResult, ...]
    groups: tuple[GroupRecord, ...]
    name_differences: tuple[str, ...]
    type_differences: tuple[str, ...]
    # The Xen axis: (Xen version, the platform in words, its timer_slop
    # default in ns as read from the binary).
    platforms: tuple[tuple[str, str, int], ...] = ()
    # A run stopped by a signal (its name) has the results of the boots
    # that were over, of configs_asked.
    stopped: str = ''
    configs_asked: int = 0
    # lab: each job's record on the LAVA server (its ids and pages, its
    # tries, the server's health and times).
    lab_jobs: tuple[dict[str, Any], ...] = ()

    def count(self, outcome: Outcome) -> int:
        return sum(r.outcome is outcome for r in self.results)

    @property
    def infra_tries(self) -> int:
        return sum(r.infra_tries for r in self.results)

    def as_json(self) -> dict[str, Any]:
        return {'name': self.name, 'command': self.command, 'guest_types': self.guest_types,
                'guest_kernel': self.guest_kernel,
                'kernels': [{'version': v, 'kernel': k} for v, k in self.kernels],
                'platforms': [{'xen': x, 'platform': p, 'timer_slop_default_ns': d}
                              for x, p, d in self.platforms],
                'accel': self.accel, 'accel_why': self.accel_why, 'vcpus': self.vcpus,
                'domu_memory_mb': self.domu_memory_mb, 'samples': self.samples,
                'intervals': self.intervals, 'seconds': round(self.seconds, 1),
                'repeat': self.repeat, 'passed': self.count(Outcome.PASS),
                'failed': self.count(Outcome.FAIL), 'infra': self.count(Outcome.INFRA),
                'retries': self.retries, 'infra_tries': self.infra_tries,
                'name_differences': list(self.name_differences),
                'type_differences': list(self.type_differences),
                'stopped': self.stopped or None, 'configs_asked': self.configs_asked,
                'groups': [g.as_json() for g in self.groups],
                **({'lab_jobs': list(self.lab_jobs)} if self.lab_jobs else {}),
                'configs': [r.as_json() for r in self.results]}


def run_exit(outcomes: Iterable[Outcome]) -> int:
    """The exit status of a run whose boots (after their retries) ended so."""
    outcomes = list(outcomes)
    if Outcome.FAIL in outcomes:
        return EXIT_FAIL
    if Outcome.INFRA in outcomes:
        return EXIT_INFRA
    return EXIT_PASS

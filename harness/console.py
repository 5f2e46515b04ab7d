# SPDX-License-Identifier: GPL-2.0
"""The console of one Xen boot, read: pure parsing, no I/O.

A boot's serial console holds Xen's lines, the guest kernel's (with the
KUnit KTAP when KUnit is built in), and what guest/guest-init prints
between "@@XT" marker lines: "@@XT BEGIN name" .. "@@XT END name rc"
blocks (the run_kselftest.sh output in "kselftest", cyclictest's in
"cyclictest-<US>"), and "@@XT END-GUEST" at the end.

Watcher follows a console line by line as it arrives and says when the
boot is over (end marker, panic, guest died) and where the time went;
parse() turns a whole console into the facts the verdicts need.  Both
are tested on captured consoles in tests/data/.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Callable

from . import judge, model
from .model import LATENCY_TEST as LATENCY_TEST
from .model import PROGRAM_TEST as PROGRAM_TEST
from .model import SLOP_TEST as SLOP_TEST
from .model import (REACHED, ConsoleFacts, Ending, Interval, KtapResult, Latency,
                    Outcome, Status)

MARK = '@@XT'
END_GUEST = '@@XT END-GUEST'
BEGIN_GUEST = '@@XT BEGIN-GUEST'
# guest/dom0-init, when the guest is a domU started by dom0.
DOMU_START = '@@XT DOMU-START'
DOMU_FAILED = '@@XT DOMU-FAILED'
# dom0-init: xl create has built and started the domU.
DOMU_CREATED = '@@XT DOMU-CREATED'
# The stages of a domU before its kernel's first line: xl create, then
# the domU's own start.
DOMU_STAGES = ('domU', 'domU started')
# dom0's watchdog: the domU's console has not grown for a while.  What
# dom0 prints after it (xl list, the vCPUs' stacks) follows within this.
DOMU_STALL = '@@XT DOMU-STALL'
DOMU_STALL_GRACE_S = 15.0
# dom0's watchdog on a PVH or HVM domU whose console was quiet that long:
# its CPU time and its vCPUs' stacks, every line marked so; the domU goes
# on and its timeout judges it.  Kept in the console, not the guest's
# output: no verdict, stage or time of the guest's last line rests on it.
DOMU_QUIET = '@@XT DOMU-QUIET'
# dom0-init's watchdog looks every 5 s and reports a domU console quiet
# for 30 s: a domU boot silent for longer has a silent dom0 as well, and
# its timeout is the platform's (Xen, dom0 or QEMU hung), not the domU
# kernel's.
PLATFORM_HUNG = 'the platform hung: the domU and dom0 silent'
# A guest at its timeout is hung only if it printed nothing for this long
# (at most half the timeout): one that was still printing was slowed by
# its host, whose fault a timeout then is.
HANG_QUIET_S = 120.0
# dom0's watchdog: the domU is gone before its end marker.
DOMU_DIED = '@@XT DOMU-DIED'
# dom0's watchdog: the domU ran its time limit (dom0's xt_domu_timeout=,
# which follows the line), and dom0 destroyed it and goes on to the next.
DOMU_TIMEOUT = '@@XT DOMU-TIMEOUT'
# A boot is over before its end marker on any of these (model.py's
# outcomes).  The guest kernel crashed: the kernel's fault (FAIL).  Xen
# reports a PV dom0's crash ("Hardware Dom0 crashed") after the kernel's
# own panic, or instead of it when the kernel died before its console.
GUEST_CRASH_RE = re.compile(r'Kernel panic|Attempted to kill init|\bOops[:\s]|\bBUG: |'
                            r'PANIC: early exception|'
                            r'general protection fault|Hardware Dom0 crashed|'
                            r'\(XEN\) \*\*\*\* Dom0 .*crash')
# Xen broke, or an HVM/PVH vCPU did under the emulated SVM (Xen triple
# faults a vCPU that faults while delivering a fault; the guest kernel
# prints nothing then): the emulator's or Xen's fault (INFRA).
XEN_INFRA_RE = re.compile(r'\(XEN\) .*Triple fault|\(XEN\) Panic on CPU')
# ... unless Xen's panic says why, and it is the guest kernel's: an image
# Xen cannot build dom0 from (a kernel built without CONFIG_XEN).
XEN_NO_DOM0_RE = re.compile(r'\(XEN\) Could not construct domain 0')
DIED_RE = re.compile(r'Hardware Dom0 halted')
# After the end marker: the guest powered off and Xen halted the machine.
HALTED_RE = re.compile(r'\(XEN\) Hardware Dom0 (halted|shutdown)')
# Xen or dom0 is gone: no further domU of the boot can start (the end of a
# boot that runs its guests as domUs, boot.GroupBoot).
DOM0_GONE_RE = re.compile(r'\(XEN\) Hardware Dom0 (halted|shutdown|crashed)|'
                          r'\(XEN\) Panic on CPU|\(XEN\) \*\*\*\* Dom0 .*crash')
# After an emulator fault in a domU: dom0's watchdog says within 5 s that
# the domU is gone, and why (xl's shutdown reason).
DOMU_END_GRACE_S = 8.0
# A domU that asked Xen to power it off before its end marker halted
# itself: its kernel's doing (a panic before its console, as memparse(NULL)
# of a bare xen_timer_slop in a kernel without the series), as a PV dom0's
# "Hardware Dom0 halted" is.  A reboot (a triple fault) or a crash stays
# INFRA.
DOMU_POWEROFF = 'xl: shutdown reason poweroff'
DOMU_DIED_EARLY = "the domU died before its kernel's first line: the platform's"
# A kernel starting while one already runs: the guest rebooted (a triple
# fault under Xen 4.17's default on_reboot, or a reset).
KERNEL_START = 'Linux version'


XEN_PREFIX = '(XEN) '


def serial_lines(line: str) -> list[str]:
    """A line of a serial console Xen shares with its guest, as the lines
    it holds: Xen prints its own messages whole, and one that comes while
    the guest has half a line out lands in the middle of the guest's
    ('# ok 2 cpu1_min_delta_ns(XEN) uart interrupt ...').  Split there, so
    that the guest's line stays the guest's and Xen's is Xen's."""
    at = line.find(XEN_PREFIX, 1)
    if at < 0:
        return [line]
    return [line[:at], *serial_lines(line[at:])]


def guest_output(lines: list[str]) -> list[str]:
    """A console without dom0's watchdog notes on a quiet domU (DOMU_QUIET)
    and without Xen's own lines: the lines the suite's results are read
    from.  Xen shares the serial line, so its messages land between the
    guest's; a domU's triple-fault dump came while dom0 was still printing
    that domU's selftest output, and the latency test's KTAP stream began
    with 15 "(XEN)" lines (tests/data/console.pvh-domu-xen-dump-in-selftest).

    Xen starts its message on a line of its own: one that comes while the
    guest has half a line out ends the guest's line there, and the rest of
    it follows Xen's ("... spikes_", "(XEN) uart interrupt taking more
    than 4ms, switched to polling", "pct=0.000 ...": a PVH dom0's
    XT_CHUNK, tests/data/console.pvh-dom0-xen-splits-record).  An XT_*
    record cut so is joined again."""
    out: list[str] = []
    after_xen = False
    for line in lines:
        if line.startswith((DOMU_QUIET, XEN_PREFIX)):
            after_xen = bool(out)
            continue
        if after_xen and cut_record(out[-1], line):
            out[-1] += line
        else:
            out.append(line)
        after_xen = False
    return out


def cut_record(head: str, tail: str) -> bool:
    """Whether head is an XT_* record cut short whose rest is tail."""
    if not re.search(r'\bXT_[A-Z]+ ', head):
        return False
    try:
        xt_record(head)
        return False
    except RecordError:
        pass
    try:
        xt_record(head + tail)
        return True
    except RecordError:
        return False


def guest_line(line: str) -> bool:
    """A line the guest kernel or Xen printed, not the suite's own output
    (a selftest's diagnostics may quote anything)."""
    return not line.startswith((MARK, '#'))


# A spike, in the thread's table: a wakeup more than 100 us late, as
# xen_timer_latency_test counts them (XT_LAT over=).
SPIKE_US = 100
# kselftest.h's exit codes (KSFT_PASS, KSFT_FAIL, KSFT_SKIP).
KSFT_PASS, KSFT_FAIL, KSFT_SKIP = 0, 1, 4
# The collection the suite installs its tests as.
COLLECTION = 'xen_timer'
# cyclictest -h: the histogram's last bucket, in us; guest-init gets it as
# xt_hist_us=, so that the guest and the harness agree on it.
CYCLICTEST_HIST_US = 1000
# cyclictest's SCHED_FIFO priority, guest-init's xt_rt_prio=: the thread's
# cyclictest -p 80, as RT_PRIORITY of xen_timer_latency_test.c (a host
# test compares the two).
CYCLICTEST_RT_PRIORITY = 80


class Watcher:
    """Follows a console as it arrives: the stage, how the boot ended (an
    model.Ending), when to stop, and when each stage began (seconds
    since QEMU started).  domu: the guest under test is a domU, so dom0's
    kernel does not count as the guest's start."""

    def __init__(self, end_grace_s: float, fail_grace_s: float, domu: bool = False,
                 platform: str = ''):
        self.end_grace_s = end_grace_s
        self.fail_grace_s = fail_grace_s
        self.domu = domu
        # Xen's and QEMU's versions (platforms.describe), named in the
        # reason of a death that is theirs.
        self.platform = platform
        self.lines: list[str] = []
        self.ending: Ending | None = None
        self.stage = 'Xen'
        self.marks: list[tuple[str, float]] = [('Xen', 0.0)]
        self.stop_at: float | None = None
        self.guest_started = False
        # When the guest last printed (any line but Xen's).
        self.last_line_t: float | None = None

    @property
    def status(self) -> str | None:
        """'ok' once the end marker came, else why the boot ended; None
        while it runs."""
        if self.ending is None:
            return None
        return 'ok' if self.ending.reached else self.ending.reason

    @property
    def outcome(self) -> Outcome | None:
        return self.ending.outcome if self.ending else None

    @property
    def ended(self) -> bool:
        return self.ending is not None and self.ending.reached

    def _end(self, outcome: Outcome, kind: str, detail: str, t: float, grace: float) -> None:
        self.ending = Ending(outcome, kind, detail)
        self.stop_at = t + grace

    def _kernel_start(self, t: float) -> None:
        """A "Linux version" line: dom0's, the guest's, or a second boot."""
        if self.stage == 'Xen' or self.stage in DOMU_STAGES:
            self.guest_started = (self.guest_started or not self.domu or
                                  self.stage in DOMU_STAGES)
            return
        self._end(Outcome.INFRA, 'the guest rebooted', f'its kernel started again at stage '
                  f'"{self.stage}" ({t:.0f} s) with no panic before it',
                  t, DOMU_END_GRACE_S if self.domu else self.fail_grace_s)

    def feed(self, line: str, t: float) -> str | None:
        """One console line at time t; returns the new stage, or None."""
        self.lines.append(line)
        if line.startswith(DOMU_QUIET):
            return None
        new = self._stage_of(line)
        if self.ending is not None:
            self._after_end(line, t)
        else:
            self._judge(line, t)
        if not line.startswith('(XEN)'):
            self.last_line_t = t
        if new and new != self.stage:
            self.stage = new
            self.marks.append((new, t))
            return new
        return None

    def _stage_of(self, line: str) -> str | None:
        """The stage a line begins, if it begins one."""
        if KERNEL_START in line and self.stage == 'Xen':
            return 'guest kernel'
        if KERNEL_START in line and self.stage in DOMU_STAGES:
            return 'domU kernel'
        if line.startswith(DOMU_START):
            return 'domU'
        if line.startswith(DOMU_CREATED) and self.stage == 'domU':
            return 'domU started'
        if line.startswith(BEGIN_GUEST):
            return 'init'
        if line.startswith(f'{MARK} BEGIN '):
            return line.split()[2]
        if line.startswith(f'# selftests: {COLLECTION}: '):
            return 'kselftest ' + line.split()[-1]
        if line.startswith(END_GUEST):
            return 'poweroff'
        return None

    def _after_end(self, line: str, t: float) -> None:
        """A line after the boot's ending: it only tells more, until the
        grace ends or the machine halts."""
        assert self.ending is not None
        if self.stop_at is not None and (
                HALTED_RE.search(line) or (DIED_RE.search(line) and not self.ended)):
            self.stop_at = min(self.stop_at, t + (0 if self.ended else 0.5))
        if self.ending.kind == 'Xen' and XEN_NO_DOM0_RE.search(line):
            self.ending = Ending(Outcome.FAIL, 'Xen could not build dom0 from the guest '
                                 'kernel', line.strip())

    def _judge(self, line: str, t: float) -> None:
        """A line before the boot's ending: whether it ends the boot, how."""
        if line.startswith(END_GUEST):
            self.ending = REACHED
            self.stop_at = t + self.end_grace_s
        elif guest_line(line) and GUEST_CRASH_RE.search(line):
            self._end(Outcome.FAIL, 'panic', line.strip(), t, self.fail_grace_s)
        elif guest_line(line) and XEN_INFRA_RE.search(line):
            self._end(Outcome.INFRA, 'Xen', line.strip(), t,
                      DOMU_END_GRACE_S if self.domu else self.fail_grace_s)
        elif KERNEL_START in line:
            self._kernel_start(t)
        elif (line.startswith(BEGIN_GUEST) and self.stage != 'domU kernel'
                and self.stage != 'guest kernel'):
            self._end(Outcome.INFRA, 'the guest rebooted', f'a second "{BEGIN_GUEST}" '
                      f'at stage "{self.stage}"', t, self.fail_grace_s)
        elif line.startswith(DOMU_FAILED):
            self._end(Outcome.INFRA, 'the domU did not start', line.strip(), t,
                      self.fail_grace_s)
        elif line.startswith(DOMU_TIMEOUT):
            words = line[len(DOMU_TIMEOUT):].split()
            self.ending = self._timed_out(t, int(words[0]) if words and words[0].isdigit()
                                          else 0, dom0_silent=False)
            self.stop_at = t + DOMU_END_GRACE_S
        elif line.startswith(DOMU_STALL):
            self._end(Outcome.FAIL, 'the domU console stalled',
                      line[len(DOMU_STALL):].strip(), t, DOMU_STALL_GRACE_S)
        elif line.startswith(DOMU_DIED) and self.stage in DOMU_STAGES:
            # Every domU prints its kernel's banner at once (dom0-init
            # gives it earlyprintk=xen): one that died before it never ran
            # its own code, and the death is the platform's (QEMU 11.1
            # under Xen 4.17 powers every PVH domU off there).
            why = line[len(DOMU_DIED):].strip()
            self._end(Outcome.INFRA, DOMU_DIED_EARLY,
                      f'{self.platform}: {why}' if self.platform else why, t,
                      self.fail_grace_s)
        elif line.startswith(DOMU_DIED) and DOMU_POWEROFF in line:
            self._end(Outcome.FAIL, 'the domU powered itself off before its end marker',
                      line[len(DOMU_DIED):].strip(), t, self.fail_grace_s)
        elif line.startswith(DOMU_DIED):
            self._end(Outcome.INFRA, 'the domU ended before its end marker with no guest '
                      'panic', line[len(DOMU_DIED):].strip(), t, self.fail_grace_s)
        elif DIED_RE.search(line):
            self._end(Outcome.FAIL, 'guest died before its end marker', line.strip(), t,
                      self.fail_grace_s)

    def should_stop(self, t: float) -> bool:
        return self.stop_at is not None and t >= self.stop_at

    def finish(self, t: float, timeout: int | None = None,
               qemu_rc: int | None = None) -> str | None:
        """The boot is over at time t: by its timeout (seconds), or with
        QEMU's exit code.  Returns the status."""
        self.marks.append(('end', t))
        if self.ending is None and timeout is not None:
            self.ending = self._timed_out(t, timeout, dom0_silent=self.domu)
        elif self.ending is None:
            self.ending = Ending(Outcome.INFRA, 'QEMU exited before the end marker '
                                 f'(exit {qemu_rc}) with no panic')
        return self.status

    def _timed_out(self, t: float, timeout: int, dom0_silent: bool) -> Ending:
        """How a boot that ran out of its timeout (seconds) at t ended:
        the host starved a guest still printing; a silent guest hung, or
        the platform did if dom0 was silent too (a domU's dom0 that did
        not report it); a guest kernel that never started is the
        platform's."""
        quiet = t - (self.last_line_t if self.last_line_t is not None else 0.0)
        if self.guest_started and quiet < min(HANG_QUIET_S, timeout / 2):
            return Ending(Outcome.INFRA, 'too slow', f'no end marker after {timeout} s, the '
                          f'guest still printing {quiet:.0f} s before (stage "{self.stage}"): '
                          'the host starved it')
        if self.guest_started and dom0_silent:
            # dom0's watchdog reports a domU whose console stopped
            # (DOMU-STALL, FAIL) or that is gone within STALL_S:
            # silence past it is dom0's too.
            return Ending(Outcome.INFRA, PLATFORM_HUNG,
                          f'no end marker after {timeout} s, nothing printed for {quiet:.0f} s '
                          f'(stage "{self.stage}"), not even dom0\'s watchdog'
                          f'{": " + self.platform if self.platform else ""}')
        if self.guest_started:
            return Ending(Outcome.FAIL, 'hang', f'no end marker after {timeout} s, nothing '
                          f'printed for {quiet:.0f} s (stage "{self.stage}")')
        return Ending(Outcome.INFRA, 'timeout', f'the guest kernel had not started after '
                      f'{timeout} s (stage "{self.stage}")')

    def timing(self, until: float | None = None) -> list[tuple[str, float]]:
        """Seconds per stage, in order: Xen, guest kernel (to init), init's
        own lines, each block and each selftest, poweroff; until: the
        time the last stage ended, when finish() has not said it."""
        out = []
        marks = self.marks + ([('end', until)] if until is not None else [])
        for (name, t0), (_, t1) in zip(marks, marks[1:]):
            if name != 'end':
                out.append((name, round(t1 - t0, 1)))
        return out


@dataclasses.dataclass
class Section:
    """A named part of a console: its lines and the exit code it ended with."""
    lines: list[str]
    rc: int


def sections(lines: list[str], begin: str, end: str, rc_of: Callable[[re.Match[str]], int],
             strip: Callable[[str], str] = lambda line: line) -> dict[str, Section]:
    """Named sections of a console: from a line matching BEGIN to the line
    matching END with the same (?P<name>), with rc_of(match of END)."""
    out: dict[str, Section] = {}
    cur: list[str] | None = None
    name = None
    for line in lines:
        m = re.match(begin, line)
        if m:
            name, cur = m.group('name'), []
            continue
        m = re.match(end, line)
        if m and cur is not None and m.group('name') == name:
            out[name] = Section(cur, rc_of(m))
            cur = None
            continue
        if cur is not None:
            cur.append(strip(line))
    return out


def blocks(lines: list[str]) -> dict[str, Section]:
    """The "@@XT BEGIN name" .. "@@XT END name rc" blocks of a console log."""
    return sections(lines, rf'{MARK} BEGIN (?P<name>\S+)$',
                    rf'{MARK} END (?P<name>\S+) (?P<rc>-?\d+)$', lambda m: int(m.group('rc')))


def kselftest_tests(lines: list[str], collection: str = COLLECTION) -> dict[str, Section]:
    """Split run_kselftest.sh output into the tests of a collection (a
    regular expression): the nested KTAP of each (the runner's "# " prefix
    taken off) and an exit code from its result line (KSFT_PASS, KSFT_SKIP,
    KSFT_FAIL for not ok)."""
    def rc(m: re.Match[str]) -> int:
        if m.group('result') == 'not ok':
            return KSFT_FAIL
        return KSFT_SKIP if re.search(r'#\s*SKIP', m.group('rest')) else KSFT_PASS

    def strip(line: str) -> str:
        return line[2:] if line.startswith('# ') else line[1:] if line == '#' else line

    return sections(lines, rf'# selftests: {collection}: (?P<name>\S+)$',
                    rf'(?P<result>not ok|ok) \d+ selftests: {collection}: (?P<name>\S+)(?P<rest>.*)$',
                    rc, strip)


def ktap_results(lines: list[str], test: str = '') -> list[KtapResult]:
    """The top-level results of a KTAP stream of the selftest test: name,
    status, and for a skip its reason; a test skipped before its first
    result ("1..0 # SKIP reason") is one skipped result of no name."""
    res = []
    for line in lines:
        m = re.match(r'(not ok|ok) \d+ ([^#]*?)\s*(?:#\s*(\S+)\s*(.*))?$', line)
        if m:
            if m.group(3) and m.group(3).upper() == 'SKIP':
                res.append(KtapResult(test, m.group(2), Status.SKIP, m.group(4)))
            else:
                res.append(KtapResult(test, m.group(2),
                                      Status.PASS if m.group(1) == 'ok' else Status.FAIL))
        m = re.match(r'1\.\.0 # SKIP (.*)', line)
        if m:
            res.append(KtapResult(test, '', Status.SKIP, m.group(1)))
    return res


class RecordError(ValueError):
    pass


def xt_record(line: str) -> object:
    """The typed record (model.XT_RECORDS) of an XT_* line, anywhere in
    line ("# XT_CPU cpu=0 ..."): every field of the record must be there,
    of its type; RecordError says which is not."""
    m = re.search(r'\b(XT_[A-Z]+) (.*)$', line)
    if not m or m.group(1) not in model.XT_RECORDS:
        raise RecordError(f'not an XT_* record line: {line!r}')
    cls = model.XT_RECORDS[m.group(1)]
    got = dict(re.findall(r'(\w+)=(\S*)', m.group(2)))
    vals: dict[str, object] = {}
    for f in dataclasses.fields(cls):
        if f.name not in got:
            raise RecordError(f'{m.group(1)} has no {f.name}=: {line!r}')
        conv = {'int': int, 'float': float, 'str': str}[str(f.type)]
        try:
            vals[f.name] = conv(got[f.name])
        except ValueError:
            raise RecordError(f'{m.group(1)} {f.name}={got[f.name]} is not a {f.type}') from None
    return cls(**vals)


def kv(line: str) -> dict[str, float]:
    """The numbers of a "key=value ..." diagnostic line."""
    return {k: float(v) for k, v in re.findall(r'(\w+)=(-?[0-9.]+)', line)}


def cyclictest_stats(lines: list[str], spike_us: int) -> Latency | None:
    """cyclictest -q -h output: min/avg/max, p50, p99 and spikes over
    spike_us from its histogram."""
    hist: dict[int, int] = {}
    st: dict[str, int] = {}
    for line in lines:
        m = re.match(r'(\d{6})\s+(\d+)$', line)
        if m:
            hist[int(m.group(1))] = int(m.group(2))
        m = re.match(r'# (Min|Avg|Max) Latencies: (\d+)', line)
        if m:
            st[m.group(1).lower()] = int(m.group(2))
        m = re.match(r'# Histogram Overflows: (\d+)', line)
        if m:
            st['overflows'] = int(m.group(1))
    if 'avg' not in st:
        return None
    n = sum(hist.values()) + st.get('overflows', 0)
    spikes = sum(c for b, c in hist.items() if b > spike_us) + st.get('overflows', 0)
    return Latency(samples=n, min_us=st['min'], avg_us=st['avg'], max_us=st['max'],
                   p50_us=hist_rank(hist, n, 0.5), p99_us=hist_rank(hist, n, 0.99),
                   spikes=spikes, hist=hist, overflows=st.get('overflows', 0),
                   hist_limit_us=CYCLICTEST_HIST_US)


def hist_rank(hist: dict[int, int], n: int, q: float) -> float | None:
    """The nearest-rank q-quantile of a cyclictest histogram of n samples,
    None when it is past its last bucket."""
    acc = 0
    for b in sorted(hist):
        acc += hist[b]
        if acc >= q * n:
            return b
    return None


# The lines of a KTAP stream, indented or not.  KUnit runs at boot while
# asynchronous work still prints ("Freeing initrd memory", "input: AT
# Translated Set 2 keyboard"), and such a line inside a nested test breaks
# kunit.py's parse ("Expected test number 7 but found 1").
KTAP_LINE = re.compile(r'^\s*(KTAP version |TAP version |ok |not ok |1\.\.[0-9]|#)')


# A printk timestamp (CONFIG_PRINTK_TIME), as kunit.py strips it too.
PRINTK_TIME = re.compile(r'^\[\s*[0-9]+\.[0-9]+\] ')


def kunit_lines(lines: list[str], raw: bool = False) -> list[str]:
    """KUnit runs before init: its KTAP is the console up to the guest's
    first marker; without the kernel's other messages and without printk
    timestamps, unless raw (a kunit.py that reads a console as it is,
    kunit_results.reads_raw_console())."""
    out = []
    for line in lines:
        if line.startswith(BEGIN_GUEST):
            break
        if raw:
            out.append(line)
            continue
        line = PRINTK_TIME.sub('', line)
        if KTAP_LINE.match(line):
            out.append(line)
    return out


def parse(lines: list[str], intervals: tuple[int, ...] | list[int], spike_us: int,
          tests: tuple[str, ...] = (SLOP_TEST, PROGRAM_TEST, LATENCY_TEST)) -> ConsoleFacts:
    """What a finished console says (model.ConsoleFacts)."""
    r = ConsoleFacts()
    b = blocks(lines)
    for line in lines:
        if line.startswith(f'{MARK} CMDLINE'):
            r.cmdline = line[len(f'{MARK} CMDLINE '):]
        if line.startswith(f'{MARK} DMESG') and ('rejected' in line or 'Malformed' in line):
            r.dmesg.append(line[len(f'{MARK} DMESG '):])
    ks = b.get('kselftest')
    if ks is None:
        r.problems.append('run_kselftest.sh did not run')
        ks = Section([], 0)
    else:
        r.streams['run_kselftest.sh'] = ks.lines
    b.update(kselftest_tests(ks.lines))
    for test in tests:
        if test not in b:
            r.problems.append(f'{test} did not run')
            continue
        r.streams[test] = b[test].lines
        res = ktap_results(b[test].lines, test)
        r.results += res
        # A test ends with a verdict: its exit code one of kselftest's,
        # a failure's with a result that failed.
        failed = any(x.status is Status.FAIL for x in res)
        if (b[test].rc not in (KSFT_PASS, KSFT_FAIL, KSFT_SKIP) or not res
                or (b[test].rc == KSFT_FAIL) != failed):
            r.bad_exit.append(test)
        for line in b[test].lines:
            if not re.search(r'\bXT_[A-Z]+ ', line) or any(f'{t} ' in line
                                                            for t in model.XT_UNPARSED):
                continue
            try:
                rec = xt_record(line)
            except RecordError as e:
                r.problems.append(f'{test}: {e}')
                continue
            if isinstance(rec, model.XtLat):
                r.intervals.setdefault(rec.interval_us, Interval()).ours = Latency(
                    samples=rec.samples, min_us=rec.min_ns / 1e3, avg_us=rec.avg_ns / 1e3,
                    max_us=rec.max_ns / 1e3, p50_us=rec.p50_ns / 1e3, p99_us=rec.p99_ns / 1e3,
                    spikes=rec.over)
            elif isinstance(rec, model.XtProg):
                r.prog_check = rec
            elif isinstance(rec, model.XtChunk):
                r.chunks.append(rec)
            elif isinstance(rec, model.XtCpu):
                r.cpus.append(rec)
    for i in intervals:
        name = f'cyclictest-{i}'
        if name in b:
            c = cyclictest_stats(b[name].lines, spike_us)
            if c:
                r.intervals.setdefault(i, Interval()).cyclictest = c
    # Each result judged against the platform it ran on.
    r.results = [dataclasses.replace(x, platform=judge.platform_reason(x, r),
                                     kernels_skip=judge.kernels_skip(x)) for x in r.results]
    return r

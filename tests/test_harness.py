# SPDX-License-Identifier: GPL-2.0
"""Host tests of the harness (the package harness/, python3 -m harness)."""
import argparse
import array
import contextlib
import dataclasses
import errno
import fcntl
import glob
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import re
import time
import types
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
# The repository's root, where python3 -m harness runs.
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
from harness import settings  # noqa: E402
# The host tests boot nothing: Xen 4.17 is the machine's platform, with
# no Debian 13 root to make (the tests of the Xen axis make a fake one).
# Set before the modules that read it are imported.
RUN_DEFAULT_XEN = settings.DEFAULT_XEN
settings.DEFAULT_XEN = '4.17'
from harness import (boot, console, judge, kunit_results, lava, lkft, model, mutants,  # noqa: E402
                     platforms, report, request, run, verdict)
from harness import __main__ as cli  # noqa: E402
from harness.model import (REACHED, BootResult, ConsoleFacts, Config, Ending,  # noqa: E402
                           KtapResult, Outcome, Status, StreamCheck, Try)


def fake_xen(path: str, slop: int = 50000) -> None:
    """A Xen binary as platforms reads its timer_slop default: a 32-bit
    ELF with one segment at 2 MB holding the name, its struct
    kernel_param and the variable."""
    import struct
    base = 0xffff82d040200000
    off = 0x80
    image = bytearray(0x100)
    image[0x10:0x1c] = b'\0timer_slop\0'
    struct.pack_into('<QIIQ', image, 0x40, base + 0x11, 1, 4, base + 0x80)
    struct.pack_into('<I', image, 0x80, slop)
    hdr = bytearray(off)
    hdr[:7] = b'\x7fELF\x01\x01\x01'
    struct.pack_into('<I', hdr, 28, 0x34)
    struct.pack_into('<5I', hdr, 0x34, 1, off, 0x200000, 0x200000, len(image))
    with open(path, 'wb') as f:
        f.write(hdr + image)


def touch(path: str) -> None:
    """An input file of the harness: a fake Xen for xen*, else empty."""
    if os.path.basename(path).startswith('xen'):
        fake_xen(path)
    else:
        open(path, 'w').close()


def boot_result(name='c', ending=REACHED, results=(), names=(), kunit_ok=None, tries=(),
                guest_type='pv', params=None, cpus=(), problems=(), run=0):
    """A BootResult as a test needs it: its config named name (a matrix
    config when params is None), its ending, its results ((test, name,
    Status)), the names its stream reported."""
    facts = ConsoleFacts(results=[KtapResult(t, n, st) for t, n, st in results],
                         cpus=[model.XtCpu(k, 'xen', 'xen', -1 if v == '-' else int(v), v)
                               for k, v in enumerate(cpus)],
                         problems=list(problems))
    r = BootResult(config=NamedConfig(name, guest_type, params, run), ending=ending,
                   seconds=1.0, console='', facts=facts,
                   streams={'s': StreamCheck(True, '', list(names), '')} if names else {},
                   kunit=None if kunit_ok is None else StreamCheck(kunit_ok, '', [], ''))
    r.tries = [Try(o, '', 1.0, '') for o in tries]
    return r


class NamedConfig(Config):
    """A Config whose name is given."""

    def __init__(self, name, guest_type, params, run):
        super().__init__('', guest_type, None, None, params, run)
        object.__setattr__(self, 'given', name)

    @property
    def label(self):
        return self.given

RUN_KSELFTEST = """TAP version 13
1..2
# timeout set to 180
# selftests: xen_timer: xen_timer_slop_test
# TAP version 13
# 1..2
# # on Xen: /sys/hypervisor/type is xen
# # XT_CPU cpu=0 device=xen current=xen min_delta_ns=100000 expected_ns=100000
# ok 1 cpu0_min_delta_ns
# # XT_CPU cpu=1 device=xen current=xen min_delta_ns=1 expected_ns=100000
# # cpu1: xen min_delta_ns 1, expected 100000
# not ok 2 cpu1_min_delta_ns
# # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0
not ok 1 selftests: xen_timer: xen_timer_slop_test # exit=1
# timeout set to 180
# selftests: xen_timer: xen_timer_latency_test
# TAP version 13
# 1..1
# ok 1 slop_in_effect
#
ok 2 selftests: xen_timer: xen_timer_latency_test # SKIP
""".splitlines()


class KselftestSplit(unittest.TestCase):
    def test_split(self):
        t = console.kselftest_tests(RUN_KSELFTEST)
        self.assertEqual(sorted(t), ['xen_timer_latency_test', 'xen_timer_slop_test'])
        slop = t['xen_timer_slop_test']
        self.assertEqual(slop.rc, 1)
        self.assertEqual(slop.lines[0], 'TAP version 13')
        self.assertIn('# on Xen: /sys/hypervisor/type is xen', slop.lines)
        self.assertEqual([(r.name, r.status) for r in console.ktap_results(slop.lines)],
                         [('cpu0_min_delta_ns', Status.PASS), ('cpu1_min_delta_ns', Status.FAIL)])
        lat = t['xen_timer_latency_test']
        self.assertEqual(lat.rc, 4)
        self.assertEqual(lat.lines[-1], '')

    def test_ok_and_skip(self):
        lines = ['# selftests: xen_timer: a', 'ok 1 selftests: xen_timer: a',
                 '# selftests: xen_timer: b', 'ok 2 selftests: xen_timer: b # SKIP']
        t = console.kselftest_tests(lines)
        self.assertEqual((t['a'].rc, t['b'].rc), (0, 4))

    def test_unfinished_test_is_missing(self):
        # A guest that died inside a test has no result line for it.
        t = console.kselftest_tests(RUN_KSELFTEST[:12])
        self.assertEqual(t, {})

    def test_other_collection_ignored(self):
        t = console.kselftest_tests(['# selftests: timers: posix_timers',
                                     'ok 1 selftests: timers: posix_timers'])
        self.assertEqual(t, {})


class Detectors(unittest.TestCase):
    def test_grouping(self):
        r = boot_result(kunit_ok=False, results=[
            ('xen_timer_slop_test', 'cpu0_min_delta_ns', Status.FAIL),
            ('xen_timer_slop_test', 'cpu1_min_delta_ns', Status.FAIL),
            ('xen_timer_latency_test', 'interval_50us_avg', Status.PASS)])
        self.assertEqual(r.failures(), [
            'KUnit at boot', 'xen_timer_slop_test: cpuN_min_delta_ns'])
        self.assertEqual(r.outcome, Outcome.FAIL)

    def test_the_table_says_what_failed_a_finished_boot(self):
        # A boot that ran to its end and failed KUnit's cases says so in
        # the table's boot line, not "FAIL, ok".
        r = boot_result(kunit_ok=False, results=[
            ('xen_timer_slop_test', 'cpu0_min_delta_ns', Status.PASS)])
        out = io.StringIO()
        report.print_table([r], [], 100, 'TCG', out)
        self.assertIn('# boot: FAIL, flagged by KUnit at boot, 1.0 s', out.getvalue())
        out = io.StringIO()
        report.print_table([boot_result()], [], 100, 'TCG', out)
        self.assertIn('# boot: PASS, ok, 1.0 s', out.getvalue())
        # A finished boot whose only failure the platform explains: that
        # check, for the table, a local try and a LAVA job's alike.
        r = boot_result(results=[('xen_timer_program_test', 'slop_in_effect', Status.FAIL)])
        r.facts.results[0] = dataclasses.replace(r.facts.results[0], platform='1 early of 504')
        self.assertEqual((r.outcome, r.reason), (
            Outcome.INFRA, 'the platform\'s: xen_timer_program_test: slop_in_effect'))
        hang = boot_result(ending=Ending(Outcome.FAIL, 'hang', 'no end marker after 40 s'))
        self.assertEqual(hang.reason, 'hang: no end marker after 40 s')

    def test_boot_failure(self):
        r = boot_result(ending=Ending(Outcome.FAIL, 'hang', 'no end marker after 40 s'))
        self.assertEqual(r.failures(), ['boot (fail): hang'])
        self.assertEqual(r.status, 'hang: no end marker after 40 s')

    def test_a_missing_selftest_is_a_failure(self):
        r = boot_result(problems=['xen_timer_latency_test did not run'])
        self.assertEqual((r.outcome, r.status, r.failures()),
                         (Outcome.FAIL, 'xen_timer_latency_test did not run',
                          ['boot (fail): xen_timer_latency_test did not run']))

    def test_repeat_table(self):
        runs = [boot_result(run=1), boot_result(run=2, kunit_ok=False)]
        self.assertEqual(report.repeat_table(runs),
                         'c: 1/2 boots flagged\n    1/2  KUnit at boot\n')

    def test_agreement_is_of_the_run(self):
        # The header's claim about ours vs cyclictest is computed from the
        # rows it heads; a cyclictest median past its histogram is left out.
        def row(ours, cyc):
            r = boot_result()
            lat = [model.Latency(1, 1.0, 1.0, 1.0, 1.0, 0, p50_us=p, hist_limit_us=1000)
                   for p in (ours, cyc)]
            r.facts.intervals[50] = model.Interval(lat[0], lat[1])
            return r
        line = report.agreement([row(100.0, 200.0), row(150.0, 100.0), row(90.0, 100.0),
                                 row(300.0, None)], [50])
        self.assertIn('in this run: 0.90 (median of 3 rows, 0.50 to 1.50)', line)
        self.assertIn('no row has both medians', report.agreement([row(1.0, None)], [50]))
        # Past the histogram: shown, and in the JSON, as '>1000'.
        past = row(1.0, None).facts.intervals[50].cyclictest
        assert past is not None
        self.assertEqual((past.shown('p50_us'), past.as_json()['p50_us']), ('>1000', '>1000'))

    def test_summary_columns_never_run_together(self):
        # A stall of a quarter of a second is six digits of us in a
        # column sized for fewer: each figure stays its own word.
        r = boot_result()
        ours = model.Latency(1000, 70.0, 237822.0, 237863.0, None, 994, p50_us=None,
                             hist_limit_us=1000)
        r.facts.intervals[1000] = model.Interval(ours, ours)
        row = report.summary_table([r], [1000], 100, 'TCG').splitlines()[-1]
        self.assertEqual(row.split(), ['c', '-i1000', *['70', '>1000', '237822', '237863',
                                                        '>1000', '994', '1000'] * 2])

    def test_repeat_table_counts_infra(self):
        runs = [boot_result(run=1, tries=[Outcome.INFRA, Outcome.PASS]),
                boot_result(run=2, ending=Ending(Outcome.INFRA, 'Xen', '(XEN) d1v0 Triple fault'),
                            tries=[Outcome.INFRA] * 3)]
        self.assertEqual(report.repeat_table(runs).splitlines()[0],
                         'c: 0/2 boots flagged, 1 INFRA after retries, 4 INFRA tries')

    def test_try_reason_is_the_death_before_the_checks(self):
        # 2026-12-07, a PVH domU on DOMU_TSC=default: the latency test's
        # p99 unresolved, then a triple fault in cyclictest.  The try's
        # reason in the JSON said the p99, the boot's status the fault.
        args = types.SimpleNamespace(retries=0)
        fault = '(XEN) d18v1 Triple fault - invoking HVM shutdown action 1'
        for ending, reason in ((REACHED, model.PLATFORM_FLAG + 'xen_timer_latency_test: '
                                'interval_1000us_p99'),
                               (Ending(Outcome.INFRA, 'Xen', fault), f'Xen: {fault}')):
            r = boot_result(ending=ending)
            r.facts.results.append(KtapResult('xen_timer_latency_test', 'interval_1000us_p99',
                                              Status.FAIL, platform='p99 over in 2 of 10 chunks'))
            job = run.Job(1, 'c', r.config)
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertFalse(run.try_done(args, job, r))
            self.assertEqual((r.outcome, [t.reason for t in r.tries]),
                             (Outcome.INFRA, [reason]))


def captured(name):
    with open(os.path.join(HERE, 'data', name), errors='replace') as f:
        return f.read().splitlines()


def domu_start(lines):
    """Where dom0-init starts the (first) PVH domU of a captured console."""
    return next(k for k, line in enumerate(lines) if line.startswith('@@XT DOMU-START pvh'))


def watch(lines, **finish):
    """A Watcher fed a captured console, one line every 10 ms; with a
    timeout, the boot ends at it."""
    w = console.Watcher(end_grace_s=1.0, fail_grace_s=2.0)
    t = 0.0
    for line in lines:
        t += 0.01
        w.feed(line, t)
        if w.should_stop(t):
            break
    w.finish(max(t, finish.get('timeout') or 0), **finish)
    return w


class CapturedConsoles(unittest.TestCase):
    """Consoles of real boots (make boot-check; rdinit/init=/bogus; rdinit=/bogus
    alone, where busybox's init then waits at its console)."""

    def test_ok(self):
        lines = captured('console.pv-ok')
        w = watch(lines, qemu_rc=0)
        self.assertEqual(w.status, 'ok')
        self.assertEqual([m for m, _ in w.marks], [
            'Xen', 'guest kernel', 'init', 'kselftest', 'kselftest xen_timer_slop_test',
            'kselftest xen_timer_program_test', 'kselftest xen_timer_latency_test',
            'cyclictest-50', 'cyclictest-1000', 'poweroff', 'end'])
        self.assertEqual(list(dict(w.timing())), [m for m, _ in w.marks][:-1])
        r = console.parse(lines, [50, 1000], 100)
        # A boot of make false-failures: xen_timer_slop=2000000.
        self.assertEqual((r.problems, r.bad_exit, r.min_delta_ns), ([], [], '2000000'))
        self.assertEqual([(v.test, v.name, v.status) for v in r.results], [
            ('xen_timer_slop_test', 'cpu0_min_delta_ns', Status.PASS),
            ('xen_timer_slop_test', 'cpu1_min_delta_ns', Status.PASS),
            ('xen_timer_program_test', 'slop_in_effect', Status.PASS),
            *[('xen_timer_latency_test', f'interval_{i}us_{k}', Status.PASS)
              for i in (50, 1000) for k in ('avg', 'p99', 'spikes')]])
        self.assertEqual(sorted(r.intervals), [50, 1000])
        self.assertTrue(r.intervals[50].ours and r.intervals[50].cyclictest)
        self.assertEqual([c.min_delta_ns for c in r.cpus], [2000000, 2000000])
        self.assertEqual(sorted(r.streams), ['run_kselftest.sh', 'xen_timer_latency_test',
                                             'xen_timer_program_test', 'xen_timer_slop_test'])
        assert r.prog_check is not None
        self.assertEqual(r.prog_check.slop_ns, 2000000)
        self.assertGreater(r.prog_check.short, 0)
        k = console.kunit_lines(lines)
        self.assertIn('# xen_timer_slop: pass:3 fail:0 skip:0 total:3', '\n'.join(k))

    def test_kunit_lines_with_printk_time(self):
        # CONFIG_PRINTK_TIME: the KTAP lines come with timestamps, and
        # read as they would without them.
        stamped = captured('console.pv-ok')
        b = next(k for k, line in enumerate(stamped) if line.startswith(console.BEGIN_GUEST))
        self.assertTrue(any(console.PRINTK_TIME.match(line) for line in stamped[:b]))
        plain = [console.PRINTK_TIME.sub('', line) for line in stamped[:b]] + stamped[b:]
        self.assertGreater(len(console.kunit_lines(stamped)), 40)
        self.assertEqual(console.kunit_lines(stamped), console.kunit_lines(plain))
        self.assertEqual(watch(plain, qemu_rc=0).outcome, model.Outcome.PASS)

    def test_kunit_interleaved(self):
        # A boot of make check whose KUnit KTAP had "Freeing initrd memory"
        # and "input: AT Translated Set 2 keyboard" inside a nested test:
        # kunit.py found "Expected test number 7 but found 1" and 5 crashes.
        lines = captured('console.pv-interleaved.old-selftest')
        k = console.kunit_lines(lines)
        self.assertTrue(all(console.KTAP_LINE.match(line) for line in k))
        self.assertNotIn('Freeing initrd memory: 2928K', k)
        # Every result line of KUnit's, none lost with the lines taken out.
        kunit_part = lines[:next(i for i, l in enumerate(lines)
                                 if l.startswith(console.BEGIN_GUEST))]
        results = sum(bool(re.match(r'\s*(not )?ok \d', console.PRINTK_TIME.sub('', l)))
                      for l in kunit_part)
        self.assertGreater(results, 60)
        self.assertEqual(sum(line.strip().startswith(('ok ', 'not ok ')) for line in k), results)
        self.assertEqual(k[-1], 'ok 1 xen_timer_slop')

    def test_xen_message_inside_a_guest_line(self):
        # A PVH dom0 shares the serial line with Xen: Xen's "uart interrupt
        # taking more than 4ms" came while the selftest had half of
        # "ok 2 cpu1_min_delta_ns" out, and the result's name carried it.
        raw = captured('console.pvh-dom0-xen-mid-line.old-selftest')
        self.assertIn('# ok 2 cpu1_min_delta_ns(XEN) uart interrupt taking more than 4ms, '
                      'switched to polling', raw)
        lines = [part for line in raw for part in console.serial_lines(line)]
        self.assertIn('(XEN) uart interrupt taking more than 4ms, switched to polling', lines)
        slop = console.kselftest_tests(lines)['xen_timer_slop_test']
        self.assertEqual([r.name for r in console.ktap_results(slop.lines)],
                         ['cpu0_min_delta_ns', 'cpu1_min_delta_ns'])
        self.assertEqual(console.serial_lines('a(XEN) b(XEN) c'), ['a', '(XEN) b', '(XEN) c'])
        self.assertEqual(console.serial_lines('(XEN) Xen'), ['(XEN) Xen'])

    def test_xen_message_splits_a_record(self):
        # A clean clone's make check of ba1a6fe: a PVH dom0's latency test
        # had "... p99_limit_ns=41958440 spikes_" out when Xen said "uart
        # interrupt taking more than 4ms"; the rest of the XT_CHUNK came
        # after Xen's line, and the boot FAILed: "XT_CHUNK has no
        # spikes_pct=".  The record is joined again; nothing else is.
        raw = captured('console.pvh-dom0-xen-splits-record')
        cut = next(k for k, line in enumerate(raw) if line.endswith(' spikes_'))
        self.assertTrue(raw[cut + 1].startswith('(XEN) uart interrupt taking more than 4ms'))
        self.assertTrue(raw[cut + 2].startswith('pct=0.000 '))
        with self.assertRaises(console.RecordError):
            console.xt_record(raw[cut])
        lines = console.guest_output(raw)
        self.assertEqual(len(lines), len(raw) - sum(
            line.startswith(console.XEN_PREFIX) for line in raw) - 1)
        r = console.parse(lines, [50, 1000], 100)
        self.assertEqual((r.problems, r.bad_exit), ([], []))
        self.assertEqual(len(r.chunks), 20)
        # Guest lines around Xen's that are no record cut short stay apart.
        self.assertEqual(console.guest_output(['# ok 1 a', '(XEN) x', '# ok 2 b']),
                         ['# ok 1 a', '# ok 2 b'])
        self.assertEqual(console.guest_output(['# XT_CPU cpu=0', '(XEN) x', 'junk']),
                         ['# XT_CPU cpu=0', 'junk'])

    def test_xen_lines_between_a_guest_stream(self):
        # make check of 6618260: a PVH domU triple-faulted in cyclictest,
        # after its selftests, while dom0 was still printing their output;
        # Xen's 15-line dump came between "# selftests: ... latency_test"
        # and its "# TAP version 13", and lkft-check found the stream
        # "tappy: The version must be on the first line" (make check
        # failed on an INFRA try that passed on its retry).
        raw = captured('console.pvh-domu-xen-dump-in-selftest.old-selftest')
        at = raw.index('# selftests: xen_timer: xen_timer_latency_test')
        self.assertEqual(raw[at + 1], '(XEN) d1v0 Triple fault - invoking HVM shutdown action 1')
        guest = console.guest_output(raw)
        self.assertFalse(any(line.startswith(console.XEN_PREFIX) for line in guest))
        r = console.parse(guest, [50, 1000], 100)
        # Of the selftests before the records changed: only those read wrong.
        self.assertEqual([p for p in r.problems if 'XT_' not in p], [])
        for name, stream in r.streams.items():
            self.assertFalse(any('(XEN)' in line for line in stream), name)
        self.assertEqual(r.streams['xen_timer_latency_test'][:2], ['TAP version 13', '1..6'])
        self.assertEqual(lkft.problems({'a': r.streams['run_kselftest.sh']}), [])
        found, why = lkft.tap_problems({'a': r.streams['run_kselftest.sh']})
        if why:
            self.skipTest(why)
        self.assertEqual(found, [])
        # What the check found before: the stream with Xen's lines in it.
        found, _ = lkft.tap_problems({'a': console.blocks(raw)['kselftest'].lines})
        self.assertIn('a: xen_timer_latency_test: tappy: The version must be on the first '
                      'line.', found)

    def test_panic(self):
        lines = captured('console.pv-panic')
        w = watch(lines, qemu_rc=0)
        self.assertEqual(w.status, 'panic: Kernel panic - not syncing: '
                                   'Requested init /bogus failed (error -2).')
        r = console.parse(lines, [50, 1000], 100)
        self.assertEqual(r.problems, ['run_kselftest.sh did not run',
                                          'xen_timer_slop_test did not run',
                                          'xen_timer_program_test did not run',
                                          'xen_timer_latency_test did not run'])

    def test_hang(self):
        w = watch(captured('console.pv-hang'), timeout=60)
        self.assertTrue(w.status.startswith('hang: no end marker after 60 s, nothing printed '
                                            'for 5'), w.status)
        self.assertEqual([m for m, _ in w.marks], ['Xen', 'guest kernel', 'end'])

    def test_a_silent_domu_boot_is_the_platforms(self):
        # An HVM domU of Xen 4.17 under QEMU 7.2 printed its last results
        # and "reboot: Power down", then nothing came for 261 s, not even
        # dom0's watchdog, which reports a quiet domU within 35 s: Xen,
        # dom0 or QEMU hung.  The same silence with the guest as dom0 is
        # the kernel's hang.
        lines = captured('console.pv-hang')
        for domu, outcome in ((True, model.Outcome.INFRA), (False, model.Outcome.FAIL)):
            w = console.Watcher(1.0, 2.0, domu=domu, platform='Xen 4.17, QEMU 7.2')
            for k, line in enumerate(['@@XT DOMU-START hvm 1/1', *lines] if domu else lines):
                w.feed(line, k * 0.01)
            w.finish(300.0, timeout=300)
            self.assertEqual(w.outcome, outcome, w.status)
        self.assertTrue(w.status.startswith('hang: '), w.status)

    def test_still_printing_at_the_timeout_is_too_slow(self):
        # A domU of make false-failures beside stress-ng and a make check:
        # 8 times slower than quiet, it had begun cyclictest 31 s before
        # its 300 s: the host's fault, booted again, never a pass.
        lines = captured('console.pv-ok')
        cut = lines[:lines.index('@@XT BEGIN cyclictest-50') + 1]
        w = console.Watcher(1.0, 2.0)
        for k, line in enumerate(cut):
            w.feed(line, 269.0 * (k + 1) / len(cut))
        w.finish(300.0, timeout=300)
        self.assertEqual(w.outcome, model.Outcome.INFRA)
        self.assertTrue(w.status.startswith('too slow: no end marker after 300 s, the guest '
                                            'still printing 31 s before'), w.status)

    def test_dom0s_domu_timeout(self):
        # dom0's watchdog ended a domU at its xt_domu_timeout=: still
        # printing, the host starved it; silent with dom0 alive to say
        # so (its stall report lost), the domU hung: not the platform.
        lines = captured('console.pvh-ok')
        cut = lines[:lines.index('@@XT BEGIN cyclictest-50') + 1]
        for last, outcome, kind in ((269.0, model.Outcome.INFRA, 'too slow'),
                                    (100.0, model.Outcome.FAIL, 'hang')):
            w = console.Watcher(1.0, 2.0, domu=True)
            for k, line in enumerate(cut):
                w.feed(line, last * (k + 1) / len(cut))
            w.feed('@@XT DOMU-TIMEOUT 300', 300.0)
            self.assertEqual((w.outcome, w.ending.kind), (outcome, kind), w.status)
            self.assertIn('no end marker after 300 s', w.status)
            self.assertFalse(w.should_stop(300.0 + console.DOMU_END_GRACE_S - 1))
            self.assertTrue(w.should_stop(300.0 + console.DOMU_END_GRACE_S))

    def test_dom0s_quiet_notes(self):
        # dom0's watchdog on a quiet PVH domU: its notes (DOMU-QUIET) are
        # not the guest's output.  A hang stays a hang, timed from the
        # domU's own last line; in the middle of a selftest they change
        # neither the verdict nor what is read of the results.
        notes = ['@@XT DOMU-QUIET log 81234 bytes, 30 s without output (1 of at most 3); '
                 'the domU goes on',
                 '@@XT DOMU-QUIET Name                                        ID   Mem VCPUs\t'
                 'State\tTime(s)',
                 '@@XT DOMU-QUIET xt1                                          1   256     2\t'
                 '-b----\t      41.3',
                 '@@XT DOMU-QUIET vcpu0:',
                 '@@XT DOMU-QUIET rip: ffffffff81a3c1e5 default_idle+0x15']
        lines = captured('console.pvh-ok')
        cut = lines[:lines.index('@@XT BEGIN cyclictest-50') + 1]
        w = console.Watcher(1.0, 2.0, domu=True)
        for k, line in enumerate(cut):
            w.feed(line, 100.0 * (k + 1) / len(cut))
        for k, line in enumerate(notes):
            w.feed(line, 135.0 + k)
        w.feed('@@XT DOMU-TIMEOUT 300', 300.0)
        self.assertEqual((w.outcome, w.ending.kind), (model.Outcome.FAIL, 'hang'), w.status)
        self.assertIn('nothing printed for 200 s', w.status)

        at = next(k for k, line in enumerate(lines) if 'interval_1000us_avg' in line)
        noted = lines[:at] + notes + lines[at:]
        self.assertEqual(watch(noted, qemu_rc=0).status, 'ok')
        self.assertEqual(console.parse(console.guest_output(noted), [50, 1000], 100),
                         console.parse(lines, [50, 1000], 100))

    def test_evaluate_writes_each_stream_and_kunit_its_own(self):
        # evaluate() once handed KUnit at boot the last selftest's stream
        # (a loop variable reused): "Ran 6 tests ... fewer than the 10
        # required" on a domU whose KUnit had passed.
        lines = captured('console.pvh-ok')
        fake = types.SimpleNamespace(
            lines=lines, guest_cmdline='', seconds=1.0, tail=lambda n=15: lines[-n:],
            timing=lambda: [], ending=watch(lines, qemu_rc=0).ending)
        check = model.CheckSettings((50, 1000), 100, (console.SLOP_TEST,
                                                      console.LATENCY_TEST),
                                    kunit_py='kunit.py', kunit_boot=True)
        parsed = {}

        def fake_parse(kunit_py, path, min_cases=1, failed_ok=False):
            with open(path) as f:
                parsed[os.path.basename(path)] = f.read().splitlines()
            return None
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(verdict, 'ktap_parse', fake_parse):
            verdict.evaluate(fake, Config('', 'pvh', None, None), check, tmp, '1')
        self.assertEqual(parsed['kunit-1.log'],
                         console.kunit_lines(lines, raw=kunit_results.reads_raw_console('kunit.py')))
        self.assertIn('ktap-1-xen_timer_latency_test.txt', parsed)

    def test_pvh_domu(self):
        # A PVH boot: dom0 (no KUnit) starts the guest as a PVH domU.
        lines = captured('console.pvh-ok')
        w = watch(lines, qemu_rc=0)
        self.assertEqual(w.status, 'ok')
        # xl create returned after the domU's first line: no 'domU started'.
        self.assertEqual([m for m, _ in w.marks][:5],
                         ['Xen', 'guest kernel', 'domU', 'domU kernel', 'init'])
        r = console.parse(lines, [50, 1000], 100)
        self.assertEqual((r.problems, r.bad_exit), ([], []))
        self.assertEqual(len(r.results), 9)
        self.assertIn(('xen_timer_program_test', 'slop_in_effect', Status.PASS),
                      [(v.test, v.name, v.status) for v in r.results])
        k = '\n'.join(console.kunit_lines(lines))
        self.assertIn('ok 3 xen_timer_slop_test_cpu_devices', k)

    def test_domu_build_and_boot_timed_apart(self):
        # dom0-init says when xl create is done: its time is the domU's
        # build, the rest to the domU kernel's first line its start.
        lines = captured('console.pvh-ok')
        start = domu_start(lines)
        lines.insert(start + 1, '@@XT DOMU-CREATED xt1')
        w = watch(lines, qemu_rc=0)
        self.assertEqual(w.status, 'ok')
        self.assertEqual([m for m, _ in w.marks][2:5], ['domU', 'domU started', 'domU kernel'])

    def test_pvh_stall_is_a_hang(self):
        # The PVH domU's console stopped in cyclictest's histogram.
        w = watch(captured('console.pvh-stall.old-selftest'), timeout=90)
        self.assertTrue(w.status.startswith('hang: no end marker after 90 s'), w.status)
        self.assertEqual(w.stage, 'cyclictest-1000')

    def test_pvh_stall_marker(self):
        # dom0's watchdog says the domU's console stopped: the boot ends
        # then, with what dom0 printed after the marker, not at the timeout.
        lines = captured('console.pvh-ok')
        cut = lines[:lines.index('@@XT BEGIN cyclictest-1000') + 20]
        cut += ['@@XT DOMU-STALL log 31337 bytes, 30 s without output',
                'Name    ID   Mem VCPUs      State   Time(s)']
        w = console.Watcher(2.0, 2.0)
        for k, line in enumerate(cut):
            w.feed(line, float(k))
        stall_t = float(len(cut) - 2)
        self.assertEqual(w.status, 'the domU console stalled: log 31337 bytes, '
                                   '30 s without output')
        self.assertFalse(w.should_stop(stall_t + console.DOMU_STALL_GRACE_S - 1))
        self.assertTrue(w.should_stop(stall_t + console.DOMU_STALL_GRACE_S))

    def test_domu_died(self):
        # dom0's watchdog: the domU crashed (xl's on_crash destroys it).
        lines = captured('console.pvh-ok')
        cut = lines[:domu_start(lines) + 60]
        cut.append('@@XT DOMU-DIED the domU is gone (crashed, halted or powered off) '
                   'before its end marker')
        w = watch(cut, qemu_rc=0)
        self.assertEqual(w.status, 'the domU ended before its end marker with no guest panic: '
                                   'the domU is gone (crashed, halted or powered off) before '
                                   'its end marker')
        self.assertEqual(w.outcome, model.Outcome.INFRA)

    def test_cut_in_a_test_is_a_hang(self):
        # A guest that stops inside the latency test: no end marker, and the
        # test has no result line, so it did not run.
        lines = captured('console.pv-ok')
        cut = lines[:lines.index('# selftests: xen_timer: xen_timer_latency_test') + 5]
        w = watch(cut, timeout=40)
        self.assertTrue(w.status.startswith('hang: no end marker after 40 s'), w.status)
        self.assertEqual(w.stage, 'kselftest xen_timer_latency_test')
        self.assertEqual(console.parse(cut, [50], 100).problems[0],
                         'run_kselftest.sh did not run')


SELFTEST_DIR = os.path.join(HERE, '..', 'tools', 'testing', 'selftests', 'xen_timer')


def selftest_source(name):
    with open(os.path.join(SELFTEST_DIR, name)) as f:
        return f.read()


class XtFormats(unittest.TestCase):
    """Every XT_* line the C prints is read into its typed record, field
    for field: a key renamed on one side fails here, not in a boot."""
    # A printf conversion, and the record field type it must print.
    CONV = re.compile(r'%(?:\.[0-9]+)?(ll|l|z)?([dusf])')

    def formats(self):
        out = {}
        for name in os.listdir(SELFTEST_DIR):
            if name.endswith(('.c', '.h')):
                for tag, rest in re.findall(r'"(XT_[A-Z]+) ([^"]*)', selftest_source(name)):
                    self.assertNotIn(tag, out, f'{tag} printed in two places')
                    out[tag] = rest
        return out

    def test_each_tag_has_a_record(self):
        tags = set(self.formats())
        self.assertEqual(tags, set(model.XT_RECORDS) | set(model.XT_UNPARSED))

    def test_fields_and_types_match(self):
        types = {'d': 'int', 'u': 'int', 's': 'str', 'f': 'float'}
        for tag, fmt in self.formats().items():
            if tag in model.XT_UNPARSED:
                continue
            printed = {k: types[c[1]] for k, c in
                       ((k, self.CONV.fullmatch(v).groups()) for k, v in
                        re.findall(r'(\w+)=(%[^ \\]+)', fmt))}
            fields = {f.name: str(f.type) for f in dataclasses.fields(model.XT_RECORDS[tag])}
            self.assertEqual(printed, fields, tag)

    def test_a_rendered_line_parses(self):
        sample = {'d': '-1', 'u': '7', 's': 'xen', 'f': '7.25'}
        for tag, fmt in self.formats().items():
            if tag in model.XT_UNPARSED:
                continue
            line = '# ' + tag + ' ' + self.CONV.sub(
                lambda m: sample[m.group(2)], fmt.replace('\\n', ''))
            rec = console.xt_record(line)
            self.assertIsInstance(rec, model.XT_RECORDS[tag])
        with self.assertRaises(console.RecordError):
            console.xt_record('# XT_CPU cpu=0 device=xen')

    def test_captured_consoles_carry_the_current_format(self):
        # A captured console is of today's selftests, or named as of an
        # old one (.old-selftest: a rare event no boot can be made to
        # repeat, kept for what it shows of the platform or of old
        # output); the name must say which.
        data = os.path.join(HERE, 'data')
        for name in sorted(os.listdir(data)):
            if not name.startswith('console.'):
                continue
            bad = []
            # As the harness reads a console: Xen's lines out.
            for line in console.guest_output(captured(name)):
                m = re.search(r'\b(XT_[A-Z]+) ', line)
                if m and m.group(1) in model.XT_RECORDS:
                    try:
                        console.xt_record(line)
                    except console.RecordError as e:
                        bad.append(str(e))
            if name.endswith('.old-selftest'):
                self.assertTrue(bad, f'{name}: every XT_* line is of today: drop .old-selftest')
            else:
                self.assertEqual(bad[:1], [], name)


class Settings(unittest.TestCase):
    """harness/settings.py against what it describes."""

    def test_readme_has_the_table(self):
        # README's settings table is `python3 -m harness settings`, as it is
        # now (run as make runs it: this module changes DEFAULT_XEN).
        table = subprocess.run([sys.executable, '-m', 'harness', 'settings'], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout
        with open(os.path.join(HERE, '..', 'README.md')) as f:
            self.assertIn(table, f.read())

    def test_selftest_defaults_are_the_c_ones(self):
        src = selftest_source('xen_timer_latency_test.c')
        c_default = {'-i': ','.join(re.search(r'intervals\[MAX_INTERVALS\] = \{ ([0-9, ]+) \}',
                                              src).group(1).replace(' ', '').split(',')),
                     '-n': re.search(r'\bsamples = ([0-9]+);', src).group(1)}
        n_lo, n_hi = map(int, re.search(r"samples = number\(optarg, &p, ([0-9]+), ([0-9]+),",
                                        src).groups())
        with_selftest = [s for s in request.SETTINGS if s.selftest]
        self.assertEqual(sorted(s.make for s in with_selftest), ['INTERVALS', 'SAMPLES'])
        for s in with_selftest:
            test, opt = s.selftest.split()
            self.assertEqual(test, 'xen_timer_latency_test')
            self.assertEqual(s.selftest_default, c_default[opt], s.make)
        samples = next(s for s in with_selftest if s.make == 'SAMPLES')
        self.assertTrue(samples.hi <= n_hi, f"SAMPLES up to {samples.hi}, the selftest {n_hi}")

    def test_xen_default_slop_is_the_selftests(self):
        # The program test's --host-slop-ns default is Xen's own timer_slop.
        src = selftest_source('xen_timer_program_test.c')
        self.assertEqual(settings.XEN_DEFAULT_TIMER_SLOP_NS,
                         int(re.search(r'host_slop = ([0-9]+)', src).group(1)))

    def test_guest_defaults_are_the_thread_table(self):
        # The defaults of make are the patch thread's matrix.
        values = request.parse_settings(argparse.Namespace(cmd='matrix', profile='make',
                                                           assign=[], **dict.fromkeys(
                                                               s.key for s in request.SETTINGS)))
        self.assertEqual((values['xen_slops'], values['guest_slops']),
                         ((50000, 5000), (100000, 5000)))

    def test_init_scripts_read_each_parameter(self):
        with open(os.path.join(HERE, '..', 'guest', 'guest-init')) as f:
            guest_init = f.read()
        with open(os.path.join(HERE, '..', 'guest', 'dom0-init')) as f:
            dom0_init = f.read()
        for s in request.SETTINGS:
            if s.guest.startswith('xt_domu_'):
                self.assertIn(f'{s.guest}=*)', dom0_init, s.make)
            elif s.guest.startswith('xt_'):
                self.assertIn(s.guest, guest_init, s.make)

    def test_makefile_defines_no_setting(self):
        # The Makefile passes on what the user set; a default there would
        # be a second home.
        with open(os.path.join(HERE, '..', 'Makefile')) as f:
            mk = f.read()
        for s in request.SETTINGS:
            self.assertIsNone(re.search(rf'^{s.make}\s*[?:]?=', mk, re.M), s.make)

    def test_a_profile_is_overridden_by_what_the_user_set(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = cli.cmd_settings(argparse.Namespace(
                list='', get='GUEST_SLOPS', profile='boot-check', assign=['RUNS=3']))
        self.assertEqual((rc, out.getvalue()), (0, 'default 2000000\n'))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            cli.cmd_settings(argparse.Namespace(
                list='', get='GUEST_SLOPS', profile='boot-check', assign=['GUEST_SLOPS=5000']))
        self.assertEqual(out.getvalue(), '5000\n')

    def test_bad_values_say_one_line(self):
        for assign, want in ((['SAMPLES=0'], 'SAMPLES: "0" is not a whole number in 1..10000000'),
                             (['VCPUS=two'], 'VCPUS: "two" is not a whole number in 1..64'),
                             (['NOPE=1'], '"NOPE=1" is not VAR=VALUE'),
                             (['XEN_SLOPS=5k'], 'XEN_SLOPS: "5k" is neither'),
                             (['DEFAULT_CONFIG=yes'], 'DEFAULT_CONFIG: "yes" is neither 1 nor 0')):
            err = io.StringIO()
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(err):
                cli.cmd_settings(argparse.Namespace(list='', get='SAMPLES', profile='make',
                                                    assign=assign))
            self.assertEqual(e.exception.code, 2)
            self.assertEqual(len(err.getvalue().splitlines()), 1)
            self.assertIn(want, err.getvalue())


class SharedConstants(unittest.TestCase):
    """Facts that C and Python both need, each compared with its home."""

    def test_rt_priority(self):
        # cyclictest runs at the latency test's priority (the thread's -p 80).
        m = re.search(r'\.sched_priority = (\d+)', selftest_source('xen_timer_latency_test.c'))
        self.assertIsNotNone(m)
        self.assertEqual(int(m.group(1)), console.CYCLICTEST_RT_PRIORITY)

    def test_skip_reasons(self):
        # The skip reasons the harness judges (harness/judge.py) are the
        # selftests' own words.
        src = ''.join(selftest_source(n) for n in os.listdir(SELFTEST_DIR)
                      if n.endswith(('.c', '.h')))
        for reason in (*judge.ALLOWED_SKIPS, *judge.PLATFORM_SKIPS):
            self.assertIn(f'"{reason}', src)

    def test_spike_threshold(self):
        # The table's spikes are the latency test's samples over 100 us.
        m = re.search(r'#define SPIKE_NS\s+([0-9]+)ULL', selftest_source('xen_timer_latency_test.c'))
        self.assertEqual(int(m.group(1)), console.SPIKE_US * 1000)

    def test_poweroff_reason(self):
        # The words of dom0-init's poweroff reason, which the harness reads.
        with open(os.path.join(HERE, '..', 'guest', 'dom0-init')) as f:
            self.assertIn(f'0) echo "{console.DOMU_POWEROFF}" ;;', f.read())

    def test_guest_init_is_told_everything(self):
        # guest-init has no defaults: each xt_ setting it requires, the
        # harness gives.
        with open(os.path.join(HERE, '..', 'guest', 'guest-init')) as f:
            required = re.search(r'^for v in (xt_[a-z_ ]+); do', f.read(), re.M).group(1).split()
        values = {s.key: s.parse(s.default) for s in request.SETTINGS}
        g = model.GuestSettings(settings.guest_params(request.SETTINGS, values), 1000, 80)
        given = [w.split('=')[0] for w in g.cmdline(Config('', 'pv', None, None)).split()]
        self.assertEqual([v for v in required if v not in given], [])


def prog(**kw):
    """An XT_PROG record of a healthy 2 ms run, with kw changed."""
    base = dict(slop_ns=2000000, events=3000, requests=1000, short=700, calls=900, below_slop=0,
                short_not_slop=0, fires=600, judged=590, early=0, early_by_ns=0, stuck=0,
                forced=500, forced_min_ns=80000, normal=50, normal_p10_ns=60000,
                late_limit_ns=1060000, missed=0)
    return model.XtProg(**{**base, **kw})


def chunks(over, ref_p50=(20000,) * 10, check='avg', interval=50):
    """Ten XT_CHUNK records of an interval, the first over of them above
    their limit of check."""
    out = []
    for c in range(10):
        v = {'avg': 30000.0, 'p99': 90000.0, 'spikes': 0.0}
        lim = {'avg': 50000.0, 'p99': 100000.0, 'spikes': 1.0}
        if c < over:
            v[check] = lim[check] * 3
        out.append(model.XtChunk(interval, c, 100, v['avg'], lim['avg'], v['p99'], lim['p99'],
                                 v['spikes'], lim['spikes'], 50, ref_p50[c]))
    return out


class Judge(unittest.TestCase):
    """harness/judge.py: which results the platform explains."""

    def facts(self, p=None, ch=()):
        return ConsoleFacts(prog_check=p, chunks=list(ch))

    def test_program_few_early_fires_are_the_platforms(self):
        fail = KtapResult(model.PROGRAM_TEST, 'slop_in_effect', Status.FAIL)
        self.assertIsNotNone(judge.platform_reason(fail, self.facts(prog(early=1))))
        self.assertIsNotNone(judge.platform_reason(fail, self.facts(prog(early=11))))
        # One in 50 judged, or one in 10 beside a clock that stood still.
        self.assertIsNone(judge.platform_reason(fail, self.facts(prog(early=12))))
        self.assertIsNotNone(judge.platform_reason(fail, self.facts(prog(early=59, stuck=9))))
        self.assertIsNone(judge.platform_reason(fail, self.facts(prog(early=60, stuck=9))))
        # The mutants: many early fires, wrong calls, late forced fires.
        self.assertIsNone(judge.platform_reason(fail, self.facts(prog(early=447))))
        self.assertIsNone(judge.platform_reason(fail, self.facts(prog(early=1, below_slop=500))))
        self.assertIsNone(judge.platform_reason(fail, self.facts(prog(early=1,
                                                                      short_not_slop=490))))
        self.assertIsNone(judge.platform_reason(fail, self.facts(prog(early=1,
                                                                      forced_min_ns=2066000))))
        self.assertIsNone(judge.platform_reason(fail, self.facts(prog(forced_min_ns=2066000))))
        self.assertIsNone(judge.platform_reason(fail, self.facts()))

    def test_program_skips(self):
        def skip(reason, name='slop_in_effect'):
            return KtapResult(model.PROGRAM_TEST, name, Status.SKIP, reason)
        self.assertEqual(judge.platform_reason(skip('the probes missed hits'), self.facts()),
                         'the probes missed hits')
        for r in (skip('no kprobe events in tracefs', ''), skip('tracefs needs root', '')):
            self.assertTrue(judge.kernels_skip(r))
            self.assertIsNone(judge.platform_reason(r, self.facts()))
        self.assertFalse(judge.kernels_skip(skip('the Xen clockevent is not in use', '')))
        self.assertFalse(judge.kernels_skip(skip('the probes missed hits')))
        # A whole test skipped under Xen is the kernel's, but for the
        # clockevent; a CPU's result skipped is not.
        slop = model.SLOP_TEST
        self.assertTrue(judge.kernels_skip(KtapResult(slop, '', Status.SKIP,
                                                      '/proc/timer_list needs root')))
        self.assertFalse(judge.kernels_skip(KtapResult(slop, 'cpu1_min_delta_ns', Status.SKIP,
                                                       'the Xen clockevent is not in use')))

    def test_latency_chunks(self):
        def reason(name, ch):
            return judge.platform_reason(KtapResult(model.LATENCY_TEST, name, Status.FAIL),
                                         self.facts(ch=ch))
        # Most chunks over their own limit, the one-shot sleeps alike: the kernel's.
        self.assertIsNone(reason('interval_50us_avg', chunks(6)))
        self.assertIsNone(reason('interval_50us_p99', chunks(10, check='p99')))
        # A burst: a few chunks; a starved host: the one-shot sleeps far apart.
        self.assertIn('2 of 10 chunks', reason('interval_50us_avg', chunks(2)))
        self.assertIsNotNone(reason('interval_50us_avg', chunks(5)))
        spread = (20000,) * 9 + (60000,)
        self.assertIn('3.0 times apart', reason('interval_50us_avg', chunks(10, spread)))
        self.assertIsNone(reason('interval_50us_spikes', chunks(10, spread, 'spikes')))
        # Another interval's chunks say nothing of this one.
        self.assertIsNone(reason('interval_1000us_avg', chunks(2)))


class KtapResults(unittest.TestCase):
    def test_names_without_values(self):
        lines = ['ok 1 slop_in_effect # SKIP slop 1 ns is below 20000 ns',
                 'not ok 2 interval_50us_avg', 'ok 3 interval_50us_p99 # skip why',
                 'ok 4 x # TODO later']
        self.assertEqual(console.ktap_results(lines, 't'), [
            KtapResult('t', 'slop_in_effect', Status.SKIP, 'slop 1 ns is below 20000 ns'),
            KtapResult('t', 'interval_50us_avg', Status.FAIL),
            KtapResult('t', 'interval_50us_p99', Status.SKIP, 'why'),
            KtapResult('t', 'x', Status.PASS)])


class NameSets(unittest.TestCase):
    def test_same_names(self):
        runs = [boot_result('a', names=['x', 'y']), boot_result('b', names=['y', 'x']),
                boot_result('c', ending=Ending(Outcome.FAIL, 'hang', 'no end marker after 40 s'))]
        self.assertEqual(verdict.name_differences(runs), [])

    def test_renamed_result_flagged(self):
        # The old selftest named a result after its value.
        runs = [boot_result('a', names=['slop in effect: median 452 us']),
                boot_result('b', names=['slop in effect: median 239 us'])]
        diff = verdict.name_differences(runs)
        self.assertEqual(len(diff), 1)
        self.assertIn('b: 1 names missing', diff[0])


FAKE_QEMU = """#!/bin/sh
# A QEMU that runs Xen under TCG but aborts under KVM, as on hosts whose
# /dev/kvm cannot run Xen.
case " $* " in
*" -enable-kvm "*)
	[ "$FAKE_KVM" = internal-error ] && {
		echo "(XEN) Xen version 4.17.7"
		echo "KVM internal error. Suberror: 1"
		echo "emulation failure"
		exec sleep 60
	}
	[ "$FAKE_KVM" = works ] || {
		echo "qemu-system-x86_64: ../accel/kvm/kvm.c:2893: kvm_buf_set_msrs: Assertion failed." >&2
		kill -ABRT $$
	} ;;
esac
echo "(XEN) Xen version 4.17.7"
[ "$FAKE_HAP" = yes ] && echo "(XEN) HVM: Hardware Assisted Paging (HAP) detected"
echo "(XEN) Brought up 2 CPUs"
exec sleep 60
"""


class Accel(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        qemu = os.path.join(self.tmp.name, 'qemu-system-x86_64')
        with open(qemu, 'w') as f:
            f.write(FAKE_QEMU)
        os.chmod(qemu, 0o755)
        self.kvm = os.path.join(self.tmp.name, 'kvm')
        open(self.kvm, 'w').close()
        self.env = dict(os.environ)
        os.environ['PATH'] = self.tmp.name + ':' + os.environ['PATH']
        os.environ['XT_KVM_DEV'] = self.kvm

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)
        self.tmp.cleanup()

    def test_falls_back_when_qemu_aborts_under_kvm(self):
        args, mode, why = boot.choose_accel('auto', 'xen', 2)
        self.assertEqual((args, mode), ([], 'tcg'))
        self.assertIn('fell back to TCG: QEMU exited -6', why)
        self.assertIn('kvm_buf_set_msrs', why)

    def test_kvm_internal_error_ends_the_probe(self):
        # QEMU stops the VM at KVM's emulation failure and waits: the probe
        # ends at that line, not after PROBE_SECONDS.
        os.environ['FAKE_KVM'] = 'internal-error'
        t0 = time.monotonic()
        args, mode, why = boot.choose_accel('auto', 'xen', 2)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual((args, mode), ([], 'tcg'))
        self.assertIn('QEMU stopped the VM after', why)
        self.assertIn('KVM internal error. Suberror: 1', why)

    def test_uses_kvm_when_xen_runs(self):
        os.environ['FAKE_KVM'] = 'works'
        args, mode, why = boot.choose_accel('auto', 'xen', 2)
        self.assertEqual((args, mode), (boot.KVM_ARGS, 'kvm'))
        self.assertIn('brought up its CPUs under KVM', why)

    def test_domains_need_hap_under_kvm(self):
        # KVM runs Xen, but without nested paging: PV boots under KVM, the
        # HVM and PVH types fall back to TCG (ACCEL=kvm: refused).
        os.environ['FAKE_KVM'] = 'works'
        self.assertEqual(boot.choose_accel('auto', 'xen', 2)[1], 'kvm')
        args, mode, why = boot.choose_accel('auto', 'xen', 2, need_hap=True)
        self.assertEqual((args, mode), ([], 'tcg'))
        self.assertIn('without HAP (HVM and PVH domains need it)', why)
        with self.assertRaises(boot.AccelError):
            boot.choose_accel('kvm', 'xen', 2, need_hap=True)
        os.environ['FAKE_HAP'] = 'yes'
        self.assertEqual(boot.choose_accel('auto', 'xen', 2, need_hap=True)[1], 'kvm')

    def test_no_kvm_device(self):
        os.environ['XT_KVM_DEV'] = self.kvm + '-missing'
        self.assertEqual(boot.choose_accel('auto', 'xen', 2)[1:],
                         ('tcg', f'ACCEL=auto fell back to TCG: {self.kvm}-missing missing'))

    def test_no_qemu_falls_back(self):
        os.environ['PATH'] = '/nonexistent'
        args, mode, why = boot.choose_accel('auto', 'xen', 2)
        self.assertEqual((args, mode), ([], 'tcg'))
        self.assertIn('fell back to TCG: cannot run QEMU', why)

    def test_tcg_asks_nothing(self):
        os.environ['PATH'] = '/nonexistent'
        self.assertEqual(boot.choose_accel('tcg', 'xen', 2), ([], 'tcg', 'ACCEL=tcg'))

    def test_kvm_required_but_broken(self):
        with self.assertRaises(boot.AccelError) as e:
            boot.choose_accel('kvm', 'xen', 2)
        self.assertIn('ACCEL=kvm, but KVM cannot run Xen here', str(e.exception))

    def test_the_script_runs_main(self):
        # python3 -m harness as a command, not only cli.main().
        import subprocess
        p = subprocess.run([sys.executable, '-m', 'harness',
                            'matrix', '--out', self.tmp.name + '/o', '--xen', '/nonexistent',
                            '--guest-types', 'pv', 'XENS=4.17',
                            '--kernel', '/nonexistent', '--initrd', '/nonexistent'],
                           cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn('harness: /nonexistent does not exist', p.stderr)

    def test_harness_says_one_line_and_exits_2(self):
        # The whole CLI, with real (empty) files: ACCEL=kvm on a host whose
        # QEMU aborts under KVM.
        for f in ('xen', 'kernel', 'initrd'):
            touch(os.path.join(self.tmp.name, f))
        err = io.StringIO()
        with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(err):
            cli.main(['matrix', '--accel', 'kvm', '--guest-types', 'pv',
                      '--out', self.tmp.name + '/out'] +
                     [x for f in ('xen', 'kernel', 'initrd')
                      for x in (f'--{f}', os.path.join(self.tmp.name, f))])
        self.assertEqual(e.exception.code, 2)
        self.assertEqual(len(err.getvalue().splitlines()), 1)
        self.assertIn('harness: ACCEL=kvm, but KVM cannot run Xen here', err.getvalue())


class KunitJson(unittest.TestCase):
    JSON = {'name': 'KUnit Test Group', 'test_cases': [], 'sub_groups': [
        {'name': 'xen_timer_slop', 'test_cases': [
            {'name': 'xen_timer_slop_test_xen_templates', 'status': 'SKIP'}],
         'sub_groups': [{'name': 'xen_timer_slop_test_parse', 'sub_groups': [],
                         'test_cases': [{'name': '"1": the 6.12 default', 'status': 'PASS'},
                                        {'name': '"0": zero', 'status': 'FAIL'}]}]}]}

    def test_cases_and_counts(self):
        c = kunit_results.cases(self.JSON)
        self.assertEqual(c[0], (('xen_timer_slop', 'xen_timer_slop_test_parse',
                                 '"1": the 6.12 default'), 'PASS'))
        self.assertEqual(kunit_results.counts(c), {'PASS': 1, 'FAIL': 1, 'SKIP': 1, 'ERROR': 0})

    def check(self, data, log='', mn=1, skips=1):
        with tempfile.TemporaryDirectory() as d:
            j, l = os.path.join(d, 'j'), os.path.join(d, 'l')
            with open(j, 'w') as f:
                json.dump(data, f)
            with open(l, 'w') as f:
                f.write(log)
            return kunit_results.check(j, l, mn, skips)

    def test_check(self):
        rc, line = self.check(self.JSON)
        self.assertEqual(rc, 1)
        self.assertIn('1 failed, 0 crashed, first xen_timer_slop.xen_timer_slop_test_parse', line)
        ok = json.loads(json.dumps(self.JSON).replace('FAIL', 'PASS'))
        self.assertEqual(self.check(ok), (0, 'kunit: 3 cases, 1 skipped, 0 failed'))
        self.assertEqual(self.check(ok, mn=4)[0], 1)
        self.assertEqual(self.check(ok, skips=0)[0], 1)
        self.assertIn('KTAP errors', self.check(ok, log='[12:00:00] [ERROR] Test: x: no plan')[1])



class KunitSourceCases(unittest.TestCase):
    """make's KUNIT_MIN_CASES is counted in the KUnit source."""
    SRC = os.path.join(HERE, '..', 'kernel', 'time', 'clockevents_kunit.c')

    def test_a_new_row_raises_it(self):
        with open(self.SRC) as f:
            text = f.read()
        n = kunit_results.source_cases(text)
        row = 'ce_test_min_deltas[] = { 1, 5000, 100000 };'
        self.assertIn(row, text)
        self.assertEqual(kunit_results.source_cases(
            text.replace(row, row.replace('{ 1,', '{ 1, 2,'))), n + 2)
        self.assertEqual(kunit_results.source_cases(
            text.replace('\tKUNIT_CASE(clockevents_test_forced),\n', '')), n - 1)

    def test_shapes(self):
        text = """
static const u64 a[] = { 0, 1, /* two, */ MAX };
KUNIT_ARRAY_PARAM(a, a, desc);
static const struct s b[] = {
\tROW("x,y", f(1, 2)),
\t{ .a = 1, .b = 2 },
};
KUNIT_ARRAY_PARAM(b, b, desc);
static struct kunit_case cases[] = {
\tKUNIT_CASE_PARAM(t1, a_gen_params),
\tKUNIT_CASE_PARAM(t2, b_gen_params),
\tKUNIT_CASE(t3),
\t// KUNIT_CASE(gone),
\t{}
};
"""
        self.assertEqual(kunit_results.source_cases(text), 3 + 2 + 1)
        with self.assertRaises(ValueError):
            kunit_results.source_cases(text.replace('\t{ .a', '#if X\n\t{ .a'))
        with self.assertRaises(ValueError):
            kunit_results.source_cases(text.replace('KUNIT_ARRAY_PARAM(b, b', 'X(b, b'))


class XenSlopDefault(unittest.TestCase):
    """Xen's timer_slop default, read from the binary that boots."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_read_from_the_parameter_table(self):
        xen = os.path.join(self.tmp.name, 'xen')
        for ns in (50000, 20000):
            fake_xen(xen, ns)
            self.assertEqual(platforms.timer_slop_default(xen), ns)
        with open(xen, 'r+b') as f:
            data = f.read().replace(b'\0timer_slop\0', b'\0timer_slip\0')
            f.seek(0)
            f.write(data)
        with self.assertRaisesRegex(platforms.PlatformError, 'no timer_slop parameter'):
            platforms.timer_slop_default(xen)

    def test_the_default_platform(self):
        # Runs default to a Xen the table has; without its root, one line.
        self.assertIn(RUN_DEFAULT_XEN, platforms.PLATFORMS)
        self.assertEqual(RUN_DEFAULT_XEN, '4.20')
        files = []
        for f in ('xen', 'kernel', 'initrd'):
            path = os.path.join(self.tmp.name, f)
            touch(path)
            files += [f'--{f}', path]
        err = io.StringIO()
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(err):
            cli.parse_args(['matrix', '--out', 'o', *files, '--guest-types', 'pv',
                            'XENS=4.20', '--platform-dir', self.tmp.name])
        self.assertEqual(err.getvalue(), 'harness: XENS=4.20 QEMU=own needs the Debian 13 root '
                         f'{self.tmp.name}/deb13: run make deps\n')

    def test_debian_xens(self):
        # The binaries make unpacks, where a build left them: 50 us each.
        for v in platforms.PLATFORMS:
            elf = os.path.join(HERE, '..', 'build', 'xen', f'xen-{v}.elf')
            if os.path.isfile(elf):
                self.assertEqual(platforms.timer_slop_default(elf), 50000, elf)

    def test_another_default_is_refused_in_one_line(self):
        files = []
        for f in ('xen', 'kernel', 'initrd'):
            path = os.path.join(self.tmp.name, f)
            touch(path)
            files += [f'--{f}', path]
        fake_xen(files[1], 20000)
        err = io.StringIO()
        with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(err):
            cli.parse_args(['matrix', '--out', 'o', *files, '--guest-types', 'pv'])
        self.assertEqual(e.exception.code, model.EXIT_USAGE)
        self.assertEqual(err.getvalue(),
                         f"harness: Xen 4.17's timer_slop default is 20000 ns ({files[1]}); "
                         'the configs that leave it out assume 50000 ns\n')


class GuestTypes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.files = []
        for f in ('xen', 'kernel', 'initrd'):
            path = os.path.join(self.tmp.name, f)
            touch(path)
            self.files += [f'--{f}', path]

    def tearDown(self):
        self.tmp.cleanup()

    def main_fails(self, extra):
        err = io.StringIO()
        with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(err):
            cli.main(['matrix', '--out', self.tmp.name + '/out', '--guest-types', 'pv',
                      *self.files, *extra])
        self.assertEqual(e.exception.code, 2)
        self.assertEqual(len(err.getvalue().splitlines()), 1)
        return err.getvalue()

    def test_unknown_type(self):
        self.assertIn('GUEST_TYPES: "pvm" is not one of pv pv-domu pvh hvm pvh-dom0',
                      self.main_fails(['--guest-types', 'pv pvm']))

    def test_domu_type_needs_dom0_initrd(self):
        self.assertIn('guest type pvh needs --dom0-initrd',
                      self.main_fails(['--guest-types', 'pv pvh']))
        self.assertIn('/missing does not exist',
                      self.main_fails(['--guest-types', 'pvh', '--dom0-initrd', '/missing']))

    def test_pvh_dom0_boots_xen_efi_under_ovmf(self):
        efi = os.path.join(self.tmp.name, 'xen.efi')
        open(efi, 'w').close()
        m = boot.Machine(guest=boot.GUEST_TYPES['pvh-dom0'], xen='xen.elf',
                         kernel=self.files[3], initrd=self.files[5], vcpus=2, timeout=60,
                         xen_efi=efi)
        b = boot.Boot(m, 5000, 'console=hvc0 xt_intervals=50,1000')
        d = os.path.join(b.efi_dir, 'EFI', 'BOOT')
        self.assertEqual(sorted(os.listdir(d)), ['BOOTX64.EFI', 'BOOTX64.cfg', 'initrd', 'vmlinuz'])
        with open(os.path.join(d, 'BOOTX64.cfg')) as f:
            cfg = f.read()
        self.assertIn('options=console=com1 dom0_mem=512M dom0_max_vcpus=2 noreboot dom0=pvh '
                      'timer_slop=5000\n', cfg)
        self.assertIn('kernel=vmlinuz console=hvc0 xt_intervals=50,1000\n', cfg)
        self.assertIn('-bios', b.cmd)
        self.assertIn('amd-iommu', b.cmd)
        self.assertNotIn('-kernel', b.cmd)
        shutil.rmtree(b.efi_dir)

    def test_a_kernel_with_another_dom0(self):
        # PREEMPT_RT's kernel as a domU under the standard kernel's dom0,
        # and as itself where it is the dom0.
        d = self.tmp.name
        for f in ('rt', 'std', 'dom0-rt', 'dom0-std'):
            touch(os.path.join(d, f))
        j = lambda f: os.path.join(d, f)  # noqa: E731
        args = cli.parse_args(['matrix', '--out', 'o', '--xen', self.files[1],
                               '--initrd', self.files[5], '--guest-types', 'pv pv-domu',
                               '--kernel-set', '7.3', j('std'), j('dom0-std'),
                               '--kernel-set', '7.3-rt', j('rt'), j('dom0-rt'), j('std')])
        ms = run.machines_of(args, [])
        self.assertEqual(ms[('7.3-rt', '4.17', 'pv-domu')].kernel, j('std'))
        self.assertEqual(ms[('7.3-rt', '4.17', 'pv-domu')].initrd, j('dom0-rt'))
        self.assertEqual(ms[('7.3-rt', '4.17', 'pv')].kernel, j('rt'))
        self.assertEqual(ms[('7.3', '4.17', 'pv-domu')].kernel, j('std'))
        self.assertIn(f'7.3-rt rt (dom0 of its domUs: {j("std")})', run.names_of_kernels(args))
        err = io.StringIO()
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(err):
            cli.parse_args(['matrix', '--out', 'o', '--xen', self.files[1],
                            '--initrd', self.files[5], '--kernel-set', '7.3', j('std')])
        self.assertEqual(err.getvalue(), f'harness: --kernel-set 7.3 {j("std")}: give VERSION '
                         'KERNEL DOM0_INITRD [DOM0_KERNEL]\n')

    def test_settings_after_an_option_of_several_words(self):
        # make puts its settings last: after --kernel-set's or prepare's
        # --dom0's words, which argparse would take as theirs.
        d = self.tmp.name
        for f in ('std', 'dom0-std'):
            touch(os.path.join(d, f))
        j = lambda f: os.path.join(d, f)  # noqa: E731
        args = cli.parse_args(['matrix', '--out', 'o', '--xen', self.files[1],
                               '--initrd', self.files[5], '--kernel-set', '7.3', j('std'),
                               j('dom0-std'), 'SAMPLES=200', 'GUEST_TYPES=pv pvh'])
        self.assertEqual(args.samples, 200)
        self.assertEqual(args.guest_types, ('pv', 'pvh'))
        ns = cli.build_parser().parse_args(['prepare', '--platform-dir', 'p', '--dom0', 'k',
                                            'i', 'o', 'RUNS=20', 'GUEST_TYPES=pv'])
        cli.settings_back(ns)
        self.assertEqual(ns.dom0, ['k', 'i', 'o'])
        self.assertEqual(ns.assign, ['RUNS=20', 'GUEST_TYPES=pv'])

    def test_one_run_of_a_name_at_a_time(self):
        import fcntl
        out = os.path.join(self.tmp.name, 'out')
        os.makedirs(out)
        with open(os.path.join(out, '.m.lock'), 'w') as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            err = io.StringIO()
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(err):
                cli.main(['matrix', '--out', out, '--name', 'm', *self.files,
                          '--guest-types', 'pv'])
        self.assertEqual(e.exception.code, model.EXIT_USAGE)
        self.assertEqual(err.getvalue(), f'harness: another run named m is writing {out}: '
                         'let it end, or give another --name\n')

    def test_xen_axis(self):
        # Two Xens: each config boots on each, named after its Xen; the
        # files carry {xen}, the Debian 13 root must be there.
        xen = os.path.join(self.tmp.name, 'xen-{xen}')
        for v in ('4.17', '4.20'):
            touch(xen.replace('{xen}', v))
        root = os.path.join(self.tmp.name, 'platform', 'deb13', 'xt-bin')
        os.makedirs(root)
        qemu = os.path.join(root, 'qemu-system-x86_64')
        with open(qemu, 'w') as f:
            f.write('#!/bin/sh\n')
        os.chmod(qemu, 0o755)
        files = ['--xen', xen, *self.files[2:], '--platform-dir',
                 os.path.join(self.tmp.name, 'platform')]
        args = cli.parse_args(['matrix', '--out', 'o', *files, '--guest-types', 'pv',
                               'XENS=4.17 4.20', 'GUEST_SLOPS=5000', 'XEN_SLOPS=default',
                               'DEFAULT_CONFIG=0'])
        names = [c.name for c in run.configs_of(args)]
        self.assertEqual(names, ['Xen-4.17 PV Xen (default, 50000) | Guest (5000)',
                                 'Xen-4.20 PV Xen (default, 50000) | Guest (5000)'])
        ms = run.machines_of(args, [])
        self.assertEqual(ms[('', '4.20', 'pv')].xen, xen.replace('{xen}', '4.20'))
        self.assertEqual(ms[('', '4.20', 'pv')].qemu, qemu)
        self.assertEqual(ms[('', '4.17', 'pv')].qemu, 'qemu-system-x86_64')
        self.assertEqual(ms[('', '4.20', 'pv')].platform,
                         'Xen 4.20 (Debian 13), QEMU 11.1 (Debian 13)')
        # One Xen under the other's QEMU.
        args = cli.parse_args(['matrix', '--out', 'o', *files, '--guest-types', 'pv',
                               'QEMU=11.1'])
        self.assertEqual(run.machines_of(args, [])[('', '4.17', 'pv')].qemu, qemu)
        self.assertIn('needs {xen} for each one', self.main_fails(['XENS=4.17 4.20']))
        self.assertIn('needs the Debian 13 root', self.main_fails(['XENS=4.20']))
        self.assertIn('XENS: "4.18" is not one of 4.17 4.20', self.main_fails(['XENS=4.18']))

    def test_dom0_does_not_take_the_guests_parameters(self):
        # VCPUS, MEMORY, TIMEOUT and DOMU_TSC as the harness makes them.
        args = cli.parse_args(['matrix', '--out', 'o', *self.files, '--guest-types', 'pvh',
                               '--dom0-initrd', self.files[-1], 'VCPUS=1', 'MEMORY=200',
                               'TIMEOUT=60'])
        self.assertEqual(args.domu_params, ('xt_domu_vcpus=1', 'xt_domu_memory=200',
                                            'xt_domu_timeout=60', 'xt_domu_tsc_mode=native'))
        # Xen's own tsc_mode is left to xl: nothing on dom0's command line.
        self.assertNotIn('xt_domu_tsc_mode=default', cli.parse_args(
            ['matrix', '--out', 'o', *self.files, '--guest-types', 'pvh', '--dom0-initrd',
             self.files[-1], 'DOMU_TSC=default']).domu_params)
        self.assertIn('DOMU_TSC: "rdtsc" is not one of native default',
                      self.main_fails(['--guest-types', 'pvh', '--dom0-initrd', self.files[-1],
                                       'DOMU_TSC=rdtsc']))
        m = boot.Machine(guest=boot.GUEST_TYPES['pvh'], xen='xen.elf',
                         kernel='k', initrd=self.files[5], vcpus=1, timeout=60,
                         domu_params=args.domu_params)
        b = boot.GroupBoot(m, None, ['console=hvc0 xen_timer_slop xt_intervals=50,1000',
                                     'console=hvc0 xen_timer_slop=5000'])
        cmd = b.cmd
        self.assertEqual(b.parts[0].guest_cmdline,
                         'console=hvc0 xen_timer_slop xt_intervals=50,1000')
        dom0, initrd = cmd[cmd.index('-initrd') + 1].split(',')
        # VCPUS, MEMORY, TIMEOUT and DOMU_TSC reach the domU through dom0-init.
        self.assertEqual(dom0, 'k kunit.enable=0 xt_domu_type=pvh xt_domu_vcpus=1 '
                         'xt_domu_memory=200 xt_domu_timeout=60 xt_domu_tsc_mode=native '
                         'console=hvc0')
        # The domUs' command lines are a cpio archive after dom0's initramfs.
        with open(initrd, 'rb') as f:
            listing = subprocess.run(['cpio', '-i', '--to-stdout', '--quiet', 'etc/xt-domus'],
                                     stdin=f, capture_output=True, check=True).stdout
        self.assertEqual(listing.decode(), 'console=hvc0 xen_timer_slop xt_intervals=50,1000\n'
                         'console=hvc0 xen_timer_slop=5000\n')
        shutil.rmtree(b.tmp)
        with self.assertRaises(ValueError):
            boot.GroupBoot(boot.Machine(guest=boot.GUEST_TYPES['pv'], xen='x',
                                        kernel='k', initrd='i', vcpus=2, timeout=60),
                           None, ['console=hvc0'])

    def test_group_boot_leaves_no_temporary_files(self):
        # dom0's initramfs gone (or the disk full) while the group's is made.
        m = boot.Machine(guest=boot.GUEST_TYPES['pvh'], xen='xen.elf', kernel='k',
                         initrd=self.tmp.name + '/gone', vcpus=1, timeout=60)
        with mock.patch.object(tempfile, 'tempdir', self.tmp.name + '/t'):
            os.mkdir(tempfile.tempdir)
            with self.assertRaises(FileNotFoundError):
                boot.GroupBoot(m, None, ['console=hvc0'])
            self.assertEqual(os.listdir(tempfile.tempdir), [])

    def test_host_error_is_one_line(self):
        full = OSError(errno.ENOSPC, 'No space left on device', '/tmp/xt-group-x/initrd')
        err = io.StringIO()
        with mock.patch.object(run, 'run', side_effect=full), \
                contextlib.redirect_stderr(err):
            rc = cli.main(['matrix', '--out', self.tmp.name + '/out', '--guest-types',
                           'pv', *self.files])
        self.assertEqual(rc, model.EXIT_INFRA)
        self.assertEqual(err.getvalue(), 'harness: No space left on device: '
                         '/tmp/xt-group-x/initrd (the host, not the kernel under test)\n')

    def test_disk_check(self):
        script = os.path.join(HERE, '..', 'scripts', 'disk-check.sh')
        ok = subprocess.run([script, 'make', self.tmp.name + '/build', '0'],
                            capture_output=True, text=True)
        self.assertEqual((ok.returncode, ok.stderr), (0, ''))
        full = subprocess.run([script, 'check', self.tmp.name + '/build', '1000000'],
                              capture_output=True, text=True)
        self.assertEqual(full.returncode, 1)
        self.assertRegex(full.stderr, r'^make check: needs about 1000000 GB for \S+/build '
                         r'\(0\.0 GB there, [0-9.]+ GB free on its disk\): free [0-9.]+ GB '
                         r'and run it again\n$')
        for args in (['make', '.', '1.5'], ['all', '.'], ['make']):
            bad = subprocess.run([script, *args], capture_output=True, text=True)
            self.assertEqual(bad.returncode, 2, args)
            self.assertEqual(bad.stderr.count('\n'), 1, args)

    def test_type_is_the_outer_axis(self):
        args = cli.parse_args(['repeat', '--out', 'o', *self.files, '--runs', '2',
                               '--guest-types', 'pvh,pv pvh', '--dom0-initrd',
                               self.files[-1], '--xen-slops', 'default',
                               '--guest-slops', '100000 5000', '--default-config', '0'])
        self.assertEqual(args.guest_types, ('pvh', 'pv'))
        self.assertEqual(run.configs_of(args), [
            Config('', t, None, g, None, run) for t in ('pvh', 'pv') for g in (100000, 5000)
            for run in (1, 2)])
        self.assertEqual(Config('', 'pvh', None, 5000).name,
                         'PVH Xen (default, 50000) | Guest (5000)')
        self.assertEqual(Config('7.3', 'pv', 5000, None, None, 2).name,
                         '7.3 PV Xen (5000) | Guest (default) #2')
        self.assertEqual(Config('', 'pv-domu', None, None, '').name, 'PV-DOMU (none)')

    def test_kernel_is_the_outermost_axis(self):
        # make KVERS="6.12 7.3": the kernel version leads, then the type.
        xen, k, d = self.files[1], self.files[3], self.files[5]
        args = cli.parse_args(['matrix', '--out', 'o', '--xen', xen,
                               '--initrd', d, '--guest-types', 'pv pv-domu',
                               '--kernel-set', '6.12', k, d, '--kernel-set', '7.3', k, d,
                               '--xen-slops', 'default', '--guest-slops', '5000',
                               '--default-config', '0'])
        self.assertEqual(run.configs_of(args), [
            Config(v, t, None, 5000) for v in ('6.12', '7.3') for t in ('pv', 'pv-domu')])
        err = io.StringIO()
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(err):
            cli.parse_args(['matrix', '--out', 'o', '--xen', xen,
                            '--initrd', d, '--kernel', k,
                            '--kernel-set', '7.3', k, d])
        self.assertIn('not both', err.getvalue())


class TypeDifferences(unittest.TestCase):
    def res(self, t, params, md, status='ok'):
        ending = REACHED if status == 'ok' else Ending(Outcome.FAIL, 'hang')
        return boot_result(guest_type=t, params=params, cpus=[md, md], ending=ending)

    def test_same(self):
        self.assertEqual(verdict.type_differences([
            self.res('pv', 'xen_timer_slop=5K', '5000'), self.res('pvh', 'xen_timer_slop=5K', '5000'),
            self.res('pv', '', '1'), self.res('pvh', '', '1')]), [])

    def test_pvh_path_differs(self):
        # A kernel whose HVM path ignored the parameter.
        self.assertEqual(verdict.type_differences([
            self.res('pv', 'xen_timer_slop=5K', '5000'), self.res('pvh', 'xen_timer_slop=5K', '1'),
            self.res('hvm', 'xen_timer_slop=5K', '5000'), self.res('pv', '', '1'),
            self.res('pvh', '', '1')]),
            ['xen_timer_slop=5K: PV 5000, PVH 1, HVM 5000'])

    def test_unfinished_and_matrix_boots_ignored(self):
        self.assertEqual(verdict.type_differences([
            self.res('pv', 'a', '5'), self.res('pvh', 'a', '-', status='hang: ...'),
            self.res('pv', None, '5'), self.res('pvh', None, '1')]), [])


class Outcomes(unittest.TestCase):
    """How a console ends: PASS, FAIL (the kernel's fault) or INFRA (the
    emulator's, Xen's, the firmware's)."""

    def pvh(self):
        return captured('console.pvh-ok')

    def test_platform_skips_alone_are_infra(self):
        # A result the platform explains (judge.py) is the platform's:
        # alone it makes the boot INFRA (booted again), beside a failure
        # or a program test that could not trace, the kernel's FAIL.
        def with_result(test, status, reason=None, *more, **judged):
            r = boot_result(results=more)
            r.facts.results.insert(0, KtapResult(test, 'x', status, reason, **judged))
            return r
        lat, prog = model.LATENCY_TEST, model.PROGRAM_TEST
        noisy = with_result(lat, Status.FAIL, platform='burst')
        self.assertEqual((noisy.outcome, noisy.failures()),
                         (model.Outcome.INFRA, [f'{model.PLATFORM_FLAG}{lat}: x']))
        self.assertEqual(with_result(lat, Status.FAIL, None, (lat, 'y', Status.FAIL),
                                     platform='burst').outcome, model.Outcome.FAIL)
        self.assertEqual(with_result(lat, Status.SKIP, 'the Xen clockevent is not in use').outcome,
                         model.Outcome.PASS)
        self.assertEqual(with_result(prog, Status.SKIP, 'no kprobe events in tracefs',
                                     kernels_skip=True).outcome, model.Outcome.FAIL)
        self.assertEqual(with_result(prog, Status.SKIP, 'the probes missed hits',
                                     platform='the probes missed hits').outcome,
                         model.Outcome.INFRA)

    def test_ok_is_pass(self):
        self.assertEqual(watch(self.pvh(), qemu_rc=0).outcome, model.Outcome.PASS)

    def test_panic_is_fail(self):
        w = watch(captured('console.pv-panic'), qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.FAIL)

    def test_triple_fault_is_infra(self):
        lines = self.pvh()
        cut = lines[:domu_start(lines) + 40]
        cut.append('(XEN) d1v0 Triple fault - invoking HVM shutdown action 1')
        cut += lines[domu_start(lines) + 1:]
        w = watch(cut, qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.INFRA)
        self.assertEqual(w.status, 'Xen: (XEN) d1v0 Triple fault - invoking HVM shutdown action 1')
        self.assertFalse(w.ended)

    def test_captured_triple_fault_and_reboot(self):
        # make on a fresh machine (Debian's 6.12.118, QEMU 7.2 TCG): the PVH
        # domU triple-faulted during kernel init, xl restarted it, and the
        # second instance ran the tests: the old harness said PASS.
        lines = captured('console.pvh-triple-reboot.old-selftest')
        self.assertEqual(sum('Linux version' in line for line in lines), 3)
        self.assertIn(console.END_GUEST, lines)
        w = watch(lines, qemu_rc=0)
        self.assertEqual((w.outcome, w.ended), (model.Outcome.INFRA, False))
        self.assertEqual(w.status, 'Xen: (XEN) d1v0 Triple fault - invoking HVM shutdown action 1')
        # Without the Xen line the reboot alone ends the boot.
        w = watch([line for line in lines if 'Triple fault' not in line], qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.INFRA)
        self.assertIn('the guest rebooted', w.status)

    def test_captured_triple_fault_destroyed(self):
        # The same under the new dom0 (Debian's 7.3.4): on_reboot destroys
        # the domU, dom0 says why, and the boot ends INFRA there.
        lines = captured('console.pvh-triple-destroyed')
        w = console.Watcher(2.0, 2.0, domu=True)
        for k, line in enumerate(lines):
            w.feed(line, k * 0.01)
            if w.should_stop(k * 0.01):
                break
        w.finish(len(lines) * 0.01, qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.INFRA)
        # dom0's kernel only: the domU faulted before its first line.
        self.assertEqual(sum('Linux version' in line for line in lines), 1)
        self.assertIn('@@XT DOMU-DIED the domU is gone before its end marker: xl: shutdown '
                      'reason reboot (a triple fault, or the guest reset itself)', w.lines)

    def test_domu_dead_before_its_banner_is_the_platforms(self):
        # QEMU 11.1 under Xen 4.17: every PVH domU powered off before its
        # first line (earlyprintk=xen prints the banner at once).
        w = console.Watcher(1.0, 2.0, domu=True, platform='Xen 4.17, QEMU 11.1')
        lines = ['[    0.000000] Linux version 7.3.0 (dom0)', '@@XT DOMU-START pvh 1/1',
                 '@@XT DOMU-CREATED xt1',
                 '@@XT DOMU-DIED the domU is gone before its end marker: xl: shutdown '
                 'reason poweroff']
        for k, line in enumerate(lines):
            w.feed(line, k)
        w.finish(10.0, qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.INFRA)
        self.assertEqual(w.status, "the domU died before its kernel's first line: the "
                         "platform's: Xen 4.17, QEMU 11.1: the domU is gone before its end "
                         'marker: xl: shutdown reason poweroff')

    def test_captured_domu_dead_before_its_banner_is_infra(self):
        # Our 7.3 as a PVH domU of Xen 4.17 under QEMU 11.1: powered off at
        # its first instructions, nothing on its console (earlyprintk=xen,
        # Xen at guest_loglvl=all).
        lines = captured('console.pvh-early-death-xen4.17-qemu11.1')
        w = watch(lines, qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.INFRA)
        self.assertTrue(w.status.startswith(console.DOMU_DIED_EARLY), w.status)
        self.assertEqual(sum('Linux version' in line for line in lines), 1)

    def test_captured_domu_early_exception_is_fail(self):
        # Debian's 7.3.4 as a PV domU with a bare xen_timer_slop:
        # memparse(NULL) faults in early parameter parsing, before its
        # console; earlyprintk=xen (dom0-init) shows the kernel's own
        # report, and it is the kernel's fault whatever xl says after.
        lines = captured('console.pv-domu-early-exception-memparse-null')
        w = watch(lines, qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.FAIL)
        self.assertRegex(w.status, r'^panic: \(early\) PANIC: early exception 0x0e ')
        self.assertTrue(any('parse_xen_timer_slop' in line for line in lines))
        # A PVH domU's early console is port 0xE9, which Xen prints as
        # "(d1) ..." at guest_loglvl=all.
        w = watch(captured('console.pvh-domu-early-exception-memparse-null'), qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.FAIL)
        self.assertRegex(w.status, r'^panic: \(d1\) PANIC: early exception 0x0e ')
        # Without the report, as before earlyprintk=xen: still the
        # kernel's, since it printed its banner.
        w = watch([line for line in lines if 'PANIC' not in line], qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.FAIL)
        self.assertTrue(w.status.startswith('the domU powered itself off before its end '
                                            'marker'), w.status)

    def test_captured_domu_panic_is_fail(self):
        # Our 7.3 kernel as a PV domU with init=/bogus (printk timestamps):
        # the kernel's fault, whatever dom0 says after it.
        w = watch(captured('console.pv-domu-panic'), qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.FAIL)
        self.assertRegex(w.status, r'^panic: \[ *[0-9.]+\] Kernel panic - not syncing: '
                         r'Requested init /bogus failed')

    def test_second_kernel_is_a_reboot(self):
        # The domU rebooted and its second instance ran the tests: the
        # boot ended at the second start, it is no pass.
        lines = self.pvh()
        start = domu_start(lines)
        again = lines[:start + 200] + lines[start + 1:]
        w = watch(again, qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.INFRA)
        self.assertTrue(w.status.startswith('the guest rebooted: its kernel started again'))

    def test_second_begin_guest_is_a_reboot(self):
        lines = captured('console.pv-ok')
        b = next(k for k, line in enumerate(lines) if line.startswith(console.BEGIN_GUEST))
        again = lines[:b + 30] + [lines[b]] + lines[b + 1:]
        w = watch(again, qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.INFRA)
        self.assertIn('a second "@@XT BEGIN-GUEST"', w.status)

    def test_panic_before_the_fault_is_the_kernels(self):
        lines = self.pvh()
        cut = lines[:domu_start(lines) + 40]
        cut += ['Kernel panic - not syncing: Fatal exception in interrupt',
                '(XEN) d1v0 Triple fault - invoking HVM shutdown action 1']
        w = watch(cut, qemu_rc=0)
        self.assertEqual(w.outcome, model.Outcome.FAIL)

    def test_oops_is_fail(self):
        lines = self.pvh()
        cut = lines[:domu_start(lines) + 40]
        cut.append('Oops: general protection fault, probably for non-canonical address')
        self.assertEqual(watch(cut, qemu_rc=0).outcome, model.Outcome.FAIL)

    def test_selftest_text_is_not_a_crash(self):
        # A diagnostic may quote anything: only the kernel's and Xen's lines count.
        lines = captured('console.pv-ok')
        b = lines.index('# selftests: xen_timer: xen_timer_latency_test')
        lines[b + 1:b + 1] = ['# # Kernel panic quoted', '@@XT DMESG BUG: quoted']
        self.assertEqual(watch(lines, qemu_rc=0).outcome, model.Outcome.PASS)

    def test_unbuildable_dom0_is_fail(self):
        # A kernel Xen cannot load (built without CONFIG_XEN): Xen panics,
        # and its next line says the guest kernel is why.
        w = watch(captured('console.pv-dom0-unbuildable'), qemu_rc=0)
        self.assertEqual((w.outcome, w.status), (model.Outcome.FAIL,
                         'Xen could not build dom0 from the guest kernel: '
                         '(XEN) Could not construct domain 0'))

    def test_xen_panic_is_infra(self):
        lines = captured('console.pv-ok')[:40] + ['(XEN) Panic on CPU 0:']
        self.assertEqual(watch(lines, qemu_rc=0).outcome, model.Outcome.INFRA)

    def test_timeout_before_the_guest_kernel_is_infra(self):
        lines = self.pvh()
        # dom0 started, the domU did not: for a domU type that is no start.
        cut = lines[:domu_start(lines) + 1]
        w = console.Watcher(1.0, 2.0, domu=True)
        for k, line in enumerate(cut):
            w.feed(line, k * 0.01)
        w.finish(60.0, timeout=60)
        self.assertEqual(w.outcome, model.Outcome.INFRA)
        self.assertIn('the guest kernel had not started after 60 s', w.status)
        # The guest's kernel started: a hang is the kernel's.
        self.assertEqual(watch(captured('console.pv-hang'), timeout=60).outcome,
                         model.Outcome.FAIL)

    def test_qemu_exit_is_infra(self):
        lines = captured('console.pv-ok')[:40]
        self.assertEqual(watch(lines, qemu_rc=1).outcome, model.Outcome.INFRA)

    def test_stall_is_fail_and_domu_failed_is_infra(self):
        lines = self.pvh()
        cut = lines[:lines.index('@@XT BEGIN cyclictest-1000')]
        self.assertEqual(watch(cut + ['@@XT DOMU-STALL log 1 bytes, 30 s without output'],
                               qemu_rc=0).outcome, model.Outcome.FAIL)
        cut = lines[:domu_start(lines)]
        self.assertEqual(watch(cut + ['@@XT DOMU-FAILED xl create exited 3'],
                               qemu_rc=0).outcome, model.Outcome.INFRA)

    def test_run_exit(self):
        P, F, I = model.Outcome.PASS, model.Outcome.FAIL, model.Outcome.INFRA
        self.assertEqual(model.run_exit([P, P]), 0)
        self.assertEqual(model.run_exit([P, I, F]), 1)
        self.assertEqual(model.run_exit([P, I]), 3)


# A QEMU that prints, on its Nth start, the console in $FAKE_DIR/console.N
# (or the last one there is), as a boot would.
RETRY_QEMU = """#!/bin/sh
n=$(cat "$FAKE_DIR/n" 2>/dev/null || echo 0)
n=$((n + 1))
echo $n >"$FAKE_DIR/n"
f="$FAKE_DIR/console.$n"
[ -f "$f" ] || f=$(ls "$FAKE_DIR"/console.* | sort -t. -k2 -n | tail -n 1)
cat "$f"
"""


class FakeQemu(unittest.TestCase):
    """The harness run with RETRY_QEMU as QEMU."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        with open(os.path.join(d, 'qemu-system-x86_64'), 'w') as f:
            f.write(RETRY_QEMU)
        os.chmod(os.path.join(d, 'qemu-system-x86_64'), 0o755)
        for f in ('xen', 'kernel', 'initrd'):
            touch(os.path.join(d, f))
        self.env = dict(os.environ)
        os.environ['PATH'] = d + ':' + os.environ['PATH']
        os.environ['FAKE_DIR'] = d

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)
        self.tmp.cleanup()

    def harness(self, extra):
        """The harness's matrix with extra options: (exit status, its JSON,
        how many times QEMU started, its output)."""
        out = io.StringIO()
        d = self.tmp.name
        with contextlib.redirect_stdout(out):
            rc = cli.main(['matrix', '--accel', 'tcg', '--out', d + '/out',
                           '--timeout', '30', '--guest-types', 'pv', *extra] +
                          [x for f in ('xen', 'kernel', 'initrd')
                           for x in (f'--{f}', os.path.join(d, f))])
        with open(os.path.join(d, 'out', 'matrix.json')) as f:
            js = json.load(f)
        with open(os.path.join(d, 'n')) as f:
            boots = int(f.read())
        return rc, js, boots, out.getvalue()


class MutantBuild(unittest.TestCase):
    """scripts/mutant.sh puts the tree's file back whatever ends it, and
    a tree a killed build left mutated is refused, not built."""

    SRC = 'VISIBLE_IF_KUNIT int __init parse_xen_timer_slop(char *ptr)\n{\n\tif (!ptr)\n' \
          '\t\treturn -EINVAL;\n}\n'

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.d = self.tmp.name
        scripts = os.path.join(d, 'scripts')
        os.mkdir(scripts)
        shutil.copy(os.path.join(HERE, '..', 'scripts', 'mutant.sh'), scripts)
        with open(os.path.join(scripts, 'build-kernel.sh'), 'w') as f:
            f.write('#!/bin/bash\necho building\nsleep 60 &\nwait\n')
        os.chmod(os.path.join(scripts, 'build-kernel.sh'), 0o755)
        self.src = os.path.join(d, 'k', 'arch', 'x86', 'xen', 'time.c')
        os.makedirs(os.path.dirname(self.src))
        with open(self.src, 'w') as f:
            f.write(self.SRC)
        self.cmd = [os.path.join(scripts, 'mutant.sh'), os.path.join(d, 'k'),
                    os.path.join(d, 'o'), 'ignored', 'frag', 'gcc', '1']

    def tearDown(self):
        self.tmp.cleanup()

    def test_sigterm_puts_the_file_back(self):
        p = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertIn('1 lines changed', p.stdout.readline())
        self.assertEqual(p.stdout.readline(), 'building\n')
        with open(self.src) as f:
            self.assertIn('/* mutant: ignored */', f.read())
        p.terminate()
        self.assertNotEqual(p.wait(timeout=10), 0)
        p.stdout.close()
        p.stderr.close()
        with open(self.src) as f:
            self.assertEqual(f.read(), self.SRC)

    def test_leftover_refused(self):
        # A file left mutated: one line, no build.
        with open(self.src, 'a') as f:
            f.write('\treturn 0;\t/* mutant: ignored */\n')
        self.assert_refused(self.cmd, self.src, 'ignored')
        self.assert_refused(self.build_kernel(self.d), self.src, 'ignored')
        # Another mutant's file too (abslate's), for every mutant.
        with open(self.src, 'w') as f:
            f.write(self.SRC)
        posix = os.path.join(self.d, 'k', 'kernel', 'time', 'posix-timers.c')
        os.makedirs(os.path.dirname(posix))
        with open(posix, 'w') as f:
            f.write('\tif (flags & TIMER_ABSTIME)\t/* mutant: abslate */\n')
        self.assert_refused(self.cmd, posix, 'abslate')
        self.assert_refused(self.build_kernel(self.d), posix, 'abslate')
        with open(self.src) as f:
            self.assertEqual(f.read(), self.SRC)

    @staticmethod
    def build_kernel(d):
        return [os.path.join(HERE, '..', 'scripts', 'build-kernel.sh'),
                os.path.join(d, 'k'), os.path.join(d, 'o'), 'frag', 'gcc', '1']

    def assert_refused(self, cmd, path, name):
        kdir = cmd[1]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        self.assertEqual((r.returncode, r.stdout), (1, ''), r.stderr)
        self.assertEqual(r.stderr.splitlines(),
                         [f"mutant: {path} still holds a line of scripts/mutant.sh "
                          f"('/* mutant: {name} */'): remove {kdir} and run 'make tree'"])


class Terminated(unittest.TestCase):
    """A harness stopped with SIGTERM (CI's timeout, kill) leaves no
    QEMU and no temporary files behind, and keeps what it could judge."""

    def stop(self, d, console, extra):
        """The harness's matrix with a QEMU that prints console and waits,
        stopped with SIGTERM once it read all of it: (exit status, stderr,
        QEMU's pid)."""
        qemu = os.path.join(d, 'qemu-system-x86_64')
        with open(os.path.join(d, 'console'), 'w') as f:
            f.write('\n'.join(console) + '\n')
        with open(qemu, 'w') as f:
            f.write('#!/bin/sh\ncat "$FAKE_DIR/console"\n'
                    'echo $$ >"$FAKE_DIR/pid"\nexec sleep 60\n')
        os.chmod(qemu, 0o755)
        for f in ('xen', 'kernel', 'initrd', 'dom0'):
            touch(os.path.join(d, f))
        os.mkdir(os.path.join(d, 'tmp'))
        env = dict(os.environ, PATH=d + ':' + os.environ['PATH'], FAKE_DIR=d,
                   TMPDIR=os.path.join(d, 'tmp'), PYTHONPATH=ROOT)
        p = subprocess.Popen(
            [sys.executable, '-m', 'harness', 'matrix',
             '--accel', 'tcg', '--out', d + '/out', '--dom0-initrd', os.path.join(d, 'dom0'),
             'XENS=4.17', *extra] +
            [x for f in ('xen', 'kernel', 'initrd') for x in (f'--{f}', os.path.join(d, f))],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        pid = os.path.join(d, 'pid')
        for _ in range(100):
            if os.path.exists(pid) and os.path.getsize(pid):
                break
            time.sleep(0.1)
        with open(pid) as f:
            qemu_pid = int(f.read())
        # Stop once the harness has read all QEMU printed: nothing left
        # in the pipe (a fixed sleep could fall short on a busy host).
        with open(f'/proc/{qemu_pid}/fd/1', 'rb', buffering=0) as out:
            for _ in range(200):
                queued = array.array('i', [0])
                fcntl.ioctl(out, termios.FIONREAD, queued)
                if not queued[0]:
                    break
                time.sleep(0.05)
        time.sleep(0.2)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=20)
        with self.assertRaises(ProcessLookupError):
            for _ in range(50):
                os.kill(qemu_pid, 0)
                time.sleep(0.1)
        self.assertEqual(os.listdir(os.path.join(d, 'tmp')), [])
        return p.returncode, err, qemu_pid

    def test_sigterm(self):
        with tempfile.TemporaryDirectory() as d:
            rc, err, _ = self.stop(d, ['(XEN) Xen version 4.17.7'],
                                   ['--guest-types', 'pv-domu'])
            self.assertEqual(rc, 128 + signal.SIGTERM, err)
            self.assertEqual(err.strip().splitlines()[-1],
                             'harness: stopped by SIGTERM: no verdict (the run, not the kernel)')
            self.assertFalse(glob.glob(os.path.join(d, 'out', '*.json')))
            # The group boot's console so far is kept.
            glog = glob.glob(os.path.join(d, 'out', '*-boots', 'group-1.log'))
            self.assertEqual(len(glog), 1, os.listdir(os.path.join(d, 'out')))
            with open(glog[0]) as f:
                self.assertIn('(XEN) Xen version 4.17.7', f.read().splitlines())

    def test_the_domus_that_ended_keep_their_verdicts(self):
        # A false-failures run of 20 HVM domUs takes hours: stopped in
        # its third domU, the two before it are judged, not thrown away.
        ok = captured('console.pvh-ok')
        start = domu_start(ok)
        end = ok.index('@@XT END-GUEST') + 1
        with tempfile.TemporaryDirectory() as d:
            rc, err, _ = self.stop(
                d, ok[:start] + ok[start:end] * 2 + ok[start:start + 50],
                ['--guest-types', 'pvh', '--xen-slops', '5000', '--default-config', '0',
                 '--guest-slops', '100000 5000 2000'])
            self.assertEqual(rc, 128 + signal.SIGTERM, err)
            js_path = os.path.join(d, 'out', 'matrix.json')
            self.assertEqual(err.strip().splitlines()[-1],
                             f'harness: stopped by SIGTERM: 2 of 3 configs judged, in {js_path}; '
                             'the rest have no verdict (the run, not the kernel)')
            with open(js_path) as f:
                js = json.load(f)
            self.assertEqual((js['stopped'], js['configs_asked'], js['passed']),
                             ('SIGTERM', 3, 2))
            self.assertEqual([c['outcome'] for c in js['configs']], ['pass', 'pass'])
            self.assertEqual([g['configs'] for g in js['groups']], [[1, 2]])


class Retries(FakeQemu):
    """The harness boots an INFRA config again, never a FAIL one."""

    def consoles(self, *kinds):
        ok = captured('console.pv-ok')
        texts = {'ok': ok, 'panic': captured('console.pv-panic'),
                 'infra': ok[:120] + ['(XEN) Panic on CPU 0:', '(XEN) emulated fault']}
        for n, kind in enumerate(kinds, 1):
            with open(os.path.join(self.tmp.name, f'console.{n}'), 'w') as f:
                f.write('\n'.join(texts[kind]) + '\n')

    def run_harness(self, retries):
        return self.harness(['--xen-slops', 'default', '--guest-slops', 'default',
                             '--retries', str(retries)])

    def test_infra_then_pass(self):
        self.consoles('infra', 'ok')
        rc, js, boots, out = self.run_harness(2)
        self.assertEqual((rc, boots), (0, 2))
        c = js['configs'][0]
        self.assertEqual((c['outcome'], c['infra_tries']), ('pass', 1))
        self.assertEqual([t['outcome'] for t in c['tries']], ['infra', 'pass'])
        self.assertTrue(all(os.path.isfile(t['console']) for t in c['tries']))
        self.assertEqual(len({t['console'] for t in c['tries']}), 2)
        self.assertIn('booting it again', out)

    def test_a_panic_is_never_retried(self):
        self.consoles('panic', 'ok')
        rc, js, boots, _ = self.run_harness(2)
        self.assertEqual((rc, boots, js['configs'][0]['outcome']), (1, 1, 'fail'))

    def test_infra_to_the_end(self):
        self.consoles('infra')
        rc, js, boots, out = self.run_harness(1)
        self.assertEqual((rc, boots), (model.EXIT_INFRA, 2))
        self.assertEqual((js['infra'], js['failed'], js['infra_tries']), (1, 0, 2))
        self.assertIn('not the kernel (exit 3)', out)


def noisy(lines):
    """A console whose latency test failed interval_1000us_avg for one
    chunk of ten over its limit (a stall of the host's), as make check
    beside stress-ng --cpu 2 gave it."""
    out = []
    for line in lines:
        if line == '# ok 4 interval_1000us_avg':
            line = '# not ok 4 interval_1000us_avg'
        elif line == 'ok 3 selftests: xen_timer: xen_timer_latency_test':
            line = 'not ok 3 selftests: xen_timer: xen_timer_latency_test # exit=1'
        elif line.startswith('# # XT_CHUNK interval_us=1000 chunk=0 '):
            line = re.sub(r'avg_ns=\d+', 'avg_ns=99000000', line)
        out.append(line)
    return out


class Groups(FakeQemu):
    """A domU type's configs of one Xen timer_slop share one Xen and dom0
    boot (boot.GroupBoot): each domU has its own console, verdict and
    tries; an INFRA one, or one the boot never reached, is booted again
    alone."""

    def consoles(self, *boots):
        ok = captured('console.pvh-ok')
        start = domu_start(ok)
        end = ok.index('@@XT END-GUEST') + 1
        panic = captured('console.pv-domu-panic')
        triple = captured('console.pvh-triple-destroyed')
        tstart = triple.index('@@XT DOMU-START pvh')
        tend = next(i for i, l in enumerate(triple) if l.startswith('@@XT DOMU-DIED')) + 1
        died = '@@XT DOMU-DIED the domU is gone before its end marker: xl: shutdown reason crash'
        seg = {'ok': ok[start:end],
               'panic': panic[panic.index('@@XT DOMU-START pv'):] + [died],
               'triple': triple[tstart:tend],
               'cut': ok[start:start + 200] + ['(XEN) Hardware Dom0 crashed: rebooting machine'],
               'slow': ok[start:start + 200] + ['@@XT DOMU-TIMEOUT 30', 'xl destroy'],
               'noise': noisy(ok[start:end])}
        for n, kinds in enumerate(boots, 1):
            text = ok[:start] if kinds[0] != 'xen-panic' else \
                ok[:100] + ['(XEN) Panic on CPU 0:', '(XEN) emulated fault']
            for kind in kinds[1:] if kinds[0] == 'xen-panic' else kinds:
                text = text + seg[kind]
            text.append('(XEN) Hardware Dom0 halted: halting machine')
            with open(os.path.join(self.tmp.name, f'console.{n}'), 'w') as f:
                f.write('\n'.join(text) + '\n')

    def run_group(self, retries=2):
        rc, js, boots, out = self.harness(
            ['--guest-types', 'pvh', '--dom0-initrd', self.tmp.name + '/initrd',
             '--xen-slops', '5000', '--guest-slops', '100000 5000', '--default-config', '0',
             '--retries', str(retries)])
        return rc, js, boots, [c['outcome'] for c in js['configs']], out

    def test_two_domus_one_boot(self):
        self.consoles(['ok', 'ok'])
        rc, js, boots, outcomes, out = self.run_group()
        self.assertEqual((rc, boots, outcomes), (0, 1, ['pass', 'pass']))
        self.assertEqual([(g['configs'], g['xen_cmdline'].split()[-1]) for g in js['groups']],
                         [([1, 2], 'timer_slop=5000')])
        self.assertEqual(list(js['groups'][0]['shared_timing'])[:2], ['Xen', 'guest kernel'])
        for c in js['configs']:
            self.assertEqual(list(c['timing'])[0], 'domU')
            self.assertEqual(c['group'], 1)
            with open(c['console']) as f:
                lines = f.read().splitlines()
            self.assertEqual(sum(l.startswith('@@XT DOMU-START') for l in lines), 1)
            self.assertEqual(sum(l.startswith('@@XT END-GUEST') for l in lines), 1)
        self.assertIn('booting Xen and dom0 for 2 domUs: [1], [2]', out)

    def test_a_panic_is_its_domus_alone(self):
        self.consoles(['panic', 'ok'])
        rc, js, boots, outcomes, _ = self.run_group()
        self.assertEqual((rc, boots, outcomes), (1, 1, ['fail', 'pass']))
        self.assertIn('panic: ', js['configs'][0]['status'])

    def test_an_infra_domu_is_booted_again_alone(self):
        self.consoles(['triple', 'ok'], ['ok'])
        rc, js, boots, outcomes, out = self.run_group()
        self.assertEqual((rc, boots, outcomes), (0, 2, ['pass', 'pass']))
        self.assertEqual([g['configs'] for g in js['groups']], [[1, 2], [1]])
        self.assertEqual([t['outcome'] for t in js['configs'][0]['tries']], ['infra', 'pass'])
        self.assertIn('booting Xen and dom0 for 1 domUs: [1]', out)

    def test_a_dead_dom0_ends_the_boot_and_the_rest_run_again(self):
        self.consoles(['cut'], ['ok'])
        rc, js, boots, outcomes, out = self.run_group()
        self.assertEqual((rc, boots, outcomes), (1, 2, ['fail', 'pass']))
        self.assertEqual([g['configs'] for g in js['groups']], [[1], [2]])
        self.assertEqual(len(js['configs'][1]['tries']), 1)
        self.assertIn('not run (the boot ended before its domU)', out)

    def test_dom0_ends_a_domu_at_its_timeout_and_the_next_runs(self):
        # dom0-init destroys a domU at xt_domu_timeout= and starts the
        # next: the slow one is INFRA, booted again; the boot goes on.
        self.consoles(['slow', 'ok'], ['ok'])
        rc, js, boots, outcomes, out = self.run_group()
        self.assertEqual((rc, boots, outcomes), (0, 2, ['pass', 'pass']))
        self.assertEqual([g['configs'] for g in js['groups']], [[1, 2], [1]])
        self.assertEqual([t['outcome'] for t in js['configs'][0]['tries']], ['infra', 'pass'])
        why = js['configs'][0]['tries'][0]['reason']
        self.assertTrue(why.startswith('too slow: no end marker after 30 s'), why)
        self.assertEqual(len(js['configs'][1]['tries']), 1)

    def test_the_noise_of_each_try_is_in_the_json(self):
        # make check beside stress-ng --cpu 2 on Xen 4.20: a stall of one
        # chunk of ten put three 1 ms checks over; the chunks' one-shot
        # medians agreed, so no majority: the platform's, booted again.
        # Each try's JSON keeps the noise that decided it.
        self.consoles(['noise', 'ok'], ['ok'])
        rc, js, boots, outcomes, _ = self.run_group()
        self.assertEqual((rc, boots, outcomes), (0, 2, ['pass', 'pass']))
        first, last = js['configs'][0]['tries']
        self.assertEqual(first['reason'], model.PLATFORM_FLAG + 'xen_timer_latency_test: '
                                          'interval_1000us_avg')
        self.assertEqual(len(first['noise']), 1)
        self.assertIn('interval_1000us_avg: avg over its limit in 1 of 10 chunks', first['noise'][0])
        self.assertEqual(last['noise'], [])

    def test_a_broken_shared_part_is_every_domus(self):
        self.consoles(['xen-panic', 'ok', 'ok'], ['ok', 'ok'])
        rc, js, boots, outcomes, _ = self.run_group()
        self.assertEqual((rc, boots, outcomes), (0, 2, ['pass', 'pass']))
        for c in js['configs']:
            self.assertEqual([t['outcome'] for t in c['tries']], ['infra', 'pass'])

    def test_infra_every_time(self):
        self.consoles(['triple', 'triple'])
        rc, js, boots, outcomes, _ = self.run_group(retries=1)
        self.assertEqual((rc, boots, outcomes), (model.EXIT_INFRA, 2, ['infra', 'infra']))


class LkftNames(unittest.TestCase):
    """The names LKFT's kselftest parser records our results under."""

    def kselftest(self, name):
        return console.blocks(captured(name))['kselftest'].lines

    def test_names(self):
        names = [(r.name, r.result) for r in lkft.records(RUN_KSELFTEST)]
        self.assertIn(('xen_timer_xen_timer_slop_test_cpu1_min_delta_ns', 'fail'), names)
        self.assertIn(('xen_timer_xen_timer_slop_test', 'fail'), names)
        self.assertIn(('xen_timer_xen_timer_latency_test', 'skip'), names)

    def test_the_unpatched_parser_is_not_modelled(self):
        # Linaro's parse-output.py before patches/test-definitions/0001
        # named a skipped result after its reason too: the model is the
        # patched one, which keeps the name.
        stream = self.stream(['ok 1 interval_50us_avg # SKIP the Xen clockevent is not in use'])
        self.assertEqual([r.name for r in lkft.records(stream)][0],
                         'xen_timer_xen_timer_latency_test_interval_50us_avg')
        unnamed = self.stream(['ok 1 # SKIP the Xen clockevent is not in use'])
        self.assertEqual([r.name for r in lkft.records(unnamed)][0],
                         'xen_timer_xen_timer_latency_test_the_Xen_clockevent_is_not_in_use')

    def stream(self, *results):
        return ['TAP version 13', '1..1', '# selftests: xen_timer: xen_timer_latency_test',
                '# TAP version 13', f'# 1..{len(results)}',
                *[f'# {l}' for r in results for l in r],
                'ok 1 selftests: xen_timer: xen_timer_latency_test']

    def test_one_name_whatever_the_outcome(self):
        avg = ['ok 1 interval_50us_avg', '# XT_LAT interval_us=50']
        skip = ['ok 2 interval_50us_p99 # SKIP the probes missed hits']
        fail = ['not ok 2 interval_50us_p99', '# XT_CHUNK interval_us=50']
        runs = {'a': self.stream(avg, skip), 'b': self.stream(avg, fail)}
        self.assertEqual(lkft.problems(runs), [])
        rec = lkft.records(runs['a'])
        self.assertEqual([(r.name, r.result) for r in rec][:2], [
            ('xen_timer_xen_timer_latency_test_interval_50us_avg', 'pass'),
            ('xen_timer_xen_timer_latency_test_interval_50us_p99', 'skip')])
        self.assertEqual(rec[0].log, ['XT_LAT interval_us=50'])
        # The reason read back as the harness's.
        nested = console.kselftest_tests(runs['a'])['xen_timer_latency_test'].lines
        self.assertEqual(console.ktap_results(nested)[1].reason, 'the probes missed hits')
        # Two results of one name in a run: the parser renames one.
        found = lkft.problems({'a': self.stream(avg, avg)})
        self.assertEqual(found, ['a: two results recorded as '
                                 'xen_timer_xen_timer_latency_test_interval_50us_avg'])

    def test_tappy_wants_the_plan_first(self):
        good = self.stream(['ok 1 interval_50us_avg', '# interval 50 us: avg 3.1 us (limit 9.0)'])
        # The selftests of before: a diagnostic between version and plan.
        late = good[:4] + ['# # on Xen: /sys/hypervisor/type is xen'] + good[4:]
        found, why = lkft.tap_problems({'good': good})
        if why:
            self.skipTest(why)
        self.assertEqual(found, [])
        found, _ = lkft.tap_problems({'late': late})
        self.assertEqual(found, ['late: xen_timer_latency_test: tappy: A plan must appear at the '
                                 'beginning or end of the file.'])


class PipefailPipes(unittest.TestCase):
    """Under pipefail, a pipeline into grep -q fails when grep matched and
    left before the writer was done: the writer dies of SIGPIPE.  So
    prepare-tree's "is this patch in the git tree already" said no in 163
    of 200 tries on a long git log, and mkseries' "does this patch edit
    the Makefile" (bash's printf writes line by line) can say no under
    load: a red CI run, "arch/x86/xen/time_kunit.c is in no patch"."""

    def test_grep_q_at_a_pipes_end_fails_under_pipefail(self):
        # Why the rule below: deterministic with a writer longer than a pipe.
        def status(pipe: str) -> int:
            return subprocess.run(['bash', '-c', f'set -o pipefail; {pipe}']).returncode
        self.assertNotEqual(status('seq 100000 | grep -qx 1'), 0)
        self.assertEqual(status('seq 100000 | grep -x 1 >/dev/null'), 0)

    def test_no_script_pipes_into_grep_q(self):
        bad = []
        for path in sorted(glob.glob(os.path.join(ROOT, 'scripts', '*.sh')) +
                           glob.glob(os.path.join(ROOT, 'guest', '*.sh'))):
            name = os.path.relpath(path, ROOT)
            with open(path) as f:
                for n, line in enumerate(f, 1):
                    if re.search(r'\|\s*grep\s+(-[a-zA-Z]*q|--quiet)', line):
                        bad.append(f'{name}:{n}')
        self.assertEqual(bad, [], 'use grep ... >/dev/null: it reads to the end')


class Misses(unittest.TestCase):
    def test_each_mutant_has_a_slop(self):
        # abslate breaks every sleep, at the kernel's default slop: "default"
        # (the misses command read it as a number and died with a traceback).
        self.assertIsNone(mutants.mutant_slop('abslate'))
        self.assertEqual(mutants.mutant_slop('doubled'), 2000000)
        for m in ('ignored', 'forced', 'bypassed'):
            self.assertIsInstance(mutants.mutant_slop(m), int)


class RunKtap(unittest.TestCase):
    def test_kunit_is_nested_as_its_ktap_not_the_console(self):
        # A kunit.py that reads a raw console is given the whole console;
        # the run's KTAP must nest only KUnit's lines (kunit.py parse of
        # the run said "0 tests run" for each boot before).
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        raw = os.path.join(tmp.name, 'kunit-1.log')
        shutil.copy(os.path.join(HERE, 'data', 'console.pv-ok'), raw)
        r = boot_result('PV a')
        r.kunit = StreamCheck(ok=True, summary='Ran 19 tests', names=[], path=raw)
        text = report.run_ktap([r], 'm', 'TCG')
        lines = [l.strip() for l in text.splitlines()]
        k = lines.index('# Subtest: kunit')
        self.assertEqual(lines[k - 1], 'KTAP version 1')
        body = lines[k + 1:]
        self.assertFalse([l for l in body if '(XEN)' in l or 'SeaBIOS' in l])
        self.assertEqual(body[0], '1..3')
        self.assertIn('ok 1 xen_timer_slop', body)
        body = body[:body.index('ok 1 kunit') + 1]
        self.assertTrue(all(l.startswith(('KTAP', 'TAP', '#', 'ok', 'not ok', '1..'))
                            for l in body), body)


def lava_log(lines, result='pass', error='', timed_out=False, server=False, end_s=None):
    """A LAVA job log of a console: lava-run's JSON lines (or a server's
    YAML list), one target line every 10 ms, LAVA's own lines around;
    end_s: when the test ended and LAVA powered the device off, in
    seconds after 10:00 (LAVA's "poweroff" is on the console then)."""
    def rec(k, lvl, msg, t=None):
        t = 10 * 3600 + (k * 0.01 if t is None else t)
        dt = f'2026-12-05T{int(t // 3600):02d}:{int(t % 3600 // 60):02d}:{t % 60:09.6f}'
        text = json.dumps({'dt': dt, 'lvl': lvl, 'msg': msg})
        return f'- {text}' if server else text
    out = [rec(0, 'info', 'start: 1 deploy'), rec(0, 'debug', 'qemu-system-x86_64 ...')]
    out += [rec(k, 'target', line) for k, line in enumerate(lines, 1)]
    if timed_out:
        out.append(rec(len(lines) + 1, 'warning', 'err: lava test monitoring has timed out',
                       end_s))
    out.append(rec(len(lines) + 1, 'info', 'start: 4 finalize (timeout 00:10:00) [common]', end_s))
    out.append(rec(len(lines) + 1, 'target', 'poweroff', end_s))
    job = {'case': 'job', 'definition': 'lava', 'result': result}
    if error:
        job['error_msg'] = error
    out.append(rec(len(lines) + 2, 'results', job))
    return '\n'.join(out) + '\n'


class Lava(unittest.TestCase):
    """The lava and merge commands: a config as a LAVA job, its log as a boot."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.files = []
        for f in ('xen', 'kernel', 'initrd', 'dom0-initrd'):
            path = os.path.join(self.tmp.name, f)
            touch(path)
            self.files += [f'--{f}', path]

    def tearDown(self):
        self.tmp.cleanup()

    def machine(self, t):
        return boot.Machine(guest=boot.GUEST_TYPES[t], xen='/b/xen.elf', kernel='/b/bzImage',
                            initrd='/b/initrd', vcpus=2, timeout=300,
                            domu_params=('xt_domu_vcpus=2',))

    def test_a_job_boots_as_the_local_boot(self):
        urls = {'/b/xen.elf': 'http://lab/xen.elf', '/b/bzImage': 'http://lab/bzImage',
                '/b/initrd': 'http://lab/initrd'}
        for t in ('pv', 'pvh'):
            m = self.machine(t)
            cfg = Config('', t, 5000, 100000)
            cmdline = 'console=hvc0 xen_timer_slop=100000 xt_intervals=50,1000'
            job = lava.job(m, cfg, cmdline, 'j', urls)
            images = job['actions'][0]['deploy']['images']
            local = boot.qemu_cmd(m, boot.multiboot(m, boot.xen_cmdline(m, 5000),
                                                    boot.kernel_cmdline(m, cmdline),
                                                    m.initrd))
            arg = images['xen']['image_arg']
            for label, path in (('{xen}', m.xen), ('{kernel}', m.kernel),
                                ('{ramdisk}', m.initrd)):
                arg = arg.replace(label, path)
            # LAVA splits the image argument as a shell would.
            import shlex
            loading = shlex.split(arg)
            k = local.index('-kernel')
            self.assertEqual(loading, local[k:k + 6])
            # The machine: what the job's context has QEMU add.
            ctx = job['context']
            self.assertEqual(ctx['memory'], m.guest.memory_mb)
            rest = [w for o in ctx['extra_options'] for w in o.split()]
            self.assertEqual(rest, [w for w in boot.qemu_args(m)
                                    if w not in ('-m', str(m.guest.memory_mb))])
            self.assertTrue(ctx['no_kvm'])
            self.assertEqual(job['metadata']['guest_slop'], '100000')
        # A domU's command line reaches it through dom0-init's xt_domu.
        self.assertIn('xt_domu_type=pvh xt_domu_vcpus=2 console=hvc0 '
                      'xt_domu.xen_timer_slop=100000 xt_domu.xt_intervals=50,,1000,{ramdisk}',
                      arg.replace(m.initrd, '{ramdisk}'))
        with self.assertRaises(lava.LavaError):
            lava.job(self.machine('pvh-dom0'), Config('', 'pvh-dom0', None, None), 'c', 'j', urls)
        with self.assertRaises(lava.LavaError):
            lava.job(self.machine('pv'), Config('', 'pv', None, None), 'a="b c"', 'j', urls)

    def test_golden_job(self):
        # A job as a lab gets it (tests/data/lava-job.pv-domu.yaml): any
        # change of what the harness emits shows here first.
        m = boot.Machine(guest=boot.GUEST_TYPES['pv-domu'], xen='/b/xen-4.17.elf',
                         kernel='/b/bzImage', initrd='/b/initramfs-dom0-build.cpio.gz',
                         vcpus=2, timeout=300,
                         domu_params=('xt_domu_vcpus=2', 'xt_domu_memory=256'))
        urls = {f: 'https://lab.example.org/xt/' + os.path.basename(f)
                for f in (m.xen, m.kernel, m.initrd)}
        cmd = ('console=hvc0 xen_timer_slop=2000000 xt_intervals=50,1000 xt_samples=1000 '
               'xt_oneshot=100 xt_hist_us=1000 xt_rt_prio=80 xt_host_slop=50000')
        job = lava.job(m, Config('7.3', 'pv-domu', None, 2000000), cmd,
                       'xen_timer boot-check-7.3 [4/6] 7.3 PV-DOMU Xen (default, 50000) | '
                       'Guest (2000000)', urls)
        with open(os.path.join(HERE, 'data', 'lava-job.pv-domu.yaml')) as f:
            self.assertEqual(lava.yaml(job), f.read())

    def test_yaml_reads_back(self):
        try:
            import yaml
        except ImportError:
            self.skipTest('no PyYAML for this python3')
        job = lava.job(self.machine('pv-domu'), Config('7.3', 'pv-domu', None, 5000),
                       "console=hvc0 a=b:c x=#1", "xen_timer m [1/2] PV: 'x' | y",
                       {'/b/xen.elf': 'file:///x y', '/b/bzImage': 'u', '/b/initrd': 'v'})
        self.assertEqual(yaml.safe_load(lava.yaml(job)), job)

    def lava(self, *extra, cmd='lava'):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                rc = cli.main([cmd, '--out', self.tmp.name + '/out', '--name', 'm',
                               *self.files, *extra])
            except SystemExit as e:
                rc = e.code
        return rc, out.getvalue()

    def test_jobs_validate_and_a_bad_one_is_named(self):
        rc, out = self.lava('GUEST_TYPES=pv pv-domu pvh-dom0', 'XEN_SLOPS=default 5000')
        self.assertEqual(rc, 0, out)
        self.assertIn('pvh-dom0 left out', out)
        jobs = os.path.join(self.tmp.name, 'out', 'm-lava', 'jobs')
        # (2 x 2 slops and the default config) x 2 types.
        self.assertEqual(len(os.listdir(jobs)), 10)
        self.assertEqual(sorted(os.listdir(os.path.join(jobs, '..', 'images'))),
                         ['dom0-initrd', 'initrd', 'kernel', 'xen'])
        good = os.path.join(jobs, sorted(os.listdir(jobs))[0])
        bad, why = lava.validate([good])
        if why:
            self.skipTest(why)
        self.assertEqual(bad, [])
        broken = os.path.join(self.tmp.name, 'broken.yaml')
        with open(good) as f, open(broken, 'w') as g:
            g.write(f.read().replace('context:\n', 'context:\n  bogus_key: 1\n'))
        bad, _ = lava.validate([good, broken])
        self.assertEqual(len(bad), 1)
        self.assertTrue(bad[0].startswith(broken + ': '))

    def test_monitor_pattern_reads_every_ktap_result(self):
        # What LAVA records of each captured console: every KTAP result
        # line once, a SKIP directive as skip.
        for name in sorted(os.listdir(os.path.join(HERE, 'data'))):
            if not name.startswith('console.'):
                continue
            lines = captured(name)
            want = []
            for line in lines:
                m = re.search(r'(not ok|ok) \d+ ([^#]*[^#\s])\s*(# (\w+))?', line)
                if m:
                    want.append(('skip' if m.group(4) == 'SKIP' else
                                 'fail' if m.group(1) == 'not ok' else 'pass',
                                 re.sub(r'\W+', '_', m.group(2).strip().lower())))
            got = lava.monitor_results('\r\n'.join(lines) + '\r\n')
            self.assertEqual([(r, c) for c, r in got], want, name)
        got = dict(lava.monitor_results('# ok 3 slop_in_effect # SKIP slop too small\r\n'
                                        'not ok 4 selftests: xen_timer: x_test\r\n'))
        self.assertEqual(got, {'slop_in_effect': 'skip', 'selftests_xen_timer_x_test': 'fail'})
        # The monitors end after the end marker's line, never at it (LAVA
        # stops reading there), as pexpect matches: with re.DOTALL.
        for name in ('console.pv-ok', 'console.pvh-ok'):
            text = '\r\n'.join(captured(name)) + '\r\n'
            end = re.search(lava.MONITOR_END, text, re.DOTALL)
            self.assertTrue(end, name)
            self.assertGreater(end.start(), text.index(console.END_GUEST + '\r\n'), name)
        self.assertFalse(re.search(lava.MONITOR_END, '@@XT END-GUEST\r\n', re.DOTALL))
        crash = '(XEN) **** Dom0 x\r\nok 1 a\r\n crash'
        self.assertFalse(re.search(lava.MONITOR_END, crash, re.DOTALL))
        self.assertTrue(re.search(lava.MONITOR_END, '(XEN) Hardware Dom0 crashed: x'))

    def replay(self, name, t='pv', **log):
        path = os.path.join(self.tmp.name, 'job.log')
        with open(path, 'w') as f:
            f.write(lava_log(captured(name) if isinstance(name, str) else name, **log))
        return lava.Replay(self.machine(t), 'c', lava.read_log(path))

    def test_a_log_is_judged_as_the_local_boot(self):
        for name, t in (('console.pv-ok', 'pv'), ('console.pv-panic', 'pv'),
                        ('console.pv-domu-panic', 'pv-domu'), ('console.pvh-ok', 'pvh'),
                        ('console.pvh-triple-reboot.old-selftest', 'pvh'),
                        ('console.pv-domu-early-exception-memparse-null', 'pv-domu'),
                        ('console.pvh-early-death-xen4.17-qemu11.1', 'pvh')):
            local = console.Watcher(1.0, 2.0, domu=boot.GUEST_TYPES[t].domu)
            for k, line in enumerate(captured(name), 1):
                if local.should_stop(k * 0.01):
                    break
                local.feed(line, k * 0.01)
            local.finish(k * 0.01, qemu_rc=0)
            for server in (False, True):
                r = self.replay(name, t, server=server)
                self.assertEqual((r.status, r.ending.outcome), (local.status, local.ending.outcome),
                                 name)
        self.assertEqual(self.replay('console.pv-ok').ending.outcome, Outcome.PASS)

    def test_lava_ending_the_job_is_infra_and_a_timeout_a_hang(self):
        lines = captured('console.pv-ok')
        cut = lines[:len(lines) // 2]
        r = self.replay(cut, result='fail', error='Connection closed')
        self.assertEqual(r.ending.outcome, Outcome.INFRA)
        self.assertIn('LAVA ended the job before the end marker', r.status)
        self.assertIn('Connection closed', r.ending.detail)
        # The monitors' timeout 300 s after the last console line: a
        # hang, though LAVA's "poweroff" follows.
        path = os.path.join(self.tmp.name, 'hang.log')
        with open(path, 'w') as f:
            f.write(lava_log(cut, timed_out=True, end_s=len(cut) * 0.01 + 300))
        r = lava.Replay(self.machine('pv'), 'c', lava.read_log(path))
        self.assertEqual(r.ending.outcome, Outcome.FAIL)
        self.assertTrue(r.status.startswith('hang: no end marker'), r.status)
        self.assertNotIn('poweroff', r.lines)
        miss = lava.missing_log(self.machine('pv'), 'c', '/x/001.log')
        self.assertEqual(miss.ending.outcome, Outcome.INFRA)
        self.assertTrue(miss.status.startswith('no LAVA log: /x/001.log does not exist'))
        with self.assertRaises(lava.LavaError):
            with open(path, 'w') as f:
                f.write('not a log\n')
            lava.read_log(path)
        # A server's YAML escapes.
        with open(path, 'w') as f:
            f.write('- {"dt": "2026-12-05T10:00:00.000000", "lvl": "target", '
                    '"msg": "\\e[0mok\\x41"}\n')
        self.assertEqual(lava.read_log(path).lines, [('\x1b[0mokA', 0.0)])

    def test_merge_gives_the_run_reports_and_compares(self):
        rc, out = self.lava('GUEST_TYPES=pv', 'XEN_SLOPS=default', 'GUEST_SLOPS=2000000',
                            'DEFAULT_CONFIG=0')
        self.assertEqual(rc, 0, out)
        logs = os.path.join(self.tmp.name, 'out', 'm-lava', 'logs')
        os.makedirs(logs)
        stem = sorted(os.listdir(os.path.join(logs, '..', 'jobs')))[0][:-5]
        with open(os.path.join(logs, stem + '.log'), 'w') as f:
            f.write(lava_log(captured('console.pv-ok')))
        sets = ('GUEST_TYPES=pv', 'XEN_SLOPS=default', 'GUEST_SLOPS=2000000', 'DEFAULT_CONFIG=0')
        rc, out = self.lava(*sets, cmd='merge')
        self.assertEqual(rc, 0, out)
        js = os.path.join(self.tmp.name, 'out', 'm.json')
        with open(js) as f:
            run = json.load(f)
        self.assertEqual((run['passed'], run['configs'][0]['status']), (1, 'ok'))
        other = os.path.join(self.tmp.name, 'other.json')
        shutil.copy(js, other)
        rc, out = self.lava(*sets, '--compare', other, cmd='merge')
        self.assertEqual(rc, 0, out)
        self.assertIn('the verdicts of 1 configs equal', out)
        run['configs'][0]['outcome'] = 'fail'
        run['configs'][0]['verdicts'][0]['verdict'] = 'fail'
        with open(other, 'w') as f:
            json.dump(run, f)
        rc, out = self.lava(*sets, '--compare', other, cmd='merge')
        self.assertEqual(rc, 1, out)
        self.assertIn('pass here, fail there', out)
        # No log: INFRA, exit 3.
        os.remove(os.path.join(logs, stem + '.log'))
        rc, out = self.lava(*sets, cmd='merge')
        self.assertEqual(rc, 3, out)


if __name__ == '__main__':
    unittest.main()

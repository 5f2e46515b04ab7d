# SPDX-License-Identifier: GPL-2.0
"""Host tests of scripts/harness.py's parsing of a guest console."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'scripts'))
import harness  # noqa: E402

RUN_KSELFTEST = """TAP version 13
1..2
# timeout set to 180
# selftests: xen_timer: xen_timer_slop_test
# TAP version 13
# 1..2
# # on Xen: /sys/hypervisor/type is xen
# ok 1 cpu0: xen min_delta_ns 100000, expected 100000
# not ok 2 cpu1: xen min_delta_ns 1, expected 100000
# # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0
not ok 1 selftests: xen_timer: xen_timer_slop_test # exit=1
# timeout set to 180
# selftests: xen_timer: xen_timer_latency_test
# TAP version 13
# 1..1
# ok 1 slop in effect: median sleep 452 us for 10 us, 452 us for 100 us
#
ok 2 selftests: xen_timer: xen_timer_latency_test # SKIP
""".splitlines()


class KselftestSplit(unittest.TestCase):
    def test_split(self):
        t = harness.kselftest_tests(RUN_KSELFTEST)
        self.assertEqual(sorted(t), ['xen_timer_latency_test', 'xen_timer_slop_test'])
        slop = t['xen_timer_slop_test']
        self.assertEqual(slop['rc'], 1)
        self.assertEqual(slop['lines'][0], 'TAP version 13')
        self.assertIn('# on Xen: /sys/hypervisor/type is xen', slop['lines'])
        self.assertEqual([r['verdict'] for r in harness.ktap_results(slop['lines'])],
                         ['pass', 'fail'])
        lat = t['xen_timer_latency_test']
        self.assertEqual(lat['rc'], 4)
        self.assertEqual(lat['lines'][-1], '')

    def test_ok_and_skip(self):
        lines = ['# selftests: xen_timer: a', 'ok 1 selftests: xen_timer: a',
                 '# selftests: xen_timer: b', 'ok 2 selftests: xen_timer: b # SKIP']
        t = harness.kselftest_tests(lines)
        self.assertEqual((t['a']['rc'], t['b']['rc']), (0, 4))

    def test_unfinished_test_is_missing(self):
        # A guest that died inside a test has no result line for it.
        t = harness.kselftest_tests(RUN_KSELFTEST[:9])
        self.assertEqual(t, {})

    def test_other_collection_ignored(self):
        t = harness.kselftest_tests(['# selftests: timers: posix_timers',
                                     'ok 1 selftests: timers: posix_timers'])
        self.assertEqual(t, {})


class Detectors(unittest.TestCase):
    def result(self, **kw):
        r = {'status': 'ok', 'verdicts': [], 'ok': True}
        r.update(kw)
        return r

    def test_grouping(self):
        r = self.result(ok=False, kunit={'ok': False}, verdicts=[
            {'test': 'xen_timer_slop_test', 'verdict': 'fail',
             'desc': 'cpu0: xen min_delta_ns 1, expected 100000'},
            {'test': 'xen_timer_slop_test', 'verdict': 'fail',
             'desc': 'cpu1: xen min_delta_ns 1, expected 100000'},
            {'test': 'xen_timer_latency_test', 'verdict': 'pass',
             'desc': 'interval 50 us'}])
        self.assertEqual(harness.detectors(r), [
            'KUnit at boot', 'xen_timer_slop_test: cpuN: xen min_delta_ns N'])

    def test_boot_failure(self):
        r = self.result(ok=False, status='hang: no end marker after 40 s')
        self.assertEqual(harness.detectors(r), ['boot: hang'])

    def test_repeat_table(self):
        runs = [self.result(config='c #1'),
                self.result(config='c #2', ok=False, kunit={'ok': False})]
        self.assertEqual(harness.repeat_table(runs, 2),
                         'c: 1/2 boots flagged\n    1/2  KUnit at boot\n')


if __name__ == '__main__':
    unittest.main()

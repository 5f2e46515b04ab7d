#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""harness.py ktap-check KUNIT_PY FILE [TEST...]: parse FILE with the tree's kunit.py.

FILE is a KTAP stream; when it is run_kselftest.sh output (a selftests
"run_tests" log), the nested stream of each test is parsed as well.
Fails unless every stream parsed with no error, and, for each TEST given
(the suite's: xen_timer_slop_test xen_timer_program_test xen_timer_latency_test), the runner
ran it and it ended ok (passed or skipped); prints kunit.py's summary
line of each.
"""
from __future__ import annotations

import os
import sys
import tempfile

import xt_console
import xt_verdict


def check(kunit_py: str, path: str, want: list[str]) -> int:
    kunit_py, path = os.path.abspath(kunit_py), os.path.abspath(path)
    for f in (kunit_py, path):
        if not os.path.isfile(f):
            print(f'ktap_check: {f} does not exist', file=sys.stderr)
            return 2
    with open(path, errors='replace') as fh:
        lines = fh.read().splitlines()
    streams = [(os.path.basename(path), path)]
    tmp = tempfile.TemporaryDirectory()
    for test, t in xt_console.kselftest_tests(lines, r'\S+').items():
        sub = os.path.join(tmp.name, test)
        with open(sub, 'w') as out:
            out.write('\n'.join(t.lines) + '\n')
        streams.append((f'{os.path.basename(path)}: {test}', sub))
    bad = 0
    ran = xt_console.kselftest_tests(lines)
    for test in want:
        if test not in ran or ran[test].rc == xt_console.KSFT_FAIL:
            print(f'ktap_check: {os.path.basename(path)}: {test} '
                  f'{"failed" if test in ran else "did not run"}')
            bad += 1
    for name, stream in streams:
        sc = xt_verdict.ktap_parse(kunit_py, stream)
        print(f'ktap_check: {name}: kunit.py parse: {"" if sc.ok else "parse error: "}{sc.summary}')
        bad += not sc.ok
    return 1 if bad else 0

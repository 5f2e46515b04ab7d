#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kunit.py's results, read from its JSON rather than from its text.

kunit.py run/exec/parse --json=FILE writes the KernelCI JSON of
tools/testing/kunit/kunit_json.py: nested groups ("sub_groups") whose leaf
results ("test_cases") have a name and a status, PASS, FAIL, SKIP or
ERROR (a crash).  What the JSON does not carry is kunit.py's count of
KTAP syntax errors; those are the "[ERROR]" lines of its output.

As a command, for scripts/kunit-run.sh:
  xt_kunit.py check JSON LOG MIN_CASES MAX_SKIPS
prints one summary line and fails unless the JSON has at least MIN_CASES
results, none FAIL or ERROR, at most MAX_SKIPS SKIP, and LOG (kunit.py's
output) no parse error.
"""

import json
import os
import re
import subprocess
import sys

STATUSES = ('PASS', 'FAIL', 'SKIP', 'ERROR')


def cases(group, path=()):
    """[(name path, status)] of every leaf result of a JSON group."""
    out = []
    for sub in group.get('sub_groups', []):
        out += cases(sub, path + (sub['name'],))
    for case in group.get('test_cases', []):
        out.append((path + (case['name'],), case['status']))
    return out


def parse_errors(output):
    """kunit.py's "[ERROR]" lines: KTAP it could not make sense of."""
    plain = re.sub(r'\x1b\[[0-9;]*m', '', output)
    return [l for l in plain.splitlines() if '[ERROR]' in l]


def counts(results):
    c = dict.fromkeys(STATUSES, 0)
    for _, status in results:
        c[status if status in c else 'FAIL'] += 1
    return c


def summary(c, errors=0):
    """kunit.py's own wording: "Ran N tests: passed: P, failed: F ..."."""
    n = sum(c.values())
    parts = [f'{k}: {c[v]}' for k, v in (('passed', 'PASS'), ('failed', 'FAIL'),
                                          ('skipped', 'SKIP'), ('crashed', 'ERROR')) if c[v]]
    if errors:
        parts.append(f'parse errors: {errors}')
    return f'Ran {n} tests: ' + (', '.join(parts) or 'none')


class Parsed:
    """One KTAP file parsed by the tree's kunit.py."""

    def __init__(self, kunit_py, path):
        self.json_path = path + '.json'
        try:
            os.unlink(self.json_path)
        except FileNotFoundError:
            pass
        p = subprocess.run([sys.executable, kunit_py, 'parse', f'--json={self.json_path}', path],
                           capture_output=True, text=True)
        self.output = p.stdout + p.stderr
        self.errors = parse_errors(self.output)
        self.results = []
        self.missing = None
        try:
            with open(self.json_path) as f:
                self.results = cases(json.load(f))
        except (OSError, ValueError, KeyError) as e:
            self.missing = f'kunit.py wrote no JSON ({e.__class__.__name__})'
        self.counts = counts(self.results)

    def names(self):
        return ['.'.join(p) for p, _ in self.results]

    def ok(self, min_cases=1):
        """Parsed with no error, nothing failed or crashed, enough results."""
        c = self.counts
        return (self.missing is None and not self.errors and not c['FAIL'] and
                not c['ERROR'] and len(self.results) >= min_cases)

    def text(self, min_cases=1):
        if self.missing:
            return self.missing
        t = summary(self.counts, len(self.errors))
        if len(self.results) < min_cases:
            t += f' (fewer than the {min_cases} required)'
        if self.errors:
            t += ': ' + re.sub(r'^\[[0-9:]+\] ', '', self.errors[0]).strip()
        return t


def check(json_path, log_path, min_cases, max_skips):
    try:
        with open(json_path) as f:
            results = cases(json.load(f))
        with open(log_path, errors='replace') as f:
            errors = parse_errors(f.read())
    except (OSError, ValueError, KeyError) as e:
        return 1, f'kunit: no results from kunit.py ({e}); see {log_path}'
    c = counts(results)
    n = len(results)
    if c['FAIL'] or c['ERROR']:
        bad = [('.'.join(p), s) for p, s in results if s in ('FAIL', 'ERROR')]
        return 1, (f'kunit: {c["FAIL"]} failed, {c["ERROR"]} crashed, first {bad[0][0]} '
                   f'({bad[0][1]}); see {log_path}')
    if errors:
        return 1, f'kunit: kunit.py found {len(errors)} KTAP errors; see {log_path}'
    if n < min_cases:
        return 1, (f'kunit: only {n} cases ran, expected at least {min_cases}: '
                   f'a test went missing; see {log_path}')
    if c['SKIP'] > max_skips:
        return 1, f'kunit: {c["SKIP"]} cases skipped, at most {max_skips} expected here; see {log_path}'
    return 0, f'kunit: {n} cases, {c["SKIP"]} skipped, 0 failed'


def main(argv):
    if len(argv) != 6 or argv[1] != 'check' or not all(a.isdigit() for a in argv[4:]):
        print('usage: xt_kunit.py check JSON LOG MIN_CASES MAX_SKIPS', file=sys.stderr)
        return 2
    rc, line = check(argv[2], argv[3], int(argv[4]), int(argv[5]))
    print(line, file=sys.stderr if rc else sys.stdout)
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv))

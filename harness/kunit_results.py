# SPDX-License-Identifier: GPL-2.0
"""kunit.py's results, read from its JSON rather than from its text.

kunit.py run/exec/parse --json=FILE writes the KernelCI JSON of
tools/testing/kunit/kunit_json.py: nested groups ("sub_groups") whose leaf
results ("test_cases") have a name and a status, PASS, FAIL, SKIP or
ERROR (a crash).  What the JSON does not carry is kunit.py's count of
KTAP syntax errors; those are the "[ERROR]" lines of its output.

The harness's subcommands, for scripts/kunit-run.sh and the Makefile:
  python3 -m harness kunit-check JSON LOG MIN_CASES MAX_SKIPS
prints one summary line and fails unless the JSON has at least MIN_CASES
results, none FAIL or ERROR, at most MAX_SKIPS SKIP, and LOG (kunit.py's
output) no parse error.
  python3 -m harness kunit-cases SOURCE...
prints how many results the suites of KUnit source files give: one per
KUNIT_CASE, one per row of a KUNIT_CASE_PARAM's KUNIT_ARRAY_PARAM
array (make's KUNIT_MIN_CASES, so that a new row raises it).
  python3 -m harness ktap-check KUNIT_PY FILE [TEST...]
parses FILE with the tree's kunit.py (ktap_check below).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from typing import Any, Sequence

from . import console

# A leaf result of kunit.py's JSON: the names from the top group down,
# and its status.
Case = tuple[tuple[str, ...], str]

STATUSES = ('PASS', 'FAIL', 'SKIP', 'ERROR')


def cases(group: dict[str, Any], path: tuple[str, ...] = ()) -> list[Case]:
    """[(name path, status)] of every leaf result of a JSON group; a
    stream skipped before its first result ("1..0 # SKIP") is one."""
    out: list[Case] = []
    for sub in group.get('sub_groups', []):
        out += cases(sub, path + (sub['name'],))
    for case in group.get('test_cases', []):
        out.append((path + (case['name'],), case['status']))
    misc = group.get('misc', {})
    if not out and not path and misc.get('tests') and misc.get('skipped') == misc['tests']:
        out.append(((group.get('name', ''),), 'SKIP'))
    return out


def parse_errors(output: str) -> list[str]:
    """kunit.py's "[ERROR]" lines: KTAP it could not make sense of."""
    plain = re.sub(r'\x1b\[[0-9;]*m', '', output)
    return [l for l in plain.splitlines() if '[ERROR]' in l]


def counts(results: Sequence[Case]) -> dict[str, int]:
    c = dict.fromkeys(STATUSES, 0)
    for _, status in results:
        c[status if status in c else 'FAIL'] += 1
    return c


def summary(c: dict[str, int], errors: int = 0) -> str:
    """kunit.py's own wording: "Ran N tests: passed: P, failed: F ..."."""
    n = sum(c.values())
    parts = [f'{k}: {c[v]}' for k, v in (('passed', 'PASS'), ('failed', 'FAIL'),
                                          ('skipped', 'SKIP'), ('crashed', 'ERROR')) if c[v]]
    if errors:
        parts.append(f'parse errors: {errors}')
    return f'Ran {n} tests: ' + (', '.join(parts) or 'none')


def problem(results: Sequence[Case], errors: list[str], min_cases: int,
            max_skips: int | None = None, failed_ok: bool = False) -> str | None:
    """The rule every KUnit result set is held to, kunit-run.sh's and the
    harness's alike: the first thing wrong with it, or None.  Nothing
    failed (unless failed_ok: a selftest stream, whose results are judged
    one by one) or crashed, no KTAP error, at least min_cases results and,
    when given, at most max_skips skipped."""
    c = counts(results)
    if (c['FAIL'] and not failed_ok) or c['ERROR']:
        first = next('.'.join(p) for p, s in results if s in ('FAIL', 'ERROR'))
        return f'{c["FAIL"]} failed, {c["ERROR"]} crashed, first {first}'
    if errors:
        return f'kunit.py found {len(errors)} KTAP errors'
    if len(results) < min_cases:
        return f'only {len(results)} cases ran, expected at least {min_cases}: a test went missing'
    if max_skips is not None and c['SKIP'] > max_skips:
        return f'{c["SKIP"]} cases skipped, at most {max_skips} expected here'
    return None


# kunit.py with "kunit: tool: Accept unknown lines before a subtest's
# header line" (patch 6 of the mainline series) reads a console whose
# kernel printed between a subtest's KTAP version line and its
# "# Subtest:" line; an older one needs those lines filtered out first.
FIXED_PARSER = re.compile(r'ktap_line = parse_ktap_header\(lines, test, printer\)\n'
                          r'\s*test\.log\.extend\(parse_diagnostic\(lines\)\)\n'
                          r'\s*subtest_line = parse_test_header')


def reads_raw_console(kunit_py: str) -> bool:
    """Whether the tree's kunit.py has that fix (its kunit_parser.py)."""
    try:
        with open(os.path.join(os.path.dirname(kunit_py), 'kunit_parser.py')) as f:
            return FIXED_PARSER.search(f.read()) is not None
    except OSError:
        return False


class Parsed:
    """One KTAP file parsed by the tree's kunit.py."""

    def __init__(self, kunit_py: str, path: str):
        self.json_path = path + '.json'
        try:
            os.unlink(self.json_path)
        except FileNotFoundError:
            pass
        p = subprocess.run([sys.executable, kunit_py, 'parse', f'--json={self.json_path}', path],
                           capture_output=True, text=True)
        self.output = p.stdout + p.stderr
        self.errors = parse_errors(self.output)
        self.results: list[Case] = []
        self.missing: str | None = None
        try:
            with open(self.json_path) as f:
                self.results = cases(json.load(f))
        except (OSError, ValueError, KeyError) as e:
            self.missing = f'kunit.py wrote no JSON ({e.__class__.__name__})'
        self.counts = counts(self.results)

    def names(self) -> list[str]:
        return ['.'.join(p) for p, _ in self.results]

    def ok(self, min_cases: int = 1, failed_ok: bool = False) -> bool:
        """Parsed with no error, nothing failed (unless failed_ok) or
        crashed, enough results."""
        return self.missing is None and problem(self.results, self.errors, min_cases,
                                                failed_ok=failed_ok) is None

    def text(self, min_cases: int = 1) -> str:
        if self.missing:
            return self.missing
        t = summary(self.counts, len(self.errors))
        bad = [n for n, (_, s) in zip(self.names(), self.results) if s in ('FAIL', 'ERROR')]
        if bad:
            t += f' ({", ".join(bad[:3])}{", ..." if len(bad) > 3 else ""})'
        if len(self.results) < min_cases:
            t += f' (fewer than the {min_cases} required)'
        if self.errors:
            t += ': ' + re.sub(r'^\[[0-9:]+\] ', '', self.errors[0]).strip()
        return t


def check(json_path: str, log_path: str, min_cases: int, max_skips: int) -> tuple[int, str]:
    try:
        with open(json_path) as f:
            results = cases(json.load(f))
        with open(log_path, errors='replace') as f:
            errors = parse_errors(f.read())
    except (OSError, ValueError, KeyError) as e:
        return 1, f'kunit: no results from kunit.py ({e}); see {log_path}'
    bad = problem(results, errors, min_cases, max_skips)
    if bad:
        return 1, f'kunit: {bad}; see {log_path}'
    return 0, f'kunit: {len(results)} cases, {counts(results)["SKIP"]} skipped, 0 failed'


def _top_level_items(text: str) -> int:
    """The comma-separated items of a C initializer's body, outside any
    parentheses or braces."""
    depth, items, cur = 0, 0, ''
    for ch in text:
        if ch in '({':
            depth += 1
        elif ch in ')}':
            depth -= 1
        if ch == ',' and depth == 0:
            items += bool(cur.strip())
            cur = ''
        else:
            cur += ch
    return items + bool(cur.strip())


def source_cases(text: str) -> int:
    """The results a KUnit source gives (see the module's doc), or
    ValueError naming what it could not count."""
    text = re.sub(r'/\*.*?\*/|//[^\n]*', '', text, flags=re.S)
    n = len(re.findall(r'\bKUNIT_CASE(?:_SLOW)?\s*\(', text))
    for gen in re.findall(r'\bKUNIT_CASE_PARAM\s*\(\s*\w+\s*,\s*(\w+)_gen_params\s*\)', text):
        m = re.search(rf'\bKUNIT_ARRAY_PARAM\s*\(\s*{gen}\s*,\s*(\w+)', text)
        if not m:
            raise ValueError(f'{gen}_gen_params is not a KUNIT_ARRAY_PARAM')
        body = re.search(rf'\b{m.group(1)}\s*\[\s*\]\s*=\s*{{(.*?)\n?}};', text, re.S)
        if not body:
            raise ValueError(f'no initializer of {m.group(1)}[]')
        if re.search(r'^\s*#', body.group(1), re.M):
            raise ValueError(f'{m.group(1)}[] has preprocessor lines: count it by hand')
        n += _top_level_items(body.group(1))
    return n


def cases_command(sources: list[str]) -> int:
    """kunit-cases: print the results the sources give."""
    total = 0
    for src in sources:
        try:
            with open(src) as f:
                total += source_cases(f.read())
        except (OSError, ValueError) as e:
            print(f'harness kunit-cases: {src}: {getattr(e, "strerror", None) or e}',
                  file=sys.stderr)
            return 1
    print(total)
    return 0


def ktap_check(kunit_py: str, path: str, want: list[str]) -> int:
    """ktap-check KUNIT_PY FILE [TEST...]: parse FILE with the tree's kunit.py.

    FILE is a KTAP stream; when it is run_kselftest.sh output (a selftests
    "run_tests" log), the nested stream of each test is parsed as well.
    Fails unless every stream parsed with no error, and, for each TEST given
    (the suite's: xen_timer_slop_test xen_timer_program_test xen_timer_latency_test), the runner
    ran it and it ended ok (passed or skipped); prints kunit.py's summary
    line of each.
    """
    kunit_py, path = os.path.abspath(kunit_py), os.path.abspath(path)
    for f in (kunit_py, path):
        if not os.path.isfile(f):
            print(f'ktap_check: {f} does not exist', file=sys.stderr)
            return 2
    with open(path, errors='replace') as fh:
        lines = fh.read().splitlines()
    streams = [(os.path.basename(path), path)]
    tmp = tempfile.TemporaryDirectory()
    for test, t in console.kselftest_tests(lines, r'\S+').items():
        sub = os.path.join(tmp.name, test)
        with open(sub, 'w') as out:
            out.write('\n'.join(t.lines) + '\n')
        streams.append((f'{os.path.basename(path)}: {test}', sub))
    bad = 0
    ran = console.kselftest_tests(lines)
    for test in want:
        if test not in ran or ran[test].rc == console.KSFT_FAIL:
            print(f'ktap_check: {os.path.basename(path)}: {test} '
                  f'{"failed" if test in ran else "did not run"}')
            bad += 1
    for name, stream in streams:
        # verdict.ktap_parse's parse (that module imports this one).
        p = Parsed(kunit_py, stream)
        ok = p.ok()
        print(f'ktap_check: {name}: kunit.py parse: {"" if ok else "parse error: "}{p.text()}')
        bad += not ok
    return 1 if bad else 0

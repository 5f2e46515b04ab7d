# SPDX-License-Identifier: GPL-2.0
"""What CI bots record of our kselftest results, and a check that it is
exactly our results.

LKFT runs kselftests through Linaro's test-definitions, whose output
parser (automated/linux/kselftest/parse-output.py) names a result after
its collection, test and description, all slugified; KernelCI takes
those names unchanged.  Unpatched, it also puts a skip's reason into the
name of a named result, so that one result of ours had one name when it
passed and another when it skipped: patches/test-definitions/0001 keeps
a named result's name, and this module derives names the way the parser
does with that patch (its rules, written here; the parser is not ours to
ship).  Other bots read the streams with tappy (Debian's python3-tap),
which wants the plan first or last.  The check of a run:

  python3 -m harness lkft-check FILE...   every FILE a run_kselftest.sh
                                          output (a kselftest stream) of one
                                          run; fails when a result is not
                                          recorded under its own name, when
                                          two results of one run share a
                                          name, or when tappy finds a
                                          selftest stream malformed.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
import tempfile

from . import console

TEST_RE = re.compile(r'^(not ok|ok)\b\s*(?:\d+)?\s*(?P<desc>[^#]*?)\s*(?:#\s*(?P<dir>.*))?$')
# Debian's python3, which has python3-tap's tappy (the harness's own
# python3 may be another).
DEBIAN_PYTHON = '/usr/bin/python3'


@dataclasses.dataclass
class Recorded:
    """One result as parse-output.py records it: its name, pass, fail or
    skip, its description, its SKIP directive's text and its log."""
    name: str
    result: str
    desc: str
    reason: str
    log: list[str]


def slugify(line: str) -> str:
    """parse-output.py's slugify()."""
    line = re.sub(r'\[\d{1,5}\]', '', line)
    return re.sub(r'_-', '__', re.sub(r'(^_|_$)', '', re.sub(r'[^A-Za-z0-9_-]+', '_', line)))


def make_name(desc: str, directive: str, ok: bool, skip: bool) -> str:
    """parse-output.py's make_name(), patched: the description, or an
    unnamed skip's reason."""
    if desc.startswith('selftests:'):
        desc = desc[10:]
    directive = directive[4:] if ok and skip and not desc.strip() else ''
    return slugify(f'{desc} {directive}'.strip()) or '<unknown>'


def records(lines: list[str], prefix: str = '') -> list[Recorded]:
    """Each result of a TAP stream and of the streams nested in its '#'
    diagnostics, flattened as parse-output.py flattens them (a child's
    name after its parent's), with the log it attaches."""
    out: list[Recorded] = []
    nested: list[str] = []
    current: Recorded | None = None
    for line in lines:
        m = TEST_RE.match(line)
        if m:
            ok = m.group(1) == 'ok'
            directive = (m.group('dir') or '').strip()
            skip = directive.lower().startswith('skip')
            name = make_name(m.group('desc'), directive, ok, skip)
            result = ('skip' if skip else 'pass') if ok else 'fail'
            current = Recorded(f'{prefix}{name}', result, m.group('desc'),
                               directive[4:].strip() if ok and skip else '', [])
            out += records(nested, f'{prefix}{name}_') + [current]
            nested = []
        elif line.startswith('#'):
            nested.append(line[1:].strip())
            if current is not None:
                current.log.append(line[1:].strip())
    return out


def problems(streams: dict[str, list[str]]) -> list[str]:
    """What a bot would record wrong of one run's streams ({label: lines}):
    a named result under another name than its own, two results of one
    stream under one name (the parser renames the second NAME_dup2)."""
    found: list[str] = []
    for label, lines in streams.items():
        seen: set[str] = set()
        for r in records(lines):
            if r.desc.strip() and not r.name.endswith(slugify(r.desc.removeprefix('selftests:'))):
                found.append(f'{label}: "{r.desc}" ({r.result}) recorded as {r.name}')
            if r.name in seen:
                found.append(f'{label}: two results recorded as {r.name}')
            seen.add(r.name)
    return found


TAPPY = '''
import sys
from tap.loader import Loader
for path in sys.argv[1:]:
    for t in Loader().load_suite_from_file(path):
        line = t._line
        if line.number is None and not line.ok:
            print(f"XT_TAPPY\t{path}\t{line.description}")
'''


def tap_problems(streams: dict[str, list[str]]) -> tuple[list[str], str]:
    """tappy's rule errors (a misplaced plan, a count that does not
    match) of every selftest stream nested in the runner outputs: (one
    line each, why tappy was not run or '')."""
    if not os.path.exists(DEBIAN_PYTHON) or subprocess.run(
            [DEBIAN_PYTHON, '-c', 'import tap.loader'], capture_output=True).returncode:
        return [], 'python3-tap is not installed (make deps installs it)'
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        paths: dict[str, str] = {}
        for label, lines in streams.items():
            for test, sec in console.kselftest_tests(lines, r'\S+').items():
                path = os.path.join(tmp, f'{len(paths)}-{test}')
                with open(path, 'w') as f:
                    f.write('\n'.join(sec.lines) + '\n')
                paths[path] = f'{label}: {test}'
        if paths:
            p = subprocess.run([DEBIAN_PYTHON, '-c', TAPPY, *paths], capture_output=True,
                               text=True)
            if p.returncode:
                return [f'tappy failed: {p.stderr.strip().splitlines()[-1:]}'], ''
            # (tappy prints its own warnings to stdout.)
            for line in p.stdout.splitlines():
                tag, path, msg = (line.split('\t') + ['', ''])[:3]
                if tag == 'XT_TAPPY':
                    found.append(f'{paths.get(path, path)}: tappy: {msg}')
    return found, ''


def check_files(paths: list[str]) -> int:
    """lkft-check: 0 if every result of the files keeps its own name and
    tappy reads every stream, 1 if not, 2 if a file cannot be read."""
    streams = {}
    for path in paths:
        try:
            with open(path, errors='replace') as f:
                streams[path] = f.read().splitlines()
        except OSError as e:
            print(f'xt_lkft: {path}: {e.strerror}', file=sys.stderr)
            return 2
    found = problems(streams)
    tap, why = tap_problems(streams)
    for line in found + tap:
        print(f'xt_lkft: {line}')
    n = sum(len(records(lines)) for lines in streams.values())
    if found or tap:
        print(f'xt_lkft: {len(found) + len(tap)} things a CI bot would record wrong',
              file=sys.stderr)
        return 1
    print(f'xt_lkft: {n} results in {len(streams)} streams, each under its own name '
          'whatever its outcome; '
          + (f'tappy not run: {why}' if why else 'tappy reads every selftest stream'))
    return 0

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The names CI bots record our kselftest results under, and a check that
they stay put.

LKFT runs kselftests through Linaro's test-definitions, whose output
parser (automated/linux/kselftest/parse-output.py) names a result after
its collection, test and description, and for a SKIP also after the
skip reason, all slugified; KernelCI takes those names unchanged.  So a
SKIP reason that carries a value (a slop, a kernel version, a path)
gives the same result a new name in every config, and its history
breaks.  This module derives the names the way that parser does (its
rules, written here; the parser is not ours to ship) and checks a run:

  harness.py lkft-check FILE...   every FILE a run_kselftest.sh output
                                  (a kselftest stream) of one run; fails
                                  when a SKIP reason has a digit in it, or
                                  when one result is recorded under two
                                  SKIP names.
"""

from __future__ import annotations

import re
import sys

TEST_RE = re.compile(r'^(not ok|ok)\b\s*(?:\d+)?\s*(?P<desc>[^#]*?)\s*(?:#\s*(?P<dir>.*))?$')


def slugify(line: str) -> str:
    """parse-output.py's slugify()."""
    line = re.sub(r'\[\d{1,5}\]', '', line)
    return re.sub(r'_-', '__', re.sub(r'(^_|_$)', '', re.sub(r'[^A-Za-z0-9_-]+', '_', line)))


def make_name(desc: str, directive: str, ok: bool, skip: bool) -> str:
    """parse-output.py's make_name(): the description, and a skip's reason."""
    if desc.startswith('selftests:'):
        desc = desc[10:]
    directive = directive[4:] if ok and skip else ''
    return slugify(f'{desc} {directive}'.strip()) or '<unknown>'


def parse(lines: list[str], prefix: str = '') -> list[tuple[str, str, str, str]]:
    """[(recorded name, result, description, skip reason)] of a TAP
    stream and the streams nested in its '#' diagnostics, flattened as
    parse-output.py flattens them (a child's name after its parent's)."""
    out: list[tuple[str, str, str, str]] = []
    nested: list[str] = []
    for line in lines:
        m = TEST_RE.match(line)
        if m:
            ok = m.group(1) == 'ok'
            directive = (m.group('dir') or '').strip()
            skip = directive.lower().startswith('skip')
            name = make_name(m.group('desc'), directive, ok, skip)
            result = ('skip' if skip else 'pass') if ok else 'fail'
            children = parse(nested, f'{prefix}{name}_')
            out += children + [(f'{prefix}{name}', result, m.group('desc'),
                                directive[4:].strip() if ok and skip else '')]
            nested = []
        elif line.startswith('#'):
            nested.append(line[1:].strip())
    return out


def problems(streams: dict[str, list[str]]) -> list[str]:
    """What a bot would record wrong of one run's streams ({label: lines})."""
    found: list[str] = []
    skips: dict[str, set[str]] = {}
    for label, lines in streams.items():
        for name, result, desc, reason in parse(lines):
            if result != 'skip':
                continue
            if re.search(r'[0-9]', reason):
                found.append(f'{label}: {name}: the SKIP reason "{reason}" has a value in it')
            base = name[:len(name) - len(slugify(reason))].rstrip('_') if reason else name
            skips.setdefault(base, set()).add(name)
    for base, names in sorted(skips.items()):
        if len(names) > 1:
            found.append(f'{base}: recorded under {len(names)} SKIP names in one run: '
                         + ', '.join(sorted(names)))
    return found


def check_files(paths: list[str]) -> int:
    """harness.py lkft-check: 0 if every result of the files keeps one
    name, 1 if not, 2 if a file cannot be read."""
    streams = {}
    for path in paths:
        try:
            with open(path, errors='replace') as f:
                streams[path] = f.read().splitlines()
        except OSError as e:
            print(f'xt_lkft: {path}: {e.strerror}', file=sys.stderr)
            return 2
    found = problems(streams)
    for line in found:
        print(f'xt_lkft: {line}')
    n = sum(len(parse(lines)) for lines in streams.values())
    if found:
        print(f'xt_lkft: {len(found)} result names a CI bot would record wrong', file=sys.stderr)
        return 1
    print(f'xt_lkft: {n} results in {len(streams)} streams, each under one name per outcome')
    return 0

# SPDX-License-Identifier: GPL-2.0
"""The verdicts of a boot: its console's facts (console.parse) and every
KTAP stream checked with the tree's kunit.py (kunit_results.py), and
whether a run's boots report the same result names, and whether two runs
agree."""

from __future__ import annotations

import os
from typing import Any, Protocol

from . import console, kunit_results
from .model import BootResult, CheckSettings, Config, Ending, StreamCheck


class Console(Protocol):
    """What a boot leaves to be judged (boot.Boot, boot.Part)."""
    guest_cmdline: str
    seconds: float

    @property
    def lines(self) -> list[str]: ...

    @property
    def ending(self) -> Ending: ...

    def timing(self) -> list[tuple[str, float]]: ...

    def tail(self, n: int = 15) -> list[str]: ...


def name_differences(results: list[BootResult]) -> list[str]:
    """CI bots track results by name across runs, so every boot of a run
    must report the same result names, whatever its verdicts.  Compares
    the boots that finished with the first of them: one line per boot
    whose names differ."""
    done = [r for r in results if r.finished]
    out = []
    for r in done[1:]:
        ref, got = set(done[0].names), set(r.names)
        if got != ref:
            miss, extra = sorted(ref - got), sorted(got - ref)
            out.append(f'{r.config.name}: {len(miss)} names missing ({", ".join(miss[:3])}), '
                       f'{len(extra)} new ({", ".join(extra[:3])}) against '
                       f'{done[0].config.name}')
    return out


def ktap_parse(kunit_py: str, path: str, min_cases: int = 1,
               failed_ok: bool = False) -> StreamCheck:
    """The tree's kunit.py parse of a KTAP file, read from its JSON: ok when
    it read with no error, nothing crashed and (unless failed_ok: a
    selftest's stream, whose results are judged one by one) nothing
    failed."""
    p = kunit_results.Parsed(kunit_py, path)
    return StreamCheck(ok=p.ok(min_cases, failed_ok), summary=p.text(min_cases),
                       names=p.names(), path=path)


def type_differences(results: list[BootResult]) -> list[str]:
    """Edge runs: each guest type's kernel must make the same of the same
    parameters.  One line per parameter line whose finished boots report
    different min_delta_ns."""
    seen: dict[str, list[tuple[str, str]]] = {}
    for r in results:
        if r.config.params is None or not r.finished:
            continue
        seen.setdefault(r.config.params, []).append(
            (r.config.guest_type, r.facts.min_delta_ns or '-'))
    return [f'{p or "(none)"}: ' + ', '.join(f'{t.upper()} {v}' for t, v in vals)
            for p, vals in seen.items() if len({v for _, v in vals}) > 1]


def evaluate(boot: Console, config: Config, check: CheckSettings, outdir: str,
             idx: str) -> BootResult:
    """The result of one boot of config.  Writes the console and each
    KTAP stream to outdir."""
    log = os.path.join(outdir, f'console-{idx}.log')
    with open(log, 'w') as f:
        f.write('\n'.join(boot.lines) + '\n')
    guest = console.guest_output(boot.lines)
    r = BootResult(config=config, ending=boot.ending, seconds=round(boot.seconds, 1),
                   console=log, guest_cmdline=boot.guest_cmdline,
                   timing=dict(boot.timing()),
                   facts=console.parse(guest, check.intervals, check.spike_us,
                                       check.tests))
    if not boot.ending.reached:
        r.last_lines = boot.tail()
    if check.kunit_py:
        # Every KTAP stream must parse with the tree's kunit.py; its
        # results are judged one by one.
        for name, lines in r.facts.streams.items():
            suffix = 'run_kselftest' if name == 'run_kselftest.sh' else name
            path = os.path.join(outdir, f'ktap-{idx}-{suffix}.txt')
            with open(path, 'w') as f:
                f.write('\n'.join(lines) + '\n')
            r.streams[name] = ktap_parse(check.kunit_py, path, failed_ok=True)
    if check.kunit_boot:
        klog = os.path.join(outdir, f'kunit-{idx}.log')
        with open(klog, 'w') as f:
            f.write('\n'.join(console.kunit_lines(
                guest, raw=kunit_results.reads_raw_console(check.kunit_py))) + '\n')
        r.kunit = ktap_parse(check.kunit_py, klog, check.kunit_min)
    return r


def run_differences(ours: list[dict[str, Any]],
                    theirs: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """Two runs' JSON configs (BootResult.as_json) of the same config
    names compared: (verdicts or result names that differ: the runs
    disagree; one result's verdict that differs but left the config's
    verdict alone, as the noise of a timing check may)."""
    by_name = {c['config']: c for c in theirs}
    bad, notes = [], []
    for c in ours:
        o = by_name.get(c['config'])
        if o is None:
            bad.append(f'{c["config"]}: not in the other run')
            continue
        if c['outcome'] != o['outcome']:
            bad.append(f'{c["config"]}: {c["outcome"]} here, {o["outcome"]} there')
        if c['status'] == o['status'] == 'ok' and c['names'] != o['names']:
            bad.append(f'{c["config"]}: result names differ: '
                       f'{sorted(set(c["names"]) ^ set(o["names"]))}')
        mine = {(v['test'], v['name']): v['verdict'] for v in c['verdicts']}
        other = {(v['test'], v['name']): v['verdict'] for v in o['verdicts']}
        for k in sorted(set(mine) & set(other)):
            if mine[k] != other[k]:
                notes.append(f'{c["config"]}: {k[0]} {k[1]} {mine[k]} here, {other[k]} there')
    return bad, notes

# SPDX-License-Identifier: GPL-2.0
"""What a run prints and writes: the thread's table per config, the
one-line-per-config summary, the edge-value table, the repeat counts, a
gnuplot PNG of cyclictest's latency distribution, and the JSON."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from typing import Any, TextIO

from . import console
from .model import BootResult, Interval, Latency, Outcome


def fmt(v: float | int | str | None, nd: int = 0) -> str:
    if v is None:
        return '-'
    if isinstance(v, str):
        return v
    return f'{v:.{nd}f}'


def stat(lat: Latency | None, key: str) -> float | int | str | None:
    return lat.shown(key) if lat else None


def agreement(results: list[BootResult], intervals: list[int]) -> str:
    """What the two latency columns are, and how far they agree in these
    results: the ratio of the medians, ours to cyclictest's, per row where
    both are numbers (cyclictest's histogram ends at 1000 us)."""
    ratios = sorted(iv.ours.p50_us / iv.cyclictest.p50_us
                    for r in results for i in intervals
                    for iv in [r.facts.intervals.get(i)]
                    if iv and iv.ours and iv.cyclictest
                    and iv.ours.p50_us is not None and iv.cyclictest.p50_us)
    head = 'ours and cyclictest run the same loop, one after the other'
    if not ratios:
        return f'{head}; no row has both medians to compare'
    mid = ratios[len(ratios) // 2]
    return (f'{head}; their medians, ours / cyclictest, in this run: {mid:.2f} '
            f'(median of {len(ratios)} rows, {ratios[0]:.2f} to {ratios[-1]:.2f})')


def print_table(results: list[BootResult], intervals: list[int], spike_us: int,
                accel_desc: str, out: TextIO) -> None:
    w = out.write
    w(f'# QEMU accel: {accel_desc}\n# {agreement(results, intervals)}\n')
    for r in results:
        w('\n##############################\n\n')
        w(f'# Timer Slop: {r.config.name}\n')
        w(f'# boot: {str(r.outcome).upper()}, {r.reason}, {r.seconds} s')
        if r.infra_tries:
            w(f' (after {r.infra_tries} INFRA tries: '
              + '; '.join(t.reason for t in r.tries if t.outcome is Outcome.INFRA) + ')')
        if r.facts.min_delta_ns is not None:
            w(f', guest min_delta_ns {r.facts.min_delta_ns}')
        w('\n')
        if r.timing:
            w('# time: ' + ', '.join(f'{k} {v:.1f} s' for k, v in r.timing.items()) + '\n')
        for i in intervals:
            iv = r.facts.intervals.get(i)
            o, c = (iv.ours, iv.cyclictest) if iv else (None, None)
            w(f'\n# Interval (-i{i})          ours   cyclictest\n')
            for key, name in (('min_us', 'Min'), ('p50_us', 'Median'), ('avg_us', 'Avg'),
                              ('max_us', 'Max'), ('p99_us', 'p99')):
                w(f'{name + ":":<26}{fmt(stat(o, key)):>6} {fmt(stat(c, key)):>12}\n')
            w(f'{f"Spikes (over {spike_us}):":<26}{fmt(stat(o, "spikes")):>6} '
              f'{fmt(stat(c, "spikes")):>12}\n')
            w(f'{"Samples:":<26}{fmt(stat(o, "samples")):>6} {fmt(stat(c, "samples")):>12}\n')
        p = r.facts.prog_check
        if p is not None:
            w(f'\n# Xen timer programs: {p.requests} expiries, {p.short} nearer than the '
              f'slop; {p.calls} calls of the device, {p.below_slop} below the slop, '
              f'{p.short_not_slop} of the near ones not the slop; {p.early} of {p.judged} '
              f'judged fires early (worst by {p.early_by_ns} ns), {p.stuck} events of a '
              f'clock that stood still; quickest forced fire {p.forced_min_ns} ns past its '
              f'deadline (limit {p.late_limit_ns or "not judged"})\n')
        for n in r.facts.noise:
            w(f'# the platform\'s: {n}\n')
        w('\n# verdicts\n')
        for v in r.facts.results:
            why = f' # SKIP {v.reason}' if v.reason else ''
            w(f'{str(v.status).upper():<5} {v.test}: {v.name}{why}\n')
        if r.kunit is not None:
            w(f'{"PASS" if r.kunit.ok else "FAIL":<5} KUnit at boot: {r.kunit.summary}\n')
        for test, sc in r.streams.items():
            w(f'{"PASS" if sc.ok else "FAIL":<5} kunit.py parse of {test}: '
              f'{"" if sc.ok else "parse error: "}{sc.summary}\n')
        for line in r.facts.dmesg:
            w(f'dmesg: {line}\n')
        if r.last_lines:
            w('# last console lines:\n')
            for line in r.last_lines:
                w(f'  | {line}\n')
    w('\n')
    for r in results:
        retried = f' [{r.infra_tries} INFRA tries]' if r.infra_tries else ''
        w(f'{str(r.outcome).upper():<5} {r.config.name}: {r.reason}{retried}\n')


def repeat_table(results: list[BootResult]) -> str:
    """With --runs: per config, how many boots each detector flagged."""
    lines = []
    runs_of: dict[str, list[BootResult]] = {}
    for r in results:
        runs_of.setdefault(r.config.label, []).append(r)
    for name, runs in runs_of.items():
        flagged = sum(r.outcome is Outcome.FAIL for r in runs)
        infra = sum(r.outcome is Outcome.INFRA for r in runs)
        tries = sum(r.infra_tries for r in runs)
        lines.append(f'{name}: {flagged}/{len(runs)} boots flagged'
                     + (f', {infra} INFRA after retries' if infra else '')
                     + (f', {tries} INFRA tries' if tries else ''))
        count: dict[str, int] = {}
        for r in runs:
            for d in r.failures():
                count[d] = count.get(d, 0) + 1
        for d in sorted(count, key=lambda d: (-count[d], d)):
            lines.append(f'  {count[d]:>3}/{len(runs)}  {d}')
    return '\n'.join(lines) + '\n'


def params_table(results: list[BootResult], kernel: str, accel: str) -> str:
    """One line per boot of --params-file: what the kernel made of the value."""
    width = max(len(r.config.name) for r in results) + 2
    lines = [f'{"type and parameters":<{width}}{"min_delta_ns":>14}  {"boot":<22} kernel log']
    for r in results:
        boot = 'ok' if r.finished else r.status.split(':')[0].replace(
            'guest died before its end marker', 'died early')
        if r.finished and r.outcome is not Outcome.PASS:
            boot = 'ok, selftest FAIL'
        md = r.facts.min_delta_ns or '-'
        log = '; '.join(re.sub(r'^\[[ 0-9.]+\] ', '', l) for l in r.facts.dmesg) or '-'
        lines.append(f'{r.config.name:<{width}}{md:>14}  {boot:<22} {log}')
    return (f'# guest kernel: {kernel}, QEMU accel: {accel}\n' +
            '\n'.join(lines) + '\n')


def summary_table(results: list[BootResult], intervals: list[int], spike_us: int,
                  accel_desc: str) -> str:
    """One line per config and interval: the thread's numbers, ours and
    cyclictest's, and the median, on which the two agree (an average rests
    on a few samples of milliseconds under emulation)."""
    keys = ('min_us', 'p50_us', 'avg_us', 'max_us', 'p99_us', 'spikes', 'samples')
    names = ('min', 'p50', 'avg', 'max', 'p99', f'>{spike_us}', 'n')

    def cells(iv: Interval | None) -> list[str]:
        return [fmt(stat(lat, k)) if lat else '-'
                for lat in ((iv.ours, iv.cyclictest) if iv else (None, None)) for k in keys]
    rows = [(r.config.name, f'-i{i}', cells(r.facts.intervals.get(i)))
            for r in results for i in intervals]
    # Each column at least its usual width, and as wide as its widest cell
    # and a space: a figure of many digits (a stall of seconds) never runs
    # into its neighbour.
    widths = [max(least, *(len(row[k]) + 1 for _, _, row in rows
                           for k in (j, j + len(keys))), len(n) + 1)
              for j, (n, least) in enumerate(zip(names, (5, 6, 6, 7, 7, 7, 6)))]

    def cols(row: list[str]) -> str:
        return ''.join(f'{c:>{w}}' for c, w in zip(row, widths))
    head = cols(list(names))
    width = max(len(r.config.name) for r in results) + 2
    lines = [f'# QEMU accel: {accel_desc}',
             f'# {agreement(results, intervals)}',
             f'{"":<{width}}{"":>7}  {"ours (us)":<{sum(widths)}}   cyclictest (us)',
             f'{"config":<{width}}{"":>7}  {head}   {head}']
    for name, iv_name, row in rows:
        lines.append(f'{name:<{width}}{iv_name:>7}  {cols(row[:len(keys)])}   '
                     f'{cols(row[len(keys):])}')
    return '\n'.join(lines) + '\n'


def plot(results: list[BootResult], intervals: list[int], name: str,
         outdir: str) -> str | None:
    """A gnuplot PNG of cyclictest's latency distribution per config, one
    panel per interval; None without gnuplot or data."""
    if not shutil.which('gnuplot'):
        print('harness: gnuplot missing, no plot (apt-get install gnuplot-nox)')
        return None
    # gnuplot's data files are intermediate: they do not go beside the results.
    with tempfile.TemporaryDirectory(prefix='xt-plot-') as tmp:
        return plot_in(results, intervals, name, outdir, tmp)


def plot_in(results: list[BootResult], intervals: list[int], name: str, outdir: str,
            tmp: str) -> str | None:
    plots = []
    for i in intervals:
        curves = []
        for k, r in enumerate(results):
            iv = r.facts.intervals.get(i)
            c = iv.cyclictest if iv else None
            if not c or not c.samples:
                continue
            path = os.path.join(tmp, f'cdf-{k}-{i}.dat')
            acc = 0
            with open(path, 'w') as f:
                for b in sorted(c.hist):
                    acc += c.hist[b]
                    f.write(f'{b} {100.0 * acc / c.samples:.3f}\n')
            curves.append(f'"{path}" using 1:2 with steps lw 2 title "{r.config.name}"')
        if curves:
            plots.append((i, curves))
    if not plots:
        return None
    png = os.path.join(outdir, f'latency-{name}.png')
    script = ['set terminal pngcairo size 1200,%d' % (450 * len(plots)) if
              subprocess.run(['gnuplot', '-e', 'set terminal pngcairo'],
                             capture_output=True).returncode == 0 else
              'set terminal png size 1200,%d' % (450 * len(plots)),
              f'set output "{png}"', f'set multiplot layout {len(plots)},1',
              'set xlabel "latency (us), cyclictest histogram"',
              'set ylabel "samples at or below (%)"', 'set key bottom right',
              'set grid', f'set xrange [0:{console.CYCLICTEST_HIST_US}]', 'set yrange [0:100]']
    for i, curves in plots:
        script.append(f'set title "Interval {i} us: latency distribution per config"')
        script.append('plot ' + ', '.join(curves))
    script.append('unset multiplot')
    p = subprocess.run(['gnuplot'], input='\n'.join(script), text=True, capture_output=True)
    if p.returncode:
        print(f'harness: gnuplot failed: {p.stderr.strip().splitlines()[-1:]}')
        return None
    return png


def slug(text: str) -> str:
    """A config's name as a KTAP test name: the same whatever the boot's
    outcome, so that a bot tracks it across runs."""
    return re.sub(r'[^a-z0-9]+', '_', text.lower()).strip('_')


def run_ktap(results: list[BootResult], name: str, accel: str) -> str:
    """One KTAP stream for the whole run, for CI bots: one result per
    boot (ok when it passed; not ok when it failed, or when the emulator,
    Xen or the firmware broke it: the outcome and reason are diagnostics),
    each boot's streams nested under it: the kselftest runner's output,
    which nests each selftest's, and KUnit's at boot.  A boot that
    crashed before a stream printed has no such subtest; it is never left
    out."""
    out = ['KTAP version 1', f'# xen_timer harness: {name}, QEMU {accel}',
           f'1..{len(results)}']
    for k, r in enumerate(results, 1):
        streams = [('run_kselftest', sc) for n, sc in r.streams.items()
                   if n == 'run_kselftest.sh'] + ([('kunit', r.kunit)] if r.kunit else [])
        sub = ['KTAP version 1', f'# Subtest: {slug(r.config.name)}',
               f'# outcome: {r.outcome}: {r.reason}']
        for t in r.tries[:-1]:
            sub.append(f'# earlier try: {t.outcome}: {t.reason}')
        sub.append(f'1..{len(streams)}')
        for j, (sname, sc) in enumerate(streams, 1):
            with open(sc.path, errors='replace') as f:
                lines = [line.rstrip('\n') for line in f if line.strip()]
            if sname == 'kunit':
                # KUnit's own KTAP, not the console it was parsed from (a
                # kunit.py that reads a raw console was given all of it).
                lines = console.kunit_lines(lines)
            if lines and lines[0].startswith(('KTAP version', 'TAP version')):
                head, lines = lines[0], lines[1:]
            else:
                head = 'KTAP version 1'
            sub += ['    ' + head, f'    # Subtest: {sname}', *('    ' + l for l in lines)]
            ok = sc.ok and r.outcome is not Outcome.INFRA
            sub.append(f'{"ok" if ok else "not ok"} {j} {sname}')
        out += ['    ' + l for l in sub]
        out.append(f'{"ok" if r.outcome is Outcome.PASS else "not ok"} {k} {slug(r.config.name)}')
    return '\n'.join(out) + '\n'


def write_json(path: str, summary: dict[str, Any]) -> None:
    """The run's JSON (BootResult.as_json: no cyclictest histograms)."""
    with open(path, 'w') as f:
        json.dump(summary, f, indent=1, default=str)

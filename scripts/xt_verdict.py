# SPDX-License-Identifier: GPL-2.0
"""The verdicts of a boot: its console's facts (xt_console.parse) and every
KTAP stream checked with the tree's kunit.py (xt_kunit), what flagged a
boot, and whether a run's boots report the same result names."""

import os
import re

import xt_console
import xt_kunit
from xt_model import Outcome


def detectors(r):
    """What flagged one boot: KUnit at boot, each selftest, each failed check."""
    found = []
    if r['status'] != 'ok':
        found.append(f'boot ({r["outcome"]}): ' + r['status'].split(':')[0])
    if 'kunit' in r and not r['kunit']['ok']:
        found.append('KUnit at boot')
    for test in r.get('bad_exit', []):
        found.append(f'{test}: ended without pass or skip (failed, crashed or timed out)')
    for v in r['verdicts']:
        if v['verdict'] == 'fail':
            found.append(f'{v["test"]}: {re.sub(r"^cpu[0-9]+_", "cpuN_", v["name"])}')
    return sorted(set(found))


def name_differences(results):
    """CI bots track results by name across runs, so every boot of a run
    must report the same result names, whatever its verdicts.  Compares
    the boots that reached their end marker with the first of them:
    one line per boot whose names differ."""
    done = [r for r in results if r['status'] == 'ok']
    out = []
    for r in done[1:]:
        ref, got = set(done[0]['names']), set(r['names'])
        if got != ref:
            miss, extra = sorted(ref - got), sorted(got - ref)
            out.append(f'{r["config"]}: {len(miss)} names missing ({", ".join(miss[:3])}), '
                       f'{len(extra)} new ({", ".join(extra[:3])}) against {done[0]["config"]}')
    return out


def ktap_parse(kunit_py, path, min_cases=1):
    """The tree's kunit.py parse of a KTAP file, read from its JSON:
    (ok, summary, names of the results)."""
    p = xt_kunit.Parsed(kunit_py, path)
    ok = p.ok(min_cases)
    text = p.text(min_cases)
    return ok, text if ok else f'parse error: {text}', p.names()


def type_differences(results):
    """Edge runs: each guest type's kernel must make the same of the same
    parameters.  One line per parameter line whose finished boots report
    different min_delta_ns."""
    seen = {}
    for r in results:
        if r.get('params') is None or r['status'] != 'ok':
            continue
        seen.setdefault(r['params'], []).append((r['guest_type'], r.get('min_delta_ns', '-')))
    return [f'{p or "(none)"}: ' + ', '.join(f'{t.upper()} {v}' for t, v in vals)
            for p, vals in seen.items() if len({v for _, v in vals}) > 1]


def evaluate(boot, config, check, outdir, idx):
    """The result of one boot: config holds its name and slops, check the
    run's settings (kunit_py, kunit_boot, kunit_min, intervals, spike_us,
    tests).  Writes the console and each KTAP stream to outdir."""
    log = os.path.join(outdir, f'console-{idx}.log')
    with open(log, 'w') as f:
        f.write('\n'.join(boot.lines) + '\n')
    r = {**config, 'guest_cmdline': boot.guest_cmdline,
         'status': boot.status, 'seconds': round(boot.seconds, 1), 'console': log,
         'timing': dict(boot.timing()), 'ok': boot.status == 'ok', 'names': []}
    if not r['ok']:
        r['last_lines'] = boot.tail()
    facts = xt_console.parse(boot.lines, check.intervals, check.spike_us, check.tests)
    streams = facts.pop('streams')
    problems = facts.pop('problems')
    r.update(facts)
    bad_exit = r['bad_exit']
    if problems and r['ok']:
        r['ok'] = False
        r['status'] = problems[0]
    if bad_exit or any(v['verdict'] == 'fail' for v in r['verdicts']):
        r['ok'] = False
    if check.kunit_py:
        # Every KTAP stream must parse with the tree's kunit.py.
        for name, lines in streams.items():
            suffix = 'run_kselftest' if name == 'run_kselftest.sh' else name
            path = os.path.join(outdir, f'ktap-{idx}-{suffix}.txt')
            with open(path, 'w') as f:
                f.write('\n'.join(lines) + '\n')
            ok, text, names = ktap_parse(check.kunit_py, path)
            r.setdefault('ktap_parse', {})[name] = text
            r.setdefault('ktap_files', {})[suffix] = path
            r['names'] += [f'{name}.{n}' for n in names]
            if not ok:
                r['ok'] = False
    if check.kunit_boot:
        klog = os.path.join(outdir, f'kunit-{idx}.log')
        with open(klog, 'w') as f:
            f.write('\n'.join(xt_console.kunit_lines(
                boot.lines, raw=xt_kunit.reads_raw_console(check.kunit_py))) + '\n')
        ok, summary, names = ktap_parse(check.kunit_py, klog, check.kunit_min)
        r['kunit'] = {'ok': ok, 'summary': summary.replace('parse error: ', '')}
        r.setdefault('ktap_files', {})['kunit'] = klog
        r['names'] += [f'kunit.{n}' for n in names]
        if not ok:
            r['ok'] = False
    # The outcome: how the console ended, and when it reached its end
    # marker, the checks.
    r['outcome'] = Outcome.PASS if r['ok'] else (
        boot.watch.outcome if boot.status != 'ok' else Outcome.FAIL)
    return r

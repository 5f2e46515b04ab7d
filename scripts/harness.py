#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Boot Xen with a guest kernel under QEMU for each slop configuration,
run the xen_timer suite inside, and print the patch thread's latency table.

Each configuration is one boot: Xen (timer_slop=X) with the guest as PV
dom0 (xen_timer_slop=G) and the initramfs of scripts/mkinitramfs.sh,
whose /init prints results between "@@XT" marker lines.  Every boot has a
timeout; a panic, a hang or a guest that never reaches its end marker is
reported with the last console lines, and the run goes on with the next
configuration.  Exit status 1 if any configuration failed.
"""

import argparse
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

import xt_kunit

DEFAULT = 'default'


def die(msg):
    print(f'harness: {msg}', file=sys.stderr)
    sys.exit(2)


def slop_list(text, name):
    out = []
    for item in text.replace(',', ' ').split():
        if item == DEFAULT:
            out.append(DEFAULT)
        elif re.fullmatch(r'[0-9]+', item):
            out.append(int(item))
        else:
            die(f'{name}: "{item}" is neither a number of ns nor "default"')
    if not out:
        die(f'{name}: empty list')
    return out


def int_list(text, name, lo, hi):
    out = []
    for item in text.replace(',', ' ').split():
        if not re.fullmatch(r'[0-9]+', item) or not lo <= int(item) <= hi:
            die(f'{name}: "{item}" is not a whole number in {lo}..{hi}')
        out.append(int(item))
    if not out:
        die(f'{name}: empty list')
    return out


# QEMU's acceleration.  A /dev/kvm does not mean KVM can run Xen: on some
# hosts QEMU aborts ("kvm_buf_set_msrs" assertion with -cpu host) or Xen
# faults at its first instructions.  So ACCEL=auto boots Xen once under
# KVM, with a dummy dom0 module, and takes KVM only if Xen brings up its
# CPUs (then panics for want of a dom0 kernel, 1.4 s under TCG here).
KVM_ARGS = ['-enable-kvm', '-cpu', 'host']
PROBE_SECONDS = 30
PROBE_OK = re.compile(r'\(XEN\) Brought up \d+ CPUs')


def kvm_probe(xen, vcpus):
    """Boot Xen under KVM until it has brought up its CPUs: (ok, why)."""
    with tempfile.TemporaryDirectory() as tmp:
        dummy = os.path.join(tmp, 'dummy-dom0')
        with open(dummy, 'wb') as f:
            f.write(bytes(4096))
        cmd = ['qemu-system-x86_64', *KVM_ARGS, '-kernel', xen,
               '-append', 'console=com1 noreboot', '-initrd', dummy, '-m', '256',
               '-smp', str(vcpus), '-nographic', '-serial', 'stdio', '-monitor', 'none',
               '-no-reboot']
        start = time.monotonic()
        try:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL)
        except OSError as e:
            return False, f'cannot run QEMU: {e.strerror}'
        last, buf, ok = '', b'', False
        try:
            while time.monotonic() - start < PROBE_SECONDS:
                ready, _, _ = select.select([proc.stdout], [], [], 1.0)
                if not ready:
                    continue
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                buf += chunk
                *done, buf = buf.split(b'\n')
                for raw in done:
                    line = raw.decode('utf-8', 'replace').strip()
                    if line:
                        last = line
                    if PROBE_OK.search(line):
                        ok = True
                if ok:
                    break
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
        secs = time.monotonic() - start
        if ok:
            return True, f'Xen brought up its CPUs under KVM in {secs:.1f} s'
        if proc.returncode is not None and proc.returncode != -9:
            return False, f'QEMU exited {proc.returncode} after {secs:.1f} s: {last[-160:] or "no output"}'
        return False, (f'Xen did not bring up its CPUs under KVM in {PROBE_SECONDS} s'
                       f' (last line: {last[-120:] or "none"})')


def choose_accel(mode, xen, vcpus):
    """ACCEL=auto|kvm|tcg -> (QEMU arguments, 'kvm' or 'tcg', why)."""
    if mode == 'tcg':
        return [], 'tcg', 'ACCEL=tcg'
    dev = os.environ.get('XT_KVM_DEV', '/dev/kvm')
    if not os.path.exists(dev):
        ok, why = False, f'{dev} missing'
    elif not os.access(dev, os.R_OK | os.W_OK):
        ok, why = False, f'{dev} not readable and writable'
    else:
        ok, why = kvm_probe(xen, vcpus)
    if ok:
        return KVM_ARGS, 'kvm', f'ACCEL={mode}: {why}'
    if mode == 'kvm':
        die(f'ACCEL=kvm, but KVM cannot run Xen here: {why}')
    return [], 'tcg', f'ACCEL=auto fell back to TCG: {why}'


def label(xen, guest):
    x = 'default, 50000' if xen == DEFAULT else str(xen)
    g = 'default' if guest == DEFAULT else str(guest)
    return f'Xen ({x}) | Guest ({g})'


class Boot:
    """One QEMU run, its console, and what it ended with."""

    def __init__(self, args, xen_slop, guest_slop, params=None):
        self.xen_slop = xen_slop
        self.guest_slop = guest_slop
        self.params = params
        xen_cmd = f'console=com1 dom0_mem=512M dom0_max_vcpus={args.vcpus} noreboot'
        if xen_slop != DEFAULT:
            xen_cmd += f' timer_slop={xen_slop}'
        guest = ['console=hvc0', f'xt_intervals={",".join(map(str, args.intervals))}',
                 f'xt_samples={args.samples}', f'xt_oneshot={args.oneshot}']
        if params is not None:
            guest[1:1] = params.split()
            guest.append('xt_latency=0')
        elif guest_slop != DEFAULT:
            guest.insert(1, f'xen_timer_slop={guest_slop}')
        if args.lat_opts:
            guest.append('xt_lat_opts=' + ','.join(args.lat_opts.split()))
        guest += args.guest_args.split()
        self.guest_cmdline = ' '.join(guest)
        # QEMU splits -initrd at commas: the guest command line must have none.
        initrd = f'{args.kernel} {self.guest_cmdline.replace(",", ",,")},{args.initrd}'
        accel = args.accel_args
        pin = ['taskset', '-c', args.taskset] if args.taskset else []
        self.cmd = [*pin, 'qemu-system-x86_64', *accel, '-kernel', args.xen, '-append', xen_cmd,
                    '-initrd', initrd, '-m', '1024', '-smp', str(args.vcpus),
                    '-nographic', '-serial', 'stdio', '-monitor', 'none', '-no-reboot']
        self.timeout = args.timeout
        self.lines = []
        self.status = None
        self.seconds = 0.0

    def run(self, progress):
        start = time.monotonic()
        proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        buf = b''
        stage = 'Xen'
        end_seen = None
        while True:
            now = time.monotonic()
            if end_seen is not None and now - end_seen > 5:
                break
            if now - start > self.timeout:
                self.status = self.status or f'hang: no end marker after {self.timeout} s'
                break
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            *done, buf = buf.split(b'\n')
            for raw in done:
                line = raw.decode('utf-8', 'replace').rstrip('\r')
                self.lines.append(line)
                new = stage
                if 'Linux version' in line:
                    new = 'guest kernel'
                elif line.startswith('@@XT BEGIN '):
                    new = line.split()[2]
                if new != stage:
                    stage = new
                    progress(f'{stage} ({time.monotonic() - start:.0f} s)')
                if line.startswith('@@XT END-GUEST'):
                    end_seen = time.monotonic()
                    self.status = 'ok'
                if end_seen is None and re.search(
                        r'Kernel panic|\(XEN\) Panic on CPU|Hardware Dom0 crashed|'
                        r'\(XEN\) \*\*\*\* Dom0 .*crash|Attempted to kill init', line):
                    self.status = f'panic: {line.strip()}'
                    end_seen = time.monotonic() - 3
                elif end_seen is None and 'Hardware Dom0 halted' in line:
                    self.status = f'guest died before its end marker: {line.strip()}'
                    end_seen = time.monotonic() - 3
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if buf:
            self.lines.append(buf.decode('utf-8', 'replace'))
        if self.status is None:
            self.status = f'guest ended without its end marker (QEMU exit {proc.returncode})'
        self.seconds = time.monotonic() - start
        return self.status == 'ok'

    def tail(self, n=15):
        return self.lines[-n:]


def sections(lines, begin, end, rc_of, strip=lambda line: line):
    """Named sections of a console: from a line matching BEGIN to the line
    matching END with the same (?P<name>), with rc_of(match of END)."""
    out, cur, name = {}, None, None
    for line in lines:
        m = re.match(begin, line)
        if m:
            name, cur = m.group('name'), []
            continue
        m = re.match(end, line)
        if m and cur is not None and m.group('name') == name:
            out[name] = {'lines': cur, 'rc': rc_of(m)}
            cur = None
            continue
        if cur is not None:
            cur.append(strip(line))
    return out


def blocks(lines):
    """The "@@XT BEGIN name" .. "@@XT END name rc" blocks of a console log."""
    return sections(lines, r'@@XT BEGIN (?P<name>\S+)$',
                    r'@@XT END (?P<name>\S+) (?P<rc>-?\d+)$', lambda m: int(m.group('rc')))


def kselftest_tests(lines, collection='xen_timer'):
    """Split run_kselftest.sh output into the tests of a collection (a
    regular expression): the nested KTAP of each (the runner's "# " prefix
    taken off) and an exit code from its result line (0 ok, 4 skip, 1 not ok)."""
    def rc(m):
        if m.group('result') == 'not ok':
            return 1
        return 4 if re.search(r'#\s*SKIP', m.group('rest')) else 0

    def strip(line):
        return line[2:] if line.startswith('# ') else line[1:] if line == '#' else line

    return sections(lines, rf'# selftests: {collection}: (?P<name>\S+)$',
                    rf'(?P<result>not ok|ok) \d+ selftests: {collection}: (?P<name>\S+)(?P<rest>.*)$',
                    rc, strip)


def ktap_parse(kunit_py, path, min_cases=1):
    """The tree's kunit.py parse of a KTAP file, read from its JSON:
    (ok, summary, names of the results)."""
    p = xt_kunit.Parsed(kunit_py, path)
    ok = p.ok(min_cases)
    text = p.text(min_cases)
    return ok, text if ok else f'parse error: {text}', p.names()


def ktap_results(lines):
    """The top-level results of a KTAP stream: name, verdict, and for a
    skip its reason."""
    res = []
    for line in lines:
        m = re.match(r'(not ok|ok) \d+ ([^#]*?)\s*(?:#\s*(\S+)\s*(.*))?$', line)
        if m:
            verdict = 'pass' if m.group(1) == 'ok' else 'fail'
            r = {'verdict': verdict, 'name': m.group(2)}
            if m.group(3) and m.group(3).upper() == 'SKIP':
                r.update(verdict='skip', reason=m.group(4))
            res.append(r)
        m = re.match(r'1\.\.0 # SKIP (.*)', line)
        if m:
            res.append({'verdict': 'skip', 'name': '', 'reason': m.group(1)})
    return res


def kv(line):
    return {k: float(v) for k, v in re.findall(r'(\w+)=([0-9.]+)', line)}


def cyclictest_stats(lines, spike_us):
    hist, st = {}, {}
    for line in lines:
        m = re.match(r'(\d{6})\s+(\d+)$', line)
        if m:
            hist[int(m.group(1))] = int(m.group(2))
        m = re.match(r'# (Min|Avg|Max) Latencies: (\d+)', line)
        if m:
            st[m.group(1).lower()] = int(m.group(2))
        m = re.match(r'# Histogram Overflows: (\d+)', line)
        if m:
            st['overflows'] = int(m.group(1))
    if 'avg' not in st:
        return None
    n = sum(hist.values()) + st.get('overflows', 0)
    spikes = sum(c for b, c in hist.items() if b > spike_us) + st.get('overflows', 0)
    p99, acc = '>1000', 0
    for b in sorted(hist):
        acc += hist[b]
        if acc >= 0.99 * n:
            p99 = b
            break
    return {'samples': n, 'min_us': st['min'], 'avg_us': st['avg'], 'max_us': st['max'],
            'p99_us': p99, 'spikes': spikes, 'hist': hist,
            'overflows': st.get('overflows', 0)}


def evaluate(boot, args, outdir, idx):
    log = os.path.join(outdir, f'console-{idx}.log')
    with open(log, 'w') as f:
        f.write('\n'.join(boot.lines) + '\n')
    r = {'config': (boot.params or '(none)') if boot.params is not None else
         label(boot.xen_slop, boot.guest_slop),
         'xen_slop': boot.xen_slop,
         'guest_slop': boot.guest_slop, 'guest_cmdline': boot.guest_cmdline,
         'status': boot.status, 'seconds': round(boot.seconds, 1), 'console': log,
         'verdicts': [], 'intervals': {}, 'ok': boot.status == 'ok', 'names': []}
    if not r['ok']:
        r['last_lines'] = boot.tail()
    b = blocks(boot.lines)
    for line in boot.lines:
        if line.startswith('@@XT min_delta_ns:'):
            r['min_delta_ns'] = int(line.split()[-1])
        if line.startswith('@@XT CMDLINE'):
            r['cmdline'] = line[len('@@XT CMDLINE '):]
        if line.startswith('@@XT DMESG') and ('rejected' in line or 'Malformed' in line):
            r.setdefault('dmesg', []).append(line[len('@@XT DMESG '):])
    tests = ('xen_timer_slop_test',) if boot.params is not None else (
        'xen_timer_slop_test', 'xen_timer_latency_test')
    ks = b.get('kselftest')
    if ks is None:
        if r['ok']:
            r['ok'] = False
            r['status'] = 'run_kselftest.sh did not run'
        ks = {'lines': [], 'rc': 0}
    elif args.kunit_py:
        # run_kselftest.sh's own KTAP stream must parse with the tree's kunit.py.
        path = os.path.join(outdir, f'ktap-{idx}-run_kselftest.txt')
        with open(path, 'w') as f:
            f.write('\n'.join(ks['lines']) + '\n')
        ok, text, names = ktap_parse(args.kunit_py, path)
        r.setdefault('ktap_parse', {})['run_kselftest.sh'] = text
        r['names'] += [f'run_kselftest.sh.{n}' for n in names]
        if not ok:
            r['ok'] = False
    b.update(kselftest_tests(ks['lines']))
    for test in tests:
        if test not in b:
            if r['ok']:
                r['ok'] = False
                r['status'] = f'{test} did not run'
            continue
        if args.kunit_py:
            # Every KTAP stream must parse with the tree's kunit.py.
            ktap = os.path.join(outdir, f'ktap-{idx}-{test}.txt')
            with open(ktap, 'w') as f:
                f.write('\n'.join(b[test]['lines']) + '\n')
            ok, text, names = ktap_parse(args.kunit_py, ktap)
            r.setdefault('ktap_parse', {})[test] = text
            r['names'] += [f'{test}.{n}' for n in names]
            if not ok:
                r['ok'] = False
        res = ktap_results(b[test]['lines'])
        for v in res:
            r['verdicts'].append({'test': test, **v})
        if b[test]['rc'] not in (0, 4) or any(v['verdict'] == 'fail' for v in res) or not res:
            r['ok'] = False
        for line in b[test]['lines']:
            if 'XT_LAT ' in line:
                d = kv(line)
                r['intervals'].setdefault(int(d['interval_us']), {})['ours'] = {
                    'samples': int(d['samples']), 'min_us': d['min_ns'] / 1e3,
                    'avg_us': d['avg_ns'] / 1e3, 'max_us': d['max_ns'] / 1e3,
                    'p50_us': d['p50_ns'] / 1e3, 'p99_us': d['p99_ns'] / 1e3,
                    'p999_us': d['p999_ns'] / 1e3, 'spikes': int(d.get('over', d['spikes']))}
            if 'XT_SLOP ' in line:
                r['slop_check'] = kv(line)
            if 'XT_CPU ' in line:
                r.setdefault('cpus', []).append(dict(re.findall(r'(\w+)=(\S+)', line)))
    for i in args.intervals:
        name = f'cyclictest-{i}'
        if name in b:
            c = cyclictest_stats(b[name]['lines'], args.spike_us)
            if c:
                r['intervals'].setdefault(i, {})['cyclictest'] = c
    if args.kunit_boot:
        # KUnit runs before init: its KTAP is the console up to the guest's first marker.
        klog = os.path.join(outdir, f'kunit-{idx}.log')
        with open(klog, 'w') as f:
            for line in boot.lines:
                if line.startswith('@@XT BEGIN-GUEST'):
                    break
                f.write(line + '\n')
        ok, summary, names = ktap_parse(args.kunit_py, klog, args.kunit_min)
        r['kunit'] = {'ok': ok, 'summary': summary.replace('parse error: ', '')}
        r['names'] += [f'kunit.{n}' for n in names]
        if not ok:
            r['ok'] = False
    return r


def fmt(v, nd=0):
    if v is None:
        return '-'
    if isinstance(v, str):
        return v
    return f'{v:.{nd}f}'


def print_table(results, args, out):
    w = out.write
    w(f'# QEMU accel: {args.accel_desc}\n')
    for r in results:
        w('\n##############################\n\n')
        w(f'# Timer Slop: {r["config"]}\n')
        w(f'# boot: {r["status"]}, {r["seconds"]} s')
        if 'min_delta_ns' in r:
            w(f', guest min_delta_ns {r["min_delta_ns"]}')
        w('\n')
        for i in args.intervals:
            d = r['intervals'].get(i, {})
            o, c = d.get('ours'), d.get('cyclictest')
            w(f'\n# Interval (-i{i})          ours   cyclictest\n')
            for key, name in (('min_us', 'Min'), ('avg_us', 'Avg'), ('max_us', 'Max'),
                              ('p99_us', 'p99')):
                w(f'{name + ":":<26}{fmt(o and o[key]):>6} {fmt(c and c[key]):>12}\n')
            w(f'{f"Spikes (over {args.spike_us}):":<26}{fmt(o and o["spikes"]):>6} '
              f'{fmt(c and c["spikes"]):>12}\n')
            w(f'{"Samples:":<26}{fmt(o and o["samples"]):>6} {fmt(c and c["samples"]):>12}\n')
        if 'slop_check' in r:
            s = r['slop_check']
            w(f'\n# slop check: sleeps of {s["short_ns"] / 1e3:.0f} us and {s["long_ns"] / 1e3:.0f} us,'
              f' medians {s["short_p50_ns"] / 1e3:.0f} and {s["long_p50_ns"] / 1e3:.0f} us\n')
        w('\n# verdicts\n')
        for v in r['verdicts']:
            why = f' # SKIP {v["reason"]}' if v.get('reason') else ''
            w(f'{v["verdict"].upper():<5} {v["test"]}: {v["name"]}{why}\n')
        if 'kunit' in r:
            w(f'{"PASS" if r["kunit"]["ok"] else "FAIL":<5} KUnit at boot: {r["kunit"]["summary"]}\n')
        for test, text in r.get('ktap_parse', {}).items():
            w(f'{"FAIL" if text.startswith("parse error") else "PASS":<5} kunit.py parse of {test}: {text}\n')
        for line in r.get('dmesg', []):
            w(f'dmesg: {line}\n')
        if r.get('last_lines'):
            w('# last console lines:\n')
            for line in r['last_lines']:
                w(f'  | {line}\n')
    w('\n')
    for r in results:
        w(f'{"PASS" if r["ok"] else "FAIL"}  {r["config"]}: {r["status"]}\n')


def detectors(r):
    """What flagged one boot: KUnit at boot, each selftest, each failed check."""
    found = []
    if r['status'] != 'ok':
        found.append('boot: ' + r['status'].split(':')[0])
    if 'kunit' in r and not r['kunit']['ok']:
        found.append('KUnit at boot')
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


def repeat_table(results, repeat):
    """With --repeat: per config, how many boots each detector flagged."""
    lines = []
    for k in range(0, len(results), repeat):
        runs = results[k:k + repeat]
        name = runs[0]['config'].rsplit(' #', 1)[0]
        flagged = sum(not r['ok'] for r in runs)
        lines.append(f'{name}: {flagged}/{len(runs)} boots flagged')
        count = {}
        for r in runs:
            for d in detectors(r):
                count[d] = count.get(d, 0) + 1
        for d in sorted(count, key=lambda d: (-count[d], d)):
            lines.append(f'  {count[d]:>3}/{len(runs)}  {d}')
    return '\n'.join(lines) + '\n'


def params_table(results, kernel, accel):
    """One line per boot of --params-file: what the kernel made of the value."""
    width = max(len(r['config']) for r in results) + 2
    lines = [f'{"parameters":<{width}}{"min_delta_ns":>14}  {"boot":<22} kernel log']
    for r in results:
        boot = 'ok' if r['status'] == 'ok' else r['status'].split(':')[0].replace(
            'guest died before its end marker', 'dom0 died early')
        if r['status'] == 'ok' and not r['ok']:
            boot = 'ok, selftest FAIL'
        md = r.get('min_delta_ns', '-')
        log = '; '.join(re.sub(r'^\[[ 0-9.]+\] ', '', l) for l in r.get('dmesg', [])) or '-'
        lines.append(f'{r["config"]:<{width}}{md:>14}  {boot:<22} {log}')
    return (f'# guest kernel: {kernel}, QEMU accel: {accel}\n' +
            '\n'.join(lines) + '\n')


def summary_table(results, args):
    """One line per config and interval: the thread's numbers, ours and cyclictest's."""
    keys = ('min_us', 'avg_us', 'max_us', 'p99_us', 'spikes', 'samples')
    widths = (5, 5, 7, 7, 7, 6)

    def cols(d):
        return ''.join(f'{fmt(d[k]) if d else "-":>{w}}' for k, w in zip(keys, widths))
    names = ('min', 'avg', 'max', 'p99', f'>{args.spike_us}', 'n')
    head = ''.join(f'{n:>{w}}' for n, w in zip(names, widths))
    width = max(len(r['config']) for r in results) + 2
    lines = [f'# QEMU accel: {args.accel_desc}',
             f'{"":<{width}}{"":>7}  {"ours (us)":<{sum(widths)}}   cyclictest (us)',
             f'{"config":<{width}}{"":>7}  {head}   {head}']
    for r in results:
        for i in args.intervals:
            d = r['intervals'].get(i, {})
            lines.append(f'{r["config"]:<{width}}{"-i" + str(i):>7}  '
                         f'{cols(d.get("ours"))}   {cols(d.get("cyclictest"))}')
    return '\n'.join(lines) + '\n'


def plot(results, args, outdir):
    if not shutil.which('gnuplot'):
        print('harness: gnuplot missing, no plot (apt-get install gnuplot-nox)')
        return None
    # gnuplot's data files are intermediate: they do not go beside the results.
    with tempfile.TemporaryDirectory(prefix='xt-plot-') as tmp:
        return plot_in(results, args, outdir, tmp)


def plot_in(results, args, outdir, tmp):
    datafiles, plots = [], []
    for i in args.intervals:
        curves = []
        for k, r in enumerate(results):
            c = r['intervals'].get(i, {}).get('cyclictest')
            if not c or not c['samples']:
                continue
            path = os.path.join(tmp, f'cdf-{k}-{i}.dat')
            acc = 0
            with open(path, 'w') as f:
                for b in sorted(c['hist']):
                    acc += c['hist'][b]
                    f.write(f'{b} {100.0 * acc / c["samples"]:.3f}\n')
            datafiles.append(path)
            curves.append(f'"{path}" using 1:2 with steps lw 2 title "{r["config"]}"')
        if curves:
            plots.append((i, curves))
    if not plots:
        return None
    png = os.path.join(outdir, f'latency-{args.name}.png')
    script = ['set terminal pngcairo size 1200,%d' % (450 * len(plots)) if
              subprocess.run(['gnuplot', '-e', 'set terminal pngcairo'],
                             capture_output=True).returncode == 0 else
              'set terminal png size 1200,%d' % (450 * len(plots)),
              f'set output "{png}"', f'set multiplot layout {len(plots)},1',
              'set xlabel "latency (us), cyclictest histogram"',
              'set ylabel "samples at or below (%)"', 'set key bottom right',
              'set grid', 'set xrange [0:1000]', 'set yrange [0:100]']
    for i, curves in plots:
        script.append(f'set title "Interval {i} us: latency distribution per config"')
        script.append('plot ' + ', '.join(curves))
    script.append('unset multiplot')
    p = subprocess.run(['gnuplot'], input='\n'.join(script), text=True, capture_output=True)
    if p.returncode:
        print(f'harness: gnuplot failed: {p.stderr.strip().splitlines()[-1:]}')
        return None
    return png


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--xen', required=True)
    ap.add_argument('--kernel', required=True)
    ap.add_argument('--initrd', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--xen-slops', default='50000 5000')
    ap.add_argument('--guest-slops', default='100000 5000')
    ap.add_argument('--no-default-config', action='store_true',
                    help='skip the extra config with both defaults')
    ap.add_argument('--intervals', default='50 1000')
    ap.add_argument('--samples', default='1000')
    ap.add_argument('--oneshot', default='200')
    ap.add_argument('--vcpus', default='2')
    ap.add_argument('--timeout', default='300')
    ap.add_argument('--spike-us', default='100')
    ap.add_argument('--lat-opts', default='')
    ap.add_argument('--guest-args', default='')
    ap.add_argument('--kunit-py', default='',
                    help="the tree's kunit.py, to parse every KTAP stream with")
    ap.add_argument('--kunit-boot', action='store_true',
                    help='the guest runs KUnit at boot: its KTAP must pass')
    ap.add_argument('--kunit-min', type=int, default=1,
                    help='fail unless KUnit at boot ran at least this many cases')
    ap.add_argument('--name', default='matrix')
    ap.add_argument('--params-file', default='',
                    help='one boot per line of guest parameters, slop test only')
    ap.add_argument('--repeat', default='1',
                    help='boot every config this many times and count what flagged each')
    ap.add_argument('--expect-flagged', action='store_true',
                    help='a broken kernel: succeed only if every boot was flagged')
    ap.add_argument('--accel', default='auto', choices=('auto', 'kvm', 'tcg'),
                    help='QEMU acceleration; auto probes KVM with a short Xen boot')
    ap.add_argument('--taskset', default='',
                    help='host CPUs to pin QEMU to (taskset -c)')
    args = ap.parse_args()

    args.xen_slops = slop_list(args.xen_slops, 'XEN_SLOPS')
    args.guest_slops = slop_list(args.guest_slops, 'GUEST_SLOPS')
    args.intervals = int_list(args.intervals, 'INTERVALS', 1, 1000000)
    args.samples = int_list(args.samples, 'SAMPLES', 1, 10000000)[0]
    args.oneshot = int_list(args.oneshot, 'ONESHOT', 10, 1000000)[0]
    args.vcpus = int_list(args.vcpus, 'VCPUS', 1, 64)[0]
    args.timeout = int_list(args.timeout, 'TIMEOUT', 10, 86400)[0]
    args.spike_us = int_list(args.spike_us, 'SPIKE_US', 1, 10000000)[0]
    args.repeat = int_list(args.repeat, 'REPEAT', 1, 1000)[0]
    if args.taskset and not re.fullmatch(r'\d+([-,]\d+)*', args.taskset):
        die(f'--taskset: {args.taskset!r} is not a CPU list like 0 or 0-1')
    if args.taskset and not shutil.which('taskset'):
        die('taskset missing (util-linux)')
    for f in (args.xen, args.kernel, args.initrd):
        if not os.path.isfile(f):
            die(f'{f} does not exist')
    if args.kunit_boot and not args.kunit_py:
        die('--kunit-boot needs --kunit-py')
    if not shutil.which('qemu-system-x86_64'):
        die('qemu-system-x86_64 missing: run make deps')

    configs = [(x, g, None) for x in args.xen_slops for g in args.guest_slops]
    if not args.no_default_config and (DEFAULT, DEFAULT, None) not in configs:
        configs.append((DEFAULT, DEFAULT, None))
    if args.params_file:
        try:
            with open(args.params_file) as f:
                plines = [l.strip() for l in f if l.strip() and not l.startswith('#')]
        except OSError as e:
            die(f'{args.params_file}: {e.strerror}')
        configs = [(DEFAULT, DEFAULT, '' if p == '(none)' else p) for p in plines]
    configs = [c for c in configs for _ in range(args.repeat)]
    args.out = os.path.abspath(args.out)
    os.makedirs(args.out, exist_ok=True)
    args.accel_args, accel, accel_why = choose_accel(args.accel, args.xen, args.vcpus)
    args.accel_desc = f'{accel.upper()} ({accel_why})'
    print(f'harness: QEMU accel {args.accel_desc}', flush=True)
    print(f'harness: {len(configs)} configs, guest {os.path.basename(args.kernel)}, '
          f'{args.vcpus} vCPUs, {args.samples} samples per interval, QEMU {accel.upper()}',
          flush=True)
    t0 = time.monotonic()
    results = []
    for k, (x, g, params) in enumerate(configs, 1):
        boot = Boot(args, x, g, params=params)
        tag = f'[{k}/{len(configs)}] {label(x, g) if params is None else params or "(none)"}'
        if args.repeat > 1:
            tag += f' #{(k - 1) % args.repeat + 1}'
        print(f'{tag}: booting', flush=True)
        boot.run(lambda s: print(f'{tag}: {s}', flush=True))
        r = evaluate(boot, args, args.out, k)
        r['flagged_by'] = detectors(r)
        if args.repeat > 1:
            r['config'] += f' #{(k - 1) % args.repeat + 1}'
        results.append(r)
        nfail = sum(v['verdict'] == 'fail' for v in r['verdicts'])
        why = r['status'] if r['status'] != 'ok' else f'boot ok, {nfail} checks failed'
        if r['status'] == 'ok' and 'kunit' in r and not r['kunit']['ok']:
            why += ', KUnit failed'
        print(f'{tag}: {"PASS" if r["ok"] else "FAIL"} ({why}) in {boot.seconds:.0f} s',
              flush=True)
    total = time.monotonic() - t0
    renamed = name_differences(results)
    for line in renamed:
        print(f'harness: result names differ: {line}')
    if len({len(r['names']) for r in results if r['status'] == 'ok'}) == 1 and not renamed:
        n = next(len(r['names']) for r in results if r['status'] == 'ok')
        print(f'harness: the same {n} result names in every finished boot')

    txt = os.path.join(args.out, f'{args.name}.txt')
    with open(txt, 'w') as f:
        print_table(results, args, f)
    png = None
    if args.params_file:
        table = params_table(results, os.path.basename(args.kernel), args.accel_desc)
        with open(os.path.join(args.out, f'{args.name}-params.txt'), 'w') as f:
            f.write(table)
    else:
        print_table(results, args, sys.stdout)
        table = summary_table(results, args)
        with open(os.path.join(args.out, f'{args.name}-summary.txt'), 'w') as f:
            f.write(table)
        png = plot(results, args, args.out)
    print(table)
    if args.repeat > 1:
        rtable = repeat_table(results, args.repeat)
        with open(os.path.join(args.out, f'{args.name}-repeat.txt'), 'w') as f:
            f.write(rtable)
        print(rtable)
    summary = {'name': args.name, 'guest_kernel': os.path.basename(args.kernel),
               'accel': accel, 'accel_why': accel_why, 'vcpus': args.vcpus, 'samples': args.samples,
               'intervals': args.intervals, 'seconds': round(total, 1),
               'repeat': args.repeat,
               'passed': sum(r['ok'] for r in results),
               'failed': sum(not r['ok'] for r in results),
               'name_differences': renamed, 'configs': results}
    for r in results:
        for i in r['intervals'].values():
            if 'cyclictest' in i:
                i['cyclictest'].pop('hist', None)
    js = os.path.join(args.out, f'{args.name}.json')
    with open(js, 'w') as f:
        json.dump(summary, f, indent=1)
    print(f'harness: {len(configs)} boots in {total:.0f} s; table {txt}, JSON {js}'
          + (f', plot {png}' if png else ''))
    print(f'harness: {summary["passed"]} passed, {summary["failed"]} failed')
    if args.expect_flagged:
        print(f'harness: a broken kernel: {summary["failed"]} of {len(results)} boots '
              f'flagged, {summary["passed"]} missed')
        sys.exit(1 if summary['passed'] or renamed else 0)
    sys.exit(1 if summary['failed'] or renamed else 0)


if __name__ == '__main__':
    main()

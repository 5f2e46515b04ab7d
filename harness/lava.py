# SPDX-License-Identifier: GPL-2.0
"""A run's configs as LAVA jobs, and LAVA's logs of them read back as
boots.

A config is one job for LAVA's qemu device type: Xen, the kernel and the
initramfs are the three images of a tmpfs deploy, and QEMU's command line
is the local boot's (boot.py: the same Xen and kernel command lines, CPU,
memory and vCPUs, in the job's context).  A monitors test records the KTAP
results the console shows, so that a lab's own view of the job has them.
The log of a job (lava-run's output, or a server's log download) is the
console again: Replay follows it with the local boot's Watcher, and the
harness judges it as it judges a local boot.

The lava command writes the jobs (lava_jobs); the merge command judges
their logs (merge_logs, from run.run) as a local run's boots.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import shutil
import subprocess
import sys
from typing import Callable

from . import boot, console, model, report, verdict
from .model import BootResult, Config, Ending, MachineKey, Outcome, Try, die
from .request import Request

# The device dictionary a lab needs: LAVA's qemu device type for x86_64;
# each job's context gives the machine (memory, CPU, vCPUs, KVM or not).
DEVICE_DICT = "{% extends 'qemu.jinja2' %}\n{% set arch = 'amd64' %}\n"
# Debian's python3 has lava_common and jinja2 when lava-dispatcher is
# installed (the harness's own python3 may be another).
DEBIAN_PYTHON = '/usr/bin/python3'
# Xen's last line when dom0 powers the machine off.
XEN_POWER_OFF = '(XEN) Entering ACPI S5 state.'

# The monitors test: from the first kernel's start until Xen says dom0 is
# gone or powers the machine off, which comes after the guest's end marker
# (a dom0 guest powers off after it, and a domU's dom0 after its domU) or
# after the guest or dom0 died; KTAP result lines as LAVA results, a
# "# SKIP" directive makes the result skip.  Not at the end marker itself:
# LAVA stops reading there and may log that line no more.  pexpect
# matches with re.DOTALL: no ".*" that could span lines.
MONITOR_START = console.KERNEL_START
MONITOR_END = '|'.join((console.DOM0_GONE_RE.pattern.replace('.*', r'[^\r\n]*'),
                        re.escape(XEN_POWER_OFF)))
MONITOR_PATTERN = (r'(?=(?:(?:not )?ok \d+ [^#\r\n]*# )?(?P<result>SKIP|not ok|ok))'
                   r'(?:not )?ok \d+ (?P<test_case_id>[^#\r\n]*[^#\s])[ \t]*(?:#[^\r\n]*)?\r?\n')
MONITOR_FIXUP = {'ok': 'pass', 'not ok': 'fail', 'SKIP': 'skip'}
# What a job needs beyond the guest's timeout: the download, Xen's and
# dom0's boot before a domU, the poweroff.
DEPLOY_MINUTES = 5
BOOT_ALLOWANCE_S = 300


class LavaError(Exception):
    """A config LAVA cannot run, or a log that is not LAVA's."""


def monitor_results(text: str) -> list[tuple[str, str]]:
    """(case, result) of each KTAP result line of a console, as LAVA's
    monitors test records them (lava_dispatcher's TestMonitorAction)."""
    out = []
    for m in re.finditer(MONITOR_PATTERN, text):
        case = re.sub(r'\W+', '_', m.group('test_case_id').strip().lower())
        out.append((case, MONITOR_FIXUP[m.group('result')]))
    return out


def image_names(machines: list[boot.Machine], versions: list[str]) -> dict[str, str]:
    """The file name of every image in the jobs' images directory: the
    build's own name, led by the kernel version where there are several
    kernels."""
    names: dict[str, str] = {}
    for m, kv in zip(machines, versions):
        names.setdefault(m.xen, os.path.basename(m.xen))
        for f in (m.kernel, m.initrd):
            names.setdefault(f, f'{kv}-{os.path.basename(f)}' if kv else os.path.basename(f))
    if len(set(names.values())) != len(names):
        raise LavaError('two images of the jobs have one name: give each kernel a version')
    return names


def context(m: boot.Machine) -> dict[str, object]:
    """The job's context: what LAVA's qemu.jinja2 renders the machine
    from.  KVM only if the run was given ACCEL=kvm (a lab's device cannot
    be probed from here)."""
    cpu = boot.cpu_model(m)
    return {'arch': 'amd64', 'no_kvm': not m.accel_args, 'memory': m.guest.memory_mb,
            'extra_options': [*([f'-cpu {cpu}'] if cpu else []), f'-smp {m.vcpus}',
                              '-no-reboot']}


def image_arg(m: boot.Machine, xen_slop: int | None, guest_cmdline: str) -> str:
    """QEMU's multiboot loading (boot.multiboot) with LAVA's {xen},
    {kernel} and {ramdisk} for the downloaded images."""
    if '"' in guest_cmdline or "'" in guest_cmdline:
        raise LavaError(f'a quote in the command line "{guest_cmdline}": LAVA splits '
                        "QEMU's command line at blanks outside quotes")
    if m.guest.efi:
        raise LavaError(f'guest type {m.guest.name} boots Xen from OVMF and a FAT drive, '
                        "which LAVA's qemu deploy cannot give: leave it out of GUEST_TYPES")
    args = boot.multiboot(dataclasses.replace(m, xen='{xen}', kernel='{kernel}'),
                          boot.xen_cmdline(m, xen_slop),
                          boot.kernel_cmdline(m, guest_cmdline), '{ramdisk}')
    return f'{args[0]} {args[1]} {args[2]} "{args[3]}" {args[4]} "{args[5]}"'


def job(m: boot.Machine, config: Config, guest_cmdline: str, title: str,
        urls: dict[str, str]) -> dict[str, object]:
    """The job definition of one config: urls maps the machine's files to
    where the lab fetches them."""
    test_s = m.timeout + BOOT_ALLOWANCE_S
    # LAVA's monitors end after this long without a console line (the qemu
    # boot action's timeout, which its connection keeps): no shorter than
    # the local boot's timeout, so that the quiet the hang rule asks for
    # (console.HANG_QUIET_S) fits in it.
    quiet_s = max(m.timeout, console.HANG_QUIET_S + 60)
    meta = {'xen_timer.config': config.name,
            'kernel': config.kernel or os.path.basename(m.kernel),
            'guest_type': config.guest_type, 'xen': os.path.basename(m.xen),
            'xen_slop': 'default' if config.xen_slop is None else str(config.xen_slop),
            'guest_slop': 'default' if config.guest_slop is None else str(config.guest_slop)}
    if config.params is not None:
        meta['guest_params'] = config.params
    return {
        'device_type': 'qemu',
        'job_name': title,
        'visibility': 'public',
        'priority': 'medium',
        'timeouts': {'job': {'minutes': DEPLOY_MINUTES + math.ceil(test_s / 60) + 2},
                     'action': {'minutes': math.ceil(test_s / 60)},
                     'connection': {'minutes': 2}},
        'context': context(m),
        'metadata': meta,
        'actions': [
            {'deploy': {'to': 'tmpfs', 'timeout': {'minutes': DEPLOY_MINUTES}, 'images': {
                'xen': {'url': urls[m.xen],
                        'image_arg': image_arg(m, config.xen_slop, guest_cmdline)},
                'kernel': {'url': urls[m.kernel], 'image_arg': ''},
                'ramdisk': {'url': urls[m.initrd], 'image_arg': ''}}}},
            {'boot': {'method': 'qemu', 'media': 'tmpfs',
                      'timeout': {'minutes': math.ceil(quiet_s / 60)}}},
            {'test': {'timeout': {'minutes': math.ceil(test_s / 60)}, 'monitors': [
                {'name': console.COLLECTION, 'start': MONITOR_START, 'end': MONITOR_END,
                 'pattern': MONITOR_PATTERN, 'fixupdict': MONITOR_FIXUP}]}},
        ],
    }


_PLAIN = re.compile(r'[A-Za-z_/][A-Za-z0-9_./-]*')


def _scalar(v: object) -> str:
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, int):
        return str(v)
    s = str(v)
    if _PLAIN.fullmatch(s) and s.lower() not in ('true', 'false', 'yes', 'no', 'on', 'off',
                                                 'null', 'y', 'n'):
        return s
    return "'" + s.replace("'", "''") + "'"


def yaml(obj: object, indent: int = 0) -> str:
    """obj (dicts, lists, strings, numbers) as block YAML; a list of
    scalars on one line."""
    pad = ' ' * indent
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, dict) and v:
                out.append(f'{pad}{_scalar(k)}:\n{yaml(v, indent + 2)}')
            elif isinstance(v, list) and v and isinstance(v[0], dict):
                out.append(f'{pad}{_scalar(k)}:\n{yaml(v, indent)}')
            else:
                out.append(f'{pad}{_scalar(k)}: {_flow(v)}\n')
    elif isinstance(obj, list):
        for item in obj:
            body = yaml(item, indent + 2)
            out.append(f'{pad}- {body[indent + 2:]}')
    return ''.join(out)


def _flow(v: object) -> str:
    if isinstance(v, list):
        return '[' + ', '.join(_scalar(x) for x in v) + ']'
    if isinstance(v, dict):
        return '{' + ', '.join(f'{_scalar(k)}: {_flow(x)}' for k, x in v.items()) + '}'
    return _scalar(v)


def validate(paths: list[str]) -> tuple[list[str], str]:
    """Check job files against LAVA's job schema (lava_common, strict,
    as a server checks a submission).  Returns (one line per bad job,
    why nothing was checked or '')."""
    if not os.path.exists(DEBIAN_PYTHON) or subprocess.run(
            [DEBIAN_PYTHON, '-c', 'import lava_common.schemas, yaml'],
            capture_output=True).returncode:
        return [], 'lava-dispatcher is not installed (make deps installs it)'
    code = ('import sys, yaml\n'
            'from lava_common.schemas import validate\n'
            'for p in sys.argv[1:]:\n'
            '    try:\n'
            '        validate(yaml.safe_load(open(p)))\n'
            '    except Exception as e:\n'
            '        print(f"{p}: {e}".replace("\\n", " "))\n')
    p = subprocess.run([DEBIAN_PYTHON, '-c', code, *paths], capture_output=True, text=True)
    bad = p.stdout.splitlines()
    if p.returncode:
        bad.append(f'the schema check failed: {p.stderr.strip().splitlines()[-1:]}')
    return bad, ''


# YAML's escapes of a double-quoted string that JSON has not (a server's
# log lines are YAML, lava-run's are JSON as well).
_YAML_ESCAPES = {'e': '\\u001b', 'N': '\\u0085', '_': '\\u00a0', 'L': '\\u2028',
                 'P': '\\u2029', '0': '\\u0000', 'a': '\\u0007', 'v': '\\u000b', ' ': ' ',
                 '/': '/', '\t': '\\t'}


def _record(text: str) -> dict[str, object] | None:
    text = text.strip()
    if text.startswith('- '):
        text = text[2:]
    if not text.startswith('{'):
        return None
    try:
        rec = json.loads(text)
    except ValueError:
        fixed = re.sub(r'\\x([0-9a-fA-F]{2})', r'\\u00\1', text)
        fixed = re.sub(r'\\([eN_LP0av /\t])', lambda m: _YAML_ESCAPES[m.group(1)], fixed)
        try:
            rec = json.loads(fixed)
        except ValueError:
            return None
    return rec if isinstance(rec, dict) else None


def _seconds(dt: object) -> float:
    m = re.fullmatch(r'\d{4}-\d\d-\d\dT(\d\d):(\d\d):(\d\d(?:\.\d+)?)', str(dt))
    if not m:
        raise LavaError(f'"{dt}" is not a LAVA log time')
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))


# The action LAVA ends every job with, after the test.
FINALIZE_RE = re.compile(r'start: \d+ finalize\b')


@dataclasses.dataclass
class LavaLog:
    """What a job's log says: the console lines (seconds since the
    first), the seconds from the first to the log's end, the job's result
    ('pass', 'fail', '' if the log has none: the job did not end) and
    LAVA's error, whether a test action timed out."""
    lines: list[tuple[str, float]]
    seconds: float
    result: str
    error: str
    timed_out: bool


def read_log(path: str) -> LavaLog:
    """A LAVA job log: lava-run's output or a server's log download."""
    lines: list[tuple[str, float]] = []
    t0: float | None = None
    last = 0.0
    result = error = ''
    timed_out = finalizing = False
    end: float | None = None
    records = 0
    with open(path, encoding='utf-8', errors='replace') as f:
        for raw in f:
            rec = _record(raw)
            if rec is None or 'lvl' not in rec or 'dt' not in rec:
                continue
            records += 1
            t = _seconds(rec['dt'])
            if t0 is not None and t < last - 43200:
                t += 86400
            last = t
            msg = rec.get('msg')
            if isinstance(msg, str) and FINALIZE_RE.match(msg) and not finalizing:
                # LAVA powers the device off: what the console shows from
                # here is its own input ("poweroff"), not the guest's.
                finalizing, end = True, t
            elif rec['lvl'] == 'target' and isinstance(msg, str) and not finalizing:
                if t0 is None:
                    t0 = t
                lines.extend((m, t - t0) for m in console.serial_lines(msg))
            elif rec['lvl'] == 'results' and isinstance(msg, dict) and msg.get('case') == 'job':
                result = str(msg.get('result', ''))
                error = str(msg.get('error_msg', ''))
            elif isinstance(msg, str) and 'test monitoring has timed out' in msg:
                timed_out = True
    if not records:
        raise LavaError(f'{path}: no LAVA log records (lava-run output or a job log download)')
    end = last if end is None else end
    return LavaLog(lines, end - t0 if t0 is not None else 0.0, result, error, timed_out)


class Replay(boot.Watched):
    """A LAVA job's console followed as a local boot's is: the Watcher of
    its guest type, the lines until the Watcher would have stopped QEMU;
    at the end of the log, the boot is over by the job's timeout (a test
    action timed out: the hang rules of a local timeout), or LAVA ended
    the job (INFRA, LAVA's error said)."""

    def __init__(self, m: boot.Machine, guest_cmdline: str, log: LavaLog):
        self.guest_cmdline = guest_cmdline
        self.watch = console.Watcher(m.guest.end_grace_s, m.guest.fail_grace_s,
                                     domu=m.guest.domu)
        self.seconds = log.seconds
        for line, t in log.lines:
            if self.watch.should_stop(t):
                self.seconds = t
                break
            self.watch.feed(line, t)
        if self.watch.ending is None and not log.timed_out:
            self.watch.ending = Ending(
                Outcome.INFRA, 'LAVA ended the job before the end marker',
                f'job result {log.result or "none (the log ends mid-job)"}'
                + (f': {log.error}' if log.error else ''))
        self.watch.finish(self.seconds, timeout=round(self.seconds) if log.timed_out else None)


def missing_log(m: boot.Machine, guest_cmdline: str, path: str) -> Replay:
    """A config whose job has no log (not run, or not fetched): INFRA."""
    r = Replay(m, guest_cmdline, LavaLog([], 0.0, '', '', False))
    r.watch.ending = Ending(Outcome.INFRA, 'no LAVA log', f'{path} does not exist: the job '
                            'was not run or its log not fetched')
    return r


def link_images(names: dict[str, str], outdir: str) -> None:
    """The images under their job names in outdir, hard links where the
    file system allows."""
    os.makedirs(outdir, exist_ok=True)
    for src, name in names.items():
        dst = os.path.join(outdir, name)
        if os.path.exists(dst):
            os.remove(dst)
        try:
            os.link(src, dst)
        except OSError:
            shutil.copyfile(src, dst)


# run.py's helpers, which the functions below are given as parameters:
# run.py merges through this module, so this module does not import it.
ConfigsOf = Callable[[Request], list[Config]]
MachinesOf = Callable[[Request, list[str]], dict[MachineKey, boot.Machine]]
MachineKeyOf = Callable[[Request, Config], MachineKey]


def lava_accel(args: Request) -> list[str]:
    """A LAVA job's acceleration: KVM only when asked for (ACCEL=kvm), as
    a lab's device cannot be probed from here."""
    return boot.KVM_ARGS if args.accel == 'kvm' else []


def job_stem(k: int, c: Config) -> str:
    """A config's LAVA job file and log name, without the extension."""
    return f'{k:03d}-{report.slug(c.name)}'


def lava_configs(args: Request, configs_of: ConfigsOf, say: bool = True) -> list[Config]:
    """The configs of the run (configs_of: run.configs_of) that LAVA's
    qemu device type can boot: a guest type that boots Xen from OVMF is
    left out, and said so (unless say is false: said already)."""
    efi = [t for t in args.guest_types if boot.GUEST_TYPES[t].efi]
    if len(efi) == len(args.guest_types):
        die(f'guest types {" ".join(efi)}: none LAVA\'s qemu deploy can boot')
    if efi and say:
        print(f'harness: {args.cmd}: {" ".join(efi)} left out: it boots Xen from OVMF and a '
              "FAT drive, which LAVA's qemu deploy cannot give", flush=True)
    return [c for c in configs_of(args) if c.guest_type not in efi]


def lava_jobs(args: Request, configs_of: ConfigsOf, machines_of: MachinesOf,
              machine_key: MachineKeyOf) -> int:
    """One LAVA job per config, the images they name, the device
    dictionary; every job checked against LAVA's schema.  configs_of,
    machines_of and machine_key: run.py's."""
    configs = lava_configs(args, configs_of)
    outdir = os.path.join(args.out, f'{args.name}-lava')
    jobs_dir, images = os.path.join(outdir, 'jobs'), os.path.join(outdir, 'images')
    shutil.rmtree(jobs_dir, ignore_errors=True)
    os.makedirs(jobs_dir)
    machines = machines_of(args, lava_accel(args))
    try:
        names = image_names(list(machines.values()), [k[0] for k in machines])
    except LavaError as e:
        die(str(e))
    base = args.base_url.rstrip('/') or f'file://{images}'
    urls = {f: f'{base}/{n}' for f, n in names.items()}
    paths = []
    for k, c in enumerate(configs, 1):
        m = machines[machine_key(args, c)]
        try:
            definition = job(m, c, args.guest.cmdline(c),
                             f'xen_timer {args.name} [{k}/{len(configs)}] {c.name}', urls)
        except LavaError as e:
            die(str(e))
        paths.append(os.path.join(jobs_dir, f'{job_stem(k, c)}.yaml'))
        with open(paths[-1], 'w') as f:
            f.write(yaml(definition))
    link_images(names, images)
    with open(os.path.join(outdir, 'device.jinja2'), 'w') as f:
        f.write(DEVICE_DICT)
    bad, why = validate(paths)
    for line in bad:
        print(f'harness: lava: invalid job: {line}', file=sys.stderr)
    print(f'harness: {len(paths)} LAVA jobs in {jobs_dir}; ' +
          (f'not checked against LAVA\'s schema: {why}' if why else
           f'{len(paths) - len(bad)} valid by LAVA\'s job schema'))
    print(f'harness: images in {images} (the lab fetches them from {base}); the device '
          f'dictionary {os.path.join(outdir, "device.jinja2")}; each job\'s log to '
          f'{os.path.join(outdir, "logs")}/<job file name>.log, then python3 -m harness merge')
    return model.EXIT_FAIL if bad else model.EXIT_PASS


def merge_logs(args: Request, configs: list[Config], boots: str, machines_of: MachinesOf,
               machine_key: MachineKeyOf) -> list[BootResult]:
    """Each config's LAVA job log judged as a local boot of it: a missing
    log, or one LAVA ended before the end marker, is INFRA.  machines_of
    and machine_key: run.py's."""
    logs = args.logs or os.path.join(args.out, f'{args.name}-lava', 'logs')
    machines = machines_of(args, lava_accel(args))
    results = []
    for k, c in enumerate(configs, 1):
        m = machines[machine_key(args, c)]
        cmdline = args.guest.cmdline(c)
        path = os.path.join(logs, f'{job_stem(k, c)}.log')
        try:
            replay = (Replay(m, cmdline, read_log(path)) if os.path.exists(path)
                      else missing_log(m, cmdline, path))
        except (LavaError, OSError) as e:
            die(str(e))
        r = verdict.evaluate(replay, c, args.check, boots, str(k))
        r.xen_cmdline = boot.xen_cmdline(m, c.xen_slop)
        r.tries = [Try(r.outcome, r.reason, r.seconds, r.console, r.facts.noise)]
        print(f'[{k}/{len(configs)}] {c.name}: {str(r.outcome).upper()} ({r.reason}) '
              f'from {os.path.basename(path)}', flush=True)
        results.append(r)
    return results

# SPDX-License-Identifier: GPL-2.0
"""Boot Xen with a guest kernel under QEMU, run the xen_timer suite inside,
and print the patch thread's latency table.

From the repository's root, python3 -m harness COMMAND:

  matrix       Xen timer_slop x guest xen_timer_slop=, the thread's table
  edge         one boot per line of --params-file, slop test only
  repeat       every config RUNS times: how often each check flagged
  misses       each scripts/mutant.sh kernel built, then repeat: all flagged?
  lava         the matrix as LAVA jobs (lava.py), one per config, for a lab
  merge        the logs of those jobs judged as local boots: the same reports
  lab          those jobs run through a LAVA server (lab.py), then merged
  settings     the settings table (settings.py), or a list make reads
  prepare      what a make target boots, made before it (prepare.py)
  kunit-cases, kunit-check, ktap-check, lkft-check: the checks of
               make check's kunit, selftest and boot-check steps

This module is the command line only: request.py turns a run command's
arguments into a checked Request, run.py runs it (mutants.py misses',
lava.py lava's, lab.py lab's), and the tool commands are kunit_results.py's and
lkft.py's.

The run subcommands take every setting of settings.py as an option
(--samples 200) or as make writes it (SAMPLES=200), over the defaults of
a --profile (a make target's); the Makefile passes on only what the user
set.

Each configuration is one boot (boot.py) per guest type (--guest-types):
pv, the guest kernel as Xen's PV dom0 with the initramfs of
guest/mkinitramfs.sh, whose /init prints results between "@@XT" marker
lines (console.py); pvh, the same kernel as PV dom0 with --dom0-initrd
(guest/mkinitramfs-dom0.sh) starting itself as a PVH domU with that
initramfs.  Every boot has a timeout; a panic, a hang or a guest that
never reaches its end marker is reported with the last console lines,
and the run goes on.  The verdicts (verdict.py) check every KTAP stream
with the tree's kunit.py; the reports (report.py) are a table, a
summary, a plot and a JSON.

Each boot ends PASS, FAIL (the kernel's fault) or INFRA (the emulator's,
Xen's or the firmware's; model.py); an INFRA boot is booted again
--retries times, every try's console kept.  Exit status 0 when every
config passed, 1 if any failed (repeat --expect-flagged: if any passed),
3 if none failed but some still ended INFRA after the retries, 2 on bad
arguments.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
from typing import Callable

from . import (boot, kunit_results, lab, lava, lkft, model, mutants, prepare, request,
               run, settings)
from .model import die
from .request import SETTINGS, XEN_FIELD, Request

RUN_COMMANDS = ('matrix', 'edge', 'repeat', 'misses', 'lava', 'merge', 'lab')


def file_options(p: argparse.ArgumentParser) -> None:
    p.add_argument('--xen', required=True,
                   help="Xen's ELF (gunzipped xen-V-amd64.gz); " + XEN_FIELD + ' in it: '
                   "each XENS version's")
    p.add_argument('--platform-dir', default='',
                   help="scripts/platform-root.sh's roots' directory (Xen 4.20, QEMU 11.1)")
    p.add_argument('--kernel', default='', help='the guest kernel')
    p.add_argument('--kernel-set', action='append', nargs='+', default=[],
                   metavar='VERSION KERNEL DOM0_INITRD [DOM0_KERNEL]',
                   help='a guest kernel as an axis value (instead of --kernel, '
                   '--dom0-initrd and --dom0-kernel; repeat it): its version leads the '
                   'config names')
    p.add_argument('--dom0-kernel', default='',
                   help="the kernel of the domU types' dom0 (default: the guest kernel)")
    p.add_argument('--initrd', required=True, help="guest/mkinitramfs.sh's initramfs")
    p.add_argument('--dom0-initrd', default='',
                   help="guest/mkinitramfs-dom0.sh's initramfs, for the domU types; "
                   + XEN_FIELD + " in it: each XENS version's")
    p.add_argument('--out', required=True, help='results directory')
    p.add_argument('--name', default='matrix', help='prefix of the result files')
    p.add_argument('--kunit-py', default='',
                   help="the tree's kunit.py, to parse every KTAP stream with")
    p.add_argument('--kunit-boot', action='store_true',
                   help='the guest runs KUnit at boot: its KTAP must pass')
    p.add_argument('--kunit-min', type=int, default=1,
                   help='fail unless KUnit at boot ran at least this many cases')


def setting_options(p: argparse.ArgumentParser, cmd: str) -> None:
    """The settings of SETTINGS that cmd takes, as options and as make
    writes them (VAR=VALUE); a profile changes their defaults."""
    p.add_argument('--profile', default='make', choices=tuple(settings.PROFILES),
                   help="the defaults of a make target (see 'python3 -m harness settings')")
    for s in settings.for_command(SETTINGS, cmd):
        p.add_argument(s.option, dest=s.key, default=None, metavar=s.make,
                       help=f'{s.help} ({s.describe()}; default {s.default or "none"})')
    p.add_argument('assign', nargs='*', metavar='VAR=VALUE',
                   help='a setting as make writes it (SAMPLES=200)')


def cmd_settings(ns: argparse.Namespace) -> int:
    """The settings table, a list the Makefile reads, or one setting's
    value under a profile and assignments."""
    if ns.list:
        lists = {'guest-types': tuple(boot.GUEST_TYPES),
                 'make-vars': tuple(s.make for s in SETTINGS)}
        if ns.list not in lists:
            die(f'settings --list: "{ns.list}" is not one of {" ".join(lists)}')
        print(' '.join(lists[ns.list]))
        return 0
    if ns.get:
        by_make = {s.make: s for s in SETTINGS}
        if ns.get not in by_make:
            die(f'settings --get: "{ns.get}" is not one of {" ".join(by_make)}')
        # Every setting is checked, so that make stops at a bad one.
        text = request.setting_texts(SETTINGS, ns.profile, ns.assign, {})
        print(text[by_make[ns.get].key])
        return 0
    print(settings.markdown(SETTINGS), end='')
    return 0


def add_settings(p: argparse.ArgumentParser) -> None:
    p.add_argument('--list', default='', help='guest-types or make-vars, on one line')
    p.add_argument('--get', default='', metavar='VAR', help='the value of one setting')
    p.add_argument('--profile', default='make', choices=tuple(settings.PROFILES))
    p.add_argument('assign', nargs='*', metavar='VAR=VALUE')
    p.set_defaults(func=cmd_settings)


def cmd_kunit_cases(ns: argparse.Namespace) -> int:
    return kunit_results.cases_command(ns.source)


def add_kunit_cases(p: argparse.ArgumentParser) -> None:
    p.add_argument('source', nargs='+', help='KUnit source files')
    p.set_defaults(func=cmd_kunit_cases)


def cmd_kunit_check(ns: argparse.Namespace) -> int:
    rc, line = kunit_results.check(ns.json, ns.log, ns.min_cases, ns.max_skips)
    print(line, file=sys.stderr if rc else sys.stdout)
    return rc


def add_kunit_check(p: argparse.ArgumentParser) -> None:
    p.add_argument('json', help="kunit.py's --json file")
    p.add_argument('log', help="kunit.py's output")
    p.add_argument('min_cases', type=int)
    p.add_argument('max_skips', type=int)
    p.set_defaults(func=cmd_kunit_check)


def cmd_ktap_check(ns: argparse.Namespace) -> int:
    return kunit_results.ktap_check(ns.kunit_py, ns.file, ns.tests)


def add_ktap_check(p: argparse.ArgumentParser) -> None:
    p.add_argument('kunit_py', help="the tree's kunit.py")
    p.add_argument('file', help='a KTAP stream or run_kselftest.sh output')
    p.add_argument('tests', nargs='*', help='selftests that must have run and ended ok')
    p.set_defaults(func=cmd_ktap_check)


def cmd_lkft_check(ns: argparse.Namespace) -> int:
    return lkft.check_files(ns.files)


def add_lkft_check(p: argparse.ArgumentParser) -> None:
    p.add_argument('files', nargs='+', help='run_kselftest.sh outputs')
    p.set_defaults(func=cmd_lkft_check)


TOOL_COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    'settings': ('the settings table, or a list the Makefile reads', add_settings),
    'kunit-cases': ('how many results KUnit sources give (KUNIT_MIN_CASES)', add_kunit_cases),
    'kunit-check': ("judge kunit.py's JSON: at least MIN_CASES, none failed, "
                    'at most MAX_SKIPS skipped', add_kunit_check),
    'ktap-check': ("parse a KTAP stream and its nested ones with the tree's kunit.py",
                   add_ktap_check),
    'lkft-check': ("what Linaro's parse-output.py would record of run_kselftest.sh "
                   'outputs: one name per result', add_lkft_check),
    'prepare': ("what a make target boots: the platform roots, each Xen's ELF, "
                "dom0's initramfs", prepare.add),
}


def build_parser() -> argparse.ArgumentParser:
    """The run commands (each with the settings table's options) and the
    tool commands."""
    ap = argparse.ArgumentParser(prog='python3 -m harness',
                                 description=(__doc__ or '').splitlines()[0])
    sub = ap.add_subparsers(dest='cmd', metavar='|'.join((*RUN_COMMANDS, *TOOL_COMMANDS)))
    sub.required = True
    helps = {'matrix': 'the slop matrix and the thread table',
             'edge': 'one boot per line of guest parameters',
             'repeat': 'every config RUNS times, count what flagged',
             'misses': 'each mutant of scripts/mutant.sh built and booted RUNS times: '
             'succeed only if every boot was flagged',
             'lava': 'one LAVA job per config of the matrix, and the device dictionary',
             'merge': "the LAVA jobs' logs judged as local boots: table, JSON, KTAP",
             'lab': 'the LAVA jobs run through a LAVA server (LAVA_URL), their logs merged'}
    for cmd in RUN_COMMANDS:
        p = sub.add_parser(cmd, help=helps[cmd])
        file_options(p)
        setting_options(p, cmd)
        if cmd == 'edge':
            p.add_argument('--params-file', required=True,
                           help='one boot per line of guest parameters, slop test only')
        if cmd == 'repeat':
            p.add_argument('--expect-flagged', action='store_true',
                           help='a broken kernel: succeed only if every boot was flagged')
        if cmd == 'misses':
            p.add_argument('--mutants', required=True, help='mutants of scripts/mutant.sh')
            p.add_argument('--kdir', required=True, help='the kernel tree to build them from')
            p.add_argument('--build-dir', required=True,
                           help='each mutant is built in BUILD_DIR/mutant-NAME')
            p.add_argument('--config', required=True, help='the config fragment')
            p.add_argument('--kcc', default='gcc', help='the compiler (ccache gcc)')
            p.add_argument('--jobs', default='2')
        if cmd in ('lava', 'lab'):
            p.add_argument('--base-url', default='',
                           help='where the lab fetches the images directory '
                           '(default: file:// of it, for lava-run here)')
        if cmd == 'merge':
            p.add_argument('--logs', default='',
                           help="the jobs' logs, each named as its job file with .log "
                           '(default OUT/NAME-lava/logs)')
        if cmd in ('merge', 'lab'):
            p.add_argument('--compare', default='',
                           help="a run's JSON: fail unless the merged verdicts equal its "
                           'verdicts of the same configs')
    for cmd, (help_, add) in TOOL_COMMANDS.items():
        add(sub.add_parser(cmd, help=help_))
    return ap


ASSIGNMENT = re.compile(r'[A-Z][A-Z0-9_]*=')


def settings_back(ns: argparse.Namespace) -> None:
    """argparse hands an option of several words (--kernel-set, prepare's
    --dom0) every word after it, the VAR=VALUE words that end a command
    line too (make's settings): they go back to the settings."""
    found: list[str] = []
    for words in [*getattr(ns, 'kernel_set', []), getattr(ns, 'dom0', None) or []]:
        found += [w for w in words if ASSIGNMENT.match(w)]
        words[:] = [w for w in words if not ASSIGNMENT.match(w)]
    ns.assign = [*found, *getattr(ns, 'assign', [])]


def parse_args(argv: list[str]) -> Request:
    """The request of a run command, every file and setting checked (one
    line and exit 2 for the first that is wrong); a tool command runs here
    and exits with its code."""
    ns = build_parser().parse_args(argv)
    settings_back(ns)
    if ns.cmd in TOOL_COMMANDS:
        sys.exit(ns.func(ns))
    return request.request_of(
        ns, mutants.kernel_sets if ns.cmd == 'misses' else request.kernel_sets)


def _stop(signum: int, _frame: object) -> None:
    raise run.Stopped(signum)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _stop)
    try:
        with run.only_run(args.out, args.name):
            if args.cmd == 'lava':
                return lava.lava_jobs(args, run.configs_of, run.machines_of, run.machine_key)
            if args.cmd == 'lab':
                return lab.lab(args, run.configs_of, run.machines_of, run.machine_key, run.run)
            with run.host_load(args.host_load):
                return mutants.misses(args) if args.cmd == 'misses' else run.run(args)
    except run.Stopped as e:
        print(f'harness: stopped by {signal.Signals(e.signum).name}: '
              f'{e.judged or "no verdict"} (the run, not the kernel)', file=sys.stderr)
        return 128 + e.signum
    except OSError as e:
        # The host's, not the kernel's: a full disk, a file gone.
        where = f': {e.filename}' if e.filename else ''
        print(f'harness: {e.strerror or e}{where} (the host, not the kernel under test)',
              file=sys.stderr)
        return model.EXIT_INFRA


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

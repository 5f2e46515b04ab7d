# SPDX-License-Identifier: GPL-2.0
"""Every setting of a run, once: its make variable, its default, its type
and range, how it reaches the guest (an xt_*= parameter of the guest's or
dom0's command line, read by guest/guest-init or guest/dom0-init) and
the selftest option it becomes, with that option's own default in the C
source (tests/test_harness.py compares them).

The command line (__main__.py) builds its options from the table
(request.SETTINGS: --samples for SAMPLES), and also takes them as make
writes them (SAMPLES=200), so that the Makefile passes on only what the
user set: make_args() in the Makefile's terms.  A profile (PROFILES) is
what one make target changes of the defaults; what the user set wins
over it.

The lists the Makefile reads (python3 -m harness settings --list NAME):
the guest types (boot.GUEST_TYPES) and the make variables of the
settings; the kernel versions are scripts/kver.sh's.
"""

from __future__ import annotations

import dataclasses
import re

# Xen's own default of its timer_slop= (xen/common/timer.c: 50 us); the
# selftests' XT_XEN_TIMER_SLOP_NS; the harness checks each Xen binary
# holds it (platforms.timer_slop_default).
XEN_DEFAULT_TIMER_SLOP_NS = 50000
# The Xen of every run unless XENS= says otherwise (platforms.PLATFORMS).
DEFAULT_XEN = '4.20'

DEFAULT = 'default'


class SettingError(ValueError):
    """A value a setting does not take: its message is the one line the
    user sees."""


def _words(text: str) -> list[str]:
    return text.replace(',', ' ').split()


def _num(item: str, what: str, lo: int, hi: int) -> int:
    if not re.fullmatch(r'[0-9]+', item) or not lo <= int(item) <= hi:
        raise SettingError(f'{what}: "{item}" is not a whole number in {lo}..{hi}')
    return int(item)


@dataclasses.dataclass(frozen=True)
class Setting:
    """One setting.  key is the request's field and the option's name
    (--key, "_" as "-"); make the make variable; kind one of int, ints
    (a list), slops (ns or "default"), types (guest types), choice,
    cpus (a taskset CPU list), flag (1 or 0), text."""
    key: str
    make: str
    kind: str
    default: str
    help: str
    lo: int = 0
    hi: int = 0
    choices: tuple[str, ...] = ()
    # The xt_*= parameter it reaches the guest as ('' if it does not):
    # guest/guest-init's, or dom0-init's xt_domu_* for a domU type.
    guest: str = ''
    # The selftest option it becomes ('xen_timer_latency_test -n') and
    # that option's default in the C source, where it has one.
    selftest: str = ''
    selftest_default: str = ''
    # The subcommands that take it (empty: every run subcommand).
    commands: tuple[str, ...] = ()

    @property
    def option(self) -> str:
        return '--' + self.key.replace('_', '-')

    def parse(self, text: str) -> object:
        """The typed value of text, or SettingError."""
        what = self.make
        if self.kind == 'int':
            items = _words(text)
            if len(items) != 1:
                raise SettingError(f'{what}: "{text}" is not one whole number')
            return _num(items[0], what, self.lo, self.hi)
        if self.kind == 'ints':
            out = tuple(_num(i, what, self.lo, self.hi) for i in _words(text))
            if not out:
                raise SettingError(f'{what}: empty list')
            return out
        if self.kind == 'slops':
            slops: list[int | None] = []
            for item in _words(text):
                if item == DEFAULT:
                    slops.append(None)
                elif re.fullmatch(r'[0-9]+', item):
                    slops.append(int(item))
                else:
                    raise SettingError(f'{what}: "{item}" is neither a number of ns nor "default"')
            if not slops:
                raise SettingError(f'{what}: empty list')
            return tuple(slops)
        if self.kind == 'types':
            types: list[str] = []
            for item in _words(text):
                if item not in self.choices:
                    raise SettingError(f'{what}: "{item}" is not one of {" ".join(self.choices)}')
                if item not in types:
                    types.append(item)
            if not types:
                raise SettingError(f'{what}: empty list')
            return tuple(types)
        if self.kind == 'choice':
            if text not in self.choices:
                raise SettingError(f'{what}: "{text}" is not one of {" ".join(self.choices)}')
            return text
        if self.kind == 'cpus':
            if text and not re.fullmatch(r'\d+([-,]\d+)*', text):
                raise SettingError(f'{what}: "{text}" is not a CPU list like 0 or 0-1')
            return text
        if self.kind == 'flag':
            if text not in ('0', '1'):
                raise SettingError(f'{what}: "{text}" is neither 1 nor 0')
            return text == '1'
        if "'" in text or '"' in text:
            raise SettingError(f'{what}: no quotes, please: {text}')
        return text

    def describe(self) -> str:
        """Its type and range in words, for --help and the settings table."""
        return {'int': f'{self.lo}..{self.hi}', 'ints': f'list of {self.lo}..{self.hi}',
                'slops': 'list of ns or "default"', 'types': f'list of {", ".join(self.choices)}',
                'choice': ' or '.join(self.choices), 'cpus': 'CPU list', 'flag': '1 or 0',
                'text': 'text'}[self.kind]


RUN = ('matrix', 'repeat', 'misses', 'lava', 'merge', 'lab')
REPEAT = ('repeat', 'misses')


def settings(guest_types: tuple[str, ...], xens: tuple[str, ...] = ('4.17',),
             qemus: tuple[str, ...] = ('own',)) -> tuple[Setting, ...]:
    """The table; guest_types are boot.GUEST_TYPES's names, xens and
    qemus platforms' Xen and QEMU versions (passed in, so that this
    module imports nothing of the harness)."""
    return (
        # The thread's guest, a PV domU.  An HVM domU would take each
        # config of make's matrix more than twice as long under TCG (RESULTS.md
        # has the figures), so it is GUEST_TYPES="pv-domu hvm"'s;
        # boot-check boots our kernel as both.
        Setting('guest_types', 'GUEST_TYPES', 'types', 'pv-domu',
                'guest types; each config boots as each', choices=guest_types),
        # Debian 13's Xen and QEMU: their PVH and HVM domUs triple-fault
        # under TCG more rarely than Debian 12's (RESULTS.md, Platforms).
        Setting('xens', 'XENS', 'types', DEFAULT_XEN,
                "Xen versions, an axis: each under its Debian release's QEMU "
                '(4.17: Debian 12, the machine\'s; 4.20: Debian 13, a root under build/ '
                'that make deps makes)', choices=xens),
        Setting('qemu', 'QEMU', 'choice', qemus[0],
                "the QEMU of every Xen: own (each Xen's Debian's) or a version",
                choices=qemus),
        Setting('xen_slops', 'XEN_SLOPS', 'slops', '50000 5000',
                "Xen's timer_slop= values, ns", commands=RUN),
        Setting('guest_slops', 'GUEST_SLOPS', 'slops', '100000 5000',
                "the guest's xen_timer_slop= values, ns", guest='xen_timer_slop',
                commands=RUN),
        Setting('default_config', 'DEFAULT_CONFIG', 'flag', '1',
                'add the config with both slops left out', commands=RUN),
        Setting('intervals', 'INTERVALS', 'ints', '50 1000',
                'intervals of the latency test and cyclictest, us', 1, 1000000,
                guest='xt_intervals', selftest='xen_timer_latency_test -i',
                selftest_default='50,1000'),
        Setting('samples', 'SAMPLES', 'int', '1000', 'samples per interval', 1, 10000000,
                guest='xt_samples', selftest='xen_timer_latency_test -n',
                selftest_default='10000'),
        Setting('vcpus', 'VCPUS', 'int', '2', "the machine's and the guest's vCPUs", 1, 64,
                guest='xt_domu_vcpus'),
        Setting('memory', 'MEMORY', 'int', '256', "a domU's memory, MB", 64, 4096,
                guest='xt_domu_memory'),
        Setting('timeout', 'TIMEOUT', 'int', '300', 'seconds per boot (per domU)', 10, 86400,
                guest='xt_domu_timeout'),
        # QEMU's TCG CPUs have no invariant TSC, so in its default
        # tsc_mode Xen traps every RDTSC of a PVH or HVM domU, which a host
        # with one (the thread's) runs natively: native halves a PVH
        # domU's kernel boot under load (RESULTS.md, Platforms).
        Setting('domu_tsc', 'DOMU_TSC', 'choice', 'native',
                "a domU's tsc_mode (xl.cfg): native, or Xen's default (RDTSC "
                'trapped under TCG)', choices=('native', 'default'),
                guest='xt_domu_tsc_mode'),
        Setting('retries', 'RETRIES', 'int', '2',
                'boot a config again this many times while it ends INFRA', 0, 10),
        Setting('accel', 'ACCEL', 'choice', 'auto',
                'QEMU acceleration; auto probes KVM with a short Xen boot',
                choices=('auto', 'kvm', 'tcg')),
        Setting('taskset', 'TASKSET', 'cpus', '', 'host CPUs to pin QEMU to (taskset -c)'),
        Setting('lat_opts', 'LAT_OPTS', 'text', '', 'more options for xen_timer_latency_test',
                guest='xt_lat_opts'),
        Setting('guest_args', 'GUEST_ARGS', 'text', '', "more on the guest's command line"),
        # A LAVA server's URL and its user's API token, read from a file so
        # that the token is never on a command line, in a log or a report.
        Setting('lava_url', 'LAVA_URL', 'text', '',
                "the LAVA server of make lava-lab (http://HOST:PORT)", commands=('lab',)),
        Setting('lava_token_file', 'LAVA_TOKEN_FILE', 'text', '',
                "a file holding the API token of that server's user", commands=('lab',)),
        Setting('runs', 'RUNS', 'int', '20', 'boots of each config', 1, 1000, commands=REPEAT),
        Setting('host_load', 'HOST_LOAD', 'cpus', '',
                'keep these host CPUs busy while it runs (stress-ng --cpu 1)',
                commands=REPEAT),
    )


# What a make target changes of the defaults.  boot-check: our kernel
# as make check boots it, Xen's default timer_slop, the guest's default
# and a slop of 2 ms (the program test judges how late a fire comes only
# where the slop is above twice Xen's timer_slop and what the platform
# adds to a deadline; 5 ms hangs the bypassed mutant at boot); more
# retries, as PVH and HVM domUs triple-fault now and then under TCG
# (QEMU's emulated VMRUN), more often on Xen 4.17.
_BOOT = {'guest_types': 'pv pv-domu pvh pvh-dom0 hvm', 'xen_slops': DEFAULT,
         'guest_slops': 'default 2000000', 'default_config': '0'}
PROFILES: dict[str, dict[str, str]] = {
    'make': {},
    'boot-check': {**_BOOT, 'retries': '4'},
    # QEMU on host CPU 0, stress-ng on CPU 1: a domU takes several times
    # as long as on a quiet host, and a boot cut off by TIMEOUT while the
    # guest still prints is INFRA "too slow", which says nothing of the
    # kernel, so the profile's timeout leaves the starved boot room to end.
    'false-failures': {**_BOOT, 'guest_slops': '2000000', 'taskset': '0', 'host_load': '1',
                       'timeout': '600'},
    # The slop comes from scripts/mutant.sh per mutant.
    'misses': dict(_BOOT),
    'edge': {'timeout': '90'},
}


def defaults(table: tuple[Setting, ...], profile: str) -> dict[str, str]:
    if profile not in PROFILES:
        raise SettingError(f'profile "{profile}" is not one of {" ".join(PROFILES)}')
    return {s.key: PROFILES[profile].get(s.key, s.default) for s in table}


def for_command(table: tuple[Setting, ...], cmd: str) -> tuple[Setting, ...]:
    return tuple(s for s in table if not s.commands or cmd in s.commands)


def assignment(table: tuple[Setting, ...], text: str) -> tuple[Setting, str]:
    """The setting and value of a make-style VAR=VALUE."""
    var, sep, value = text.partition('=')
    by_make = {s.make: s for s in table}
    if not sep or var not in by_make:
        raise SettingError(f'"{text}" is not VAR=VALUE with VAR one of {" ".join(by_make)}')
    return by_make[var], value


def param_value(s: Setting, value: object) -> str:
    """A value as the guest's init reads it: lists and options with
    commas for blanks (a kernel parameter has none)."""
    if isinstance(value, tuple):
        return ','.join(map(str, value))
    return ','.join(str(value).split())


def guest_params(table: tuple[Setting, ...], values: dict[str, object],
                 domu: bool = False) -> tuple[str, ...]:
    """The xt_*= parameters of the settings' values: the guest's (read by
    guest/guest-init), or with domu those of dom0's command line that
    shape the domU (guest/dom0-init's xt_domu_*).  A setting given per
    config (the slops) is the config's to emit; an empty text, or a
    choice left at "default" (the domain's own), is left out."""
    out = []
    for s in table:
        if not s.guest.startswith('xt_') or s.guest.startswith('xt_domu_') != domu:
            continue
        text = param_value(s, values[s.key])
        if text and not (s.kind == 'choice' and text == DEFAULT):
            out.append(f'{s.guest}={text}')
    return tuple(out)


def markdown(table: tuple[Setting, ...]) -> str:
    """The table as README shows it."""
    rows = ['| make variable | default | values | reaches the guest as | selftest option (its default) | what |',
            '|---|---|---|---|---|---|']
    for s in table:
        prof = ', '.join(f'{p}: {v[s.key]}' for p, v in PROFILES.items() if s.key in v)
        default = f'`{s.default}`' if s.default else '(none)'
        if prof:
            default += f' ({prof})'
        st = f'`{s.selftest}` ({s.selftest_default})' if s.selftest else ''
        rows.append(f'| {s.make} | {default} | {s.describe()} | '
                    f'{"`" + s.guest + "=`" if s.guest else ""} | {st} | {s.help} |')
    return '\n'.join(rows) + '\n'


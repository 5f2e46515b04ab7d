# SPDX-License-Identifier: GPL-2.0
"""One boot of Xen with the guest kernel under QEMU, and QEMU's
acceleration.

The way a guest type boots is a frozen GuestParams, as kunit.py keeps a
frozen QemuArchParams per architecture in qemu_configs/: a PV dom0 gets
Xen's dom0_mem of QEMU's memory, one vCPU per QEMU CPU, the guest
kernel and the initramfs as multiboot modules.
"""

from __future__ import annotations

import dataclasses
import os
import re
import select
import shutil
import subprocess
import tempfile
import time
from typing import Callable, Iterator

from . import console, model, platforms


@dataclasses.dataclass(frozen=True)
class GuestParams:
    """How one guest type is booted."""
    name: str
    # QEMU's memory and Xen's dom0_mem (the guest's own).
    memory_mb: int
    dom0_mem: str
    # QEMU's CPU model; None: QEMU's default (qemu64 under TCG), enough
    # for a PV dom0.  Under KVM -cpu host, see KVM_ARGS.
    cpu_model: str | None
    # After the end marker: how long to keep reading the console (Xen
    # halting the machine ends it sooner).
    end_grace_s: float
    # After a panic or an early death: the lines that follow still tell.
    fail_grace_s: float
    # Before the guest's command line: what the dom0 kernel needs.
    dom0_args: tuple[str, ...] = ()
    # How often a quiet console is checked for QEMU having exited.
    poll_s: float = 1.0
    # The guest is a domU that dom0 (guest/dom0-init) starts with xl, as
    # xl's type = "<name>".
    domu: bool = False
    # Xen is booted by OVMF as an EFI application (xen.efi), not by QEMU's
    # multiboot loader; the machine is a q35 with an AMD IOMMU.
    efi: bool = False
    # More on Xen's command line.
    xen_args: tuple[str, ...] = ()
    # The domU's xl type ("pv", "pvh", "hvm"), when it is not the name.
    xl_type: str = ''

    @property
    def domu_type(self) -> str:
        return self.xl_type or self.name


# What Xen keeps of the machine's memory beside dom0's, MB: a domU gets at
# most memory_mb - dom0_mem - this.
XEN_RESERVE_MB = 128


def mb(size: str) -> int:
    """Xen's 512M or 1G in MB."""
    return int(size[:-1]) * (1024 if size.endswith('G') else 1)


GUEST_TYPES = {
    # The guest is dom0 itself.
    'pv': GuestParams(name='pv', memory_mb=1024, dom0_mem='512M', cpu_model=None,
                      end_grace_s=1.0, fail_grace_s=2.0),
    # A PV dom0 (guest/dom0-init, initramfs of mkinitramfs-dom0.sh)
    # starts the guest as a PV domU with xl: a domU, as the patch thread's
    # guest was, on the PV timer path, with no emulated SVM (the default
    # CPU), so it is as reliable under TCG as the PV dom0.
    'pv-domu': GuestParams(name='pv-domu', memory_mb=1024, dom0_mem='512M', cpu_model=None,
                           end_grace_s=2.0, fail_grace_s=2.0,
                           dom0_args=('kunit.enable=0',), domu=True, xl_type='pv'),
    # A PV dom0 (guest/dom0-init, initramfs of mkinitramfs-dom0.sh)
    # starts the guest as a PVH domU of 256 MB with xl.  Debian's Xen is
    # built without shadow paging, so a PVH domain needs HAP: QEMU's TCG
    # emulates AMD SVM with nested paging (qemu64,+svm,+npt; -cpu max
    # makes the PV dom0 fault at its first instructions).  dom0 runs no
    # KUnit (kunit.enable=0): the KTAP on the console is the domU's.
    'pvh': GuestParams(name='pvh', memory_mb=1536, dom0_mem='512M',
                       cpu_model='qemu64,+svm,+npt', end_grace_s=2.0, fail_grace_s=2.0,
                       dom0_args=('kunit.enable=0',), domu=True),
    # The same with an HVM domU: hvmloader, SeaBIOS and the device model
    # (qemu-system-xen's QEMU) in dom0; the guest's console is its PV
    # console, as a PVH guest's.  dom0 has 768 MB: QEMU 11.1's device
    # model asks for 384 MB at its start, which dom0's overcommit
    # heuristic refuses with 512 MB when a Debian kernel's initramfs
    # (its modules, the domU's kernel) fills a third of it.
    'hvm': GuestParams(name='hvm', memory_mb=1536, dom0_mem='768M',
                       cpu_model='qemu64,+svm,+npt', end_grace_s=2.0, fail_grace_s=2.0,
                       dom0_args=('kunit.enable=0',), domu=True),
    # The guest is a PVH dom0.  Xen 4.17 cannot build one from SeaBIOS's
    # ACPI tables (a revision-0 RSDP: it reads the XSDT; fixed in 4.18),
    # so OVMF boots xen.efi, and its RSDP is revision 2 with an XSDT.
    # A PVH hardware domain needs an IOMMU: QEMU's AMD IOMMU on q35.
    'pvh-dom0': GuestParams(name='pvh-dom0', memory_mb=1024, dom0_mem='512M',
                            cpu_model='qemu64,+svm,+npt', end_grace_s=1.0, fail_grace_s=2.0,
                            efi=True, xen_args=('dom0=pvh',)),
}

# A /dev/kvm does not mean KVM can run Xen: on some hosts QEMU aborts
# ("kvm_buf_set_msrs" assertion with -cpu host) or Xen faults at its first
# instructions.  So ACCEL=auto boots Xen once under KVM, with a dummy dom0
# module, and takes KVM only if Xen brings up its CPUs (it then panics for
# want of a dom0 kernel, within seconds even under TCG).
KVM_ARGS = ['-enable-kvm', '-cpu', 'host']
PROBE_SECONDS = 30
PROBE_OK = re.compile(r'\(XEN\) Brought up \d+ CPUs')
# Xen's line when the CPU it runs on has nested paging (EPT or NPT): the
# guest types with a cpu_model need it, and under KVM only a host with
# nested virtualization gives it.
PROBE_HAP = re.compile(r'\(XEN\) HVM: Hardware Assisted Paging \(HAP\) detected')
# QEMU's word that KVM cannot run this guest (Xen 4.17's rdsspq at boot on
# some hosts: "KVM internal error. Suberror: 1 ... emulation failure"):
# QEMU then stops the VM and waits, so the probe ends at this line.
PROBE_KVM_ERROR = re.compile(r'KVM internal error|kvm run failed|KVM: entry failed')


class AccelError(Exception):
    pass


def read_lines(proc: subprocess.Popen[bytes], start: float, poll_s: float,
               stop: Callable[[float], bool]) -> Iterator[tuple[str, float]]:
    """The lines of proc's output as they come, each with the seconds since
    start.  Ends at end of output, when QEMU has exited while quiet, or when
    stop(seconds) says so, which is asked before every read."""
    def split(raw: bytes) -> Iterator[tuple[str, float]]:
        t = time.monotonic() - start
        for line in console.serial_lines(raw.decode('utf-8', 'replace').rstrip('\r')):
            yield line, t

    buf = b''
    assert proc.stdout is not None
    while not stop(time.monotonic() - start):
        ready, _, _ = select.select([proc.stdout], [], [], poll_s)
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
            yield from split(raw)
    if buf:
        yield from split(buf)


def kvm_probe(xen: str, vcpus: int, qemu: str = 'qemu-system-x86_64') -> tuple[bool, str, bool]:
    """Boot Xen under KVM until it has brought up its CPUs: (ok, why, hap),
    hap: Xen found nested paging, so HVM and PVH domains can run."""
    seen = {'ok': False, 'hap': False, 'kvm_error': '', 'last': ''}

    def feed(line: str, t: float) -> None:
        seen['last'] = line.strip() or seen['last']
        seen['ok'] = seen['ok'] or bool(PROBE_OK.search(line))
        seen['hap'] = seen['hap'] or bool(PROBE_HAP.search(line))
        if not seen['ok'] and PROBE_KVM_ERROR.search(line):
            seen['kvm_error'] = line.strip()

    with tempfile.TemporaryDirectory() as tmp:
        dummy = os.path.join(tmp, 'dummy-dom0')
        with open(dummy, 'wb') as f:
            f.write(bytes(4096))
        cmd = [qemu, *KVM_ARGS, '-kernel', xen,
               '-append', 'console=com1 noreboot', '-initrd', dummy, '-m', '256',
               '-smp', str(vcpus), '-nographic', '-serial', 'stdio', '-monitor', 'none',
               '-no-reboot']
        try:
            rc, secs = run_qemu(cmd, 0.2, feed, lambda t: bool(
                seen['ok'] or seen['kvm_error'] or t >= PROBE_SECONDS))
        except OSError as e:
            return False, f'cannot run QEMU: {e.strerror}', False
    ok, hap, last = bool(seen['ok']), bool(seen['hap']), str(seen['last'])
    if ok:
        return True, (f'Xen brought up its CPUs under KVM in {secs:.1f} s, '
                      f'{"with" if hap else "without"} HAP'), hap
    if seen['kvm_error']:
        return False, f'QEMU stopped the VM after {secs:.1f} s: {str(seen["kvm_error"])[:160]}', False
    if rc != -9:
        return False, (f'QEMU exited {rc} after {secs:.1f} s: '
                       f'{last[-160:] or "no output"}'), False
    return False, (f'Xen did not bring up its CPUs under KVM in {PROBE_SECONDS} s'
                   f' (last line: {last[-120:] or "none"})'), False


def choose_accel(mode: str, xen: str, vcpus: int, need_hap: bool = False,
                 qemu: str = 'qemu-system-x86_64') -> tuple[list[str], str, str]:
    """ACCEL=auto|kvm|tcg -> (QEMU arguments, 'kvm' or 'tcg', why).
    need_hap: the guest type runs HVM or PVH domains, which need Xen to
    find nested paging.  AccelError when ACCEL=kvm and KVM cannot."""
    if mode == 'tcg':
        return [], 'tcg', 'ACCEL=tcg'
    dev = os.environ.get('XT_KVM_DEV', '/dev/kvm')
    ok, hap = False, False
    if not os.path.exists(dev):
        ok, why, hap = False, f'{dev} missing', False
    elif not os.access(dev, os.R_OK | os.W_OK):
        ok, why, hap = False, f'{dev} not readable and writable', False
    else:
        ok, why, hap = kvm_probe(xen, vcpus, qemu)
    if ok and need_hap and not hap:
        ok, why = False, why + ' (HVM and PVH domains need it)'
    if ok:
        return KVM_ARGS, 'kvm', f'ACCEL={mode}: {why}'
    if mode == 'kvm':
        raise AccelError(f'ACCEL=kvm, but KVM cannot run Xen here: {why}')
    return [], 'tcg', f'ACCEL=auto fell back to TCG: {why}'


@dataclasses.dataclass(frozen=True)
class Machine:
    """What every boot of a run shares."""
    guest: GuestParams
    xen: str
    kernel: str
    initrd: str
    vcpus: int
    timeout: int
    accel_args: tuple[str, ...] = ()
    taskset: str = ''
    # dom0's xt_domu_*= that shape a domU (settings.guest_params).
    domu_params: tuple[str, ...] = ()
    # The platform (platforms.py): QEMU's binary, the EFI Xen and the
    # firmware a PVH dom0 boots from, and its name for reports.
    qemu: str = 'qemu-system-x86_64'
    xen_efi: str = platforms.PLATFORMS['4.17'].xen_efi
    ovmf: str = platforms.OVMF
    platform: str = ''


def xen_cmdline(m: Machine, xen_slop: int | None) -> str:
    """Xen's command line: its console, dom0's memory and vCPUs, and
    timer_slop= unless xen_slop is None (Xen's default)."""
    cmd = ['console=com1', f'dom0_mem={m.guest.dom0_mem}', f'dom0_max_vcpus={m.vcpus}',
           'noreboot', *m.guest.xen_args]
    if m.guest.domu:
        # A PVH or HVM domU's early console (port 0xE9, dom0-init's
        # earlyprintk=xen) is Xen's guest debug level.
        cmd.append('guest_loglvl=all')
    if xen_slop is not None:
        cmd.append(f'timer_slop={xen_slop}')
    return ' '.join(cmd)


def kernel_cmdline(m: Machine, guest_cmdline: str | None) -> str:
    """The command line of the kernel Xen boots as dom0.  The guest is
    dom0: what dom0 needs, then the guest's.  The guest is a domU: dom0
    takes none of the guest's parameters (a bad xen_timer_slop= would
    break dom0 before any domU starts), only the domU's type and shape,
    and guest_cmdline (None: DOMUS_FILE lists the domUs) as
    xt_domu.WORD, which guest/dom0-init gives its one domU."""
    if not m.guest.domu:
        return ' '.join([*m.guest.dom0_args, guest_cmdline or ''])
    words = [] if guest_cmdline is None else [
        f'xt_domu.{w}' for w in guest_cmdline.split() if w != DOMU_CONSOLE]
    return ' '.join([*m.guest.dom0_args, f'xt_domu_type={m.guest.domu_type}',
                     *m.domu_params, DOMU_CONSOLE, *words])


# dom0's console, and the one dom0-init gives every domU.
DOMU_CONSOLE = 'console=hvc0'


def cpu_model(m: Machine) -> str | None:
    """QEMU's -cpu, unless KVM's accel_args give theirs."""
    return m.guest.cpu_model if not m.accel_args else None


def qemu_args(m: Machine) -> list[str]:
    """QEMU's options of the machine: its CPU, memory and vCPUs."""
    cpu = cpu_model(m)
    return [*(['-cpu', cpu] if cpu else []), '-m', str(m.guest.memory_mb), '-smp', str(m.vcpus),
            '-no-reboot']


def qemu_cmd(m: Machine, boot: list[str]) -> list[str]:
    """QEMU's command line around boot (how Xen is loaded)."""
    pin = ['taskset', '-c', m.taskset] if m.taskset else []
    return [*pin, m.qemu, *m.accel_args, *boot, *qemu_args(m), '-nographic',
            '-serial', 'stdio', '-monitor', 'none']


def multiboot(m: Machine, xen_cmd: str, cmdline: str, initrd: str) -> list[str]:
    """QEMU's multiboot loading of Xen, the kernel and its initramfs."""
    # QEMU splits -initrd at commas: one of the command line is written as two.
    return ['-kernel', m.xen, '-append', xen_cmd,
            '-initrd', f'{m.kernel} {cmdline.replace(",", ",,")},{initrd}']


def run_qemu(cmd: list[str], poll_s: float, feed: Callable[[str, float], None],
             stop: Callable[[float], bool]) -> tuple[int, float]:
    """Run QEMU, feed(line, seconds) each console line, until stop(seconds)
    says so or QEMU exits; then kill it.  Returns (exit code, seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    try:
        for line, t in read_lines(proc, start, poll_s, stop):
            feed(line, t)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stdout:
            proc.stdout.close()
    return proc.returncode, time.monotonic() - start


class Watched:
    """A console followed by a Watcher (self.watch): its lines, its status
    ('ok', why it ended, None while it runs), how it ended, its stages."""
    watch: console.Watcher
    guest_cmdline: str
    seconds: float

    @property
    def lines(self) -> list[str]:
        return self.watch.lines

    @property
    def status(self) -> str | None:
        return self.watch.status

    @property
    def ending(self) -> model.Ending:
        """How it ended; only once it has (finish())."""
        assert self.watch.ending is not None
        return self.watch.ending

    def timing(self) -> list[tuple[str, float]]:
        return self.watch.timing()

    def tail(self, n: int = 15) -> list[str]:
        return self.lines[-n:]


class Boot(Watched):
    """One QEMU run with Xen's and the guest's command lines, its console,
    and what it ended with: the guest is dom0 (pv, pvh-dom0).  A domU
    type boots as a GroupBoot."""

    def __init__(self, m: Machine, xen_slop: int | None, guest_cmdline: str):
        self.m = m
        self.xen_cmd = xen_cmd = xen_cmdline(m, xen_slop)
        self.guest_cmdline = guest_cmdline
        kernel_cmd = kernel_cmdline(m, guest_cmdline)
        self.efi_dir: str | None = None
        if m.guest.efi:
            boot = ['-machine', 'q35', '-device', 'amd-iommu', '-bios', m.ovmf,
                    '-drive', f'file=fat:{self.efi_tree(xen_cmd, kernel_cmd)},'
                    'format=raw,if=ide,snapshot=on']
        else:
            boot = multiboot(m, xen_cmd, kernel_cmd, m.initrd)
        self.cmd = qemu_cmd(m, boot)
        self.watch = console.Watcher(m.guest.end_grace_s, m.guest.fail_grace_s,
                                     domu=m.guest.domu, platform=m.platform)
        self.seconds = 0.0

    def efi_tree(self, xen_cmd: str, guest_cmdline: str) -> str:
        """The directory QEMU shows OVMF as a FAT disk: xen.efi as the
        removable-media boot loader, with the configuration it reads
        beside it (its own name, .cfg), the kernel and the initramfs."""
        self.efi_dir = tempfile.mkdtemp(prefix='xt-efi-')
        d = os.path.join(self.efi_dir, 'EFI', 'BOOT')
        os.makedirs(d)
        shutil.copy(self.m.xen_efi, os.path.join(d, 'BOOTX64.EFI'))
        shutil.copy(self.m.kernel, os.path.join(d, 'vmlinuz'))
        shutil.copy(self.m.initrd, os.path.join(d, 'initrd'))
        with open(os.path.join(d, 'BOOTX64.cfg'), 'w') as f:
            f.write(f'[global]\ndefault=xen\n\n[xen]\noptions={xen_cmd}\n'
                    f'kernel=vmlinuz {guest_cmdline}\nramdisk=initrd\n')
        return self.efi_dir

    def run(self, progress: Callable[[str], None]) -> bool:
        """Boot, following the console; progress(text) on each new stage."""
        timed_out = False

        def feed(line: str, t: float) -> None:
            stage = self.watch.feed(line, t)
            if stage:
                progress(f'{stage} ({t:.0f} s)')

        def stop(t: float) -> bool:
            nonlocal timed_out
            timed_out = not self.watch.should_stop(t) and t > self.m.timeout
            return timed_out or self.watch.should_stop(t)

        try:
            rc, self.seconds = run_qemu(self.cmd, self.m.guest.poll_s, feed, stop)
        finally:
            if self.efi_dir:
                shutil.rmtree(self.efi_dir, ignore_errors=True)
        self.watch.finish(self.seconds, timeout=self.m.timeout if timed_out and
                          self.watch.status is None else None, qemu_rc=rc)
        return self.status == 'ok'


# The file of dom0's initramfs that lists its domUs (guest/dom0-init):
# one guest command line a line, booted in turn.
DOMUS_FILE = 'etc/xt-domus'
# After a domU ended, dom0 starts the next within this (xl destroy, xl
# create: seconds under TCG) or the group is over.
NEXT_DOMU_S = 60.0
# After Xen or dom0 died: the lines that still tell.
GROUP_DEAD_GRACE_S = 2.0
# dom0-init ends a domU at its timeout (xt_domu_timeout=) and starts the
# next; the harness ends the boot only if dom0 has not within this more
# (dom0's watchdog looks every 5 s; xl destroy under a loaded host).
DOM0_TIMEOUT_GRACE_S = 60.0


def newc_archive(files: dict[str, bytes]) -> bytes:
    """A cpio archive (newc, as the kernel unpacks it) of {path: bytes}."""
    out = b''
    for ino, (name, data) in enumerate([*files.items(), ('TRAILER!!!', b'')], 1):
        mode, nlink = (0o100644, 1) if name != 'TRAILER!!!' else (0, 1)
        fields = [ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0]
        hdr = b'070701' + b''.join(b'%08X' % v for v in fields) + name.encode() + b'\0'
        out += hdr + bytes(-len(hdr) % 4) + data + bytes(-len(data) % 4)
    return out + bytes(-len(out) % 512)


class Part(Watched):
    """One domU of a GroupBoot, seen as a Boot is seen: its console (the
    Xen and dom0 lines the group's domUs share, then its own), its
    Watcher, its own seconds and stages.  reached: its domU started, or
    the shared part ended the group before any did; else it never ran
    (an earlier domU hung the group, QEMU died) and has no result."""

    def __init__(self, m: Machine, guest_cmdline: str):
        self.guest_cmdline = guest_cmdline
        self.watch = console.Watcher(m.guest.end_grace_s, m.guest.fail_grace_s, domu=True,
                                     platform=m.platform)
        self.start = 0.0
        self.seconds = 0.0
        self.reached = False

    def begin(self, shared: list[tuple[str, float]], t: float) -> None:
        """Its domU starts at t: the shared lines first."""
        for line, lt in shared:
            self.watch.feed(line, lt)
        self.start, self.reached = t, True

    def timing(self) -> list[tuple[str, float]]:
        """Its own stages, from its domU's start."""
        out = self.watch.timing()
        names = [n for n, _ in out]
        return out[names.index('domU'):] if 'domU' in names else out


class GroupBoot:
    """One QEMU, Xen and dom0 boot that runs guest_cmdlines as domUs one
    after the other (guest/dom0-init, which reads them from DOMUS_FILE,
    appended to dom0's initramfs as a second cpio archive).  parts: a Part
    per command line; shared_seconds, shared_timing: Xen's and dom0's
    time before the first domU."""

    def __init__(self, m: Machine, xen_slop: int | None, guest_cmdlines: list[str]):
        if not m.guest.domu:
            raise ValueError(f'guest type {m.guest.name} is dom0 itself: no domUs')
        self.m = m
        self.xen_cmd = xen_cmdline(m, xen_slop)
        self.dom0_cmdline = kernel_cmdline(m, None)
        self.parts = [Part(m, c) for c in guest_cmdlines]
        self.shared: list[tuple[str, float]] = []
        self.shared_seconds = 0.0
        self.shared_timing: list[tuple[str, float]] = []
        self.lines: list[str] = []
        self.seconds = 0.0
        # What run() follows: the shared part's Watcher, the part whose
        # domU runs (-1 before the first), when Xen or dom0 said it died,
        # whether the current part ran out of time, when its domU ended.
        self.shared_watch = console.Watcher(m.guest.end_grace_s, m.guest.fail_grace_s,
                                            domu=True, platform=m.platform)
        self.cur = -1
        self.dead: float | None = None
        self.timed_out = False
        self.ended_at = 0.0
        self.progress: Callable[[int, str], None] = lambda i, text: None
        # Removed when run() ends, as a Boot's EFI tree.
        self.tmp = tempfile.mkdtemp(prefix='xt-group-')
        try:
            self.cmd = qemu_cmd(m, multiboot(m, self.xen_cmd, self.dom0_cmdline, self.initrd()))
        except BaseException:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise

    def initrd(self) -> str:
        """dom0's initramfs with the domUs' command lines appended, in
        self.tmp."""
        path = os.path.join(self.tmp, 'initrd')
        shutil.copyfile(self.m.initrd, path)
        text = ''.join(p.guest_cmdline + '\n' for p in self.parts)
        with open(path, 'ab') as f:
            f.write(bytes(-f.tell() % 4) + newc_archive({DOMUS_FILE: text.encode()}))
        return path

    def run(self, progress: Callable[[int, str], None]) -> None:
        """Boot, following the console; progress(index of the part or -1
        for the shared part, text) on each new stage."""
        self.progress = progress
        try:
            rc, self.seconds = run_qemu(self.cmd, self.m.guest.poll_s, self.feed, self.stop)
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.finish(rc)

    def feed(self, line: str, t: float) -> None:
        """A console line at t: a domU's start moves to the next part; the
        line goes to the shared part's Watcher or the current part's."""
        self.lines.append(line)
        # The boot so far; run() sets QEMU's whole time when it exits.
        self.seconds = t
        if (line.startswith(console.DOMU_START) and self.cur + 1 < len(self.parts)
                and self.dead is None):
            self.cur += 1
            if self.cur == 0:
                self.shared_seconds = t
                self.shared_timing = self.shared_watch.timing(until=t)
            self.parts[self.cur].begin(self.shared, t)
            if self.cur > 0:
                prev = self.parts[self.cur - 1]
                prev.seconds = t - prev.start
        if self.cur < 0:
            self.shared.append((line, t))
            stage = self.shared_watch.feed(line, t)
        else:
            p = self.parts[self.cur]
            had_ending = p.watch.ending is not None
            stage = p.watch.feed(line, t)
            if not had_ending and p.watch.ending is not None:
                self.ended_at = t
        if (self.dead is None and console.guest_line(line)
                and console.DOM0_GONE_RE.search(line)):
            self.dead = t
        if stage:
            self.progress(self.cur, f'{stage} ({t:.0f} s)')

    def stop(self, t: float) -> bool:
        """Whether QEMU should stop at t: Xen or dom0 died; the shared part
        ended or ran out of time; the current domU ran out of time and dom0
        did not end it; the last domU ended (another one: the next did not
        start within NEXT_DOMU_S)."""
        if self.dead is not None and t >= self.dead + GROUP_DEAD_GRACE_S:
            return True
        if self.cur < 0:
            if self.shared_watch.should_stop(t):
                return True
            self.timed_out = t > self.m.timeout
            return self.timed_out
        p = self.parts[self.cur]
        if p.watch.ending is not None:
            if self.cur == len(self.parts) - 1:
                return p.watch.should_stop(t)
            return t > self.ended_at + NEXT_DOMU_S
        self.timed_out = t - p.start > self.m.timeout + DOM0_TIMEOUT_GRACE_S
        return self.timed_out

    def finish(self, rc: int | None) -> None:
        """Each part's ending once QEMU exited with rc: what ended the
        shared part ends every part if no domU started; else the current
        part ends with QEMU, and an earlier one that had not ended was cut
        off by dom0."""
        timeout = self.m.timeout if self.timed_out else None
        if self.cur < 0:
            self.shared_seconds = self.seconds
            self.shared_timing = self.shared_watch.timing()
            for p in self.parts:
                p.begin(self.shared, 0.0)
                p.watch.finish(self.seconds, timeout=timeout
                               if self.shared_watch.status is None else None, qemu_rc=rc)
                p.seconds = self.seconds
            return
        p = self.parts[self.cur]
        p.seconds = self.seconds - p.start
        p.watch.finish(self.seconds, timeout=timeout if p.watch.status is None else None,
                       qemu_rc=rc)
        self.close_earlier()

    def close_earlier(self) -> None:
        """End each part before the current one: dom0 started the next
        domU, so its console is whole (and if its domU had not ended, dom0
        cut it off)."""
        for q in self.parts[:self.cur]:
            if q.watch.ending is None:
                q.watch.ending = model.Ending(
                    model.Outcome.INFRA, 'dom0 started the next domU before this one '
                    'ended (dom0-init)')
            q.watch.marks.append(('end', q.start + q.seconds))

    def settled(self) -> list[Part]:
        """After a stop (SIGTERM while QEMU ran): the parts whose domU was
        over, the next one having started, ended as finish() ends them.  The
        current part, and those after it, have no result."""
        self.close_earlier()
        return self.parts[:max(self.cur, 0)]

# SPDX-License-Identifier: GPL-2.0
"""The selftests' results judged against the platform they ran on.

The selftests report a plain verdict and the figures it rests on (their
XT_* records).  Under an emulator whose host stalls the guest, a few of
their checks can fail for the platform's sake; this module says which
results the platform explains, from those figures, so that the harness
calls such a boot INFRA (the emulator's, booted again) and never FAIL,
while a kernel whose slop is not in effect still fails.  What led to
each rule is in RESULTS.md ("Host noise and false failures").
"""

from __future__ import annotations

from .model import LATENCY_TEST, PROGRAM_TEST, ConsoleFacts, KtapResult, Status, XtChunk

# A skip that is no one's fault: the Xen clockevent is not what the guest
# uses (an HVM guest without a vector callback keeps its local APIC timer).
ALLOWED_SKIPS = ('the Xen clockevent is not in use',)
# Skips of the program test that leave its question to the platform.
PLATFORM_SKIPS = ('the probes missed hits', 'no near expiry or no fire to judge')

# Early fires a platform makes, when they are all that failed: up to one
# in EARLY_PLATFORM of the fires judged (a kernel whose slop is not in
# effect makes nearly every short expiry fire early: hundreds to tens of
# thousands), one in EARLY_PLATFORM_STUCK where the guest's clock was seen
# standing still (an emulated TSC fallen behind Xen's time).
EARLY_PLATFORM = 50
EARLY_PLATFORM_STUCK = 10

# The latency test's checks, and how many times the one-shot sleeps' figure
# each limit is: also how far apart the chunks' one-shot sleeps may be
# before the platform, not the kernel, is what they measure.
LATENCY_FACTORS = {'avg': 2, 'p99': 4, 'spikes': 8}


def platform_reason(r: KtapResult, facts: ConsoleFacts) -> str | None:
    """Why the platform, not the kernel, explains result r (a FAIL or a
    SKIP), or None."""
    if r.test == PROGRAM_TEST and r.status is Status.SKIP and r.reason in PLATFORM_SKIPS:
        return r.reason
    if r.status is not Status.FAIL:
        return None
    if r.test == PROGRAM_TEST:
        return _program(facts)
    if r.test == LATENCY_TEST:
        return _latency(r.name, facts.chunks)
    return None


def kernels_skip(r: KtapResult) -> bool:
    """A skip under Xen that is the kernel's: the program test's for want
    of what it needs (kprobe events), or a whole test skipped for anything
    but the Xen clockevent not being in use."""
    if r.status is not Status.SKIP or r.reason in ALLOWED_SKIPS:
        return False
    if r.test == PROGRAM_TEST:
        return r.reason not in PLATFORM_SKIPS
    return not r.name


def _program(facts: ConsoleFacts) -> str | None:
    """Early fires, alone and few, are the platform's: the device's calls
    right and the quickest forced event not late."""
    p = facts.prog_check
    if p is None or p.below_slop or p.short_not_slop or not p.early:
        return None
    if p.late_limit_ns and p.forced_min_ns > p.late_limit_ns:
        return None
    bound = EARLY_PLATFORM_STUCK if p.stuck else EARLY_PLATFORM
    if p.early * bound > p.judged:
        return None
    return (f'{p.early} early fires of {p.judged} judged, the calls right '
            f'(at most 1 in {bound}{" beside a clock that stood still" if p.stuck else ""})')


def _latency(name: str, chunks: list[XtChunk]) -> str | None:
    """A limit exceeded is the kernel's where most chunks exceed the limit
    their own one-shot sleeps set, and the chunks' one-shot medians agree
    within the limit's factor; else a burst, or a host that starved the
    guest throughout, is what it measured."""
    us, _, kind = name.removeprefix('interval_').partition('us_')
    if kind not in LATENCY_FACTORS or not us.isdigit():
        return None
    mine = [c for c in chunks if c.interval_us == int(us)]
    if not mine:
        return None
    over = sum(c.value(kind) > c.limit(kind) for c in mine)
    medians = [c.ref_p50_ns for c in mine if c.ref_p50_ns > 0]
    spread = max(medians) / min(medians) if medians else 1.0
    factor = LATENCY_FACTORS[kind]
    if 2 * over > len(mine) and spread <= factor:
        return None
    return (f'{kind} over its limit in {over} of {len(mine)} chunks, their one-shot sleeps '
            f'{spread:.1f} times apart (the kernel\'s: most chunks, at most {factor} times)')

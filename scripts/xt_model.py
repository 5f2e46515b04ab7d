# SPDX-License-Identifier: GPL-2.0
"""The harness's result model: what a boot ended with, whose fault it was,
and the tries of one config.

A boot has one of three outcomes, as LAVA has Incomplete beside Fail:

  PASS   the guest reached its end marker and every check passed;
  FAIL   the kernel's fault: a check failed, or the guest kernel panicked,
         oopsed or hung after it started;
  INFRA  the emulator's, Xen's or the firmware's: the boot broke before
         the tests finished with no guest panic (a Xen triple fault of an
         HVM/PVH vCPU, a guest that rebooted, QEMU or Xen dying, the
         toolstack failing to start the domU, a timeout before the guest
         kernel started).

An INFRA boot is tried again (--retries); a FAIL never is, so a real
kernel crash cannot be retried into a pass.
"""

import dataclasses
import enum


class Outcome(enum.Enum):
    PASS = 'pass'
    FAIL = 'fail'
    INFRA = 'infra'

    def __str__(self):
        return self.value


# The harness's exit status: any FAIL wins over INFRA (the kernel's fault
# is the news); INFRA alone has its own status, so that CI can tell "the
# emulator broke" from "the kernel broke".
EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_INFRA = 0, 1, 2, 3


@dataclasses.dataclass(frozen=True)
class Ending:
    """How a console ended: reached is True when the guest printed its end
    marker (the checks then decide), else outcome and reason say why not."""
    outcome: Outcome
    reason: str
    reached: bool = False


@dataclasses.dataclass
class Try:
    """One boot of a config: the console it left and how it ended."""
    outcome: Outcome
    reason: str
    seconds: float
    console: str

    def as_json(self):
        return {'outcome': str(self.outcome), 'reason': self.reason,
                'seconds': round(self.seconds, 1), 'console': self.console}


def run_exit(outcomes):
    """The exit status of a run whose boots (after their retries) ended so."""
    outcomes = list(outcomes)
    if Outcome.FAIL in outcomes:
        return EXIT_FAIL
    if Outcome.INFRA in outcomes:
        return EXIT_INFRA
    return EXIT_PASS

# SPDX-License-Identifier: GPL-2.0
"""The xen_timer host harness: boots Xen with a guest kernel under QEMU,
runs the suite inside, judges every boot and reports.  Run it from the
repository's root as python3 -m harness COMMAND (README.md here says
where to change what).

Its modules, each with one job, the command line first:

  __main__.py       the command line: argparse, the tool commands, main()
                    and the signals that stop a run
  request.py        a run command's arguments turned into a checked
                    Request (SETTINGS, KernelSet, the files it needs)
  run.py            the run: configs, boots and their retries, one Xen
                    boot for several domUs, the reports, the exit code
  mutants.py        misses: each mutant of scripts/mutant.sh built and
                    booted, every boot of it flagged
  lava.py           the configs as LAVA jobs (lava), their logs read back
                    as boots (merge)
  lab.py            those jobs through a LAVA server's REST API (lab):
                    submitted, followed, resubmitted, their logs fetched
  settings.py       every setting once: make variable, default, range,
                    guest parameter, the make targets' profiles
  platforms.py      each Xen version and the QEMU that runs it
  model.py          the typed data: configs, console facts, results, the
                    outcomes and exit statuses, die()
  boot.py           one QEMU + Xen boot, the guest types (GUEST_TYPES),
                    the KVM probe
  console.py        a console read: when a boot is over and how, and what
                    it says (pure parsing)
  verdict.py        a boot judged: its console's facts and every KTAP
                    stream through the tree's kunit.py
  judge.py          which failed checks the platform explains (the
                    selftests' records against the platform's rules)
  report.py         tables, plot, JSON and the run's KTAP
  kunit_results.py  kunit.py's JSON and KTAP checks (kunit-check,
                    kunit-cases, ktap-check)
  lkft.py           the names CI bots (LKFT, KernelCI) record (lkft-check)
  prepare.py        what a make target boots, made before it: the
                    platform roots, each Xen's ELF, dom0's initramfs
"""

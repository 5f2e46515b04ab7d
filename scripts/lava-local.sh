#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lava-local.sh TEMPLATES JOBS_DIR [JOB...]: run LAVA jobs of
# 'python3 -m harness lava' here with lava-run, as a lab's worker would:
# each job's device rendered from lava-server's device-types TEMPLATES
# (qemu.jinja2) with the device dictionary beside JOBS_DIR and the job's
# context, as a server renders it; each log (lava-run's output) to
# JOBS_DIR/../logs/, named as the job.  JOB: job file names in JOBS_DIR
# (default: all).  Exit 0 when every job ran (its verdicts are those of
# python3 -m harness merge), 1 when lava-run could not run one, 2 on
# bad arguments.
set -uo pipefail

die() { echo "lava-local: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: lava-local.sh TEMPLATES JOBS_DIR [JOB...]"
templates=$1 jobs=$2
shift 2
[ -f "$templates/qemu.jinja2" ] || die "$templates has no qemu.jinja2 (lava-server's device-types)"
[ -d "$jobs" ] || die "$jobs is not a directory of LAVA jobs"
command -v lava-run >/dev/null || die "lava-run missing: run make deps (lava-dispatcher)"
top=$(cd "$jobs/.." && pwd)
[ -f "$top/device.jinja2" ] || die "$top/device.jinja2 missing: not python3 -m harness lava's output"
logs=$top/logs work=$top/lava-run
mkdir -p "$logs" "$work"
if [ $# = 0 ]; then
	for f in "$jobs"/*.yaml; do
		[ -f "$f" ] && set -- "$@" "${f##*/}"
	done
	[ $# -gt 0 ] || die "$jobs has no jobs"
fi
rc=0 i=0
for job in "$@"; do
	i=$((i + 1))
	stem=${job%.yaml}
	[ -f "$jobs/$job" ] || die "$jobs/$job does not exist"
	dev=$work/$stem-device.yaml
	# The server renders the device dictionary with the job's context.
	/usr/bin/python3 - "$templates" "$top/device.jinja2" "$jobs/$job" "$dev" <<'PY' ||
import sys, jinja2, yaml
templates, device, job, out = sys.argv[1:]
env = jinja2.Environment(loader=jinja2.FileSystemLoader([templates]), trim_blocks=True,
                         autoescape=False)
ctx = yaml.safe_load(open(job)).get('context', {})
with open(device) as f:
    text = env.from_string(f.read()).render(**ctx)
open(out, 'w').write(text)
PY
		{ echo "lava-local: [$i/$#] $stem: the device did not render"; rc=1; continue; }
	echo "== lava-run [$i/$#] $stem"
	t0=$(date +%s)
	rm -rf "${work:?}/$stem"
	lava-run --job-id "$i" --output-dir "$work/$stem" --device "$dev" "$jobs/$job" \
		>"$logs/$stem.log" 2>&1
	result=$(sed -n 's/^result: //p' "$work/$stem/result.yaml" 2>/dev/null)
	echo "== lava-run [$i/$#] $stem: job ${result:-did not end} in $(($(date +%s) - t0)) s, log $logs/$stem.log"
	[ -n "$result" ] || rc=1
done
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# apt-suites.sh: let apt reach Debian's trixie-backports suite (Linux 7.3:
# its source and prebuilt images) beside this machine's bookworm, from
# the Debian archive this machine's apt already uses, at pin priority 1:
# apt then takes from it only what is asked for by name
# (apt-get install PKG/trixie-backports, apt-get download PKG=VERSION),
# and never upgrades a package of the machine.  Idempotent; root only.
set -euo pipefail

list=/etc/apt/sources.list.d/xen-timer.sources
pin=/etc/apt/preferences.d/xen-timer
[ -f "$list" ] && [ -f "$pin" ] && exit 0
[ "$(id -u)" = 0 ] || { echo "apt-suites: run as root to add Debian's trixie-backports suite" >&2; exit 1; }
# The archive this machine's bookworm comes from.
uri=$( (cat /etc/apt/sources.list.d/*.sources 2>/dev/null || true) |
	awk '/^URIs:/ {u = $2} /^Suites:/ && / bookworm( |$)/ {print u; exit}')
[ -n "$uri" ] || uri=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$uri" ] || { echo "apt-suites: no Debian bookworm archive in apt's sources to take trixie-backports from" >&2; exit 1; }
cat >"$pin" <<PIN
# xen_timer (scripts/apt-suites.sh): only what is asked for by name.
Package: *
Pin: release n=trixie-backports
Pin-Priority: 1
PIN
cat >"$list" <<LIST
# xen_timer (scripts/apt-suites.sh): Linux 7.3, at pin priority 1 ($pin).
Types: deb
URIs: $uri
Suites: trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
LIST
echo "apt-suites: added Debian's trixie-backports suite ($list, pin priority 1)"
apt-get update -qq >/dev/null

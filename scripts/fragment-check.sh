#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fragment-check.sh FRAGMENT CONFIG
#
# Fails, naming each, when an option of the configuration FRAGMENT did not
# survive into CONFIG (the .config olddefconfig made of tinyconfig plus
# the fragment): CONFIG_X=v must be there as is, "# CONFIG_X is not set"
# must not be set.  A dropped option means a missing dependency, and a
# kernel other than the one asked for.
set -uo pipefail

frag=$1 config=$2
bad=0
while read -r line; do
	case $line in
	CONFIG_*=*) grep -qx "$line" "$config" ;;
	"# CONFIG_"*" is not set") name=${line#\# } && ! grep -q "^${name%% *}=" "$config" ;;
	*) continue ;;
	esac || {
		echo "fragment-check: '$line' of $(basename "$frag") is not so in $config (dropped by olddefconfig: a missing dependency)" >&2
		bad=1
	}
done <"$frag"
exit $bad

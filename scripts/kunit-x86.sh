#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit-x86.sh KDIR BUILD_DIR LOG_PREFIX MIN_CASES MAX_SKIPS KCC JOBS
#
# The Xen KUnit suite as its maintainers run it, once per boot below:
#   kunit.py run --kunitconfig=arch/x86/xen --arch=x86_64 xen_timer_slop
# on the x86_64 kernel of 'make kernel' (BUILD_DIR): its .config holds
# every option of arch/x86/xen/.kunitconfig and of kunit.py's x86_64
# QEMU, and kunit.py finds its record of that kunitconfig there, so it
# keeps the configuration and builds nothing new.  Each boot is one
# kernel command line; the suite expects what the kernel made of it.
set -euo pipefail

kdir=$(realpath "$1") bdir=$(realpath "$2") log=$(realpath -m "$3") min=$4 maxskip=$5 kcc=$6 jobs=$7
here=$(cd "$(dirname "$0")" && pwd)
boots=(
	'xen_timer_slop=5000'
	'xen_timer_slop=5G'
	'xen_timer_slop=200K xen_timer_slop=abc'
	# The kernel's parser takes the quotes off, and hands what follows
	# "--" to init.
	'xen_timer_slop="4096" -- xen_timer_slop=7'
)

# kunit.py's record of the kunitconfig it configured BUILD_DIR for
# (last_used_kunitconfig): its QEMU's options and the suite's.  Should
# kunit.py still find the configuration not to its liking, it would make
# a default one in its place and build that: refused here instead.
frag=$kdir/arch/x86/xen/.kunitconfig
python3 - "$kdir/tools/testing/kunit" "$bdir" "$frag" <<'PY' || exit 1
import sys
sys.path.insert(0, sys.argv[1])
import kunit_config, kunit_kernel
tree = kunit_kernel.LinuxSourceTree(sys.argv[2], kunitconfig_paths=[sys.argv[3]], arch='x86_64')
want = tree._ops.make_arch_config(tree._kconfig)
have = kunit_config.parse_file(kunit_kernel.get_kconfig_path(sys.argv[2]))
missing = [f'CONFIG_{n}={v}' for n, v in want._entries.items() if have._entries.get(n) != v]
if missing:
    sys.exit(f'kunit-x86: {sys.argv[2]}/.config lacks {" ".join(missing)}: '
             f'configs/xen-guest.config must hold {sys.argv[3]}')
want.write_to_file(kunit_kernel.get_old_kunitconfig_path(sys.argv[2]))
PY

# kunit.py of 7.x asks QEMU for KVM first, and a /dev/kvm that opens but
# cannot run the guest makes QEMU abort and kunit.py wait out its
# timeout: unless ACCEL=kvm, QEMU runs through scripts/tcg/.
[ "${ACCEL:-auto}" = kvm ] || PATH=$here/tcg:$PATH
for i in "${!boots[@]}"; do
	args=${boots[$i]}
	echo "== kunit-x86 [$((i + 1))/${#boots[@]}]: $args"
	# kunit.py puts its own parameters (kunit.enable=1, the console)
	# after --kernel_args: after a "--" they would be init's.  Such a
	# boot gives QEMU the whole command line instead.
	case " $args " in
	*" -- "*) how=(--qemu_args "-append '${args% -- *} kunit.enable=1 kunit.filter_glob=xen_timer_slop kunit_shutdown=reboot console=ttyS0 -- ${args#* -- }'") ;;
	*) how=(--kernel_args "$args") ;;
	esac
	"$here/kunit-run.sh" "$min" "$maxskip" "$log-$((i + 1)).log" "$bdir" \
		python3 "$kdir/tools/testing/kunit/kunit.py" run --arch=x86_64 \
		--kunitconfig="$frag" --build_dir="$bdir" --jobs="$jobs" \
		--make_options CC="$kcc" --timeout=600 "${how[@]}" xen_timer_slop
done

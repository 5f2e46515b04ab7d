# SPDX-License-Identifier: GPL-2.0
#
# xen_timer: the regression suite of Linux's xen_timer_slop= boot parameter.
# 'make' runs the Xen latency matrix, 'make check' the tests.  See README.md.

BUILD      ?= $(CURDIR)/build
# The kernels of the series (scripts/kver.sh): mainline first (7.3, the
# series in patches/), then the stable backports (6.12 and 6.1).
SERIES_KVERS   := $(shell scripts/kver.sh list)
BACKPORT_KVERS := $(shell scripts/kver.sh backports)
MAINLINE_KVER  := $(firstword $(SERIES_KVERS))
# The kernel: Debian's linux-source-$(KVER) unpacked into build/, or your
# tree with KDIR=; KVER is then read from KDIR's Makefile.
KVER       ?= $(MAINLINE_KVER)
KDIR       ?= $(BUILD)/linux-$(KVER)
override KVER := $(or $(shell scripts/kver.sh tree $(KDIR) 2>/dev/null),$(KVER))
# What is built from that tree goes under $(OUT).
OUT        ?= $(BUILD)/$(KVER)
JOBS       ?= $(shell nproc)
PYTHON     ?= python3

# The settings of a run (GUEST_TYPES, XEN_SLOPS, GUEST_SLOPS, SAMPLES,
# VCPUS, RETRIES, ACCEL, ...) are harness/settings.py's table, with
# their defaults and each target's (its profile): 'python3 -m harness
# settings' prints it.  What you set (make SAMPLES=200) is passed on as it
# is, and wins over the profile; nothing else is.
XT_VARS := $(shell $(PYTHON) -m harness settings --list make-vars)
ifeq ($(XT_VARS),)
$(error python3 -m harness settings --list make-vars failed: is python3 there?)
endif
USER_SETTINGS = $(strip $(foreach v,$(XT_VARS),$(if $(filter command line environment override,$(origin $(v))),'$(v)=$($(v))')))
# A setting's value for a target's profile, with what you set; a value
# that is not the setting's stops make with the harness's line.
setting = $(shell $(PYTHON) -m harness settings --profile $(1) --get $(2) $(USER_SETTINGS) 2>&1)
bad_setting = $(if $(filter harness:,$(firstword $(1))),$(error $(1)))
# Guest kernel: debian (Debian's prebuilt $(KVER), no build) or build (ours).
GUEST       ?= debian
# Guest types (GUEST_TYPES), each config boots as each: pv (the kernel is
# Xen's PV dom0), pv-domu, pvh and hvm (that dom0 starts the same kernel
# as a PV, PVH or HVM domU with xl), pvh-dom0 (the kernel is a PVH dom0:
# Xen booted by OVMF).  make runs the thread's guest, a PV domU: its 5
# configs are two Xen boots.  The types of make, of boot-check (make
# check) and of the reliability targets:
GUEST_TYPES_RUN  := $(call setting,make,GUEST_TYPES)
GUEST_TYPES_BOOT := $(call setting,boot-check,GUEST_TYPES)
$(call bad_setting,$(GUEST_TYPES_RUN))
$(call bad_setting,$(GUEST_TYPES_BOOT))
DOMU_TYPES := $(shell $(PYTHON) -m harness settings --list domu-types)
# The platforms (harness/platforms.py): the Xen versions of make, of
# boot-check and of the reliability targets (XENS, an axis), the QEMU
# (QEMU=own: each Xen's Debian's).  Debian 12's are the machine's; Debian
# 13's (Xen 4.20, QEMU 11.1) a root that scripts/platform-root.sh makes
# once under $(PLATFORM_DIR).
XENS_RUN  := $(call setting,make,XENS)
XENS_BOOT := $(call setting,boot-check,XENS)
QEMU_RUN  := $(call setting,make,QEMU)
$(call bad_setting,$(XENS_RUN) $(QEMU_RUN))
PLATFORM_DIR = $(BUILD)/platform
XEN_ROOTS  := $(shell $(PYTHON) -m harness settings --list xen-roots)
QEMU_ROOTS := $(shell $(PYTHON) -m harness settings --list qemu-roots)
# root_of,VERSION,ROOTS: the root directory of a Xen or QEMU version, or
# nothing for the machine's own.
root_of  = $(if $(patsubst $(1)=%,%,$(filter $(1)=%,$(2))),$(PLATFORM_DIR)/$(patsubst $(1)=%,%,$(filter $(1)=%,$(2))))
ROOTS_NEEDED = $(sort $(foreach x,$(XENS_RUN) $(XENS_BOOT),$(call root_of,$(x),$(XEN_ROOTS))) \
	$(call root_of,$(QEMU_RUN),$(QEMU_ROOTS)))
# mkinitramfs-dom0.sh's option for Xen X's toolstack.
xen_root_opt = $(if $(call root_of,$(1),$(XEN_ROOTS)),--xen-root $(call root_of,$(1),$(XEN_ROOTS)))
# The dom0 initramfs carries the HVM device model only when it is needed.
dom0_hvm    = $(if $(filter hvm,$(1)),--hvm)
dom0_needed = $(filter $(DOMU_TYPES),$(1))

# KUnit: the number of cases 'make check' requires, so that a test that
# silently disappears fails the run: counted in the source (one per
# KUNIT_CASE, one per row of a parameter array), so a new row raises it.
# Our suites: the clockevents core's on UML and x86_64, the Xen one (at
# boot, built in) on x86_64 only.  kunit.config and the x86_64 kernel
# also run the kernel's cmdline suite (memparse()), not counted here.
KUNIT_UML_SRC   = kernel/time/clockevents_kunit.c
KUNIT_XEN_SRC   = arch/x86/xen/time_kunit.c
KUNIT_X86_SRC   = $(KUNIT_UML_SRC) $(KUNIT_XEN_SRC)
ifeq ($(origin KUNIT_MIN_CASES),undefined)
KUNIT_MIN_CASES := $(shell $(PYTHON) -m harness kunit-cases $(KUNIT_X86_SRC))
endif
ifeq ($(origin KUNIT_UML_MIN_CASES),undefined)
KUNIT_UML_MIN_CASES := $(shell $(PYTHON) -m harness kunit-cases $(KUNIT_UML_SRC))
endif
KUNIT_XEN_MIN_CASES := $(shell $(PYTHON) -m harness kunit-cases $(KUNIT_XEN_SRC))
ifeq ($(KUNIT_MIN_CASES)$(KUNIT_UML_MIN_CASES),)
$(error cannot count the KUnit cases of $(KUNIT_X86_SRC))
endif
# Cases allowed to skip: none on UML; on x86_64 under plain QEMU the
# per-CPU one, which needs Xen.
KUNIT_UML_MAX_SKIPS = 0
KUNIT_X86_MAX_SKIPS = 1

# Looked up when a recipe uses it, not when make reads this file: on a
# fresh machine make deps installs ccache in the same run.
CCACHE  = $(shell command -v ccache 2>/dev/null)
KCC     = $(if $(CCACHE),ccache gcc,gcc)
export CCACHE_DIR ?= $(HOME)/.cache/ccache
# Paths relative to the build dir: the series tree of 'make patches' then
# hits the objects of 'make kernel' (same layout under build/series/).
export CCACHE_BASEDIR ?= $(BUILD)

KUNIT_PY  = $(KDIR)/tools/testing/kunit/kunit.py
UML_BUILD = $(OUT)/uml
X86_BUILD = $(OUT)/x86_64
BZIMAGE   = $(X86_BUILD)/arch/x86/boot/bzImage
KSFT      = $(OUT)/kselftest/install
INITRD    = $(OUT)/initramfs.cpio.gz
# {xen}: each Xen version's (the harness fills it in).
XEN_ELF   = $(BUILD)/xen/xen-{xen}.elf
# Debian's prebuilt kernel (GUEST=debian), or its PREEMPT_RT build
# (GUEST=debian-rt: rt-amd64), in build/debian-VERSION[-rt].  The RT
# kernel's domUs run under the standard kernel's dom0: as its own PV
# dom0 it soft-locks at boot (RESULTS.md, PREEMPT_RT).
DEB_KERNEL_DIR = $(BUILD)/debian-$(KVER)$(if $(filter debian-rt,$(GUEST)),-rt)
DEB_DOM0_DIR   = $(BUILD)/debian-$(KVER)
RESULTS   = $(BUILD)/results

# The dom0 initramfs of the pvh and hvm types: xl, Xen's tools, the guest
# kernel and $(INITRD) (guest/mkinitramfs-dom0.sh), per guest kernel.
DOM0_INITRD       = $(OUT)/initramfs-dom0-$(GUEST)-xen{xen}.cpio.gz
BOOT_DOM0_INITRD  = $(OUT)/initramfs-dom0-build-xen{xen}.cpio.gz
# mk_dom0,TYPES,XENS,KERNEL,OUT[,MODULES]: the dom0 initramfs of each Xen
# version, when a guest type of TYPES is a domU.
mk_dom0 = $(if $(call dom0_needed,$(1)),$(foreach x,$(2),guest/mkinitramfs-dom0.sh $(call dom0_hvm,$(1)) \
	$(call xen_root_opt,$(x)) $(3) $(INITRD) $(subst {xen},$(x),$(4)) $(5) && \
	echo "== dom0 initramfs $(subst {xen},$(x),$(4)) $(call dom0_hvm,$(1))" &&) true)

ifneq ($(filter debian debian-rt,$(GUEST)),)
GUEST_KERNEL = $(DEB_KERNEL_DIR)/vmlinuz
GUEST_DEP    = debian-kernel
GUEST_MODS   = $(DEB_DOM0_DIR)/modules
DOM0_KERNEL  = $(if $(filter debian-rt,$(GUEST)),$(DEB_DOM0_DIR)/vmlinuz)
KUNIT_PARSE  =
else ifeq ($(GUEST),build)
GUEST_KERNEL = $(BZIMAGE)
GUEST_DEP    = kernel
GUEST_MODS   =
KUNIT_PARSE  = --kunit-boot --kunit-min $(KUNIT_MIN_CASES)
else
$(error GUEST must be debian, debian-rt or build, not '$(GUEST)')
endif

# make KVERS="6.1 6.12 7.3": the matrix with the kernel version as an axis,
# Debian's prebuilt kernel of each (GUEST=debian), one table, JSON and plot;
# 7.3-rt is Debian's PREEMPT_RT build of 7.3 (KVERS="7.3 7.3-rt").
KVERS       ?=
KVERS_OK    = $(SERIES_KVERS) $(MAINLINE_KVER)-rt
ifneq ($(KVERS),)
ifneq ($(GUEST),debian)
$(error KVERS boots Debian's prebuilt kernels: it needs GUEST=debian)
endif
ifneq ($(filter-out $(KVERS_OK),$(KVERS)),)
$(error KVERS must be some of $(KVERS_OK), not '$(KVERS)')
endif
endif
kver_dom0 = $(BUILD)/debian-$(1)/initramfs-dom0-xen{xen}.cpio.gz
# An RT version's domUs: under the standard kernel's dom0.
kver_std = $(patsubst %-rt,%,$(1))
GUEST_OPTS = $(if $(KVERS),$(foreach v,$(KVERS),--kernel-set $(v) $(BUILD)/debian-$(v)/vmlinuz \
	$(call kver_dom0,$(v)) $(if $(filter %-rt,$(v)),$(BUILD)/debian-$(call kver_std,$(v))/vmlinuz)), \
	--kernel $(GUEST_KERNEL) --dom0-initrd $(DOM0_INITRD) $(if $(DOM0_KERNEL),--dom0-kernel $(DOM0_KERNEL)))
HARNESS_OPTS = --xen $(XEN_ELF) --platform-dir $(PLATFORM_DIR) $(GUEST_OPTS) --initrd $(INITRD) --kunit-py $(KUNIT_PY) \
	$(KUNIT_PARSE) --out $(RESULTS) $(USER_SETTINGS)


.PHONY: all run disk-run disk-check kvers-kernels deps tree kunit kunit-x86 kernel selftest ksft-install initramfs \
	debian-kernel xen host-tests boot-check checkpatch patches edge check clean distclean \
	false-failures misses series-check series-bisect series-arches backports patches-store patches-take dom0-initramfs \
	boot-dom0-initramfs lava-jobs lava-run lava-merge lava-templates

all: run

RUN_NAME = matrix-$(GUEST)-$(if $(KVERS),$(subst $(eval) ,-,$(strip $(KVERS))),$(KVER))
# What each leaves in build/ on a clean clone, with a margin: 11.3 GB
# after make check (du -sk build), 2.4 GB after make (its parts: the 7.3
# tree 1.8 GB, the Debian 13 root 0.5 GB).  scripts/disk-check.sh stops a
# run that would fill the disk half-way.
DISK_RUN_GB   = 4
DISK_CHECK_GB = 13
disk-run:
	@scripts/disk-check.sh make $(DISK_RUN_GB) $(BUILD)
disk-check:
	@scripts/disk-check.sh "make check" $(DISK_CHECK_GB) $(BUILD)

run: disk-run deps xen $(if $(KVERS),kvers-kernels,$(GUEST_DEP) dom0-initramfs) initramfs tree
	$(PYTHON) -m harness matrix --profile make $(HARNESS_OPTS) --name $(RUN_NAME)

# The same matrix in a LAVA lab (README, "LAVA"): lava-jobs writes one job
# per config, the images and the device dictionary to
# build/results/lava-$(RUN_NAME)-lava/ (BASE_URL: where the lab fetches
# its images/); lava-run runs them here; lava-merge judges their logs (in
# its logs/, or LOGS=) as local boots: the same table, JSON and KTAP.
LAVA_TEMPLATES = $(BUILD)/lava-server/usr/share/lava-server/device-types
BASE_URL ?=
LOGS     ?=
lava-jobs: deps xen $(if $(KVERS),kvers-kernels,$(GUEST_DEP) dom0-initramfs) initramfs tree
	$(PYTHON) -m harness lava --profile make $(HARNESS_OPTS) --name lava-$(RUN_NAME) \
		$(if $(BASE_URL),--base-url $(BASE_URL))
lava-run: lava-jobs lava-templates
	scripts/lava-local.sh $(LAVA_TEMPLATES) $(RESULTS)/lava-$(RUN_NAME)-lava/jobs
lava-merge:
	$(PYTHON) -m harness merge --profile make $(HARNESS_OPTS) --name lava-$(RUN_NAME) \
		$(if $(LOGS),--logs $(LOGS))
lava-templates: deps
	@scripts/fetch-lava-templates.sh $(BUILD)/lava-server

# KVERS: each version's Debian kernel and its dom0 initramfs (an RT
# version's with the standard kernel as its dom0).
define kvers_kernel
	@scripts/fetch-debian-kernel.sh $(call kver_std,$(1)) $(BUILD)/debian-$(1) $(if $(filter %-rt,$(1)),rt-amd64)
	$(if $(filter %-rt,$(1)),@scripts/fetch-debian-kernel.sh $(call kver_std,$(1)) $(BUILD)/debian-$(call kver_std,$(1)))
	@$(call mk_dom0,$(GUEST_TYPES_RUN),$(XENS_RUN),$(BUILD)/debian-$(1)/vmlinuz,$(call kver_dom0,$(1)),$(BUILD)/debian-$(call kver_std,$(1))/modules)

endef
kvers-kernels: initramfs
	$(foreach v,$(KVERS),$(call kvers_kernel,$(v)))

deps:
	@scripts/deps.sh $(if $(wildcard $(KDIR)/Makefile),-,$(KVER))
	@$(foreach r,$(ROOTS_NEEDED),scripts/platform-root.sh $(r) &&) true

tree: deps
	@scripts/prepare-tree.sh $(CURDIR) $(KDIR)

# KUnit on UML, the way every bot runs it.
kunit: tree
	@echo "== kunit: Linux $(KVER), UML, kunit.config, build dir $(UML_BUILD)"
	@mkdir -p $(OUT)
	@scripts/kunit-run.sh $(KUNIT_UML_MIN_CASES) $(KUNIT_UML_MAX_SKIPS) $(OUT)/kunit-uml.log $(UML_BUILD) \
		$(PYTHON) $(KUNIT_PY) run --kunitconfig=$(CURDIR)/kunit.config \
		--build_dir=$(UML_BUILD) --jobs=$(JOBS) --make_options CC="$(KCC)"

# The x86_64 kernel: tinyconfig + configs/xen-guest.config, built once.
kernel: tree
	@scripts/build-kernel.sh $(KDIR) $(X86_BUILD) $(CURDIR)/configs/xen-guest.config "$(KCC)" $(JOBS)

# The Xen KUnit suite as its maintainers run it (kunit.py run
# --kunitconfig=arch/x86/xen --arch=x86_64) on that kernel, one QEMU boot
# per command line of scripts/kunit-x86.sh.
kunit-x86: kernel
	@scripts/kunit-x86.sh $(KDIR) $(X86_BUILD) $(OUT)/kunit-x86 $(KUNIT_XEN_MIN_CASES) \
		$(KUNIT_X86_MAX_SKIPS) "$(KCC)" $(JOBS)

# The kselftest, built and run in the tree as CI bots do (skips off Xen),
# then installed static for the initramfs.
selftest: tree
	@echo "== selftest: Linux $(KVER), make -C tools/testing/selftests TARGETS=xen_timer run_tests"
	@mkdir -p $(OUT)
	@$(MAKE) -s -C $(KDIR)/tools/testing/selftests TARGETS=xen_timer \
		O=$(OUT)/kselftest/host run_tests >$(OUT)/selftest.log 2>&1; \
		rc=$$?; cat $(OUT)/selftest.log; \
		[ $$rc = 0 ] && $(PYTHON) -m harness ktap-check $(KUNIT_PY) $(OUT)/selftest.log \
			xen_timer_slop_test xen_timer_program_test xen_timer_latency_test && \
		$(PYTHON) -m harness lkft-check $(OUT)/selftest.log

ksft-install: tree
	@echo "== kselftest install (static) into $(KSFT)"
	@$(MAKE) -s -C $(KDIR)/tools/testing/selftests TARGETS=xen_timer \
		O=$(OUT)/kselftest/static LDFLAGS=-static INSTALL_PATH=$(KSFT) install >/dev/null

initramfs: ksft-install
	@guest/mkinitramfs.sh $(KSFT) $(INITRD)
	@echo "== initramfs $(INITRD)"

# Rebuilt every time, as initramfs is: a few seconds.
dom0-initramfs: $(GUEST_DEP) initramfs
	@$(call mk_dom0,$(GUEST_TYPES_RUN),$(XENS_RUN),$(GUEST_KERNEL),$(DOM0_INITRD),$(GUEST_MODS))

boot-dom0-initramfs: kernel initramfs
	@$(call mk_dom0,$(GUEST_TYPES_BOOT),$(XENS_BOOT),$(BZIMAGE),$(BOOT_DOM0_INITRD))

debian-kernel: deps
	@scripts/fetch-debian-kernel.sh $(KVER) $(DEB_KERNEL_DIR) $(if $(filter debian-rt,$(GUEST)),rt-amd64)
	@$(if $(DOM0_KERNEL),scripts/fetch-debian-kernel.sh $(KVER) $(DEB_DOM0_DIR))

# Each Xen's ELF, from its Debian package's xen-X-amd64.gz.
xen: deps
	@mkdir -p $(BUILD)/xen
	@$(foreach x,$(sort $(XENS_RUN) $(XENS_BOOT)),gz=$(call root_of,$(x),$(XEN_ROOTS))/boot/xen-$(x)-amd64.gz; \
		elf=$(subst {xen},$(x),$(XEN_ELF)); \
		{ [ -s $$elf ] && [ $$elf -nt $$gz ]; } || { zcat $$gz >$$elf.tmp && mv $$elf.tmp $$elf; } || exit 1;) true

host-tests: tree
	@$(MAKE) -s -C tests BUILD=$(BUILD)/tests KSFT_DIR=$(KDIR)/tools/testing/selftests all fuzz

# Boots of our kernel (or a mutant) as make check runs them: KUnit at boot,
# the selftests, the boot-check profile of the settings.  boot-check and
# the reliability targets share it, so that the figures are those of make
# check's settings.
BOOT_OPTS = --xen $(XEN_ELF) --platform-dir $(PLATFORM_DIR) --initrd $(INITRD) --kunit-py $(KUNIT_PY) --kunit-boot \
	--kunit-min $(KUNIT_MIN_CASES) --out $(RESULTS)

# Our kernel under Xen: KUnit at boot and the selftests, two configs, as
# each guest type of the boot-check profile.
# Then the same configs as LAVA jobs, valid by LAVA's schema, and one
# (a PV dom0, a 2 ms slop) run by lava-run here: its merged verdicts must
# equal boot-check's of that config (scripts/lava-check.sh).
# What you set comes last: lava-check.sh appends settings of its own, and
# the harness takes its VAR=VALUE words as one run.
BOOT_CHECK_OPTS = --profile boot-check $(BOOT_OPTS) --kernel $(BZIMAGE) \
	--dom0-initrd $(BOOT_DOM0_INITRD) $(USER_SETTINGS)
define boot_check
	$(PYTHON) -m harness matrix $(BOOT_CHECK_OPTS) --name boot-check-$(KVER)
	$(PYTHON) -m harness lkft-check $(RESULTS)/boot-check-$(KVER)-boots/ktap-*-run_kselftest.txt
	$(PYTHON) -m harness lava $(BOOT_CHECK_OPTS) --name lava-boot-check-$(KVER)
	PYTHON=$(PYTHON) scripts/lava-check.sh $(LAVA_TEMPLATES) $(RESULTS) lava-check-$(KVER) \
		$(RESULTS)/boot-check-$(KVER).json -- $(BOOT_CHECK_OPTS) GUEST_TYPES=pv GUEST_SLOPS=2000000
endef
boot-check: deps xen kernel initramfs boot-dom0-initramfs lava-templates
	$(boot_check)

# The series (scripts/mkseries.sh): mainline in patches/ (against 7.3),
# the stable backports in patches/6.12/ and patches/6.1/, each the edits
# to files the kernel has, with the commit messages; the new files are
# lib/, include/ and tools/.  'make patches' refreshes the stored edits
# and writes each series as mailed to build/series/linux-X.Y.mail/.
SERIES_GIT = $(BUILD)/series/linux-
# $(call mkseries,VERSION,MODE[,ENVIRONMENT]): one series' mkseries.sh.
define mkseries
	@$(3) $(NICE) scripts/mkseries.sh $(CURDIR) $(1) $(SERIES_GIT)$(1) $(2)

endef
patches:
	@scripts/sender.sh $(CURDIR) >/dev/null
	@scripts/deps.sh $(SERIES_KVERS)
	$(foreach v,$(SERIES_KVERS),$(call mkseries,$(v),write))
	$(call mkseries,$(MAINLINE_KVER),write,$(KUNIT_TOOL_SERIES))

# The stored edits refreshed, nothing mailed: no sender needed.
patches-store:
	@scripts/deps.sh $(SERIES_KVERS)
	$(foreach v,$(SERIES_KVERS),$(call mkseries,$(v),store))
	$(call mkseries,$(MAINLINE_KVER),store,$(KUNIT_TOOL_SERIES))

# After amending the commits of build/series/linux-$(KVER) (branch
# xen-timer-series): store their edits and messages in the series.
patches-take:
	@scripts/mkseries.sh $(CURDIR) $(KVER) $(SERIES_GIT)$(KVER) take

# Reliability: the checks boot-check runs, RUNS times per config.
# false-failures: our kernel with QEMU on host CPU 0 and stress-ng on CPU 1
# (its profile); misses: each scripts/mutant.sh kernel, whose slop is not
# in effect, built and booted (python3 -m harness misses).
MUTANTS ?= ignored forced bypassed doubled abslate

false-failures: deps xen kernel initramfs boot-dom0-initramfs
	@$(PYTHON) -m harness repeat --profile false-failures $(BOOT_OPTS) --kernel $(BZIMAGE) \
		--dom0-initrd $(BOOT_DOM0_INITRD) --name false-failures-$(KVER) $(USER_SETTINGS)

misses: deps xen tree initramfs
	@$(PYTHON) -m harness misses --profile misses $(BOOT_OPTS) --mutants "$(MUTANTS)" \
		--kdir $(KDIR) --build-dir $(OUT) --config $(CURDIR)/configs/xen-guest.config \
		--kcc "$(KCC)" --jobs $(JOBS) --name misses-$(KVER) $(USER_SETTINGS)

# Every line of tests/edge-params.txt booted under Xen with the guest kernel
# (GUEST=debian or build): what the kernel made of each value.
edge: deps xen $(GUEST_DEP) initramfs dom0-initramfs tree
	$(PYTHON) -m harness edge --profile edge $(HARNESS_OPTS) \
		--params-file tests/edge-params.txt --name edge-$(GUEST)-$(KVER)

checkpatch: tree
	@scripts/checkpatch.sh $(CURDIR) $(KDIR)

# The series: each stored one up to date, checkpatch --strict on the mail,
# git am onto the pristine base.  make check runs it; the build after
# every mainline patch is series-bisect's, which CI runs after make check
# (.ci/run): a full x86_64 build of its own and one per patch, too long
# for make check on two cores (RESULTS.md has the times).
KUNIT_TOOL_SERIES = XT_SERIES=patches/kunit-tool XT_BRANCH=kunit-tool \
	XT_MAIL=$(BUILD)/series/kunit-tool.mail
define series_check
	@scripts/deps.sh $(BACKPORT_KVERS)
	$(call mkseries,$(MAINLINE_KVER),check,$(KUNIT_TOOL_SERIES))
	$(foreach v,$(SERIES_KVERS),$(call mkseries,$(v),check))
endef
series-check: deps
	$(series_check)

# The series checks of mainline, then the x86_64 kernel (the configuration
# of 'make kernel') built after every patch, newest first, from ccache.
series-bisect: kernel
	@KCC="$(KCC)" scripts/mkseries.sh $(CURDIR) $(MAINLINE_KVER) $(SERIES_GIT)$(MAINLINE_KVER) check \
		$(BUILD)/series/$(MAINLINE_KVER)/x86_64 $(BUILD)/$(MAINLINE_KVER)/x86_64/.config

# The mainline series built for other architectures as the 0-day bot
# builds a posting: arm64 (CONFIG_XEN=y, no arch/x86/xen), 32-bit x86
# with Xen, m68k Mac (no GENERIC_CLOCKEVENTS), each tinyconfig plus
# configs/arches/ARCH.config with KUNIT_ALL_TESTS and CONFIG_WERROR,
# Debian's cross compilers, ccache.  CI runs it after make check.
SERIES_ARCHES ?= arm64 i386 m68k
series-arches: series-check
	@git -C $(SERIES_GIT)$(MAINLINE_KVER) rev-parse --abbrev-ref HEAD | grep -qx xen-timer-series || \
		{ echo "series-arches: $(SERIES_GIT)$(MAINLINE_KVER) is not on branch xen-timer-series" >&2; exit 1; }
	@scripts/series-arches.sh $(SERIES_GIT)$(MAINLINE_KVER) $(BUILD)/series-arches configs/arches $(SERIES_ARCHES)

# The stable backports as a bot on a stable tree runs them: the tree made
# from Debian's linux-source-X.Y with its series, KUnit on UML.
define backport
	@$(NICE) $(MAKE) --no-print-directory KVER=$(1) KDIR=$(BUILD)/linux-$(1) OUT=$(BUILD)/$(1) kunit

endef
backports:
	$(foreach v,$(BACKPORT_KVERS),$(call backport,$(v)))

# make check: everything boot-check needs first; then boot-check runs beside
# the series checks and the backports' builds (make -j2, one after the
# other), which are niced: its guests sleep most of the time and leave
# QEMU's CPU to the builds, which leave it to QEMU when it needs it (-j3,
# all three at once, was no faster: RESULTS.md).  The
# run-only targets have no prerequisites, so that no two makes build one
# tree at once.  Their lines interleave as they come (each says what it is
# of: "[3/8] PV ...", "== patches 6.12: ...", "== kunit: Linux 6.1 ..."):
# --output-sync would hold each command's lines until it ended.
NICE :=
check: disk-check host-tests checkpatch selftest kunit kunit-x86 xen initramfs boot-dom0-initramfs lava-templates \
	$(if $(filter $(MAINLINE_KVER),$(KVER)),deps-backports)
	@$(MAKE) --no-print-directory -j2 NICE="nice -n 19" check-last
	@echo "== make check: Linux $(KVER), all passed"

.PHONY: check-last boot-check-run series-check-run deps-backports
check-last: boot-check-run $(if $(filter $(MAINLINE_KVER),$(KVER)),series-check-run backports)
boot-check-run:
	$(boot_check)
series-check-run:
	$(series_check)
deps-backports:
	@scripts/deps.sh $(BACKPORT_KVERS)

clean:
	rm -rf $(RESULTS) $(BUILD)/tests $(BUILD)/*/kselftest $(BUILD)/*/*.log

distclean:
	rm -rf $(BUILD)

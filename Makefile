# SPDX-License-Identifier: GPL-2.0
#
# xen_timer: the regression suite of Linux's xen_timer_slop= boot parameter.
# 'make' runs the Xen latency matrix, 'make check' the tests.  See README.md.
# The targets wire commands together; what a run does and with which
# settings is the harness's (harness/, python3 -m harness settings).

BUILD      ?= $(CURDIR)/build
# The kernels of the series (scripts/kver.sh): mainline, then the backports.
SERIES_KVERS   := $(shell scripts/kver.sh list)
BACKPORT_KVERS := $(shell scripts/kver.sh backports)
MAINLINE_KVER  := $(firstword $(SERIES_KVERS))
# Debian's linux-source-$(KVER) unpacked into build/, or your tree (KDIR=).
KVER       ?= $(MAINLINE_KVER)
KDIR       ?= $(BUILD)/linux-$(KVER)
override KVER := $(or $(shell scripts/kver.sh tree $(KDIR) 2>/dev/null),$(KVER))
OUT        ?= $(BUILD)/$(KVER)
JOBS       ?= $(shell nproc)
PYTHON     ?= python3
HARNESS     = $(PYTHON) -m harness

# The settings you set (make SAMPLES=200) are passed on as they are; a
# bad one stops make here with the harness's line.
XT_VARS := $(shell $(HARNESS) settings --list make-vars)
ifeq ($(XT_VARS),)
$(error python3 -m harness settings --list make-vars failed: is python3 there?)
endif
USER_SETTINGS = $(strip $(foreach v,$(XT_VARS),$(if $(filter command line environment override,$(origin $(v))),'$(v)=$($(v))')))
BAD_SETTING := $(shell $(HARNESS) settings --get GUEST_TYPES $(USER_SETTINGS) 2>&1 >/dev/null)
ifneq ($(BAD_SETTING),)
$(error $(BAD_SETTING))
endif

# KUnit: the cases make check requires, counted in the sources, so that a
# case that silently disappears fails the run.
KUNIT_UML_SRC = kernel/time/clockevents_kunit.c
KUNIT_XEN_SRC = arch/x86/xen/time_kunit.c
KUNIT_MIN_CASES     := $(or $(KUNIT_MIN_CASES),$(shell $(HARNESS) kunit-cases $(KUNIT_UML_SRC) $(KUNIT_XEN_SRC)))
KUNIT_UML_MIN_CASES := $(or $(KUNIT_UML_MIN_CASES),$(shell $(HARNESS) kunit-cases $(KUNIT_UML_SRC)))
KUNIT_XEN_MIN_CASES := $(shell $(HARNESS) kunit-cases $(KUNIT_XEN_SRC))
$(if $(and $(KUNIT_MIN_CASES),$(KUNIT_UML_MIN_CASES),$(KUNIT_XEN_MIN_CASES)),,\
	$(error cannot count the KUnit cases of $(KUNIT_UML_SRC) $(KUNIT_XEN_SRC)))

# Looked up when a recipe runs: make deps installs ccache first.
CCACHE  = $(shell command -v ccache 2>/dev/null)
KCC     = $(if $(CCACHE),ccache gcc,gcc)
export CCACHE_DIR ?= $(HOME)/.cache/ccache
# Relative paths: the series trees hit make kernel's objects.
export CCACHE_BASEDIR ?= $(BUILD)

KUNIT_PY     = $(KDIR)/tools/testing/kunit/kunit.py
UML_BUILD    = $(OUT)/uml
X86_BUILD    = $(OUT)/x86_64
BZIMAGE      = $(X86_BUILD)/arch/x86/boot/bzImage
KSFT         = $(OUT)/kselftest/install
INITRD       = $(OUT)/initramfs.cpio.gz
RESULTS      = $(BUILD)/results
PLATFORM_DIR = $(BUILD)/platform
PREPARE      = $(HARNESS) prepare --platform-dir $(PLATFORM_DIR)
# {xen}: each Xen version's file (the harness fills it in).
XEN_ELF          = $(BUILD)/xen/xen-{xen}.elf
DOM0_INITRD      = $(OUT)/initramfs-dom0-$(GUEST)-xen{xen}.cpio.gz
BOOT_DOM0_INITRD = $(OUT)/initramfs-dom0-build-xen{xen}.cpio.gz

# The guest kernel of make: Debian's prebuilt $(KVER) (GUEST=debian), its
# PREEMPT_RT build (debian-rt: its domUs under the standard kernel's
# dom0), or ours (build).
GUEST ?= debian
DEB_DIR = $(BUILD)/debian-$(KVER)
ifneq ($(filter debian debian-rt,$(GUEST)),)
GUEST_KERNEL = $(DEB_DIR)$(if $(filter debian-rt,$(GUEST)),-rt)/vmlinuz
GUEST_DEP    = debian-kernel
DOM0_OPTS    = $(if $(filter debian-rt,$(GUEST)),--dom0-kernel $(DEB_DIR)/vmlinuz)
else ifeq ($(GUEST),build)
GUEST_KERNEL = $(BZIMAGE)
GUEST_DEP    = kernel
KUNIT_PARSE  = --kunit-boot --kunit-min $(KUNIT_MIN_CASES)
else
$(error GUEST must be debian, debian-rt or build, not '$(GUEST)')
endif

# make KVERS="6.1 6.12 7.3": Debian's kernel of each version as an axis
# (7.3-rt: its PREEMPT_RT build), one table, JSON and plot.
KVERS ?=
ifneq ($(KVERS),)
ifneq ($(GUEST),debian)
$(error KVERS boots Debian's prebuilt kernels: it needs GUEST=debian)
endif
ifneq ($(filter-out $(SERIES_KVERS) $(MAINLINE_KVER)-rt,$(KVERS)),)
$(error KVERS must be some of $(SERIES_KVERS) $(MAINLINE_KVER)-rt, not '$(KVERS)')
endif
endif
kver_std  = $(patsubst %-rt,%,$(1))
kver_dom0 = $(BUILD)/debian-$(1)/initramfs-dom0-xen{xen}.cpio.gz
GUEST_OPTS = $(if $(KVERS),$(foreach v,$(KVERS),--kernel-set $(v) $(BUILD)/debian-$(v)/vmlinuz \
	$(call kver_dom0,$(v)) $(if $(filter %-rt,$(v)),$(BUILD)/debian-$(call kver_std,$(v))/vmlinuz)), \
	--kernel $(GUEST_KERNEL) --dom0-initrd $(DOM0_INITRD) $(DOM0_OPTS))
HARNESS_OPTS = --xen $(XEN_ELF) --platform-dir $(PLATFORM_DIR) $(GUEST_OPTS) --initrd $(INITRD) \
	--kunit-py $(KUNIT_PY) $(KUNIT_PARSE) --out $(RESULTS) $(USER_SETTINGS)
# Our kernel (or a mutant) as make check boots it: KUnit at boot too.
BOOT_OPTS = --xen $(XEN_ELF) --platform-dir $(PLATFORM_DIR) --initrd $(INITRD) --kunit-py $(KUNIT_PY) \
	--kunit-boot --kunit-min $(KUNIT_MIN_CASES) --out $(RESULTS)
BOOT_CHECK_OPTS = --profile boot-check $(BOOT_OPTS) --kernel $(BZIMAGE) --dom0-initrd $(BOOT_DOM0_INITRD) \
	$(USER_SETTINGS)
RUN_NAME = matrix-$(GUEST)-$(if $(KVERS),$(subst $(eval) ,-,$(strip $(KVERS))),$(KVER))
RUN_DEPS = deps xen $(if $(KVERS),kvers-kernels,$(GUEST_DEP) dom0-initramfs) initramfs tree

.PHONY: all run check deps tree kernel kunit kunit-x86 selftest ksft-install initramfs debian-kernel \
	kvers-kernels xen dom0-initramfs boot-dom0-initramfs host-tests checkpatch boot-check patches \
	patches-store patches-take series-check series-bisect series-arches backports false-failures \
	misses edge lava-jobs lava-run lava-merge lava-templates lava-lab lava-lab-check clean distclean

all: run

run: disk-run $(RUN_DEPS)
	$(HARNESS) matrix --profile make $(HARNESS_OPTS) --name $(RUN_NAME)

deps:
	@scripts/deps.sh $(if $(wildcard $(KDIR)/Makefile),-,$(KVER))
	@$(PREPARE) --profile make --profile boot-check $(USER_SETTINGS)

tree: deps
	@scripts/prepare-tree.sh $(CURDIR) $(KDIR)

# The x86_64 kernel: tinyconfig + configs/xen-guest.config, built once.
kernel: tree
	@scripts/build-kernel.sh $(KDIR) $(X86_BUILD) $(CURDIR)/configs/xen-guest.config "$(KCC)" $(JOBS)

# KUnit on UML, the way every bot runs it.
kunit: tree
	@echo "== kunit: Linux $(KVER), UML, kunit.config, build dir $(UML_BUILD)"
	@mkdir -p $(OUT)
	@scripts/kunit-run.sh $(KUNIT_UML_MIN_CASES) 0 $(OUT)/kunit-uml.log $(UML_BUILD) \
		$(PYTHON) $(KUNIT_PY) run --kunitconfig=$(CURDIR)/kunit.config \
		--build_dir=$(UML_BUILD) --jobs=$(JOBS) --make_options CC="$(KCC)"

# The Xen suite as its maintainers run it, on make kernel's build; one skip
# allowed: the per-CPU case, which needs Xen.
kunit-x86: kernel
	@scripts/kunit-x86.sh $(KDIR) $(X86_BUILD) $(OUT)/kunit-x86 $(KUNIT_XEN_MIN_CASES) 1 "$(KCC)" $(JOBS)

# The kselftests run in the tree as CI bots run them (they skip here),
# then installed static for the initramfs.
selftest: tree
	@scripts/selftest.sh $(KDIR) $(OUT) $(KUNIT_PY)

ksft-install: tree
	@echo "== kselftest install (static) into $(KSFT)"
	@$(MAKE) -s -C $(KDIR)/tools/testing/selftests TARGETS=xen_timer \
		O=$(OUT)/kselftest/static LDFLAGS=-static INSTALL_PATH=$(KSFT) install >/dev/null

initramfs: ksft-install
	@guest/mkinitramfs.sh $(KSFT) $(INITRD)
	@echo "== initramfs $(INITRD)"

debian-kernel: deps
	@scripts/fetch-debian-kernel.sh $(KVER) $(DEB_DIR)$(if $(filter debian-rt,$(GUEST)),-rt rt-amd64)
	@$(if $(filter debian-rt,$(GUEST)),scripts/fetch-debian-kernel.sh $(KVER) $(DEB_DIR))

# KVERS: each version's Debian kernel and its dom0 initramfs.
kvers-kernels: initramfs
	@$(foreach v,$(KVERS),scripts/fetch-debian-kernel.sh $(call kver_std,$(v)) $(BUILD)/debian-$(v) \
		$(if $(filter %-rt,$(v)),rt-amd64 && scripts/fetch-debian-kernel.sh $(call kver_std,$(v)) \
		$(BUILD)/debian-$(call kver_std,$(v))) && $(PREPARE) --profile make --dom0 \
		$(BUILD)/debian-$(v)/vmlinuz $(INITRD) $(call kver_dom0,$(v)) \
		$(BUILD)/debian-$(call kver_std,$(v))/modules $(USER_SETTINGS) &&) true

xen: deps
	@$(PREPARE) --profile make --profile boot-check --xen-dir $(BUILD)/xen $(USER_SETTINGS)

# dom0's initramfs, when a guest type is a domU: rebuilt every time.
dom0-initramfs: $(GUEST_DEP) initramfs
	@$(PREPARE) --profile make --dom0 $(GUEST_KERNEL) $(INITRD) $(DOM0_INITRD) \
		$(if $(filter debian%,$(GUEST)),$(DEB_DIR)/modules) $(USER_SETTINGS)

boot-dom0-initramfs: kernel initramfs
	@$(PREPARE) --profile boot-check --dom0 $(BZIMAGE) $(INITRD) $(BOOT_DOM0_INITRD) $(USER_SETTINGS)

host-tests: tree
	@$(MAKE) -s -C tests BUILD=$(BUILD)/tests KSFT_DIR=$(KDIR)/tools/testing/selftests all fuzz

checkpatch: tree
	@scripts/checkpatch.sh $(CURDIR) $(KDIR)

# Our kernel under Xen as each guest type, two configs; then as LAVA jobs,
# one run by lava-run here against the local boot's verdicts (lava-check.sh).
LAVA_TEMPLATES = $(BUILD)/lava-server/usr/share/lava-server/device-types
define boot_check
	$(HARNESS) matrix $(BOOT_CHECK_OPTS) --name boot-check-$(KVER)
	$(HARNESS) lkft-check $(RESULTS)/boot-check-$(KVER)-boots/ktap-*-run_kselftest.txt
	$(HARNESS) lava $(BOOT_CHECK_OPTS) --name lava-boot-check-$(KVER)
	PYTHON=$(PYTHON) scripts/lava-check.sh $(LAVA_TEMPLATES) $(RESULTS) lava-check-$(KVER) \
		$(RESULTS)/boot-check-$(KVER).json -- $(BOOT_CHECK_OPTS)
endef
boot-check: deps xen kernel initramfs boot-dom0-initramfs lava-templates
	$(boot_check)

# The series (scripts/mkseries.sh): make patches mails it as you; the
# stored edits need no sender.
SERIES_GIT = $(BUILD)/series/linux-
KUNIT_TOOL = XT_SERIES=patches/kunit-tool XT_BRANCH=kunit-tool XT_MAIL=$(BUILD)/series/kunit-tool.mail
define mkseries
	@$(3) $(NICE) scripts/mkseries.sh $(CURDIR) $(1) $(SERIES_GIT)$(1) $(2)

endef
define all_series
	@scripts/deps.sh $(SERIES_KVERS)
	$(call mkseries,$(MAINLINE_KVER),$(1),$(KUNIT_TOOL))
	$(foreach v,$(SERIES_KVERS),$(call mkseries,$(v),$(1)))
endef
patches:
	@scripts/sender.sh $(CURDIR) >/dev/null
	$(call all_series,write)
patches-store:
	$(call all_series,store)
patches-take:
	@scripts/mkseries.sh $(CURDIR) $(KVER) $(SERIES_GIT)$(KVER) take
series-check: deps
	$(call all_series,check)

# CI's: the x86_64 kernel built after every mainline patch; the series for
# arm64, i386 and m68k as the 0-day bot builds a posting.
series-bisect: kernel
	@KCC="$(KCC)" scripts/mkseries.sh $(CURDIR) $(MAINLINE_KVER) $(SERIES_GIT)$(MAINLINE_KVER) check \
		$(BUILD)/series/$(MAINLINE_KVER)/x86_64 $(BUILD)/$(MAINLINE_KVER)/x86_64/.config
series-arches: series-check
	@scripts/series-arches.sh $(SERIES_GIT)$(MAINLINE_KVER) $(BUILD)/series-arches configs/arches \
		$(or $(SERIES_ARCHES),arm64 i386 m68k)

# The stable backports as a bot on a stable tree runs them.
backports:
	@$(foreach v,$(BACKPORT_KVERS),$(NICE) $(MAKE) --no-print-directory KVER=$(v) \
		KDIR=$(BUILD)/linux-$(v) OUT=$(BUILD)/$(v) kunit &&) true

# boot-check's checks RUNS times per config beside load (false-failures);
# each kernel of scripts/mutant.sh, which must be flagged every time (misses).
MUTANTS ?= $(shell scripts/mutant.sh list)
false-failures: deps xen kernel initramfs boot-dom0-initramfs
	@$(HARNESS) repeat --profile false-failures $(BOOT_OPTS) --kernel $(BZIMAGE) \
		--dom0-initrd $(BOOT_DOM0_INITRD) --name false-failures-$(KVER) $(USER_SETTINGS)
misses: deps xen tree initramfs
	@$(HARNESS) misses --profile misses $(BOOT_OPTS) --mutants "$(MUTANTS)" \
		--kdir $(KDIR) --build-dir $(OUT) --config $(CURDIR)/configs/xen-guest.config \
		--kcc "$(KCC)" --jobs $(JOBS) --name misses-$(KVER) $(USER_SETTINGS)

# Every line of tests/edge-params.txt booted with the guest kernel.
edge: $(RUN_DEPS)
	$(HARNESS) edge --profile edge $(HARNESS_OPTS) --params-file tests/edge-params.txt \
		--name edge-$(GUEST)-$(KVER)

# The matrix as LAVA jobs (BASE_URL: where a lab fetches images/), run
# here by lava-run, or their logs (LOGS=) judged as local boots.
lava-jobs: $(RUN_DEPS)
	$(HARNESS) lava --profile make $(HARNESS_OPTS) --name lava-$(RUN_NAME) \
		$(if $(BASE_URL),--base-url $(BASE_URL))
lava-run: lava-jobs lava-templates
	scripts/lava-local.sh $(LAVA_TEMPLATES) $(RESULTS)/lava-$(RUN_NAME)-lava/jobs
lava-merge:
	$(HARNESS) merge --profile make $(HARNESS_OPTS) --name lava-$(RUN_NAME) $(if $(LOGS),--logs $(LOGS))
lava-templates: deps
	@scripts/fetch-lava-templates.sh $(BUILD)/lava-server

# The matrix through a LAVA server (LAVA_URL, LAVA_TOKEN_FILE); its workers
# fetch images/ at BASE_URL (default: served from here on the loopback).
lava-lab: $(RUN_DEPS)
	$(HARNESS) lab --profile make $(HARNESS_OPTS) --name lab-$(RUN_NAME) \
		--base-url $(or $(BASE_URL),http://127.0.0.1:8099)
# CI's: scripts/lava-lab-check.sh, a local lab's verdicts against boot-check's.
lava-lab-check: deps xen kernel initramfs boot-dom0-initramfs
	@scripts/lava-lab-check.sh $(BUILD)/lava-lab $(RESULTS)/boot-check-$(KVER).json -- $(BOOT_CHECK_OPTS)

# make check: what boot-check needs first; then boot-check beside the
# series checks and the backports' builds (make -j2), which are niced so
# that QEMU has its CPU when it needs it.  The run-only targets have no
# prerequisites, so that no two makes build one tree at once.
NICE :=
check: host-tests checkpatch selftest kunit kunit-x86 xen initramfs boot-dom0-initramfs lava-templates \
	$(if $(filter $(MAINLINE_KVER),$(KVER)),deps-backports)
	@$(MAKE) --no-print-directory -j2 NICE="nice -n 19" check-last
	@echo "== make check: Linux $(KVER), all passed"
check host-tests: | disk-check

.PHONY: disk-run disk-check check-last boot-check-run series-check-run deps-backports
disk-run:
	@scripts/disk-check.sh make $(BUILD)
disk-check:
	@scripts/disk-check.sh check $(BUILD)
check-last: boot-check-run $(if $(filter $(MAINLINE_KVER),$(KVER)),series-check-run backports)
boot-check-run:
	$(boot_check)
series-check-run:
	$(call all_series,check)
deps-backports:
	@scripts/deps.sh $(BACKPORT_KVERS)

clean:
	rm -rf $(RESULTS) $(BUILD)/tests $(BUILD)/*/kselftest $(BUILD)/*/*.log

distclean:
	rm -rf $(BUILD)

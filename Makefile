# SPDX-License-Identifier: GPL-2.0
#
# xen_timer: the regression suite of Linux's xen_timer_slop= boot parameter.
# 'make' runs the Xen latency matrix, 'make check' the tests.  See README.md.

BUILD      ?= $(CURDIR)/build
KDIR       ?= $(BUILD)/linux-6.12
JOBS       ?= $(shell nproc)
PYTHON     ?= python3

# The matrix ('make run'): slops in ns ("default" omits the parameter).
XEN_SLOPS   ?= 50000 5000
GUEST_SLOPS ?= 100000 5000
INTERVALS   ?= 50 1000
SAMPLES     ?= 1000
ONESHOT     ?= 200
VCPUS       ?= 2
TIMEOUT     ?= 300
# Guest kernel: debian (Debian's prebuilt 6.12, no build) or build (ours).
GUEST       ?= debian
# Thresholds of check (b) under QEMU without KVM, where every short sleep
# takes hundreds of microseconds: they catch a guest whose timers are
# broken (5G slop: 5.4 s per sleep), not a slow emulator.
LAT_OPTS    ?= --avg-max-us 10000 --p99-max-us 100000 --spike-us 20000 --spike-max-pct 5

# KUnit: the number of cases 'make check' requires, so that a test that
# silently disappears fails the run.
KUNIT_MIN_CASES ?= 61

CCACHE := $(shell command -v ccache 2>/dev/null)
KCC    := $(if $(CCACHE),ccache gcc,gcc)
export CCACHE_DIR ?= $(HOME)/.cache/ccache

KUNIT_PY  = $(KDIR)/tools/testing/kunit/kunit.py
X86_BUILD = $(BUILD)/x86_64
BZIMAGE   = $(X86_BUILD)/arch/x86/boot/bzImage
KSFT      = $(BUILD)/kselftest/install
XEN_ELF   = $(BUILD)/xen/xen-4.17.elf
DEB_KERNEL_DIR = $(BUILD)/debian-6.12

ifeq ($(GUEST),debian)
GUEST_KERNEL = $(DEB_KERNEL_DIR)/vmlinuz
GUEST_DEP    = debian-kernel
KUNIT_PARSE  =
else ifeq ($(GUEST),build)
GUEST_KERNEL = $(BZIMAGE)
GUEST_DEP    = kernel
KUNIT_PARSE  = --kunit-boot --kunit-min $(KUNIT_MIN_CASES)
else
$(error GUEST must be debian or build, not '$(GUEST)')
endif

HARNESS = $(PYTHON) scripts/harness.py --xen $(XEN_ELF) --kernel $(GUEST_KERNEL) \
	--initrd $(BUILD)/initramfs.cpio.gz --intervals "$(INTERVALS)" \
	--samples "$(SAMPLES)" --oneshot "$(ONESHOT)" --vcpus "$(VCPUS)" \
	--timeout "$(TIMEOUT)" --lat-opts "$(LAT_OPTS)" --kunit-py $(KUNIT_PY) $(KUNIT_PARSE)

.PHONY: all run deps tree kunit kunit-x86 kernel selftest ksft-install initramfs \
	debian-kernel xen host-tests boot-check checkpatch patches edge check clean distclean

all: run

run: deps xen $(GUEST_DEP) initramfs tree
	$(HARNESS) --xen-slops "$(XEN_SLOPS)" --guest-slops "$(GUEST_SLOPS)" \
		--out $(BUILD)/results --name matrix-$(GUEST)

deps:
	@scripts/deps.sh

tree: deps
	@scripts/prepare-tree.sh $(CURDIR) $(KDIR)

# KUnit on UML, the way every bot runs it.
kunit: tree
	@echo "== kunit: UML, kunit.config, build dir $(BUILD)/uml"
	@scripts/kunit-run.sh $(KUNIT_MIN_CASES) 2 $(BUILD)/kunit-uml.log $(BUILD)/uml \
		$(PYTHON) $(KUNIT_PY) run --kunitconfig=$(CURDIR)/kunit.config \
		--build_dir=$(BUILD)/uml --jobs=$(JOBS) --make_options CC="$(KCC)"

# The x86_64 kernel: tinyconfig + configs/xen-guest.config, built once.
kernel: tree
	@scripts/build-kernel.sh $(KDIR) $(X86_BUILD) $(CURDIR)/configs/xen-guest.config "$(KCC)" $(JOBS)

# KUnit on x86_64 with CONFIG_XEN under QEMU: a valid and a rejected value.
kunit-x86: kernel
	@i=0; for arg in xen_timer_slop=5000 xen_timer_slop=5G "xen_timer_slop=200K xen_timer_slop=abc"; do \
		i=$$((i + 1)); \
		echo "== kunit-x86: x86_64 QEMU, $$arg"; \
		scripts/kunit-run.sh $(KUNIT_MIN_CASES) 1 $(BUILD)/kunit-x86-$$i.log $(X86_BUILD) \
			$(PYTHON) $(KUNIT_PY) exec --arch=x86_64 --build_dir=$(X86_BUILD) \
			--timeout=600 --kernel_args "$$arg" || exit 1; \
	done

# The kselftest, built and run in the tree as CI bots do (skips off Xen),
# then installed static for the initramfs.
selftest: tree
	@echo "== selftest: make -C tools/testing/selftests TARGETS=xen_timer run_tests"
	@$(MAKE) -s -C $(KDIR)/tools/testing/selftests TARGETS=xen_timer \
		O=$(BUILD)/kselftest/host run_tests >$(BUILD)/selftest.log 2>&1; \
		rc=$$?; cat $(BUILD)/selftest.log; \
		[ $$rc = 0 ] && grep -q '^ok 1 selftests: xen_timer: xen_timer_slop_test' $(BUILD)/selftest.log && \
		grep -q '^ok 2 selftests: xen_timer: xen_timer_latency_test' $(BUILD)/selftest.log

ksft-install: tree
	@echo "== kselftest install (static) into $(KSFT)"
	@$(MAKE) -s -C $(KDIR)/tools/testing/selftests TARGETS=xen_timer \
		O=$(BUILD)/kselftest/static LDFLAGS=-static INSTALL_PATH=$(KSFT) install >/dev/null

initramfs: ksft-install
	@scripts/mkinitramfs.sh $(KSFT) $(BUILD)/initramfs.cpio.gz
	@echo "== initramfs $(BUILD)/initramfs.cpio.gz"

debian-kernel: deps
	@scripts/fetch-debian-kernel.sh 6.12 $(DEB_KERNEL_DIR)

xen: deps
	@mkdir -p $(dir $(XEN_ELF))
	@[ -s $(XEN_ELF) ] && [ $(XEN_ELF) -nt /boot/xen-4.17-amd64.gz ] || \
		{ zcat /boot/xen-4.17-amd64.gz >$(XEN_ELF).tmp && mv $(XEN_ELF).tmp $(XEN_ELF); }

host-tests: deps
	@$(MAKE) -s -C tests BUILD=$(BUILD)/tests all fuzz

# Our kernel under Xen: KUnit at boot and the selftests, two configs.
boot-check: deps xen kernel initramfs
	$(PYTHON) scripts/harness.py --xen $(XEN_ELF) --kernel $(BZIMAGE) \
		--initrd $(BUILD)/initramfs.cpio.gz --kunit-py $(KUNIT_PY) --kunit-boot --kunit-min $(KUNIT_MIN_CASES) \
		--xen-slops default --guest-slops "default 100000" --no-default-config \
		--intervals "$(INTERVALS)" --samples 200 --oneshot 100 --vcpus 2 \
		--timeout "$(TIMEOUT)" --lat-opts "$(LAT_OPTS)" \
		--out $(BUILD)/results --name boot-check

# The contribution as one series with a cover letter, checked against the
# pristine base; BISECT=1 also builds the x86_64 kernel after every patch.
patches: deps
	@KCC="$(KCC)" scripts/mkseries.sh $(CURDIR) $(BUILD)/series/linux $(BUILD)/series/out \
		$(if $(BISECT),$(BUILD)/series/x86_64)

# Every line of tests/edge-params.txt booted under Xen with the guest kernel
# (GUEST=debian or build): what the kernel made of each value.
edge: deps xen $(GUEST_DEP) initramfs tree
	$(HARNESS) --params-file tests/edge-params.txt --timeout 90 \
		--out $(BUILD)/results --name edge-$(GUEST)

checkpatch: tree
	@scripts/checkpatch.sh $(CURDIR) $(KDIR)

check: host-tests checkpatch selftest kunit kunit-x86 boot-check
	@echo "== make check: all passed"

clean:
	rm -rf $(BUILD)/results $(BUILD)/tests $(BUILD)/kselftest $(BUILD)/*.log

distclean:
	rm -rf $(BUILD)

// SPDX-License-Identifier: GPL-2.0
/*
 * I/O helpers shared by the xen_timer selftests.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#if __has_include("cpuid.h")
#include <cpuid.h>
#define XT_HAVE_CPUID 1
#endif

#include "xen_timer_common.h"
#include "xen_timer_lib.h"

/*
 * Hypervisor CPUID leaves: Xen puts its "XenVMMXenVMM" leaf at 0x40000000,
 * or 0x100 higher for every other interface it shows first (Viridian for
 * Windows guests), as Linux's xen_cpuid_base() scans them.
 */
#define XT_CPUID_FIRST	0x40000000
#define XT_CPUID_LAST	0x40010000
#define XT_CPUID_STEP	0x100

char *xt_read_file(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + len, cap - len)) > 0) {
		len += r;
		if (len == cap) {
			char *n = realloc(buf, 2 * cap + 1);

			if (!n) {
				r = -1;
				break;
			}
			buf = n;
			cap *= 2;
		}
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

bool xt_on_xen(const char **how)
{
	char *type = xt_read_file("/sys/hypervisor/type");
	bool xen = type && !strncmp(type, "xen", 3);

	free(type);
	if (xen) {
		*how = "/sys/hypervisor/type is xen";
		return true;
	}
#ifdef XT_HAVE_CPUID
	for (unsigned int leaf = XT_CPUID_FIRST; leaf < XT_CPUID_LAST; leaf += XT_CPUID_STEP) {
		unsigned int eax, sig[3];
		char s[13];

		__cpuid(leaf, eax, sig[0], sig[1], sig[2]);
		memcpy(s, sig, 12);
		s[12] = '\0';
		if (!strcmp(s, "XenVMMXenVMM")) {
			*how = "CPUID hypervisor leaf says XenVMMXenVMM";
			return true;
		}
	}
#endif
	*how = "neither /sys/hypervisor/type nor CPUID says xen";
	return false;
}

const char *xt_not_applicable(const char **how)
{
	struct utsname u;
	char *dev;
	bool other;

	if (!uname(&u) && strcmp(u.machine, "x86_64") &&
	    !(u.machine[0] == 'i' && !strcmp(u.machine + 2, "86"))) {
		*how = "uname says the machine is not x86";
		return "xen_timer_slop= is x86 only";
	}
	if (!xt_on_xen(how))
		return "not running on Xen";
	dev = xt_read_file("/sys/devices/system/clockevents/clockevent0/current_device");
	other = dev && strncmp(dev, "xen\n", 4);
	free(dev);
	if (other) {
		*how = "clockevent0's current_device is not xen";
		return "the Xen clockevent is not in use";
	}
	return NULL;
}

int xt_expected_slop(uint64_t *slop, char *why, size_t len)
{
	char *cmdline = xt_read_file("/proc/cmdline");
	struct utsname u;
	int seen;

	if (!cmdline) {
		snprintf(why, len, "/proc/cmdline unreadable");
		return -1;
	}
	uname(&u);
	seen = xt_cmdline_slop(cmdline, xt_default_slop(u.release),
			       XT_MAX_DELTA_NS, slop);
	if (seen == XT_SLOP_UNKNOWN)
		snprintf(why, len,
			 "a xen_timer_slop= value on /proc/cmdline that a kernel may reject or read otherwise; give --expect-ns");
	else if (seen)
		snprintf(why, len, "%d xen_timer_slop parameter(s) on /proc/cmdline",
			 seen);
	else
		snprintf(why, len, "no xen_timer_slop= on /proc/cmdline, default of %s",
			 u.release);
	free(cmdline);
	return seen == XT_SLOP_UNKNOWN ? -1 : 0;
}

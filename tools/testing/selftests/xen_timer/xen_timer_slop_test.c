// SPDX-License-Identifier: GPL-2.0
/*
 * xen_timer_slop_test - the xen_timer_slop= boot parameter reached every CPU
 *
 * Every online CPU must have a per-CPU tick device whose clock event device
 * is "xen", that device must be the CPU's current clockevent, and its
 * min_delta_ns in /proc/timer_list must be the slop the kernel command line
 * asks for (or the kernel's default, or --expect-ns).  A xen_timer_slop=
 * value that kernels read differently (the strict parser rejects it, the
 * old memparse() took what it could) leaves nothing to expect: the
 * results are skipped, after what each CPU has.
 *
 * The results are named "cpuN_min_delta_ns" whether they pass, fail or
 * skip; the values are in a "# XT_CPU key=value ..." diagnostic per CPU.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest.h"
#include "xen_timer_common.h"
#include "xen_timer_lib.h"

#define TEST_NAME	"xen_timer_slop_test"

static void die_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--expect-ns N]  (N: 0..%llu)\n", prog,
		(unsigned long long)XT_MAX_DELTA_NS);
	exit(KSFT_FAIL);
}

/*
 * One result per online CPU, named "cpuN_min_delta_ns" whatever happens;
 * what was measured goes to diagnostics, one "# XT_CPU" line per CPU.
 */
static char names[XT_MAX_CPUS][XT_NAME_LEN];
static int nnames;

/* Skip under the per-CPU names when the online CPUs are known. */
static void skip_test(const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (nnames > 0)
		xt_exit_skip_all(names, nnames, "%s", reason);
	xt_exit_skip(TEST_NAME, "%s", reason);
}

/*
 * One CPU: its tick device in @devs, its current clockevent, and one
 * "# XT_CPU" line with what was found, whether or not there is an
 * expectation (@expect NULL: none; the line then says expected_ns=none).
 * With @name, the CPU's result against @expect comes first, the
 * diagnostics after it (a CI bot's log of the result).
 */
static void check_cpu(int cpu, const struct xt_tick_dev *devs, int n,
		      const uint64_t *expect, const char *name)
{
	const struct xt_tick_dev *d = NULL;
	char path[96], want[24], why[96] = "", *cur;
	int i;

	for (i = 0; i < n; i++)
		if (devs[i].cpu == cpu)
			d = &devs[i];
	snprintf(path, sizeof(path),
		 "/sys/devices/system/clockevents/clockevent%d/current_device", cpu);
	cur = xt_read_file(path);
	if (cur)
		cur[strcspn(cur, "\n")] = '\0';
	if (expect)
		snprintf(want, sizeof(want), "%llu", (unsigned long long)*expect);
	else
		snprintf(want, sizeof(want), "none");

	if (!d || strcmp(d->name, "xen"))
		snprintf(why, sizeof(why), "cpu%d: tick device is %s, not xen", cpu,
			 d ? d->name : "missing");
	else if (!d->has_min)
		snprintf(why, sizeof(why), "cpu%d: xen device without min_delta_ns", cpu);
	else if (!cur || strcmp(cur, "xen"))
		snprintf(why, sizeof(why), "cpu%d: current clockevent is %s, not xen", cpu,
			 cur ? cur : "unreadable");
	else if (expect && d->min_delta_ns != *expect)
		snprintf(why, sizeof(why), "cpu%d: xen min_delta_ns %llu, expected %llu", cpu,
			 (unsigned long long)d->min_delta_ns, (unsigned long long)*expect);
	if (name)
		ksft_test_result(!why[0], "%s\n", name);
	ksft_print_msg("XT_CPU cpu=%d device=%s current=%s min_delta_ns=%lld expected_ns=%s\n",
		       cpu, d ? d->name : "missing", cur ? cur : "unreadable",
		       d && d->has_min ? (long long)d->min_delta_ns : -1LL, want);
	if (why[0])
		ksft_print_msg("%s\n", why);
	free(cur);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "expect-ns", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static struct xt_tick_dev devs[XT_MAX_CPUS];
	static bool online[XT_MAX_CPUS];
	char why[256], *text, *cpus;
	bool have_expect = false, expect_ok = true;
	const char *how, *reason;
	uint64_t expect;
	int c, n, ncpu, cpu;

	opterr = 0;	/* one usage line is all a bad option gets */
	while ((c = getopt_long(argc, argv, "e:h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (xt_parse_u64(optarg, 0, XT_MAX_DELTA_NS, &expect))
				die_usage(argv[0]);
			have_expect = true;
			break;
		default:
			die_usage(argv[0]);
		}
	}
	if (optind != argc)
		die_usage(argv[0]);

	ksft_print_header();
	cpus = xt_read_file("/sys/devices/system/cpu/online");
	if (!cpus)
		xt_exit_skip(TEST_NAME, "/sys/devices/system/cpu/online unreadable\n");
	cpus[strcspn(cpus, "\n")] = '\0';	/* the file's own newline */
	ncpu = xt_parse_cpulist(cpus, online);
	if (ncpu < 0)
		ksft_exit_fail_msg("cannot parse online CPU list '%s'\n", cpus);
	for (cpu = 0; cpu < XT_MAX_CPUS; cpu++)
		if (online[cpu])
			snprintf(names[nnames++], XT_NAME_LEN, "cpu%d_min_delta_ns", cpu);
	/* The plan before any diagnostic, where TAP parsers want it */
	ksft_set_plan(nnames);

	/*
	 * A SKIP reason is a fixed phrase per cause; the values go to
	 * diagnostics.
	 */
	reason = xt_not_applicable(&how);
	if (reason) {
		ksft_print_msg("%s\n", how);
		skip_test("%s\n", reason);
	}
	ksft_print_msg("on Xen: %s\n", how);
	if (geteuid())
		skip_test("needs root to read /proc/timer_list\n");
	text = xt_read_file("/proc/timer_list");
	if (!text) {
		ksft_print_msg("/proc/timer_list: %s\n", strerror(errno));
		skip_test("/proc/timer_list unreadable\n");
	}

	if (have_expect) {
		snprintf(why, sizeof(why), "--expect-ns");
	} else if (xt_expected_slop(&expect, why, sizeof(why))) {
		ksft_print_msg("%s\n", why);
		expect_ok = false;
	}
	if (expect_ok)
		ksft_print_msg("expected slop %llu ns: %s\n",
			       (unsigned long long)expect, why);

	n = xt_parse_timer_list(text, devs, XT_MAX_CPUS);
	if (n < 0)
		ksft_exit_fail_msg("/proc/timer_list is malformed\n");

	/*
	 * What each CPU has is printed even when nothing can be expected of
	 * it, so that runs of one command line can be compared.
	 */
	for (cpu = 0, c = 0; cpu < XT_MAX_CPUS; cpu++) {
		if (!online[cpu])
			continue;
		if (!expect_ok)
			xt_test_skip(names[c], "no expected slop for this command line\n");
		check_cpu(cpu, devs, n, expect_ok ? &expect : NULL,
			  expect_ok ? names[c] : NULL);
		c++;
	}
	if (!expect_ok) {
		ksft_print_cnts();
		exit(KSFT_SKIP);
	}
	free(text);
	free(cpus);
	ksft_finished();
}

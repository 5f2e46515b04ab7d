// SPDX-License-Identifier: GPL-2.0
/*
 * xen_timer_slop_test - the xen_timer_slop= boot parameter reached every CPU
 *
 * Every online CPU whose current clockevent is the Xen one must have it as
 * its tick device in /proc/timer_list, with the slop as its min_delta_ns:
 * --expect-ns, else the last xen_timer_slop= of the command line.  With no
 * such value, or one kernels read differently, every CPU must have CPU 0's.
 * A CPU that does not use the Xen clockevent is skipped.
 *
 * One result per online CPU, "cpuN_min_delta_ns"; each CPU's figures
 * follow it in a "# XT_CPU" line.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest.h"
#include "xen_timer.h"

static struct xt_tick_dev devs[XT_MAX_CPUS];

/* CPU @cpu against @expect (-1: the first CPU's, which @first says) */
static void check_cpu(int cpu, long long expect, long long *first)
{
	const struct xt_tick_dev *d = &devs[cpu];
	char path[96], name[32], *cur;
	bool ok;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/clockevents/clockevent%d/current_device", cpu);
	cur = xt_read_file(path);
	if (cur)
		cur[strcspn(cur, "\n")] = '\0';
	snprintf(name, sizeof(name), "cpu%d_min_delta_ns", cpu);
	if (!cur || strcmp(cur, "xen")) {
		xt_test_skip(name, "the Xen clockevent is not in use");
	} else {
		if (expect < 0 && *first < 0)
			*first = d->min_delta_ns;
		if (expect < 0)
			expect = *first;
		ok = !strcmp(d->name, "xen") && d->min_delta_ns >= 0 && d->min_delta_ns == expect;
		ksft_test_result(ok, "%s\n", name);
	}
	ksft_print_msg("XT_CPU cpu=%d device=%s current=%s min_delta_ns=%lld expected_ns=%lld\n",
		       cpu, d->name[0] ? d->name : "missing", cur ? cur : "unreadable",
		       d->min_delta_ns, expect);
	free(cur);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "expect-ns", required_argument, NULL, 'e' },
		{ }
	};
	long long expect = -1, first = -1;
	char *text, *cmdline, *end;
	int c, cpu, online = 0;
	uint64_t slop;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		expect = c == 'e' ? strtoll(optarg, &end, 10) : -1;
		if (c != 'e' || *end || end == optarg || expect < 0 ||
		    expect > (long long)XT_MAX_SLOP_NS) {
			fprintf(stderr, "usage: %s [--expect-ns NS]\n", argv[0]);
			return KSFT_FAIL;
		}
	}

	ksft_print_header();
	if (xt_not_applicable())
		ksft_exit_skip("%s\n", xt_not_applicable());
	if (geteuid())
		ksft_exit_skip("/proc/timer_list needs root\n");
	text = xt_read_file("/proc/timer_list");
	cmdline = xt_read_file("/proc/cmdline");
	if (!text || !cmdline)
		ksft_exit_fail_msg("cannot read /proc/timer_list or /proc/cmdline\n");
	if (xt_parse_timer_list(text, devs))
		ksft_exit_fail_msg("/proc/timer_list is malformed\n");

	for (cpu = 0; cpu < XT_MAX_CPUS; cpu++)
		online += devs[cpu].online;
	ksft_set_plan(online);
	if (expect < 0 && xt_cmdline_slop(cmdline, &slop) > 0)
		expect = slop;
	if (expect >= 0)
		ksft_print_msg("expected: %lld ns on every CPU\n", expect);
	else
		ksft_print_msg("no slop on the command line: the first CPU's on every CPU\n");

	for (cpu = 0; cpu < XT_MAX_CPUS; cpu++)
		if (devs[cpu].online)
			check_cpu(cpu, expect, &first);
	free(text);
	free(cmdline);
	ksft_finished();
}

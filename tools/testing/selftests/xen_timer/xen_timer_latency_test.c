// SPDX-License-Identifier: GPL-2.0
/*
 * xen_timer_latency_test - short-interval sleep latency of a Xen guest
 *
 * Two checks, as in the thread that introduced xen_timer_slop= (v5.2):
 *
 * (a) The slop S is in effect on the timer path.  Measured differentially,
 *     because under emulation any short sleep takes hundreds of
 *     microseconds: one-shot relative sleeps of S/10 and of S are both
 *     raised to about S by clockevents_program_event() when the slop is in
 *     effect, so their medians agree; without it the S/10 sleeps are
 *     shorter by about 0.9 S.  The check fails when the median of the S/10
 *     sleeps is shorter than that of the S sleeps by 0.45 S or more,
 *     half-way between the two.  Only that direction tells of a missing
 *     slop: in a PVH guest under emulation the S/10 sleeps, which follow
 *     the S sleeps, are often the longer.  Needs S >= 20 us, and a
 *     platform that resolves S: when the sleeps of S overshoot S by more
 *     than S / 2 (under emulation at S = 100 us they take 370-620 us), the
 *     two medians agree with or without the slop, and the result is
 *     skipped, the medians in a diagnostic.
 *
 * (b) cyclictest-style periodic clock_nanosleep(TIMER_ABSTIME) latency at
 *     each interval (default 50 us and 1000 us, the thread's -i50 and
 *     -i1000) against thresholds on the average, the 99th percentile and
 *     the share of samples over the spike threshold (default 100 us, the
 *     thread's "Spikes (over 100)").
 *
 * The default thresholds come from the thread's row with both slops
 * lowered (Xen timer_slop=5000, xen_timer_slop=5000) on a Xen 4.10 host:
 * -i50 min/avg/max 13/30/150 us with 120 spikes, -i1000 37/45/97 us with
 * none.  So: avg <= 45 us (the row's larger average), p99 <= 150 us (the
 * row's largest maximum) and at most 0.1% of samples over 100 us.  A
 * healthy Xen host meets them; an emulated one does not, and the boot
 * harness passes its own.
 *
 * The results have fixed names, whatever happens: "slop_in_effect", and
 * per interval "interval_<US>us_avg", "interval_<US>us_p99" and
 * "interval_<US>us_spikes".  The measured values go to diagnostics.
 *
 * Besides the KTAP results, each interval prints one machine-readable
 * diagnostic line starting "# XT_LAT " and check (a) one starting
 * "# XT_SLOP ", with key=value pairs (times in nanoseconds).  XT_LAT counts
 * the samples over the spike threshold (spikes=) and, for the thread's
 * table, over --report-over-us (over=, default 100 us) whatever threshold
 * the spike check uses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "../kselftest.h"
#include "xen_timer_common.h"
#include "xen_timer_lib.h"

#ifndef ARRAY_SIZE	/* kselftest.h has it since v5.17 */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define TEST_NAME	"xen_timer_latency_test"
#define SLOP_NAME	"slop_in_effect"

#define MAX_INTERVALS	8
#define MAX_RESULTS	(1 + 3 * MAX_INTERVALS)
#define NSEC_PER_SEC	1000000000ULL
#define MIN_DIFF_SLOP	20000ULL	/* check (a) needs S >= 20 us */
#define ONESHOT_BUDGET	(10 * NSEC_PER_SEC)
/*
 * Check (a)'s limit, in percent of S: the median of sleeps of S/10 is
 * shorter than that of sleeps of S by about 0 when the slop is in effect
 * and by about 0.9 S when it is not; 45% is half-way.
 */
#define SLOP_DIFF_LIMIT_PCT	45
/* SCHED_FIFO priority of the sampling thread: the thread's cyclictest -p 80 */
#define RT_PRIORITY	80

struct opts {
	uint64_t intervals[MAX_INTERVALS];	/* us */
	int nintervals;
	uint64_t samples;
	uint64_t duration;			/* s, 0: use samples */
	uint64_t oneshot;
	uint64_t spike_us;
	uint64_t report_us;
	uint64_t avg_max_us;
	uint64_t p99_max_us;
	double spike_max_pct;
	long cpu;
	bool have_n;
	bool have_expect;
	uint64_t expect_ns;
};

/* Formats of the long lines, each on one line so that they can be grepped */
#define USAGE_FMT \
	"usage: %s [-i US[,US...]] [-n SAMPLES | -d SECONDS] [-o ONESHOT_SAMPLES] [--spike-us US] [--avg-max-us US] [--p99-max-us US] [--spike-max-pct PCT] [--report-over-us US] [-c CPU] [--expect-ns NS]\n"
#define XT_SLOP_FMT \
	"XT_SLOP slop_ns=%llu samples=%llu short_ns=%llu short_p50_ns=%llu long_ns=%llu long_p50_ns=%llu shortfall_ns=%lld limit_ns=%llu\n"
#define XT_LAT_FMT \
	"XT_LAT interval_us=%llu samples=%zu min_ns=%llu avg_ns=%.0f max_ns=%llu p50_ns=%llu p99_ns=%llu p999_ns=%llu spikes=%zu spike_us=%llu over=%zu over_us=%llu\n"
#define LAT_SUMMARY_FMT \
	"interval %llu us: %zu samples, min %.1f avg %.1f max %.1f p50 %.1f p99 %.1f p99.9 %.1f us, %zu over %llu us\n"
#define SLOP_MSG_FMT \
	"slop in effect: median sleep %llu us for %llu us, %llu us for %llu us, shorter by at most %llu us (%s)\n"
#define LIMITS_FMT \
	"interval %llu us: avg %.1f us (limit %llu), p99 %.1f us (limit %llu), %.3f%% of samples over %llu us (limit %g%%)\n"
/*
 * Check (a)'s one SKIP reason, whatever the cause (a CI bot names a
 * skipped result after its reason): the cause and its values are the
 * diagnostic before it.
 */
#define SLOP_SKIP	"slop not measurable differentially here\n"
/*
 * Sleeps of S that overshoot S by more than this (under emulation a
 * one-shot sleep takes hundreds of microseconds more than asked): the
 * platform cannot resolve the slop, and sleeps of S/10 take as long as
 * sleeps of S whether the slop is in effect or not.
 */
#define SLOP_RESOLVE_PCT	50ULL
#define UNRESOLVED_FMT \
	"sleeps of %llu us for %llu us: they overshoot by more than %llu us, below this platform's resolution\n"
#define SMALL_SLOP_FMT \
	"slop %llu ns (%s) is below %llu ns, too small to measure differentially\n"

static void die_usage(const char *prog)
{
	fprintf(stderr, USAGE_FMT, prog);
	exit(KSFT_FAIL);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static struct timespec to_ts(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NSEC_PER_SEC, .tv_nsec = ns % NSEC_PER_SEC };

	return ts;
}

/* The options that take one whole number, with its range and where it goes */
static const struct num_opt {
	int key;
	uint64_t lo, hi;
	size_t off;
} num_opts[] = {
	{ 'n', 1, 100000000, offsetof(struct opts, samples) },
	{ 'd', 1, 86400, offsetof(struct opts, duration) },
	{ 'o', 10, 1000000, offsetof(struct opts, oneshot) },
	{ 's', 1, 10000000, offsetof(struct opts, spike_us) },
	{ 'A', 1, 10000000, offsetof(struct opts, avg_max_us) },
	{ 'P', 1, 10000000, offsetof(struct opts, p99_max_us) },
	{ 'R', 1, 10000000, offsetof(struct opts, report_us) },
	{ 'e', 0, XT_MAX_DELTA_NS, offsetof(struct opts, expect_ns) },
};

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "intervals", required_argument, NULL, 'i' },
		{ "samples", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "oneshot-samples", required_argument, NULL, 'o' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "spike-us", required_argument, NULL, 's' },
		{ "avg-max-us", required_argument, NULL, 'A' },
		{ "p99-max-us", required_argument, NULL, 'P' },
		{ "spike-max-pct", required_argument, NULL, 'S' },
		{ "report-over-us", required_argument, NULL, 'R' },
		{ "expect-ns", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	uint64_t v;
	char *end;
	size_t k;
	int c;

	opterr = 0;	/* one usage line is all a bad option gets */
	while ((c = getopt_long(argc, argv, "i:n:d:o:c:h", lopts, NULL)) != -1) {
		for (k = 0; k < ARRAY_SIZE(num_opts) && num_opts[k].key != c; k++)
			;
		if (k < ARRAY_SIZE(num_opts)) {
			if (xt_parse_u64(optarg, num_opts[k].lo, num_opts[k].hi,
					 (uint64_t *)((char *)o + num_opts[k].off)))
				die_usage(argv[0]);
			o->have_n |= c == 'n';
			o->have_expect |= c == 'e';
			continue;
		}
		switch (c) {
		case 'i':
			o->nintervals = xt_parse_u64_list(optarg, o->intervals,
							  MAX_INTERVALS, 1, 1000000);
			if (o->nintervals < 0)
				die_usage(argv[0]);
			break;
		case 'c':
			if (xt_parse_u64(optarg, 0, XT_MAX_CPUS - 1, &v))
				die_usage(argv[0]);
			o->cpu = (long)v;
			break;
		case 'S':
			errno = 0;
			o->spike_max_pct = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->spike_max_pct >= 0) ||
			    o->spike_max_pct > 100)
				die_usage(argv[0]);
			break;
		default:
			die_usage(argv[0]);
		}
	}
	if (optind != argc || (o->have_n && o->duration))
		die_usage(argv[0]);
}

/* Check (a): one-shot sleeps of S/10 are not shorter than sleeps of S. */
static void check_slop(const struct opts *o)
{
	uint64_t s, n, i, *shortv, *longv, ms, ml, limit;
	int64_t shortfall;
	char why[256];

	if (o->have_expect) {
		s = o->expect_ns;
		snprintf(why, sizeof(why), "--expect-ns");
	} else if (xt_expected_slop(&s, why, sizeof(why))) {
		ksft_print_msg("no expected slop: %s\n", why);
		xt_test_skip(SLOP_NAME, SLOP_SKIP);
		return;
	}
	if (s < MIN_DIFF_SLOP) {
		ksft_print_msg(SMALL_SLOP_FMT, (unsigned long long)s, why,
			       (unsigned long long)MIN_DIFF_SLOP);
		xt_test_skip(SLOP_NAME, SLOP_SKIP);
		return;
	}
	n = o->oneshot;
	if (n * 2 * s > ONESHOT_BUDGET)
		n = ONESHOT_BUDGET / (2 * s);
	if (n < 10) {
		ksft_print_msg("slop %llu ns too long to sample in %llu s\n",
			       (unsigned long long)s,
			       (unsigned long long)(ONESHOT_BUDGET / NSEC_PER_SEC));
		xt_test_skip(SLOP_NAME, SLOP_SKIP);
		return;
	}
	shortv = calloc(n, sizeof(*shortv));
	longv = calloc(n, sizeof(*longv));
	if (!shortv || !longv)
		ksft_exit_fail_msg("out of memory\n");
	for (i = 0; i < n; i++) {
		struct timespec a = to_ts(s / 10), b = to_ts(s);
		uint64_t t0, t1, t2;

		t0 = now_ns();
		clock_nanosleep(CLOCK_MONOTONIC, 0, &a, NULL);
		t1 = now_ns();
		clock_nanosleep(CLOCK_MONOTONIC, 0, &b, NULL);
		t2 = now_ns();
		shortv[i] = t1 - t0;
		longv[i] = t2 - t1;
	}
	ms = xt_median(shortv, n);
	ml = xt_median(longv, n);
	shortfall = (int64_t)(ml - ms);
	limit = s * SLOP_DIFF_LIMIT_PCT / 100;
	ksft_print_msg(XT_SLOP_FMT,
		       (unsigned long long)s, (unsigned long long)n,
		       (unsigned long long)(s / 10), (unsigned long long)ms,
		       (unsigned long long)s, (unsigned long long)ml,
		       (long long)shortfall, (unsigned long long)limit);
	ksft_print_msg(SLOP_MSG_FMT,
		       (unsigned long long)(ms / 1000), (unsigned long long)(s / 10000),
		       (unsigned long long)(ml / 1000), (unsigned long long)(s / 1000),
		       (unsigned long long)(limit / 1000), why);
	if (ml > s + s * SLOP_RESOLVE_PCT / 100) {
		ksft_print_msg(UNRESOLVED_FMT, (unsigned long long)(ml / 1000),
			       (unsigned long long)(s / 1000),
			       (unsigned long long)(SLOP_RESOLVE_PCT * s / 100000));
		xt_test_skip(SLOP_NAME, SLOP_SKIP);
	} else {
		ksft_test_result(shortfall < (int64_t)limit, "%s\n", SLOP_NAME);
	}
	free(shortv);
	free(longv);
}

/* Check (b): periodic absolute sleeps at one interval. */
static void check_interval(const struct opts *o, uint64_t interval_us,
			   char names[][XT_NAME_LEN])
{
	uint64_t interval = interval_us * 1000, n, i, next, t, *lat;
	struct xt_stats st, rep;
	struct timespec ts;
	double pct;

	n = o->duration ? o->duration * 1000000 / interval_us : o->samples;
	if (!n)
		n = 1;
	lat = calloc(n, sizeof(*lat));
	if (!lat)
		ksft_exit_fail_msg("out of memory for %llu samples\n",
				   (unsigned long long)n);
	next = now_ns() + interval;
	for (i = 0; i < n; i++) {
		ts = to_ts(next);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		t = now_ns();
		lat[i] = t > next ? t - next : 0;
		next += interval;
		while (t > next)	/* overrun: skip the missed periods, as cyclictest does */
			next += interval;
	}
	xt_stats(lat, n, o->report_us * 1000, &rep);
	xt_stats(lat, n, o->spike_us * 1000, &st);
	free(lat);
	pct = 100.0 * st.spikes / st.n;

	ksft_print_msg(XT_LAT_FMT,
		       (unsigned long long)interval_us, st.n,
		       (unsigned long long)st.min, st.avg,
		       (unsigned long long)st.max, (unsigned long long)st.p50,
		       (unsigned long long)st.p99, (unsigned long long)st.p999,
		       st.spikes, (unsigned long long)o->spike_us, rep.spikes,
		       (unsigned long long)o->report_us);
	ksft_print_msg(LAT_SUMMARY_FMT,
		       (unsigned long long)interval_us, st.n, st.min / 1e3,
		       st.avg / 1e3, st.max / 1e3, st.p50 / 1e3, st.p99 / 1e3,
		       st.p999 / 1e3, st.spikes, (unsigned long long)o->spike_us);

	ksft_print_msg(LIMITS_FMT,
		       (unsigned long long)interval_us, st.avg / 1e3,
		       (unsigned long long)o->avg_max_us, st.p99 / 1e3,
		       (unsigned long long)o->p99_max_us, pct,
		       (unsigned long long)o->spike_us, o->spike_max_pct);
	ksft_test_result(st.avg <= o->avg_max_us * 1000.0, "%s\n", names[0]);
	ksft_test_result(st.p99 <= o->p99_max_us * 1000, "%s\n", names[1]);
	ksft_test_result(pct <= o->spike_max_pct, "%s\n", names[2]);
}

static void setup_rt(const struct opts *o)
{
	struct sched_param sp = { .sched_priority = RT_PRIORITY };

	if (o->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			ksft_exit_fail_msg("cannot run on CPU %ld: %s\n", o->cpu,
					   strerror(errno));
	}
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0))
		ksft_print_msg("timer slack stays at its default: %s\n", strerror(errno));
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		ksft_print_msg("mlockall not allowed: %s\n", strerror(errno));
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		ksft_print_msg("SCHED_FIFO not allowed (%s): SCHED_OTHER, 1 ns slack\n",
			       strerror(errno));
	else
		ksft_print_msg("running SCHED_FIFO priority %d, timer slack 1 ns\n",
			       RT_PRIORITY);
}

int main(int argc, char **argv)
{
	struct opts o = {
		.intervals = { 50, 1000 },
		.nintervals = 2,
		.samples = 10000,
		.oneshot = 1000,
		.spike_us = 100,
		.report_us = 100,
		.avg_max_us = 45,
		.p99_max_us = 150,
		.spike_max_pct = 0.1,
		.cpu = -1,
	};
	static const char *const kinds[] = { "avg", "p99", "spikes" };
	char names[MAX_RESULTS][XT_NAME_LEN];
	const char *how;
	int i, k, n = 0;

	parse_opts(argc, argv, &o);
	snprintf(names[n++], XT_NAME_LEN, "%s", SLOP_NAME);
	for (i = 0; i < o.nintervals; i++)
		for (k = 0; k < 3; k++)
			snprintf(names[n++], XT_NAME_LEN, "interval_%lluus_%s",
				 (unsigned long long)o.intervals[i], kinds[k]);

	ksft_print_header();
	if (!xt_on_xen(&how)) {
		ksft_print_msg("%s\n", how);
		xt_exit_skip_all(names, n, "not running on Xen\n");
	}
	ksft_print_msg("on Xen: %s\n", how);
	setup_rt(&o);

	ksft_set_plan(n);
	check_slop(&o);
	for (i = 0; i < o.nintervals; i++)
		check_interval(&o, o.intervals[i], &names[1 + 3 * i]);
	ksft_finished();
}

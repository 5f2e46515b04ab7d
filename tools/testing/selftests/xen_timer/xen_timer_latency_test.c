// SPDX-License-Identifier: GPL-2.0
/*
 * xen_timer_latency_test - short-interval sleep latency of a Xen guest
 *
 * How long short sleeps take, the measure of the thread that introduced
 * xen_timer_slop= (v5.2): whether the slop is in effect is
 * xen_timer_program_test's question, answered from what the kernel asks
 * of the Xen timer, which no platform's speed blurs.
 *
 * cyclictest's loop: periodic clock_nanosleep(TIMER_ABSTIME) at each
 *     interval (default 50 us and 1000 us, the thread's -i50 and -i1000),
 *     SCHED_FIFO 80, a missed period skipped.  Its latencies are held to
 *     what this platform delivers, measured in the same run: one-shot
 *     sleeps of the same length, which the same slops hold back, half as
 *     many as the periodic samples, the two taking turns in ten chunks so
 *     that a burst of delay from the platform falls on both.  The average of the periodic latencies
 *     may be at most twice that of the one-shot overshoot, their 99th
 *     percentile four times the one-shot one, and at most 1% of them
 *     beyond eight times it (spikes), each plus 10 us.  So a healthy
 *     guest passes on an untuned host, on a tuned one and under emulation
 *     alike, and one whose periodic timers fire late, or not at all until
 *     something else wakes the vCPU, fails.
 *
 *     A limit exceeded over the whole run is the kernel's only where the
 *     platform resolved it: in most of the ten chunks the periodic sleeps
 *     exceed the limit that the chunk's own one-shot sleeps set, and the
 *     medians of the chunks' one-shot sleeps agree with each other within
 *     the limit's factor.  A burst of delay from the platform (the emulator's
 *     host busy) lands in a few chunks, and a host that starves the guest
 *     throughout spreads the one-shot sleeps' own figures further apart
 *     than the factor: the result is then skipped as the platform's
 *     (XT_PLATFORM_SKIP).  Each chunk's figures behind a limit exceeded,
 *     FAIL or SKIP, follow in a "# XT_NOISE" line.
 *     --thread-limits takes the
 *     thread's absolute limits instead, from its row with both slops
 *     lowered to 5000 ns on a Xen 4.10 host (-i50 13/30/150 us
 *     min/avg/max, 120 spikes; -i1000 37/45/97 us, none): avg <= 45 us,
 *     p99 <= 150 us, at most 0.1% over 100 us, which a tuned host meets;
 *     --avg-max-us, --p99-max-us, --spike-us and --spike-max-pct set one
 *     each.
 *
 *     The loop is cyclictest's (-m -p 80): the medians of the two agree
 *     when they run in one boot.  The averages do not: under emulation a
 *     run's average rests on a few samples of milliseconds and varies
 *     threefold from run to run, for either tool.
 *
 * The results have fixed names, whatever happens: per interval
 * "interval_<US>us_avg", "interval_<US>us_p99" and
 * "interval_<US>us_spikes"; a SKIP reason is a fixed phrase per cause.
 * The measured values go to diagnostics after the results, each result's
 * value and limit right after it, then one machine-readable line each,
 * key=value, times in ns: "# XT_LAT " per interval, "# XT_NOISE " per
 * limit exceeded, FAIL or SKIP, with the chunks' figures that decided
 * it.  XT_LAT counts the samples over the spike threshold (spikes=) and,
 * for the thread's table, over --report-over-us (over=, default 100 us).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stddef.h>
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

#define MAX_INTERVALS	8
#define MAX_RESULTS	(3 * MAX_INTERVALS)
#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_USEC	1000ULL
#define ONESHOT_BUDGET	(10 * NSEC_PER_SEC)
/* SCHED_FIFO priority of the sampling thread: the thread's cyclictest -p 80 */
#define RT_PRIORITY	80
/*
 * By default, a periodic wakeup against a one-shot one: the average
 * may be twice the one-shot average, the 99th percentile four times the
 * one-shot 99th percentile, and 1% of the samples beyond eight times it,
 * each plus 10 us.  The tails are the looser: under emulation a run's
 * 99th percentile rests on a few samples of milliseconds.
 */
#define REL_AVG_FACTOR	2
#define REL_P99_FACTOR	4
#define REL_SPIKE_FACTOR	8
#define REL_MARGIN_NS	10000ULL
#define REL_SPIKE_MAX_PCT	1.0
/* The periodic and one-shot sleeps take turns in this many chunks */
#define REF_CHUNKS	10
/* With --thread-limits */
#define THREAD_AVG_MAX_US	45
#define THREAD_P99_MAX_US	150
#define THREAD_SPIKE_US		100
#define THREAD_SPIKE_MAX_PCT	0.1

struct opts {
	uint64_t intervals[MAX_INTERVALS];	/* us */
	int nintervals;
	uint64_t samples;
	uint64_t duration;			/* s, 0: use samples */
	uint64_t oneshot;
	/* the limits: 0 (-1 for the share) is "relative to the platform" */
	uint64_t spike_us;
	uint64_t avg_max_us;
	uint64_t p99_max_us;
	double spike_max_pct;
	uint64_t report_us;
	long cpu;
	bool have_n;
};

/* The limits at one interval, ns (spike_max_pct: percent) */
struct limits {
	double avg;
	uint64_t p99, spike;
	double spike_max_pct;
	const char *from;
};

/* Formats of the long lines, each on one line so that they can be grepped */
#define USAGE_FMT \
	"usage: %s [-i US[,US...]] [-n SAMPLES | -d SECONDS] [-o ONESHOT_SAMPLES] [--thread-limits] [--spike-us US] [--avg-max-us US] [--p99-max-us US] [--spike-max-pct PCT] [--report-over-us US] [-c CPU]\n"
#define XT_LAT_FMT \
	"XT_LAT interval_us=%llu samples=%zu min_ns=%llu avg_ns=%.0f max_ns=%llu p50_ns=%llu p99_ns=%llu p999_ns=%llu spikes=%zu spike_ns=%llu over=%zu over_us=%llu ref_samples=%zu ref_avg_ns=%.0f ref_p99_ns=%llu avg_limit_ns=%.0f p99_limit_ns=%llu\n"
#define LAT_SUMMARY_FMT \
	"interval %llu us: %zu samples, min %.1f avg %.1f max %.1f p50 %.1f p99 %.1f p99.9 %.1f us, %zu over %.1f us\n"
#define LIMITS_FMT \
	"interval %llu us: avg %.1f us (limit %.1f), p99 %.1f us (limit %.1f), %.3f%% of samples over %.1f us (limit %g%%), limits %s\n"
#define CHECK_FMT \
	"interval %llu us: %s %.*f%s (limit %.*f)\n"
#define XT_NOISE_FMT \
	"XT_NOISE interval_us=%llu check=%s chunks=%d chunks_over=%d value=%.0f limit=%.0f ref_spread=%.2f factor=%d chunk_values=%s\n"

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
		{ "thread-limits", no_argument, NULL, 'T' },
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
		case 'T':
			o->avg_max_us = o->avg_max_us ?: THREAD_AVG_MAX_US;
			o->p99_max_us = o->p99_max_us ?: THREAD_P99_MAX_US;
			o->spike_us = o->spike_us ?: THREAD_SPIKE_US;
			if (o->spike_max_pct < 0)
				o->spike_max_pct = THREAD_SPIKE_MAX_PCT;
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

/* The limits at one interval: the options', or the reference's. */
static struct limits limits_of(const struct opts *o, const struct xt_stats *ref)
{
	struct limits l = {
		.avg = REL_AVG_FACTOR * ref->avg + REL_MARGIN_NS,
		.p99 = REL_P99_FACTOR * ref->p99 + REL_MARGIN_NS,
		.spike = REL_SPIKE_FACTOR * ref->p99 + REL_MARGIN_NS,
		.spike_max_pct = REL_SPIKE_MAX_PCT,
		.from = "relative to one-shot sleeps of the interval",
	};

	if (o->avg_max_us || o->p99_max_us || o->spike_us || o->spike_max_pct >= 0)
		l.from = "the options' (some relative)";
	if (o->avg_max_us && o->p99_max_us && o->spike_us && o->spike_max_pct >= 0)
		l.from = "absolute, the options'";
	if (o->avg_max_us)
		l.avg = o->avg_max_us * 1000.0;
	if (o->p99_max_us)
		l.p99 = o->p99_max_us * NSEC_PER_USEC;
	if (o->spike_us)
		l.spike = o->spike_us * NSEC_PER_USEC;
	if (o->spike_max_pct >= 0)
		l.spike_max_pct = o->spike_max_pct;
	return l;
}

/*
 * One interval: cyclictest's loop, periodic absolute sleeps with a
 * missed period skipped, into @lat; and the reference, one-shot relative
 * sleeps of the interval, half as many (at least o->oneshot), into @ref.
 * They take turns in REF_CHUNKS chunks, so that a burst of delay from the
 * platform (an emulator's host, another guest) falls on both alike.
 * Returns how many periodic samples there are; @rend[c] is where chunk c
 * of @ref ends (chunk c of @lat ends at n * (c + 1) / REF_CHUNKS).
 */
static uint64_t sample_interval(const struct opts *o, uint64_t interval, uint64_t n,
				uint64_t *lat, uint64_t *ref, uint64_t *rend)
{
	uint64_t per = n / 2 > o->oneshot ? n / 2 : o->oneshot;
	uint64_t c, i = 0, j = 0, next, t, t0, end = now_ns() + ONESHOT_BUDGET;
	struct timespec ts, rel = to_ts(interval);

	for (c = 1; c <= REF_CHUNKS; c++) {
		for (; j < per * c / REF_CHUNKS && (!j || now_ns() < end); j++) {
			t0 = now_ns();
			clock_nanosleep(CLOCK_MONOTONIC, 0, &rel, NULL);
			t = now_ns();
			ref[j] = t - t0 > interval ? t - t0 - interval : 0;
		}
		next = now_ns() + interval;
		for (; i < n * c / REF_CHUNKS; i++) {
			ts = to_ts(next);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			t = now_ns();
			lat[i] = t > next ? t - next : 0;
			next += interval;
			/* overrun: skip the missed periods, as cyclictest does */
			while (t > next)
				next += interval;
		}
		rend[c - 1] = j;
	}
	return i;
}

/* The three checks' values of @st, and their limits @l: avg, p99, share */
static void values_of(const struct xt_stats *st, const struct limits *l, double val[3],
		      double lim[3])
{
	val[0] = st->avg;
	lim[0] = l->avg;
	val[1] = st->p99;
	lim[1] = l->p99;
	val[2] = st->n ? 100.0 * st->spikes / st->n : 0;
	lim[2] = l->spike_max_pct;
}

/*
 * Each chunk on its own, its periodic samples against the limits its
 * one-shot samples set: in how many chunks each check fails (@over), and
 * the chunks' values, "value/limit" each, for a diagnostic (@text[k]).
 * @spread is how far apart the chunks' one-shot sleeps are, the largest
 * chunk's median over the smallest: the platform's own noise, which a
 * single stall does not move and a host that starves the guest does.
 */
static void chunk_verdicts(const struct opts *o, const uint64_t *lat, uint64_t n,
			   const uint64_t *ref, const uint64_t *rend, int over[3],
			   char text[3][REF_CHUNKS * 24], double *spread)
{
	double fmin = 0, fmax = 0;

	uint64_t *a = calloc(n + 1, sizeof(*a)), *b = calloc(rend[REF_CHUNKS - 1] + 1, sizeof(*b));
	uint64_t c, lo, hi, rlo, rhi;
	double val[3], lim[3];
	struct xt_stats st, rs;
	struct limits l;
	int k;

	if (!a || !b)
		ksft_exit_fail_msg("out of memory for the chunks\n");
	for (k = 0; k < 3; k++) {
		over[k] = 0;
		text[k][0] = 0;
	}
	for (c = 0; c < REF_CHUNKS; c++) {
		lo = n * c / REF_CHUNKS;
		hi = n * (c + 1) / REF_CHUNKS;
		rlo = c ? rend[c - 1] : 0;
		rhi = rend[c];
		memcpy(a, lat + lo, (hi - lo) * sizeof(*a));
		memcpy(b, ref + rlo, (rhi - rlo) * sizeof(*b));
		xt_stats(b, rhi - rlo, UINT64_MAX, &rs);
		if (rhi > rlo) {
			fmin = !fmin || rs.p50 < fmin ? rs.p50 : fmin;
			fmax = rs.p50 > fmax ? rs.p50 : fmax;
		}
		l = limits_of(o, &rs);
		xt_stats(a, hi - lo, l.spike, &st);
		values_of(&st, &l, val, lim);
		for (k = 0; k < 3; k++) {
			over[k] += hi > lo && val[k] > lim[k];
			snprintf(text[k] + strlen(text[k]), 24, "%s%.0f/%.0f", c ? "," : "",
				 k < 2 ? val[k] / 1e3 : val[k], k < 2 ? lim[k] / 1e3 : lim[k]);
		}
	}
	free(a);
	free(b);
	*spread = fmin > 0 ? fmax / fmin : 1;
}

/*
 * Periodic latency at one interval against its limits.  A limit exceeded
 * is the kernel's where most chunks exceed it too, else the platform's.
 */
static void check_interval(const struct opts *o, uint64_t interval_us,
			   char names[][XT_NAME_LEN])
{
	static const char *const checks[] = { "avg", "p99", "spikes" };
	static const int factor[] = { REL_AVG_FACTOR, REL_P99_FACTOR, REL_SPIKE_FACTOR };
	uint64_t interval = interval_us * NSEC_PER_USEC, n, nref, *lat, *refv;
	uint64_t rend[REF_CHUNKS];
	char text[3][REF_CHUNKS * 24];
	double val[3], lim[3];
	struct xt_stats st, rep, ref;
	double pct, spread;
	int over[3], k;
	struct limits l;

	n = o->duration ? o->duration * 1000000 / interval_us : o->samples;
	if (!n)
		n = 1;
	lat = calloc(n, sizeof(*lat));
	refv = calloc(n / 2 > o->oneshot ? n / 2 : o->oneshot, sizeof(*refv));
	if (!lat || !refv)
		ksft_exit_fail_msg("out of memory for %llu samples\n",
				   (unsigned long long)n);
	n = sample_interval(o, interval, n, lat, refv, rend);
	nref = rend[REF_CHUNKS - 1];
	chunk_verdicts(o, lat, n, refv, rend, over, text, &spread);
	xt_stats(refv, nref, UINT64_MAX, &ref);
	free(refv);
	l = limits_of(o, &ref);
	xt_stats(lat, n, o->report_us * NSEC_PER_USEC, &rep);
	xt_stats(lat, n, l.spike, &st);
	free(lat);
	pct = 100.0 * st.spikes / st.n;

	/*
	 * Each result first, then what it rests on: a CI bot takes the
	 * diagnostics after a result as its log.
	 */
	values_of(&st, &l, val, lim);
	for (k = 0; k < 3; k++) {
		if (val[k] <= lim[k] || (2 * over[k] > REF_CHUNKS && spread <= factor[k]))
			ksft_test_result(val[k] <= lim[k], "%s\n", names[k]);
		else
			xt_test_skip(names[k], XT_PLATFORM_SKIP);
		/* What decided a limit exceeded, a FAIL as much as a SKIP */
		if (val[k] > lim[k])
			ksft_print_msg(XT_NOISE_FMT, (unsigned long long)interval_us, checks[k],
				       REF_CHUNKS, over[k], val[k], lim[k], spread, factor[k],
				       text[k]);
		ksft_print_msg(CHECK_FMT, (unsigned long long)interval_us, checks[k],
			       k < 2 ? 1 : 3, k < 2 ? val[k] / 1e3 : val[k], k < 2 ? " us" : "%",
			       k < 2 ? 1 : 3, k < 2 ? lim[k] / 1e3 : lim[k]);
	}
	ksft_print_msg(XT_LAT_FMT,
		       (unsigned long long)interval_us, st.n,
		       (unsigned long long)st.min, st.avg,
		       (unsigned long long)st.max, (unsigned long long)st.p50,
		       (unsigned long long)st.p99, (unsigned long long)st.p999,
		       st.spikes, (unsigned long long)l.spike, rep.spikes,
		       (unsigned long long)o->report_us, ref.n, ref.avg,
		       (unsigned long long)ref.p99, l.avg, (unsigned long long)l.p99);
	ksft_print_msg(LAT_SUMMARY_FMT,
		       (unsigned long long)interval_us, st.n, st.min / 1e3,
		       st.avg / 1e3, st.max / 1e3, st.p50 / 1e3, st.p99 / 1e3,
		       st.p999 / 1e3, st.spikes, l.spike / 1e3);
	ksft_print_msg(LIMITS_FMT,
		       (unsigned long long)interval_us, st.avg / 1e3, l.avg / 1e3,
		       st.p99 / 1e3, l.p99 / 1e3, pct, l.spike / 1e3,
		       l.spike_max_pct, l.from);
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
		.spike_max_pct = -1,
		.report_us = 100,
		.cpu = -1,
	};
	static const char *const kinds[] = { "avg", "p99", "spikes" };
	char names[MAX_RESULTS][XT_NAME_LEN];
	const char *how, *reason;
	int i, k, n = 0;

	parse_opts(argc, argv, &o);
	for (i = 0; i < o.nintervals; i++)
		for (k = 0; k < 3; k++)
			snprintf(names[n++], XT_NAME_LEN, "interval_%lluus_%s",
				 (unsigned long long)o.intervals[i], kinds[k]);

	ksft_print_header();
	ksft_set_plan(n);
	reason = xt_not_applicable(&how);
	if (reason) {
		ksft_print_msg("%s\n", how);
		xt_exit_skip_all(names, n, "%s\n", reason);
	}
	ksft_print_msg("on Xen: %s\n", how);
	setup_rt(&o);

	for (i = 0; i < o.nintervals; i++)
		check_interval(&o, o.intervals[i], &names[3 * i]);
	ksft_finished();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * xen_timer_latency_test - how late short periodic sleeps wake
 *
 * cyclictest's loop (-m -p 80): periodic clock_nanosleep(TIMER_ABSTIME)
 * at each interval (-i, default 50 and 1000 us, as in the thread that
 * added xen_timer_slop=), SCHED_FIFO 80, 1 ns of timer slack, a missed
 * period skipped.  Half as many one-shot sleeps of the interval, taking
 * turns with them in ten chunks, set the limits: the periodic average
 * may be twice the one-shot one, the 99th percentile four times the
 * one-shot one, and 1% of the samples later than eight times it, each
 * plus 10 us.  --thread-limits takes the thread's figures of a tuned host
 * instead: 45 us on average, 150 us at the 99th percentile, 0.1% of the
 * samples over 100 us.
 *
 * Results per interval: "interval_<US>us_avg", "_p99" and "_spikes", then
 * an "# XT_LAT" line of its figures and an "# XT_CHUNK" line per chunk
 * with the chunk's figures and limits.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "../kselftest.h"
#include "xen_timer.h"

#define CHUNK_FMT \
	"XT_CHUNK interval_us=%llu chunk=%zu samples=%zu avg_ns=%.0f avg_limit_ns=%.0f p99_ns=%.0f p99_limit_ns=%.0f spikes_pct=%.3f spikes_limit_pct=%.1f ref_samples=%zu ref_p50_ns=%llu\n"
#define LAT_FMT \
	"XT_LAT interval_us=%llu samples=%zu min_ns=%llu avg_ns=%.0f max_ns=%llu p50_ns=%llu p99_ns=%.0f spikes_pct=%.3f spike_ns=%llu over=%zu over_us=%llu ref_samples=%zu ref_avg_ns=%.0f ref_p99_ns=%.0f avg_limit_ns=%.0f p99_limit_ns=%.0f spikes_limit_pct=%.1f\n"

#define MAX_INTERVALS	8
#define CHUNKS		10
#define MARGIN_NS	10000

/* The thread's spikes: samples over 100 us */
#define SPIKE_NS	100000ULL

/* The three checks: average, 99th percentile (ns), share of spikes (%) */
struct stats {
	size_t n, over;
	double val[3];
	uint64_t min, max, p50;
};

struct limits {
	double lim[3];
	uint64_t spike_ns;
};

static bool thread_limits;

/* Statistics of @n samples (sorted in place), spikes over @spike */
static struct stats stats_of(uint64_t *v, size_t n, uint64_t spike)
{
	struct stats st = { .n = n };
	size_t i;

	if (!n)
		return st;
	qsort(v, n, sizeof(*v), xt_cmp_u64);
	for (i = 0; i < n; i++) {
		st.val[0] += (double)v[i] / n;
		st.val[2] += v[i] > spike ? 100.0 / n : 0;
		st.over += v[i] > SPIKE_NS;
	}
	st.val[1] = v[(n * 99 + 99) / 100 - 1];
	st.min = v[0];
	st.max = v[n - 1];
	st.p50 = v[(n - 1) / 2];
	return st;
}

static struct limits limits_of(const struct stats *ref)
{
	if (thread_limits)
		return (struct limits){ { 45000, 150000, 0.1 }, SPIKE_NS };
	return (struct limits){ { 2 * ref->val[0] + MARGIN_NS, 4 * ref->val[1] + MARGIN_NS, 1.0 },
				8 * ref->val[1] + MARGIN_NS };
}

/*
 * @n periodic sleeps into @lat and n / 2 one-shot ones into @ref, taking
 * turns in CHUNKS chunks: chunk c of @lat ends at n * (c + 1) / CHUNKS,
 * of @ref at n / 2 * (c + 1) / CHUNKS.
 */
static void sample(uint64_t interval, size_t n, uint64_t *lat, uint64_t *ref)
{
	struct timespec ts, rel = xt_ts(interval);
	uint64_t next, t, t0;
	size_t c, i = 0, j = 0;

	for (c = 1; c <= CHUNKS; c++) {
		for (; j < n / 2 * c / CHUNKS; j++) {
			t0 = xt_now();
			clock_nanosleep(CLOCK_MONOTONIC, 0, &rel, NULL);
			t = xt_now();
			ref[j] = t - t0 > interval ? t - t0 - interval : 0;
		}
		for (next = xt_now() + interval; i < n * c / CHUNKS; i++) {
			ts = xt_ts(next);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			t = xt_now();
			lat[i] = t > next ? t - next : 0;
			while (next < t)	/* missed periods are skipped */
				next += interval;
		}
	}
}

static void run_interval(uint64_t us, size_t n)
{
	static const char *const kind[] = { "avg", "p99", "spikes" };
	uint64_t *lat = calloc(n, sizeof(*lat)), *ref = calloc(n / 2, sizeof(*ref));
	uint64_t *a = calloc(n, sizeof(*a)), *b = calloc(n / 2, sizeof(*b));
	struct stats st, rs;
	struct limits l;
	size_t c, lo, rlo;
	int k;

	if (!lat || !ref || !a || !b)
		ksft_exit_fail_msg("out of memory for %zu samples\n", n);
	sample(us * 1000, n, lat, ref);
	memcpy(a, lat, n * sizeof(*a));
	memcpy(b, ref, n / 2 * sizeof(*b));
	rs = stats_of(b, n / 2, 0);
	l = limits_of(&rs);
	st = stats_of(a, n, l.spike_ns);
	for (k = 0; k < 3; k++)
		ksft_test_result(st.val[k] <= l.lim[k], "interval_%lluus_%s\n",
				 (unsigned long long)us, kind[k]);
	ksft_print_msg(LAT_FMT, (unsigned long long)us, st.n, (unsigned long long)st.min,
		       st.val[0], (unsigned long long)st.max, (unsigned long long)st.p50,
		       st.val[1], st.val[2], (unsigned long long)l.spike_ns, st.over,
		       SPIKE_NS / 1000, rs.n, rs.val[0], rs.val[1], l.lim[0], l.lim[1], l.lim[2]);
	/* Each chunk against its own one-shot sleeps */
	for (c = 0; c < CHUNKS; c++) {
		lo = n * c / CHUNKS;
		rlo = n / 2 * c / CHUNKS;
		memcpy(a, lat + lo, (n * (c + 1) / CHUNKS - lo) * sizeof(*a));
		rs = stats_of(ref + rlo, n / 2 * (c + 1) / CHUNKS - rlo, 0);
		l = limits_of(&rs);
		st = stats_of(a, n * (c + 1) / CHUNKS - lo, l.spike_ns);
		ksft_print_msg(CHUNK_FMT, (unsigned long long)us, c, st.n, st.val[0], l.lim[0],
			       st.val[1], l.lim[1], st.val[2], l.lim[2], rs.n,
			       (unsigned long long)rs.p50);
	}
	free(lat);
	free(ref);
	free(a);
	free(b);
}

static void die_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-i US[,US...]] [-n SAMPLES] [--thread-limits]\n", prog);
	exit(KSFT_FAIL);
}

/* A whole number of @s in [@lo, @hi], or the usage */
static uint64_t number(const char *s, char **end, uint64_t lo, uint64_t hi, const char *prog)
{
	uint64_t v = strtoull(s, end, 10);

	if (!isdigit((unsigned char)*s) || v < lo || v > hi)
		die_usage(prog);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "thread-limits", no_argument, NULL, 'T' },
		{ }
	};
	uint64_t intervals[MAX_INTERVALS] = { 50, 1000 }, samples = 10000;
	struct sched_param sp = { .sched_priority = 80 };
	int c, i, nint = 2;
	char *p;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:n:", opts, NULL)) != -1) {
		if (c == 'i')
			for (nint = 0, p = optarg; nint < MAX_INTERVALS; p++) {
				intervals[nint++] = number(p, &p, 1, 1000000, argv[0]);
				if (*p != ',')
					break;
			}
		else if (c == 'n')
			samples = number(optarg, &p, 20, 100000000, argv[0]);
		thread_limits |= c == 'T';
		if ((c != 'i' && c != 'n' && c != 'T') || (c != 'T' && *p))
			die_usage(argv[0]);
	}
	if (optind != argc)
		die_usage(argv[0]);

	ksft_print_header();
	if (xt_not_applicable())
		ksft_exit_skip("%s\n", xt_not_applicable());
	ksft_set_plan(3 * nint);
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) || mlockall(MCL_CURRENT | MCL_FUTURE) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp))
		ksft_print_msg("SCHED_FIFO 80, timer slack 1 ns or mlockall not allowed\n");
	for (i = 0; i < nint; i++)
		run_interval(intervals[i], samples);
	ksft_finished();
}

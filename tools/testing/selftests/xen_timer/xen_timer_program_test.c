// SPDX-License-Identifier: GPL-2.0
/*
 * xen_timer_program_test - is the slop in effect on the timer path
 *
 * xen_timer_slop= is the minimum delta S of the Xen clockevent devices.
 * While a task makes timers on one CPU, kprobe events record in a tracefs
 * instance of the test's own, with the "mono" clock, what the kernel asks
 * of that CPU's clockevent device and when the device fires:
 * clockevents_program_event() (xt_prog, the expiry asked for, and xt_ret),
 * hrtimer_interrupt() (xt_fire) and, where the kernel lets it be probed,
 * xen_vcpuop_set_next_event() (xt_next, the delta).  What every
 * clockevents core promises for a minimum delta S is checked against it:
 *
 *  - the device is handed no delta below S, and S for an expiry nearer
 *    than S;
 *  - an expiry E asked for at T arms the device for max(E, T + S) or
 *    later, or leaves it as it is, so no fire comes before the earliest
 *    such deadline since the last fire, nor before one from before it
 *    that may not have been due then (armed at the latest at the return
 *    plus S).  Xen never fires a timer early: a fire before them is the
 *    kernel's, however slow the guest runs;
 *  - where S is 20 us or more and at least twice Xen's timer_slop
 *    (--host-slop-ns), the quickest fire after an expiry nearer than S
 *    comes within S / 2 of its deadline plus the tenth percentile of how
 *    late fires come after farther expiries.
 *
 * Not judged: the first two fires, which may be for deadlines armed before
 * the trace, and a fire stamped, or whose expiries were, in one
 * microsecond with two other events (the guest's clock stood still).
 *
 * One result, "slop_in_effect"; the counts after it in an "# XT_PROG" line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "../kselftest.h"
#include "xen_timer.h"

#define PROG_FMT \
	"XT_PROG slop_ns=%llu events=%zu requests=%zu short=%zu calls=%zu below_slop=%zu short_not_slop=%zu fires=%zu judged=%zu early=%zu early_by_ns=%llu stuck=%zu forced=%zu forced_min_ns=%llu normal=%zu normal_p10_ns=%llu late_limit_ns=%llu missed=%lu\n"

#define TRACEFS		"/sys/kernel/tracing"
#define INSTANCE	TRACEFS "/instances/xen_timer_program"
#define MAX_EVENTS	200000
#define BUDGET_NS	(3 * NSEC_PER_SEC)
#define NEVER		UINT64_MAX
/* The trace's times are microseconds; the trace and the core's clock differ by less */
#define FIRE_TOL_NS	2000
#define CLOCK_TOL_NS	500
#define MIN_LATE_SLOP_NS	20000

enum type { PROG, RET, FIRE, NEXT };

struct event {
	enum type type;
	uint64_t ts, delta;
	int64_t expires;
};

/* The first three are needed */
static const char *const probes[] = {
	"xt_prog clockevents_program_event expires=$arg2:s64",
	"xt_ret clockevents_program_event",
	"xt_fire hrtimer_interrupt",
	"xt_next xen_vcpuop_set_next_event delta=$arg1:u64",
};

struct verdict {
	size_t requests, short_reqs, calls, below, not_slop, fires, judged, early;
	size_t forced, normal, stuck;
	uint64_t early_by, forced_min, normal_p10, limit;
};

static int tracefs(const char *path, const char *s, bool append)
{
	int fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC)), ret = 0;

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -1;
	if (fd >= 0)
		close(fd);
	return ret;
}

static void cleanup(void)
{
	char s[64];
	size_t i;

	tracefs(INSTANCE "/tracing_on", "0", false);
	rmdir(INSTANCE);
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		snprintf(s, sizeof(s), "-:%.*s\n", (int)strcspn(probes[i], " "), probes[i]);
		tracefs(TRACEFS "/kprobe_events", s, true);
	}
}

/* The probes and an instance of our own; a skip where they cannot be had */
static void setup_trace(void)
{
	char s[128];
	size_t i;

	if (access(TRACEFS "/kprobe_events", W_OK))
		mount("nodev", TRACEFS, "tracefs", 0, NULL);
	if (access(TRACEFS "/kprobe_events", W_OK))
		ksft_exit_skip("no kprobe events in tracefs\n");
	cleanup();
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		snprintf(s, sizeof(s), "%c:%s\n", i == 1 ? 'r' : 'p', probes[i]);
		if (tracefs(TRACEFS "/kprobe_events", s, true) && i < 3) {
			cleanup();
			ksft_exit_skip("cannot add the kprobe event %s", s);
		}
	}
	if (mkdir(INSTANCE, 0755) || tracefs(INSTANCE "/trace_clock", "mono", false) ||
	    tracefs(INSTANCE "/buffer_size_kb", "8192", false) ||
	    tracefs(INSTANCE "/events/kprobes/enable", "1", false)) {
		cleanup();
		ksft_exit_fail_msg("cannot set up the trace instance %s\n", INSTANCE);
	}
}

/*
 * Expiries nearer than S, and farther ones: sleeps of S / 10 and of 2 S,
 * and an interval timer of S / 2 that the kernel rearms when its signal
 * is taken, which asks for expiries already past when S is small.
 */
static void workload(uint64_t slop, unsigned int n)
{
	struct timespec near = xt_ts(slop / 10 ?: 1), far = xt_ts(2 * slop), half = xt_ts(slop / 2);
	struct timeval tv = { half.tv_sec, half.tv_nsec / 1000 ?: !half.tv_sec };
	struct itimerval it = { tv, tv };
	uint64_t end = xt_now() + BUDGET_NS;
	unsigned int i;
	sigset_t set;
	int sig;

	for (i = 0; i < n && xt_now() < end; i++)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &near, NULL);
	for (i = 0; i < n / 4 && xt_now() < end && slop >= MIN_LATE_SLOP_NS; i++)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &far, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0, end = xt_now() + BUDGET_NS; i < n && xt_now() < end; i++)
		sigwait(&set, &sig);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
}

/* The events of CPU @cpu in the trace into @ev; their number */
static size_t read_events(int cpu, struct event *ev)
{
	static const char kinds[] = "prfn";	/* xt_prog, xt_ret, ...: enum type */
	char line[512], tag[16], *at, *p;
	unsigned long long sec, usec;
	size_t n = 0, t;
	FILE *f;

	snprintf(tag, sizeof(tag), "[%03d]", cpu);
	f = fopen(INSTANCE "/trace", "r");
	if (!f)
		ksft_exit_fail_msg("cannot read the trace: %s\n", strerror(errno));
	while (fgets(line, sizeof(line), f) && n < MAX_EVENTS) {
		at = strstr(line, ": xt_");
		if (line[0] == '#' || !at || !strstr(line, tag))
			continue;
		for (p = at; p > line && p[-1] != ' '; p--)
			;
		if (!strchr(kinds, at[5]) || sscanf(p, "%llu.%6llu", &sec, &usec) != 2)
			continue;
		t = strchr(kinds, at[5]) - kinds;
		ev[n] = (struct event){ .type = t, .ts = sec * NSEC_PER_SEC + usec * 1000 };
		p = strchr(at + 2, '=');
		if (p && t == PROG)
			ev[n].expires = strtoll(p + 1, NULL, 10);
		if (p && t == NEXT)
			ev[n].delta = strtoull(p + 1, NULL, 10);
		n++;
	}
	fclose(f);
	return n;
}

/* Event @i shares its microsecond with two others: the clock stood still */
static bool stuck_at(const struct event *ev, size_t n, size_t i)
{
	return (i >= 2 && ev[i - 2].ts == ev[i].ts) || (i + 2 < n && ev[i + 2].ts == ev[i].ts) ||
	       (i >= 1 && i + 1 < n && ev[i - 1].ts == ev[i].ts && ev[i + 1].ts == ev[i].ts);
}

/* The earliest deadline an expiry asked for at @t may arm: max(E, t + S) */
static uint64_t deadline(const struct event *e, uint64_t t, uint64_t slop)
{
	return e->expires > (int64_t)(t + slop) ? (uint64_t)e->expires : t + slop;
}

/*
 * The earliest deadline of the expiries among events [@from, @to) that
 * may not have been due at @t: armed no later than their return plus S,
 * they may still fire.
 */
static uint64_t carried(const struct event *ev, size_t from, size_t to, uint64_t slop,
			uint64_t t)
{
	uint64_t least = NEVER;
	size_t k, r;

	for (k = from; k < to; k++) {
		for (r = k + 1; r < to && ev[r].type != RET; r++)
			;
		if (ev[k].type == PROG && deadline(&ev[k], ev[k].ts, slop) < least &&
		    (r == to || deadline(&ev[k], ev[r].ts, slop) + FIRE_TOL_NS > t))
			least = deadline(&ev[k], ev[k].ts, slop);
	}
	return least;
}

static void judge(const struct event *ev, size_t n, uint64_t slop, uint64_t host_slop,
		  struct verdict *v)
{
	uint64_t lo = NEVER, carry = NEVER, bound, d, *lat = calloc(n + 1, sizeof(*lat));
	bool lo_short = false, open_short = false, window_ok = true, stuck, near;
	size_t i, from = 0;
	int unjudged = 2;

	*v = (struct verdict){ .forced_min = NEVER };
	if (!lat)
		ksft_exit_fail_msg("out of memory\n");
	for (i = 0; i < n; i++) {
		const struct event *e = &ev[i];

		stuck = stuck_at(ev, n, i);
		v->stuck += stuck;
		near = e->expires + CLOCK_TOL_NS < (int64_t)(e->ts + slop);
		if (e->type == PROG) {
			v->requests++;
			v->short_reqs += near;
			open_short = near;
			window_ok &= !stuck;
			if (deadline(e, e->ts, slop) < lo) {
				lo = deadline(e, e->ts, slop);
				lo_short = near;
			}
		} else if (e->type == NEXT) {
			v->calls++;
			v->below += e->delta < slop;
			v->not_slop += open_short && e->delta != slop;
		}
		open_short &= e->type == PROG;
		if (e->type != FIRE)
			continue;
		v->fires++;
		bound = lo < carry ? lo : carry;
		if (!unjudged && window_ok && !stuck && bound != NEVER) {
			v->judged++;
			d = e->ts > lo ? e->ts - lo : 0;
			if (e->ts + FIRE_TOL_NS < bound) {
				v->early++;
				if (bound - e->ts > v->early_by)
					v->early_by = bound - e->ts;
			} else if (lo <= carry && lo_short) {
				v->forced++;
				if (d < v->forced_min)
					v->forced_min = d;
			} else if (lo <= carry) {
				lat[v->normal++] = d;
			}
		}
		unjudged -= unjudged > 0;
		carry = carried(ev, from, i, slop, e->ts);
		from = i + 1;
		lo = NEVER;
		window_ok = true;
	}
	qsort(lat, v->normal, sizeof(*lat), xt_cmp_u64);
	v->normal_p10 = v->normal ? lat[v->normal / 10] : 0;
	free(lat);
	v->limit = slop / 2 + v->normal_p10;
	if (slop < 2 * host_slop || slop < MIN_LATE_SLOP_NS || v->forced < 5 || v->normal < 5)
		v->limit = 0;	/* not judged */
}

/* The CPU this task runs on first, and the slop to hold it to, unless given */
static int setup_cpu(uint64_t *slop)
{
	static struct xt_tick_dev devs[XT_MAX_CPUS];
	char *cmdline = xt_read_file("/proc/cmdline"), *text = xt_read_file("/proc/timer_list");
	int cpu = 0;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		ksft_exit_fail_msg("sched_getaffinity: %s\n", strerror(errno));
	while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &set))
		cpu++;
	/* The command line's slop, else what the CPU's device has */
	if (*slop == NEVER && (!cmdline || xt_cmdline_slop(cmdline, slop) <= 0))
		*slop = NEVER;
	if (*slop == NEVER && text && !xt_parse_timer_list(text, devs) &&
	    devs[cpu].min_delta_ns >= 0)
		*slop = devs[cpu].min_delta_ns;
	if (*slop == NEVER)
		ksft_exit_skip("no slop to hold CPU %d to in /proc/timer_list\n", cpu);
	free(cmdline);
	free(text);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) || prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0))
		ksft_exit_fail_msg("cannot run on CPU %d with 1 ns of timer slack\n", cpu);
	return cpu;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "expect-ns", required_argument, NULL, 'e' },
		{ "host-slop-ns", required_argument, NULL, 'H' },
		{ }
	};
	uint64_t slop = NEVER, host_slop = 50000, v;
	unsigned long hits, missed = 0, m;
	char *end, name[64];
	struct verdict r;
	struct event *ev;
	int c, cpu;
	size_t n;
	FILE *f;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		v = optarg ? strtoull(optarg, &end, 10) : 0;
		if (!optarg || *end || end == optarg || v > XT_MAX_SLOP_NS) {
			fprintf(stderr, "usage: %s [--expect-ns NS] [--host-slop-ns NS]\n",
				argv[0]);
			return KSFT_FAIL;
		}
		*(c == 'e' ? &slop : &host_slop) = v;
	}
	ksft_print_header();
	if (xt_not_applicable())
		ksft_exit_skip("%s\n", xt_not_applicable());
	if (geteuid())
		ksft_exit_skip("tracefs needs root\n");
	cpu = setup_cpu(&slop);
	setup_trace();
	ksft_set_plan(1);
	ksft_print_msg("CPU %d, slop %llu ns, Xen's timer_slop %llu ns\n", cpu,
		       (unsigned long long)slop, (unsigned long long)host_slop);
	ev = calloc(MAX_EVENTS, sizeof(*ev));
	if (!ev || tracefs(INSTANCE "/tracing_on", "1", false))
		ksft_exit_fail_msg("cannot start the trace\n");
	workload(slop, 200);
	tracefs(INSTANCE "/tracing_on", "0", false);
	/* A probe hit while another probe's handler runs is not traced */
	f = fopen(TRACEFS "/kprobe_profile", "r");
	while (f && fscanf(f, "%63s %lu %lu", name, &hits, &m) == 3)
		missed += strncmp(name, "xt_", 3) ? 0 : m;
	if (f)
		fclose(f);
	n = read_events(cpu, ev);
	cleanup();
	judge(ev, n, slop, host_slop, &r);

	if (missed)
		xt_test_skip("slop_in_effect", "the probes missed hits");
	else if (!r.short_reqs || !r.judged)
		xt_test_skip("slop_in_effect", "no near expiry or no fire to judge");
	else
		ksft_test_result(!r.below && !r.not_slop && !r.early &&
				 (!r.limit || r.forced_min <= r.limit), "slop_in_effect\n");
	ksft_print_msg(PROG_FMT, (unsigned long long)slop, n, r.requests, r.short_reqs, r.calls,
		       r.below, r.not_slop, r.fires, r.judged, r.early,
		       (unsigned long long)r.early_by, r.stuck, r.forced,
		       (unsigned long long)(r.forced ? r.forced_min : 0), r.normal,
		       (unsigned long long)r.normal_p10, (unsigned long long)r.limit, missed);
	free(ev);
	ksft_finished();
}

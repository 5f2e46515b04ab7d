// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the xen_timer selftests' logic, under ASan and UBSan: the
 * command line's slop against the Xen KUnit suite's parse table,
 * /proc/timer_list on real captures and broken input, and the program
 * test's verdict (judge(), xen_timer_program_test.c compiled in) on traces
 * of a simulated Xen clockevent driven by each clockevents core: healthy
 * kernels pass, broken ones fail, whatever the platform did.
 *
 * usage: host_test DATADIR
 */
#define main program_test_main
#include "../tools/testing/selftests/xen_timer/xen_timer_program_test.c"
#undef main

static int passed, failed;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

static char *slurp(const char *dir, const char *name)
{
	char path[4096], *text;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = xt_read_file(path);
	if (!text) {
		printf("cannot read %s\n", path);
		exit(2);
	}
	return text;
}

/*
 * The parse table of the Xen KUnit suite, compiled from
 * arch/x86/xen/time_kunit.c by tests/Makefile (parse_cases.h): what the
 * kernel's handler accepts, the selftests expect of the command line.
 */
typedef uint64_t u64;
#define __initconst
#define XT_MAX		XT_MAX_SLOP_NS
#include "parse_cases.h"

static void test_parse_table(void)
{
	const size_t n = sizeof(xt_parse_cases) / sizeof(xt_parse_cases[0]);
	char cmdline[64];
	size_t i;

	CHECK(n >= 15, "only %zu rows in the KUnit parse table", n);
	for (i = 0; i < n; i++) {
		const struct xt_parse_case *c = &xt_parse_cases[i];
		uint64_t v = 42;
		int found;

		/* quoted, as the kernel's parser hands "5 " to the handler */
		snprintf(cmdline, sizeof(cmdline), "console=hvc0 xen_timer_slop%s%s%s quiet",
			 c->str ? "=\"" : "", c->str ? c->str : "", c->str ? "\"" : "");
		found = xt_cmdline_slop(cmdline, &v);
		CHECK(found == (c->err ? -1 : 1), "'%s': %d, the kernel's %d", cmdline, found,
		      c->err);
		if (!c->err)
			CHECK(v == c->val, "'%s': %llu", cmdline, (unsigned long long)v);
	}
	printf("%zu parse rows from arch/x86/xen/time_kunit.c\n", n);
}

static void test_cmdline(void)
{
	static const struct {
		const char *cmdline;
		int found;
		uint64_t slop;
	} c[] = {
		{ "console=hvc0", 0, 0 },
		{ "", 0, 0 },
		{ "xen_timer_slop=5000 xen_timer_slop=100000", 1, 100000 },
		{ "xen_timer_slop=5000 xen_timer_slop=abc", -1, 0 },
		{ "xen_timer_slop=abc xen_timer_slop=5000", 1, 5000 },
		{ "xen_timer_slop=\"5000\"", 1, 5000 },
		{ "\"xen_timer_slop=200K\"", 1, 204800 },
		{ "foo=\"a b xen_timer_slop=7\" xen_timer_slop=9", 1, 9 },
		{ "xen-timer-slop=9", 1, 9 },
		{ "my_xen_timer_slop=7", 0, 0 },
		{ "xen_timer_slopx=7", 0, 0 },
		{ "xen_timer_slop=7 -- xen_timer_slop=9", 1, 7 },
		{ "-- xen_timer_slop=9", 0, 0 },
		{ "xen_timer_slop= ", -1, 0 },
		{ "  xen_timer_slop=0x10\n", 1, 16 },
		{ "xen_timer_slop=+5", -1, 0 },
		{ "xen_timer_slop= 5", -1, 0 },
		{ "\r\v\f xen_timer_slop=5\r", 1, 5 },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t s = 0;
		int found = xt_cmdline_slop(c[i].cmdline, &s);

		CHECK(found == c[i].found, "'%s': %d", c[i].cmdline, found);
		if (found == 1)
			CHECK(s == c[i].slop, "'%s': slop %llu", c[i].cmdline,
			      (unsigned long long)s);
	}
}

static void test_timer_list(const char *dir)
{
	static struct xt_tick_dev d[XT_MAX_CPUS];
	char *t;
	int i;

	t = slurp(dir, "timer_list.xen-pv-4cpu");
	CHECK(!xt_parse_timer_list(t, d), "xen capture");
	for (i = 0; i < 4; i++)
		CHECK(!strcmp(d[i].name, "xen") && d[i].min_delta_ns == 5000,
		      "xen capture: cpu%d %s %lld", i, d[i].name, d[i].min_delta_ns);
	CHECK(!d[4].name[0] && d[4].min_delta_ns == -1, "xen capture: no cpu4");
	for (i = 0; i < 6; i++)
		CHECK(d[i].online == (i < 4), "xen capture: cpu%d online %d", i, d[i].online);
	/* a cut in the middle of the last device: no min_delta_ns for it */
	t[strstr(t, "Per CPU device: 3") - t + 40] = '\0';
	CHECK(!xt_parse_timer_list(t, d) && d[3].min_delta_ns == -1, "truncated capture");
	free(t);

	t = slurp(dir, "timer_list.kvm-host");
	CHECK(!xt_parse_timer_list(t, d), "non-Xen capture");
	for (i = 0; i < 2; i++)
		CHECK(strcmp(d[i].name, "xen") && d[i].min_delta_ns == 1000,
		      "non-Xen capture: cpu%d %s %lld", i, d[i].name, d[i].min_delta_ns);
	free(t);

	CHECK(!xt_parse_timer_list("", d), "empty");
	CHECK(xt_parse_timer_list("Per CPU device: x\n", d) == -1, "bad cpu");
	CHECK(xt_parse_timer_list("Per CPU device: 99999\n", d) == -1, "cpu too big");
	CHECK(xt_parse_timer_list("Per CPU device: -1\n", d) == -1, "negative cpu");
	CHECK(xt_parse_timer_list("Per CPU device: 0\nClock Event Device: xen\n min_delta_ns:   12abc\n",
				  d) == -1, "junk min_delta_ns");
	CHECK(xt_parse_timer_list("Per CPU device: 0\nClock Event Device: xen\n min_delta_ns:\n",
				  d) == -1, "empty min_delta_ns");
	CHECK(!xt_parse_timer_list("Per CPU device: 0\n", d) && !d[0].name[0] &&
	      d[0].min_delta_ns == -1, "device without fields");
	CHECK(!xt_parse_timer_list("Broadcast device\nClock Event Device: xen\n min_delta_ns: 5\n", d) &&
	      !d[0].name[0], "a broadcast device is not a CPU's");
}

/*
 * A Xen clockevent as a kernel drives it: @kslop the kernel's min_delta,
 * @forced its core (since 7.0: min_delta_ticks once and nothing while that
 * forced event is pending; before: every short delta raised to the
 * minimum), @fire_mult how many times the slop the device asks Xen for
 * after a short request (0: 1 ns, the bypassed mutant; 2: the doubled
 * one), @lat the platform's latency.  The workload of the program test:
 * short sleeps, sleeps of 2 S, vCPU stalls, interrupts left pending.
 */
struct sim {
	struct event ev[4096];
	size_t n;
	uint64_t now, deadline, kslop, lat;
	int64_t skew;		/* the trace's clock ahead of the core's */
	bool pending, forced;
	int fire_mult;
};

static void sim_ev(struct sim *s, enum type type, int64_t expires, uint64_t delta)
{
	s->ev[s->n++] = (struct event){ .type = type, .expires = expires, .delta = delta,
					.ts = (s->now + s->skew) / 1000 * 1000 };
	s->now += 3000;
}

/* The core and the device, the core reading the time @stall ns late */
static void sim_core(struct sim *s, int64_t delta, uint64_t stall)
{
	uint64_t t = s->now;

	sim_ev(s, PROG, (int64_t)t + delta, 0);
	s->now += stall;
	if (delta - (int64_t)stall > (int64_t)s->kslop) {
		sim_ev(s, NEXT, 0, delta - stall - 3000);
		s->deadline = t + delta;
		s->pending = false;
	} else if (!(s->forced && s->pending)) {
		sim_ev(s, NEXT, 0, s->kslop);
		s->deadline = s->now + (s->fire_mult ? s->fire_mult * s->kslop : 1);
		s->pending = true;
	}
	sim_ev(s, RET, 0, 0);
}

/* The device fires; the interrupt arms the tick, 4 ms on, which fires too. */
static void sim_fire(struct sim *s)
{
	int k;

	for (k = 0; k < 2; k++) {
		if (s->now < s->deadline)
			s->now = s->deadline;
		s->now += s->lat;
		sim_ev(s, FIRE, 0, 0);
		s->pending = false;
		sim_core(s, 4000000, 0);
	}
	s->now += 20000;
}

/*
 * A request whose call comes after a stall in which the deadline before
 * it passed: that deadline's interrupt comes right after the call, and
 * the interrupt of the one the call armed after the next request.
 */
static void sim_stale(struct sim *s, uint64_t slop)
{
	sim_core(s, 5 * (int64_t)slop / 2, 0);
	s->now = s->deadline - 100000;
	sim_core(s, -1000000, 200000);
	sim_ev(s, FIRE, 0, 0);			/* the old deadline's */
	s->pending = false;
	s->now = s->deadline - 50000;
	sim_core(s, -1000000, 100000);
	sim_ev(s, FIRE, 0, 0);			/* the passed deadline's */
	s->pending = true;
	sim_fire(s);
}

static void sim_run(struct sim *s, uint64_t kslop, bool forced, int fire_mult, uint64_t slop)
{
	int64_t sleep = slop >= 10000 ? (int64_t)slop / 10 : -5000;
	int i;

	*s = (struct sim){ .now = 1000000000ULL, .kslop = kslop, .forced = forced,
			   .fire_mult = fire_mult, .lat = 60000, .skew = 150 };
	for (i = 0; i < 40; i++) {		/* sleeps of S / 10 */
		sim_core(s, sleep, 0);
		sim_core(s, sleep - 3000, 0);	/* idle entry: the same expiry again */
		sim_fire(s);
	}
	for (i = 0; i < 10; i++) {		/* sleeps of 2 S */
		sim_core(s, 2 * slop, 0);
		sim_fire(s);
	}
	for (i = 0; i < 5 && slop >= 10000; i++) {	/* stalls of the vCPU */
		sim_core(s, 2 * (int64_t)slop, 3 * slop / 2);
		s->now += slop / 4;
		sim_core(s, (int64_t)slop / 10, 0);
		sim_fire(s);
	}
	for (i = 0; i < 3 && slop >= 10000 && fire_mult == 1; i++)
		sim_stale(s, slop);
	for (i = 0; i < 40; i++) {		/* pairs, the second one earlier */
		sim_core(s, slop >= 10000 ? (int64_t)slop / 2 : -5000, 0);
		s->now += slop / 4;
		sim_core(s, slop >= 10000 ? (int64_t)slop / 8 : -6000, 0);
		sim_fire(s);
	}
}

/* The same trace without the device's calls, as a kernel that forbids their probe gives it */
static void sim_strip_calls(struct sim *s)
{
	size_t i, k = 0;

	for (i = 0; i < s->n; i++)
		if (s->ev[i].type != NEXT)
			s->ev[k++] = s->ev[i];
	s->n = k;
}

static bool passes(const struct verdict *v)
{
	return !v->below && !v->not_slop && !v->early && (!v->limit || v->forced_min <= v->limit);
}

static void test_judge(void)
{
	/* calls: with the device's calls traced; fires: without */
	static const struct {
		const char *what;
		uint64_t kslop, slop;
		bool forced;
		int fire_mult;
		bool calls, fires;
	} c[] = {
		{ "7.x, 2 ms", 2000000, 2000000, true, 1, 1, 1 },
		{ "6.x, 2 ms", 2000000, 2000000, false, 1, 1, 1 },
		{ "7.x, 1 ns", 1, 1, true, 1, 1, 1 },
		{ "6.x, 1 ns", 1, 1, false, 1, 1, 1 },
		{ "6.x, 100 us", 100000, 100000, false, 1, 1, 1 },
		{ "7.x, 50 us", 50000, 50000, true, 1, 1, 1 },
		{ "ignored (kernel 1 ns, asked 200 us)", 1, 200000, true, 1, 0, 0 },
		{ "ignored, 6.x", 1, 200000, false, 1, 0, 0 },
		{ "forced (kernel 100 us, asked 50 us)", 100000, 50000, true, 1, 0, 1 },
		{ "bypassed", 2000000, 2000000, true, 0, 0, 0 },
		{ "bypassed, 6.x", 2000000, 2000000, false, 0, 0, 0 },
		{ "doubled", 2000000, 2000000, true, 2, 0, 0 },
		{ "doubled, 6.x", 2000000, 2000000, false, 2, 0, 0 },
	};
	static struct sim s;
	struct verdict v;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		sim_run(&s, c[i].kslop, c[i].forced, c[i].fire_mult, c[i].slop);
		judge(s.ev, s.n, c[i].slop, 50000, &v);
		CHECK(v.short_reqs && v.judged, "%s: nothing judged", c[i].what);
		CHECK(passes(&v) == c[i].calls,
		      "%s: below %zu, not S %zu, early %zu of %zu (by %llu), quickest %llu of %llu",
		      c[i].what, v.below, v.not_slop, v.early, v.judged,
		      (unsigned long long)v.early_by, (unsigned long long)v.forced_min,
		      (unsigned long long)v.limit);
		sim_strip_calls(&s);
		judge(s.ev, s.n, c[i].slop, 50000, &v);
		CHECK(!v.calls && passes(&v) == c[i].fires,
		      "%s, fires alone: early %zu of %zu (by %llu), quickest %llu of %llu",
		      c[i].what, v.early, v.judged, (unsigned long long)v.early_by,
		      (unsigned long long)v.forced_min, (unsigned long long)v.limit);
	}
	judge(s.ev, 0, 2000000, 50000, &v);
	CHECK(!v.short_reqs && !v.judged && passes(&v), "no events: nothing judged");
	{
		/*
		 * A guest clock that stood still: a forced event's fire, and
		 * the rearm after it, all in one microsecond, 167 us after the
		 * call (a PV domU on a busy host); the same fire 10 us later
		 * is early.  Two fires before, which are not judged.
		 */
		struct event t[] = {
			{ .type = FIRE, .ts = 16799000000ULL },
			{ .type = FIRE, .ts = 16799558000ULL },
			{ .type = PROG, .ts = 16799598000ULL, .expires = 16800000000LL },
			{ .type = NEXT, .ts = 16799609000ULL, .delta = 2000000 },
			{ .type = RET, .ts = 16799619000ULL },
			{ .type = FIRE, .ts = 16799776000ULL },
			{ .type = PROG, .ts = 16799776000ULL, .expires = 16799897226LL },
			{ .type = NEXT, .ts = 16799776000ULL, .delta = 2000000 },
			{ .type = RET, .ts = 16799776000ULL },
		};

		judge(t, 9, 2000000, 50000, &v);
		CHECK(v.stuck == 4 && !v.early && !v.judged, "a clock that stood still: %zu, %zu early",
		      v.stuck, v.early);
		t[5].ts += 10000;
		judge(t, 9, 2000000, 50000, &v);
		CHECK(v.stuck == 3 && v.early == 1 && !passes(&v), "a clock that moves: %zu, %zu early",
		      v.stuck, v.early);
	}
	{
		/* The first two fires of the trace tell nothing; the third does */
		struct event t[] = {
			{ .type = PROG, .ts = 1000000, .expires = 1000000 },
			{ .type = FIRE, .ts = 1010000 },
			{ .type = PROG, .ts = 1020000, .expires = 1020000 },
			{ .type = FIRE, .ts = 1030000 },
			{ .type = PROG, .ts = 1040000, .expires = 1040000 },
			{ .type = FIRE, .ts = 1050000 },
		};

		judge(t, 4, 2000000, 50000, &v);
		CHECK(!v.early && !v.judged, "first fires of the trace judged");
		judge(t, 6, 2000000, 50000, &v);
		CHECK(v.early == 1 && v.judged == 1, "third fire: %zu early of %zu", v.early,
		      v.judged);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: host_test DATADIR\n");
		return 2;
	}
	test_parse_table();
	test_cmdline();
	test_timer_list(argv[1]);
	test_judge();
	printf("host tests: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

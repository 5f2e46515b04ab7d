// SPDX-License-Identifier: GPL-2.0
/*
 * xen_timer_program_test - what the kernel asks of the Xen timer
 *
 * xen_timer_slop= sets min_delta_ns and min_delta_ticks of the Xen
 * clockevent devices.  Whether the slop S is in effect on the timer path
 * does not depend on how fast the platform runs the guest: this test
 * records, with kprobe events in a tracefs instance of its own, what the
 * kernel asks of the Xen timer of one CPU while a task on that CPU makes
 * requests below S:
 *
 *   xt_prog   clockevents_program_event(): a request (expiry, force)
 *   xt_ret    its return
 *   xt_fire   hrtimer_interrupt(): the device fired
 *   xt_next   xen_vcpuop_set_next_event(): the delta the device is handed
 *   xt_state  xen_vcpuop_shutdown(), xen_vcpuop_set_oneshot()
 *
 * The last two where the kernel lets them be probed (Debian's 7.3 does
 * not).  From the requests and the promise of the kernel's clockevents
 * core (xt_core_name(): before v7.0 a request below S arms the device
 * for now + S every time, since v7.0 not again while that forced event
 * is pending) xt_prog_check() derives the deadline no fire may precede.
 * Xen never fires a timer before its deadline, so a fire before it is
 * the kernel's, however slow the platform.  How late fires come is
 * judged only where the platform resolves it: S at least twice the
 * host's timer_slop, the platform's own latency past a deadline measured
 * in the same trace.  Where traced, the device's calls must be at least
 * S, exactly S for a request below S, and, in the forced core, absent
 * while a forced event is pending.
 *
 * One result, "slop_in_effect"; the counts and times are in one
 * "# XT_PROG key=value ..." diagnostic, ns, and on a failure the events
 * around the first violation in "# XT_EV" lines.  A trace with no
 * request below S or no judged fire, or one whose probes missed hits, is
 * the platform's (XT_PLATFORM_SKIP).  Skipped when not on x86 Xen, when
 * the slop to expect is unknown, or without kprobe events.
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
#include <sys/timerfd.h>
#include <sys/utsname.h>

#include "../kselftest.h"
#include "xen_timer_common.h"
#include "xen_timer_lib.h"

#define INSTANCE	"instances/xen_timer_program"
#define BUDGET_NS	(3 * 1000000000ULL)
#define MAX_EVENTS	200000

/* Formats of the long lines, each on one line so that they can be grepped */
#define MOVING_EARLY_FMT \
	"%zu early fires of %zu judged, the clock moving: the result is the platform's\n"
#define STUCK_FMT \
	"%zu early fires beside %zu events the guest's clock stood still at, the platform's: %s\n"
#define XT_PROG_FMT \
	"XT_PROG slop_ns=%llu core=%s events=%ld malformed=%ld requests=%zu short=%zu pending=%zu calls=%zu min_delta_ns=%llu below_slop=%zu short_not_slop=%zu bad_delta_ns=%llu pending_called=%zu lost=%zu fires=%zu judged_fires=%zu early=%zu early_by_ns=%llu forced_fires=%zu forced_min_ns=%llu pair_fires=%zu pair_min_ns=%llu pair_early=%zu normal_fires=%zu normal_lat_p10_ns=%llu upper_judged=%d upper_limit_ns=%llu pair_judged=%d stuck=%zu\n"
#define CALLS_FMT \
	"%zu calls of the device, smallest delta %llu ns; %zu requests below the slop handed another delta, %zu that met a forced event pending called it, %zu got no call with nothing pending\n"
#define NO_CALLS_MSG \
	"the Xen device's calls cannot be traced here: fires judged against the requests alone\n"
#define FIRES_FMT \
	"%zu of %zu fires judged, %zu before their deadline (worst by %llu ns); quickest forced event %llu ns (limit %llu%s); of %zu pairs, %zu fired sooner than the slop after their second request%s\n"

static const char *const names[] = { "slop_in_effect" };

/*
 * The probes: the first two are needed.  The Xen device's own functions
 * may not be probed on every kernel (Debian's 7.3 refuses them): without
 * them the fires are judged against the requests alone.
 */
static const struct probe {
	char kind;	/* 'p' at entry, 'r' at return */
	const char *name, *def;
} probes[] = {
	{ 'p', "xt_prog", "clockevents_program_event expires=$arg2:s64 force=$arg3:u8" },
	{ 'p', "xt_fire", "hrtimer_interrupt" },
	{ 'r', "xt_ret", "clockevents_program_event" },
	{ 'p', "xt_next", "xen_vcpuop_set_next_event delta=$arg1:u64" },
	{ 'p', "xt_state_down", "xen_vcpuop_shutdown" },
	{ 'p', "xt_state_oneshot", "xen_vcpuop_set_oneshot" },
};

#define NEEDED_PROBES	3

static char tdir[64];
static bool added[ARRAY_SIZE(probes)];
static bool calls_traced;	/* xt_next was added */

static void die_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-c CPU] [--expect-ns NS] [--host-slop-ns NS] [--core forced|clamped] [-n REQUESTS]\n",
		prog);
	exit(KSFT_FAIL);
}

static int write_at(const char *rel, const char *s, bool append)
{
	char path[256];
	ssize_t len = strlen(s);
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", tdir, rel);
	fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	if (write(fd, s, len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

static bool find_tracefs(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[96];
	size_t i;

	for (i = 0; i < 2 * ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/kprobe_events", dirs[i % 2]);
		if (!access(path, W_OK)) {
			snprintf(tdir, sizeof(tdir), "%s", dirs[i % 2]);
			return true;
		}
		if (i == 1)	/* not mounted: mount it once */
			mount("nodev", dirs[0], "tracefs", 0, NULL);
	}
	return false;
}

static void cleanup(void)
{
	char s[128];
	int i;

	write_at(INSTANCE "/tracing_on", "0", false);
	write_at(INSTANCE "/events/kprobes/enable", "0", false);
	snprintf(s, sizeof(s), "%s/" INSTANCE, tdir);
	rmdir(s);
	for (i = 0; i < (int)ARRAY_SIZE(probes); i++) {
		if (!added[i])
			continue;
		snprintf(s, sizeof(s), "-:%s\n", probes[i].name);
		write_at("kprobe_events", s, true);
		added[i] = false;
	}
}

static void skip_all(const char *reason)
{
	int i;

	cleanup();
	for (i = 0; i < (int)ARRAY_SIZE(names); i++)
		xt_test_skip(names[i], "%s\n", reason);
	ksft_print_cnts();
	exit(KSFT_SKIP);
}

/* What /proc/kallsyms has of the function of a probe that failed */
static void print_symbols(const char *def)
{
	char want[64], line[256], *log;
	FILE *f = fopen("/proc/kallsyms", "r");
	int shown = 0;

	snprintf(want, sizeof(want), " %.*s", (int)strcspn(def, " "), def);
	while (f && fgets(line, sizeof(line), f) && shown < 4) {
		if (strstr(line, want)) {
			ksft_print_msg("kallsyms: %s", line);
			shown++;
		}
	}
	if (f)
		fclose(f);
	if (!shown)
		ksft_print_msg("kallsyms:%s not found\n", want);
	snprintf(line, sizeof(line), "%s/error_log", tdir);
	log = xt_read_file(line);
	if (log && *log)
		ksft_print_msg("tracefs error_log: %s", log);
	free(log);
}

/* Probes, an instance of our own with the mono clock, events on. */
static void setup_trace(void)
{
	char s[192], path[128];
	size_t i;
	int ret;

	if (!find_tracefs())
		skip_all("no kprobe events in tracefs (CONFIG_KPROBE_EVENTS)");
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		snprintf(s, sizeof(s), "-:%s\n", probes[i].name);
		write_at("kprobe_events", s, true);	/* a stale one */
		snprintf(s, sizeof(s), "%c:%s %s\n", probes[i].kind, probes[i].name,
			 probes[i].def);
		ret = write_at("kprobe_events", s, true);
		if (ret) {
			ksft_print_msg("cannot add the kprobe event '%c:%s %s': %s\n",
				       probes[i].kind, probes[i].name, probes[i].def,
				       strerror(-ret));
			if (i < NEEDED_PROBES) {
				print_symbols(probes[i].def);
				skip_all("cannot probe the clockevents core");
			}
		}
		added[i] = !ret;
	}
	calls_traced = added[3];
	snprintf(path, sizeof(path), "%s/" INSTANCE, tdir);
	rmdir(path);
	if (mkdir(path, 0755))
		ksft_exit_fail_msg("mkdir %s: %s\n", path, strerror(errno));
	/* Every event on before the trace starts: a request's call is in it */
	if (write_at(INSTANCE "/tracing_on", "0", false) ||
	    write_at(INSTANCE "/trace_clock", "mono", false) ||
	    write_at(INSTANCE "/buffer_size_kb", "8192", false))
		ksft_exit_fail_msg("cannot set up the trace instance %s\n", path);
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		if (!added[i])
			continue;
		snprintf(s, sizeof(s), INSTANCE "/events/kprobes/%s/enable", probes[i].name);
		if (write_at(s, "1", false))
			ksft_exit_fail_msg("cannot enable %s\n", s);
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct timespec to_ts(uint64_t ns)
{
	return (struct timespec){ .tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL };
}

static void on_alarm(int sig)
{
}

/*
 * Requests below the slop, whatever the slop: an interval timer rearmed
 * by the kernel when its signal is taken (posixtimer_rearm_itimer(), not
 * a user timer, which 7.x drops when it expired before it was queued),
 * forwarded to at most @interval ns after now.
 */
static void itimer_requests(uint64_t interval, unsigned int n, uint64_t end)
{
	struct itimerval it = { .it_interval = { 0, interval / 1000 ?: 1 },
				.it_value = { 0, interval / 1000 ?: 1 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	sigset_t set;
	unsigned int i;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigaction(SIGALRM, &sa, NULL);
	sigprocmask(SIG_BLOCK, &set, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < n && now_ns() < end; i++)
		sigwait(&set, &sig);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/*
 * What makes the kernel program the Xen timer, on this CPU: one-shot
 * sleeps of S / 10 and of 2 S (the platform's latency), the interval
 * timer above, and pairs of timerfds: one armed S / 2 ahead, then, S / 4
 * later, one armed S / 8 ahead, which is earlier: where S is longer than
 * a system call, its request meets the first one's forced event pending,
 * and a core that arms the device again makes it fire S / 4 later.
 */
static void workload(uint64_t slop, unsigned int n)
{
	struct timespec rel = to_ts(slop / 10 ?: 1), twice = to_ts(2 * slop);
	struct itimerspec a = { .it_value = to_ts(slop / 2 ?: 1) };
	struct itimerspec b = { .it_value = to_ts(slop / 8 ?: 1) };
	uint64_t end = now_ns() + BUDGET_NS, buf, t;
	unsigned int i;
	int fa, fb;

	for (i = 0; i < n && now_ns() < end; i++)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &rel, NULL);
	for (i = 0; i < n / 4 && now_ns() < end && slop >= XT_MIN_JUDGED_SLOP_NS; i++)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &twice, NULL);
	itimer_requests(slop / 2, n, now_ns() + BUDGET_NS);

	fa = timerfd_create(CLOCK_MONOTONIC, 0);
	fb = timerfd_create(CLOCK_MONOTONIC, 0);
	if (fa < 0 || fb < 0)
		ksft_exit_fail_msg("timerfd_create: %s\n", strerror(errno));
	end = now_ns() + BUDGET_NS;
	for (i = 0; i < n / 2 && now_ns() < end; i++) {
		timerfd_settime(fa, 0, &a, NULL);
		for (t = now_ns() + slop / 4; now_ns() < t;)
			;
		timerfd_settime(fb, 0, &b, NULL);
		if (read(fa, &buf, sizeof(buf)) < 0 || read(fb, &buf, sizeof(buf)) < 0)
			ksft_exit_fail_msg("timerfd read: %s\n", strerror(errno));
	}
	close(fa);
	close(fb);
}

/*
 * How many hits our probes missed (kprobe_profile: event, hits, misses):
 * a probe hit while a kprobe handler runs on the CPU is not traced, and
 * an incomplete trace is judged on nothing.
 */
static long probes_missed(void)
{
	char path[96], name[64];
	unsigned long hits, miss;
	long missed = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kprobe_profile", tdir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fscanf(f, "%63s %lu %lu", name, &hits, &miss) == 3)
		if (!strncmp(name, "xt_", 3))
			missed += miss;
	fclose(f);
	return missed;
}

/* The events of @cpu in the instance's trace; the count, or -1. */
static long read_events(int cpu, struct xt_event *ev, long max, long *bad)
{
	char path[160], line[512], tag[16];
	struct xt_event e;
	long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" INSTANCE "/trace", tdir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	snprintf(tag, sizeof(tag), "[%03d]", cpu);
	*bad = 0;
	while (fgets(line, sizeof(line), f) && n < max) {
		int r = xt_parse_trace_line(line, &e);

		if (r < 0)
			(*bad)++;
		if (r > 0 && strstr(line, tag))
			ev[n++] = e;
	}
	fclose(f);
	return n;
}

/* The events before the first violation, and a few after it */
static void print_events(const struct xt_event *ev, long n, size_t bad)
{
	static const char *const kind[] = { "prog", "next", "fire", "state", "ret" };
	long i, from = (long)bad - 16;

	for (i = from < 0 ? 0 : from; i < n && i <= (long)bad + 3; i++)
		ksft_print_msg("XT_EV %s%s ts_ns=%llu expires_ns=%lld force=%d delta_ns=%llu\n",
			       kind[ev[i].type], i == (long)bad ? " (first violation)" : "",
			       (unsigned long long)ev[i].ts, (long long)ev[i].expires,
			       ev[i].force, (unsigned long long)ev[i].delta);
}

/* The one machine-readable line of what the trace showed, times in ns */
static void print_facts(uint64_t slop, enum xt_core core, long n, long bad,
			const struct xt_prog_verdict *r)
{
	ksft_print_msg(XT_PROG_FMT,
		       (unsigned long long)slop,
		       core == XT_CORE_FORCED ? "forced" : "clamped", n, bad,
		       r->requests, r->short_reqs, r->pending_reqs, r->nexts,
		       (unsigned long long)r->min_delta, r->below_slop, r->short_not_slop,
		       (unsigned long long)r->bad_delta, r->pending_called, r->lost,
		       r->fires, r->judged_fires, r->early_fires,
		       (unsigned long long)r->early_by, r->forced_fires,
		       (unsigned long long)r->forced_min, r->pair_fires,
		       (unsigned long long)r->pair_min, r->pair_early, r->normal_fires,
		       (unsigned long long)r->normal_lat_p10, r->upper_judged,
		       (unsigned long long)r->upper_limit, r->pair_judged, r->stuck);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "expect-ns", required_argument, NULL, 'e' },
		{ "host-slop-ns", required_argument, NULL, 'H' },
		{ "core", required_argument, NULL, 'k' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "requests", required_argument, NULL, 'n' },
		{ }
	};
	uint64_t slop, host_slop = XT_XEN_TIMER_SLOP_NS, v, nreq = 200;
	bool have_expect = false, have_core = false;
	struct xt_prog_verdict r;
	enum xt_core core;
	struct utsname u;
	struct xt_event *ev;
	const char *how, *reason;
	char why[256];
	long cpu = -1, n, bad, missed;
	cpu_set_t set;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:n:", lopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (xt_parse_u64(optarg, 0, XT_MAX_DELTA_NS, &slop))
				die_usage(argv[0]);
			have_expect = true;
			break;
		case 'H':
			if (xt_parse_u64(optarg, 0, XT_MAX_DELTA_NS, &host_slop))
				die_usage(argv[0]);
			break;
		case 'k':
			if (strcmp(optarg, "forced") && strcmp(optarg, "clamped"))
				die_usage(argv[0]);
			core = strcmp(optarg, "forced") ? XT_CORE_CLAMPED : XT_CORE_FORCED;
			have_core = true;
			break;
		case 'c':
			if (xt_parse_u64(optarg, 0, XT_MAX_CPUS - 1, &v))
				die_usage(argv[0]);
			cpu = (long)v;
			break;
		case 'n':
			if (xt_parse_u64(optarg, 10, 100000, &nreq))
				die_usage(argv[0]);
			break;
		default:
			die_usage(argv[0]);
		}
	}
	if (optind != argc)
		die_usage(argv[0]);

	ksft_print_header();
	/* The plan before any diagnostic, where TAP parsers want it */
	ksft_set_plan(ARRAY_SIZE(names));
	uname(&u);
	if (strcmp(u.machine, "x86_64") && !(u.machine[0] == 'i' && strstr(u.machine, "86")))
		skip_all("xen_timer_slop= is a parameter of x86 Xen guests");
	reason = xt_not_applicable(&how);
	if (reason) {
		ksft_print_msg("%s\n", how);
		skip_all(reason);
	}
	if (geteuid())
		skip_all("needs root for tracefs");
	if (!have_core)
		core = xt_core_of(u.release);
	if (have_expect) {
		snprintf(why, sizeof(why), "--expect-ns");
	} else if (xt_expected_slop(&slop, why, sizeof(why))) {
		ksft_print_msg("no expected slop: %s\n", why);
		skip_all("no expected slop for this command line");
	}

	/* The first CPU we may run on (sched_getcpu() can be wrong in a PV guest) */
	if (cpu < 0 && !sched_getaffinity(0, sizeof(set), &set))
		for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
			;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (cpu < 0 || cpu >= CPU_SETSIZE || sched_setaffinity(0, sizeof(set), &set))
		ksft_exit_fail_msg("cannot run on CPU %ld: %s\n", cpu, strerror(errno));
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0))
		ksft_print_msg("timer slack stays at its default: %s\n", strerror(errno));

	setup_trace();
	ksft_print_msg("Linux %s, CPU %ld, slop %llu ns (%s), host slop %llu ns, core %s\n",
		       u.release, cpu, (unsigned long long)slop, why,
		       (unsigned long long)host_slop, xt_core_name(core));
	if (write_at(INSTANCE "/tracing_on", "1", false))
		ksft_exit_fail_msg("cannot start the trace\n");
	workload(slop, nreq);
	write_at(INSTANCE "/tracing_on", "0", false);
	missed = probes_missed();

	ev = calloc(MAX_EVENTS, sizeof(*ev));
	if (!ev)
		ksft_exit_fail_msg("out of memory\n");
	n = read_events(cpu, ev, MAX_EVENTS, &bad);
	cleanup();
	if (n < 0)
		ksft_exit_fail_msg("cannot read the trace: %s\n", strerror(errno));
	xt_prog_check(ev, n, slop, core, host_slop, &r);
	print_events(ev, n, r.first_bad);
	free(ev);

	/* The result, then what it rests on: a CI bot's log of it */
	if (!r.short_reqs || !r.judged_fires || missed || (r.early_platform && r.calls_ok))
		xt_test_skip(names[0], XT_PLATFORM_SKIP);
	else
		ksft_test_result(r.calls_ok && r.fires_ok, "%s\n", names[0]);
	print_facts(slop, core, n, bad, &r);
	ksft_print_msg("%zu requests, %zu below the slop, %zu of them met a forced event pending\n",
		       r.requests, r.short_reqs, r.pending_reqs);
	if (calls_traced)
		ksft_print_msg(CALLS_FMT,
			       r.nexts, (unsigned long long)r.min_delta, r.short_not_slop,
			       r.pending_called, r.lost);
	else
		ksft_print_msg(NO_CALLS_MSG);
	ksft_print_msg(FIRES_FMT, r.judged_fires, r.fires, r.early_fires,
		       (unsigned long long)r.early_by, (unsigned long long)r.forced_min,
		       (unsigned long long)r.upper_limit, r.upper_judged ? "" : ", not judged",
		       r.pair_fires, r.pair_early, r.pair_judged ? "" : " (not judged)");
	ksft_print_msg("calls %s, fires %s\n", r.calls_ok ? "ok" : "wrong",
		       r.fires_ok ? "ok" : "wrong");
	if (missed)
		ksft_print_msg("the probes missed %ld hits: the trace is incomplete\n", missed);
	if (r.early_platform && !r.stuck)
		ksft_print_msg(MOVING_EARLY_FMT, r.early_fires, r.judged_fires);
	else if (r.early_excused || r.early_platform)
		ksft_print_msg(STUCK_FMT, r.early_fires, r.stuck, r.early_excused ?
			       "judged without them" : "the result is the platform's");
	ksft_finished();
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure logic of the xen_timer selftests: parsing of /proc/cmdline,
 * /proc/timer_list and CPU lists, the strict xen_timer_slop= parser, and
 * latency statistics.  No I/O, so that the
 * host can test it under sanitizers and fuzzers.
 */
#ifndef XEN_TIMER_LIB_H
#define XEN_TIMER_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* max_delta_ns of the Xen clockevent devices */
#define XT_MAX_DELTA_NS		0xffffffffULL
/* Default slop: 1 ns since v6.11, 100000 ns before */
#define XT_SLOP_DEFAULT_NEW	1ULL
#define XT_SLOP_DEFAULT_OLD	100000ULL

#define XT_MAX_CPUS		4096

/* Xen's own timer_slop default, 4.17 to 4.22 (xen/common/timer.c) */
#define XT_XEN_TIMER_SLOP_NS	50000ULL
/* Below this slop, xt_prog_check() does not judge how late fires come */
#define XT_MIN_JUDGED_SLOP_NS	20000ULL
/*
 * Beside a guest clock that stood still, up to one early fire in this many
 * judged is the platform's and is left out of the verdict (healthy kernels
 * under a busy TCG host: 1 to 5 of 570 to 600; a slop not in effect: most).
 */
#define XT_EARLY_EXCUSED	50

/*
 * The rule of the kernel's xen_timer_slop= handler: one number with at
 * most one memparse() suffix and nothing else, not above @max: 0 and *val
 * set, or -EINVAL / -ERANGE.  s may be NULL (bare parameter).
 */
int xt_slop_parse_strict(const char *s, uint64_t max, uint64_t *val);

/* xt_cmdline_slop(): a xen_timer_slop= value leaves the slop unknown */
#define XT_SLOP_UNKNOWN		(-1)

/*
 * The slop the kernel command line leaves in effect, as far as any kernel
 * would agree: every xen_timer_slop= before a "--" in order, starting from
 * @dflt.  A value the strict parser accepts (at most @max) sets it.  Any
 * other value leaves it unknown until a later accepted one, because a
 * kernel with the strict parser keeps the slop it had and an older kernel
 * stores whatever memparse() made of it.  Returns the number of
 * xen_timer_slop parameters seen (0: @dflt is the result) with *@slop set,
 * or XT_SLOP_UNKNOWN.
 */
int xt_cmdline_slop(const char *cmdline, uint64_t dflt, uint64_t max,
		    uint64_t *slop);

struct xt_tick_dev {
	int cpu;
	char name[32];
	bool has_min;
	uint64_t min_delta_ns;
};

/*
 * Parse /proc/timer_list's per-CPU tick devices into @devs.  Returns the
 * number of entries, or -1 on malformed input (a "Per CPU device" line
 * with a bad number, a CPU over XT_MAX_CPUS, a min_delta_ns that is not a
 * number or overflows, more than @max entries).
 */
int xt_parse_timer_list(const char *text, struct xt_tick_dev *devs, int max);

/*
 * Parse a CPU list such as "0-3,5" (sysfs "online") into @mask of
 * XT_MAX_CPUS booleans.  Returns the number of CPUs or -1 if malformed.
 */
int xt_parse_cpulist(const char *s, bool *mask);

/* Kernel release "6.12.0-1-amd64" -> default slop of that kernel. */
uint64_t xt_default_slop(const char *release);

struct xt_stats {
	size_t n;
	uint64_t min, max, p10, p50, p99, p999;
	double avg;
	size_t spikes;		/* samples > spike threshold */
};

/* Statistics of @n samples (sorted in place), spikes over @spike. */
void xt_stats(uint64_t *v, size_t n, uint64_t spike, struct xt_stats *st);

/* Median of @n samples (sorted in place); 0 if n == 0. */
uint64_t xt_median(uint64_t *v, size_t n);

/*
 * Parse a comma-separated list of positive decimal integers into @out
 * (at most @max).  Returns the count, or -1 if malformed or out of range
 * [@lo, @hi].
 */
int xt_parse_u64_list(const char *s, uint64_t *out, int max, uint64_t lo,
		      uint64_t hi);

/* A positive decimal integer in [@lo, @hi], all of @s; 0 or -1. */
int xt_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *val);

/*
 * What the kernel asks of the Xen timer, as kprobe events record it on
 * one CPU (xen_timer_program_test): a request to program the CPU's
 * clockevent device (clockevents_program_event(), @expires and @force),
 * a call of the Xen device's set_next_event() (@delta; where the kernel
 * lets it be probed), the CPU's timer interrupt (hrtimer_interrupt()),
 * a state change of the device, which ends any pending event, and the
 * return of clockevents_program_event().  Times
 * are CLOCK_MONOTONIC ns, as the trace clock "mono" gives them: rounded
 * down to 1 us in the trace.
 */
enum xt_ev_type { XT_EV_PROG, XT_EV_NEXT, XT_EV_FIRE, XT_EV_STATE, XT_EV_RET };

struct xt_event {
	enum xt_ev_type type;
	uint64_t ts;
	int64_t expires;	/* XT_EV_PROG */
	bool force;		/* XT_EV_PROG */
	uint64_t delta;		/* XT_EV_NEXT */
};

/*
 * Parse one line of a tracefs "trace" file with the event names of
 * xen_timer_program_test ("xt_prog: ... expires=N force=N", "xt_next:
 * ... delta=N", "xt_fire:", "xt_state*:", "xt_ret:").  Returns 1 for an event, 0
 * for a line that is none (a comment), -1 for a malformed event line.
 */
int xt_parse_trace_line(const char *line, struct xt_event *ev);

/*
 * What the clockevents core hands a device for a delta below its
 * min_delta_ns (the slop).  Before v7.0 clockevents_program_event()
 * clamps every such delta up to min_delta_ns and calls the device each
 * time; since d6e152d905bd ("clockevents: Prevent timer interrupt
 * starvation", v7.0; in 6.18.y and 6.19.y as stable backports) it
 * hands min_delta_ticks once and sets next_event_forced, and while that
 * forced event is pending (until the device's interrupt, a programming
 * above min_delta_ns or a state change) it does not call the device.
 */
enum xt_core { XT_CORE_CLAMPED, XT_CORE_FORCED };

/* The core of kernel release @release ("7.3.4+deb13-amd64"). */
enum xt_core xt_core_of(const char *release);

const char *xt_core_name(enum xt_core core);

/*
 * The verdict of xen_timer_program_test over one CPU's events.  The
 * deadline the device may fire at no sooner follows from the requests
 * and the core: a request above S arms its expiry; one below S (short)
 * arms now + S, except, in the forced core, while a forced event is
 * pending.  Xen never fires a timer before its deadline, so a fire before
 * the deadline is the kernel's, however slow the platform.  How late it
 * may come is judged only where the platform resolves it.
 */
struct xt_prog_verdict {
	/* requests */
	size_t requests, short_reqs, pending_reqs;
	/* device calls, where they are traced */
	size_t nexts, below_slop, short_not_slop, pending_called, lost;
	uint64_t min_delta, bad_delta;
	/* fires against the deadline */
	size_t fires, judged_fires, early_fires, forced_fires, pair_fires, normal_fires;
	size_t stuck;			/* events the guest's clock stood still at */
	bool early_excused;		/* a few, the platform's: judged without them */
	bool early_platform;		/* more: the result is the platform's */
	uint64_t early_by;		/* the worst early fire, ns */
	uint64_t forced_min;		/* quickest fire after a forced event's start */
	uint64_t pair_min;		/* the same, where a request met it pending */
	uint64_t normal_lat_p10;	/* the platform's latency past a deadline */
	size_t pair_early;		/* pairs fired sooner than S after the second */
	bool upper_judged;		/* the platform resolves lateness */
	bool pair_judged;		/* ... and the pairs' */
	uint64_t upper_limit;
	bool calls_ok, fires_ok;
	size_t first_bad;		/* the event of the first violation, or n */
};

/*
 * Check @n events of one CPU, in trace order, against a slop of @slop ns,
 * the core @core, and a host (Xen) timer_slop of @host_slop ns.
 */
void xt_prog_check(const struct xt_event *ev, size_t n, uint64_t slop,
		   enum xt_core core, uint64_t host_slop,
		   struct xt_prog_verdict *v);

#endif

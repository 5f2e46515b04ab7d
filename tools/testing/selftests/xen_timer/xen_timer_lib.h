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

/*
 * The strict parser of the xen_timer_slop= hardening (lib/xen_timer_slop.c):
 * 0 and *val set, or -EINVAL / -ERANGE.  s may be NULL (bare parameter).
 * What it accepts, memparse(), which parsed the parameter before, parses
 * to the same value; tests/host_test.c holds it to the KUnit suite's
 * table of values.
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

#endif

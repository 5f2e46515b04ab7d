/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the xen_timer selftests share: where xen_timer_slop= applies, the
 * slop the command line asks for, /proc/timer_list, a named skip.
 */
#ifndef XEN_TIMER_H
#define XEN_TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* max_delta_ns of the Xen clockevent devices: no slop can be above it */
#define XT_MAX_SLOP_NS	0xffffffffULL
#define XT_MAX_CPUS	4096
#define NSEC_PER_SEC	1000000000ULL

/* A result skipped under its own name, the reason after the directive */
#define xt_test_skip(name, reason) ksft_test_result_code(KSFT_SKIP, name, "%s", reason)

/* A CPU's tick device in /proc/timer_list (online: listed there, as every online CPU is) */
struct xt_tick_dev {
	bool online;
	char name[32];		/* "" where not given */
	long long min_delta_ns;	/* -1 where not given */
};

/* A whole file, NUL-terminated, malloc()ed; NULL on error */
char *xt_read_file(const char *path);

/* NULL where xen_timer_slop= applies (CPU 0 uses the Xen clockevent), else why not */
const char *xt_not_applicable(void);

/*
 * The xen_timer_slop= that the kernel command line @cmdline leaves in
 * effect: its last one before "--", quotes taken off.  1 with *@slop set
 * when it is a number memparse() reads in full (K, M, G, T, P or E after
 * it) up to XT_MAX_SLOP_NS, 0 when there is none, -1 when it is not such
 * a number (kernels keep their slop or take what memparse() made of it).
 */
int xt_cmdline_slop(const char *cmdline, uint64_t *slop);

/* @text's per-CPU tick devices into @devs[XT_MAX_CPUS]; 0, or -1 if malformed */
int xt_parse_timer_list(const char *text, struct xt_tick_dev *devs);

/* CLOCK_MONOTONIC in ns; @ns as a timespec; qsort()'s order of uint64_t */
uint64_t xt_now(void);
struct timespec xt_ts(uint64_t ns);
int xt_cmp_u64(const void *a, const void *b);

#endif

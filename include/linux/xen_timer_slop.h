/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing and application of the xen_timer_slop= boot parameter.
 *
 * The helpers live in lib/ so that they build, and can be tested, without
 * CONFIG_XEN; arch/x86/xen/time.c uses them from its early_param handler.
 */
#ifndef _LINUX_XEN_TIMER_SLOP_H
#define _LINUX_XEN_TIMER_SLOP_H

#include <linux/types.h>

struct clock_event_device;

/* Default minimum delta of the Xen clockevent devices, in nanoseconds. */
#define XEN_TIMER_SLOP_DEFAULT_NS	1

int xen_timer_slop_parse(const char *str, u64 max_ns, u64 *slop_ns);
void xen_timer_slop_apply(struct clock_event_device *evt, u64 slop_ns);

#if IS_ENABLED(CONFIG_XEN) && IS_ENABLED(CONFIG_XEN_TIMER_SLOP_KUNIT_TEST)
const struct clock_event_device *xen_timer_slop_template(unsigned int idx);
const struct clock_event_device *xen_timer_slop_cpu_device(unsigned int cpu);
#endif

#endif /* _LINUX_XEN_TIMER_SLOP_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the xen_timer_slop= boot parameter: parse_xen_timer_slop()
 * on a table of values, the two clockevent templates against what the
 * kernel made of its command line and, when running on Xen, every online
 * CPU's device.
 *
 * parse_xen_timer_slop() is __init, so the suite runs at boot, built in.
 * The syntax is memparse()'s, whose own cases are in
 * lib/tests/cmdline_kunit.c.
 */

#include <kunit/test.h>
#include <linux/clockchips.h>
#include <linux/cpumask.h>
#include <linux/init.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <xen/xen.h>

#include "xen-ops.h"

/* max_delta_ns of both templates */
#define XT_MAX			0xffffffffULL
/* The slop without xen_timer_slop=, TIMER_SLOP */
#define XT_DEFAULT_SLOP_NS	1

struct xt_parse_case {
	const char *str;	/* NULL: a bare xen_timer_slop */
	int err;
	u64 val;
};

static const struct xt_parse_case xt_parse_cases[] __initconst = {
	{ "1", 0, 1 },
	{ "0", 0, 0 },
	{ "5000", 0, 5000 },
	{ "0x1000", 0, 0x1000 },
	{ "010", 0, 8 },
	{ "200K", 0, 204800 },
	{ "1m", 0, 1048576 },
	{ "3G", 0, 3221225472ULL },
	{ "4294967295", 0, XT_MAX },
	{ NULL, -EINVAL, 0 },
	{ "", -EINVAL, 0 },
	{ "abc", -EINVAL, 0 },
	{ "-5", -EINVAL, 0 },
	{ "5000abc", -EINVAL, 0 },
	{ "5KB", -EINVAL, 0 },
	{ "5 ", -EINVAL, 0 },
	{ "4294967296", -EINVAL, 0 },
	{ "5G", -EINVAL, 0 },
	{ "16E", -EINVAL, 0 },
	{ "18446744073709551616", -EINVAL, 0 },
	{ "99999999999999999999", -EINVAL, 0 },
};

/*
 * The templates are __ro_after_init: an init-section suite runs before
 * mark_readonly(), while they can still be written.
 */
static void __init xt_set_templates(u64 slop)
{
	xen_timerop_clockevent.min_delta_ns = slop;
	xen_timerop_clockevent.min_delta_ticks = slop;
	xen_vcpuop_clockevent.min_delta_ns = slop;
	xen_vcpuop_clockevent.min_delta_ticks = slop;
}

static void __init xt_check_templates(struct kunit *test, u64 want, const char *what)
{
	KUNIT_EXPECT_EQ_MSG(test, xen_timerop_clockevent.min_delta_ns, want, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, (u64)xen_timerop_clockevent.min_delta_ticks, want,
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, xen_vcpuop_clockevent.min_delta_ns, want, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, (u64)xen_vcpuop_clockevent.min_delta_ticks, want,
			    "%s", what);
}

/*
 * Each value of the table, given to the handler: a valid one becomes both
 * templates' minimum delta, a rejected one fails and changes nothing.  The
 * templates are put back after each.
 */
static void __init xen_timer_slop_test_parse(struct kunit *test)
{
	const struct clock_event_device timerop = xen_timerop_clockevent;
	const struct clock_event_device vcpuop = xen_vcpuop_clockevent;
	const u64 was = 12345;
	unsigned int i;
	char buf[32];

	for (i = 0; i < ARRAY_SIZE(xt_parse_cases); i++) {
		const struct xt_parse_case *c = &xt_parse_cases[i];
		int ret;

		if (c->str)
			KUNIT_ASSERT_GE(test, strscpy(buf, c->str, sizeof(buf)), 0);
		xt_set_templates(was);
		ret = parse_xen_timer_slop(c->str ? buf : NULL);
		KUNIT_EXPECT_EQ_MSG(test, ret, c->err, "xen_timer_slop=%s", c->str ?: "(none)");
		xt_check_templates(test, c->err ? was : c->val, c->str ?: "(none)");
	}
	xen_timerop_clockevent = timerop;
	xen_vcpuop_clockevent = vcpuop;
}

/*
 * One parameter of the command line, as the kernel's parser hands it to
 * the early parameters: an xen_timer_slop goes through the handler, from
 * the slop so far, with the templates put back afterwards.
 */
static int __init xt_cmdline_param(char *param, char *val, const char *doing, void *arg)
{
	const struct clock_event_device timerop = xen_timerop_clockevent;
	const struct clock_event_device vcpuop = xen_vcpuop_clockevent;
	u64 *slop = arg;

	if (!parameq(param, "xen_timer_slop"))
		return 0;
	xt_set_templates(*slop);
	parse_xen_timer_slop(val);
	*slop = xen_vcpuop_clockevent.min_delta_ns;
	xen_timerop_clockevent = timerop;
	xen_vcpuop_clockevent = vcpuop;
	return 0;
}

/*
 * The slop the kernel made of its command line: parse_args() splits it
 * as it did for the early parameters (quotes taken off, nothing after
 * "--", which is init's), each xen_timer_slop in turn from the default.
 */
static u64 __init xt_cmdline_slop(struct kunit *test)
{
	char *cmdline = kstrdup(saved_command_line, GFP_KERNEL);
	u64 slop = XT_DEFAULT_SLOP_NS;

	KUNIT_ASSERT_NOT_NULL(test, cmdline);
	parse_args("xen_timer_slop test", cmdline, NULL, 0, 0, 0, &slop, xt_cmdline_param);
	kfree(cmdline);
	return slop;
}

static void __init xen_timer_slop_test_templates(struct kunit *test)
{
	u64 want = xt_cmdline_slop(test);

	kunit_info(test, "min_delta_ns %llu and %llu, the command line made %llu\n",
		   xen_timerop_clockevent.min_delta_ns, xen_vcpuop_clockevent.min_delta_ns,
		   want);
	xt_check_templates(test, want, "the command line's value");
	KUNIT_EXPECT_EQ(test, xen_timerop_clockevent.max_delta_ns, XT_MAX);
	KUNIT_EXPECT_EQ(test, xen_vcpuop_clockevent.max_delta_ns, XT_MAX);
}

/*
 * Each online CPU's Xen clockevent, where xen_setup_timer() made one: an
 * HVM guest without a vector callback or a safe pvclock keeps its local
 * APIC timer, and has none.
 */
static void __init xen_timer_slop_test_cpu_devices(struct kunit *test)
{
	u64 want = xt_cmdline_slop(test);
	unsigned int cpu, checked = 0;

	if (!xen_domain())
		kunit_skip(test, "not running on Xen");

	for_each_online_cpu(cpu) {
		const struct clock_event_device *evt = &per_cpu(xen_clock_events, cpu).evt;

		if (evt->irq < 0) {
			kunit_info(test, "CPU%u: the Xen clockevent is not in use\n", cpu);
			continue;
		}
		kunit_info(test, "CPU%u: min_delta_ns %llu, the command line made %llu\n",
			   cpu, evt->min_delta_ns, want);
		KUNIT_EXPECT_EQ(test, evt->min_delta_ns, want);
		KUNIT_EXPECT_EQ(test, (u64)evt->min_delta_ticks, want);
		checked++;
	}
	if (!checked)
		kunit_skip(test, "the Xen clockevent is not in use");
}

/* The cases and the suite are used after init, by debugfs: not __initdata */
static struct kunit_case __refdata xen_timer_slop_test_cases[] = {
	KUNIT_CASE(xen_timer_slop_test_parse),
	KUNIT_CASE(xen_timer_slop_test_templates),
	KUNIT_CASE(xen_timer_slop_test_cpu_devices),
	{}
};

static struct kunit_suite __refdata xen_timer_slop_test_suite = {
	.name = "xen_timer_slop",
	.test_cases = xen_timer_slop_test_cases,
};

kunit_test_init_section_suites(&xen_timer_slop_test_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the xen_timer_slop= boot parameter: how the value is
 * parsed, how it reaches the clockevent templates, and how a device's
 * minimum delta reaches the delta its set_next_event() is handed.
 *
 * The parsing and propagation cases run anywhere, UML included.  The
 * cases that look at the real templates of arch/x86/xen/time.c need
 * CONFIG_XEN, and those that look at the registered per-CPU devices need
 * a kernel running on Xen; elsewhere they are skipped with the reason.
 */

#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/clockchips.h>
#include <linux/cpumask.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/xen_timer_slop.h>
#include <xen/xen.h>

#include "../../kernel/time/tick-internal.h"

/* max_delta_ns of both Xen clockevent templates */
#define XTS_MAX		0xffffffffULL

/*
 * One row per value: what xen_timer_slop_parse() returns for it, and for
 * a rejected value what memparse(), which parsed the parameter before,
 * makes of it (@legacy; an accepted value means @val to both), so that
 * the table also records which values changed meaning.  The
 * selftests' user-space copy of the strict parser is tested against this
 * same table (tests/host_test.c compiles it from this file).
 */
struct xts_parse_case {
	const char *str;
	u64 max;
	int err;
	u64 val;
	u64 legacy;
	bool overflow;	/* too large for u64: memparse() may saturate instead */
	const char *desc;
};

#define OK(s, v, d)		{ .str = s, .max = XTS_MAX, .val = v, .desc = d }
#define OK_MAX(s, m, v, d)	{ .str = s, .max = m, .val = v, .desc = d }
#define BAD(s, e, l, d)		{ .str = s, .max = XTS_MAX, .err = e, .legacy = l, .desc = d }
#define BAD_MAX(s, m, e, l, d)	{ .str = s, .max = m, .err = e, .legacy = l, .desc = d }
#define OVF(s, m, l, d)		{ .str = s, .max = m, .err = -ERANGE, .legacy = l, \
				  .overflow = true, .desc = d }

static const struct xts_parse_case xts_parse_cases[] = {
	OK("1", 1, "the 6.12 default"),
	OK("0", 0, "zero is accepted as before"),
	OK("5000", 5000, "thread value 5000"),
	OK("100000", 100000, "pre-6.11 default"),
	OK("4294967295", XTS_MAX, "exactly max_delta_ns"),
	OK("0x1000", 0x1000, "hex prefix"),
	OK("0X1000", 0x1000, "upper-case hex prefix"),
	OK("0xffffffff", XTS_MAX, "hex max_delta_ns"),
	OK("010", 8, "leading zero means octal"),
	OK("00", 0, "octal zero"),
	OK("5k", 5120, "lower-case K suffix is binary"),
	OK("5K", 5120, "upper-case K suffix"),
	OK("200K", 204800, "200K as measured in the guest"),
	OK("1m", 1048576, "lower-case M suffix"),
	OK("1M", 1048576, "upper-case M suffix"),
	OK("3g", 3221225472ULL, "G suffix below max_delta_ns"),
	OK("0x10k", 16384, "hex with suffix"),
	OK("017K", 15360, "octal with suffix"),
	OK("0t", 0, "zero with T suffix"),
	OK("0E", 0, "zero with E suffix"),
	OK("4194303K", 4294966272ULL, "largest K multiple below max"),
	OK_MAX("5G", U64_MAX, 5368709120ULL, "5G fits a larger max"),
	OK_MAX("15E", U64_MAX, 15ULL << 60, "15E fits u64"),
	OK_MAX("18446744073709551615", U64_MAX, U64_MAX, "U64_MAX itself"),
	BAD(NULL, -EINVAL, 0, "bare xen_timer_slop without ="),
	BAD("", -EINVAL, 0, "empty value"),
	BAD("abc", -EINVAL, 0, "no digits, memparse gives 0"),
	BAD("-5", -EINVAL, 0, "negative, memparse gives 0"),
	BAD("+5", -EINVAL, 0, "plus sign, memparse gives 0"),
	BAD(" 5", -EINVAL, 0, "leading blank"),
	BAD("5 ", -EINVAL, 5, "trailing blank"),
	BAD("5000abc", -EINVAL, 5000, "junk after the number"),
	BAD("5kk", -EINVAL, 5120, "junk after the suffix"),
	BAD("5KB", -EINVAL, 5120, "two-letter suffix"),
	BAD("k", -EINVAL, 0, "suffix without a number"),
	BAD("0x", -EINVAL, 0, "hex prefix without digits"),
	BAD("0xg", -EINVAL, 0, "hex prefix with a non-hex digit"),
	BAD("08", -EINVAL, 0, "8 is not an octal digit"),
	BAD("5.5", -EINVAL, 5, "fraction"),
	BAD("5000\n", -EINVAL, 5000, "trailing newline"),
	OVF("99999999999999999999", XTS_MAX, 7766279631452241919ULL, "u64 overflow in digits"),
	OVF("18446744073709551616", XTS_MAX, 0, "U64_MAX + 1"),
	OVF("16E", XTS_MAX, 0, "u64 overflow through the suffix"),
	BAD("5G", -ERANGE, 5368709120ULL, "above max_delta_ns, every timer would wait 5 s"),
	BAD("4294967296", -ERANGE, 4294967296ULL, "max_delta_ns + 1"),
	BAD("4194304K", -ERANGE, 4294967296ULL, "K multiple just above max"),
	BAD("1T", -ERANGE, 1099511627776ULL, "T suffix above max"),
	OVF("16E", U64_MAX, 0, "16E overflows any max"),
	BAD_MAX("100", 99, -ERANGE, 100, "above a caller's max"),
};

static void xts_parse_case_desc(const struct xts_parse_case *c, char *desc)
{
	if (c->str)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pEs\": %s",
			 (int)strlen(c->str), c->str, c->desc);
	else
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "NULL: %s", c->desc);
}

KUNIT_ARRAY_PARAM(xts_parse, xts_parse_cases, xts_parse_case_desc);

/*
 * What memparse(), the parser before, makes of the value: @legacy for a
 * rejected one, the value itself for an accepted one.  A number too
 * large for u64 wrapped around until memparse() and simple_strtoull()
 * learned to saturate at ULLONG_MAX (7.3 does): either is memparse().
 */
static void xts_check_memparse(struct kunit *test,
			       const struct xts_parse_case *c, char **end)
{
	u64 got = memparse(c->str, end);

	if (c->overflow)
		KUNIT_EXPECT_TRUE_MSG(test, got == c->legacy || got == U64_MAX,
				      "memparse() gave %llu: neither wrapped (%llu) nor saturated",
				      got, c->legacy);
	else
		KUNIT_EXPECT_EQ(test, got, c->err ? c->legacy : c->val);
}

static void xen_timer_slop_test_parse(struct kunit *test)
{
	const struct xts_parse_case *c = test->param_value;
	const u64 poison = 0x5a5a5a5a5a5a5a5aULL;
	u64 val = poison;
	char *end;
	int ret;

	ret = xen_timer_slop_parse(c->str, c->max, &val);
	KUNIT_EXPECT_EQ(test, ret, c->err);
	if (c->str)
		xts_check_memparse(test, c, &end);
	if (c->err) {
		KUNIT_EXPECT_EQ_MSG(test, val, poison, "output written on error");
		return;
	}
	KUNIT_EXPECT_EQ(test, val, c->val);

	/* Everything accepted means what memparse() always made of it. */
	KUNIT_EXPECT_EQ(test, *end, '\0');
}

/* A clockevent device that records the delta it is programmed with */
struct xts_fake_dev {
	struct clock_event_device evt;
	unsigned long delta;
};

static int xts_fake_set_next_event(unsigned long delta,
				   struct clock_event_device *evt)
{
	container_of(evt, struct xts_fake_dev, evt)->delta = delta;
	return 0;
}

static int xts_fake_set_oneshot(struct clock_event_device *evt)
{
	return 0;
}

/*
 * Both templates of arch/x86/xen/time.c, as far as the slop is concerned;
 * the vcpuop one also has set_state_oneshot.
 */
#define XTS_TEMPLATE(...)						\
	{								\
		.name			= "xen",			\
		.features		= CLOCK_EVT_FEAT_ONESHOT,	\
		.max_delta_ns		= XTS_MAX,			\
		.max_delta_ticks	= XTS_MAX,			\
		.min_delta_ns		= XEN_TIMER_SLOP_DEFAULT_NS,	\
		.min_delta_ticks	= XEN_TIMER_SLOP_DEFAULT_NS,	\
		.mult			= 1,				\
		.shift			= 0,				\
		.rating			= 500,				\
		.set_next_event		= xts_fake_set_next_event,	\
		__VA_ARGS__						\
	}

static const struct clock_event_device xts_timerop_template = XTS_TEMPLATE();
static const struct clock_event_device xts_vcpuop_template =
	XTS_TEMPLATE(.set_state_oneshot = xts_fake_set_oneshot);

static const u64 xts_slops[] = { 0, 1, 5000, 100000, 204800, XTS_MAX };

static void xts_slop_desc(const u64 *slop, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "slop %llu ns", *slop);
}

KUNIT_ARRAY_PARAM(xts_slop, xts_slops, xts_slop_desc);

static void xts_check_apply(struct kunit *test,
			    const struct clock_event_device *template, u64 slop)
{
	struct clock_event_device evt = *template;

	xen_timer_slop_apply(&evt, slop);
	KUNIT_EXPECT_EQ(test, evt.min_delta_ns, slop);
	KUNIT_EXPECT_EQ(test, (u64)evt.min_delta_ticks, slop);

	/* Nothing else may change. */
	evt.min_delta_ns = template->min_delta_ns;
	evt.min_delta_ticks = template->min_delta_ticks;
	KUNIT_EXPECT_EQ_MSG(test, memcmp(&evt, template, sizeof(evt)), 0,
			    "apply changed a field other than min_delta_*");
}

static void xen_timer_slop_test_apply_templates(struct kunit *test)
{
	const u64 *slop = test->param_value;

	xts_check_apply(test, &xts_timerop_template, *slop);
	xts_check_apply(test, &xts_vcpuop_template, *slop);
}

static const u64 xts_hw_slops[] = { 1, 100000 };

KUNIT_ARRAY_PARAM(xts_hw_slop, xts_hw_slops, xts_slop_desc);

/*
 * Program a copy of the vcpuop template, never registered, through the
 * clockevents core, ahead_ns after now, and return the delta its
 * set_next_event() was handed.  *spent is the time the call took, which
 * the core took off ahead_ns: in a virtual machine the vCPU can be
 * descheduled for milliseconds in between.
 */
static unsigned long xts_program(struct kunit *test, u64 slop, u64 ahead_ns,
				 u64 *spent)
{
	struct xts_fake_dev dev = {
		.evt = xts_vcpuop_template,
		.delta = ULONG_MAX,
	};
	ktime_t start;
	int ret;

	xen_timer_slop_apply(&dev.evt, slop);
	dev.evt.cpumask = cpumask_of(0);
	clockevent_set_state(&dev.evt, CLOCK_EVT_STATE_ONESHOT);

	start = ktime_get();
	ret = clockevents_program_event(&dev.evt, ktime_add_ns(start, ahead_ns), true);
	*spent = ktime_to_ns(ktime_sub(ktime_get(), start));
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_NE_MSG(test, dev.delta, ULONG_MAX, "set_next_event not called");
	return dev.delta;
}

static void xen_timer_slop_test_program_near(struct kunit *test)
{
	const u64 slop = *(const u64 *)test->param_value;
	const u64 ahead = 1000;
	u64 spent;
	unsigned long delta = xts_program(test, slop, ahead, &spent);

	/* An expiry 1 us ahead is raised to the slop, never below it. */
	KUNIT_EXPECT_GE(test, (u64)delta, slop);
	KUNIT_EXPECT_LE(test, (u64)delta, max(slop, ahead));
}

static void xen_timer_slop_test_program_far(struct kunit *test)
{
	const u64 slop = *(const u64 *)test->param_value;
	const u64 ahead = 10 * NSEC_PER_MSEC;
	u64 spent;
	unsigned long delta = xts_program(test, slop, ahead, &spent);

	/* A far expiry is not clamped: only the time the call took is lost. */
	KUNIT_EXPECT_LE(test, (u64)delta, ahead);
	KUNIT_EXPECT_GE(test, (u64)delta, ahead - min(spent, ahead));
}

/*
 * How the clockevents core hands a Xen device its minimum delta.  Since
 * v7.0, "clockevents: Prevent timer interrupt starvation", a delta at or
 * below min_delta_ns is programmed as min_delta_ticks and marks the event
 * forced (next_event_forced); while it is, a further short expiry does
 * not reach the device at all, and a longer one does and clears the
 * mark.  Before v7.0 every delta was clamped up to min_delta_ns and
 * converted to cycles, each time.  XTS_CORE_FORCES_MIN_TICKS says which
 * core this file is built for: 0 in the backports to older kernels.
 */
#define XTS_CORE_FORCES_MIN_TICKS	1

/* min_delta_ticks unlike min_delta_ns, so that the delta tells them apart */
#define XTS_CORE_MIN_NS		100000
#define XTS_CORE_MIN_TICKS	40000

enum xts_core_got {
	XTS_GOT_NOTHING,	/* set_next_event() not called */
	XTS_GOT_MIN_NS,		/* handed min_delta_ns as cycles (mult 1) */
	XTS_GOT_MIN_TICKS,	/* handed min_delta_ticks */
	XTS_GOT_AHEAD,		/* handed the delta, less the time the call took */
};

#if XTS_CORE_FORCES_MIN_TICKS
#define XTS_SHORT_FIRST		XTS_GOT_MIN_TICKS
#define XTS_SHORT_AGAIN		XTS_GOT_NOTHING
#else
#define XTS_SHORT_FIRST		XTS_GOT_MIN_NS
#define XTS_SHORT_AGAIN		XTS_GOT_MIN_NS
#endif

struct xts_core_step {
	const char *what;
	u64 ahead_ns;
	enum xts_core_got got;
	bool forced;		/* next_event_forced afterwards (v7.0 on) */
};

/* One device, programmed with these expiries in this order */
static const struct xts_core_step xts_core_steps[] = {
	{ "short", 1000, XTS_SHORT_FIRST, true },
	{ "short while forced", 1000, XTS_SHORT_AGAIN, true },
	{ "far", 100 * NSEC_PER_MSEC, XTS_GOT_AHEAD, false },
	{ "short after far", 1000, XTS_SHORT_FIRST, true },
};

static void xen_timer_slop_test_core(struct kunit *test)
{
	struct xts_fake_dev dev = { .evt = xts_vcpuop_template };
	unsigned int i;

	dev.evt.min_delta_ns = XTS_CORE_MIN_NS;
	dev.evt.min_delta_ticks = XTS_CORE_MIN_TICKS;
	dev.evt.cpumask = cpumask_of(0);
	clockevent_set_state(&dev.evt, CLOCK_EVT_STATE_ONESHOT);

	for (i = 0; i < ARRAY_SIZE(xts_core_steps); i++) {
		const struct xts_core_step *s = &xts_core_steps[i];
		ktime_t start;
		u64 spent;
		int ret;

		dev.delta = ULONG_MAX;
		start = ktime_get();
		ret = clockevents_program_event(&dev.evt,
						ktime_add_ns(start, s->ahead_ns),
						true);
		spent = ktime_to_ns(ktime_sub(ktime_get(), start));
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "step %u (%s)", i, s->what);

		switch (s->got) {
		case XTS_GOT_NOTHING:
			KUNIT_EXPECT_EQ_MSG(test, dev.delta, ULONG_MAX,
					    "step %u (%s) reached the device",
					    i, s->what);
			break;
		case XTS_GOT_MIN_NS:
			KUNIT_EXPECT_EQ_MSG(test, dev.delta, XTS_CORE_MIN_NS,
					    "step %u (%s)", i, s->what);
			break;
		case XTS_GOT_MIN_TICKS:
			KUNIT_EXPECT_EQ_MSG(test, dev.delta, XTS_CORE_MIN_TICKS,
					    "step %u (%s)", i, s->what);
			break;
		case XTS_GOT_AHEAD:
			KUNIT_EXPECT_LE_MSG(test, (u64)dev.delta, s->ahead_ns,
					    "step %u (%s)", i, s->what);
			KUNIT_EXPECT_GE_MSG(test, (u64)dev.delta,
					    s->ahead_ns - min(spent, s->ahead_ns),
					    "step %u (%s)", i, s->what);
			break;
		}
#if XTS_CORE_FORCES_MIN_TICKS
		KUNIT_EXPECT_EQ_MSG(test, (bool)dev.evt.next_event_forced,
				    s->forced, "step %u (%s)", i, s->what);
#endif
	}
}

#if IS_ENABLED(CONFIG_XEN)
/*
 * The value the kernel command line should have left in the templates:
 * every xen_timer_slop=VALUE in order, a rejected one changing nothing.
 */
static u64 xts_cmdline_slop(struct kunit *test, u64 max_ns)
{
	static const char key[] = "xen_timer_slop=";
	const char *p = saved_command_line;
	u64 slop = XEN_TIMER_SLOP_DEFAULT_NS;

	while ((p = strstr(p, key))) {
		size_t len;
		char *val;

		if (p != saved_command_line && p[-1] != ' ') {
			p++;
			continue;
		}
		p += strlen(key);
		len = strcspn(p, " ");
		val = kunit_kmalloc(test, len + 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, val);
		memcpy(val, p, len);
		val[len] = '\0';
		xen_timer_slop_parse(val, max_ns, &slop);
		p += len;
	}
	return slop;
}
#endif

static void xen_timer_slop_test_xen_templates(struct kunit *test)
{
#if IS_ENABLED(CONFIG_XEN)
	unsigned int i;

	if (!IS_BUILTIN(CONFIG_XEN_TIMER_SLOP_KUNIT_TEST))
		kunit_skip(test, "needs the test built in to read the command line");

	for (i = 0; i < 2; i++) {
		const struct clock_event_device *evt = xen_timer_slop_template(i);
		u64 want;

		KUNIT_ASSERT_NOT_NULL(test, evt);
		want = xts_cmdline_slop(test, evt->max_delta_ns);
		kunit_info(test, "template %u: min_delta_ns %llu, command line says %llu\n",
			   i, evt->min_delta_ns, want);
		KUNIT_EXPECT_EQ(test, evt->min_delta_ns, want);
		KUNIT_EXPECT_EQ(test, (u64)evt->min_delta_ticks, want);
		KUNIT_EXPECT_EQ(test, evt->max_delta_ns, XTS_MAX);
	}
	KUNIT_EXPECT_NULL(test, xen_timer_slop_template(2));
#else
	kunit_skip(test, "needs CONFIG_XEN");
#endif
}

static void xen_timer_slop_test_xen_cpu_devices(struct kunit *test)
{
#if IS_ENABLED(CONFIG_XEN)
	unsigned int cpu;
	u64 want;

	if (!xen_domain())
		kunit_skip(test, "not running on Xen");
	if (!IS_BUILTIN(CONFIG_XEN_TIMER_SLOP_KUNIT_TEST))
		kunit_skip(test, "needs the test built in to read the command line");

	want = xts_cmdline_slop(test, XTS_MAX);
	for_each_online_cpu(cpu) {
		const struct clock_event_device *evt = xen_timer_slop_cpu_device(cpu);

		KUNIT_ASSERT_NOT_NULL_MSG(test, evt, "CPU%u has no xen clockevent", cpu);
		kunit_info(test, "CPU%u: min_delta_ns %llu, command line says %llu\n",
			   cpu, evt->min_delta_ns, want);
		KUNIT_EXPECT_STREQ(test, evt->name, "xen");
		KUNIT_EXPECT_EQ(test, evt->min_delta_ns, want);
		KUNIT_EXPECT_EQ(test, (u64)evt->min_delta_ticks, want);
	}
#else
	kunit_skip(test, "needs CONFIG_XEN");
#endif
}

static struct kunit_case xen_timer_slop_test_cases[] = {
	KUNIT_CASE_PARAM(xen_timer_slop_test_parse, xts_parse_gen_params),
	KUNIT_CASE_PARAM(xen_timer_slop_test_apply_templates, xts_slop_gen_params),
	KUNIT_CASE_PARAM(xen_timer_slop_test_program_near, xts_hw_slop_gen_params),
	KUNIT_CASE_PARAM(xen_timer_slop_test_program_far, xts_hw_slop_gen_params),
	KUNIT_CASE(xen_timer_slop_test_core),
	KUNIT_CASE(xen_timer_slop_test_xen_templates),
	KUNIT_CASE(xen_timer_slop_test_xen_cpu_devices),
	{}
};

static struct kunit_suite xen_timer_slop_test_suite = {
	.name = "xen_timer_slop",
	.test_cases = xen_timer_slop_test_cases,
};

kunit_test_suite(xen_timer_slop_test_suite);

MODULE_DESCRIPTION("KUnit tests for the xen_timer_slop= boot parameter");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

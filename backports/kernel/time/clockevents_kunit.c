// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of how clockevents_program_event() honours a device's
 * minimum delta: what the device's set_next_event() is handed for an
 * expiry nearer and farther than min_delta_ns.  The device is a fake
 * that records the delta, never registered, so the tests run on any
 * architecture with GENERIC_CLOCKEVENTS, UML included.
 *
 * Every delta at or below min_delta_ns is raised to it and programmed as
 * cycles, each time.  (Since v7.0 such a delta is programmed as
 * min_delta_ticks and marks a forced event instead: mainline's form of
 * this test pins that.)
 */

#include <kunit/test.h>
#include <linux/clockchips.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/minmax.h>

#include "tick-internal.h"

/* A clockevent device that records the delta it is programmed with */
struct ce_test_dev {
	struct clock_event_device evt;
	unsigned long delta;
};

static int ce_test_set_next_event(unsigned long delta,
				  struct clock_event_device *evt)
{
	container_of(evt, struct ce_test_dev, evt)->delta = delta;
	return 0;
}

/* One tick per nanosecond, as paravirtual timers (Xen's) count */
static void ce_test_init(struct ce_test_dev *dev, u64 min_ns, u64 min_ticks)
{
	*dev = (struct ce_test_dev) {
		.evt = {
			.name			= "kunit",
			.features		= CLOCK_EVT_FEAT_ONESHOT,
			.max_delta_ns		= 0xffffffff,
			.max_delta_ticks	= 0xffffffff,
			.min_delta_ns		= min_ns,
			.min_delta_ticks	= min_ticks,
			.mult			= 1,
			.shift			= 0,
			.set_next_event		= ce_test_set_next_event,
			.cpumask		= cpumask_of(0),
		},
		.delta = ULONG_MAX,
	};
	clockevent_set_state(&dev->evt, CLOCK_EVT_STATE_ONESHOT);
}

/*
 * Program @dev @ahead_ns after now and return what set_next_event() was
 * handed (ULONG_MAX: not called).  *@spent is the time the call took,
 * which the core takes off the delta: a virtual CPU can be descheduled
 * for milliseconds in between.
 */
static unsigned long ce_test_program(struct kunit *test, struct ce_test_dev *dev,
				     u64 ahead_ns, u64 *spent)
{
	ktime_t start = ktime_get();
	int ret;

	dev->delta = ULONG_MAX;
	ret = clockevents_program_event(&dev->evt, ktime_add_ns(start, ahead_ns), true);
	*spent = ktime_to_ns(ktime_sub(ktime_get(), start));
	KUNIT_EXPECT_EQ(test, ret, 0);
	return dev->delta;
}

static const u64 ce_test_min_deltas[] = { 1, 5000, 100000 };

static void ce_test_min_desc(const u64 *min, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "min_delta_ns %llu", *min);
}

KUNIT_ARRAY_PARAM(ce_test_min, ce_test_min_deltas, ce_test_min_desc);

/* An expiry 1 us ahead reaches the device raised to the minimum, never below */
static void clockevents_test_near(struct kunit *test)
{
	const u64 min = *(const u64 *)test->param_value;
	struct ce_test_dev dev;
	unsigned long delta;
	u64 spent;

	ce_test_init(&dev, min, min);
	delta = ce_test_program(test, &dev, 1000, &spent);
	KUNIT_ASSERT_NE_MSG(test, delta, ULONG_MAX, "set_next_event() not called");
	KUNIT_EXPECT_GE(test, (u64)delta, min);
	KUNIT_EXPECT_LE(test, (u64)delta, max(min, 1000ULL));
}

/* A far expiry is not raised: only the time the call took is lost */
static void clockevents_test_far(struct kunit *test)
{
	const u64 min = *(const u64 *)test->param_value;
	const u64 ahead = 10 * NSEC_PER_MSEC;
	struct ce_test_dev dev;
	unsigned long delta;
	u64 spent;

	ce_test_init(&dev, min, min);
	delta = ce_test_program(test, &dev, ahead, &spent);
	KUNIT_ASSERT_NE_MSG(test, delta, ULONG_MAX, "set_next_event() not called");
	KUNIT_EXPECT_LE(test, (u64)delta, ahead);
	KUNIT_EXPECT_GE(test, (u64)delta, ahead - min(spent, ahead));
}

/* min_delta_ticks unlike min_delta_ns, so that the delta tells them apart */
#define CE_TEST_MIN_NS		100000
#define CE_TEST_MIN_TICKS	40000

enum ce_test_got {
	CE_GOT_NOTHING,		/* set_next_event() not called */
	CE_GOT_MIN_NS,		/* min_delta_ns, as cycles (mult 1) */
	CE_GOT_AHEAD,		/* the delta, less the time the call took */
};

struct ce_test_step {
	const char *what;
	u64 ahead_ns;
	enum ce_test_got got;
};

/* One device, programmed with these expiries in this order */
static const struct ce_test_step ce_test_steps[] = {
	{ "short", 1000, CE_GOT_MIN_NS },
	{ "short again", 1000, CE_GOT_MIN_NS },
	{ "far", 100 * NSEC_PER_MSEC, CE_GOT_AHEAD },
	{ "short after far", 1000, CE_GOT_MIN_NS },
};

/*
 * Program a fresh device with ce_test_steps[] and judge each step.  A far
 * step can only be judged when the core saw it far: a CPU away for all
 * but min_delta_ns of it (a descheduled virtual CPU, a stalled host)
 * turns it into a short one, and the steps after it then test something
 * else.  Return false at such a step, with the time its call took in
 * *@away.
 */
static bool ce_test_forced_steps(struct kunit *test, u64 *away)
{
	struct ce_test_dev dev;
	unsigned int i;

	ce_test_init(&dev, CE_TEST_MIN_NS, CE_TEST_MIN_TICKS);
	for (i = 0; i < ARRAY_SIZE(ce_test_steps); i++) {
		const struct ce_test_step *s = &ce_test_steps[i];
		unsigned long delta;
		u64 spent;

		delta = ce_test_program(test, &dev, s->ahead_ns, &spent);
		if (s->got == CE_GOT_AHEAD && spent + CE_TEST_MIN_NS >= s->ahead_ns) {
			*away = spent;
			return false;
		}
		switch (s->got) {
		case CE_GOT_NOTHING:
			KUNIT_EXPECT_EQ_MSG(test, delta, ULONG_MAX,
					    "step %u (%s) reached the device", i, s->what);
			break;
		case CE_GOT_MIN_NS:
			KUNIT_EXPECT_EQ_MSG(test, delta, CE_TEST_MIN_NS,
					    "step %u (%s)", i, s->what);
			break;
		case CE_GOT_AHEAD:
			KUNIT_EXPECT_LE_MSG(test, (u64)delta, s->ahead_ns,
					    "step %u (%s)", i, s->what);
			KUNIT_EXPECT_GE_MSG(test, (u64)delta, s->ahead_ns - spent,
					    "step %u (%s)", i, s->what);
			break;
		}
	}
	return true;
}

/* Runs of the steps before a CPU away at a far step each time is a skip */
#define CE_TEST_TRIES	3

/* What a short expiry programs, again and after a far one */
static void clockevents_test_forced(struct kunit *test)
{
	unsigned int try;
	u64 away = 0;

	for (try = 0; try < CE_TEST_TRIES; try++)
		if (ce_test_forced_steps(test, &away))
			return;
	kunit_skip(test, "far step seen short in %u runs: a call took %llu ns, the CPU was away",
		   CE_TEST_TRIES, away);
}

static struct kunit_case clockevents_test_cases[] = {
	KUNIT_CASE_PARAM(clockevents_test_near, ce_test_min_gen_params),
	KUNIT_CASE_PARAM(clockevents_test_far, ce_test_min_gen_params),
	KUNIT_CASE(clockevents_test_forced),
	{}
};

static struct kunit_suite clockevents_test_suite = {
	.name = "clockevents",
	.test_cases = clockevents_test_cases,
};

kunit_test_suite(clockevents_test_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing and application of the xen_timer_slop= boot parameter.
 *
 * Until this helper existed, arch/x86/xen/time.c stored memparse()'s
 * result unchecked: "abc" became 0, "5000abc" became 5000, "16E" wrapped
 * to 0 and "5G" made min_delta_ns larger than max_delta_ns, so that every
 * timer waited more than five seconds.  Values memparse() accepts in full
 * keep the meaning they always had; everything else is rejected.
 */

#include <linux/clockchips.h>
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/xen_timer_slop.h>
#include <kunit/visibility.h>

#include "kstrtox.h"

/* memparse() suffixes, in order of their power of 1024 */
static const char xen_timer_slop_suffixes[] = "KMGTPE";

/**
 * xen_timer_slop_parse() - parse a xen_timer_slop= value strictly
 * @str: the value, as given on the kernel command line; may be NULL
 * @max_ns: the largest value accepted, normally the devices' max_delta_ns
 * @slop_ns: where the parsed value is stored on success
 *
 * The syntax is memparse()'s: an unsigned number in base 0 (decimal, octal
 * with a leading 0, hex with a leading 0x) followed by at most one binary
 * suffix K, M, G, T, P or E in either case.  Unlike memparse(), the whole
 * string must be consumed and the result must fit.
 *
 * Return: 0 and *@slop_ns set on success; -EINVAL if @str is NULL, empty,
 * has no digits or has anything after the number and its suffix; -ERANGE
 * if the value overflows u64 or exceeds @max_ns.  *@slop_ns is left alone
 * on error.
 */
int xen_timer_slop_parse(const char *str, u64 max_ns, u64 *slop_ns)
{
	unsigned long long val;
	unsigned int base = 0;
	unsigned int rv, shift = 0;
	const char *s, *suffix;

	if (!str)
		return -EINVAL;

	s = _parse_integer_fixup_radix(str, &base);
	rv = _parse_integer(s, base, &val);
	if (!(rv & ~KSTRTOX_OVERFLOW))
		return -EINVAL;
	if (rv & KSTRTOX_OVERFLOW)
		return -ERANGE;
	s += rv & ~KSTRTOX_OVERFLOW;

	if (*s) {
		suffix = strchr(xen_timer_slop_suffixes, toupper(*s));
		if (!suffix)
			return -EINVAL;
		shift = 10 * (suffix - xen_timer_slop_suffixes + 1);
		s++;
	}
	if (*s)
		return -EINVAL;

	if (val > (ULLONG_MAX >> shift))
		return -ERANGE;
	val <<= shift;
	if (val > max_ns)
		return -ERANGE;

	*slop_ns = val;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(xen_timer_slop_parse);

/**
 * xen_timer_slop_apply() - make @slop_ns the minimum delta of @evt
 * @evt: a clockevent device with mult 1 and shift 0, not yet registered
 * @slop_ns: the minimum delta, as returned by xen_timer_slop_parse()
 *
 * Sets min_delta_ns and min_delta_ticks and nothing else; with mult 1 and
 * shift 0 one tick is one nanosecond.
 */
void xen_timer_slop_apply(struct clock_event_device *evt, u64 slop_ns)
{
	evt->min_delta_ns = slop_ns;
	evt->min_delta_ticks = slop_ns;
}
EXPORT_SYMBOL_IF_KUNIT(xen_timer_slop_apply);

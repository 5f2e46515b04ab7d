/* SPDX-License-Identifier: GPL-2.0 */
/*
 * I/O helpers shared by the xen_timer selftests.
 */
#ifndef XEN_TIMER_COMMON_H
#define XEN_TIMER_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Read a whole file into a NUL-terminated malloc'ed buffer; NULL on error. */
char *xt_read_file(const char *path);

/* True if running on Xen; *how says what told so. */
bool xt_on_xen(const char **how);

/*
 * NULL where xen_timer_slop= applies: an x86 guest on Xen whose CPU 0
 * uses the Xen clockevent.  Else the fixed reason to skip with (no
 * newline), *how saying what told so.
 */
const char *xt_not_applicable(const char **how);

/*
 * The slop the kernel should be using, from /proc/cmdline and the kernel
 * release (xt_cmdline_slop(), xt_default_slop()), into *slop with a
 * description in @why.  Returns 0, or -1 with the reason in @why when it
 * cannot be known.
 */
int xt_expected_slop(uint64_t *slop, char *why, size_t len);

/*
 * A skipped result with a name and a bare directive, "ok N NAME # SKIP",
 * the reason in a diagnostic after it, "# NAME: SKIP reason": CI bots that
 * name a result after its directive's text (Linaro's kselftest parser)
 * then keep one name whether it passes, fails or skips, and take the
 * diagnostics after a result as its log.  kunit.py parse needs the name,
 * which ksft_test_result_skip() does not print.  Needs kselftest.h.
 */
#define xt_test_skip(name, fmt, ...)					\
	do {								\
		const char *__name = (name);				\
									\
		ksft_test_result_code(KSFT_SKIP, __name, "%s", "");	\
		ksft_print_msg("%s: SKIP " fmt, __name, ##__VA_ARGS__);	\
	} while (0)

/*
 * Skip the whole test, before any plan: a plan of one, that one result
 * skipped and exit code KSFT_SKIP, because the "1..0 # SKIP" of
 * ksft_exit_skip() is an error to kunit.py parse.  For a test that cannot
 * tell its result names; see xt_exit_skip_all().
 */
#define xt_exit_skip(name, fmt, ...)				\
	do {							\
		ksft_set_plan(1);				\
		xt_test_skip(name, fmt, ##__VA_ARGS__);		\
		ksft_print_cnts();				\
		exit(KSFT_SKIP);				\
	} while (0)

/*
 * The one SKIP reason of a check that this platform could not resolve in
 * this run (the measured noise is in the diagnostics after it): the
 * platform's, not the kernel's; a runner may boot again.
 */
#define XT_PLATFORM_SKIP	"platform could not resolve it in this run\n"

/* Longest result name, NUL included */
#define XT_NAME_LEN	32

/*
 * Skip the whole test under the names its results have when it runs, so
 * that CI bots, which track results by name, see the same names whether
 * the test passes, fails or skips: every name in @names[][XT_NAME_LEN]
 * skipped with the reason, exit code KSFT_SKIP.  The plan, of @n, is the
 * caller's, printed before any diagnostic (TAP parsers want it first).
 */
#define xt_exit_skip_all(names, n, fmt, ...)				\
	do {								\
		int __i, __n = (n);					\
									\
		for (__i = 0; __i < __n; __i++)				\
			xt_test_skip((names)[__i], fmt, ##__VA_ARGS__);	\
		ksft_print_cnts();					\
		exit(KSFT_SKIP);					\
	} while (0)

#endif

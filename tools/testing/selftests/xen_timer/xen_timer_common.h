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

/* True if the kernel has the strict xen_timer_slop= parser; -1 if unknown. */
int xt_kernel_is_strict(void);

/*
 * The slop the kernel should be using, from /proc/cmdline and the kernel
 * release, into *slop with a description in @why.  Returns 0, or -1 with
 * the reason in @why when it cannot be known.
 */
int xt_expected_slop(uint64_t *slop, char *why, size_t len);

#endif

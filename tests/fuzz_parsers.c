// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the selftests' parsers of /proc/timer_list and
 * /proc/cmdline.  Input: one byte that picks the parser, then the text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xen_timer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xt_tick_dev devs[XT_MAX_CPUS];
	uint64_t v;
	char *s;

	if (!size)
		return 0;
	s = malloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (data[0] % 2)
		xt_cmdline_slop(s, &v);
	else
		xt_parse_timer_list(s, devs);
	free(s);
	return 0;
}

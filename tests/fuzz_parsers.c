// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the selftests' parsers: /proc/timer_list,
 * /proc/cmdline, the strict slop parser, CPU and option lists.
 * Input: one byte that picks the parser, then the text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xen_timer_lib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xt_tick_dev devs[64];
	static bool mask[XT_MAX_CPUS];
	uint64_t v, list[8];
	char *s;

	if (!size)
		return 0;
	s = malloc(size);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 5) {
	case 0:
		xt_parse_timer_list(s, devs, 64);
		break;
	case 1:
		xt_cmdline_slop(s, 1, XT_MAX_DELTA_NS, &v);
		xt_cmdline_slop(s, 1, UINT64_MAX, &v);
		break;
	case 2:
		xt_slop_parse_strict(s, XT_MAX_DELTA_NS, &v);
		xt_slop_parse_strict(s, UINT64_MAX, &v);
		break;
	case 3:
		xt_parse_cpulist(s, mask);
		break;
	case 4:
		xt_parse_u64_list(s, list, 8, 0, UINT64_MAX);
		xt_parse_u64(s, 0, UINT64_MAX, &v);
		xt_default_slop(s);
		break;
	}
	free(s);
	return 0;
}

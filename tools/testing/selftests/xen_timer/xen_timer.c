// SPDX-License-Identifier: GPL-2.0
/*
 * What the xen_timer selftests share; see xen_timer.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xen_timer.h"

char *xt_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	ssize_t r = f ? getdelim(&buf, &len, '\0', f) : -1;

	if (f)
		fclose(f);
	if (r < 0)
		free(buf);
	return r < 0 ? NULL : buf;
}

const char *xt_not_applicable(void)
{
	char *dev = xt_read_file("/sys/devices/system/clockevents/clockevent0/current_device");
	char *type = xt_read_file("/sys/hypervisor/type");
	bool xen = type && !strcmp(type, "xen\n");
	const char *why = NULL;

	if (!dev || strcmp(dev, "xen\n"))
		why = xen ? "the Xen clockevent is not in use" : "not running on Xen";
	free(dev);
	free(type);
	return why;
}

/* A slop as memparse() reads it, all of @s; 0, or -1 */
static int slop_value(const char *s, uint64_t *slop)
{
	static const char suffixes[] = "KMGTPE";
	const char *suf = NULL;
	int shift;
	char *end;

	errno = 0;
	*slop = strtoull(s, &end, 0);
	if (*end)
		suf = strchr(suffixes, toupper((unsigned char)*end));
	shift = suf ? 10 * (suf - suffixes + 1) : 0;
	if (!isdigit((unsigned char)*s) || errno || (*end && (!suf || end[1])) ||
	    *slop > XT_MAX_SLOP_NS >> shift)
		return -1;
	*slop <<= shift;
	return 0;
}

int xt_cmdline_slop(const char *cmdline, uint64_t *slop)
{
	const char *p = cmdline;
	char word[256];
	int found = 0;

	while (*p) {
		bool quoted = false;
		size_t n = 0;

		while (isspace((unsigned char)*p))
			p++;
		for (; *p && (quoted || !isspace((unsigned char)*p)); p++) {
			if (*p == '"')
				quoted = !quoted;
			else if (n + 1 < sizeof(word))
				word[n++] = *p;
		}
		word[n] = '\0';
		if (!strcmp(word, "--"))
			break;
		/* the kernel takes '-' for '_' in a parameter's name */
		for (n = 0; word[n] && word[n] != '='; n++)
			if (word[n] == '-')
				word[n] = '_';
		if (strncmp(word, "xen_timer_slop", 14) || (word[14] && word[14] != '='))
			continue;
		found = word[14] && !slop_value(word + 15, slop) ? 1 : -1;
	}
	return found;
}

int xt_parse_timer_list(const char *text, struct xt_tick_dev *devs)
{
	struct xt_tick_dev *cur = NULL;
	const char *line;
	int cpu;
	char c;

	for (cpu = 0; cpu < XT_MAX_CPUS; cpu++)
		devs[cpu] = (struct xt_tick_dev){ .min_delta_ns = -1 };
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, "Tick Device:", 12) || !strncmp(line, "Broadcast device", 16)) {
			cur = NULL;
		} else if (!strncmp(line, "Per CPU device:", 15)) {
			if (sscanf(line + 15, "%d%c", &cpu, &c) != 2 || c != '\n' || cpu < 0 ||
			    cpu >= XT_MAX_CPUS)
				return -1;
			cur = &devs[cpu];
			cur->online = true;
		} else if (cur && !strncmp(line, "Clock Event Device: ", 20)) {
			if (sscanf(line + 20, "%31[^\n]", cur->name) != 1)
				return -1;
		} else if (cur && !strncmp(line, " min_delta_ns:", 14)) {
			if (sscanf(line + 14, "%lld%c", &cur->min_delta_ns, &c) != 2 || c != '\n' ||
			    cur->min_delta_ns < 0)
				return -1;
		}
	}
	return 0;
}

int xt_cmp_u64(const void *a, const void *b)
{
	return *(const uint64_t *)a < *(const uint64_t *)b ? -1 :
	       *(const uint64_t *)a > *(const uint64_t *)b;
}

struct timespec xt_ts(uint64_t ns)
{
	return (struct timespec){ ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };
}

uint64_t xt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

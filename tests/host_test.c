// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the xen_timer selftests' pure logic (xen_timer_lib.c):
 * the strict parser against the kernel's rules (the KUnit suite's table),
 * command-line and CPU-list parsing, /proc/timer_list parsing on real
 * captures and on broken input, and the statistics.
 *
 * usage: host_test DATADIR
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xen_timer_lib.h"

static int passed, failed;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

static char *slurp(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;
	char *buf;
	long len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f) {
		printf("cannot open %s: %s\n", path, strerror(errno));
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len + 1);
	if (!buf || fread(buf, 1, len, f) != (size_t)len) {
		printf("cannot read %s\n", path);
		exit(2);
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/*
 * The parse table of the KUnit suite, compiled from lib/tests/xen_timer_slop_kunit.c
 * by tests/Makefile (parse_cases.h), so that the kernel's parsers and the
 * selftests' mirror of them answer the same table.
 */
typedef uint64_t u64;
#define U64_MAX		UINT64_MAX
#define XTS_MAX		XT_MAX_DELTA_NS
#include "parse_cases.h"

static void test_parse(void)
{
	size_t i;

	const size_t n = sizeof(xts_parse_cases) / sizeof(xts_parse_cases[0]);

	CHECK(n >= 40, "only %zu rows in the KUnit parse table", n);
	for (i = 0; i < n; i++) {
		const struct xts_parse_case *c = &xts_parse_cases[i];
		const char *s = c->str;
		uint64_t v = 42;
		int err = xt_slop_parse_strict(s, c->max, &v);

		CHECK(err == c->err, "strict '%s' (%s): err %d, want %d",
		      s ? s : "(null)", c->desc, err, c->err);
		if (!c->err)
			CHECK(v == c->val, "strict '%s' (%s): %llu", s, c->desc,
			      (unsigned long long)v);
		else
			CHECK(v == 42, "strict '%s' wrote on error", s ? s : "(null)");
	}
	printf("%zu parse rows from lib/tests/xen_timer_slop_kunit.c\n", n);
}

static void test_cmdline(void)
{
	/* seen XT_SLOP_UNKNOWN: kernels differ, nothing can be expected */
	static const struct {
		const char *cmdline;
		int seen;
		uint64_t slop;
	} c[] = {
		{ "console=hvc0", 0, 1 },
		{ "console=hvc0 xen_timer_slop=5000", 1, 5000 },
		{ "xen_timer_slop=5000 quiet", 1, 5000 },
		{ "xen_timer_slop=200K", 1, 204800 },
		{ "xen_timer_slop=abc", XT_SLOP_UNKNOWN, 0 },
		{ "xen_timer_slop=5G", XT_SLOP_UNKNOWN, 0 },
		{ "xen_timer_slop=4294967295", 1, 4294967295ULL },
		{ "xen_timer_slop=4294967296", XT_SLOP_UNKNOWN, 0 },
		{ "xen_timer_slop", XT_SLOP_UNKNOWN, 0 },
		{ "xen_timer_slop=5000 xen_timer_slop=100000", 2, 100000 },
		{ "xen_timer_slop=5000 xen_timer_slop=abc", XT_SLOP_UNKNOWN, 0 },
		{ "xen_timer_slop=abc xen_timer_slop=5000", 2, 5000 },
		{ "xen_timer_slop=\"5000\"", 1, 5000 },
		{ "foo=\"a b xen_timer_slop=7\" xen_timer_slop=9", 1, 9 },
		{ "my_xen_timer_slop=7", 0, 1 },
		{ "xen_timer_slopx=7", 0, 1 },
		{ "xen_timer_slop=7 -- xen_timer_slop=9", 1, 7 },
		{ "xen_timer_slop=7 -- xen_timer_slop=abc", 1, 7 },
		{ "xen_timer_slop= ", XT_SLOP_UNKNOWN, 0 },
		{ "  xen_timer_slop=0x10\n", 1, 16 },
		{ "", 0, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t s = 42;
		int seen = xt_cmdline_slop(c[i].cmdline, 1, XT_MAX_DELTA_NS, &s);

		CHECK(seen == c[i].seen, "'%s': seen %d", c[i].cmdline, seen);
		if (c[i].seen == XT_SLOP_UNKNOWN)
			CHECK(s == 42, "'%s': wrote %llu with nothing to expect",
			      c[i].cmdline, (unsigned long long)s);
		else
			CHECK(s == c[i].slop, "'%s': slop %llu", c[i].cmdline,
			      (unsigned long long)s);
	}
	CHECK(xt_default_slop("6.12.48+deb12-amd64") == 1, "6.12 default");
	CHECK(xt_default_slop("6.11.0") == 1, "6.11 default");
	CHECK(xt_default_slop("6.10.14") == 100000, "6.10 default");
	CHECK(xt_default_slop("6.1.0-57-amd64") == 100000, "6.1 default");
	CHECK(xt_default_slop("7.0.0") == 1, "7.0 default");
	CHECK(xt_default_slop("5.19.0") == 100000, "5.19 default");
}

/*
 * The kernel's own default, include/linux/xen_timer_slop.h as
 * scripts/render-file.sh puts it into the tree of each series
 * (kernel_defaults.h, made by tests/Makefile), against the default the
 * selftests expect of that kernel release.
 */
static void test_kernel_defaults(void)
{
	static const struct {
		const char *release;
		uint64_t ns;
	} k[] = {
#include "kernel_defaults.h"
	};
	size_t i;

	CHECK(sizeof(k) / sizeof(k[0]) >= 3, "only %zu series in kernel_defaults.h",
	      sizeof(k) / sizeof(k[0]));
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		CHECK(xt_default_slop(k[i].release) == k[i].ns,
		      "Linux %s: XEN_TIMER_SLOP_DEFAULT_NS %llu, the selftests expect %llu",
		      k[i].release, (unsigned long long)k[i].ns,
		      (unsigned long long)xt_default_slop(k[i].release));
}

static void test_cpulist(void)
{
	static bool m[XT_MAX_CPUS];

	CHECK(xt_parse_cpulist("0-1\n", m) == 2 && m[0] && m[1] && !m[2], "0-1");
	CHECK(xt_parse_cpulist("0", m) == 1 && m[0], "0");
	CHECK(xt_parse_cpulist("0-3,5,7-8\n", m) == 7 && m[5] && !m[4] && m[8], "ranges");
	CHECK(xt_parse_cpulist("", m) == -1, "empty");
	CHECK(xt_parse_cpulist("3-1", m) == -1, "reversed");
	CHECK(xt_parse_cpulist("0-", m) == -1, "open range");
	CHECK(xt_parse_cpulist("a", m) == -1, "junk");
	CHECK(xt_parse_cpulist("0,,1", m) == -1, "double comma");
	CHECK(xt_parse_cpulist("99999999", m) == -1, "huge");
	CHECK(xt_parse_cpulist("0-18446744073709551616", m) == -1, "range end overflows");
	CHECK(xt_parse_cpulist("4095", m) == 1 && m[4095], "last CPU");
	CHECK(xt_parse_cpulist("4096", m) == -1, "past the last CPU");
	CHECK(xt_parse_cpulist("4096", m) == -1, "over XT_MAX_CPUS");
	CHECK(xt_parse_cpulist("4095", m) == 1, "last CPU");
}

static void test_timer_list(const char *dir)
{
	static struct xt_tick_dev d[XT_MAX_CPUS];
	char *t;
	int n, i;

	t = slurp(dir, "timer_list.xen-pv-4cpu");
	n = xt_parse_timer_list(t, d, XT_MAX_CPUS);
	CHECK(n == 4, "xen capture: %d devices", n);
	for (i = 0; i < n; i++) {
		CHECK(d[i].cpu == i, "xen capture: cpu %d", d[i].cpu);
		CHECK(!strcmp(d[i].name, "xen"), "xen capture: name '%s'", d[i].name);
		CHECK(d[i].has_min && d[i].min_delta_ns == 5000,
		      "xen capture: min %llu", (unsigned long long)d[i].min_delta_ns);
	}
	/* a cut in the middle of the last device: no min_delta_ns for it */
	t[strstr(t, "Per CPU device: 3") - t + 40] = '\0';
	n = xt_parse_timer_list(t, d, XT_MAX_CPUS);
	CHECK(n == 4 && !d[3].has_min, "truncated capture: %d, has_min %d", n, d[3].has_min);
	CHECK(xt_parse_timer_list(t, d, 2) == -1, "more devices than room");
	free(t);

	t = slurp(dir, "timer_list.kvm-host");
	n = xt_parse_timer_list(t, d, XT_MAX_CPUS);
	CHECK(n == 2, "non-Xen capture: %d devices", n);
	for (i = 0; i < n; i++) {
		CHECK(strcmp(d[i].name, "xen"), "non-Xen capture has a xen device");
		CHECK(d[i].has_min && d[i].min_delta_ns == 1000, "non-Xen min %llu",
		      (unsigned long long)d[i].min_delta_ns);
	}
	free(t);

	CHECK(xt_parse_timer_list("", d, 4) == 0, "empty");
	CHECK(xt_parse_timer_list("Per CPU device: x\n", d, 4) == -1, "bad cpu");
	CHECK(xt_parse_timer_list("Per CPU device: 99999\n", d, 4) == -1, "cpu too big");
	CHECK(xt_parse_timer_list("Per CPU device: 0\nClock Event Device: xen\n min_delta_ns:   99999999999999999999\n",
				  d, 4) == -1, "huge min_delta_ns");
	CHECK(xt_parse_timer_list("Per CPU device: 0\nClock Event Device: xen\n min_delta_ns:   12abc\n",
				  d, 4) == -1, "junk min_delta_ns");
	CHECK(xt_parse_timer_list("Per CPU device: 0\nClock Event Device: xen\n min_delta_ns:\n",
				  d, 4) == -1, "empty min_delta_ns");
	n = xt_parse_timer_list("Per CPU device: 0\n", d, 4);
	CHECK(n == 1 && !d[0].name[0] && !d[0].has_min, "device without fields");
	n = xt_parse_timer_list("Per CPU device: 0\nClock Event Device: xen\n min_delta_ns: 18446744073709551615", d, 4);
	CHECK(n == 1 && d[0].min_delta_ns == UINT64_MAX, "U64_MAX without newline");
	n = xt_parse_timer_list("Broadcast device\nClock Event Device: xen\n min_delta_ns: 5\n", d, 4);
	CHECK(n == 0, "broadcast device is not per CPU");
}

static void test_stats(void)
{
	uint64_t v[1000], m[] = { 5, 1, 3 }, e[1];
	struct xt_stats st;
	size_t i;

	for (i = 0; i < 1000; i++)
		v[i] = (i * 7919) % 1000 + 1;	/* 1..1000 shuffled */
	xt_stats(v, 1000, 900, &st);
	CHECK(st.n == 1000 && st.min == 1 && st.max == 1000, "min/max");
	CHECK(st.avg > 500.49 && st.avg < 500.51, "avg %f", st.avg);
	CHECK(st.p10 == 100 && st.p50 == 500 && st.p99 == 990 && st.p999 == 999,
	      "percentiles %llu %llu %llu %llu", (unsigned long long)st.p10,
	      (unsigned long long)st.p50, (unsigned long long)st.p99,
	      (unsigned long long)st.p999);
	CHECK(st.spikes == 100, "spikes %zu", st.spikes);
	CHECK(xt_median(m, 3) == 3, "median of 3");
	CHECK(xt_median(e, 0) == 0, "median of none");
	xt_stats(e, 0, 1, &st);
	CHECK(st.n == 0, "stats of none");
}

static void test_options(void)
{
	uint64_t v[8], x;

	CHECK(xt_parse_u64_list("50,1000", v, 8, 1, 1000000) == 2 && v[1] == 1000, "list");
	CHECK(xt_parse_u64_list("50,", v, 8, 1, 1000000) == -1, "trailing comma");
	CHECK(xt_parse_u64_list("", v, 8, 1, 1000000) == -1, "empty list");
	CHECK(xt_parse_u64_list("0", v, 8, 1, 1000000) == -1, "below range");
	CHECK(xt_parse_u64_list("1,2,3,4,5,6,7,8,9", v, 8, 1, 9) == -1, "too many");
	CHECK(xt_parse_u64("12", 0, 100, &x) == 0 && x == 12, "u64");
	CHECK(xt_parse_u64("12x", 0, 100, &x) == -1, "u64 junk");
	CHECK(xt_parse_u64("-1", 0, 100, &x) == -1, "u64 negative");
	CHECK(xt_parse_u64("101", 0, 100, &x) == -1, "u64 range");
	CHECK(xt_parse_u64("99999999999999999999", 0, UINT64_MAX, &x) == -1, "u64 overflow");
	/* One overflow rule for every decimal input: U64_MAX fits, one more does not. */
	CHECK(xt_parse_u64("18446744073709551615", 0, UINT64_MAX, &x) == 0 &&
	      x == UINT64_MAX, "u64 max");
	CHECK(xt_parse_u64("18446744073709551616", 0, UINT64_MAX, &x) == -1, "u64 max + 1");
	CHECK(xt_parse_u64("", 0, 100, &x) == -1, "u64 empty");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DATADIR\n", argv[0]);
		return 2;
	}
	test_parse();
	test_cmdline();
	test_kernel_defaults();
	test_cpulist();
	test_timer_list(argv[1]);
	test_stats();
	test_options();
	printf("host_test: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Pure logic of the xen_timer selftests; see xen_timer_lib.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xen_timer_lib.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

static const char suffixes[] = "KMGTPE";

static int digit_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return 99;
}

/* simple_strtoull(s, end, 0) with the kernel's radix rules */
static uint64_t strtoull0(const char *s, const char **end, bool *overflow,
			  size_t *ndigits)
{
	unsigned int base = 10;
	uint64_t v = 0;
	size_t n = 0;
	int d;

	*overflow = false;
	if (s[0] == '0') {
		if (tolower((unsigned char)s[1]) == 'x' && isxdigit((unsigned char)s[2])) {
			base = 16;
			s += 2;
		} else {
			base = 8;
		}
	}
	while ((d = digit_val(*s)) < (int)base) {
		if (v > (UINT64_MAX - d) / base)
			*overflow = true;
		v = v * base + d;
		s++;
		n++;
	}
	*end = s;
	*ndigits = n;
	return v;
}

int xt_slop_parse_strict(const char *s, uint64_t max, uint64_t *val)
{
	const char *e, *suf;
	unsigned int shift = 0;
	bool ovf;
	size_t n;
	uint64_t v;

	if (!s)
		return -EINVAL;
	v = strtoull0(s, &e, &ovf, &n);
	if (!n)
		return -EINVAL;
	if (ovf)
		return -ERANGE;
	if (*e) {
		suf = strchr(suffixes, toupper((unsigned char)*e));
		if (!suf)
			return -EINVAL;
		shift = 10 * (suf - suffixes + 1);
		e++;
	}
	if (*e)
		return -EINVAL;
	if (v > (UINT64_MAX >> shift))
		return -ERANGE;
	v <<= shift;
	if (v > max)
		return -ERANGE;
	*val = v;
	return 0;
}

/*
 * Next parameter of a command line, as the kernel's next_arg() splits it:
 * blanks separate, double quotes group.  Copies the parameter, quotes
 * removed, into @buf and returns where the next one starts, or NULL at
 * the end.
 */
static const char *next_param(const char *p, char *buf, size_t len)
{
	bool quoted = false;
	size_t i = 0;

	while (*p && isspace((unsigned char)*p))
		p++;
	if (!*p)
		return NULL;
	for (; *p; p++) {
		if (*p == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && isspace((unsigned char)*p))
			break;
		if (i + 1 < len)
			buf[i++] = *p;
	}
	buf[i] = '\0';
	return p;
}

int xt_cmdline_slop(const char *cmdline, uint64_t dflt, uint64_t max,
		    uint64_t *slop)
{
	static const char key[] = "xen_timer_slop";
	const size_t klen = sizeof(key) - 1;
	char buf[4096];
	const char *p = cmdline;
	uint64_t v, cur = dflt;
	bool known = true;
	int seen = 0;

	while ((p = next_param(p, buf, sizeof(buf)))) {
		if (!strcmp(buf, "--"))
			break;
		if (strncmp(buf, key, klen) || (buf[klen] && buf[klen] != '='))
			continue;
		seen++;
		if (xt_slop_parse_strict(buf[klen] ? buf + klen + 1 : NULL, max, &v)) {
			known = false;
			continue;
		}
		cur = v;
		known = true;
	}
	if (!known)
		return XT_SLOP_UNKNOWN;
	*slop = cur;
	return seen;
}

/*
 * The one decimal parser of the selftests' own inputs (timer_list fields,
 * CPU lists, options): the digits at *@s into *@val, *@s moved past them.
 * -1 if there is no digit or the number does not fit in 64 bits, which is
 * always an error: nothing here wraps.
 */
static int dec_u64(const char **s, uint64_t *val)
{
	const char *p = *s;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (*p - '0')) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	*s = p;
	*val = v;
	return 0;
}

/* A decimal number that fills the rest of the field; -1 if not. */
static int field_u64(const char *s, uint64_t *val)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (dec_u64(&s, val))
		return -1;
	while (*s == ' ' || *s == '\t')
		s++;
	return *s && *s != '\n' ? -1 : 0;
}

int xt_parse_timer_list(const char *text, struct xt_tick_dev *devs, int max)
{
	struct xt_tick_dev *cur = NULL;
	const char *line = text;
	int n = 0;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[256];
		uint64_t v;

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = nl ? nl + 1 : NULL;

		if (!strncmp(buf, "Tick Device:", 12) ||
		    !strncmp(buf, "Broadcast device", 16)) {
			cur = NULL;
		} else if (!strncmp(buf, "Per CPU device:", 15)) {
			if (field_u64(buf + 15, &v) || v >= XT_MAX_CPUS || n >= max)
				return -1;
			cur = &devs[n++];
			memset(cur, 0, sizeof(*cur));
			cur->cpu = (int)v;
		} else if (cur && !strncmp(buf, "Clock Event Device:", 19)) {
			const char *name = buf + 19;

			while (*name == ' ')
				name++;
			snprintf(cur->name, sizeof(cur->name), "%.31s", name);
		} else if (cur && !strncmp(buf, " min_delta_ns:", 14)) {
			if (field_u64(buf + 14, &v))
				return -1;
			cur->min_delta_ns = v;
			cur->has_min = true;
		}
	}
	return n;
}

int xt_parse_cpulist(const char *s, bool *mask)
{
	int count = 0;

	memset(mask, 0, XT_MAX_CPUS * sizeof(*mask));
	while (*s && *s != '\n') {
		uint64_t a, b;

		if (dec_u64(&s, &a))
			return -1;
		b = a;
		if (*s == '-') {
			s++;
			if (dec_u64(&s, &b))
				return -1;
		}
		if (a > b || b >= XT_MAX_CPUS)
			return -1;
		for (; a <= b; a++) {
			if (!mask[a])
				count++;
			mask[a] = true;
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return count ? count : -1;
}

uint64_t xt_default_slop(const char *release)
{
	unsigned long maj = 0, min = 0;
	char *e;

	maj = strtoul(release, &e, 10);
	if (*e == '.')
		min = strtoul(e + 1, NULL, 10);
	if (maj > 6 || (maj == 6 && min >= 11))
		return XT_SLOP_DEFAULT_NEW;
	return XT_SLOP_DEFAULT_OLD;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of sorted v, q in per mille */
static uint64_t rank(const uint64_t *v, size_t n, unsigned int q)
{
	size_t k = (n * q + 999) / 1000;

	return v[k ? k - 1 : 0];
}

void xt_stats(uint64_t *v, size_t n, uint64_t spike, struct xt_stats *st)
{
	long double sum = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_u64);
	st->n = n;
	st->min = v[0];
	st->max = v[n - 1];
	for (i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] > spike)
			st->spikes++;
	}
	st->avg = (double)(sum / n);
	st->p10 = rank(v, n, 100);
	st->p50 = rank(v, n, 500);
	st->p99 = rank(v, n, 990);
	st->p999 = rank(v, n, 999);
}

uint64_t xt_median(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return rank(v, n, 500);
}

int xt_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *val)
{
	uint64_t v;

	if (dec_u64(&s, &v) || *s)
		return -1;
	if (v < lo || v > hi)
		return -1;
	*val = v;
	return 0;
}

int xt_parse_u64_list(const char *s, uint64_t *out, int max, uint64_t lo,
		      uint64_t hi)
{
	char buf[32];
	int n = 0;

	while (1) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);

		if (!len || len >= sizeof(buf) || n >= max)
			return -1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (xt_parse_u64(buf, lo, hi, &out[n++]))
			return -1;
		if (!c)
			return n;
		s = c + 1;
	}
}

int xt_parse_trace_line(const char *line, struct xt_event *ev)
{
	static const struct {
		const char *name;
		enum xt_ev_type type;
	} names[] = {
		{ ": xt_prog: ", XT_EV_PROG }, { ": xt_next: ", XT_EV_NEXT },
		{ ": xt_fire: ", XT_EV_FIRE }, { ": xt_state", XT_EV_STATE },
		{ ": xt_ret: ", XT_EV_RET },
	};
	unsigned long long sec, usec, v;
	const char *at = NULL, *p;
	long long s;
	size_t i;

	if (line[0] == '#')
		return 0;
	for (i = 0; i < ARRAY_SIZE(names) && !at; i++)
		at = strstr(line, names[i].name);
	if (!at)
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->type = names[i - 1].type;
	/* the time stamp, "SECONDS.MICROSECONDS", ends where the name starts */
	for (p = at; p > line && p[-1] != ' '; p--)
		;
	if (sscanf(p, "%llu.%6llu", &sec, &usec) != 2)
		return -1;
	ev->ts = sec * 1000000000ULL + usec * 1000;
	switch (ev->type) {
	case XT_EV_PROG:
		p = strstr(at, " expires=");
		if (!p || sscanf(p, " expires=%lld", &s) != 1)
			return -1;
		ev->expires = s;
		p = strstr(at, " force=");
		if (!p || sscanf(p, " force=%llu", &v) != 1)
			return -1;
		ev->force = v != 0;
		break;
	case XT_EV_NEXT:
		p = strstr(at, " delta=");
		if (!p || sscanf(p, " delta=%llu", &v) != 1)
			return -1;
		ev->delta = v;
		break;
	default:
		break;
	}
	return 1;
}

enum xt_core xt_core_of(const char *release)
{
	return strtoul(release, NULL, 10) >= 7 ? XT_CORE_FORCED : XT_CORE_CLAMPED;
}

const char *xt_core_name(enum xt_core core)
{
	return core == XT_CORE_FORCED ?
		"forced: min_delta_ticks once, nothing while pending (d6e152d905bd, v7.0)" :
		"clamped: every short delta up to min_delta_ns (before v7.0)";
}

/* A timer interrupt may come this much before the deadline: trace rounding */
#define XT_FIRE_TOL_NS		2000ULL
/*
 * The trace's clock and the core's ktime_get() may disagree by this much
 * (a PVH dom0 on an unstable TSC: 151 ns)
 */
#define XT_CLOCK_TOL_NS		500ULL
/* A request this far above S may still be below it when the core reads the time */
#define XT_AMBIGUOUS_NS		50000ULL

struct xt_prog_state {
	bool known;		/* the deadline below is the device's */
	bool armed;		/* a deadline is outstanding */
	bool forced;		/* it is a forced event (a short request's) */
	bool met;		/* a short request met it pending */
	bool pending;		/* the core's next_event_forced, as far as known */
	uint64_t deadline;	/* no fire before this */
	uint64_t start;		/* when the forced event began */
	uint64_t last_met;	/* the last short request that met it pending */
	/* the last request, until its device call or the next event */
	bool open, open_short, open_pending;
	bool open_far;		/* it was above S + XT_AMBIGUOUS_NS when made */
	int64_t open_expires;
	bool stale;		/* a deadline replaced when due may still fire */
	bool replaced;		/* it armed the device again, over ... */
	uint64_t prev_deadline;	/* ... this deadline */
};

/* A fire or a state change: nothing outstanding, and that is known */
static void disarm(struct xt_prog_state *st)
{
	st->known = true;
	st->armed = false;
	st->forced = false;
	st->met = false;
	st->pending = false;
}

static void violation(struct xt_prog_verdict *v, size_t i)
{
	if (i < v->first_bad)
		v->first_bad = i;
}

/* The open request got no device call (only judged where calls are traced) */
static void close_request(struct xt_prog_state *st, struct xt_prog_verdict *v,
			  enum xt_core core, bool calls, size_t i)
{
	if (calls && st->open && st->open_short && st->known &&
	    (core == XT_CORE_CLAMPED || !st->open_pending)) {
		v->lost++;
		violation(v, i);
	}
	st->open = false;
}

static void on_request(struct xt_prog_state *st, struct xt_prog_verdict *v,
		       const struct xt_event *e, uint64_t slop, enum xt_core core)
{
	int64_t est = e->expires - (int64_t)e->ts;

	v->requests++;
	st->open = true;
	st->open_short = false;
	st->open_far = false;
	st->open_expires = e->expires;
	st->replaced = st->armed;
	st->prev_deadline = st->deadline;
	if (!e->force && est < (int64_t)XT_CLOCK_TOL_NS) {
		/* -ETIME, the device not touched, or just not: not known */
		st->known = false;
		st->pending = false;
		st->replaced = false;
		return;
	}
	/*
	 * Below S less the clocks' disagreement for sure, above S plus
	 * XT_AMBIGUOUS_NS for sure, in between unknown.
	 */
	if (est + (int64_t)XT_CLOCK_TOL_NS < (int64_t)slop) {
		/* the trace's time is at most the core's: below S for sure */
		v->short_reqs++;
		st->open_short = true;
		st->open_pending = st->pending;
		if (st->open_pending) {
			v->pending_reqs++;
			st->met = true;
			st->last_met = e->ts;
			if (core == XT_CORE_FORCED) {
				st->replaced = false;
				return;		/* nothing while pending */
			}
		}
		st->armed = true;
		st->forced = true;
		st->pending = true;
		st->deadline = e->ts + slop;
		st->start = st->open_pending ? st->start : e->ts;
		if (!st->open_pending)
			st->met = false;
		return;
	}
	if (est < (int64_t)(slop + XT_AMBIGUOUS_NS)) {
		/* below S or not, the core alone knows */
		st->known = false;
		st->pending = false;
		return;
	}
	st->open_far = true;
	st->armed = true;
	st->forced = false;
	st->met = false;
	st->pending = false;
	st->deadline = e->expires;
}

/*
 * A request above S when it was made is below S when the core reads the
 * time after a stall of the vCPU (the platform's) of more than what it
 * had to spare: the core returned after its expiry less S.  A call of
 * the device says what the core did; without one, whether a forced event
 * began is not known.
 */
static void check_stall(struct xt_prog_state *st, const struct xt_event *e, uint64_t slop)
{
	if (!st->open || !st->open_far || e->type != XT_EV_RET)
		return;
	if ((int64_t)(e->ts + XT_FIRE_TOL_NS) >= st->open_expires - (int64_t)slop) {
		st->known = false;
		st->pending = false;
	}
	st->open_far = false;
}

static void on_call(struct xt_prog_state *st, struct xt_prog_verdict *v,
		    const struct xt_event *e, uint64_t slop, enum xt_core core, size_t i)
{
	v->nexts++;
	if (e->delta < v->min_delta)
		v->min_delta = e->delta;
	if (e->delta < slop) {
		v->below_slop++;
		v->bad_delta = e->delta;
		violation(v, i);
	}
	if (st->open && st->open_short) {
		if (e->delta != slop) {
			v->short_not_slop++;
			v->bad_delta = e->delta;
			violation(v, i);
		}
		if (st->open_pending) {
			v->pending_called++;
			if (core == XT_CORE_FORCED)
				violation(v, i);
		}
	}
	/*
	 * The device is armed for at least this call's time plus its delta,
	 * whatever the request looked like: one above S that a stall made
	 * below it is handed S and begins a forced event.
	 */
	if (e->delta > slop) {
		st->forced = false;
		st->pending = false;
		st->met = false;
	} else if (!st->forced || !st->pending) {
		st->forced = true;
		st->pending = true;
		st->met = false;
		st->start = e->ts;
	}
	st->armed = true;
	st->deadline = e->ts + e->delta;
	st->open = false;
}

static void on_fire(struct xt_prog_state *st, struct xt_prog_verdict *v,
		    const struct xt_event *e, uint64_t slop, uint64_t *lat, size_t i)
{
	uint64_t d;

	v->fires++;
	if (st->stale) {
		/*
		 * The replaced deadline's, or the current one's: not judged.
		 * A current deadline still ahead is outstanding; one past
		 * has fired with it (the event channel holds one interrupt).
		 */
		st->stale = false;
		st->pending = false;
		if (st->armed && st->deadline <= e->ts + XT_FIRE_TOL_NS)
			disarm(st);
		return;
	}
	if (st->known && st->armed) {
		v->judged_fires++;
		if (e->ts + XT_FIRE_TOL_NS < st->deadline) {
			/*
			 * The early rule judges it; its time, the kernel's
			 * fault or a clock the platform made up, says nothing
			 * of how late a forced event fires.
			 */
			v->early_fires++;
			if (st->deadline - e->ts > v->early_by)
				v->early_by = st->deadline - e->ts;
			violation(v, i);
		} else if (st->forced) {
			d = e->ts - st->start;
			v->forced_fires++;
			if (d < v->forced_min)
				v->forced_min = d;
			/*
			 * A request that met it pending S / 4 or more after it
			 * began (the workload's pairs): a core that armed the
			 * device again fires that much later.
			 */
			if (st->met && st->last_met - st->start + XT_FIRE_TOL_NS >= slop / 4) {
				v->pair_fires++;
				if (d < v->pair_min)
					v->pair_min = d;
				/* before S after the second request: not armed again */
				if (e->ts + XT_FIRE_TOL_NS < st->last_met + slop)
					v->pair_early++;
			}
		} else {
			lat[v->normal_fires++] = e->ts > st->deadline ? e->ts - st->deadline : 0;
		}
	}
	disarm(st);
}

/* Event @i is in a run of three or more that share one microsecond */
static bool stuck_at(const struct xt_event *ev, size_t n, size_t i)
{
	size_t lo = i, hi = i;

	while (lo > 0 && ev[lo - 1].ts == ev[i].ts)
		lo--;
	while (hi + 1 < n && ev[hi + 1].ts == ev[i].ts)
		hi++;
	return hi - lo >= 2;
}

void xt_prog_check(const struct xt_event *ev, size_t n, uint64_t slop,
		   enum xt_core core, uint64_t host_slop,
		   struct xt_prog_verdict *v)
{
	uint64_t *lat = calloc(n + 1, sizeof(*lat));
	struct xt_prog_state st = { 0 };
	struct xt_stats ls;
	bool calls = false, stuck;
	size_t i;

	memset(v, 0, sizeof(*v));
	v->first_bad = n;
	v->min_delta = UINT64_MAX;
	v->forced_min = UINT64_MAX;
	v->pair_min = UINT64_MAX;
	if (!lat)
		return;
	for (i = 0; i < n; i++)
		calls |= ev[i].type == XT_EV_NEXT;
	for (i = 0; i < n; i++) {
		const struct xt_event *e = &ev[i];

		/*
		 * Three events in one microsecond, an interrupt and a
		 * programming among them, are a guest clock that stood still
		 * (pvclock's clamp after the emulated TSC fell behind): their
		 * times say nothing of Xen's, the fire among them is not
		 * judged, and what the model knows is lost.
		 */
		stuck = stuck_at(ev, n, i);
		v->stuck += stuck;
		if (stuck && (e->type == XT_EV_RET || e->type == XT_EV_STATE)) {
			st.known = false;
			st.stale = false;
			continue;
		}
		switch (e->type) {
		case XT_EV_RET:
			check_stall(&st, e, slop);
			/*
			 * A deadline that was due before the device was armed
			 * again (at the latest, when the core returned) may
			 * have raised its interrupt: the next fire may be its
			 * (the event channel holds one), not the new one's.
			 */
			if (st.replaced && st.prev_deadline <= e->ts + XT_FIRE_TOL_NS)
				st.stale = true;
			st.replaced = false;
			break;
		case XT_EV_PROG:
			close_request(&st, v, core, calls, i);
			on_request(&st, v, e, slop, core);
			break;
		case XT_EV_NEXT:
			on_call(&st, v, e, slop, core, i);
			break;
		case XT_EV_FIRE:
			close_request(&st, v, core, calls, i);
			if (stuck) {
				v->fires++;
				disarm(&st);
			} else {
				on_fire(&st, v, e, slop, lat, i);
			}
			break;
		case XT_EV_STATE:
			close_request(&st, v, core, calls, i);
			disarm(&st);
			break;
		}
		if (stuck) {
			st.known = false;
			st.stale = false;
		}
	}
	close_request(&st, v, core, calls, n);
	if (v->min_delta == UINT64_MAX)
		v->min_delta = 0;
	if (v->normal_fires) {
		xt_stats(lat, v->normal_fires, UINT64_MAX, &ls);
		v->normal_lat_p10 = ls.p10;
	}
	free(lat);

	v->calls_ok = !v->below_slop && !v->short_not_slop && !v->lost &&
		      (core == XT_CORE_CLAMPED || !v->pending_called);
	/*
	 * How late: where S is above twice the host's timer_slop and the
	 * platform's own latency is known, the quickest forced event fires
	 * within S / 2 past S and that latency (twice the slop fails).  In
	 * the forced core, where the quickest forced event came within S / 8
	 * past S, some pair fires sooner than S after its second request,
	 * which comes S / 4 after the first: a core that armed the device
	 * again never does.
	 */
	v->upper_judged = slop >= 2 * host_slop && slop >= XT_MIN_JUDGED_SLOP_NS &&
			  v->forced_fires >= 5 && v->normal_fires >= 5;
	v->upper_limit = slop + slop / 2 + v->normal_lat_p10;
	v->pair_judged = core == XT_CORE_FORCED && v->pair_fires >= 3 &&
			 v->forced_min < slop + slop / 8;
	/*
	 * Early fires are the kernel's where the guest's clock never stood
	 * still, or where they are many (a slop not in effect makes nearly
	 * every short request fire early: a broken kernel, hundreds to tens of
	 * thousands, most of the fires judged).  Beside a clock that stood
	 * still (its emulated TSC fell behind Xen's time) at most one in
	 * XT_EARLY_EXCUSED of the fires judged are the platform's, and the
	 * rest decide; more, up to one in ten, leave the result to the
	 * platform.  Where no run of three events in one microsecond shows
	 * the clock standing still, up to one in XT_EARLY_EXCUSED leave the
	 * result to the platform too: a busy emulator makes a few without
	 * that sign (an HVM domU beside make check's builds: 3 of its 597
	 * fires), no slop that is not in effect makes so few.
	 */
	v->early_excused = v->early_fires && v->stuck &&
			   v->early_fires * XT_EARLY_EXCUSED <= v->judged_fires;
	v->early_platform = v->early_fires && !v->early_excused &&
			    (v->stuck ? v->early_fires * 10 < v->judged_fires :
			     v->early_fires * XT_EARLY_EXCUSED <= v->judged_fires);
	v->fires_ok = !v->early_fires || v->early_excused || v->early_platform;
	if (v->upper_judged) {
		v->fires_ok &= v->forced_min <= v->upper_limit;
		if (v->pair_judged)
			v->fires_ok &= v->pair_early > 0;
	}
	if (v->forced_min == UINT64_MAX)
		v->forced_min = 0;
	if (v->pair_min == UINT64_MAX)
		v->pair_min = 0;
}

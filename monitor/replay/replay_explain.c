// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * replay_explain.c - rtmon-replay --explain: every record the replay
 * emits, explained (monitor/explain/, the code rtmonctl and rtmond use)
 * from the trace being replayed itself. The input's lines are kept as
 * they are read, the records as they are emitted; at the end the trace
 * is read as kernel events (ftrace_snap.c: ftrace text, trace-cmd report
 * with or without its sched plugin) and each record is explained with
 * the events from 200 ms before its start to 1 ms after its end (the
 * window an rtmond snapshot would hold, so the cost per record does not
 * grow with the trace).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtm_core.h"
#include "explain.h"
#include "replay.h"

#define RX_BEFORE_NS	200000000ull
#define RX_AFTER_NS	1000000ull

static char *text;
static size_t text_len, text_cap;
static struct rtm_record *recs;
static size_t nrecs, recs_cap;

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 4096 / elem + 1;

	while (c < need)
		c *= 2;
	if (c == *cap)
		return p;
	p = realloc(p, c * elem);
	if (!p) {
		fprintf(stderr, "rtmon-replay: --explain: out of memory\n");
		exit(1);
	}
	*cap = c;
	return p;
}

void rx_keep_line(const char *line)
{
	size_t l = strlen(line);

	text = grow(text, &text_cap, text_len + l + 2, 1);
	memcpy(text + text_len, line, l);
	text_len += l;
	if (!l || line[l - 1] != '\n')
		text[text_len++] = '\n';
}

void rx_keep_record(const struct rtm_record *r)
{
	recs = grow(recs, &recs_cap, nrecs + 1, sizeof(*recs));
	recs[nrecs++] = *r;
}

/* First event at or after ts (events are sorted by time). */
static size_t first_at(const struct fts_trace *t, uint64_t ts)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (t->ev[m].ts < ts)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

int rx_explain_all(bool json)
{
	struct fts_trace t, w;
	struct rtx_result *r;
	struct rtx_chain c;
	uint64_t from, to;
	size_t i, lo, hi;

	if (fts_parse(&t, text ? text : "", text_len)) {
		fprintf(stderr, "rtmon-replay: --explain: out of memory\n");
		return 1;
	}
	r = malloc(sizeof(*r));
	if (!r) {
		fprintf(stderr, "rtmon-replay: --explain: out of memory\n");
		fts_free(&t);
		return 1;
	}
	if (!json)
		printf("explanations: %zu records, %zu kernel events read, %lu lines not understood%s\n",
		       nrecs, t.n, t.bad_lines, t.bad_lines ? " (their events are missing)" : "");
	for (i = 0; i < nrecs; i++) {
		const struct rtm_record *rec = &recs[i];

		rtx_chain_from_record(&c, rec);
		/*
		 * The events around the chain, as a snapshot would hold them:
		 * the window stops at the ends of the 64-bit ns clock (a chain
		 * within 1 ms of its end takes every event after it), never
		 * wraps, and is empty rather than reversed.
		 */
		w = t;
		from = rec->start_ns > RX_BEFORE_NS ? rec->start_ns - RX_BEFORE_NS : 0;
		to = rec->end_ns < UINT64_MAX - RX_AFTER_NS ? rec->end_ns + RX_AFTER_NS : UINT64_MAX;
		lo = first_at(&t, from);
		hi = to == UINT64_MAX ? t.n : first_at(&t, to);
		if (hi < lo)
			hi = lo;
		w.ev = t.ev + lo;
		w.n = hi - lo;
		/* the trace goes on beyond the window: it covers the window */
		if (lo)
			w.first_ts = from;
		if (hi < t.n)
			w.last_ts = to;
		rtx_explain(&c, &w, r);
		if (json) {
			json_t *o = rtx_json(r);
			char *s;

			if (!o)
				continue;
			json_object_set_new(o, "type", json_string("explain"));
			json_object_set_new(o, "seq", json_integer((json_int_t)c.seq));
			s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
			json_decref(o);
			if (s)
				printf("%s\n", s);
			free(s);
		} else {
			rtx_print(stdout, c.seq, r, &w, "trace");
		}
	}
	free(r);
	fts_free(&t);
	return 0;
}

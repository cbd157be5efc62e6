// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * explain_text.c - an explanation as text (explain.h): the culprit line
 * and a table of the parts, as 'rtmonctl explain' and 'rtmon-replay
 * --explain' print it. Task names come from the trace (anyone can set
 * one): every string from it goes through rtmon_term().
 */
#include <stdio.h>

#include "explain.h"
#include "rtmon_format.h"

void rtx_print(FILE *f, uint64_t seq, const struct rtx_result *r,
	       const struct fts_trace *t, const char *events_of)
{
	char a[32], line[256], safe[1024];
	int i;

	rtx_culprit_line(r, line, sizeof(line));
	fprintf(f, "#%llu latency %s: %s\n", (unsigned long long)seq,
		rtmon_fmt_ns(a, sizeof(a), r->latency), rtmon_term(safe, sizeof(safe), line));
	fprintf(f, "  %-21s %-44s %-4s %13s %6s\n", "category", "who", "cpu", "time", "share");
	for (i = 0; i < r->nparts; i++) {
		const struct rtx_part *p = &r->parts[i];
		char cpu[16] = "-";

		if (p->cpu >= 0)
			snprintf(cpu, sizeof(cpu), "%d", p->cpu);
		fprintf(f, "  %-21s %-44s %-4s %13s %5.1f%%\n", rtx_cat_name(p->cat),
			rtmon_term(safe, sizeof(safe), p->who),
			cpu, rtmon_fmt_ns(a, sizeof(a), p->ns),
			r->latency ? 100.0 * (double)p->ns / (double)r->latency : 0.0);
	}
	fprintf(f, "  sum %s of %s", rtmon_fmt_ns(a, sizeof(a), r->sum),
		rtmon_fmt_ns(line, sizeof(line), r->latency));
	fprintf(f, "; %s: %zu events", events_of, t->n);
	if (t->bad_lines)
		fprintf(f, ", %lu lines not understood (first: line %lu)", t->bad_lines,
			t->first_bad);
	fputc('\n', f);
	if (r->partial)
		fprintf(f, "  partial: %s\n", rtmon_term(safe, sizeof(safe), r->missing));
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtmon_summary.c - a run's records per target (rtmon_summary.h).
 */
#include <stdlib.h>

#include "rtmon_summary.h"

int rtmon_summary_add(struct rtmon_summary *s, const struct rtm_record *r)
{
	unsigned int id = r->target_id < RTMON_SUMMARY_IDS ? r->target_id : RTMON_SUMMARY_IDS;

	if (!s->hist[id]) {
		s->hist[id] = malloc(sizeof(*s->hist[id]));
		if (!s->hist[id])
			return -1;
		rtmon_hist_init(s->hist[id]);
	}
	rtmon_hist_add(s->hist[id], r->latency_ns);
	s->misses[id] += !!(r->flags & RTM_REC_F_DEADLINE_MISS);
	s->timeouts[id] += !!(r->flags & RTM_REC_F_TIMEOUT);
	s->records++;
	return 0;
}

static const char *summary_name(unsigned int id, rtmon_summary_name_fn name, char *buf,
				size_t len)
{
	const char *n = id < RTMON_SUMMARY_IDS && name ? name(id) : NULL;

	if (n)
		return n;
	if (id < RTMON_SUMMARY_IDS)
		snprintf(buf, len, "target %u", id);
	else
		snprintf(buf, len, "-");
	return buf;
}

json_t *rtmon_summary_json(const struct rtmon_summary *s, double seconds,
			   rtmon_summary_name_fn name)
{
	json_t *arr = json_array();
	uint64_t misses = 0, timeouts = 0;
	unsigned int id;
	char nb[32];

	for (id = 0; id <= RTMON_SUMMARY_IDS; id++) {
		const struct rtmon_hist *h = s->hist[id];

		if (!h)
			continue;
		misses += s->misses[id];
		timeouts += s->timeouts[id];
		json_array_append_new(arr, json_pack("{s:o, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			"id", id < RTMON_SUMMARY_IDS ? json_integer(id) : json_null(),
			"name", summary_name(id, name, nb, sizeof(nb)),
			"count", (json_int_t)h->count,
			"misses", (json_int_t)s->misses[id],
			"timeouts", (json_int_t)s->timeouts[id],
			"min_ns", (json_int_t)h->min_ns,
			"avg_ns", (json_int_t)rtmon_hist_mean(h),
			"max_ns", (json_int_t)h->max_ns,
			"p99_ns", (json_int_t)rtmon_hist_percentile(h, 99),
			"p99_9_ns", (json_int_t)rtmon_hist_percentile(h, 99.9)));
	}
	return json_pack("{s:{s:f, s:I, s:I, s:I, s:o}}", "summary",
		"seconds", seconds, "records", (json_int_t)s->records,
		"misses", (json_int_t)misses, "timeouts", (json_int_t)timeouts,
		"targets", arr);
}

/* In microseconds throughout: columns that compare at a glance. */
void rtmon_summary_text(FILE *f, const struct rtmon_summary *s, double seconds,
			rtmon_summary_name_fn name)
{
	unsigned int id;
	char nb[32];

	fprintf(f, "# %llu records in %.1f s\n", (unsigned long long)s->records, seconds);
	if (!s->records)
		return;
	fprintf(f, "# %-16s %9s %7s %8s %10s %10s %10s %10s %10s\n", "target", "count",
		"misses", "timeouts", "min(us)", "avg(us)", "max(us)", "p99(us)", "p99.9(us)");
	for (id = 0; id <= RTMON_SUMMARY_IDS; id++) {
		const struct rtmon_hist *h = s->hist[id];

		if (h)
			fprintf(f, "# %-16s %9llu %7llu %8llu %10.3f %10.3f %10.3f %10.3f %10.3f\n",
				summary_name(id, name, nb, sizeof(nb)), (unsigned long long)h->count,
				(unsigned long long)s->misses[id],
				(unsigned long long)s->timeouts[id], h->min_ns / 1e3,
				rtmon_hist_mean(h) / 1e3, h->max_ns / 1e3,
				rtmon_hist_percentile(h, 99) / 1e3,
				rtmon_hist_percentile(h, 99.9) / 1e3);
	}
}

void rtmon_summary_free(struct rtmon_summary *s)
{
	unsigned int id;

	for (id = 0; id <= RTMON_SUMMARY_IDS; id++) {
		free(s->hist[id]);
		s->hist[id] = NULL;
	}
}

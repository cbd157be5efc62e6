/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rtmon_summary.h - what a run of records comes to, per target: count,
 * misses, timeouts and latency min/avg/max/p99/p99.9 (rtmon_hist.h, so
 * exact to 1 us below 4 ms). Printed by rtmonctl records at exit and by
 * rtmon-replay --summary, the same text and JSON.
 */
#ifndef RTMON_SUMMARY_H
#define RTMON_SUMMARY_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "rtmon/rtmon.h"
#include "rtmon_hist.h"

#define RTMON_SUMMARY_IDS	64	/* target ids kept apart; more: as "-" */

struct rtmon_summary {
	/* by target id; [RTMON_SUMMARY_IDS]: records of no (known) target */
	struct rtmon_hist *hist[RTMON_SUMMARY_IDS + 1];
	uint64_t misses[RTMON_SUMMARY_IDS + 1];
	uint64_t timeouts[RTMON_SUMMARY_IDS + 1];
	uint64_t records;
};

/* A target's name for the summary: NULL for "target ID". */
typedef const char *(*rtmon_summary_name_fn)(uint32_t id);

/* Record r counted (zero-initialised s first); -1 when out of memory. */
int rtmon_summary_add(struct rtmon_summary *s, const struct rtm_record *r);
/* "# N records in S s", then a line per target, in us. */
void rtmon_summary_text(FILE *f, const struct rtmon_summary *s, double seconds,
			rtmon_summary_name_fn name);
/* {"summary": {seconds, records, misses, timeouts, targets: [...]}}, new. */
json_t *rtmon_summary_json(const struct rtmon_summary *s, double seconds,
			   rtmon_summary_name_fn name);
void rtmon_summary_free(struct rtmon_summary *s);

#endif /* RTMON_SUMMARY_H */

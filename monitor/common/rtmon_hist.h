/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rtmon_hist.h - latency histogram with percentiles, shared by rtmond and
 * rtmonctl.
 *
 * Resolution where real-time users look: 1 us buckets from 0 to
 * RTMON_HIST_LINEAR_US (4.096 ms), then RTMON_HIST_SUB buckets per power
 * of two (1.6% wide) up to 2^RTMON_HIST_MAX_SHIFT us (~67 s), then one
 * overflow bucket. Fixed size (no allocation), plain counters: one writer,
 * readers copy under the owner's lock.
 *
 * Percentiles are the upper edge of the bucket holding the rank, clamped
 * to the exact min and max seen: exact to 1 us below 4 ms, to 1.6% above,
 * and p100 is the maximum.
 */
#ifndef RTMON_HIST_H
#define RTMON_HIST_H

#include <stdint.h>
#include <stdio.h>

#define RTMON_HIST_LINEAR_US	4096u			/* 2^12 */
#define RTMON_HIST_LINEAR_SHIFT	12
#define RTMON_HIST_SUB_SHIFT	6
#define RTMON_HIST_SUB		(1u << RTMON_HIST_SUB_SHIFT)	/* per octave */
#define RTMON_HIST_MAX_SHIFT	26			/* 2^26 us = 67 s */
#define RTMON_HIST_NBUCKETS	(RTMON_HIST_LINEAR_US + \
	RTMON_HIST_SUB * (RTMON_HIST_MAX_SHIFT - RTMON_HIST_LINEAR_SHIFT) + 1)

struct rtmon_hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t min_ns;	/* UINT64_MAX while empty */
	uint64_t max_ns;
	uint64_t b[RTMON_HIST_NBUCKETS];
};

void rtmon_hist_init(struct rtmon_hist *h);
void rtmon_hist_add(struct rtmon_hist *h, uint64_t ns);
void rtmon_hist_merge(struct rtmon_hist *dst, const struct rtmon_hist *src);
/* The bucket index of a latency. */
unsigned int rtmon_hist_bucket(uint64_t ns);
/* Bucket i covers [lo, hi) ns; the overflow bucket's hi is UINT64_MAX. */
uint64_t rtmon_hist_bucket_lo(unsigned int i);
uint64_t rtmon_hist_bucket_hi(unsigned int i);
/* Percentile p in [0, 100] in ns (0 when empty). */
uint64_t rtmon_hist_percentile(const struct rtmon_hist *h, double p);
/* Mean in ns (0 when empty). */
uint64_t rtmon_hist_mean(const struct rtmon_hist *h);
/*
 * Values below le_ns, counted from whole buckets (exact when le_ns is a
 * bucket edge: any whole microsecond up to 4.096 ms), for Prometheus
 * cumulative buckets.
 */
uint64_t rtmon_hist_count_below(const struct rtmon_hist *h, uint64_t le_ns);

/*
 * A terminal histogram: at most 'rows' rows of equal width (1, 2, 5 x 10^n
 * us) from the minimum to the maximum, each with its count and a bar
 * scaled to 'width' characters; a row holding the deadline (deadline_ns,
 * 0 = none) is marked.
 */
void rtmon_hist_print(FILE *f, const struct rtmon_hist *h, unsigned int rows,
		      unsigned int width, uint64_t deadline_ns);

#endif /* RTMON_HIST_H */

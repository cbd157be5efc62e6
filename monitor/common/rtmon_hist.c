// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtmon_hist.c - latency histogram (rtmon_hist.h).
 */
#include <math.h>
#include <string.h>

#include "rtmon_hist.h"

void rtmon_hist_init(struct rtmon_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

static unsigned int ilog2_u64(uint64_t v)
{
	return 63 - (unsigned int)__builtin_clzll(v);
}

unsigned int rtmon_hist_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned int oct;

	if (us < RTMON_HIST_LINEAR_US)
		return (unsigned int)us;
	oct = ilog2_u64(us);
	if (oct >= RTMON_HIST_MAX_SHIFT)
		return RTMON_HIST_NBUCKETS - 1;
	return RTMON_HIST_LINEAR_US +
		(oct - RTMON_HIST_LINEAR_SHIFT) * RTMON_HIST_SUB +
		(unsigned int)((us >> (oct - RTMON_HIST_SUB_SHIFT)) & (RTMON_HIST_SUB - 1));
}

uint64_t rtmon_hist_bucket_lo(unsigned int i)
{
	unsigned int oct, sub;

	if (i < RTMON_HIST_LINEAR_US)
		return (uint64_t)i * 1000;
	if (i >= RTMON_HIST_NBUCKETS - 1)
		return (1ull << RTMON_HIST_MAX_SHIFT) * 1000;
	i -= RTMON_HIST_LINEAR_US;
	oct = RTMON_HIST_LINEAR_SHIFT + i / RTMON_HIST_SUB;
	sub = i % RTMON_HIST_SUB;
	return ((1ull << oct) + ((uint64_t)sub << (oct - RTMON_HIST_SUB_SHIFT))) * 1000;
}

uint64_t rtmon_hist_bucket_hi(unsigned int i)
{
	if (i >= RTMON_HIST_NBUCKETS - 1)
		return UINT64_MAX;
	return rtmon_hist_bucket_lo(i + 1);
}

void rtmon_hist_add(struct rtmon_hist *h, uint64_t ns)
{
	h->b[rtmon_hist_bucket(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

void rtmon_hist_merge(struct rtmon_hist *dst, const struct rtmon_hist *src)
{
	unsigned int i;

	for (i = 0; i < RTMON_HIST_NBUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

uint64_t rtmon_hist_mean(const struct rtmon_hist *h)
{
	return h->count ? h->sum_ns / h->count : 0;
}

uint64_t rtmon_hist_percentile(const struct rtmon_hist *h, double p)
{
	uint64_t rank, cum = 0, v;
	unsigned int i;

	if (!h->count)
		return 0;
	if (!(p > 0))
		return h->min_ns;
	if (p >= 100)
		return h->max_ns;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < RTMON_HIST_NBUCKETS; i++) {
		cum += h->b[i];
		if (cum >= rank)
			break;
	}
	if (i >= RTMON_HIST_NBUCKETS)
		return h->max_ns;
	v = rtmon_hist_bucket_hi(i);
	if (v > h->max_ns)
		v = h->max_ns;
	if (v < h->min_ns)
		v = h->min_ns;
	return v;
}

uint64_t rtmon_hist_count_below(const struct rtmon_hist *h, uint64_t le_ns)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < RTMON_HIST_NBUCKETS && rtmon_hist_bucket_hi(i) <= le_ns; i++)
		n += h->b[i];
	return n;
}

void rtmon_hist_print(FILE *f, const struct rtmon_hist *h, unsigned int rows,
		      unsigned int width, uint64_t deadline_ns)
{
	static const unsigned int steps[] = { 1, 2, 5 };
	uint64_t lo, hi, step = 0, a, peak = 0, n;
	unsigned int i, k;

	if (!h->count) {
		fprintf(f, "  (no chains)\n");
		return;
	}
	if (!rows)
		rows = 1;
	lo = h->min_ns / 1000;
	hi = h->max_ns / 1000 + 1;
	for (a = 1; !step; a *= 10)
		for (k = 0; k < 3 && !step; k++)
			if ((hi - lo + steps[k] * a - 1) / (steps[k] * a) <= rows)
				step = steps[k] * a;
	lo -= lo % step;
	for (a = lo; a < hi; a += step) {
		n = rtmon_hist_count_below(h, (a + step) * 1000) -
		    rtmon_hist_count_below(h, a * 1000);
		if (n > peak)
			peak = n;
	}
	for (a = lo, i = 0; a < hi; a += step, i++) {
		unsigned int bar;

		n = rtmon_hist_count_below(h, (a + step) * 1000) -
		    rtmon_hist_count_below(h, a * 1000);
		bar = peak ? (unsigned int)((n * width + peak - 1) / peak) : 0;
		fprintf(f, "  %9llu - %-9llu us %10llu %c", (unsigned long long)a,
			(unsigned long long)(a + step), (unsigned long long)n,
			deadline_ns && deadline_ns >= a * 1000 && deadline_ns < (a + step) * 1000 ?
			'|' : ' ');
		for (k = 0; k < bar; k++)
			fputc('#', f);
		fputc('\n', f);
	}
}

// SPDX-License-Identifier: GPL-2.0
/* test_hist.c - unit tests of monitor/common/rtmon_hist.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtmon_hist.h"

static int failed;

#define CHECK(name, cond, ...) do {						\
	if (cond) {								\
		printf("PASS: hist/%s\n", name);				\
	} else {								\
		printf("FAIL: hist/%s: ", name);				\
		printf(__VA_ARGS__);						\
		printf("\n");							\
		failed = 1;							\
	}									\
} while (0)

int main(void)
{
	static struct rtmon_hist h, h2;
	uint64_t i, prev_hi = 0;
	unsigned int b, ok = 1, bad = 0;

	/* bucket edges: contiguous, increasing, 1 us wide below 4.096 ms */
	for (b = 0; b < RTMON_HIST_NBUCKETS - 1; b++) {
		uint64_t lo = rtmon_hist_bucket_lo(b), hi = rtmon_hist_bucket_hi(b);

		if (lo != prev_hi || hi <= lo || (b < 4096 && hi - lo != 1000) ||
		    rtmon_hist_bucket(lo) != b || rtmon_hist_bucket(hi - 1) != b) {
			ok = 0;
			bad = b;
			break;
		}
		/* above the linear part, at most 1/64 of the value wide */
		if (b >= 4096 && (hi - lo) * 64 > lo) {
			ok = 0;
			bad = b;
			break;
		}
		prev_hi = hi;
	}
	CHECK("bucket_edges", ok, "bucket %u: [%" PRIu64 ", %" PRIu64 ")", bad,
	      rtmon_hist_bucket_lo(bad), rtmon_hist_bucket_hi(bad));
	CHECK("overflow", rtmon_hist_bucket(UINT64_MAX) == RTMON_HIST_NBUCKETS - 1 &&
	      rtmon_hist_bucket(100ull * 1000000000) == RTMON_HIST_NBUCKETS - 1 &&
	      rtmon_hist_bucket(60ull * 1000000000) < RTMON_HIST_NBUCKETS - 1,
	      "overflow bucket");

	rtmon_hist_init(&h);
	CHECK("empty", rtmon_hist_percentile(&h, 50) == 0 && rtmon_hist_mean(&h) == 0 &&
	      h.count == 0, "empty histogram");
	/* 1..1000 us, one each */
	for (i = 1; i <= 1000; i++)
		rtmon_hist_add(&h, i * 1000 + 500);
	CHECK("count_min_max", h.count == 1000 && h.min_ns == 1500 && h.max_ns == 1000500,
	      "count %" PRIu64 " min %" PRIu64 " max %" PRIu64, h.count, h.min_ns, h.max_ns);
	CHECK("mean", rtmon_hist_mean(&h) == 501000, "mean %" PRIu64, rtmon_hist_mean(&h));
	CHECK("p50", rtmon_hist_percentile(&h, 50) == 501000, "p50 %" PRIu64,
	      rtmon_hist_percentile(&h, 50));
	CHECK("p99", rtmon_hist_percentile(&h, 99) == 991000, "p99 %" PRIu64,
	      rtmon_hist_percentile(&h, 99));
	CHECK("p99.9", rtmon_hist_percentile(&h, 99.9) == 1000500, "p99.9 %" PRIu64,
	      rtmon_hist_percentile(&h, 99.9));
	CHECK("p100_is_max", rtmon_hist_percentile(&h, 100) == h.max_ns, "p100");
	CHECK("p0_is_min", rtmon_hist_percentile(&h, 0) == h.min_ns, "p0");
	CHECK("count_below", rtmon_hist_count_below(&h, 100000) == 99 &&
	      rtmon_hist_count_below(&h, 1000) == 0 &&
	      rtmon_hist_count_below(&h, UINT64_MAX) == 1000,
	      "below 100us %" PRIu64, rtmon_hist_count_below(&h, 100000));

	/* coarse range: 1.6% accuracy */
	rtmon_hist_init(&h2);
	for (i = 0; i < 99; i++)
		rtmon_hist_add(&h2, 10000);
	rtmon_hist_add(&h2, 20000000);	/* 20 ms */
	rtmon_hist_add(&h2, 30000000);	/* 30 ms */
	{
		uint64_t p = rtmon_hist_percentile(&h2, 99);

		CHECK("coarse_percentile", p >= 20000000 && p <= 20000000 + 20000000 / 64,
		      "p99 %" PRIu64, p);
	}
	rtmon_hist_merge(&h, &h2);
	CHECK("merge", h.count == 1101 && h.max_ns == 30000000 && h.min_ns == 1500,
	      "merged count %" PRIu64, h.count);
	return failed;
}

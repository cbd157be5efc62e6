// SPDX-License-Identifier: GPL-2.0
/*
 * hist.c - rtmonctl hist: a target's histogram and percentiles from rtmond.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "rtmon/rtmon.h"
#include "rtmon_format.h"
#include "rtmon_hist.h"
#include "rtmonctl.h"

const char hist_usage[] =
	"usage: rtmonctl hist TARGET [-d|--dir DIR] [--json]\n"
	"rtmond's latency histogram of TARGET (its name in rtmon.conf) with its\n"
	"percentiles, from DIR/stats.json (DIR: --dir, $RTMON_DIR or /var/lib/rtmon).\n";

int cmd_hist(int argc, char **argv, int json)
{
	struct rtmon_hist *h;
	struct saved_opts o;
	json_error_t jerr;
	json_t *root, *t, *b;
	const char *name;
	char path[1024], a[32];
	size_t i;

	saved_opts(argc, argv, 0, &o);
	if (optind == argc)
		usage_error("which target? (its name in rtmon.conf)");
	if (optind != argc - 1)
		usage_error("one target at a time: '%s' after '%s'", argv[optind + 1], argv[optind]);
	name = argv[optind];
	snprintf(path, sizeof(path), "%s/stats.json", rtmond_dir);
	root = rtmond_stats_load(&jerr);
	if (!root)
		fail(0, "cannot read %s: %s (is rtmond running with snapshot.dir = \"%s\"?)",
		     path, jerr.text, rtmond_dir);
	t = rtmond_stats_target(root, name);
	if (!t)
		fail(0, "rtmond has no target '%s' (%s)", name, path);
	if (json) {
		json_out(json_incref(t));
		json_decref(root);
		return 0;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		fail(ENOMEM, "hist");
	rtmon_hist_init(h);
	json_array_foreach(json_object_get(t, "buckets"), i, b) {
		json_int_t idx = json_integer_value(json_array_get(b, 0));

		if (idx >= 0 && idx < RTMON_HIST_NBUCKETS)
			h->b[idx] = (uint64_t)json_integer_value(json_array_get(b, 1));
	}
	h->count = (uint64_t)json_integer_value(json_object_get(t, "count"));
	h->sum_ns = (uint64_t)json_integer_value(json_object_get(t, "sum_ns"));
	h->min_ns = (uint64_t)json_integer_value(json_object_get(t, "min_ns"));
	h->max_ns = (uint64_t)json_integer_value(json_object_get(t, "max_ns"));
	printf("%s: %llu chains, %llu misses, %llu timeouts", name,
	       (unsigned long long)h->count,
	       (unsigned long long)json_integer_value(json_object_get(t, "misses")),
	       (unsigned long long)json_integer_value(json_object_get(t, "timeouts")));
	if (json_integer_value(json_object_get(t, "deadline_ns")))
		printf(", deadline %s", rtmon_fmt_ns(a, sizeof(a),
			(uint64_t)json_integer_value(json_object_get(t, "deadline_ns"))));
	putchar('\n');
	if (h->count) {
		printf("  min %s", rtmon_fmt_ns(a, sizeof(a), h->min_ns));
		printf("  mean %s", rtmon_fmt_ns(a, sizeof(a), rtmon_hist_mean(h)));
		printf("  p50 %s", rtmon_fmt_ns(a, sizeof(a), rtmon_hist_percentile(h, 50)));
		printf("  p90 %s", rtmon_fmt_ns(a, sizeof(a), rtmon_hist_percentile(h, 90)));
		printf("  p99 %s", rtmon_fmt_ns(a, sizeof(a), rtmon_hist_percentile(h, 99)));
		printf("  p99.9 %s", rtmon_fmt_ns(a, sizeof(a), rtmon_hist_percentile(h, 99.9)));
		printf("  max %s\n", rtmon_fmt_ns(a, sizeof(a), h->max_ns));
	}
	rtmon_hist_print(stdout, h, 25, 40,
			 (uint64_t)json_integer_value(json_object_get(t, "deadline_ns")));
	free(h);
	json_decref(root);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * saved.c - rtmond's files as rtmonctl reads them: DIR/stats.json and
 * DIR/misses.jsonl, found by --dir, $RTMON_DIR or the default.
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
#include "rtmonctl.h"


const char *rtmond_dir = "/var/lib/rtmon";

json_t *rtmond_stats_load(json_error_t *err)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/stats.json", rtmond_dir);
	return json_load_file(path, 0, err);
}

json_t *rtmond_stats_target(json_t *stats, const char *name)
{
	return json_object_get(json_object_get(stats, "targets"), name);
}

/* --dir DIR / -n N for the commands that read rtmond's files */
long dir_opts(int argc, char **argv, int want_n)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ 0 }
	};
	long n = -1;
	char *end;
	int c;

	if (getenv("RTMON_DIR"))
		rtmond_dir = getenv("RTMON_DIR");
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			rtmond_dir = optarg;
			break;
		case 'n':
			n = strtol(optarg, &end, 10);
			if (!want_n || *end || n < 1)
				usage_error("bad count '%s'", optarg);
			break;
		default:
			exit(2);
		}
	}
	return n;
}

FILE *rtmond_misses_open(void)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/misses.jsonl", rtmond_dir);
	f = fopen(path, "r");
	if (!f)
		fail(errno, "cannot read %s (rtmond's snapshot.dir; --dir DIR)", path);
	return f;
}

long long rtmond_seq_arg(const char *arg)
{
	long long seq;
	char *end;

	errno = 0;
	seq = strtoll(arg, &end, 10);
	if (*end || seq < 0 || end == arg || errno)
		usage_error("bad record number '%s' (the seq of 'rtmonctl misses')", arg);
	return seq;
}

static void seq_key(char *key, size_t len, long long seq)
{
	snprintf(key, len, "%lld", seq);
}

static int seq_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

json_t *rtmond_misses_index(const long long *seqs, size_t n)
{
	json_t *index = json_object();
	long long *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	char *line = NULL, key[24];
	size_t cap = 0;
	FILE *f;

	if (!index || !sorted)
		fail(ENOMEM, "misses");
	memcpy(sorted, seqs, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), seq_cmp);
	f = rtmond_misses_open();
	while (getline(&line, &cap, f) > 0) {
		json_t *x = json_loads(line, 0, NULL);
		long long seq = json_integer_value(json_object_get(x, "seq"));

		/* the last line of a seq wins */
		if (json_is_integer(json_object_get(x, "seq")) &&
		    bsearch(&seq, sorted, n, sizeof(*sorted), seq_cmp)) {
			seq_key(key, sizeof(key), seq);
			json_object_set(index, key, x);
		}
		json_decref(x);
	}
	fclose(f);
	free(line);
	free(sorted);
	return index;
}

json_t *rtmond_misses_get(json_t *index, long long seq)
{
	char key[24];

	seq_key(key, sizeof(key), seq);
	return json_object_get(index, key);
}

json_t *rtmond_miss_find(const char *seq_arg)
{
	long long seq = rtmond_seq_arg(seq_arg);
	json_t *index = rtmond_misses_index(&seq, 1);
	json_t *m = json_incref(rtmond_misses_get(index, seq));

	json_decref(index);
	if (!m)
		fail(0, "no miss with seq %lld in %s/misses.jsonl", seq, rtmond_dir);
	return m;
}

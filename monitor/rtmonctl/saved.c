// SPDX-License-Identifier: GPL-2.0
/*
 * saved.c - rtmond's files as rtmonctl reads them: DIR/stats.json and
 * DIR/misses.jsonl, found by --dir, $RTMON_DIR or the default.
 */
#define _GNU_SOURCE
#include <ctype.h>
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
			usage_hint();
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

void rtmond_miss_id_arg(const char *arg, struct rtmond_miss_id *id)
{
	const char *colon = strrchr(arg, ':'), *num = colon ? colon + 1 : arg;
	char *end;

	id->load[0] = 0;
	id->no_load_id = colon == arg + 1 && arg[0] == '?';
	if (colon && !id->no_load_id) {
		size_t n = (size_t)(colon - arg), i;

		for (i = 0; i < n && isxdigit((unsigned char)arg[i]); i++)
			;
		if (!n || i != n || n >= sizeof(id->load))
			usage_error("bad record number '%s' (SEQ or LOAD:SEQ, as 'rtmonctl misses' shows it)",
				    arg);
		memcpy(id->load, arg, n);
		id->load[n] = 0;
	}
	errno = 0;
	id->seq = strtoll(num, &end, 10);
	if (*end || id->seq < 0 || end == num || errno || !isdigit((unsigned char)*num))
		usage_error("bad record number '%s' (SEQ or LOAD:SEQ, as 'rtmonctl misses' shows it)", arg);
}

static int seq_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* index: { "SEQ": { "LOAD": line, ... } }, LOAD "" for a line without load_id */
json_t *rtmond_misses_index(const struct rtmond_miss_id *ids, size_t n)
{
	json_t *index = json_object();
	long long *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	char *line = NULL, key[24];
	size_t cap = 0, i;
	FILE *f;

	if (!index || !sorted)
		fail(ENOMEM, "misses");
	for (i = 0; i < n; i++)
		sorted[i] = ids[i].seq;
	qsort(sorted, n, sizeof(*sorted), seq_cmp);
	f = rtmond_misses_open();
	while (getline(&line, &cap, f) > 0) {
		json_t *x = json_loads(line, 0, NULL), *loads;
		long long seq = json_integer_value(json_object_get(x, "seq"));
		const char *load = json_string_value(json_object_get(x, "load_id"));

		/* the last line of a seq wins (rtmond rewrites none: a repair might) */
		if (json_is_integer(json_object_get(x, "seq")) &&
		    bsearch(&seq, sorted, n, sizeof(*sorted), seq_cmp)) {
			snprintf(key, sizeof(key), "%lld", seq);
			loads = json_object_get(index, key);
			if (!loads) {
				loads = json_object();
				json_object_set_new(index, key, loads);
			}
			json_object_set(loads, load ? load : "", x);
		}
		json_decref(x);
	}
	fclose(f);
	free(line);
	free(sorted);
	return index;
}

json_t *rtmond_misses_get(json_t *index, const struct rtmond_miss_id *id)
{
	json_t *loads, *m;
	const char *load;
	char key[24], all[256] = "";
	size_t len = 0;

	snprintf(key, sizeof(key), "%lld", id->seq);
	loads = json_object_get(index, key);
	if (id->load[0] || id->no_load_id || !loads)
		return json_object_get(loads, id->load);
	if (json_object_size(loads) == 1) {
		json_object_foreach(loads, load, m)
			return m;
	}
	/* sequence numbers start again at each module load: which one? */
	json_object_foreach(loads, load, m)
		if (len < sizeof(all))
			len += (size_t)snprintf(all + len, sizeof(all) - len, "%s%s:%lld",
						len ? ", " : "", load[0] ? load : "?", id->seq);
	fail(0, "miss %lld is in %zu module loads (%s): give LOAD:SEQ", id->seq,
	     json_object_size(loads), all);
}

json_t *rtmond_miss_find(const char *arg)
{
	struct rtmond_miss_id id;
	json_t *index, *m;

	rtmond_miss_id_arg(arg, &id);
	index = rtmond_misses_index(&id, 1);
	m = json_incref(rtmond_misses_get(index, &id));
	json_decref(index);
	if (!m)
		fail(0, "no miss %s in %s/misses.jsonl", arg, rtmond_dir);
	return m;
}

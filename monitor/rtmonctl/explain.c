// SPDX-License-Identifier: GPL-2.0
/*
 * explain.c - rtmonctl explain: where a miss's time went, and who took it.
 *
 *   rtmonctl explain SEQ [--dir DIR] [--json]
 *   rtmonctl explain --record FILE --snapshot FILE [--json]
 *
 * The first form reads the miss from rtmond's misses.jsonl and its ftrace
 * snapshot (the file the line names); the second a saved record (one
 * JSON line, as 'rtmonctl records --json' or rtmond write them) and an
 * ftrace text file. The explanation itself is monitor/explain/explain.c.
 * Exit status: 0, 1 (no such miss, no snapshot, unreadable files), 2 bad
 * usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtmonctl.h"
#include "rtmon_format.h"
#include "explain.h"

/* Explain record m (a miss's JSON) with the ftrace file at path. */
static int explain_one(json_t *m, const char *path, int json)
{
	struct rtx_chain c;
	struct rtx_result *r;
	struct fts_trace t;
	char err[128];
	int e;

	if (rtx_chain_from_json(&c, m, err, sizeof(err)))
		fail(0, "the record cannot be explained: %s", err);
	e = fts_load(&t, path);
	if (e)
		fail(-e, "cannot read the snapshot %s", path);
	r = malloc(sizeof(*r));
	if (!r)
		fail(ENOMEM, "explain");
	rtx_explain(&c, &t, r);
	if (json_is_false(json_object_get(json_object_get(m, "snapshot"), "ftrace_from_start"))) {
		size_t l = strlen(r->missing);

		r->partial = 1;
		snprintf(r->missing + l, sizeof(r->missing) - l, "%srtmond's trace began after the chain started",
			 l ? "; " : "");
	}
	if (json) {
		json_t *o = rtx_json(r);

		json_object_set_new(o, "seq", json_integer((json_int_t)c.seq));
		json_object_set_new(o, "snapshot", json_string(path));
		json_object_set_new(o, "snapshot_events", json_integer((json_int_t)t.n));
		json_object_set_new(o, "snapshot_bad_lines", json_integer((json_int_t)t.bad_lines));
		json_out(o);
	} else {
		rtx_print(stdout, c.seq, r, &t, "snapshot");
	}
	free(r);
	fts_free(&t);
	return 0;
}

/* The culprit line of a miss of misses.jsonl, for 'rtmonctl misses'. */
int rtmond_miss_culprit(json_t *m, char *buf, size_t len)
{
	json_t *s = json_object_get(m, "snapshot");
	const char *path = json_string_value(json_object_get(s, "ftrace"));
	struct rtx_chain c;
	struct rtx_result *r;
	struct fts_trace t;
	char err[128];

	if (!path || rtx_chain_from_json(&c, m, err, sizeof(err)) || fts_load(&t, path))
		return -1;
	r = malloc(sizeof(*r));
	if (!r) {
		fts_free(&t);
		return -1;
	}
	rtx_explain(&c, &t, r);
	rtx_culprit_line(r, buf, len);
	free(r);
	fts_free(&t);
	return 0;
}

int cmd_explain(int argc, char **argv, int json)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "record", required_argument, NULL, 'r' },
		{ "snapshot", required_argument, NULL, 's' },
		{ 0 }
	};
	const char *record = NULL, *snap = NULL, *path, *skipped;
	json_t *m, *s;
	json_error_t je;
	int c, ret;

	if (getenv("RTMON_DIR"))
		rtmond_dir = getenv("RTMON_DIR");
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			rtmond_dir = optarg;
			break;
		case 'r':
			record = optarg;
			break;
		case 's':
			snap = optarg;
			break;
		default:
			exit(2);
		}
	}
	if (record || snap) {
		if (!record || !snap || optind != argc)
			usage_error("usage: rtmonctl explain --record FILE --snapshot FILE [--json]");
		m = json_load_file(record, JSON_DISABLE_EOF_CHECK, &je);
		if (!m)
			fail(0, "%s:%d: %s", record, je.line, je.text);
		ret = explain_one(m, snap, json);
		json_decref(m);
		return ret;
	}
	if (optind != argc - 1)
		usage_error("usage: rtmonctl explain SEQ [--dir DIR] [--json]");
	m = rtmond_miss_find(argv[optind]);
	s = json_object_get(m, "snapshot");
	skipped = json_string_value(json_object_get(s, "skipped"));
	path = json_string_value(json_object_get(s, "ftrace"));
	if (skipped)
		fail(0, "miss %s has no snapshot: %s (rtmond's snapshot rate limit or a busy worker)",
		     argv[optind], skipped);
	if (!path)
		fail(0, "miss %s has no ftrace snapshot (ftrace off in rtmond's configuration?)",
		     argv[optind]);
	ret = explain_one(m, path, json);
	json_decref(m);
	return ret;
}

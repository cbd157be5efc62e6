// SPDX-License-Identifier: GPL-2.0
/*
 * explain.c - rtmonctl explain: where a miss's time went, and who took it.
 *
 *   rtmonctl explain SEQ [SEQ...] [--dir DIR] [--json]
 *   rtmonctl explain --record FILE --snapshot FILE [--json]
 *
 * The first form reads the misses from rtmond's misses.jsonl and their
 * ftrace snapshots (the files the lines name); the second a saved record
 * (one JSON line, as 'rtmonctl records --json' or rtmond write them) and
 * an ftrace text file. The explanation itself is monitor/explain/explain.c.
 * Exit status: 0, 1 (a miss unknown or without a snapshot, unreadable
 * files: the others are still explained), 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtmonctl.h"
#include "rtmon_format.h"
#include "explain.h"

/*
 * The snapshot last loaded. rtmond keeps one snapshot for the misses
 * close in time (a miss while the worker copies takes the same file), so
 * misses explained in order load each file once: 186 misses, 29 files in
 * a guest test under a hog.
 */
static struct {
	char *path;
	struct fts_trace t;
} snap;

static void snapshot_drop(void)
{
	if (snap.path) {
		fts_free(&snap.t);
		free(snap.path);
		snap.path = NULL;
	}
}

static const struct fts_trace *snapshot_load(const char *path, int *err)
{
	if (snap.path && !strcmp(snap.path, path))
		return &snap.t;
	snapshot_drop();
	*err = fts_load(&snap.t, path);
	if (*err)
		return NULL;
	snap.path = strdup(path);
	if (!snap.path) {
		fts_free(&snap.t);
		*err = -ENOMEM;
		return NULL;
	}
	return &snap.t;
}

static void __attribute__((format(printf, 1, 2))) warn_miss(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "rtmonctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Explain record m (a miss's JSON) with the ftrace file at path: 0 or 1. */
static int explain_one(json_t *m, const char *path, int json)
{
	const struct fts_trace *t;
	struct rtx_chain c;
	struct rtx_result *r;
	char err[128];
	int e;

	if (rtx_chain_from_json(&c, m, err, sizeof(err))) {
		warn_miss("the record cannot be explained: %s", err);
		return 1;
	}
	t = snapshot_load(path, &e);
	if (!t) {
		warn_miss("cannot read the snapshot %s: %s", path, strerror(-e));
		return 1;
	}
	r = malloc(sizeof(*r));
	if (!r)
		fail(ENOMEM, "explain");
	rtx_explain(&c, t, r);
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
		json_object_set_new(o, "snapshot_events", json_integer((json_int_t)t->n));
		json_object_set_new(o, "snapshot_bad_lines", json_integer((json_int_t)t->bad_lines));
		json_out(o);
	} else {
		rtx_print(stdout, c.seq, r, t, "snapshot");
	}
	free(r);
	return 0;
}

/* The culprit line of a miss of misses.jsonl, for 'rtmonctl misses'. */
int rtmond_miss_culprit(json_t *m, char *buf, size_t len)
{
	json_t *s = json_object_get(m, "snapshot");
	const char *path = json_string_value(json_object_get(s, "ftrace"));
	const struct fts_trace *t;
	struct rtx_chain c;
	struct rtx_result *r;
	char err[128];
	int e;

	if (!path || rtx_chain_from_json(&c, m, err, sizeof(err)))
		return -1;
	t = snapshot_load(path, &e);
	if (!t)
		return -1;
	r = malloc(sizeof(*r));
	if (!r)
		return -1;
	rtx_explain(&c, t, r);
	rtx_culprit_line(r, buf, len);
	free(r);
	return 0;
}

/* Explain the miss of misses.jsonl with seq arg (in index): 0 or 1. */
static int explain_seq(json_t *index, const char *arg, int json)
{
	json_t *m = rtmond_misses_get(index, rtmond_seq_arg(arg)), *s;
	const char *path, *skipped;

	if (!m) {
		warn_miss("no miss with seq %lld in %s/misses.jsonl", rtmond_seq_arg(arg), rtmond_dir);
		return 1;
	}
	s = json_object_get(m, "snapshot");
	skipped = json_string_value(json_object_get(s, "skipped"));
	path = json_string_value(json_object_get(s, "ftrace"));
	if (skipped) {
		warn_miss("miss %s has no snapshot: %s (rtmond's snapshot rate limit or a busy worker)",
			  arg, skipped);
		return 1;
	}
	if (!path) {
		warn_miss("miss %s has no ftrace snapshot (ftrace off in rtmond's configuration?)", arg);
		return 1;
	}
	return explain_one(m, path, json);
}

int cmd_explain(int argc, char **argv, int json)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "record", required_argument, NULL, 'r' },
		{ "snapshot", required_argument, NULL, 's' },
		{ 0 }
	};
	const char *record = NULL, *snap_file = NULL;
	json_t *m, *want;
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
			snap_file = optarg;
			break;
		default:
			exit(2);
		}
	}
	if (record || snap_file) {
		if (!record || !snap_file || optind != argc)
			usage_error("usage: rtmonctl explain --record FILE --snapshot FILE [--json]");
		m = json_load_file(record, JSON_DISABLE_EOF_CHECK, &je);
		if (!m)
			fail(0, "%s:%d: %s", record, je.line, je.text);
		ret = explain_one(m, snap_file, json);
		json_decref(m);
		return ret;
	}
	if (optind == argc)
		usage_error("usage: rtmonctl explain SEQ [SEQ...] [--dir DIR] [--json]");
	want = json_object();
	if (!want)
		fail(ENOMEM, "explain");
	for (c = optind; c < argc; c++)	/* all checked before any output */
		if (rtmond_misses_want(want, rtmond_seq_arg(argv[c])))
			fail(ENOMEM, "explain");
	m = rtmond_misses_index(want);
	ret = 0;
	for (c = optind; c < argc; c++)
		ret |= explain_seq(m, argv[c], json);
	json_decref(m);
	json_decref(want);
	snapshot_drop();
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * explain.c - rtmonctl explain: where a miss's time went, and who took it.
 *
 *   rtmonctl explain SEQ [SEQ...] [--dir DIR] [--json]
 *   rtmonctl explain --record FILE [--snapshot FILE] [--json]
 *
 * The first form reads the misses from rtmond's misses.jsonl and their
 * ftrace snapshots (the files the lines name); the second a saved record
 * (one JSON line, as 'rtmonctl records --json' or rtmond write them) and
 * an ftrace text file. The explanation itself is monitor/explain/explain.c;
 * the module's own blame (records of version 4 on) is shown beside it, and
 * alone for a miss without a snapshot.
 * Exit status: 0, 1 (a miss unknown, or with neither a snapshot nor the
 * module's blame, unreadable files: the others are still explained), 2 bad
 * usage.
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

/*
 * The explanation of record m (a miss's JSON) with the ftrace file at
 * path (loaded, or kept from the last one: snapshot_load); its chain in
 * *c, the trace in *t. NULL with why in why when it cannot be explained.
 */
static struct rtx_result *explain_record(json_t *m, const char *path, struct rtx_chain *c,
					 const struct fts_trace **t, char *why, size_t len)
{
	struct rtx_result *r;
	char err[128];
	int e;

	if (rtx_chain_from_json(c, m, err, sizeof(err))) {
		snprintf(why, len, "the record cannot be explained: %s", err);
		return NULL;
	}
	*t = snapshot_load(path, &e);
	if (!*t) {
		snprintf(why, len, "cannot read the snapshot %s: %s", path, strerror(-e));
		return NULL;
	}
	r = malloc(sizeof(*r));
	if (!r)
		fail(ENOMEM, "explain");
	rtx_explain(c, *t, r);
	return r;
}

/*
 * Record m's own blame from the module, with no snapshot (why: there is
 * none), printed: 0, or 1 when the record has none (before version 4).
 */
static int explain_module(json_t *m, const char *why, int json)
{
	json_t *bl = json_object_get(m, "blame");
	struct rtm_rec_blame b;
	char a[32], w[256];

	if (!json_is_integer(json_object_get(m, "seq")) ||
	    !json_is_integer(json_object_get(m, "latency_ns")) ||
	    rtmon_blame_from_json(bl, &b))
		return -1;
	if (json) {
		json_out(json_pack("{s:O, s:O, s:s, s:O}", "seq", json_object_get(m, "seq"),
				   "latency_ns", json_object_get(m, "latency_ns"),
				   "no_snapshot", why, "module_blame", bl));
		return 0;
	}
	/* why may come from the file: escaped for the terminal */
	printf("#%lld latency %s: the module's blame (no snapshot: %s)\n",
	       (long long)json_integer_value(json_object_get(m, "seq")),
	       rtmon_fmt_ns(a, sizeof(a), (uint64_t)json_integer_value(json_object_get(m, "latency_ns"))),
	       rtmon_term(w, sizeof(w), why));
	rtmon_blame_print(stdout, &b);
	return 0;
}

/* Explain record m with the ftrace file at path, printed: 0 or 1. */
static int explain_one(json_t *m, const char *path, int json)
{
	const struct fts_trace *t;
	struct rtx_chain c;
	struct rtx_result *r;
	char why[1280];

	r = explain_record(m, path, &c, &t, why, sizeof(why));
	if (!r) {
		warn_miss("%s", why);
		return 1;
	}
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
		if (json_is_object(json_object_get(m, "blame")))
			json_object_set(o, "module_blame", json_object_get(m, "blame"));
		json_out(o);
	} else {
		struct rtm_rec_blame b;

		rtx_print(stdout, c.seq, r, t, "snapshot");
		if (!rtmon_blame_from_json(json_object_get(m, "blame"), &b)) {
			printf("  the module's own blame, from its hops:\n");
			rtmon_blame_print(stdout, &b);
		}
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
	char why[1280];

	if (!path)
		return -1;
	r = explain_record(m, path, &c, &t, why, sizeof(why));
	if (!r)
		return -1;
	rtx_culprit_line(r, buf, len);
	free(r);
	return 0;
}

/* Explain the miss of misses.jsonl with seq (in index): 0 or 1. */
static int explain_seq(json_t *index, const struct rtmond_miss_id *id, int json)
{
	json_t *m = rtmond_misses_get(index, id), *s;
	long long seq = id->seq;
	const char *path, *skipped;

	if (!m) {
		warn_miss("no miss with seq %lld in %s/misses.jsonl", seq, rtmond_dir);
		return 1;
	}
	s = json_object_get(m, "snapshot");
	skipped = json_string_value(json_object_get(s, "skipped"));
	path = json_string_value(json_object_get(s, "ftrace"));
	if (skipped) {
		if (!explain_module(m, skipped, json))
			return 0;
		warn_miss("miss %lld has no snapshot: %s (rtmond's snapshot rate limit or a busy worker)",
			  seq, skipped);
		return 1;
	}
	if (!path) {
		if (!explain_module(m, "ftrace off", json))
			return 0;
		warn_miss("miss %lld has no ftrace snapshot (ftrace off in rtmond's configuration?)", seq);
		return 1;
	}
	return explain_one(m, path, json);
}

const char explain_usage[] =
	"usage: rtmonctl explain SEQ|LOAD:SEQ... [-d|--dir DIR] [--json]\n"
	"       rtmonctl explain --record FILE [--snapshot FILE] [--json]\n"
	"Where a miss's time went and who took it: from its ftrace snapshot and the\n"
	"module's own blame (that alone when there is no snapshot). --record: a saved\n"
	"record (a line of misses.jsonl or of 'records --json'), with its snapshot.\n";

int cmd_explain(int argc, char **argv, int json)
{
	struct rtmond_miss_id *ids;
	struct saved_opts o;
	json_error_t je;
	size_t i, n;
	int ret;
	json_t *m;

	saved_opts(argc, argv, SAVED_RECORD, &o);
	if (o.record || o.snapshot) {
		if (!o.record || optind != argc)
			usage_error("usage: rtmonctl explain --record FILE [--snapshot FILE] [--json]");
		m = json_load_file(o.record, JSON_DISABLE_EOF_CHECK, &je);
		if (!m)
			fail(0, "%s:%d: %s", o.record, je.line, je.text);
		if (o.snapshot) {
			ret = explain_one(m, o.snapshot, json);
		} else {
			ret = explain_module(m, "none given", json) ? 1 : 0;
			if (ret)
				warn_miss("%s: no blame in the record (a module before record version 4): "
					  "a snapshot is needed (--snapshot FILE)", o.record);
		}
		json_decref(m);
		return ret;
	}
	if (optind == argc)
		usage_error("which miss? (SEQ or LOAD:SEQ, as 'rtmonctl misses' shows it)");
	n = (size_t)(argc - optind);
	ids = malloc(n * sizeof(*ids));
	if (!ids)
		fail(ENOMEM, "explain");
	for (i = 0; i < n; i++)	/* all checked before any output */
		rtmond_miss_id_arg(argv[optind + (int)i], &ids[i]);
	m = rtmond_misses_index(ids, n);
	ret = 0;
	for (i = 0; i < n; i++)
		ret |= explain_seq(m, &ids[i], json);
	json_decref(m);
	free(ids);
	snapshot_drop();
	return ret;
}

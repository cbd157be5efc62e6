// SPDX-License-Identifier: GPL-2.0
/*
 * explain_job.c - rtmond explains its misses (monitor/explain), in the
 * snapshot worker, never on the real-time reader: once a snapshot is
 * copied, each miss it covers is explained from it. The explanations go
 * to DIR/ftrace/miss-ID.explain.jsonl (one JSON line per miss: seq,
 * target, and rtx_json()'s latency, parts, culprit; named by the miss's
 * line in misses.jsonl as snapshot.explain), and the time of each part
 * into rtmon_miss_cause_seconds_total{target,category}.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtmond.h"
#include "explain.h"

void rtmond_explain_snapshot(const char *dir, const struct rtmond_snap_job *j, uint64_t *wrap_ns)
{
	const struct rtmond_snap_plan *p = &j->plan;
	static struct rtx_result r;	/* the worker is the only caller */
	char path[700], tmp[720];
	struct fts_trace t;
	struct rtx_chain c;
	unsigned int i;
	FILE *f;
	int err, k;

	snprintf(path, sizeof(path), "%s/%s", dir, p->ftrace);
	*wrap_ns = 0;
	err = fts_load(&t, path);
	if (err) {
		rtmond_log("explain: cannot read %s: %s", path, strerror(-err));
		return;
	}
	if (t.overrun && t.last_ts > t.first_ts)
		*wrap_ns = t.last_ts - t.first_ts;
	snprintf(path, sizeof(path), "%s/%s", dir, p->explain);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	/* O_NOFOLLOW: never write through a symlink left in the directory */
	k = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
	f = k < 0 ? NULL : fdopen(k, "w");
	if (!f) {
		if (k >= 0)
			close(k);
		rtmond_log("explain: cannot write %s: %s", tmp, strerror(errno));
		fts_free(&t);
		return;
	}
	for (i = 0; i < j->nrecs; i++) {
		json_t *o;

		rtx_chain_from_record(&c, &j->recs[i]);
		rtx_explain(&c, &t, &r);
		o = rtx_json(&r);
		if (!o)
			continue;
		json_object_set_new(o, "seq", json_integer((json_int_t)c.seq));
		json_object_set_new(o, "target", json_string(j->targets[i]));
		if (json_dumpf(o, f, JSON_COMPACT) == 0)
			fputc('\n', f);
		json_decref(o);
		for (k = 0; k < r.nparts; k++)
			rtmond_metrics_cause_add(j->targets[i], rtx_cat_name(r.parts[k].cat),
						 r.parts[k].ns);
	}
	fts_free(&t);
	if (fclose(f) || rename(tmp, path)) {
		rtmond_log("explain: cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * misses.c - rtmonctl misses and show: the misses rtmond saved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <time.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "rtmon/rtmon.h"
#include "rtmon_format.h"
#include "rtmonctl.h"

static const char *snap_where(json_t *m, char *buf, size_t len)
{
	json_t *s = json_object_get(m, "snapshot");
	const char *skipped = json_string_value(json_object_get(s, "skipped"));
	const char *ft = json_string_value(json_object_get(s, "ftrace"));
	json_t *lt = json_object_get(s, "lttng");
	const char *ln = json_string_value(json_object_get(lt, "name"));

	if (skipped)
		snprintf(buf, len, "(%s)", skipped);
	else	/* (a hand-edited file may lack any of them) */
		snprintf(buf, len, "%s%s%s", ft ? ft : "", ft && json_is_object(lt) ? " + lttng " : "",
			 json_is_object(lt) ? ln ? ln : "?" : "");
	return buf;
}

/*
 * A miss's culprit from the module's blame (no snapshot to explain it):
 * its largest category, and the task the largest culprit entry names when
 * that entry is of the category. -1 when the record has no blame.
 */
static int module_culprit(json_t *m, char *buf, size_t len)
{
	uint64_t lat = (uint64_t)json_integer_value(json_object_get(m, "latency_ns"));
	const struct rtm_rec_culprit *k;
	struct rtm_rec_blame b;
	char a[32], comm[RTMON_COMM_TEXT], who[RTMON_COMM_TEXT + 32] = "";
	unsigned int i, top = 0;

	if (rtmon_blame_from_json(json_object_get(m, "blame"), &b) || !lat)
		return -1;
	for (i = 1; i < RTM_BLAME_NR; i++)
		if (b.ns[i] > b.ns[top])
			top = i;
	k = &b.culprit[0];
	if (k->pid && k->category == top) {
		rtmon_comm(comm, k->comm);
		snprintf(who, sizeof(who), " behind %s[%u]", comm[0] ? comm : "?", k->pid);
	}
	snprintf(buf, len, "%.0f%% (%s) %s%s (the module's blame)",
		 100.0 * (double)b.ns[top] / (double)lat, rtmon_fmt_ns(a, sizeof(a), b.ns[top]),
		 rtmon_blame_name(top), who);
	return 0;
}

const char misses_usage[] =
	"usage: rtmonctl misses [-n|--count COUNT] [--since WHEN] [--target NAME] [-d|--dir DIR]\n"
	"                       [--json]\n"
	"The misses and timeouts rtmond saved in DIR/misses.jsonl (the last COUNT),\n"
	"each with its time, snapshot files and culprit (DIR: --dir, $RTMON_DIR or\n"
	"/var/lib/rtmon). Seqs start again at each module load: when the file holds\n"
	"more than one load, a miss is LOAD:SEQ.\n"
	"  --since WHEN   those since WHEN: a duration ago (30min, 2h, 1d) or a local\n"
	"                 time (YYYY-MM-DD HH:MM[:SS], YYYY-MM-DDTHH:MM[:SS], HH:MM[:SS])\n"
	"  --target NAME  those of target NAME only\n";

/* A miss's wall-clock time as local time, to the millisecond (NULL: none). */
static const char *wall_text(json_t *m, char *buf, size_t len, int date)
{
	json_t *w = json_object_get(m, "wall_ns");
	long long ns = json_integer_value(w);
	char zone[16] = "";
	struct tm tm;
	time_t sec;
	size_t n;

	if (!json_is_integer(w) || ns < 0)
		return NULL;
	sec = (time_t)(ns / 1000000000);
	if (!localtime_r(&sec, &tm))
		return NULL;
	n = strftime(buf, len, date ? "%Y-%m-%d %H:%M:%S" : "%m-%d %H:%M:%S", &tm);
	if (!n)
		return NULL;
	if (date)
		strftime(zone, sizeof(zone), " %Z", &tm);
	snprintf(buf + n, len - n, ".%03lld%s", ns / 1000000 % 1000, zone);
	return buf;
}

/* miss m's name as 'show' takes it: LOAD:SEQ when loads > 1; its length */
static int miss_id(char *buf, size_t len, json_t *m, int loads)
{
	const char *load = json_string_value(json_object_get(m, "load_id"));
	char t[160];

	return snprintf(buf, len, "%s%s%lld",
			loads > 1 ? (load ? rtmon_term(t, sizeof(t), load) : "?") : "",
			loads > 1 ? ":" : "", (long long)json_integer_value(json_object_get(m, "seq")));
}

int cmd_misses(int argc, char **argv, int json)
{
	struct saved_opts o;
	long total = 0, i;
	char *first_load = NULL;
	json_t **all = NULL;
	char *line = NULL;
	int loads = 0, idw = 14;
	size_t cap = 0;
	FILE *f;

	saved_opts(argc, argv, SAVED_COUNT | SAVED_SINCE | SAVED_TARGET, &o);
	if (optind != argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	f = rtmond_misses_open();
	while (getline(&line, &cap, f) > 0) {
		json_t *m = json_loads(line, 0, NULL);
		const char *load;

		if (!m)
			continue;
		/*
		 * more than one module load in the file (a line without a
		 * load_id its own, "?"): the seq alone names no miss, filtered
		 * or not ('show' looks at them all)
		 */
		load = json_string_value(json_object_get(m, "load_id")) ?: "";
		if (!first_load) {
			first_load = strdup(load);
			if (!first_load)
				fail(ENOMEM, "misses");
			loads = 1;
		} else if (loads == 1 && strcmp(load, first_load)) {
			loads = 2;
		}
		if ((o.target && (!json_is_string(json_object_get(m, "target_name")) ||
				  strcmp(json_string_value(json_object_get(m, "target_name")), o.target))) ||
		    (o.since_ns && json_integer_value(json_object_get(m, "wall_ns")) < o.since_ns)) {
			json_decref(m);
			continue;
		}
		all = realloc(all, (size_t)(total + 1) * sizeof(*all));
		if (!all)
			fail(ENOMEM, "misses");
		all[total++] = m;
	}
	fclose(f);
	free(line);
	free(first_load);
	/* the seq column as wide as its widest LOAD:SEQ */
	for (i = o.count > 0 && total > o.count ? total - o.count : 0; i < total; i++) {
		char id[200];
		int w = miss_id(id, sizeof(id), all[i], loads);

		if (w > idw)
			idw = w;
	}
	if (!json)
		printf("%-*s %-18s %-16s %-8s %13s %13s %-22s %s\n", idw, "seq", "time", "target",
		       "kind", "latency", "deadline", "task", "snapshot");
	for (i = o.count > 0 && total > o.count ? total - o.count : 0; i < total; i++) {
		json_t *m = all[i];
		char a[32], b[32], who[48], where[600], t1[160], t2[160], w2[2400], id[200], tm[40];
		json_t *flags = json_object_get(m, "flags"), *fl;
		const char *kind = "miss";
		size_t k;

		if (json) {
			json_out(json_incref(m));
			continue;
		}
		json_array_foreach(flags, k, fl)	/* not a string: not ours */
			if (json_is_string(fl) && !strcmp(json_string_value(fl), "timeout"))
				kind = "timeout";
		/* names from the file: escaped for the terminal (rtmon_term) */
		if (json_string_length(json_object_get(m, "comm")))
			snprintf(who, sizeof(who), "%s[%lld]",
				 rtmon_term(t1, sizeof(t1), json_string_value(json_object_get(m, "comm"))),
				 (long long)json_integer_value(json_object_get(m, "pid")));
		else
			snprintf(who, sizeof(who), "-");	/* open: no task yet */
		miss_id(id, sizeof(id), m, loads);
		printf("%-*s %-18s %-16s %-8s %13s %13s %-22s %s\n", idw, id,
		       wall_text(m, tm, sizeof(tm), 0) ?: "-",
		       rtmon_term(t2, sizeof(t2), json_string_value(json_object_get(m, "target_name")) ?: "-"),
		       kind,
		       rtmon_fmt_ns(a, sizeof(a), (uint64_t)json_integer_value(json_object_get(m, "latency_ns"))),
		       rtmon_fmt_ns(b, sizeof(b), (uint64_t)json_integer_value(json_object_get(m, "deadline_ns"))),
		       who, rtmon_term(w2, sizeof(w2), snap_where(m, where, sizeof(where))));
		if (!rtmond_miss_culprit(m, where, sizeof(where)) ||
		    !module_culprit(m, where, sizeof(where)))
			printf("         culprit: %s\n", rtmon_term(w2, sizeof(w2), where));
	}
	for (i = 0; i < total; i++)
		json_decref(all[i]);
	free(all);
	return 0;
}

/* the module's blame of a miss (records of version 4 on) */
static void show_blame(json_t *m)
{
	struct rtm_rec_blame b;

	if (rtmon_blame_from_json(json_object_get(m, "blame"), &b))
		printf("  blame: none (a record of a module before version 4)\n");
	else
		rtmon_blame_print(stdout, &b);
}

const char show_usage[] =
	"usage: rtmonctl show SEQ|LOAD:SEQ [-d|--dir DIR] [--json]\n"
	"One miss of DIR/misses.jsonl (as 'rtmonctl misses' names it) with its time,\n"
	"hops, the module's blame and its snapshot files.\n";

int cmd_show(int argc, char **argv, int json)
{
	json_t *m, *hops, *h, *flags, *fl;
	char a[32], b[32], where[600], t1[160], t2[160], t3[160], w2[2400];
	struct saved_opts o;
	long long want;
	size_t i;

	saved_opts(argc, argv, 0, &o);
	if (optind == argc)
		usage_error("which miss? (SEQ or LOAD:SEQ, as 'rtmonctl misses' shows it)");
	if (optind != argc - 1)
		usage_error("one miss at a time: '%s' after '%s'", argv[optind + 1], argv[optind]);
	m = rtmond_miss_find(argv[optind]);
	want = json_integer_value(json_object_get(m, "seq"));
	if (json) {
		json_out(m);
		return 0;
	}
	/* every string from the file is escaped for the terminal (rtmon_term) */
	printf("#%lld %s %lld -> %s[%lld] target %s latency %s",
	       want, rtmon_term(t1, sizeof(t1), json_string_value(json_object_get(m, "kind")) ?: "?"),
	       (long long)json_integer_value(json_object_get(m, "source")),
	       rtmon_term(t2, sizeof(t2), json_string_value(json_object_get(m, "comm")) ?: "?"),
	       (long long)json_integer_value(json_object_get(m, "pid")),
	       rtmon_term(t3, sizeof(t3), json_string_value(json_object_get(m, "target_name")) ?: "-"),
	       rtmon_fmt_ns(a, sizeof(a), (uint64_t)json_integer_value(json_object_get(m, "latency_ns"))));
	if (json_integer_value(json_object_get(m, "deadline_ns")))
		printf(" deadline %s", rtmon_fmt_ns(b, sizeof(b),
			(uint64_t)json_integer_value(json_object_get(m, "deadline_ns"))));
	flags = json_object_get(m, "flags");
	json_array_foreach(flags, i, fl)
		printf(" %s", rtmon_term(t1, sizeof(t1), json_string_value(fl) ?: "?"));
	putchar('\n');
	if (wall_text(m, t1, sizeof(t1), 1))
		printf("  at %s (its end)%s%s\n", t1,
		       json_is_string(json_object_get(m, "load_id")) ? ", module load " : "",
		       rtmon_term(t2, sizeof(t2), json_string_value(json_object_get(m, "load_id")) ?: ""));
	printf("  %-3s %-13s %-4s %-8s %-28s %14s\n", "hop", "event", "cpu", "context", "who", "+time");
	hops = json_object_get(m, "hops");
	json_array_foreach(hops, i, h)
		printf("  %-3zu %-13s %-4lld %-8s %-28s %14s\n", i,
		       rtmon_term(t1, sizeof(t1), json_string_value(json_object_get(h, "event")) ?: "?"),
		       (long long)json_integer_value(json_object_get(h, "cpu")),
		       rtmon_term(t2, sizeof(t2), json_string_value(json_object_get(h, "ctx")) ?: "?"),
		       rtmon_term(t3, sizeof(t3), json_string_value(json_object_get(h, "what")) ?: "?"),
		       rtmon_fmt_ns(a, sizeof(a), (uint64_t)json_integer_value(json_object_get(h, "delta_ns"))));
	show_blame(m);
	printf("  snapshot: %s\n", rtmon_term(w2, sizeof(w2), snap_where(m, where, sizeof(where))));
	json_decref(m);
	return 0;
}

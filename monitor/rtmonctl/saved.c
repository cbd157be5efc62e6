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
#include <time.h>
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

/* --since WHEN as wall-clock ns */
static long long since_arg(const char *s)
{
	static const char *const fmts[] = {
		"%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M",
		"%H:%M:%S", "%H:%M",
	};
	struct timespec now;
	struct tm tm;
	uint64_t ago;
	long long secs;
	size_t i;
	time_t t;

	clock_gettime(CLOCK_REALTIME, &now);
	if (!rtmon_parse_duration(s, &ago)) {
		long long now_ns = (long long)now.tv_sec * 1000000000 + now.tv_nsec;

		/* longer ago than the epoch: every miss (0 would mean no --since) */
		return ago < (uint64_t)now_ns ? now_ns - (long long)ago : 1;
	}
	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		const char *end;
		struct tm want;

		t = now.tv_sec;
		localtime_r(&t, &tm);	/* the date of today for "HH:MM" */
		tm.tm_sec = 0;
		end = strptime(s, fmts[i], &tm);
		if (!end || *end)
			continue;
		tm.tm_isdst = -1;
		want = tm;
		t = mktime(&tm);
		secs = t;	/* a 32-bit time_t (armhf) always fits */
		/* a date mktime() moved (02-31) is no date; the ns fit 64 bits */
		if (t == (time_t)-1 || secs < 0 || secs > INT64_MAX / 1000000000 ||
		    tm.tm_mday != want.tm_mday || tm.tm_mon != want.tm_mon ||
		    tm.tm_year != want.tm_year)
			break;
		return secs * 1000000000;
	}
	usage_error("bad --since '%s' (a duration ago: 30min, 2h; or a local time: "
		    "2026-12-02 10:00, 10:00:30)", s);
}

/* the options of saved_opts, by the want bit that allows them (0: always) */
static const struct saved_opt {
	struct option o;
	unsigned int want;
	const char *shown;
} saved_all[] = {
	{ { "dir", required_argument, NULL, 'd' }, 0, "-d/--dir" },
	{ { "count", required_argument, NULL, 'n' }, SAVED_COUNT, "-n/--count" },
	{ { "since", required_argument, NULL, 'S' }, SAVED_SINCE, "--since" },
	{ { "target", required_argument, NULL, 'T' }, SAVED_TARGET, "--target" },
	{ { "record", required_argument, NULL, 'r' }, SAVED_RECORD, "--record" },
	{ { "snapshot", required_argument, NULL, 's' }, SAVED_RECORD, "--snapshot" },
};
#define SAVED_NOPTS (sizeof(saved_all) / sizeof(saved_all[0]))

/* an option getopt refused: another of these commands' (said by name), or none */
static void __attribute__((noreturn)) saved_refused(const char *arg, int opt)
{
	const char *cmd = rtmonctl_command ?: "this command";
	size_t i, n;

	for (i = 0; i < SAVED_NOPTS; i++) {
		const struct saved_opt *s = &saved_all[i];

		n = strlen(s->o.name);
		if ((opt && opt == s->o.val && s->o.val == 'n') ||
		    (!strncmp(arg, "--", 2) && !strncmp(arg + 2, s->o.name, n) &&
		     (arg[2 + n] == 0 || arg[2 + n] == '=')))
			usage_error("%s is not an option of '%s'", s->shown, cmd);
	}
	if (opt)
		usage_error("unknown option '-%c'", opt);
	usage_error("unknown option '%s'", arg);
}

void saved_opts(int argc, char **argv, unsigned int want, struct saved_opts *o)
{
	struct option opts[SAVED_NOPTS + 1];
	size_t i, n = 0;
	char *end;
	int c;

	/* only this command's: getopt's prefixes then match its own options */
	for (i = 0; i < SAVED_NOPTS; i++)
		if (!saved_all[i].want || (want & saved_all[i].want))
			opts[n++] = saved_all[i].o;
	memset(&opts[n], 0, sizeof(opts[n]));
	memset(o, 0, sizeof(*o));
	o->count = -1;
	if (getenv("RTMON_DIR"))
		rtmond_dir = getenv("RTMON_DIR");
	optind = 1;
	opterr = 0;	/* refusals said here */
	while ((c = getopt_long(argc, argv, want & SAVED_COUNT ? ":d:n:" : ":d:", opts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			rtmond_dir = optarg;
			break;
		case 'n':
			errno = 0;
			o->count = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || o->count < 1)
				usage_error("bad count '%s'", optarg);
			break;
		case 'S':
			o->since_ns = since_arg(optarg);
			break;
		case 'T':
			o->target = optarg;
			break;
		case 'r':
			o->record = optarg;
			break;
		case 's':
			o->snapshot = optarg;
			break;
		case ':':
			usage_error("'%s' needs a value", argv[optind - 1]);
		default:
			saved_refused(argv[optind - 1], optopt);
		}
	}
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

// SPDX-License-Identifier: GPL-2.0
/*
 * rtmonctl top - a live per-target view, like top or rtla timerlat top.
 *
 *   rtmonctl top [-i SECONDS] [-n COUNT] [--dir DIR] [--status FILE] [--json]
 *
 * Every interval one frame: a header with the module's state and counters
 * (chains, records, drops by cause, how full the record rings are) and one
 * row per module target: chains/s, count, min/avg/p99/max latency, misses,
 * overdue (timeouts), deadline and when the last miss was seen.
 *
 * Sources, none of which consumes the record stream (that is rtmond's):
 *  - /proc/rtmon/status (root and group rtmon; --status FILE reads a saved
 *    copy): targets, their counts, min/avg/max (whole us) and power-of-two
 *    histogram, the counters, ring sizes;
 *  - rtmond's DIR/stats.json when there (as 'rtmonctl hist'): p99 from
 *    its 1 us histogram; otherwise p99 is the upper edge of the module's
 *    power-of-two bucket holding it, shown as "<=";
 *  - rtmond's DIR/misses.jsonl (as 'rtmonctl misses'), read incrementally
 *    (across a rotation, through misses.jsonl.1): the last miss or
 *    timeout of each target.
 *
 * On a terminal each frame replaces the last; otherwise frames are plain
 * text separated by an empty line. --json: one JSON object per frame.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "rtmon/rtmon.h"
#include "rtmon_format.h"
#include "rtmonctl.h"

#define TOP_MAX_TARGETS	64
#define TOP_LOG2	64	/* module histogram: [2^(i-1), 2^i) us */
#define TOP_NDROPS	6
#define TOP_MAX_NAMES	256	/* targets remembered from misses.jsonl */

struct top_target {
	unsigned int id;
	char name[RTMON_NAME_LEN];
	uint64_t deadline_ns;
	int misses_only;
	uint64_t chains, misses, overdue;
	uint64_t min_ns, avg_ns, max_ns;	/* whole microseconds */
	uint64_t hist[TOP_LOG2];
	uint64_t p99_ns;
	int p99_fine;				/* from rtmond's 1 us histogram */
	uint64_t last_miss_ns;			/* CLOCK_MONOTONIC, 0 = none seen */
	double rate;
	int have_rate;
};

struct top_frame {
	char version[32], kernel[80], state[16];
	unsigned int ring_slots, ncpus, ntargets;
	struct top_target t[TOP_MAX_TARGETS];
	uint64_t started, completed, abandoned, expired, overdue, misses;
	uint64_t emitted, read;
	uint64_t drop[TOP_NDROPS];
	int rtmond_stats;			/* stats.json was read */
	uint64_t now_ns;
};

static const char *const drop_names[TOP_NDROPS] = {
	"ring_full", "no_chain", "no_branch", "task_table", "cookie_table", "hops"
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- /proc/rtmon/status ---- */

/* "  ID NAME: comm=... end=E deadline_us=D[ misses-only]" */
static int parse_target_line(const char *l, struct top_target *t)
{
	const char *name, *end, *d;
	unsigned long long dl;
	size_t n;

	memset(t, 0, sizeof(*t));
	t->id = (unsigned int)strtoul(l, (char **)&name, 10);
	if (*name != ' ')
		return -1;
	name++;
	end = strstr(name, ": comm=");
	d = strstr(l, " deadline_us=");
	if (!end || !d || sscanf(d, " deadline_us=%llu", &dl) != 1)
		return -1;
	n = (size_t)(end - name);
	if (n >= sizeof(t->name))
		n = sizeof(t->name) - 1;
	memcpy(t->name, name, n);
	if (!strcmp(t->name, "-"))
		t->name[0] = 0;
	t->deadline_ns = dl * 1000ull;
	t->misses_only = strstr(d, " misses-only") != NULL;
	return 0;
}

static void parse_stats_line(const char *l, struct top_target *t)
{
	unsigned long long c, m, o, mn, av, mx;
	int n = sscanf(l, " chains %llu misses %llu overdue %llu min_us %llu avg_us %llu max_us %llu",
		       &c, &m, &o, &mn, &av, &mx);

	if (n < 3)
		return;
	t->chains = c;
	t->misses = m;
	t->overdue = o;
	if (n == 6) {
		t->min_ns = mn * 1000ull;
		t->avg_ns = av * 1000ull;
		t->max_ns = mx * 1000ull;
	}
}

static void parse_hist_line(const char *l, struct top_target *t)
{
	unsigned long long from, to, cnt;
	int i;

	if (sscanf(l, " [%llu, %llu) %llu", &from, &to, &cnt) != 3 || !to)
		return;
	i = __builtin_ctzll(to);
	if (i < TOP_LOG2 && (to & (to - 1)) == 0)
		t->hist[i] = cnt;
}

static void parse_counter_line(const char *l, struct top_frame *f)
{
	unsigned long long a[6];

	if (sscanf(l, " chains started %llu completed %llu abandoned %llu expired %llu overdue %llu misses %llu",
		   &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) == 6) {
		f->started = a[0];
		f->completed = a[1];
		f->abandoned = a[2];
		f->expired = a[3];
		f->overdue = a[4];
		f->misses = a[5];
	} else if (sscanf(l, " records emitted %llu read %llu", &a[0], &a[1]) == 2) {
		f->emitted = a[0];
		f->read = a[1];
	} else if (sscanf(l, " drops ring_full %llu no_chain %llu no_branch %llu task_table %llu cookie_table %llu hops %llu",
			  &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) == 6) {
		for (int i = 0; i < TOP_NDROPS; i++)
			f->drop[i] = a[i];
	}
}

/* Read the status file into f; exits with a message when it cannot. */
static void read_status(const char *path, struct top_frame *f)
{
	struct top_target *cur = NULL;
	char *line = NULL;
	size_t cap = 0;
	FILE *in;

	in = fopen(path, "r");
	if (!in && errno == ENOENT && !strcmp(path, RTMON_STATUS_PATH))
		fail(0, "%s not found: is the rtmon module loaded? (modprobe rtmon)", path);
	if (!in)
		fail(errno, "cannot read %s", path);
	memset(f, 0, sizeof(*f));
	while (getline(&line, &cap, in) > 0) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "rtmon %31s on %79s", f->version, f->kernel) == 2)
			continue;
		if (sscanf(line, "state: %15s", f->state) == 1)
			continue;
		if (sscanf(line, "pools: chains %*u branches %*u hops/chain %*u ring %u records/cpu x %u cpus",
			   &f->ring_slots, &f->ncpus) == 2)
			continue;
		if (line[0] == ' ' && line[1] == ' ' && isdigit((unsigned char)line[2])) {
			cur = NULL;
			if (f->ntargets < TOP_MAX_TARGETS &&
			    !parse_target_line(line + 2, &f->t[f->ntargets]))
				cur = &f->t[f->ntargets++];
		} else if (cur && !strncmp(line, "    chains ", 11)) {
			parse_stats_line(line, cur);
		} else if (cur && !strncmp(line, "      [", 7)) {
			parse_hist_line(line, cur);
		} else if (!strncmp(line, "counters:", 9)) {
			cur = NULL;
		} else if (!cur) {
			parse_counter_line(line, f);
		}
	}
	free(line);
	fclose(in);
	if (!f->version[0] || !f->state[0])
		fail(0, "%s: not an rtmon status file", path);
}

/* ---- percentiles ---- */

/* p99 from the module's power-of-two histogram: its bucket's upper edge */
static uint64_t log2_p99(const struct top_target *t)
{
	uint64_t total = 0, seen = 0, rank;
	int i;

	for (i = 0; i < TOP_LOG2; i++)
		total += t->hist[i];
	if (!total)
		return 0;
	rank = (uint64_t)ceil(total * 0.99);
	for (i = 0; i < TOP_LOG2; i++) {
		seen += t->hist[i];
		if (seen >= rank) {
			uint64_t hi = (1ull << i) * 1000ull;

			return t->max_ns && hi > t->max_ns ? t->max_ns : hi;
		}
	}
	return t->max_ns;
}

static void add_percentiles(struct top_frame *f)
{
	json_t *root = rtmond_stats_load(NULL), *o;
	unsigned int i;

	f->rtmond_stats = root != NULL;
	for (i = 0; i < f->ntargets; i++) {
		struct top_target *t = &f->t[i];

		t->p99_ns = log2_p99(t);
		t->p99_fine = 0;
		o = t->name[0] ? rtmond_stats_target(root, t->name) : NULL;
		if (o && json_integer_value(json_object_get(o, "count")) > 0) {
			t->p99_ns = (uint64_t)json_integer_value(json_object_get(o, "p99_ns"));
			t->p99_fine = 1;
		}
	}
	json_decref(root);
}

/* ---- DIR/misses.jsonl, read as it grows ---- */

static struct {
	char name[RTMON_NAME_LEN];
	uint64_t ns;
} last_miss[TOP_MAX_NAMES];
static unsigned int nlast;
static off_t misses_off;
static ino_t misses_ino;

static void note_miss(const char *name, uint64_t ns)
{
	unsigned int i;

	for (i = 0; i < nlast; i++)
		if (!strcmp(last_miss[i].name, name))
			break;
	if (i == nlast) {
		if (nlast == TOP_MAX_NAMES)
			return;
		snprintf(last_miss[nlast++].name, RTMON_NAME_LEN, "%s", name);
	}
	if (ns > last_miss[i].ns)
		last_miss[i].ns = ns;
}

/* The whole lines of in from misses_off on. */
static void read_from(FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (fseeko(in, misses_off, SEEK_SET) == 0) {
		while ((n = getline(&line, &cap, in)) > 0 && line[n - 1] == '\n') {
			json_t *m = json_loads(line, 0, NULL);
			const char *name = json_string_value(json_object_get(m, "target_name"));
			json_int_t ns = json_integer_value(json_object_get(m, "read_ns"));
			const char *boot = json_string_value(json_object_get(m, "boot_id"));

			if (!ns)
				ns = json_integer_value(json_object_get(m, "end_ns"));
			/*
			 * a miss of an earlier boot: its monotonic time means
			 * nothing now (it showed as "0.0s ago"); lines of an
			 * older rtmond carry no boot id, a time in the future
			 * gives them away
			 */
			if (boot ? strcmp(boot, rtmon_boot_id()) != 0 : (uint64_t)ns > mono_ns())
				ns = 0;
			if (name && ns > 0)
				note_miss(name, (uint64_t)ns);
			json_decref(m);
			misses_off += n;	/* whole lines only: a half-written one waits */
		}
	}
	free(line);
}

/*
 * A file rtmond rotated (misses.jsonl.1 is the one read so far): its
 * last lines first, and the misses seen stay seen; 0 when it is not
 * there (a new or replaced file: from nothing).
 */
static int read_rotated(void)
{
	char path[1024];
	struct stat st;
	FILE *in;
	int ok;

	snprintf(path, sizeof(path), "%s/misses.jsonl.1", rtmond_dir);
	in = fopen(path, "r");
	if (!in)
		return 0;
	ok = !fstat(fileno(in), &st) && st.st_ino == misses_ino && st.st_size >= misses_off;
	if (ok)
		read_from(in);
	fclose(in);
	return ok;
}

static void read_misses(void)
{
	char path[1024];
	struct stat st;
	FILE *in;

	snprintf(path, sizeof(path), "%s/misses.jsonl", rtmond_dir);
	in = fopen(path, "r");
	if (!in)
		return;		/* no rtmond (yet): no last-miss times */
	if (fstat(fileno(in), &st) || st.st_ino != misses_ino || st.st_size < misses_off) {
		if (st.st_ino == misses_ino || !misses_ino || !read_rotated())
			nlast = 0;
		misses_off = 0;	/* new or truncated file: from the start */
		misses_ino = st.st_ino;
	}
	read_from(in);
	fclose(in);
}

static void add_last_misses(struct top_frame *f)
{
	unsigned int i, j;

	read_misses();
	for (i = 0; i < f->ntargets; i++)
		for (j = 0; j < nlast; j++)
			if (f->t[i].name[0] && !strcmp(f->t[i].name, last_miss[j].name))
				f->t[i].last_miss_ns = last_miss[j].ns;
}

/* ---- chains/s: against the previous frame, per id and name ---- */

static void add_rates(struct top_frame *f, const struct top_frame *prev)
{
	unsigned int i, j;
	double dt;

	if (!prev->now_ns || f->now_ns <= prev->now_ns)
		return;
	dt = (f->now_ns - prev->now_ns) / 1e9;
	for (i = 0; i < f->ntargets; i++)
		for (j = 0; j < prev->ntargets; j++) {
			const struct top_target *p = &prev->t[j];
			struct top_target *t = &f->t[i];

			if (p->id != t->id || strcmp(p->name, t->name) || t->chains < p->chains)
				continue;
			t->rate = (t->chains - p->chains) / dt;
			t->have_rate = 1;
		}
}

/* ---- output ---- */

/* records waiting in the rings: emitted - read - dropped (a misses-only
 * target's records that met their deadline are not emitted) */
static uint64_t ring_waiting(const struct top_frame *f)
{
	uint64_t gone = f->read + f->drop[0];

	return f->emitted > gone ? f->emitted - gone : 0;
}

static json_t *target_json(const struct top_frame *f, const struct top_target *t)
{
	json_t *o = json_pack("{s:i, s:s, s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:I}",
		"id", (int)t->id, "name", t->name, "deadline_ns", (json_int_t)t->deadline_ns,
		"misses_only", t->misses_only, "count", (json_int_t)t->chains,
		"min_ns", (json_int_t)t->min_ns, "avg_ns", (json_int_t)t->avg_ns,
		"p99_ns", (json_int_t)t->p99_ns, "max_ns", (json_int_t)t->max_ns,
		"misses", (json_int_t)t->misses,
		"p99_from", t->p99_fine ? "rtmond" : "module_log2_upper_edge",
		"overdue", (json_int_t)t->overdue);

	json_object_set_new(o, "chains_per_s", t->have_rate ? json_real(t->rate) : json_null());
	json_object_set_new(o, "last_miss_ns", t->last_miss_ns ?
			    json_integer((json_int_t)t->last_miss_ns) : json_null());
	json_object_set_new(o, "last_miss_ago_s", t->last_miss_ns ?
			    json_real((f->now_ns > t->last_miss_ns ?
				       f->now_ns - t->last_miss_ns : 0) / 1e9) : json_null());
	return o;
}

static void frame_json(const struct top_frame *f)
{
	json_t *tg = json_array(), *drops = json_object();
	uint64_t cap = (uint64_t)f->ring_slots * f->ncpus, waiting;
	unsigned int i;

	for (i = 0; i < TOP_NDROPS; i++)
		json_object_set_new(drops, drop_names[i], json_integer((json_int_t)f->drop[i]));
	for (i = 0; i < f->ntargets; i++)
		json_array_append_new(tg, target_json(f, &f->t[i]));
	waiting = ring_waiting(f);
	json_out(json_pack("{s:I, s:{s:s, s:s, s:s, s:i, s:i}, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o},"
			   " s:{s:I, s:I, s:f}, s:{s:s, s:b}, s:o}",
		"time_ns", (json_int_t)f->now_ns,
		"module", "version", f->version, "kernel", f->kernel, "state", f->state,
		"ncpus", (int)f->ncpus, "ring_slots", (int)f->ring_slots,
		"counters", "chains_started", (json_int_t)f->started,
		"chains_completed", (json_int_t)f->completed,
		"chains_abandoned", (json_int_t)f->abandoned,
		"chains_expired", (json_int_t)f->expired,
		"chains_overdue", (json_int_t)f->overdue,
		"deadline_misses", (json_int_t)f->misses,
		"records_emitted", (json_int_t)f->emitted, "records_read", (json_int_t)f->read,
		"drops", drops,
		"ring", "waiting", (json_int_t)waiting, "capacity", (json_int_t)cap,
		"fill", cap ? (double)waiting / cap : 0.0,
		"rtmond", "dir", rtmond_dir, "stats", f->rtmond_stats,
		"targets", tg));
}

/* compact latency: "123us", "12.3ms", "1.23s"; "-" for none */
static const char *dur(char *b, size_t n, uint64_t ns, int have)
{
	if (!have)
		snprintf(b, n, "-");
	else if (ns < 10000000ull)
		snprintf(b, n, "%" PRIu64 "us", ns / 1000);
	else if (ns < 10000000000ull)
		snprintf(b, n, "%.1fms", ns / 1e6);
	else
		snprintf(b, n, "%.2fs", ns / 1e9);
	return b;
}

static const char *ago(char *b, size_t n, const struct top_frame *f, uint64_t ns)
{
	double s;

	if (!ns)
		return "-";
	s = (f->now_ns > ns ? f->now_ns - ns : 0) / 1e9;
	if (s < 60)
		snprintf(b, n, "%.1fs ago", s);
	else if (s < 3600)
		snprintf(b, n, "%um%02us ago", (unsigned int)s / 60, (unsigned int)s % 60);
	else
		snprintf(b, n, "%.1fh ago", s / 3600);
	return b;
}

static void frame_header(const struct top_frame *f, double interval)
{
	uint64_t cap = (uint64_t)f->ring_slots * f->ncpus, waiting;
	char clock[16];
	time_t now = time(NULL);
	int i;

	strftime(clock, sizeof(clock), "%H:%M:%S", localtime(&now));
	waiting = ring_waiting(f);
	printf("rtmon %s on %s, %s, %u cpus - %s, every %.1f s%s\n", f->version, f->kernel,
	       f->state, f->ncpus, clock, interval,
	       f->rtmond_stats ? "" : " (no rtmond stats: p99 from the module's 2^n buckets)");
	printf("chains: %" PRIu64 " started, %" PRIu64 " completed, %" PRIu64 " misses, %"
	       PRIu64 " overdue, %" PRIu64 " abandoned, %" PRIu64 " expired\n", f->started,
	       f->completed, f->misses, f->overdue, f->abandoned, f->expired);
	printf("records: %" PRIu64 " emitted, %" PRIu64 " read; ring %" PRIu64 "/%" PRIu64
	       " waiting (%.1f%%)\n", f->emitted, f->read, waiting, cap,
	       cap ? 100.0 * waiting / cap : 0.0);
	printf("drops:");
	for (i = 0; i < TOP_NDROPS; i++)
		printf(" %s %" PRIu64 "%s", drop_names[i], f->drop[i], i < TOP_NDROPS - 1 ? "," : "\n");
}

static void frame_text(const struct top_frame *f, double interval, int tty, int first)
{
	char a[24], b[24], c[24], d[24], e[24], g[24], h[24], nm[RTMON_NAME_LEN * 4];
	unsigned int i;

	if (tty)
		fputs("\033[H\033[2J", stdout);
	else if (!first)
		putchar('\n');
	frame_header(f, interval);
	printf("\n%-3s %-16s %9s %10s %8s %8s %9s %8s %8s %8s %9s  %s\n", "ID", "TARGET",
	       "CHAINS/S", "COUNT", "MIN", "AVG", "P99", "MAX", "MISSES", "OVERDUE",
	       "DEADLINE", "LAST MISS");
	for (i = 0; i < f->ntargets; i++) {
		const struct top_target *t = &f->t[i];
		int have = t->chains > 0;

		if (t->have_rate)
			snprintf(g, sizeof(g), "%.1f", t->rate);
		else
			snprintf(g, sizeof(g), "-");
		snprintf(c, sizeof(c), "%s%s", have && !t->p99_fine ? "<=" : "",
			 dur(h, sizeof(h), t->p99_ns, have));
		/* target names are set by whoever added the target: escaped */
		printf("%-3u %-16.16s %9s %10" PRIu64 " %8s %8s %9s %8s %8" PRIu64 " %8" PRIu64
		       " %9s  %s\n", t->id, rtmon_term(nm, sizeof(nm), t->name[0] ? t->name : "-"),
		       g, t->chains,
		       dur(a, sizeof(a), t->min_ns, have), dur(b, sizeof(b), t->avg_ns, have), c,
		       dur(d, sizeof(d), t->max_ns, have), t->misses, t->overdue,
		       dur(e, sizeof(e), t->deadline_ns, t->deadline_ns > 0),
		       ago(h, sizeof(h), f, t->last_miss_ns));
	}
	if (!f->ntargets)
		printf("(no targets: rtmonctl targets add, or rtmond's configuration)\n");
	fflush(stdout);
}

/* ---- the command ---- */

const char top_usage[] =
	"usage: rtmonctl top [-i|--interval SECONDS] [-n|--iterations COUNT] [-d|--dir DIR]\n"
	"                    [--status FILE] [--json]\n"
	"A live view per target every SECONDS (default 1), COUNT times (default: until\n"
	"interrupted): chains/s, misses, percentiles and the last miss, from the\n"
	"module's /proc/rtmon/status (or a saved FILE) and rtmond's files in DIR.\n";

static double parse_interval(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.05) || v > 86400)
		usage_error("bad interval '%s' (seconds, 0.05 to 86400)", s);
	return v;
}

static long parse_count(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1)
		usage_error("bad iteration count '%s' (1 or more)", s);
	return v;
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t_ns / 1000000000ull),
		.tv_nsec = (long)(t_ns % 1000000000ull),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int cmd_top(int argc, char **argv, int json)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "dir", required_argument, NULL, 'd' },
		{ "status", required_argument, NULL, 's' },
		{ 0 }
	};
	const char *status = RTMON_STATUS_PATH;
	struct top_frame *f, *prev;
	double interval = 1;
	long n = -1, i;
	uint64_t start;
	int c, tty = isatty(STDOUT_FILENO);

	if (getenv("RTMON_DIR"))
		rtmond_dir = getenv("RTMON_DIR");
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:n:d:", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			interval = parse_interval(optarg);
			break;
		case 'n':
			n = parse_count(optarg);
			break;
		case 'd':
			rtmond_dir = optarg;
			break;
		case 's':
			status = optarg;
			break;
		default:
			usage_hint();
		}
	}
	if (optind < argc)
		usage_error("top: unexpected argument '%s'", argv[optind]);
	f = calloc(1, sizeof(*f));
	prev = calloc(1, sizeof(*prev));
	if (!f || !prev)
		fail(ENOMEM, "top");
	start = mono_ns();
	for (i = 0; n < 0 || i < n; i++) {
		struct top_frame *t;

		if (i)
			sleep_until(start + (uint64_t)(i * interval * 1e9));
		read_status(status, f);
		f->now_ns = mono_ns();
		add_percentiles(f);
		add_last_misses(f);
		add_rates(f, prev);
		if (json) {
			frame_json(f);
			fflush(stdout);
		} else {
			frame_text(f, interval, tty, !i);
		}
		t = prev;
		prev = f;
		f = t;
	}
	free(f);
	free(prev);
	return 0;
}

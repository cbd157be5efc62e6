// SPDX-License-Identifier: GPL-2.0
/*
 * test_budget - rtmond's snapshot disk budget (monitor/rtmond/budget.c) on
 * a scratch directory: snapshots go oldest first by load, then sequence
 * (the name miss-LOAD-SEQ), whatever their modification times say (set
 * with utimensat: 2030, 1970, now); loads are as old as DIR/snapshot-loads
 * lists them, the current one newest; max_age does not take the snapshots
 * of loads of this boot for older than the boot, nor ages one dated in the
 * future, and takes every older snapshot with an old one; names that are
 * not miss-LOAD-SEQ are left alone; the newest snapshot stays whole.
 *   test_budget WORKDIR
 * Prints PASS:/FAIL: lines, exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rtmond.h"

#define CHECK_AREA "budget"
#include "check.h"

/* what budget.c uses of the rest of rtmond */
char rtmond_load_tag[24];
char rtmond_load_key[64];
struct rtmond_counters rtmond_cnt;
static char logbuf[8192];

void rtmond_log(const char *fmt, ...)
{
	size_t n = strlen(logbuf);
	va_list ap;

	va_start(ap, fmt);
	if (n < sizeof(logbuf) - 2)
		vsnprintf(logbuf + n, sizeof(logbuf) - n - 1, fmt, ap);
	va_end(ap);
	strcat(logbuf, "\n");
}

#define Y2030	1893456000	/* 2030-01-01 00:00:00 UTC */
#define DAY	86400
#define BOOT	"6a0e1d2c-0000-4000-8000-00000000b007"	/* this boot's id */

static char root[160], dir[240];
static time_t now;

/* the log so far on one line */
static const char *log_line(void)
{
	static char out[sizeof(logbuf)];
	size_t i;

	for (i = 0; logbuf[i]; i++)
		out[i] = logbuf[i] == '\n' && logbuf[i + 1] ? '|' : logbuf[i] == '\n' ? 0 : logbuf[i];
	out[i] = 0;
	return out;
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)type;
	(void)f;
	remove(p);
	return 0;
}

/* a fresh DIR with ftrace/ and lttng/, the budget set on it */
static void setup(const char *name, const char *tag, uint64_t max_disk, uint64_t max_age_s)
{
	struct rtmond_config c;
	char p[600];

	snprintf(dir, sizeof(dir), "%.160s/%.60s", root, name);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	mkdir(dir, 0755);
	snprintf(p, sizeof(p), "%s/ftrace", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/lttng", dir);
	mkdir(p, 0755);
	memset(&c, 0, sizeof(c));
	snprintf(c.dir, sizeof(c.dir), "%s", dir);
	c.max_disk = max_disk;
	c.max_age_ns = max_age_s * 1000000000ull;
	snprintf(rtmond_load_tag, sizeof(rtmond_load_tag), "%s", tag);
	snprintf(rtmond_load_key, sizeof(rtmond_load_key), "%s/%s", BOOT, tag);
	rtmond_budget_set(&c);
	logbuf[0] = 0;
}

static void set_mtime(const char *p, time_t t)
{
	struct timespec ts[2] = { { t, 0 }, { t, 0 } };

	if (utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW)) {
		perror(p);
		exit(2);
	}
}

/* P of 1000 bytes, modified at t */
static void make_file(const char *p, time_t t)
{
	char buf[1000];
	FILE *f;

	memset(buf, 'x', sizeof(buf));
	f = fopen(p, "w");
	if (!f || fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) || fclose(f)) {
		perror(p);
		exit(2);
	}
	set_mtime(p, t);
}

/* DIR/ftrace/NAME of 1000 bytes, modified at t */
static void ftrace_file(const char *name, time_t t)
{
	char p[700];

	snprintf(p, sizeof(p), "%s/ftrace/%s", dir, name);
	make_file(p, t);
}

/* DIR/lttng/NAME/ust/data of 1000 bytes, the directory modified at t */
static void lttng_dir(const char *name, time_t t)
{
	char p[700];

	snprintf(p, sizeof(p), "%s/lttng/%s", dir, name);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/lttng/%s/ust", dir, name);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/lttng/%s/ust/data", dir, name);
	make_file(p, t);
	snprintf(p, sizeof(p), "%s/lttng/%s", dir, name);
	set_mtime(p, t);
}

static void write_loads(const char *text)
{
	char p[600];
	FILE *f;

	snprintf(p, sizeof(p), "%s/snapshot-loads", dir);
	f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(p);
		exit(2);
	}
}

/* what is left in ftrace/ and lttng/, sorted, one string "a b c" */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *left(void)
{
	static char out[2048];
	char *names[256], p[600];
	const char *sub[] = { "ftrace", "lttng" };
	struct dirent *e;
	int n = 0, i, s;
	DIR *d;

	for (s = 0; s < 2; s++) {
		snprintf(p, sizeof(p), "%s/%s", dir, sub[s]);
		d = opendir(p);
		while (d && (e = readdir(d)) && n < 256)
			if (e->d_name[0] != '.')
				names[n++] = strdup(e->d_name);
		if (d)
			closedir(d);
	}
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	out[0] = 0;
	for (i = 0; i < n; i++) {
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? " " : "", names[i]);
		free(names[i]);
	}
	return out;
}

static const char *loads_file(void)
{
	static char out[512];
	char p[600];
	size_t n = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/snapshot-loads", dir);
	f = fopen(p, "r");
	if (f) {
		n = fread(out, 1, sizeof(out) - 1, f);
		fclose(f);
	}
	out[n] = 0;
	return out;
}

static uint64_t uptime_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec;
}

int main(int argc, char **argv)
{
	const char *l;
	uint64_t up = uptime_s();

	snprintf(root, sizeof(root), "%s", argc > 1 ? argv[1] : "/tmp/test_budget");
	mkdir(root, 0755);
	now = time(NULL);

	/* max_disk: a copy dated 2030 is the oldest of its load by sequence */
	setup("order-2030", "c1", 2500, 0);
	ftrace_file("miss-c1-1.txt", Y2030);
	ftrace_file("miss-c1-2.txt", now - 400);
	ftrace_file("miss-c1-3.txt", now - 300);
	ftrace_file("miss-c1-4.txt", now - 200);
	ftrace_file("miss-c1-5.txt", now - 100);
	rtmond_budget_prune();
	l = left();
	check(!strcmp(l, "miss-c1-4.txt miss-c1-5.txt") &&
	      strstr(logbuf, "disk budget: removed the 3 oldest snapshot files"),
	      "order-2030 (max_disk: sequences 1-3 go, the one dated 2030 first)",
	      "left: %s; log: %s", l, log_line());

	/*
	 * max_age: this load's copies dated 1970 (the clock before NTP) are
	 * no older than the boot, younger than max_age (a day past the uptime)
	 */
	setup("age-1970", "c1", 0, up + DAY);
	ftrace_file("miss-c1-1.txt", 100);
	ftrace_file("miss-c1-2.txt", 101);
	ftrace_file("miss-c1-3.txt", 102);
	ftrace_file("miss-c1-4.txt", now - 10);
	rtmond_budget_prune();
	l = left();
	check(!strcmp(l, "miss-c1-1.txt miss-c1-2.txt miss-c1-3.txt miss-c1-4.txt") && !logbuf[0],
	      "age-1970 (max_age: the current load's snapshots dated 1970 are kept)",
	      "left: %s; log: %s", l, log_line());

	/*
	 * the same for an earlier load of this boot (the module reloaded);
	 * one of another boot dated 1970 is 1970's age
	 */
	setup("age-1970-reload", "c1", 0, up + DAY);
	write_loads("e0 0b0e0000-0000-4000-8000-000000000000\ne1 " BOOT "\n");
	ftrace_file("miss-e0-9.txt", 50);
	ftrace_file("miss-e1-1.txt", 100);
	ftrace_file("miss-e1-2.txt", 101);
	ftrace_file("miss-c1-1.txt", now - 10);
	rtmond_budget_prune();
	l = left();
	check(!strcmp(l, "miss-c1-1.txt miss-e1-1.txt miss-e1-2.txt") &&
	      strstr(logbuf, "disk budget: removed the 1 oldest snapshot files"),
	      "age-1970-reload (max_age: an earlier load of this boot dated 1970 kept, one of another boot removed)",
	      "left: %s; log: %s", l, log_line());

	/* max_age: an earlier load's old copy takes its older one, dated 2030, with it */
	setup("age-future", "c1", 0, 3600);
	ftrace_file("miss-e1-1.txt", Y2030);
	ftrace_file("miss-e1-2.txt", now - 3 * 3600);
	ftrace_file("miss-e1-3.txt", now - 60);
	ftrace_file("miss-c1-1.txt", now - 10);
	rtmond_budget_prune();
	l = left();
	check(!strcmp(l, "miss-c1-1.txt miss-e1-3.txt") &&
	      strstr(logbuf, "disk budget: removed the 2 oldest snapshot files"),
	      "age-future (max_age: a copy 3 h old goes, and the older one dated 2030 with it)",
	      "left: %s; log: %s", l, log_line());

	/* an earlier load's snapshots 3 h old go, the current load's stay */
	setup("age-earlier", "c1", 0, 3600);
	ftrace_file("miss-e1-7.txt", now - 3 * 3600);
	lttng_dir("miss-e1-7-20260101-000000-0", now - 3 * 3600);
	ftrace_file("miss-c1-1.txt", now - 10);
	rtmond_budget_prune();
	l = left();
	check(!strcmp(l, "miss-c1-1.txt"), "age-earlier (max_age: an earlier load's 3 h old copy and LTTng snapshot go)",
	      "left: %s; log: %s", l, log_line());

	/* loads as snapshot-loads orders them, whatever their dates */
	setup("loads", "c1", 2000, 0);
	write_loads("e1 -\ne2 0b0e0000-0000-4000-8000-000000000000\n");
	ftrace_file("miss-e1-5.txt", Y2030);
	ftrace_file("miss-e2-1.txt", now - 3600);
	ftrace_file("miss-c1-1.txt", now - 10);
	rtmond_budget_prune();
	l = left();
	check(!strcmp(l, "miss-c1-1.txt miss-e2-1.txt"),
	      "loads (max_disk: load e1, listed before e2, goes first though dated 2030)",
	      "left: %s; log: %s", l, log_line());
	l = loads_file();
	check(!strcmp(l, "e1 -\ne2 0b0e0000-0000-4000-8000-000000000000\nc1 " BOOT "\n"),
	      "loads-noted (the current load and its boot appended to snapshot-loads)",
	      "snapshot-loads: '%s'", l);

	/* loads not listed are older than the listed ones */
	setup("unlisted", "c1", 2000, 0);
	write_loads("e2 -\n");
	ftrace_file("miss-u1-1.txt", now - 60);
	ftrace_file("miss-e2-1.txt", now - 3600);
	ftrace_file("miss-c1-1.txt", now - 10);
	rtmond_budget_prune();
	l = left();
	check(!strcmp(l, "miss-c1-1.txt miss-e2-1.txt"),
	      "unlisted (max_disk: a load snapshot-loads does not list goes before a listed one)",
	      "left: %s; log: %s", l, log_line());

	/* a new DIR: the current load is written down as the first */
	setup("first-load", "c1", 1 << 20, 0);
	ftrace_file("miss-c1-1.txt", now - 10);
	rtmond_budget_prune();
	l = loads_file();
	check(!strcmp(l, "c1 " BOOT "\n"), "first-load (snapshot-loads created with the current load)",
	      "snapshot-loads: '%s'", l);

	/* names that are not miss-LOAD-SEQ: left alone, not counted */
	setup("unparsed", "c1", 1, 0);
	ftrace_file("miss-old.txt", now - 5000);
	ftrace_file("miss-12.txt", now - 5000);
	ftrace_file("miss-c1-x.txt", now - 5000);
	lttng_dir("miss-12-20260101-000000-0", now - 5000);
	ftrace_file("notours.txt", now - 5000);
	ftrace_file("miss-c1-1.txt", now - 100);
	ftrace_file("miss-c1-2.txt", now - 50);
	rtmond_budget_prune();
	l = left();
	check(!strcmp(l, "miss-12-20260101-000000-0 miss-12.txt miss-c1-2.txt miss-c1-x.txt miss-old.txt notours.txt") &&
	      strstr(logbuf, "4 files named miss-* are not miss-LOAD-SEQ"),
	      "unparsed (names not miss-LOAD-SEQ left alone and said, rtmond's own oldest removed)",
	      "left: %s; log: %s", l, log_line());

	/* the newest snapshot stays whole: its copy, explanation and LTTng trace */
	setup("newest-whole", "c1", 1, 0);
	ftrace_file("miss-c1-6.txt", now - 100);
	ftrace_file("miss-c1-7.txt", now - 10);
	ftrace_file("miss-c1-7.explain.jsonl", now - 9);
	lttng_dir("miss-c1-7-20260101-000000-0", now - 11);
	rtmond_budget_prune();
	l = left();
	check(!strcmp(l, "miss-c1-7-20260101-000000-0 miss-c1-7.explain.jsonl miss-c1-7.txt"),
	      "newest-whole (max_disk below one snapshot: its three files stay, the older one goes)",
	      "left: %s; log: %s", l, log_line());

	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return fails ? 1 : 0;
}

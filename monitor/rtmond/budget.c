// SPDX-License-Identifier: GPL-2.0
/*
 * budget.c - the disk budget of the snapshots (issue 21, item 10):
 * snapshot.max_disk bytes and snapshot.max_age of ftrace copies and their
 * explanations (DIR/ftrace/miss-*) and local LTTng snapshots
 * (DIR/lttng/miss-*, when lttng_output is the default). Over the budget,
 * the oldest go first (by modification time); the newest one is always
 * kept. Run by the snapshot worker after each snapshot and when the
 * configuration is set, never by the real-time reader. The JSON line files
 * are logrotate's (rtmond reopens them on SIGHUP and when they are moved).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rtmond.h"

struct snap_file {
	char path[600];
	time_t mtime;
	uint64_t bytes;
	int dir;
};

static char ftrace_dir[300], lttng_dir[300];	/* "" when not ours */
static uint64_t max_disk, max_age_ns;

/* nftw() takes no argument: the worker alone walks, one walk at a time */
static uint64_t walk_bytes;

void rtmond_budget_set(const struct rtmond_config *c)
{
	snprintf(ftrace_dir, sizeof(ftrace_dir), "%s/ftrace", c->dir);
	if (c->lttng_output[0])
		lttng_dir[0] = 0;	/* a relay or a directory of the user's */
	else
		snprintf(lttng_dir, sizeof(lttng_dir), "%s/lttng", c->dir);
	max_disk = c->max_disk;
	max_age_ns = c->max_age_ns;
}

static int add_bytes(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)p;
	(void)f;
	if (type == FTW_F)
		walk_bytes += (uint64_t)st->st_size;
	return 0;
}

static int remove_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)type;
	(void)f;
	if (remove(p) && errno != ENOENT)
		rtmond_log("disk budget: cannot remove %s: %s", p, strerror(errno));
	return 0;
}

/* Append DIR's miss-* entries to *v (n used, cap allocated). */
/* NAME.tmp: a copy or an explanation being written (renamed when whole) */
static int is_tmp(const char *name, size_t len)
{
	return len > 4 && !strcmp(name + len - 4, ".tmp");
}

static void list_dir(const char *dir, struct snap_file **v, size_t *n, size_t *cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct snap_file *f;
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, "miss-", 5) || is_tmp(e->d_name, len))
			continue;	/* not a snapshot, or one being copied */
		if (*n == *cap) {
			struct snap_file *nv = realloc(*v, (*cap ? *cap * 2 : 64) * sizeof(**v));

			if (!nv)
				break;
			*v = nv;
			*cap = *cap ? *cap * 2 : 64;
		}
		f = &(*v)[*n];
		snprintf(f->path, sizeof(f->path), "%s/%s", dir, e->d_name);
		if (lstat(f->path, &st))
			continue;
		f->mtime = st.st_mtime;
		f->dir = S_ISDIR(st.st_mode);
		if (f->dir) {
			walk_bytes = 0;
			nftw(f->path, add_bytes, 16, FTW_PHYS);
			f->bytes = walk_bytes;
		} else if (S_ISREG(st.st_mode)) {
			f->bytes = (uint64_t)st.st_size;
		} else {
			continue;
		}
		(*n)++;
	}
	closedir(d);
}

/*
 * Only the snapshot worker writes NAME.tmp, and it renames or removes each
 * before its next job: at start (and reload), any miss-*.tmp was cut short
 * by a run that stopped (killed) during it. Its miss line names a file
 * that will never exist: say which, and remove the part. Run by the worker.
 */
void rtmond_budget_remove_cut_short(void)
{
	DIR *d = ftrace_dir[0] ? opendir(ftrace_dir) : NULL;
	struct dirent *e;
	char p[600];

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, "miss-", 5) || !is_tmp(e->d_name, len))
			continue;
		snprintf(p, sizeof(p), "%s/%s", ftrace_dir, e->d_name);
		if (unlink(p) && errno != ENOENT)
			rtmond_log("snapshot: cannot remove %s: %s", p, strerror(errno));
		else
			rtmond_log("snapshot: %.*s was cut short when rtmond stopped "
				   "(killed?): removed %s, its miss line names no file",
				   (int)(len - 4), e->d_name, e->d_name);
	}
	closedir(d);
}

static int by_age(const void *a, const void *b)
{
	const struct snap_file *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->path, y->path);
}

void rtmond_budget_prune(void)
{
	struct snap_file *v = NULL;
	size_t n = 0, cap = 0, i, removed = 0;
	uint64_t total = 0, freed = 0;
	time_t now = time(NULL);

	if (!max_disk && !max_age_ns)
		return;
	if (ftrace_dir[0])
		list_dir(ftrace_dir, &v, &n, &cap);
	if (lttng_dir[0])
		list_dir(lttng_dir, &v, &n, &cap);
	qsort(v, n, sizeof(*v), by_age);
	for (i = 0; i < n; i++)
		total += v[i].bytes;
	for (i = 0; i + 1 < n; i++) {	/* the newest stays */
		int old = max_age_ns && now > v[i].mtime &&
			  (uint64_t)(now - v[i].mtime) * 1000000000ull > max_age_ns;

		if (!old && (!max_disk || total <= max_disk))
			continue;
		if (v[i].dir)
			nftw(v[i].path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
		else if (unlink(v[i].path) && errno != ENOENT)
			rtmond_log("disk budget: cannot remove %s: %s", v[i].path, strerror(errno));
		total -= v[i].bytes;
		freed += v[i].bytes;
		removed++;
	}
	free(v);
	if (removed) {
		CNT_ADD(snap_pruned, removed);
		rtmond_log("disk budget: removed the %zu oldest snapshot files (%.1f MiB); %.1f MiB "
			   "kept (snapshot.max_disk %.1f MiB%s)", removed, freed / 1048576.0,
			   total / 1048576.0, max_disk / 1048576.0,
			   max_age_ns ? ", max_age" : "");
	}
}

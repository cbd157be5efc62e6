// SPDX-License-Identifier: GPL-2.0
/*
 * budget.c - the disk budget of the snapshots: snapshot.max_disk bytes and
 * snapshot.max_age of ftrace copies and their explanations
 * (DIR/ftrace/miss-*) and local LTTng snapshots (DIR/lttng/miss-*, when
 * lttng_output is the default). Run by the snapshot worker after each
 * snapshot and when the configuration is set, never by the real-time
 * reader. The JSON line files are bounded by their rotation (lines.c).
 *
 * Snapshots are ordered by their names, miss-LOAD-SEQ, never by the wall
 * clock (a board may boot at 1970 until NTP, or have been set to 2030):
 * by load, then by sequence (the module's, which only grows within a
 * load). Load tags are random, so DIR/snapshot-loads lists the loads in
 * the order rtmond met them, oldest first, each with its boot ("TAG
 * BOOT_ID" lines); the current load is the newest, loads it does not list
 * are older than those it lists (among themselves, by their newest
 * modification time). The oldest go first, a whole snapshot (copy,
 * explanation, LTTng trace of one sequence) at a time, never one while an
 * older one stays; the newest always stays. max_age judges by the
 * modification time, but a snapshot of a load met in this boot is no
 * older than the boot (CLOCK_BOOTTIME), and one dated in the future is
 * not aged. Names under miss-* that are not miss-LOAD-SEQ cannot be placed
 * in that order: they are left alone and not counted.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rtmond.h"

#define TAG_LEN		24		/* rtmond_load_tag */
#define BOOT_LEN	40		/* a boot id (a UUID) */
#define MAX_LOADS	256		/* lines of snapshot-loads kept */

/* a line of snapshot-loads: a load and the boot it was met in ("-": unknown) */
struct load {
	char tag[TAG_LEN];
	char boot[BOOT_LEN];
};

struct snap_file {
	char path[600];
	char tag[TAG_LEN];
	uint64_t seq;
	time_t mtime;
	time_t load_mtime;	/* newest of its load (unlisted loads only) */
	uint64_t bytes;
	int dir;
	int load;		/* its load's place: higher is newer */
	int this_boot;		/* of a load met in this boot */
};

static char ftrace_dir[300], lttng_dir[300];	/* "" when not ours */
static char loads_path[300];
static uint64_t max_disk, max_age_ns;
static int loads_noted;		/* this configuration wrote down its load */

/* nftw() takes no argument: the worker alone walks, one walk at a time */
static uint64_t walk_bytes;

void rtmond_budget_set(const struct rtmond_config *c)
{
	snprintf(ftrace_dir, sizeof(ftrace_dir), "%s/ftrace", c->dir);
	if (c->lttng_output[0])
		lttng_dir[0] = 0;	/* a relay or a directory of the user's */
	else
		snprintf(lttng_dir, sizeof(lttng_dir), "%s/lttng", c->dir);
	snprintf(loads_path, sizeof(loads_path), "%s/snapshot-loads", c->dir);
	max_disk = c->max_disk;
	max_age_ns = c->max_age_ns;
	loads_noted = 0;
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

/* NAME.tmp: a copy or an explanation being written (renamed when whole) */
static int is_tmp(const char *name, size_t len)
{
	return len > 4 && !strcmp(name + len - 4, ".tmp");
}

/* n decimal digits at p */
static int digits(const char *p, int n)
{
	while (n--)
		if (!isdigit((unsigned char)*p++))
			return 0;
	return 1;
}

/*
 * miss-TAG-SEQ, then nothing, ".SUFFIX" (the ftrace copy, its
 * explanation) or LTTng's "-YYYYMMDD-HHMMSS-N": 1 with TAG and SEQ.
 */
static int parse_name(const char *name, char *tag, uint64_t *seq)
{
	const char *p = name + 5, *t = p;
	uint64_t v = 0;
	size_t n;

	while (isalnum((unsigned char)*p))
		p++;
	n = (size_t)(p - t);
	if (!n || n >= TAG_LEN || *p++ != '-' || !isdigit((unsigned char)*p))
		return 0;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '-') {
		if (!digits(p + 1, 8) || p[9] != '-' || !digits(p + 10, 6) || p[16] != '-' ||
		    !isdigit((unsigned char)p[17]))
			return 0;
		for (p += 17; isdigit((unsigned char)*p); p++)
			;
	}
	if (*p && *p != '.')
		return 0;
	memcpy(tag, t, n);
	tag[n] = 0;
	*seq = v;
	return 1;
}

/*
 * Append DIR's snapshots to *v (n used, cap allocated); *odd counts the
 * miss-* names that are not miss-LOAD-SEQ.
 */
static void list_dir(const char *dir, struct snap_file **v, size_t *n, size_t *cap, size_t *odd)
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
		if (!parse_name(e->d_name, f->tag, &f->seq)) {
			(*odd)++;
			continue;
		}
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

/* this boot's id, from rtmond_load_key ("BOOT/TAG"); "" when unknown */
static const char *this_boot(void)
{
	static char boot[BOOT_LEN];
	size_t l = strcspn(rtmond_load_key, "/");

	if (l >= BOOT_LEN || !rtmond_load_key[l] || (l == 1 && rtmond_load_key[0] == '-'))
		l = 0;
	memcpy(boot, rtmond_load_key, l);
	boot[l] = 0;
	return boot;
}

/* 1 when [p, p + l) is a word of letters, digits and '-', shorter than max */
static int word(const char *p, size_t l, size_t max)
{
	size_t i;

	for (i = 0; i < l; i++)
		if (!isalnum((unsigned char)p[i]) && p[i] != '-')
			return 0;
	return l && l < max;
}

/* DIR/snapshot-loads ("TAG BOOT" lines) into loads[] (oldest first, each once): how many */
static int read_loads(struct load *loads)
{
	int fd = open(loads_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), n = 0, i;
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	char line[128];

	if (!f) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (n < MAX_LOADS && fgets(line, sizeof(line), f)) {
		size_t l = strcspn(line, "\n"), t = strcspn(line, " ");
		int c;

		if (!line[l] && !feof(f)) {	/* too long for a load: skip it */
			while ((c = getc(f)) != EOF && c != '\n')
				;
			continue;
		}
		line[l] = 0;
		if (t >= l || !word(line, t, TAG_LEN) || memchr(line, '-', t) ||
		    !word(line + t + 1, l - t - 1, BOOT_LEN))
			continue;	/* not a load */
		line[t] = 0;
		for (i = 0; i < n && strcmp(loads[i].tag, line); i++)
			;
		if (i < n)
			continue;
		memcpy(loads[n].tag, line, t + 1);
		memcpy(loads[n++].boot, line + t + 1, l - t);
	}
	fclose(f);
	return n;
}

static int has_load(const struct snap_file *v, size_t n, const char *tag)
{
	size_t j;

	for (j = 0; j < n; j++)
		if (!strcmp(v[j].tag, tag))
			return 1;
	return 0;
}

/*
 * Write down the current load as the newest, after the listed loads that
 * still have snapshots (v, n; the newest MAX_LOADS - 1 of them): what
 * orders the loads from now on.
 */
static void note_load(struct load *loads, int *nloads, const struct snap_file *v, size_t n)
{
	const char *cur = rtmond_load_tag, *boot = this_boot();
	int i, k = 0, keep = 0, skip, same;
	char tmp[310];
	FILE *f;
	int fd;

	if (!cur[0])
		return;
	same = *nloads && !strcmp(loads[*nloads - 1].tag, cur) &&
	       !strcmp(loads[*nloads - 1].boot, boot[0] ? boot : "-");
	for (i = 0; i < *nloads; i++)
		if (strcmp(loads[i].tag, cur) && has_load(v, n, loads[i].tag))
			keep++;
	skip = keep > MAX_LOADS - 1 ? keep - (MAX_LOADS - 1) : 0;
	for (i = 0; i < *nloads; i++) {
		if (!strcmp(loads[i].tag, cur) || !has_load(v, n, loads[i].tag) || skip-- > 0)
			continue;
		if (k != i)
			loads[k] = loads[i];
		k++;
	}
	same = same && k == *nloads - 1;
	snprintf(loads[k].tag, TAG_LEN, "%s", cur);
	snprintf(loads[k++].boot, BOOT_LEN, "%s", boot[0] ? boot : "-");
	*nloads = k;
	if (same)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", loads_path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f && fd >= 0)
		close(fd);
	if (f) {
		for (i = 0; i < k; i++)
			fprintf(f, "%s %s\n", loads[i].tag, loads[i].boot);
		if (fflush(f) || fsync(fileno(f))) {
			fclose(f);
			f = NULL;
		} else if (fclose(f)) {
			f = NULL;
		}
	}
	if (!f || rename(tmp, loads_path)) {
		rtmond_log("disk budget: cannot write %s: %s (the loads it does not list "
			   "are ordered by date)", loads_path, strerror(errno));
		unlink(tmp);
	}
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

static int by_tag(const void *a, const void *b)
{
	return strcmp(((const struct snap_file *)a)->tag, ((const struct snap_file *)b)->tag);
}

/* oldest first: by load, then sequence; the files of one snapshot by name */
static int by_age(const void *a, const void *b)
{
	const struct snap_file *x = a, *y = b;
	int c;

	if (x->load != y->load)
		return x->load < y->load ? -1 : 1;
	if (x->load < 0 && x->load_mtime != y->load_mtime)
		return x->load_mtime < y->load_mtime ? -1 : 1;
	if ((c = strcmp(x->tag, y->tag)))
		return c;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->path, y->path);
}

/*
 * The place of each snapshot's load: in loads[] (oldest first), -1 when
 * not listed; the current load's is after all.
 */
static void place_loads(struct snap_file *v, size_t n, const struct load *loads, int nloads)
{
	const char *boot = this_boot();
	size_t i, j, k;
	int l, now;

	qsort(v, n, sizeof(*v), by_tag);
	for (i = 0; i < n; i = j) {
		time_t newest = v[i].mtime;

		for (j = i + 1; j < n && !strcmp(v[j].tag, v[i].tag); j++)
			if (v[j].mtime > newest)
				newest = v[j].mtime;
		for (l = 0; l < nloads && strcmp(loads[l].tag, v[i].tag); l++)
			;
		now = !strcmp(v[i].tag, rtmond_load_tag) ||
		      (l < nloads && boot[0] && !strcmp(loads[l].boot, boot));
		if (!strcmp(v[i].tag, rtmond_load_tag))
			l = MAX_LOADS;
		else if (l == nloads)
			l = -1;
		for (k = i; k < j; k++) {
			v[k].load = l;
			v[k].load_mtime = newest;
			v[k].this_boot = now;
		}
	}
}

static int same_snapshot(const struct snap_file *x, const struct snap_file *y)
{
	return x->seq == y->seq && !strcmp(x->tag, y->tag);
}

/*
 * Older than max_age by its modification time; a snapshot of a load met
 * in this boot was taken since the boot, whatever the wall clock says.
 */
static int too_old(const struct snap_file *f, time_t now, uint64_t since_boot)
{
	uint64_t age;

	if (f->mtime >= now)
		return 0;	/* dated in the future: its age is unknown */
	age = (uint64_t)now - (uint64_t)f->mtime;
	if (f->this_boot && age > since_boot)
		age = since_boot;
	return age > UINT64_MAX / 1000000000ull || age * 1000000000ull > max_age_ns;
}

static uint64_t boot_seconds(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts))
		return UINT64_MAX;
	return (uint64_t)ts.tv_sec;
}

/* remove f, counted in *total, *freed, *removed */
static void remove_file(const struct snap_file *f, uint64_t *total, uint64_t *freed, size_t *removed)
{
	if (f->dir)
		nftw(f->path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	else if (unlink(f->path) && errno != ENOENT)
		rtmond_log("disk budget: cannot remove %s: %s", f->path, strerror(errno));
	*total -= f->bytes;
	*freed += f->bytes;
	(*removed)++;
}

void rtmond_budget_prune(void)
{
	static struct load loads[MAX_LOADS];
	struct snap_file *v = NULL;
	size_t n = 0, cap = 0, i, j, odd = 0, removed = 0, newest, old_end = 0;
	uint64_t total = 0, freed = 0, since_boot = boot_seconds();
	time_t now = time(NULL);
	int nloads;

	if (!max_disk && !max_age_ns && loads_noted)
		return;
	if (ftrace_dir[0])
		list_dir(ftrace_dir, &v, &n, &cap, &odd);
	if (lttng_dir[0])
		list_dir(lttng_dir, &v, &n, &cap, &odd);
	nloads = read_loads(loads);
	if (!loads_noted) {
		loads_noted = 1;
		note_load(loads, &nloads, v, n);
		if (odd)
			rtmond_log("disk budget: %zu files named miss-* are not miss-LOAD-SEQ "
				   "(an older rtmond's, or not rtmond's): left alone, not counted", odd);
	}
	if (!n || (!max_disk && !max_age_ns)) {
		free(v);
		return;
	}
	place_loads(v, n, loads, nloads);
	qsort(v, n, sizeof(*v), by_age);
	for (i = 0; i < n; i++)
		total += v[i].bytes;
	/* the newest snapshot, all its files, stays */
	for (newest = n; newest > 0 && same_snapshot(&v[newest - 1], &v[n - 1]); newest--)
		;
	/* an old snapshot takes every older one with it */
	for (i = 0; max_age_ns && i < newest; i++)
		if (too_old(&v[i], now, since_boot))
			old_end = i + 1;
	for (i = 0; i < newest; i = j) {
		for (j = i + 1; j < newest && same_snapshot(&v[j], &v[i]); j++)
			;
		if (i >= old_end && (!max_disk || total <= max_disk))
			break;
		for (; i < j; i++)
			remove_file(&v[i], &total, &freed, &removed);
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

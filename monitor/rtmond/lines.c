// SPDX-License-Identifier: GPL-2.0
/*
 * lines.c - misses.jsonl and records.jsonl: opened for appending, reopened
 * when logrotate moves them, and the lines of the writer's batches stored
 * in order from a cursor (struct rtmond_lines, writer.c's).
 *
 * Every line before the cursor is stored, none after it: a write that
 * fails (a full disk, an I/O error) stores the lines before it whole, cuts
 * back what it left of the next, and leaves the cursor there, where the
 * next try begins. A record's records.jsonl line goes before its
 * misses.jsonl one: a restart takes what misses.jsonl's tail holds as
 * stored (seq_scan_tail) and would not write the other.
 *
 * A file is rotated (rotate.c) before a line that would take it past
 * snapshot.max_file_size, between two lines: each line is in one file,
 * whole.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "rtmond.h"
#include "rtmon_format.h"

/* a half line a cut left (ftruncate failed): cut before that file's next write */
static int half_fd = -1;
static off_t half_end;

void rtmond_lines_forget(void)
{
	half_fd = -1;
}

/*
 * A line file (misses.jsonl, records.jsonl) for appending. A crash or a
 * full disk may have left its last line without a newline: one is added,
 * so that the next line starts clean instead of being glued to it.
 */
int rtmond_open_lines(const char *dir, const char *name)
{
	char p[512], c;
	int fd;
	off_t end;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	/* O_NOFOLLOW: never write through a symlink left in the directory */
	fd = open(p, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0) {
		rtmond_log("cannot open %s: %s", p, strerror(errno));
		return -1;
	}
	end = lseek(fd, 0, SEEK_END);
	if (end > 0 && pread(fd, &c, 1, end - 1) == 1 && c != '\n') {
		if (write(fd, "\n", 1) == 1)
			rtmond_log("%s ended in the middle of a line (a crash or a full disk): "
				   "that line is cut", p);
	}
	return fd;
}

/*
 * logrotate (or a user) moved or removed a line file: the next lines go
 * to a new one at the path, in the mode and owner rotation left there.
 */
void rtmond_reopen_moved(const char *dir, const char *name, int *fd)
{
	struct stat a, b;
	char p[512];
	int nfd;

	if (*fd < 0)
		return;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (!stat(p, &a) && !fstat(*fd, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
		return;
	nfd = rtmond_open_lines(dir, name);
	if (nfd < 0)
		return;		/* logged; the old file still takes the lines */
	if (half_fd == *fd)
		half_fd = -1;
	close(*fd);
	*fd = nfd;
	rtmond_log("%s was moved or removed (logrotate?): reopened", p);
}

/* a rotation that failed is tried again after this, not at every line */
#define ROTATE_RETRY_NS	10000000000ull
/* per file: one refused leaves the other's bound alone */
static struct {
	const char *name;
	uint64_t after;
} rotate_wait[] = { { "misses.jsonl", 0 }, { "records.jsonl", 0 } };

static uint64_t *rotate_after(const char *name)
{
	return &rotate_wait[strcmp(name, "misses.jsonl") ? 1 : 0].after;
}

/*
 * *fd's file (DIR/NAME) to NAME.1 and a new one at the path; 0, or the
 * errno (logged; the lines go on to the old file: stored past the bound
 * rather than not at all). Its lines are on disk before the rename, the
 * new name in the directory before any acknowledgement they back.
 */
static int rotate(const struct rtmond_config *c, int *fd, const char *name)
{
	const char *what = "ftruncate";
	uint64_t now = rtmond_mono_ns();
	int e = 0, nfd = -1;

	if (now < *rotate_after(name))
		return EAGAIN;
	if (*fd == half_fd && ftruncate(*fd, half_end))
		e = errno;
	else if (*fd == half_fd)
		half_fd = -1;
	if (!e) {
		what = "fdatasync";
		if (fdatasync(*fd))
			e = errno;
	}
	if (!e) {
		what = "rename";
		e = rtmond_rotate_names(c->dir, name, c->keep_files);
	}
	if (!e) {
		what = "open";
		nfd = rtmond_open_lines(c->dir, name);
		e = nfd < 0 ? EIO : 0;
	}
	if (e) {
		CNT_ADD(write_errors, 1);
		*rotate_after(name) = now + ROTATE_RETRY_NS;
		rtmond_log("cannot rotate %s/%s (%s: %s): its lines go on in it past "
			   "max_file_size, tried again in 10 s", c->dir, name, what, strerror(e));
		return e;
	}
	close(*fd);
	*fd = nfd;
	e = rtmond_rotate_sync_dir(c->dir);
	if (e) {
		CNT_ADD(write_errors, 1);
		rtmond_log("rotating %s/%s: cannot sync the directory: %s", c->dir, name,
			   strerror(e));
	}
	return 0;
}

/* The end of *fd's file as the next write finds it (a pending cut done). */
static off_t lines_end(int fd)
{
	return fd == half_fd ? half_end : lseek(fd, 0, SEEK_END);
}

/* The whole lines of text[0, n) that fit in room bytes: their length, *k of them. */
static size_t lines_fit(const char *text, size_t n, uint64_t room, unsigned int *k)
{
	size_t part = 0, i;

	*k = 0;
	for (i = 0; i < n && i < room; i++)
		if (text[i] == '\n') {
			part = i + 1;
			(*k)++;
		}
	return part;
}

/*
 * The part of the lines text[0, n) to write to *fd's file now: all of
 * them, or those that keep it within max_file_size, rotating first when
 * not even the first one does. A line longer than the bound gets a file
 * of its own; a rotation that fails leaves the bound to the next try.
 */
static size_t lines_now(const struct rtmond_config *c, int *fd, const char *name,
			const char *text, size_t n, unsigned int lines, unsigned int *k)
{
	off_t end = c->max_file_size ? lines_end(*fd) : -1;
	uint64_t max = c->max_file_size;
	const char *nl;
	size_t part;

	*k = lines;
	/* within the bound, or none (an lseek error is the write's to say) */
	if (end < 0 || (uint64_t)end + n <= max)
		return n;
	if ((uint64_t)end < max) {
		part = lines_fit(text, n, max - (uint64_t)end, k);
		if (part)
			return part;
	}
	if (end > 0 && rotate(c, fd, name)) {
		*k = lines;
		return n;
	}
	part = lines_fit(text, n, max, k);
	if (part)
		return part;
	nl = memchr(text, '\n', n);	/* one line longer than the bound: a file of its own */
	*k = nl ? 1 : lines;
	return nl ? (size_t)(nl - text) + 1 : n;
}

/*
 * Whole lines in one write (O_APPEND): a reader never sees half a line.
 * They are stored in order up to the first that does not fit and none
 * after it: what a short write left of that one is cut back, so that no
 * half line is glued to the next. Returns the lines stored; *err is the
 * errno of the failed write (counted), 0 when all are stored.
 */
static unsigned int write_lines(int fd, const char *text, size_t n, unsigned int lines, int *err)
{
	unsigned int done = 0;
	size_t off = 0, keep = 0, k;
	off_t end;
	ssize_t w;

	*err = 0;
	if (fd == half_fd && ftruncate(fd, half_end))
		*err = errno;
	else if (fd == half_fd)
		half_fd = -1;
	end = *err ? -1 : lseek(fd, 0, SEEK_END);
	if (end < 0 && !*err)
		*err = errno;
	while (!*err && off < n) {
		w = write(fd, text + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			*err = w < 0 ? errno : ENOSPC;
		else
			off += (size_t)w;
	}
	if (!*err)
		return lines;
	CNT_ADD(write_errors, 1);
	for (k = 0; k < off; k++)
		if (text[k] == '\n') {
			done++;
			keep = k + 1;
		}
	if (keep < off && ftruncate(fd, end + (off_t)keep)) {
		half_fd = fd;
		half_end = end + (off_t)keep;
	}
	return done;
}

/*
 * Lines to DIR/NAME (*fd), rotated within them as max_file_size says:
 * write_lines() for each part, the same result.
 */
static unsigned int store(const struct rtmond_config *c, int *fd, const char *name,
			  const char *text, size_t n, unsigned int lines, int *err)
{
	unsigned int done = 0, k;
	size_t part;

	for (;;) {
		part = lines_now(c, fd, name, text, n, lines, &k);
		done += write_lines(*fd, text, part, k, err);
		if (*err || part == n)
			return done;
		text += part;
		n -= part;
		lines -= k;
	}
}

static int miss_wanted(const struct rtmond_lines *w, const struct rtm_record *r)
{
	return (r->flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT)) && w->misses_fd >= 0;
}

/* The cursor past a line of its record, now stored. */
static void cur_step(struct rtmond_lines *w, const struct rtmond_batch *b)
{
	if (!w->rec_done && w->records_fd >= 0 && miss_wanted(w, &b->recs[w->i])) {
		w->rec_done = 1;
	} else {
		w->i++;
		w->rec_done = 0;
	}
	w->stored++;
}

/*
 * records.jsonl's lines of a batch, written together: formatted without
 * jansson (rtmon_record_json_line()), one write a batch. Through jansson
 * and a write a line, rtmond took about 95,000 instructions a record.
 * The buffer holds the lines of the records from the cursor on, in order.
 */
static char rec_buf[RTMOND_BATCH * 2048];
static size_t rec_used;
static unsigned int rec_lines;

/* 0 when the buffered lines are stored, else the errno */
static int rec_flush(struct rtmond_lines *w, const struct rtmond_batch *b)
{
	unsigned int k = 0;
	int e = 0;

	if (rec_lines)
		k = store(&b->live->conf, &w->records_fd, "records.jsonl", rec_buf, rec_used,
			  rec_lines, &e);
	if (k)
		w->rec_unsynced = 1;
	while (k--)
		cur_step(w, b);
	rec_used = 0;
	rec_lines = 0;
	if (e)
		w->failed = "records.jsonl";
	return e;
}

static json_t *snap_json(const struct rtmond_config *c, const struct rtmond_snap_plan *p,
			 const struct rtm_record *r)
{
	json_t *o = json_object();
	uint64_t since = rtmond_snap_ftrace_since();

	if (p->id)
		json_object_set_new(o, "id", json_integer((json_int_t)p->id));
	if (p->ftrace[0]) {
		char f[600];

		snprintf(f, sizeof(f), "%s/%s", c->dir, p->ftrace);
		json_object_set_new(o, "ftrace", json_string(f));
		/* records from before the instance (a restart) are not all in it */
		json_object_set_new(o, "ftrace_from_start", json_boolean(since && r->start_ns >= since));
		if (p->explain[0]) {
			snprintf(f, sizeof(f), "%s/%s", c->dir, p->explain);
			json_object_set_new(o, "explain", json_string(f));
		}
	} else {
		json_object_set_new(o, "ftrace", json_null());
	}
	if (p->lttng[0]) {
		char lo[600];

		/* the snapshot is the directory NAME-DATE-TIME-N under the output */
		if (c->lttng_output[0])
			snprintf(lo, sizeof(lo), "%s", c->lttng_output);
		else
			snprintf(lo, sizeof(lo), "%s/lttng", c->dir);
		json_object_set_new(o, "lttng", json_pack("{s:s, s:s}", "name", p->lttng,
			"output", lo));
	}
	else
		json_object_set_new(o, "lttng", json_null());
	json_object_set_new(o, "lttng_domains", json_string(rtmond_snap_lttng_state()));
	if (p->skipped)
		json_object_set_new(o, "skipped", json_string(p->skipped));
	/* taken after the worker's earlier job: what wrapped out is lost */
	if (p->deferred)
		json_object_set_new(o, "deferred", json_true());
	return o;
}

/*
 * A line through jansson, for a string only its path handles as it always
 * did (refused); misses.jsonl's with the snapshot (plan). 0 when stored,
 * the errno of a failed write, -1 when the record cannot be JSON at all.
 */
static int json_line(const struct rtmond_batch *b, int i, int *fd, const char *file,
		     const struct rtmond_snap_plan *plan, const char *boot_id, const char *load_id)
{
	json_t *j = rtmon_record_json(&b->recs[i], b->names[i]);
	char *s, *line;
	size_t n;
	int e;

	if (!j)
		return -1;
	json_object_set_new(j, "read_ns", json_integer((json_int_t)b->read_ns));
	json_object_set_new(j, "wall_ns", json_integer((json_int_t)(b->recs[i].end_ns +
								(uint64_t)b->wall_off_ns)));
	/* the boot its monotonic times belong to */
	if (boot_id[0])
		json_object_set_new(j, "boot_id", json_string(boot_id));
	/* the module load its seq belongs to (the snapshot names' tag) */
	if (load_id)
		json_object_set_new(j, "load_id", json_string(load_id));
	if (plan)
		json_object_set_new(j, "snapshot", snap_json(&b->live->conf, plan, &b->recs[i]));
	s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (!s)
		return -1;
	n = strlen(s);
	line = realloc(s, n + 2);
	if (!line) {
		free(s);
		return ENOMEM;
	}
	line[n] = '\n';
	store(&b->live->conf, fd, file, line, n + 1, 1, &e);
	free(line);
	return e;
}

/* record i's line into rec_buf: 0, or the errno of a write, -1: no JSON */
static int rec_add(struct rtmond_lines *w, const struct rtmond_batch *b, int i,
		   const char *boot_id, const char *load_id)
{
	const struct rtm_record *r = &b->recs[i];
	size_t n = rtmon_record_json_line(rec_buf + rec_used, sizeof(rec_buf) - rec_used,
					  r, b->names[i], b->read_ns, b->wall_off_ns,
					  boot_id, load_id);
	int e;

	if (!n && rec_used) {	/* no room left: what is there first */
		e = rec_flush(w, b);
		if (e)
			return e;
		n = rtmon_record_json_line(rec_buf, sizeof(rec_buf), r, b->names[i], b->read_ns,
					   b->wall_off_ns, boot_id, load_id);
	}
	if (n) {
		rec_used += n;
		rec_lines++;
		return 0;
	}
	/* only jansson's path writes it; the buffer is empty, the cursor here */
	e = json_line(b, i, &w->records_fd, "records.jsonl", NULL, boot_id, load_id);
	if (e > 0) {
		w->failed = "records.jsonl";
	} else if (!e) {
		w->rec_unsynced = 1;
		cur_step(w, b);
	}
	return e;
}

/*
 * A miss's line in misses.jsonl: the record's line with "snapshot" (from
 * jansson: a few a second at most, rate-limited) added last, which is what
 * jansson's dump of the whole object gives. 0 stored, the errno of a
 * failed write, -1 when only jansson's path can write it.
 */
static int miss_line(int *fd, const struct rtmond_config *c, const struct rtmond_snap_plan *plan,
		     const struct rtm_record *r, const char *name, uint64_t read_ns,
		     int64_t wall_off_ns, const char *boot_id, const char *load_id)
{
	static char buf[16384];
	size_t n = rtmon_record_json_line(buf, sizeof(buf), r, name, read_ns, wall_off_ns,
					  boot_id, load_id);
	static const char key[] = ",\"snapshot\":";
	json_t *sj;
	char *ss;
	size_t k;
	int e;

	if (!n)
		return -1;
	sj = snap_json(c, plan, r);
	ss = sj ? json_dumps(sj, JSON_COMPACT) : NULL;
	json_decref(sj);
	if (!ss)
		return -1;
	k = strlen(ss);
	n -= 2;		/* the record's "}\n" */
	if (n + sizeof(key) - 1 + k + 2 > sizeof(buf)) {
		free(ss);
		return -1;
	}
	memcpy(buf + n, key, sizeof(key) - 1);
	n += sizeof(key) - 1;
	memcpy(buf + n, ss, k);
	n += k;
	memcpy(buf + n, "}\n", 2);
	free(ss);
	store(c, fd, "misses.jsonl", buf, n + 2, 1, &e);
	return e;
}

/* A record no path writes as JSON (names are escaped text: a bug, said). */
static int passed_over(struct rtmond_lines *w, const struct rtm_record *r, int i)
{
	rtmond_log("record %" PRIu64 ": cannot be written as JSON: passed over, not stored",
		   (uint64_t)r->seq);
	CNT_ADD(write_errors, 1);
	w->i = i + 1;
	w->rec_done = 0;
	return 0;
}

/* Record i's lines not stored yet: 0 when they are (or buffered), or the errno. */
static int write_record(struct rtmond_lines *w, const struct rtmond_batch *b, int i,
			const char *boot_id, const char *load_id)
{
	static const struct rtmond_snap_plan policy = { .skipped = "timeout" };
	const struct rtmond_config *c = &b->live->conf;
	const struct rtm_record *r = &b->recs[i];
	const struct rtmond_snap_plan *plan =
		c->on_timeout || !(r->flags & RTM_REC_F_TIMEOUT) ? &b->plan : &policy;
	int e;

	if (w->records_fd >= 0 && !(i == w->i && w->rec_done)) {
		e = rec_add(w, b, i, boot_id, load_id);
		if (e)
			return e < 0 ? passed_over(w, r, i) : e;
	}
	if (!miss_wanted(w, r)) {
		if (w->records_fd < 0)
			w->i = i + 1;	/* no line of its own */
		return 0;
	}
	/*
	 * its records.jsonl line first, as ever: a restart takes what the
	 * tail of misses.jsonl holds as stored (seq_scan_tail), and would
	 * not write it again
	 */
	e = rec_flush(w, b);
	if (e)
		return e;
	e = miss_line(&w->misses_fd, c, plan, r, b->names[i], b->read_ns, b->wall_off_ns,
					  boot_id, load_id);
	if (e < 0)
		e = json_line(b, i, &w->misses_fd, "misses.jsonl", plan, boot_id, load_id);
	if (e < 0)
		return passed_over(w, r, i);
	if (e) {
		w->failed = "misses.jsonl";
		return e;
	}
	w->unsynced = 1;
	cur_step(w, b);
	return 0;
}

int rtmond_lines_write(struct rtmond_lines *w, const struct rtmond_batch *b)
{
	const char *boot_id = rtmon_boot_id();	/* read once, at start */
	const char *load_id = rtmond_load_id_known ? rtmond_load_tag : NULL;
	int i, e = 0;

	for (i = w->i; i < b->n && !e; i++)
		e = write_record(w, b, i, boot_id, load_id);
	if (!e)
		e = rec_flush(w, b);
	/* what a failure left buffered is formatted again from the cursor */
	rec_used = 0;
	rec_lines = 0;
	return e;
}

uint64_t rtmond_lines_left(const struct rtmond_lines *w, const struct rtmond_batch *b,
			   int at_cursor)
{
	uint64_t n = 0;
	int i;

	for (i = at_cursor ? w->i : 0; i < b->n; i++)
		n += (uint64_t)(w->records_fd >= 0) + (uint64_t)miss_wanted(w, &b->recs[i]);
	return at_cursor && w->rec_done ? n - 1 : n;
}

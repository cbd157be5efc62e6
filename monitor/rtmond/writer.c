// SPDX-License-Identifier: GPL-2.0
/*
 * writer.c - rtmond's record writer: the lines of records.jsonl and
 * misses.jsonl, misses.jsonl made durable (fdatasync), the sequence window
 * saved after them (rtmond.seq), stats.json and the metrics text file, all
 * off the real-time reader (issue 21, items 9 and 15). The reader keeps one
 * write of its own: the ftrace snapshot swap at a miss (tracefs, no disk),
 * which must happen then; the snapshot worker copies it out.
 *
 * The reader fills a batch of a small ring (RTMOND_WQ batches, preallocated)
 * and publishes it; this thread, SCHED_OTHER, writes every batch published
 * so far, syncs, saves the window of the last one and only then moves the
 * tail and says so on an eventfd the reader polls. The reader acknowledges
 * the module's records (RTMON_READ_ACKED) only when the writer has caught
 * up, so that what the module frees is on disk, and reads no more while
 * RTMOND_WQ batches wait unacknowledged: a slow disk holds records in the
 * module's rings (counted there when they overflow), never in a queue of
 * its own that grows.
 *
 * Single producer (the reader), single consumer (this thread): head and
 * tail are each written by one side only. The mutex (PI) and condition
 * only put the writer to sleep; the files are swapped (reload) only while
 * the writer is idle (rtmond_writer_wait_idle()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "rtmond.h"
#include "rtmon_format.h"

static struct rtmond_batch wq[RTMOND_WQ];
static uint64_t wq_head;		/* published (reader) */
static uint64_t wq_tail;		/* written (writer) */
static pthread_mutex_t wq_lock;		/* PTHREAD_PRIO_INHERIT */
static pthread_cond_t wq_cond = PTHREAD_COND_INITIALIZER;
static int wq_stop, wq_started, progress_fd = -1;
static pthread_t wq_thread;

static int misses_fd = -1, records_fd = -1, seq_fd = -1;
static uint64_t moved_checked;	/* mono_ns() of the last reopen_moved() */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the reader's side ---- */

struct rtmond_batch *rtmond_writer_reserve(void)
{
	uint64_t h = wq_head;

	if (h - __atomic_load_n(&wq_tail, __ATOMIC_ACQUIRE) >= RTMOND_WQ)
		return NULL;
	memset(&wq[h % RTMOND_WQ], 0, offsetof(struct rtmond_batch, plan));
	return &wq[h % RTMOND_WQ];
}

void rtmond_writer_publish(void)
{
	__atomic_store_n(&wq_head, wq_head + 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&wq_lock);
	pthread_cond_broadcast(&wq_cond);
	pthread_mutex_unlock(&wq_lock);
}

int rtmond_writer_idle(void)
{
	return __atomic_load_n(&wq_tail, __ATOMIC_ACQUIRE) == wq_head;
}

int rtmond_writer_fd(void)
{
	return progress_fd;
}

void rtmond_writer_progress_read(void)
{
	uint64_t v;

	if (progress_fd >= 0 && read(progress_fd, &v, sizeof(v)) < 0)
		v = 0;	/* nothing new (EAGAIN) */
}

void rtmond_writer_wait_idle(void)
{
	if (!wq_started)
		return;
	pthread_mutex_lock(&wq_lock);
	while (!rtmond_writer_idle())
		pthread_cond_wait(&wq_cond, &wq_lock);
	pthread_mutex_unlock(&wq_lock);
}

void rtmond_writer_set_files(int mf, int rf, int sf)
{
	if (misses_fd >= 0)
		close(misses_fd);
	if (records_fd >= 0)
		close(records_fd);
	if (seq_fd >= 0)
		close(seq_fd);
	misses_fd = mf;
	records_fd = rf;
	seq_fd = sf;
}

int rtmond_writer_seq_fd(void)
{
	return seq_fd;
}

/* ---- lines ---- */

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
static void reopen_moved(const char *dir, const char *name, int *fd)
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
	close(*fd);
	*fd = nfd;
	rtmond_log("%s was moved or removed (logrotate?): reopened", p);
}

/*
 * Whole lines in one write (O_APPEND): a reader never sees half a line. A
 * short write (the disk is full) is cut back, so that no half line is left
 * for the next one to be glued to; several lines are then written one by
 * one, so that those that still fit are kept. A line not written is lost
 * and counted. Returns the lines written.
 */
static unsigned int write_lines(int fd, const char *text, size_t n, unsigned int lines)
{
	unsigned int done = 0;
	uint64_t lost;
	off_t end;
	ssize_t w;
	size_t k;
	int e;

	end = lseek(fd, 0, SEEK_END);
	w = write(fd, text, n);
	if (w == (ssize_t)n)
		return lines;
	e = w < 0 ? errno : ENOSPC;
	if (w > 0 && (end < 0 || ftruncate(fd, end))) {
		e = errno;
		/* the whole lines written stay, the half line too (a newline at the next open) */
		for (k = 0; k < (size_t)w; k++)
			done += text[k] == '\n';
	} else if (lines > 1) {
		for (; n; text += k, n -= k) {
			k = (size_t)((const char *)memchr(text, '\n', n) - text) + 1;
			done += write_lines(fd, text, k, 1);
		}
		return done;
	}
	lines -= done;
	lost = CNT_ADD(write_errors, lines);
	/* the first, then every 1000th */
	if (lost == lines || (lost - lines) / 1000 != lost / 1000)
		rtmond_log("write: %s (%zd of %zu bytes): %" PRIu64 " lines lost so far",
			   strerror(e), w, n, lost);
	return done;
}

static int write_line(int fd, json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT), *line;
	size_t n;
	int ok;

	if (!s)
		return 0;
	n = strlen(s);
	line = realloc(s, n + 2);
	if (!line) {
		free(s);
		return 0;
	}
	line[n] = '\n';
	ok = write_lines(fd, line, n + 1, 1) == 1;
	free(line);
	return ok;
}

/*
 * records.jsonl's lines of a batch, written together: formatted without
 * jansson (rtmon_record_json_line()), one write a batch. Through jansson
 * and a write a line, rtmond took about 95,000 instructions a record.
 */
static char rec_buf[RTMOND_BATCH * 2048];
static size_t rec_used;
static unsigned int rec_lines;

static void rec_flush(void)
{
	if (rec_used && records_fd >= 0)
		write_lines(records_fd, rec_buf, rec_used, rec_lines);
	rec_used = 0;
	rec_lines = 0;
}

/* the record's line into rec_buf; 0 when only jansson can write it */
static int rec_add(const struct rtm_record *r, const char *name, uint64_t read_ns,
		   const char *boot_id, const char *load_id)
{
	size_t n = rtmon_record_json_line(rec_buf + rec_used, sizeof(rec_buf) - rec_used,
					  r, name, read_ns, boot_id, load_id);

	if (!n && rec_used) {	/* no room left: what is there first */
		rec_flush();
		n = rtmon_record_json_line(rec_buf, sizeof(rec_buf), r, name, read_ns,
					   boot_id, load_id);
	}
	if (!n)
		return 0;
	rec_used += n;
	rec_lines++;
	return 1;
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
	return o;
}

/*
 * A miss's line in misses.jsonl: the record's line with "snapshot" (from
 * jansson: a few a second at most, rate-limited) added last, which is what
 * jansson's dump of the whole object gives. 1 written, 0 lost (counted),
 * -1 when only jansson's path can write it.
 */
static int miss_line(const struct rtmond_config *c, const struct rtmond_snap_plan *plan,
		     const struct rtm_record *r, const char *name, uint64_t read_ns,
		     const char *boot_id, const char *load_id)
{
	static char buf[16384];
	size_t n = rtmon_record_json_line(buf, sizeof(buf), r, name, read_ns, boot_id, load_id);
	static const char key[] = ",\"snapshot\":";
	json_t *sj;
	char *ss;
	size_t k;

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
	return write_lines(misses_fd, buf, n + 2, 1) == 1;
}

/* The lines of one batch; 1 when misses.jsonl got one. */
static int write_batch(const struct rtmond_batch *b)
{
	static const struct rtmond_snap_plan policy = { .skipped = "timeout" };
	const struct rtmond_config *c = &b->live->conf;
	const char *boot_id = rtmon_boot_id();	/* read once, at start */
	int i, missed = 0;

	for (i = 0; i < b->n; i++) {
		const struct rtm_record *r = &b->recs[i];
		int miss = !!(r->flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT));
		const struct rtmond_snap_plan *plan =
			c->on_timeout || !(r->flags & RTM_REC_F_TIMEOUT) ? &b->plan : &policy;
		const char *load_id = rtmond_load_id_known ? rtmond_load_tag : NULL;
		int line = 0, mline = 0;
		json_t *j;

		if (records_fd >= 0)
			line = rec_add(r, b->names[i], b->read_ns, boot_id, load_id);
		if (miss && misses_fd >= 0) {
			/*
			 * its records.jsonl line first, as ever: a restart
			 * takes what the tail of misses.jsonl holds as stored
			 * (seq_scan_tail), and would not write it again
			 */
			rec_flush();
			mline = miss_line(c, plan, r, b->names[i], b->read_ns, boot_id, load_id);
			if (mline > 0)
				missed = 1;
		}
		if ((records_fd < 0 || line) && (!miss || misses_fd < 0 || mline >= 0))
			continue;
		/* a string only jansson's path handles as it always did (refused) */
		j = rtmon_record_json(r, b->names[i]);
		if (!j) {
			/* names are escaped text: this is a bug, said */
			rtmond_log("record %" PRIu64 ": cannot be written as JSON: %" PRIu64
				   " lines lost so far", (uint64_t)r->seq,
				   CNT_ADD(write_errors, 1));
			continue;
		}
		json_object_set_new(j, "read_ns", json_integer((json_int_t)b->read_ns));
		/* the boot its monotonic times belong to */
		if (boot_id[0])
			json_object_set_new(j, "boot_id", json_string(boot_id));
		/* the module load its seq belongs to (the snapshot names' tag) */
		if (load_id)
			json_object_set_new(j, "load_id", json_string(load_id));
		if (records_fd >= 0 && !line) {
			rec_flush();	/* the lines stay in order */
			write_line(records_fd, j);
		}
		if (miss && misses_fd >= 0 && mline < 0) {
			json_object_set_new(j, "snapshot", snap_json(c, plan, r));
			missed |= write_line(misses_fd, j);
		}
		json_decref(j);
	}
	rec_flush();
	return missed;
}

/* ---- rtmond.seq: "load=KEY NEXT S1 S2 ...", what is stored ---- */

/* " N" at buf, decimal; returns its length (snprintf took ~400 instructions) */
static size_t put_seq(char *buf, uint64_t v)
{
	char d[21];
	size_t i = sizeof(d), n;

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	n = sizeof(d) - i;
	buf[0] = ' ';
	memcpy(buf + 1, d + i, n);
	return n + 1;
}

/*
 * After every batch. While a hole waits to be called a loss (2 s: another
 * cpu's ring may still hand its records), each save lists every number
 * seen above it, up to RTMOND_SEQ_WIN of them: formatted by hand, as
 * snprintf made that 800,000 instructions a batch behind a lost burst.
 */
static void save_window(const struct rtmond_seqwin *w)
{
	static char buf[RTMOND_SEQ_WIN * 21 + 32];
	size_t n;
	uint64_t s;

	if (seq_fd < 0 || !w->valid)
		return;
	n = (size_t)snprintf(buf, sizeof(buf), "load=%s %" PRIu64, rtmond_load_key, w->next);
	for (s = w->next + 1; s <= w->max; s++) {
		uint64_t o = s % RTMOND_SEQ_WIN;

		if (w->seen[o / 64] & (1ull << (o % 64)))
			n += put_seq(buf + n, s);
	}
	buf[n++] = '\n';
	if (pwrite(seq_fd, buf, n, 0) != (ssize_t)n || ftruncate(seq_fd, (off_t)n))
		rtmond_log("saving the sequence number: %s", strerror(errno));
}

/* ---- DIR/stats.json: the histograms for rtmonctl hist ---- */

static void write_stats(const struct rtmond_live *l)
{
	struct rtmon_hist *h = malloc(sizeof(*h));
	json_t *root, *tg;
	char path[512], tmp[520];
	unsigned int i, b;
	int fd;

	if (!h)
		return;
	root = json_object();
	tg = json_object();
	for (i = 0; i < l->conf.ntargets; i++) {
		struct rtmond_slot *s = &rtmond_slots[l->slot[i]];
		uint64_t misses, timeouts, records, blame[RTM_BLAME_NR];
		json_t *o, *bl, *bk = json_array();
		unsigned int k;

		pthread_mutex_lock(&s->lock);
		memcpy(h, &s->hist, sizeof(*h));
		misses = s->misses;
		timeouts = s->timeouts;
		records = s->records;
		memcpy(blame, s->blame_ns, sizeof(blame));
		pthread_mutex_unlock(&s->lock);
		for (b = 0; b < RTMON_HIST_NBUCKETS; b++)
			if (h->b[b])
				json_array_append_new(bk, json_pack("[i, I]", (int)b,
								    (json_int_t)h->b[b]));
		o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
			"count", (json_int_t)h->count, "sum_ns", (json_int_t)h->sum_ns,
			"min_ns", (json_int_t)(h->count ? h->min_ns : 0),
			"max_ns", (json_int_t)h->max_ns, "mean_ns", (json_int_t)rtmon_hist_mean(h),
			"p50_ns", (json_int_t)rtmon_hist_percentile(h, 50),
			"p90_ns", (json_int_t)rtmon_hist_percentile(h, 90),
			"p99_ns", (json_int_t)rtmon_hist_percentile(h, 99),
			"p999_ns", (json_int_t)rtmon_hist_percentile(h, 99.9),
			"misses", (json_int_t)misses, "timeouts", (json_int_t)timeouts,
			"records", (json_int_t)records,
			"deadline_ns", (json_int_t)l->conf.targets[i].t.deadline_ns,
			"buckets", bk);
		bl = json_object();
		for (k = 0; k < RTM_BLAME_NR; k++)
			json_object_set_new(bl, rtmon_blame_name(k),
					    json_integer((json_int_t)blame[k]));
		json_object_set_new(o, "blame_ns", bl);
		json_object_set_new(tg, l->conf.targets[i].name, o);
	}
	free(h);
	json_object_set_new(root, "hist_version", json_integer(1));
	json_object_set_new(root, "written_ns", json_integer((json_int_t)mono_ns()));
	json_object_set_new(root, "targets", tg);
	snprintf(path, sizeof(path), "%s/stats.json", l->conf.dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0 || json_dumpfd(root, fd, JSON_COMPACT) || rename(tmp, path))
		rtmond_log("cannot write %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	json_decref(root);
}

/* ---- the thread ---- */

static void *writer_main(void *arg)
{
	uint64_t one = 1;

	(void)arg;
	for (;;) {
		uint64_t t = wq_tail, h;
		const struct rtmond_seqwin *win = NULL;
		int missed = 0, stats = -1, textfile = -1;

		pthread_mutex_lock(&wq_lock);
		while ((h = __atomic_load_n(&wq_head, __ATOMIC_ACQUIRE)) == t && !wq_stop)
			pthread_cond_wait(&wq_cond, &wq_lock);
		pthread_mutex_unlock(&wq_lock);
		if (h == t)
			break;	/* stopped, and everything written */
		/*
		 * two stat()s and two fstat()s: at most every 100 ms, not a
		 * batch. Lines written in between to a file logrotate renamed
		 * go to the rotated file; to one removed (or compressed with
		 * no delaycompress), they are lost, as within one batch before
		 */
		if (mono_ns() - moved_checked >= 100000000ull) {
			reopen_moved(wq[t % RTMOND_WQ].live->conf.dir, "misses.jsonl", &misses_fd);
			reopen_moved(wq[t % RTMOND_WQ].live->conf.dir, "records.jsonl", &records_fd);
			moved_checked = mono_ns();
		}
		for (; t != h; t++) {
			const struct rtmond_batch *b = &wq[t % RTMOND_WQ];

			missed |= write_batch(b);
			if (b->win.valid)
				win = &b->win;
			if (b->stats)
				stats = (int)(t % RTMOND_WQ);
			if (b->textfile)
				textfile = (int)(t % RTMOND_WQ);
		}
		/* the misses on disk before the window says they are stored */
		if (missed && misses_fd >= 0 && fdatasync(misses_fd))
			rtmond_log("fdatasync misses.jsonl: %s", strerror(errno));
		if (win)
			save_window(win);
		if (stats >= 0)
			write_stats(wq[stats].live);
		if (textfile >= 0 && rtmond_metrics_textfile(wq[textfile].live->conf.textfile))
			rtmond_log("metrics: cannot write %s", wq[textfile].live->conf.textfile);
		pthread_mutex_lock(&wq_lock);
		__atomic_store_n(&wq_tail, h, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&wq_cond);	/* rtmond_writer_wait_idle() */
		pthread_mutex_unlock(&wq_lock);
		if (write(progress_fd, &one, sizeof(one)) < 0)
			rtmond_log("writer: cannot wake the reader: %s", strerror(errno));
	}
	return NULL;
}

int rtmond_writer_start(void)
{
	int err;

	rtmond_pi_mutex_init(&wq_lock);	/* the reader takes it too */
	progress_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (progress_fd < 0) {
		rtmond_log("writer: eventfd: %s", strerror(errno));
		return -errno;
	}
	err = rtmond_start_thread(&wq_thread, writer_main);
	if (err) {
		rtmond_log("writer: cannot start: %s", strerror(-err));
		return err;
	}
	pthread_setname_np(wq_thread, "rtmond-writer");
	wq_started = 1;
	return 0;
}

/* Everything published is written, then the thread ends. */
void rtmond_writer_stop(void)
{
	if (!wq_started)
		return;
	pthread_mutex_lock(&wq_lock);
	wq_stop = 1;
	pthread_cond_broadcast(&wq_cond);
	pthread_mutex_unlock(&wq_lock);
	pthread_join(wq_thread, NULL);
	wq_started = 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * writer.c - rtmond's record writer: the lines of records.jsonl and
 * misses.jsonl (lines.c), both made durable (fdatasync), the window saved
 * after them (rtmond.seq, synced with them), stats.json and the metrics
 * text file, all off the real-time reader. The reader keeps one
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
 * its own that grows. A full one too: a line that cannot be written stops
 * the writer there, and it tries again from that line (write_retry.c).
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
static uint64_t wq_tail;		/* stored (writer) */
static pthread_mutex_t wq_lock;		/* PTHREAD_PRIO_INHERIT */
static pthread_cond_t wq_cond;		/* CLOCK_MONOTONIC */
static int wq_stop, wq_started, progress_fd = -1;
static pthread_t wq_thread;

static int seq_fd = -1;
static uint64_t moved_checked;	/* rtmond_mono_ns() of the last rtmond_reopen_moved() */

/*
 * Where the writer is: every line before it is stored. Batch cur_t (from
 * wq_tail on), and in it the cursor of ln (lines.c). A failed write leaves
 * it on the line that failed, where the next try starts. The tail follows
 * only past whole batches, and once misses.jsonl is synced and the window
 * saved: what the reader may acknowledge is stored.
 */
static struct rtmond_lines ln = { .misses_fd = -1, .records_fd = -1 };
static uint64_t cur_t;
static int wq_kick;		/* a stop or reload waits: try again now */
static uint64_t retry_ns;	/* when to try again after a failure */
static uint64_t shown;		/* the lines waiting the gauge says */
static uint64_t busy_since;	/* rtmond_mono_ns() its round began (0: waiting; atomic) */
/* batches passed but not yet committed (their window, stats.json, textfile) */
static const struct rtmond_batch *pend_win, *pend_stats, *pend_textfile;

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

static struct timespec mono_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};

	return ts;
}

int rtmond_writer_wait_idle(uint64_t until_ns)
{
	struct timespec ts = mono_ts(until_ns);
	int ret = 0;

	if (!wq_started)
		return 0;
	pthread_mutex_lock(&wq_lock);
	if (rtmond_retry_failing()) {
		wq_kick = 1;
		pthread_cond_broadcast(&wq_cond);
	}
	while (!rtmond_writer_idle()) {
		if (!rtmond_retry_failing()) {
			pthread_cond_wait(&wq_cond, &wq_lock);
		} else if (rtmond_mono_ns() >= until_ns) {
			ret = -EIO;
			break;
		} else {
			pthread_cond_timedwait(&wq_cond, &wq_lock, &ts);
		}
	}
	pthread_mutex_unlock(&wq_lock);
	return ret;
}

void rtmond_writer_set_files(int mf, int rf, int sf)
{
	rtmond_lines_forget();
	if (ln.misses_fd >= 0)
		close(ln.misses_fd);
	if (ln.records_fd >= 0)
		close(ln.records_fd);
	if (seq_fd >= 0)
		close(seq_fd);
	ln.misses_fd = mf;
	ln.records_fd = rf;
	seq_fd = sf;
}

int rtmond_writer_seq_fd(void)
{
	return seq_fd;
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
static int save_window(const struct rtmond_seqwin *w)
{
	static char buf[RTMOND_SEQ_WIN * 21 + 32];
	size_t n;
	uint64_t s;

	if (seq_fd < 0 || !w->valid)
		return 0;
	n = (size_t)snprintf(buf, sizeof(buf), "load=%s %" PRIu64, rtmond_load_key, w->next);
	for (s = w->next + 1; s <= w->max; s++) {
		uint64_t o = s % RTMOND_SEQ_WIN;

		if (w->seen[o / 64] & (1ull << (o % 64)))
			n += put_seq(buf + n, s);
	}
	buf[n++] = '\n';
	errno = 0;
	if (pwrite(seq_fd, buf, n, 0) != (ssize_t)n || ftruncate(seq_fd, (off_t)n)) {
		CNT_ADD(write_errors, 1);
		ln.failed = "rtmond.seq";
		return errno ? errno : ENOSPC;
	}
	return 0;
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
	json_object_set_new(root, "written_ns", json_integer((json_int_t)rtmond_mono_ns()));
	json_object_set_new(root, "targets", tg);
	snprintf(path, sizeof(path), "%s/stats.json", l->conf.dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
	/* synced before the rename: a power cut leaves the old or the new */
	if (fd < 0 || json_dumpfd(root, fd, JSON_COMPACT) || fdatasync(fd) ||
	    rename(tmp, path))
		rtmond_log("cannot write %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	json_decref(root);
}

/* ---- the thread ---- */

/* The lines of the batches published up to h not stored yet. */
static uint64_t lines_waiting(uint64_t h)
{
	uint64_t t, n = 0;

	for (t = cur_t; t != h; t++)
		n += rtmond_lines_left(&ln, &wq[t % RTMOND_WQ], t == cur_t);
	return n;
}

/* The reader polls it: progress, and the status to show. */
static void wake_reader(void)
{
	uint64_t one = 1;

	if (write(progress_fd, &one, sizeof(one)) < 0)
		rtmond_log("writer: cannot wake the reader: %s", strerror(errno));
}

/*
 * The batches the cursor passed are stored: the line files synced, then the
 * window that says so saved; only then does the tail move past them (the
 * reader may acknowledge). 0, or the errno of what failed, tried again
 * with the next round. (A failed fdatasync may have cost the kernel's
 * copy of pages it could not write: a later success says nothing of them.)
 */
/* fdatasync(fd) when it is open: 0, or the errno, counted and named. */
static int sync_file(int fd, const char *name)
{
	if (fd < 0 || !fdatasync(fd))
		return 0;
	CNT_ADD(write_errors, 1);
	ln.failed = name;
	return errno;
}

static int commit(void)
{
	static int seq_unsynced;	/* lines synced, their window not yet */
	int e;

	seq_unsynced |= ln.unsynced || ln.rec_unsynced;
	if (ln.unsynced && (e = sync_file(ln.misses_fd, "misses.jsonl")))
		return e;
	ln.unsynced = 0;
	if (ln.rec_unsynced && (e = sync_file(ln.records_fd, "records.jsonl")))
		return e;
	ln.rec_unsynced = 0;
	if (pend_win && (e = save_window(&pend_win->win)))
		return e;
	/* the window of stored lines survives a power cut with them */
	if (pend_win && seq_unsynced && (e = sync_file(seq_fd, "rtmond.seq")))
		return e;
	if (pend_win)
		seq_unsynced = 0;
	pend_win = NULL;
	if (pend_stats)
		write_stats(pend_stats->live);
	if (pend_textfile)
		rtmond_metrics_textfile(pend_textfile->live->conf.textfile);	/* logs */
	pend_stats = pend_textfile = NULL;
	pthread_mutex_lock(&wq_lock);
	__atomic_store_n(&wq_tail, cur_t, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&wq_cond);	/* rtmond_writer_wait_idle() */
	pthread_mutex_unlock(&wq_lock);
	wake_reader();
	return 0;
}

/*
 * Until there is something to write or, after a failure, the next try is
 * due (the gauge of lines waiting kept up meanwhile); 0 when stopped, which
 * a failing writer takes as the end of the stop's wait: it gives up.
 */
static int writer_wait(uint64_t *h)
{
	struct timespec ts;
	uint64_t w;
	int run = 1;

	pthread_mutex_lock(&wq_lock);
	for (;;) {
		*h = __atomic_load_n(&wq_head, __ATOMIC_ACQUIRE);
		if (!rtmond_retry_failing()) {
			if (*h != cur_t)
				break;
			if (wq_stop) {
				run = 0;
				break;
			}
			pthread_cond_wait(&wq_cond, &wq_lock);
			continue;
		}
		if (wq_stop) {
			run = 0;
			break;
		}
		if (wq_kick) {
			wq_kick = 0;
			retry_ns = rtmond_retry_soon(rtmond_mono_ns());
		}
		w = lines_waiting(*h);
		if (w != shown) {
			rtmond_retry_waiting(w);
			shown = w;
			wake_reader();	/* its status */
		}
		if (rtmond_mono_ns() >= retry_ns)
			break;
		ts = mono_ts(retry_ns);
		pthread_cond_timedwait(&wq_cond, &wq_lock, &ts);
	}
	pthread_mutex_unlock(&wq_lock);
	return run;
}

static void *writer_main(void *arg)
{
	const char *failed;
	uint64_t h, now;
	int e, ce;

	(void)arg;
	for (;;) {
		const char *dir;

		__atomic_store_n(&busy_since, 0, __ATOMIC_RELAXED);
		if (!writer_wait(&h))
			break;
		__atomic_store_n(&busy_since, rtmond_mono_ns(), __ATOMIC_RELAXED);
		/* h passes the tail: its batch is published */
		dir = wq[(h - 1) % RTMOND_WQ].live->conf.dir;

		/*
		 * two stat()s and two fstat()s: at most every 100 ms, not a
		 * batch. Lines written in between to a file logrotate renamed
		 * go to the rotated file; to one removed (or compressed with
		 * no delaycompress), they are lost, as within one batch before
		 */
		if (rtmond_mono_ns() - moved_checked >= 100000000ull) {
			rtmond_reopen_moved(dir, "misses.jsonl", &ln.misses_fd);
			rtmond_reopen_moved(dir, "records.jsonl", &ln.records_fd);
			moved_checked = rtmond_mono_ns();
		}
		e = 0;
		while (cur_t != h) {
			const struct rtmond_batch *b = &wq[cur_t % RTMOND_WQ];

			e = rtmond_lines_write(&ln, b);
			if (e)
				break;
			if (b->win.valid)
				pend_win = b;
			if (b->stats)
				pend_stats = b;
			if (b->textfile)
				pend_textfile = b;
			cur_t++;
			ln.i = 0;
			ln.rec_done = 0;
		}
		failed = ln.failed;
		ce = cur_t != wq_tail ? commit() : 0;
		if (e)
			ln.failed = failed;	/* the first failure is the one to say */
		else
			e = ce;
		now = rtmond_mono_ns();
		if (e) {
			shown = lines_waiting(h);
			retry_ns = rtmond_retry_failed(dir, ln.failed, e, shown, ln.stored, now);
		} else if (rtmond_retry_failing())
			rtmond_retry_ok(ln.stored, now);
		else
			continue;
		/* failing or working again: rtmond_writer_wait_idle(), the status */
		pthread_mutex_lock(&wq_lock);
		pthread_cond_broadcast(&wq_cond);
		pthread_mutex_unlock(&wq_lock);
		wake_reader();
	}
	return NULL;
}

uint64_t rtmond_writer_busy_ns(uint64_t now)
{
	uint64_t t = __atomic_load_n(&busy_since, __ATOMIC_RELAXED);

	return t && now > t ? now - t : 0;
}

int rtmond_writer_start(void)
{
	pthread_condattr_t ca;
	int err;

	rtmond_pi_mutex_init(&wq_lock);	/* the reader takes it too */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wq_cond, &ca);
	pthread_condattr_destroy(&ca);
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

/*
 * Everything published is stored, then the thread ends; while its writes
 * fail it ends at once (the caller waited RTMOND_FAIL_WAIT_NS), and what
 * it did not store is said: those records stay unacknowledged, and the
 * module hands them to the next run.
 */
void rtmond_writer_stop(void)
{
	uint64_t t, unstored = 0, unacked = 0;
	char what[96];

	if (!wq_started)
		return;
	rtmond_stop_thread(wq_thread, &wq_lock, &wq_cond, &wq_stop);
	wq_started = 0;
	if (rtmond_writer_idle())
		return;
	for (t = wq_tail; t != wq_head; t++) {
		const struct rtmond_batch *b = &wq[t % RTMOND_WQ];

		unacked += (uint64_t)b->n;
		if (t - wq_tail >= cur_t - wq_tail)
			unstored += (uint64_t)(b->n - (t == cur_t ? ln.i : 0));
	}
	rtmond_writer_waiting(what, sizeof(what));
	rtmond_log("stopping while writes fail (%s): %" PRIu64 " records read were not stored "
		   "and %" PRIu64 " not acknowledged; the module hands them to the next run, "
		   "which skips those stored", what[0] ? what : "?", unstored, unacked);
}

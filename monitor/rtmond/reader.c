// SPDX-License-Identifier: GPL-2.0
/*
 * reader.c - the real-time reader: the module's records read in batches
 * (what a previous run stored left out, the statistics kept, the ftrace
 * buffer swapped at a miss), handed to the writer (writer.c) and
 * acknowledged to the module once stored; the loop that does it, with
 * systemd's status and watchdog.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "rtmon_format.h"
#include "rtmond.h"

static int stats_dirty;		/* records since DIR/stats.json was written */
static uint64_t wd_period_ns;	/* the watchdog's ping period (0: none) */

static int acked_reads;			/* RTMON_READ_ACKED: ack after storing */

/* A miss that takes a snapshot (snapshot.on_timeout = false: completed misses only) */
static int snap_miss(const struct rtmond_config *c, const struct rtm_record *r)
{
	return (r->flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT)) &&
	       (c->on_timeout || !(r->flags & RTM_REC_F_TIMEOUT));
}

/*
 * The reader's part of a batch: what a previous run stored left out,
 * the statistics, the snapshot of its misses (the ftrace buffer swapped
 * now, copied by the snapshot worker); its lines are the writer's.
 */
static void handle_batch(const struct rtmond_live *l, struct rtmond_batch *b)
{
	const struct rtmond_config *c = &l->conf;
	struct rtm_record *recs = b->recs;
	uint64_t skipped_seq = 0;
	int i, j, k, n = b->n, nmiss = 0, first_miss = -1;
	/* the earliest chain start and the latest end of those */
	uint64_t first_start = UINT64_MAX, last_end = 0;

	b->read_ns = rtmond_mono_ns();
	b->wall_off_ns = rtmon_wall_offset_ns();
	b->live = l;
	/* read again after a restart and already stored: left out */
	for (i = k = 0; i < n; i++)
		if (rtmond_seq_check(recs[i].seq))
			recs[k++] = recs[i];
		else
			skipped_seq = recs[i].seq;
	if (k < n) {
		if (!CNT_GET(records_reread))
			rtmond_log("%d records read again: the previous run had stored "
				   "them, skipped (e.g. seq %" PRIu64 "; the metric "
				   "rtmond_records_reread_total counts them)", n - k, skipped_seq);
		CNT_ADD(records_reread, n - k);
	}
	b->n = n = k;
	for (i = 0; i < n; i++) {
		struct rtm_record *r = &recs[i];
		int slot = rtmond_id_slot(r->target_id);
		int miss = !!(r->flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT));

		b->names[i] = rtmond_id_name(r->target_id);
		CNT_ADD(records, 1);
		if (slot >= 0) {
			struct rtmond_slot *s = &rtmond_slots[slot];

			pthread_mutex_lock(&s->lock);
			/* a REPOLL latency is only a bound: not in the stats */
			if (!(r->flags & (RTM_REC_F_TIMEOUT | RTM_REC_F_REPOLL))) {
				rtmon_hist_add(&s->hist, r->latency_ns);
				for (j = 0; j < RTM_BLAME_NR; j++)
					__atomic_add_fetch(&s->blame_ns[j], r->blame.ns[j],
							   __ATOMIC_RELAXED);
			}
			__atomic_add_fetch(&s->records, 1, __ATOMIC_RELAXED);
			/* as the module counts: timeouts apart from completed misses */
			if (r->flags & RTM_REC_F_TIMEOUT)
				__atomic_add_fetch(&s->timeouts, 1, __ATOMIC_RELAXED);
			else if (r->flags & RTM_REC_F_DEADLINE_MISS)
				__atomic_add_fetch(&s->misses, 1, __ATOMIC_RELAXED);
			pthread_mutex_unlock(&s->lock);
		}
		if (miss) {
			CNT_ADD(misses, 1);
			rtmond_snap_miss_event(r, b->names[i] ?: "");
			if (snap_miss(c, r)) {
				if (first_miss < 0)
					first_miss = i;
				if (r->start_ns < first_start)
					first_start = r->start_ns;
				if (r->end_ns > last_end)
					last_end = r->end_ns;
				nmiss++;
			}
		}
	}
	/* one snapshot for the batch's misses */
	if (nmiss) {
		rtmond_snap_take(c, recs[first_miss].seq, first_start, last_end,
				 (unsigned int)nmiss, &b->plan);
		for (i = first_miss; i < n; i++) {
			const struct rtm_record *r = &recs[i];

			if (snap_miss(c, r))
				rtmond_snap_add_miss(&b->plan, r, b->names[i] ?: "");
		}
		rtmond_snap_commit(&b->plan);
	}
	rtmond_seq_copy(&b->win);
}

/*
 * Only one process may read the module's records. When another holds the
 * stream (rtmonctl records, a second rtmond), poll() reports POLLERR at
 * once and reads fail with EBUSY: say so once, leave the device out of the
 * poll set and try again every second, instead of spinning at real-time
 * priority while claiming to be ready.
 */
static int stream_busy;
static uint64_t stream_retry_ns;

static void stream_taken(void)
{
	if (!stream_busy) {
		rtmond_log("another process holds the record stream (rtmonctl records? "
			   "a second rtmond?): no records are read until it closes "
			   "/dev/rtmon; trying again every second");
		rtmond_notify("STATUS=waiting: another process reads the records of /dev/rtmon");
	}
	stream_busy = 1;
	stream_retry_ns = rtmond_mono_ns() + 1000000000ull;
}

/* Take the stream (in acknowledged mode where the module has it): 1 if ours. */
static int stream_claim(void)
{
	int o = rtmon_set_read_acked(rtmond_dev, 1);

	if (o == -EBUSY) {
		stream_taken();
		return 0;
	}
	acked_reads = !o;
	if (stream_busy)
		rtmond_log("the record stream is ours again");
	stream_busy = 0;
	return 1;
}

/*
 * Batches handed to the writer since the last acknowledgement: at
 * RTMOND_WQ the reader reads no more until the writer has caught up.
 */
static int unacked;

/* Everything handed to the writer is stored: the module may free it. */
void rtmond_reader_ack(void)
{
	int err;

	if (!unacked || !rtmond_writer_idle())
		return;
	if (acked_reads && (err = rtmon_ack_records(rtmond_dev)))
		rtmond_log("acknowledging records: %s", strerror(-err));
	unacked = 0;
}

/* Does the batch hold a miss that takes a snapshot? */
static int batch_wants_snapshot(const struct rtmond_config *c, const struct rtm_record *recs, int n)
{
	int i;

	if (!c->ftrace && !c->lttng)
		return 0;
	for (i = 0; i < n; i++)
		if (snap_miss(c, &recs[i]))
			return 1;
	return 0;
}

/*
 * snapshot.gather: a miss seldom comes alone (the items queued behind a
 * slow one end late together, a few microseconds apart). The reader waits
 * that long after reading one, then reads what came meanwhile into the
 * same batch, so that they all share its snapshot; read one by one, all
 * but the first would find the snapshot worker busy ("skipped": "busy").
 */
static int gather_more(const struct rtmond_config *c, struct rtmond_batch *b, int n)
{
	struct timespec ts = {
		.tv_sec = (time_t)(c->gather_ns / 1000000000ull),
		.tv_nsec = (long)(c->gather_ns % 1000000000ull),
	};
	int m;

	if (!c->gather_ns || n >= RTMOND_BATCH || !batch_wants_snapshot(c, b->recs, n))
		return n;
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
	do {
		m = rtmon_read_records(rtmond_dev, b->recs + n, (size_t)(RTMOND_BATCH - n));
		if (m > 0)
			n += m;
	} while ((m > 0 && n < RTMOND_BATCH) || m == -EINTR);
	/* an error here is the next read's to report */
	return n;
}

/*
 * Read what the rings hold, RTMOND_WQ batches at most: a drain is bounded
 * (signals and watchdog pings between two) and goes at the writer's pace.
 */
static int drain(const struct rtmond_live *l)
{
	struct rtmond_batch *b;
	int n, total = 0;

	rtmond_reader_ack();
	while (unacked < RTMOND_WQ && (b = rtmond_writer_reserve())) {
		n = rtmon_read_records(rtmond_dev, b->recs, RTMOND_BATCH);
		if (n == -EAGAIN || n == 0) {
			rtmond_seq_rings_empty();
			break;
		}
		if (n == -EINTR)
			continue;
		if (n == -EBUSY) {
			stream_taken();
			return n;
		}
		if (n < 0) {
			rtmond_log("reading records: %s", strerror(-n));
			return n;
		}
		b->n = gather_more(&l->conf, b, n);
		handle_batch(l, b);
		rtmond_writer_publish();
		unacked++;
		stats_dirty = 1;
		total += n;
	}
	return total;
}

/*
 * stats.json (and the window) or the metrics text file, by the writer
 * after what it has; 0: later (the writer is behind).
 */
static int request_files(const struct rtmond_live *l, int stats, int textfile)
{
	struct rtmond_batch *b;

	if (unacked >= RTMOND_WQ || !(b = rtmond_writer_reserve()))
		return 0;
	b->live = l;
	b->stats = stats;
	b->textfile = textfile;
	if (stats)
		rtmond_seq_copy(&b->win);
	rtmond_writer_publish();
	unacked++;
	if (stats)
		stats_dirty = 0;
	return 1;
}

/*
 * STATUS= for systemctl status: targets, records, misses, failing writes,
 * a metrics endpoint that cannot listen (when changed)
 */
static void status_notify(void)
{
	static uint64_t last_records = UINT64_MAX;
	static char last_fail[400];
	uint64_t n = CNT_GET(records), w;
	char what[256], fail[400] = "";

	if (!rtmond_notify_enabled())
		return;
	w = rtmond_writer_waiting(what, sizeof(what));
	if (what[0])
		snprintf(fail, sizeof(fail), "; writes failing (%s): %" PRIu64
			 " lines wait for storage", what, w);
	if (rtmond_metrics_listen_error(what, sizeof(what)))
		snprintf(fail + strlen(fail), sizeof(fail) - strlen(fail),
			 "; metrics cannot listen (%s)", what);
	if (n == last_records && !strcmp(fail, last_fail))
		return;
	last_records = n;
	memcpy(last_fail, fail, sizeof(fail));
	rtmond_notify("STATUS=running: %u targets, %" PRIu64 " records read, %" PRIu64
		      " misses, %" PRIu64 " lost%s", rtmond_live->conf.ntargets, n,
		      CNT_GET(misses), CNT_GET(records_lost), fail);
}

/*
 * WATCHDOG=1 only while what is read goes on to storage: the reader's loop
 * runs on when the writer hangs (a FIFO, a dead disk), and pinging then
 * would hide the hang from systemd. A writer in one round of writes for a
 * whole ping period stops the pings; 1 when they are held back.
 */
int rtmond_reader_watchdog_kick(void)
{
	static int held;
	uint64_t now = rtmond_mono_ns(), busy = rtmond_writer_busy_ns(now);

	if (wd_period_ns && busy >= wd_period_ns) {
		if (!held)
			rtmond_log("the writer has been stuck in one round of writes for %.1f s: "
				   "no watchdog pings until it moves on", busy / 1e9);
		held = 1;
		return 1;
	}
	if (held)
		rtmond_log("the writer moves on: watchdog pings again");
	held = 0;
	rtmond_watchdog_kick(now);
	return 0;
}

void rtmond_reader_set_watchdog(uint64_t period_ns)
{
	wd_period_ns = period_ns;
}

/* At start: the record stream, in acknowledged mode where the module has it. */
void rtmond_reader_open(void)
{
	/* records read but not stored when rtmond is killed are read again */
	int o = rtmon_set_read_acked(rtmond_dev, 1);

	acked_reads = !o;
	if (o == -EBUSY)
		stream_taken();
	else if (o)
		rtmond_log("acknowledged reads unavailable (%s): records read when rtmond "
			   "is killed are lost", strerror(-o));
}

/*
 * The reader's loop, until SIGTERM or SIGINT comes on sfd (SIGHUP calls
 * reload), then what the rings still hold stored and acknowledged: 0, or
 * 1 when poll() failed.
 */
int rtmond_reader_run(int sfd, void (*reload)(void))
{
	const struct rtmond_live *l = rtmond_live;
	struct pollfd pfd[3];
	uint64_t next_textfile = 0, next_stats = 0, stop_by;
	int running = 1, rc = 0, wd_held, o;

	pfd[0].fd = rtmon_fd(rtmond_dev);
	pfd[0].events = POLLIN;
	pfd[1].fd = sfd;
	pfd[1].events = POLLIN;
	pfd[2].fd = rtmond_writer_fd();
	pfd[2].events = POLLIN;
	drain(l);	/* what waited in the rings while rtmond was away */
	request_files(l, 1, 0);
	/* targets in the module, reader running: units ordered after us may start */
	rtmond_notify("READY=1\nSTATUS=running: %u targets, misses to %s/misses.jsonl",
		      l->conf.ntargets, l->conf.dir);
	wd_held = rtmond_reader_watchdog_kick();
	while (running) {
		int timeout = rtmond_seq_hole_open() || stats_dirty ? 500 : -1;
		int wd = rtmond_watchdog_timeout_ms(rtmond_mono_ns());

		l = rtmond_live;
		if (l->conf.textfile[0]) {
			uint64_t now = rtmond_mono_ns();

			if (now >= next_textfile && request_files(l, 0, 1))
				next_textfile = now + l->conf.textfile_interval_ns;
			/* (not yet asked: the writer's progress wakes the loop) */
			if (next_textfile > now &&
			    (timeout < 0 || (uint64_t)timeout > (next_textfile - now) / 1000000 + 1))
				timeout = (int)((next_textfile - now) / 1000000) + 1;
		}
		if (wd >= 0 && wd_held)
			wd = 1000;	/* a ping due but held back: look again then */
		if (wd >= 0 && (timeout < 0 || wd < timeout))
			timeout = wd;
		/* the writer behind: the rings wait (pfd[2] says when it caught up) */
		pfd[0].fd = stream_busy || unacked >= RTMOND_WQ ? -1 : rtmon_fd(rtmond_dev);
		if (stream_busy) {
			uint64_t now = rtmond_mono_ns();
			int ms = now >= stream_retry_ns ? 0 :
				 (int)((stream_retry_ns - now) / 1000000) + 1;

			if (timeout < 0 || ms < timeout)
				timeout = ms;
		}
		pfd[0].revents = 0;
		if (poll(pfd, 3, timeout) < 0 && errno != EINTR) {
			rtmond_log("poll: %s", strerror(errno));
			rc = 1;
			break;
		}
		/* the loop is alive: a reader stuck anywhere stops the pings */
		wd_held = rtmond_reader_watchdog_kick();
		if (pfd[2].revents & POLLIN) {
			rtmond_writer_progress_read();
			rtmond_reader_ack();
			status_notify();
		}
		if (stream_busy) {
			if (rtmond_mono_ns() >= stream_retry_ns && stream_claim()) {
				drain(rtmond_live);
				status_notify();
			}
		} else if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			stream_taken();
		} else if (pfd[0].revents & POLLIN || rtmond_seq_hole_unread()) {
			drain(rtmond_live);
		}
		rtmond_seq_expire(0);
		if (stats_dirty && rtmond_mono_ns() >= next_stats && request_files(rtmond_live, 1, 0)) {
			status_notify();
			next_stats = rtmond_mono_ns() + 1000000000ull;
		}
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					reload();
				} else {
					rtmond_log("%s: exiting", strsignal((int)si.ssi_signo));
					rtmond_notify("STOPPING=1\nSTATUS=stopping (%s)",
						      strsignal((int)si.ssi_signo));
					running = 0;
				}
			}
		}
	}
	l = rtmond_live;
	/* what the rings still hold, stored and acknowledged; failing writes bound the wait */
	stop_by = rtmond_mono_ns() + RTMOND_FAIL_WAIT_NS;
	while (!(o = rtmond_writer_wait_idle(stop_by))) {
		rtmond_reader_ack();
		if (stream_busy || drain(l) <= 0)
			break;
	}
	if (!o) {
		rtmond_seq_expire(1);
		request_files(l, 1, 0);	/* and the window after the last holes */
	}
	rtmond_writer_stop();	/* says what it could not store */
	rtmond_reader_ack();
	return rc;
}

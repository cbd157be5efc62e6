/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtmond.h - what rtmond's parts (reader, snapshots, metrics) share.
 *
 * Threads: the main thread (real-time) reads records, keeps statistics,
 * handles signals and reloads; the writer writes the records' lines,
 * rtmond.seq and stats.json; the snapshot worker copies ftrace snapshots
 * and records LTTng snapshots; libmicrohttpd's thread serves metrics.
 * The live configuration is RCU-protected (liburcu, memb flavour): the
 * main thread publishes a new one on SIGHUP, the others read it under
 * rcu_read_lock(). Per-target statistics have their own PI mutex.
 */
#ifndef RTMOND_H
#define RTMOND_H

#include <pthread.h>
#include <stdint.h>
#include <urcu/urcu-memb.h>

#include "config.h"
#include "rtmon/rtmon.h"
#include "rtmon_hist.h"

#define RTMOND_MAX_SLOTS	128

/* Statistics of one target name (kept across reloads while the name stays). */
struct rtmond_slot {
	char name[RTMON_NAME_LEN];
	pthread_mutex_t lock;		/* PTHREAD_PRIO_INHERIT */
	struct rtmon_hist hist;		/* completed chains (not timeouts) */
	uint64_t records, misses, timeouts;
	/* the module's blame of completed chains, by RTM_BLAME_* (ns) */
	uint64_t blame_ns[RTM_BLAME_NR];
};

/* The configuration in force and what the module made of it. */
struct rtmond_live {
	struct rtmond_config conf;
	uint32_t kid[RTMOND_MAX_TARGETS];	/* module target id per target */
	int slot[RTMOND_MAX_TARGETS];		/* statistics slot per target */
};

extern struct rtmond_live *rtmond_live;	/* RCU */
/*
 * The module's sequence numbers restart at every load: what is named by
 * them is keyed by the load too. The tag (the module's load_id in hex, or
 * the boot id's first 8 characters from a module without one) is in the
 * snapshot names, miss-TAG-SEQ; the key ("BOOT_ID/LOAD_ID") heads rtmond.seq.
 */
extern char rtmond_load_tag[24];
extern char rtmond_load_key[64];
extern int rtmond_load_id_known;	/* the module gave its load_id */
extern struct rtmond_slot rtmond_slots[RTMOND_MAX_SLOTS];
extern struct rtmon *rtmond_dev;

/* daemon-wide counters (relaxed atomics) */
struct rtmond_counters {
	uint64_t records, seq_gaps, records_lost, records_reread, misses;
	uint64_t snap_ftrace, snap_lttng, snap_rate_limited, snap_busy, snap_failed;
	uint64_t snap_deferred;		/* taken once the worker was free */
	uint64_t snap_pruned;		/* removed by the disk budget */
	uint64_t write_errors;		/* failed writes of lines (retried) */
	uint64_t textfile_errors;	/* metrics textfile not written */
};
extern struct rtmond_counters rtmond_cnt;

/* set by threads registered with RCU for their whole life (main) */
extern __thread int rtmond_rcu_registered;

/* common.c: what every part shares */
void rtmond_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t rtmond_mono_ns(void);			/* CLOCK_MONOTONIC */
void rtmond_pi_mutex_init(pthread_mutex_t *m);	/* PTHREAD_PRIO_INHERIT */
/* pthread_create with a 256 KiB stack; 0 or -errno */
int rtmond_start_thread(pthread_t *t, void *(*fn)(void *));
/* Set *stop under m, wake the thread waiting on c for it, and join it. */
void rtmond_stop_thread(pthread_t t, pthread_mutex_t *m, pthread_cond_t *c, int *stop);
#define CNT_ADD(f, n) __atomic_add_fetch(&rtmond_cnt.f, (n), __ATOMIC_RELAXED)
#define CNT_GET(f) __atomic_load_n(&rtmond_cnt.f, __ATOMIC_RELAXED)

/* snapshot.c */
#define RTMOND_BATCH		64	/* records per read() (writer.c) */
struct rtmond_snap_plan {
	uint64_t id;			/* seq of the first miss it covers */
	char ftrace[300];		/* file, relative to dir ("" = none) */
	char explain[320];		/* the explanations of its misses,
					 * relative to dir ("" = none) */
	char lttng[96];			/* snapshot name ("" = none) */
	const char *skipped;		/* why none: "rate_limited", "busy", "off" */
	int deferred;			/* taken when the worker was free again */
	int named_only;			/* the worker's current snapshot: no job */
};
/* The worker's job: a snapshot and every miss of the batch it covers, up
 * to a whole batch (read after the writer held the reader back, a batch
 * may be all misses). */
struct rtmond_snap_job {
	struct rtmond_snap_plan plan;
	unsigned int nrecs;
	struct rtm_record recs[RTMOND_BATCH];
	char targets[RTMOND_BATCH][RTMON_NAME_LEN];
};
int rtmond_snap_setup(const struct rtmond_config *c);	/* at start and reload */
void rtmond_snap_teardown(void);
/* For a batch with nmiss misses, from start_ns (the earliest start) to
 * end_ns (the latest end): decide, trigger the ftrace swap (or defer it
 * while the worker is busy), queue the copy. */
void rtmond_snap_take(const struct rtmond_config *c, uint64_t id, uint64_t start_ns,
		      uint64_t end_ns, unsigned int nmiss, struct rtmond_snap_plan *plan);
/* A miss the planned snapshot covers, explained by the worker (every miss
 * of the batch), then the job handed to the worker. */
void rtmond_snap_add_miss(struct rtmond_snap_plan *plan, const struct rtm_record *r,
			  const char *target);
void rtmond_snap_commit(struct rtmond_snap_plan *plan);
void rtmond_snap_miss_event(const struct rtm_record *r, const char *target);
const char *rtmond_snap_lttng_state(void);
/* CLOCK_MONOTONIC ns since when the ftrace instance records (0: off) */
uint64_t rtmond_snap_ftrace_since(void);	/* for the log and JSON */
int rtmond_snap_start_worker(void);
/* rtmond:miss's probes (liblttng-ust and its threads): 0 or -errno */
int rtmond_snap_load_provider(void);
void rtmond_snap_stop_worker(void);

/* writer.c: the lines, the sequence window and stats.json, off the reader */
#define RTMOND_WQ		4	/* batches written or unacknowledged at most */
#define RTMOND_SEQ_WIN		4096	/* sequence numbers tracked above 'next' */
struct rtmond_seqwin {			/* rtmond.seq: what is stored */
	int valid;
	uint64_t next, max;
	uint64_t seen[RTMOND_SEQ_WIN / 64];
};
struct rtmond_batch {
	int n;				/* records */
	int stats;			/* write stats.json after it */
	int textfile;			/* and the metrics text file */
	uint64_t read_ns;
	int64_t wall_off_ns;		/* CLOCK_REALTIME - CLOCK_MONOTONIC then */
	const struct rtmond_live *live;	/* valid until the writer is idle */
	struct rtmond_seqwin win;	/* saved after its lines (valid) */
	const char *names[RTMOND_BATCH];	/* target names of recs */
	/* not cleared by rtmond_writer_reserve(): */
	struct rtmond_snap_plan plan;	/* the misses' snapshot, when taken */
	struct rtm_record recs[RTMOND_BATCH];
};
/* The reader: a batch to fill (NULL: RTMOND_WQ wait), then publish it. */
struct rtmond_batch *rtmond_writer_reserve(void);
void rtmond_writer_publish(void);
int rtmond_writer_idle(void);		/* everything published is stored */
/*
 * Until everything published is stored; while writes fail (a full disk),
 * until CLOCK_MONOTONIC until_ns at most: then -EIO. A stop or a reload
 * waits RTMOND_FAIL_WAIT_NS for failing writes, then goes on without them.
 */
#define RTMOND_FAIL_WAIT_NS	5000000000ull
int rtmond_writer_wait_idle(uint64_t until_ns);
/* readable after each round stored, and when writes fail or work again */
int rtmond_writer_fd(void);
void rtmond_writer_progress_read(void);
/* How long the writer has been in one round of writes (0: waiting for work). */
uint64_t rtmond_writer_busy_ns(uint64_t now);
/* Swap the output files (rtmond_writer_wait_idle() first); -1: none. */
void rtmond_writer_set_files(int misses, int records, int seq);
int rtmond_writer_seq_fd(void);
int rtmond_writer_start(void);
/* After storing what was published; while writes fail, at once, saying
 * how many records were not stored (they stay unacknowledged). */
void rtmond_writer_stop(void);

/* lines.c: misses.jsonl and records.jsonl, the writer's lines stored in order */
struct rtmond_lines {
	int misses_fd, records_fd;	/* -1: none */
	/* the cursor in the writer's batch: every line before it is stored */
	int i;				/* the first record not wholly stored */
	int rec_done;			/* its records.jsonl line is */
	int unsynced;			/* misses.jsonl lines since its fdatasync */
	int rec_unsynced;		/* records.jsonl lines since its fdatasync */
	uint64_t stored;		/* lines stored since the start */
	const char *failed;		/* the file of the last failed write */
};
/* DIR/NAME for appending lines (a half last line ended); -1, logged */
int rtmond_open_lines(const char *dir, const char *name);
/* DIR/NAME moved or removed (logrotate): *fd becomes a new one there */
void rtmond_reopen_moved(const char *dir, const char *name, int *fd);
void rtmond_lines_forget(void);		/* the files swapped: no cut pending */
/* Batch b's lines from the cursor on: 0 when all are stored, or the errno
 * of the write that failed (counted), the cursor on its line. */
int rtmond_lines_write(struct rtmond_lines *w, const struct rtmond_batch *b);
/* b's lines not stored: from the cursor (its batch) or all of them */
uint64_t rtmond_lines_left(const struct rtmond_lines *w, const struct rtmond_batch *b,
			   int at_cursor);

/*
 * rotate.c: DIR/NAME to NAME.1, NAME.K to NAME.K+1, keep of them kept (those
 * past keep removed): 0 or the errno of a rename. Then, the new file
 * opened, the directory synced (0 or the errno).
 */
int rtmond_rotate_names(const char *dir, const char *name, unsigned int keep);
int rtmond_rotate_sync_dir(const char *dir);

/* write_retry.c: the writer's failed writes, tried again with a backoff */
/* A try failed on DIR/FILE (a string literal): when to try again */
uint64_t rtmond_retry_failed(const char *dir, const char *file, int err, uint64_t lines,
			     uint64_t stored, uint64_t now);
uint64_t rtmond_retry_soon(uint64_t now);	/* a stop or reload waits: now */
void rtmond_retry_waiting(uint64_t lines);	/* more read meanwhile */
int rtmond_retry_failing(void);
void rtmond_retry_ok(uint64_t stored, uint64_t now);	/* all stored again */
/* Lines waiting for storage and, in what, "FILE: ERROR" ("": writes work). */
uint64_t rtmond_writer_waiting(char *what, size_t len);

/*
 * safe_dir.c: 0 when only root or rtmond's uid can write in dir and the
 * directories above it (sticky ones aside); else -errno (-EPERM: refused),
 * why says it ("DIR refused: ..." or "DIR: ERROR").
 */
int rtmond_dir_safe(const char *dir, char *why, size_t len);

/* budget.c (the snapshot worker): snapshot.max_disk and max_age */
void rtmond_budget_set(const struct rtmond_config *c);
void rtmond_budget_prune(void);
/* at start and reload: miss-*.tmp left by a killed run, removed and named */
void rtmond_budget_remove_cut_short(void);

/* explain_job.c (the snapshot worker): explain the misses of a snapshot
 * into DIR/plan->explain (JSON lines), their cause time into the metrics */
void rtmond_explain_snapshot(const char *dir, const struct rtmond_snap_job *j,
			     uint64_t *wrap_ns);	/* the span kept when it overran, else 0 */

/* metrics.c */
/* rtmon_miss_cause_seconds_total{target,category} += ns */
void rtmond_metrics_cause_add(const char *target, const char *category, uint64_t ns);
/* A listen that fails is logged and tried again by a thread of its own. */
int rtmond_metrics_start(const struct rtmond_config *c);
/* 1 while the listen fails, why says why */
int rtmond_metrics_listen_error(char *why, size_t len);
void rtmond_metrics_stop(void);
/*
 * Write the metrics text to path, atomically (PATH.tmp renamed): never
 * through a symlink or into something not a regular file, never into a
 * directory rtmond_dir_safe() refuses. 0 or -errno, logged once per change
 * of what fails (counted every time).
 */
int rtmond_metrics_textfile(const char *path);
/* The Prometheus text of everything (caller frees). */
char *rtmond_metrics_text(size_t *len);

/* notify.c: systemd readiness, status and watchdog (no-ops without NOTIFY_SOCKET) */
/* Read NOTIFY_SOCKET and the watchdog settings; the ping period in ns (0 = none). */
uint64_t rtmond_notify_init(void);
int rtmond_notify_enabled(void);
/* sd_notify() of a formatted state ("READY=1\nSTATUS=..."). */
void rtmond_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* ms until the next watchdog ping is due (-1: no watchdog), for poll(). */
int rtmond_watchdog_timeout_ms(uint64_t now_ns);
/* WATCHDOG=1 when due (call from the reader's loop). */
void rtmond_watchdog_kick(uint64_t now_ns);

/* seqwin.c: the sequence numbers read and stored, losses, a restart's recovery */
void rtmond_load_key_init(void);	/* rtmond_load_tag/_key: the module load */
/* The previous run's window (DIR/rtmond.seq and the files' tails). */
void rtmond_seq_load(const char *dir);
int rtmond_seq_check(uint64_t seq);	/* 1: new; 0: stored already (read again) */
void rtmond_seq_rings_empty(void);	/* a read found nothing */
int rtmond_seq_hole_open(void);
/* a hole old enough to be a loss, if the rings (not read since) lack it */
int rtmond_seq_hole_unread(void);
void rtmond_seq_expire(int now_all);	/* old holes (all: at the stop) are losses */
void rtmond_seq_copy(struct rtmond_seqwin *w);	/* for the writer to save */
uint64_t rtmond_seq_last(void);

/* targets.c: the module's targets, statistics slots, target ids */
void rtmond_targets_init(unsigned int max_targets);
/*
 * Fill nl (nl->conf set) from the module, old the configuration before
 * (NULL at start): all or nothing; 0 or -errno, logged.
 */
int rtmond_sync_targets(struct rtmond_live *old, struct rtmond_live *nl);
void rtmond_build_id_map(const struct rtmond_live *l);
const char *rtmond_id_name(uint16_t id);
int rtmond_id_slot(uint16_t id);

/* privs.c: real time and capabilities, in the order privs.c explains */
void rtmond_drop_bound(const struct rtmond_config *c);	/* 1: bounding set */
/* 2: fn in a SCHED_OTHER thread with the other threads' capabilities */
int rtmond_run_aux(const struct rtmond_config *c, int (*fn)(const struct rtmond_config *c));
void rtmond_go_realtime(const struct rtmond_config *c);	/* 3: the reader */
void rtmond_drop_caps(const struct rtmond_config *c);

/* reader.c: the real-time reader and its loop */
void rtmond_reader_set_watchdog(uint64_t period_ns);	/* 0: none */
void rtmond_reader_open(void);		/* the record stream, at start */
/* WATCHDOG=1 if what is read goes on to storage; 1 when held back */
int rtmond_reader_watchdog_kick(void);
void rtmond_reader_ack(void);		/* what the writer stored, acknowledged */
/*
 * Until SIGTERM/SIGINT on sfd (SIGHUP: reload), then what the rings hold
 * stored: 0, or 1 when poll() failed.
 */
int rtmond_reader_run(int sfd, void (*reload)(void));

#endif /* RTMOND_H */

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ftrace_snap.h - the kernel events of an ftrace text snapshot (what
 * rtmond saves per miss: its instance's 'snapshot' file, mono clock),
 * as the explanation of a miss needs them.
 *
 * Lines are "  comm-pid  [cpu] flags  secs.usecs: event: fields" as the
 * tracefs 'trace'/'snapshot' files print them (the flags column may be
 * missing). Events read: sched_switch, sched_waking, sched_migrate_task,
 * irq_handler_entry/exit, softirq_entry/exit, hrtimer_expire_entry/exit;
 * others are skipped. A line that looks like an event of these kinds but
 * cannot be read is counted in bad_lines (with the first one kept), never
 * guessed at.
 */
#ifndef FTRACE_SNAP_H
#define FTRACE_SNAP_H

#include <stddef.h>
#include <stdint.h>

#define FTS_COMM_LEN	16	/* the kernel's TASK_COMM_LEN */

enum fts_type {
	FTS_SWITCH,		/* prev -> next */
	FTS_WAKING,		/* task (the line's task is the waker) */
	FTS_MIGRATE,		/* task, orig_cpu -> dest_cpu */
	FTS_IRQ_ENTRY,		/* irq, name */
	FTS_IRQ_EXIT,
	FTS_SOFTIRQ_ENTRY,	/* vec */
	FTS_SOFTIRQ_EXIT,
	FTS_TIMER_ENTRY,
	FTS_TIMER_EXIT,
	FTS_WORK_BEGIN,		/* rtmon_work: librtmon's markers, cookie */
	FTS_WORK_END,
};

struct fts_task {
	uint32_t pid;
	int prio;		/* kernel prio: < 100 real-time, 120 nice 0 */
	char comm[FTS_COMM_LEN];
};

struct fts_event {
	uint64_t ts;		/* ns (the file has microseconds) */
	int cpu;
	enum fts_type type;
	struct fts_task cur;	/* the task the line was traced in */
	struct fts_task a;	/* switch: prev; waking/migrate: the task */
	struct fts_task b;	/* switch: next */
	char prev_state[8];	/* switch: "R", "R+", "S", "D", ... */
	int n;			/* irq number, softirq vec, waking
				 * target_cpu, migrate dest_cpu */
	int orig_cpu;		/* migrate */
	uint64_t cookie;	/* work begin/end */
	char name[24];		/* irq: handler name; timer entry: callback */
	unsigned long line;	/* in the file (ties in time keep file order) */
};

struct fts_trace {
	struct fts_event *ev;	/* in file order (time order per cpu) */
	size_t n, cap;
	unsigned int ncpus;	/* highest cpu seen + 1 */
	unsigned long lines, bad_lines;
	unsigned long first_bad;	/* line number, 0: none */
	/*
	 * first_ts: from when every cpu's events are there. When the buffer
	 * overran (the header's entries-written above entries-in-buffer, or
	 * a "CPU N buffer started" mark), each cpu lost its oldest events up
	 * to its own first one: the latest of those firsts.
	 */
	uint64_t first_ts, last_ts;
	int overrun;
};

/*
 * Read an ftrace text buffer (len bytes, need not be NUL-terminated) into
 * t (zeroed first; fts_free() after). Events are sorted by time. Returns
 * 0, or -1 on allocation failure.
 */
int fts_parse(struct fts_trace *t, const char *buf, size_t len);
/* Read the file at path: 0, or -errno. */
int fts_load(struct fts_trace *t, const char *path);
void fts_free(struct fts_trace *t);

#endif /* FTRACE_SNAP_H */

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * replay.h - the pieces of rtmon-replay and the interface between them.
 *
 *   replay.c          options, main loop, core setup, records, counters
 *   replay_rtm.c      the native format (one event per line)
 *   replay_ftrace.c   ftrace / trace-cmd report text lines -> rx_kev
 *   replay_kev.c      kernel events (rx_kev) -> core calls: the ftrace
 *                     semantics (contexts, held irq exits, timer starts,
 *                     ticks) shared by the text and .dat readers
 *   replay_dat.c      trace-cmd .dat files (libtracecmd) -> rx_kev
 *   replay_explain.c  --explain
 */
#ifndef REPLAY_H
#define REPLAY_H

#include <stdbool.h>
#include <stdio.h>

#include "rtm_core.h"

struct rtm_record;

/* ---- an input format ---- */

struct rx_input {
	const char *name;
	/* text formats: one line (NUL-terminated, newline included) */
	void (*line)(char *line);
	/* binary formats: the whole file (path, or NULL: stdin) */
	void (*file)(const char *path);
	/* end of input: replay what is still held, before the final drain */
	void (*end)(void);
};

extern const struct rx_input rx_rtm_input;
extern const struct rx_input rx_ftrace_input;
extern const struct rx_input rx_dat_input;

/* a .dat starts with these bytes */
#define RX_DAT_MAGIC		"\x17\x08\x44tracing"
#define RX_DAT_MAGIC_LEN	10

/* ---- replay.c: options and shared state ---- */

enum rx_fmt { FMT_AUTO, FMT_RTM, FMT_FTRACE, FMT_DAT };

struct opts {
	enum rx_fmt fmt;
	bool json;
	bool drain_at_end;
	bool flush;
	bool explain;		/* explain every record from the trace */
	bool summary;		/* rtmonctl records' summary, before the counters */
	__u64 tick_ns;		/* ftrace, .dat: synthesized tick period */
};

extern struct opts opt;
extern struct rtm_params params;
extern bool params_set;
extern struct rtm_core *core;
extern const char *fname;
extern unsigned long lineno;
extern __u64 last_ts;
extern struct rtm_target_spec pending_tg[RTM_MAX_TARGETS];
extern bool pending_used[RTM_MAX_TARGETS];
extern const char *vec_names[RTM_NR_SOFTIRQ];

/*
 * Where an input error is: "file:line: " by default; a reader of a
 * binary format sets its own (file, cpu, record).
 */
extern void (*rx_where)(FILE *f);

void __attribute__((noreturn, format(printf, 1, 2)))
input_error(const char *fmt, ...);
void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...);
/*
 * A text line that is no event line at all (a header, a banner, a line
 * cut short): counted, the first few shown on stderr with where they
 * are, the count in the counters and in a last stderr line. A line of an
 * event the replay reads whose fields are wrong stays an input_error():
 * skipping it would change the answer.
 */
void __attribute__((format(printf, 1, 2)))
not_understood(const char *fmt, ...);
extern unsigned long rx_not_understood;

bool parse_u64(const char *s, __u64 *out);
bool parse_dur(const char *s, __u64 *out);
void comm_copy(char *dst, const char *src);
unsigned int timer_kind_parse(const char *s);
unsigned int timer_kind_of_fn(const char *fn);

/* key=value tokens */
struct kv {
	char *k, *v;
};

int split_kv(char **tok, int n, struct kv *kv);
const char *kv_get(struct kv *kv, int n, const char *k, bool req);
void kv_check(struct kv *kv, int n, const char *const *allowed);
__u64 kv_u64(struct kv *kv, int n, const char *k, bool req, __u64 def);
__u32 kv_u32(struct kv *kv, int n, const char *k, bool req, __u32 def);

int parse_target(struct kv *kv, int n, __u32 *id, char *err, size_t errlen);
void rtm_param_line(struct kv *kv, int n);

/* binary input: what was printed on stdout so far (a library's words) */
void spool_text(char *buf, size_t len);

void core_setup(void);
void drain(void);
void after_event(void);
void track_switch(__u64 cpu, __u32 next);
int running_cpu(__u32 pid);
void check_cpu(__u64 cpu);
void set_ts(__u64 ts);

/* ---- replay_kev.c: kernel events, as ftrace and trace-cmd record them ---- */

#define NCPU_FT		64	/* cpus a kernel trace may have */

enum rx_kev_type {
	RX_KEV_OTHER,		/* not used (still ends a held irq exit) */
	RX_KEV_IRQ_ENTRY,
	RX_KEV_IRQ_EXIT,
	RX_KEV_SOFTIRQ_RAISE,
	RX_KEV_SOFTIRQ_ENTRY,
	RX_KEV_SOFTIRQ_EXIT,
	RX_KEV_HRTIMER_START,
	RX_KEV_HRTIMER_ENTRY,
	RX_KEV_HRTIMER_EXIT,
	RX_KEV_WAKING,
	RX_KEV_SWITCH,
	RX_KEV_WORK_BEGIN,
	RX_KEV_WORK_END,
	RX_KEV_LOCK_BEGIN,	/* lock:contention_begin (flags: lock_rt) */
	RX_KEV_LOCK_END,	/* lock:contention_end */
	RX_KEV_KWORK_QUEUE,	/* workqueue_queue_work (cookie: the work) */
	RX_KEV_KWORK_START,	/* workqueue_execute_start */
	RX_KEV_KWORK_END,	/* workqueue_execute_end */
};

/* one kernel event, parsed: what each event type uses is set */
struct rx_kev {
	enum rx_kev_type type;
	__u32 cpu;
	__u64 ts;
	char flag;		/* 'h' hardirq, 's' softirq, '.' task; 0 unknown */
	__u32 pid;		/* the task the event happened in */
	char comm[RTM_COMM_LEN];	/* its comm ("" unknown) */
	bool work_comm;		/* work begin/end: pass comm to the core */
	__u32 irq;		/* irq entry/exit */
	bool handled;		/* irq exit: ret=handled */
	__u32 vec;		/* softirq */
	__u64 timer;		/* hrtimer start/entry/exit */
	__u64 expires;		/* hrtimer start: the soft expiry */
	__u64 now;		/* hrtimer entry: the handler's clock read */
	unsigned int timer_kind;	/* hrtimer entry: RTM_TIMER_*, from the function */
	__u32 prev;		/* switch */
	long prev_state;	/* switch: 0 preempted (runnable), 1 blocked,
				 * RTM_SWITCH_BLOCKED_D in D */
	__u32 next;		/* switch: next task; waking: the woken task */
	char next_comm[RTM_COMM_LEN];
	char prev_comm[RTM_COMM_LEN];	/* switch ("" unknown) */
	__u32 prev_prio, next_prio;	/* switch: RTM_PRIO_UNKNOWN unknown */
	__u64 cookie;		/* work begin/end */
	bool lock_rt;		/* lock begin: LCB_F_RT, an rtmutex-based wait */
};

/* lock waits on PREEMPT_RT seen so far (replay_kev.c), for the summary */
extern unsigned long rx_lock_waits, rx_lock_handovers;
/* wakings of a task current elsewhere that was on its way to sleep */
extern unsigned long rx_wakeups_asleep;
/* handled IRQ exits taken as reruns of the IRQ's awake thread */
extern unsigned long rx_irq_reruns;

/* the trace's clock, as far as the reader knows it */
enum rx_clock {
	RX_CLOCK_GUESS,		/* unknown: mono when `now` is just before the event */
	RX_CLOCK_MONO,		/* the timers' clock: a chain starts at the expiry */
	RX_CLOCK_OTHER,		/* another clock: expiry = event - (now - expires) */
};

extern enum rx_clock rx_trace_clock;

/* replay one event; cpu < params.ncpus and < NCPU_FT, core set up */
void rx_kevent(const struct rx_kev *e);
/* end of a kernel trace: replay the irq exits still held */
void rx_kev_end(void);

/* ---- --explain (replay_explain.c): keep an input line, a record emitted ---- */
void rx_keep_line(const char *line);
void rx_keep_record(const struct rtm_record *r);
/*
 * Explain every record kept, from the lines kept, on stdout: text, or
 * one {"type":"explain","seq":N,...} object per record. 0, or 1 (out of
 * memory, said on stderr).
 */
int rx_explain_all(bool json);

#endif /* REPLAY_H */

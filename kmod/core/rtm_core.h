/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rtm_core.h - rtmon chain-tracking core: public API.
 *
 * The core follows interrupt-to-task wakeup chains on all CPUs at once.
 * Callers (kernel tracepoint probes, or rtmon-replay in user space) call
 * one rtm_ev_*() function per event. Rules for callers:
 *
 *  - Calls for a given cpu are made on that cpu with preemption disabled;
 *    they may nest (hard IRQ over softirq/task context on the same cpu).
 *    Different cpus call fully concurrently. Entry points never block,
 *    never allocate and take no locks.
 *  - Timestamps are monotonic nanoseconds, all on one clock.
 *  - comm arguments point to RTM_COMM_LEN (16) bytes, NUL padded (like
 *    task_struct::comm); NULL means unknown.
 *  - pid 0 (idle) is never tracked.
 *
 * Memory: rtm_core_memsize() tells the size of ONE block (64-byte aligned)
 * the caller provides to rtm_core_init(); the core never allocates again.
 * Exhaustion of any pool is a counted drop (struct rtm_stats), never
 * corruption.
 *
 * Control path (rtm_core_set_target/clear_target/stats/check_quiescent)
 * must be serialized by the caller; it may run concurrently with events.
 */
#ifndef RTM_CORE_H
#define RTM_CORE_H

#include "rtm_record.h"

#define RTM_MAX_TARGETS		32
#define RTM_MAX_IRQ		1024	/* irq numbers >= this are never tracked */
#define RTM_NR_SOFTIRQ		10

struct rtm_core;

/* Sizing, fixed at init. Use rtm_params_default() then override. */
struct rtm_params {
	__u32 ncpus;		/* cpu ids passed to rtm_ev_*() are < ncpus */
	__u32 nchains;		/* chain pool (open chains) */
	__u32 nbranches;	/* branch pool (live branch tips) */
	__u32 chain_hops;	/* hop slots per chain, 2..1024 */
	__u32 task_buckets;	/* task table buckets (power of 2, 7 ways each) */
	__u32 cookie_buckets;	/* work-cookie table buckets (power of 2) */
	__u32 ring_slots;	/* records per cpu ring (power of 2) */
	__u32 reserved;
	__u64 max_age_ns;	/* tick reclaims chains older than this */
};

/* Target end conditions */
#define RTM_END_SWITCH_IN	0	/* target task is switched in */
#define RTM_END_BLOCK		1	/* target task blocks again */
#define RTM_END_WORK_END	2	/* work_end with a cookie begun on the chain */
#define RTM_END_NR		3

/* Target source filters */
#define RTM_SRC_ANY		0	/* any hard IRQ and timers (.timers) */
#define RTM_SRC_IRQ		1	/* hard IRQ number .irq */
#define RTM_SRC_TIMER		2	/* hrtimers of the kinds in .timers */
#define RTM_SRC_IRQ_ANY		3	/* any hard IRQ, no timers */

/*
 * A target: which chains to complete and when. Empty comm / zero pid /
 * zero tgid match any task. A target with no task filter at all is an
 * "IRQ-only" target (src must be an IRQ filter): its chain ends when the
 * IRQ's own handling ends (hard IRQ exit without thread wake, or the IRQ
 * thread woken by it blocks again); .end is ignored.
 */
struct rtm_target_spec {
	char comm[RTM_COMM_LEN];
	__u32 pid;
	__u32 tgid;
	__u32 src;		/* RTM_SRC_* */
	__u32 irq;		/* for RTM_SRC_IRQ */
	__u32 end;		/* RTM_END_* */
	__u32 flags;		/* RTM_TGT_* */
	__u64 deadline_ns;	/* 0: no deadline */
	__u32 timers;		/* RTM_SRC_ANY/TIMER: bit (1 << RTM_TIMER_*)
				 * per timer kind accepted, 0 = all kinds;
				 * must be 0 for IRQ sources */
	__u32 pad;
};
/*
 * Only the target's misses and TIMEOUT reports are numbered and written;
 * its other records are built for the hook (seq 0) and counted as
 * records_skipped. Readers' sequence gaps stay losses.
 */
#define RTM_TGT_MISSES_ONLY	0x1

/* Counters (summed over cpus). See README.md for the invariants. */
struct rtm_stats {
	__u64 chains_started;
	__u64 chains_completed;
	__u64 chains_abandoned;	/* every branch closed before any target */
	__u64 chains_expired;	/* reclaimed by tick after max_age_ns */
	__u64 chains_overdue;	/* TIMEOUT records (open past deadline) */
	__u64 branches_opened;
	__u64 branches_completed;	/* the branch that completed its chain */
	__u64 branches_closed;	/* blocked/ended without reaching a target */
	__u64 branches_pruned;	/* its chain was already done */
	__u64 branches_merged;	/* lost a merge (older chain kept) */
	__u64 branches_stale;	/* replaced/invalidated (lost events) */
	__u64 branches_dropped;	/* no room in the task/cookie table */
	__u64 records_emitted;	/* sequence numbers handed out */
	__u64 records_written;	/* stored into a ring */
	__u64 records_filtered;	/* rejected by the record hook */
	__u64 records_skipped;	/* not numbered: a misses-only target's
				 * record that met its deadline */
	__u64 records_read;
	__u64 drop_ring_full;
	__u64 drop_no_chain;
	__u64 drop_no_branch;
	__u64 drop_task_bucket;
	__u64 drop_cookie_bucket;
	__u64 drop_hops;	/* hops not stored (chain hop array full) */
	__u64 truncated;	/* records with RTM_REC_F_TRUNCATED */
	__u64 hook_skipped;	/* ring-full records the hook did not see
				 * (overflow scratch busy: nested emitter) */
	/*
	 * Threaded IRQs whose thread got no traced wakeup (see README.md,
	 * "Wakeups the kernel does not trace"): followed (irq_rerun), or
	 * counted as the loss of that interrupt's own chain.
	 */
	__u64 irq_rerun;	/* IRQ found its thread awake: chain handed
				 * to the thread's next pass (followed) */
	__u64 irq_coalesced;	/* ... while the thread's pass under way had
				 * not handed its work on yet: handled in
				 * that pass, no chain of its own */
	__u64 irq_nowake;	/* armed for its thread's wakeup, none came */
	__u64 work_untraced;	/* work_begin by a task carrying no open
				 * chain: what brought it that work reached
				 * it untraced (it was awake already) */
	__u64 work_handoff;	/* ... and took up an IRQ thread's pass that
				 * handed nothing traced (followed) */
	__u64 softirq_repoll;	/* chains started at a softirq's re-raise
				 * after its IRQ chain completed (REPOLL) */
};

/* Fill *p with defaults for ncpus cpus. */
void rtm_params_default(struct rtm_params *p, __u32 ncpus);

/* Bytes needed for the memory block; 0 if the params are invalid. */
__SIZE_TYPE__ rtm_core_memsize(const struct rtm_params *p);

/*
 * Initialise the core inside mem (64-byte aligned, len >= memsize).
 * Returns the core handle (== mem) or NULL on bad params/size/alignment.
 */
struct rtm_core *rtm_core_init(void *mem, __SIZE_TYPE__ len,
			       const struct rtm_params *p);

/* Install/replace target id (< RTM_MAX_TARGETS). 0, or -22 (EINVAL). */
int rtm_core_set_target(struct rtm_core *c, __u32 id,
			const struct rtm_target_spec *t);
int rtm_core_clear_target(struct rtm_core *c, __u32 id);

/* ---- event entry points (hot path) ---- */
void rtm_ev_irq_entry(struct rtm_core *c, __u32 cpu, __u64 ts, __u32 irq);
/*
 * woke_thread: the handler returned IRQ_WAKE_THREAD; thread_pid: that
 * thread (0: unknown, the next hardirq wakeup on the cpu is taken as it).
 * Its sched_waking is expected next, from this context.
 */
void rtm_ev_irq_exit(struct rtm_core *c, __u32 cpu, __u64 ts, __u32 irq,
		     int woke_thread, __u32 thread_pid);
/*
 * The handler returned IRQ_WAKE_THREAD but its thread is awake already
 * (TASK_RUNNING: runnable, or running on thread_cpu >= 0; -1 when not on
 * a cpu): the kernel only marks it to run again, no wakeup is traced. The
 * chain continues on the thread's next pass.
 */
void rtm_ev_irq_exit_rerun(struct rtm_core *c, __u32 cpu, __u64 ts,
			   __u32 irq, __u32 thread_pid,
			   const char *thread_comm, int thread_cpu);
/* ctx: RTM_CTX_* of the code raising the softirq */
void rtm_ev_softirq_raise(struct rtm_core *c, __u32 cpu, __u64 ts,
			  __u32 vec, __u32 ctx);
void rtm_ev_softirq_entry(struct rtm_core *c, __u32 cpu, __u64 ts, __u32 vec);
void rtm_ev_softirq_exit(struct rtm_core *c, __u32 cpu, __u64 ts, __u32 vec);
/*
 * hrtimer expiry. ts = handler "now"; expires = programmed expiry (the
 * chain start); tkind: RTM_TIMER_* of the timer's callback. A sleeper's
 * chain starts here; any other kind's expiry is only remembered on the
 * cpu, and its chain made at the first wakeup the callback does of a task
 * a target may want (the tick and timers that wake no one make none).
 * ctx: RTM_CTX_* the handler runs in: RTM_CTX_HARDIRQ for timers expiring
 * in hrtimer_interrupt(), RTM_CTX_SOFTIRQ for timers expiring in the
 * HRTIMER softirq (HRTIMER_MODE_SOFT, and on PREEMPT_RT the timers of
 * non-RT tasks, run by ktimers/N where in_serving_softirq() is true).
 * RTM_CTX_TASK is treated as RTM_CTX_SOFTIRQ. While the handler runs, its
 * chain owns the wakeups/raises made in that context on that cpu (a soft
 * timer's wakeups must be reported with RTM_CTX_SOFTIRQ); hard IRQs nested
 * in a soft timer callback are not part of its chain. Pass the same ctx to
 * the matching rtm_ev_timer_exit(). Its timer_id may be 0 (unknown: at
 * hrtimer_expire_exit a sleeper's task is already cleared and another
 * timer may be freed): callbacks of one context do not nest on a cpu, so
 * the context's timer branch is that timer's; a nonzero id that differs
 * marks the branch stale (a missed exit). The exit's ts is not used (a
 * timer's branch ends there with no hop): callers may pass 0 and skip the
 * clock read.
 */
void rtm_ev_timer_entry(struct rtm_core *c, __u32 cpu, __u64 ts,
			__u64 timer_id, __u64 expires, __u32 tkind, __u32 ctx);
void rtm_ev_timer_exit(struct rtm_core *c, __u32 cpu, __u64 ts,
		       __u64 timer_id, __u32 ctx);
/* ctx: RTM_CTX_* of the waker; waker_pid: current pid (0 = unknown) */
void rtm_ev_waking(struct rtm_core *c, __u32 cpu, __u64 ts, __u32 ctx,
		   __u32 waker_pid, __u32 pid, __u32 tgid, const char *comm);
/*
 * The same, for a wakeup that finds the task still running on run_cpu (on
 * its runqueue and current there: it sees the work without a switch_in);
 * run_cpu -1 is rtm_ev_waking(). Such a wakeup hands the task its new
 * chain at once (replacing the chain it was running for), or completes a
 * switch_in target right there. A separate entry point keeps the common
 * wakeup's arguments in registers.
 */
void rtm_ev_waking_running(struct rtm_core *c, __u32 cpu, __u64 ts,
			   __u32 ctx, __u32 waker_pid, __u32 pid, __u32 tgid,
			   const char *comm, int run_cpu);
/*
 * prev_state: 0 = still runnable (preempted), else blocked (1, or one of
 * the two below); RTM_SWITCH_WAKE_PENDING, or'ed to a blocked state: a
 * wakeup of it is under way (its waker holds its pi_lock, waiting for this
 * cpu's runqueue lock: the task was inside __schedule on its way to sleep
 * when that wakeup found it still current, and is woken after the switch
 * with no second waking).
 */
#define RTM_SWITCH_WAKE_PENDING	0x10
/*
 * RTM_SWITCH_BLOCKED_D: blocked uninterruptibly (D: a lock, a bus
 * transfer, I/O). RTM_SWITCH_LOCK_WAIT: waiting for a PREEMPT_RT sleeping
 * spinlock (TASK_RTLOCK_WAIT; trace text shows it as D), never the end of
 * a task's processing (hop wait). An IRQ thread's pass goes on through
 * either (hop wait): it is over only when the thread waits for its next
 * interrupt, in S. So the rule holds from D alone, as a recording without
 * lock events has it.
 */
#define RTM_SWITCH_BLOCKED_D	3
#define RTM_SWITCH_LOCK_WAIT	4
/*
 * who: the two tasks' kernel priorities (0-139, RTM_PRIO_UNKNOWN) and
 * prev's comm (RTM_COMM_LEN bytes readable, or NULL), which name the task
 * a chain's task waited behind (record.blame); NULL: not known.
 */
struct rtm_switch_who {
	__u32 prev_prio;
	__u32 next_prio;
	const char *prev_comm;
};
void rtm_ev_switch(struct rtm_core *c, __u32 cpu, __u64 ts, __u32 prev_pid,
		   long prev_state, __u32 next_pid, __u32 next_tgid,
		   const char *next_comm, const struct rtm_switch_who *who);
/*
 * comm: the task's (NULL: unknown; a task with no open chain then takes
 * up no IRQ thread's pass for a comm target: rtm_handoff.c)
 */
void rtm_ev_work_begin(struct rtm_core *c, __u32 cpu, __u64 ts, __u32 pid,
		       __u32 tgid, __u64 cookie, const char *comm);
void rtm_ev_work_end(struct rtm_core *c, __u32 cpu, __u64 ts, __u32 pid,
		     __u32 tgid, __u64 cookie, const char *comm);
/*
 * Kernel workqueue items (rtm_kwork.c): ctx (task: pid) queues item work
 * (workqueue_queue_work; its address); kworker pid starts it
 * (workqueue_execute_start) and ends it (workqueue_execute_end), on cpu,
 * in ctx: RTM_CTX_TASK, or softirq for a BH workqueue's item (ignored).
 */
void rtm_ev_kwork_queue(struct rtm_core *c, __u32 cpu, __u64 ts, __u32 ctx,
			__u32 pid, __u64 work);
void rtm_ev_kwork_start(struct rtm_core *c, __u32 cpu, __u64 ts, __u32 ctx,
			__u32 pid, __u32 tgid, const char *comm, __u64 work);
void rtm_ev_kwork_end(struct rtm_core *c, __u32 cpu, __u64 ts, __u32 ctx,
		      __u32 pid, __u64 work);
/*
 * Periodic housekeeping (any cpu, any context, e.g. every 10 ms): reports
 * chains open past their deadline (TIMEOUT record, once), reclaims chains
 * older than max_age_ns and prunes branches of finished chains. It scans
 * the pools and tables (O(nchains + table slots)); it takes no locks and
 * may be preempted or migrate, so call it from a low-priority context
 * (kthread/workqueue) rather than from hard IRQ on PREEMPT_RT. cpu only
 * selects the counters and the ring for TIMEOUT records.
 */
void rtm_ev_tick(struct rtm_core *c, __u32 cpu, __u64 now);

/*
 * The same tick in steps, for a caller that must bound how long it runs
 * without a preemption point (the module: batches with preemption off,
 * cond_resched() between them). rtm_tick_begin() fixes the tick's time;
 * each rtm_tick_run() does at most budget units (one chain, one cpu's
 * slots, one table bucket, ...) and returns nonzero while some are left.
 * cpu may differ from one call to the next (the caller migrated).
 */
struct rtm_tick_pos {
	__u64 now;
	__u64 min_dl;
	__u32 phase;
	__u32 i;
	__u32 expire_all;
	__u32 pad;
};
void rtm_tick_begin(struct rtm_core *c, struct rtm_tick_pos *t, __u64 now);
int rtm_tick_run(struct rtm_core *c, __u32 cpu, struct rtm_tick_pos *t,
		 __u32 budget);

/* ---- readout ---- */

/*
 * Record hook: called for every record the core emits (completions and
 * TIMEOUT reports), on the emitting cpu, in event context (possibly nested,
 * possibly with scheduler locks held: must not sleep or take locks), after
 * the record is built in its ring slot and before it is published. Return
 * nonzero to publish it to the ring, zero to filter it (counted as
 * records_filtered; its ring slot is given back). Set it once, before the
 * first event; NULL (default) publishes everything.
 *
 * A record that gets no ring slot (ring full: drop_ring_full) is still
 * built, in a per-cpu overflow scratch, flagged RTM_REC_F_RING_FULL, and
 * passed to the hook, then dropped whatever the hook returns (it keeps its
 * seq, so readers see the gap). If that cpu's scratch is in use by an
 * emitter the call nests over (or by a tick on another cpu emitting for
 * it), the hook is skipped for the record (hook_skipped). A misses-only
 * target's record that met its deadline (records_skipped) is built there
 * too, with seq 0, and never written. So with a hook: hook calls +
 * hook_skipped == records_emitted + records_skipped.
 */
typedef _Bool (*rtm_record_hook_t)(void *arg, __u32 cpu,
				   const struct rtm_record *rec);
void rtm_core_set_hook(struct rtm_core *c, rtm_record_hook_t fn, void *arg);

/*
 * Called after a record is published to its cpu's ring (readable by
 * rtm_core_read()), on the emitting cpu, in the same context as the hook,
 * with the hook's arg: where to wake a reader. A wakeup from the hook
 * could run (a self-IPI once interrupts are on) and find the ring still
 * empty. Not called for filtered or dropped records. Set before events.
 */
typedef void (*rtm_notify_fn_t)(void *arg, __u32 cpu);
void rtm_core_set_notify(struct rtm_core *c, rtm_notify_fn_t fn);

/* Pop one record of cpu's ring into *out: 1 if copied, 0 if empty. */
int rtm_core_read(struct rtm_core *c, __u32 cpu, struct rtm_record *out);

/*
 * Acknowledged reads, for a reader that must not lose what it read if it
 * dies before storing it: rtm_core_peek() copies the next record like
 * rtm_core_read() but keeps its ring slot (writers cannot reuse it: a
 * reader that never releases fills the ring, drop_ring_full);
 * rtm_core_release() frees every record peeked on that cpu and counts them
 * read (returns how many); rtm_core_rewind() makes the peeked, unreleased
 * records of that cpu readable again; rtm_core_unpeek() only the last one
 * peeked there (it could not be delivered). One reader at a time per core (the
 * caller serialises), and no rtm_core_read() between a peek and the
 * release or rewind that follows it.
 */
int rtm_core_peek(struct rtm_core *c, __u32 cpu, struct rtm_record *out);
__u32 rtm_core_release(struct rtm_core *c, __u32 cpu);
void rtm_core_unpeek(struct rtm_core *c, __u32 cpu);
void rtm_core_rewind(struct rtm_core *c, __u32 cpu);

/* Nonzero if some cpu ring has a published record not yet read or peeked
 * (e.g. for poll()). */
int rtm_core_pending(struct rtm_core *c);

void rtm_core_stats(struct rtm_core *c, struct rtm_stats *out);

/*
 * Only when no event call is running: number of leaked objects (nodes not
 * back in their pool, slots still holding a branch). 0 after a tick past
 * max_age_ns once the event stream stopped.
 */
__u32 rtm_core_check_quiescent(struct rtm_core *c);

/*
 * Only when no event call is running (tracking stopped): end every open
 * chain now, counted chains_expired, with no record and no overdue
 * report, and free their branches. Tracking that starts again begins
 * clean: a chain open across a stop would complete (or time out) with the
 * stopped time in its latency.
 */
void rtm_core_expire_all(struct rtm_core *c, __u32 cpu);

#endif /* RTM_CORE_H */

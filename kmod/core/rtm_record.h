/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rtm_record.h - the rtmon chain record (uapi-friendly, fixed size).
 *
 * One record is emitted per completed chain and one per chain reported
 * overdue while still open (RTM_REC_F_TIMEOUT). Records are read from the
 * per-CPU rings with rtm_core_read(). Only fixed-width __u* types, explicit
 * padding, no pointers: the layout is identical for kernel, 32- and 64-bit
 * user space. Bump RTM_REC_VERSION on any layout change.
 */
#ifndef RTM_RECORD_H
#define RTM_RECORD_H

#include <linux/types.h>

#define RTM_REC_VERSION		6	/* 2: cookie; 3: timer_kind; 4: blame;
					 * 5: queued; 6: interference */
#define RTM_REC_MAX_HOPS	16
#define RTM_COMM_LEN		16

/* record.kind: what started the chain */
#define RTM_KIND_IRQ		1	/* hard IRQ entry; source = irq number */
#define RTM_KIND_TIMER		2	/* hrtimer expiry; source = timer id:
					 * a sleeper's task, else the first
					 * task its callback woke */

/*
 * record.timer_kind (timer chains), and bit (1 << kind) of a target's
 * timers mask: which hrtimer callback started the chain.
 */
#define RTM_TIMER_SLEEPER	1	/* hrtimer_wakeup: nanosleep,
					 * clock_nanosleep, poll/select/epoll
					 * and futex timeouts */
#define RTM_TIMER_TIMERFD	2	/* timerfd_tmrproc: timerfd_create() */
#define RTM_TIMER_POSIX		3	/* posix_timer_fn (timer_create) and
					 * it_real_fn (setitimer ITIMER_REAL,
					 * alarm): a signal wakes the thread */
#define RTM_TIMER_TIMERLAT	4	/* timerlat_irq: the timerlat tracer
					 * (rtla timerlat) waking its thread */
#define RTM_TIMER_OTHER		5	/* any other callback that wakes a task */
#define RTM_TIMER_NR		6
#define RTM_TIMERS_ALL		0x3e	/* bits of all the kinds above */
/* their names, one list for the module, the tools and the replay */
#define RTM_TIMER_NAMES_INIT {						\
	[RTM_TIMER_SLEEPER] = "sleeper", [RTM_TIMER_TIMERFD] = "timerfd",	\
	[RTM_TIMER_POSIX] = "posix", [RTM_TIMER_TIMERLAT] = "timerlat",	\
	[RTM_TIMER_OTHER] = "other" }

/* record.flags */
#define RTM_REC_F_DEADLINE_MISS	0x0001	/* latency_ns > deadline_ns */
#define RTM_REC_F_TIMEOUT	0x0002	/* overdue report, chain still open */
#define RTM_REC_F_WAS_OVERDUE	0x0004	/* completion of a chain reported overdue */
#define RTM_REC_F_TRUNCATED	0x0008	/* path longer than RTM_REC_MAX_HOPS:
					 * hops[0] is the root, hops[1..] the
					 * last nhops-1 hops of the path */
#define RTM_REC_F_DROPPED_HOPS	0x0010	/* chain hop storage overflowed: some
					 * hops were never recorded */
#define RTM_REC_F_MERGED	0x0020	/* another chain merged into this one */
#define RTM_REC_F_RING_FULL	0x0040	/* seen only by the record hook: no
					 * ring slot, dropped after the hook
					 * (never read from a ring) */
#define RTM_REC_F_COOKIE	0x0080	/* completed by work_end: cookie valid */
#define RTM_REC_F_COALESCED	0x0100	/* another interrupt of this IRQ came
					 * before its thread had handed this
					 * chain's work on: the thread handled
					 * both in one pass, that interrupt has
					 * no record of its own (counted as
					 * irq_coalesced) */
#define RTM_REC_F_REPOLL	0x0200	/* started at a softirq's re-raise
					 * by its own pass after the IRQ's
					 * chain had completed (NAPI polling
					 * on): the data that pass handled
					 * came with no interrupt of its own,
					 * maybe after the re-raise, so the
					 * latency is an upper bound: never
					 * DEADLINE_MISS nor TIMEOUT */

/* hop.type */
#define RTM_HOP_IRQ		1	/* hard IRQ entry; pid = irq number */
#define RTM_HOP_TIMER		2	/* programmed hrtimer expiry (chain start) */
#define RTM_HOP_TIMER_RUN	3	/* hrtimer handler ran (expire_entry) */
#define RTM_HOP_SOFTIRQ_RAISE	4	/* pid = softirq vector */
#define RTM_HOP_SOFTIRQ_ENTRY	5	/* pid = softirq vector */
#define RTM_HOP_WAKING		6	/* pid/comm = woken task */
#define RTM_HOP_SWITCH_IN	7	/* pid/comm = task switched in */
#define RTM_HOP_BLOCK		8	/* pid/comm = task that blocked */
#define RTM_HOP_WORK_BEGIN	9	/* pid = dispatcher task */
#define RTM_HOP_WORK_END	10	/* pid/comm = task ending the work */
#define RTM_HOP_IRQ_EXIT	11	/* hard IRQ exit; pid = irq number */
#define RTM_HOP_RERUN		12	/* hard IRQ exit asked its thread, already
					 * awake (runnable or running), to run
					 * again: no wakeup; pid/comm = thread */
#define RTM_HOP_HANDOFF		13	/* work_begin of a task that took up
					 * work an IRQ thread handed it with no
					 * traced wakeup (the task was awake):
					 * pid/comm = that task */
#define RTM_HOP_WAIT		14	/* an IRQ thread blocked mid-pass (D:
					 * a lock, a bus transfer), or a task
					 * waiting for a PREEMPT_RT sleeping
					 * lock; it goes on when it runs again:
					 * pid/comm = the task */
#define RTM_HOP_PREEMPT		15	/* the chain's task preempted (switched
					 * out runnable): pid/comm = that task */
#define RTM_HOP_QUEUED		16	/* the task ending a work item ended
					 * earlier work then (to 1024 ns
					 * below), after the item began, or a
					 * kworker started a workqueue item
					 * it was not woken for: the item
					 * waited for it until then;
					 * pid/comm = that task */
#define RTM_HOP_QUEUE_WORK	17	/* the chain queued a workqueue item
					 * (queue_work), in hop.ctx; pid 0 */

/* hop.ctx: context the event happened in (for WAKING/RAISE) */
#define RTM_CTX_TASK		0
#define RTM_CTX_SOFTIRQ		1
#define RTM_CTX_HARDIRQ		2

#define RTM_TARGET_NONE		0xffff

/*
 * record.blame: the latency cut into causes at the chain's own hops (the
 * intervals between consecutive hops of the root..end path, each given to
 * one category by the two hops around it), so that the parts add up to
 * latency_ns exactly. blame_ns[] is indexed by RTM_BLAME_*.
 */
#define RTM_BLAME_SOURCE	0	/* a timer's expiry to its handler */
#define RTM_BLAME_HANDLER	1	/* hard IRQ or timer handler */
#define RTM_BLAME_SOFTIRQ	2	/* softirq raised, pending and running */
#define RTM_BLAME_RUNNABLE	3	/* a woken task waiting for its cpu */
#define RTM_BLAME_RUNNING	4	/* the chain's task running */
#define RTM_BLAME_PREEMPTED	5	/* the chain's task preempted */
#define RTM_BLAME_BLOCKED	6	/* an IRQ thread waiting mid-pass */
#define RTM_BLAME_UNKNOWN	7	/* after the last hop known: the
					 * end's hop not stored (hop storage
					 * full), or a TIMEOUT report (the
					 * chain still open: its completion
					 * record has the blame) */
#define RTM_BLAME_QUEUED	8	/* a work item waiting for the task
					 * that ends it, busy with earlier
					 * work (or preempted meanwhile: a
					 * snapshot tells); after UNKNOWN,
					 * indexes stay those of version 4 */
#define RTM_BLAME_IRQ_INTF	9	/* hard IRQ handlers run on the cpu
					 * over the chain's task or softirq
					 * while it ran there */
#define RTM_BLAME_SOFTIRQ_INTF	10	/* softirqs (not the chain's) run
					 * over the chain's task, their IRQs
					 * left out */
#define RTM_BLAME_NR		11
#define RTM_BLAME_NAMES_INIT {						\
	[RTM_BLAME_SOURCE] = "source", [RTM_BLAME_HANDLER] = "handler",	\
	[RTM_BLAME_SOFTIRQ] = "softirq", [RTM_BLAME_RUNNABLE] = "runnable",	\
	[RTM_BLAME_RUNNING] = "running", [RTM_BLAME_PREEMPTED] = "preempted",	\
	[RTM_BLAME_BLOCKED] = "blocked", [RTM_BLAME_UNKNOWN] = "unknown",	\
	[RTM_BLAME_QUEUED] = "queued",					\
	[RTM_BLAME_IRQ_INTF] = "irq_interference",			\
	[RTM_BLAME_SOFTIRQ_INTF] = "softirq_interference" }
/*
 * The tasks that held the cpu while the chain's task waited for it
 * (runnable: the task switched out for it; preempted: the task that took
 * its cpu), and the tasks a work item waited for (queued), largest first;
 * culprit_other_ns: the rest of that time.
 */
#define RTM_REC_CULPRITS	4
#define RTM_PRIO_UNKNOWN	0xff	/* culprit.prio: not known */

struct rtm_rec_culprit {
	__u64 ns;			/* time charged to this task */
	__u32 pid;			/* 0: unused entry */
	__u8 category;			/* RTM_BLAME_RUNNABLE, _PREEMPTED or
					 * _QUEUED (of its largest share) */
	__u8 prio;			/* kernel prio: 0-99 real-time (99 -
					 * rt priority), 100-139 normal (120 +
					 * nice); RTM_PRIO_UNKNOWN */
	__u16 pad;
	__u8 comm[RTM_COMM_LEN];	/* NUL-padded, may be empty */
};

struct rtm_rec_blame {
	__u64 ns[RTM_BLAME_NR];
	struct rtm_rec_culprit culprit[RTM_REC_CULPRITS];
	__u64 culprit_other_ns;
};

struct rtm_rec_hop {
	__u64 ts_ns;			/* event time (monotonic ns) */
	__u32 pid;			/* see hop.type */
	__u16 cpu;
	__u8 type;			/* RTM_HOP_* */
	__u8 ctx;			/* RTM_CTX_* */
	__u8 comm[RTM_COMM_LEN];	/* NUL-padded, may be empty */
};

struct rtm_record {
	__u16 version;			/* RTM_REC_VERSION */
	__u16 size;			/* sizeof(struct rtm_record) */
	__u32 flags;			/* RTM_REC_F_* */
	__u64 seq;			/* global sequence: gaps = lost records */
	__u8 kind;			/* RTM_KIND_* */
	__u8 nhops;			/* valid entries in hops[] */
	__u16 cpu;			/* cpu that emitted the record */
	__u16 path_len;			/* hops on the root->tip path */
	__u16 target_id;		/* RTM_TARGET_NONE if unknown */
	__u64 source;			/* irq number or timer id */
	__u64 start_ns;			/* IRQ entry or programmed timer expiry */
	__u64 end_ns;			/* end event (or tick time for TIMEOUT) */
	__u64 latency_ns;		/* end_ns - start_ns */
	__u64 deadline_ns;		/* target deadline (0: none) */
	__u32 target_pid;
	__u32 target_tgid;
	__u8 target_comm[RTM_COMM_LEN];
	__u32 chain_hops;		/* hops recorded on the whole chain */
	__u32 timer_kind;		/* RTM_TIMER_* (timer chains), else 0 */
	__u64 cookie;			/* work cookie (RTM_REC_F_COOKIE), else 0 */
	struct rtm_rec_blame blame;
	struct rtm_rec_hop hops[RTM_REC_MAX_HOPS];
};

_Static_assert(sizeof(struct rtm_rec_hop) == 32, "rtm_rec_hop layout");
_Static_assert(sizeof(struct rtm_rec_culprit) == 32, "rtm_rec_culprit layout");
_Static_assert(sizeof(struct rtm_rec_blame) == 224, "rtm_rec_blame layout");
_Static_assert(sizeof(struct rtm_record) == 840, "rtm_record layout");

#endif /* RTM_RECORD_H */

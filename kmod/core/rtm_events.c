// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_events.c - the event entry points (hot path).
 *
 * Each entry point first checks, with one or two plain loads of per-cpu
 * slots (or the target filter, or one task-table occupancy word), whether
 * the event can touch a chain at all, and returns otherwise. Branches are
 * then taken out of their slot with an atomic exchange, updated by their
 * sole owner and put back, so nesting on the same cpu and tick running on
 * another cpu never see a half-updated branch.
 */
#include "rtm_internal.h"
#include "rtm_fast.h"

/*
 * Any non-hardirq event means the hardirq that armed the slot is over. An
 * armed branch that names its thread (pid) waited for that thread's
 * wakeup in vain: the interrupt's chain is lost, and counted so.
 */
static rtm_noinline void rtm_disarm_slow(struct rtm_core *c, u32 cpu,
					 struct rtm_cpu *pc)
{
	u32 b = rtm_slot_take(&pc->hi_armed);

	if (!b)
		return;
	if (rtm_br(c, b)->pid)
		rtm_count(c, cpu, RTM_C_IRQ_NOWAKE);
	rtm_branch_free(c, cpu, b, RTM_C_BR_STALE);
}

static rtm_always_inline void rtm_disarm(struct rtm_core *c, u32 cpu,
					 struct rtm_cpu *pc)
{
	if (rtm_unlikely(rtm_ld32(&pc->hi_armed)))
		rtm_disarm_slow(c, cpu, pc);
}

/*
 * An IRQ entry on a cpu with a branch in hi_cur, hi_armed (stale: freed,
 * disarmed), si_cur or task_cur (the IRQ interferes with it).
 */
static rtm_noinline void rtm_irq_busy(struct rtm_core *c, u32 cpu,
				      struct rtm_cpu *pc, u64 ts, u32 irq)
{
	u32 b;

	if (rtm_ld32(&pc->hi_cur) | rtm_ld32(&pc->hi_armed)) {
		b = rtm_slot_take(&pc->hi_cur);
		if (b)
			rtm_branch_free(c, cpu, b, RTM_C_BR_STALE);
		rtm_disarm(c, cpu, pc);
	}
	if (rtm_ld32(&pc->si_cur) | rtm_ld32(&pc->task_cur))
		rtm_intf_irq_entry(c, cpu, ts, irq);
}

/* hi_cur, hi_armed, si_cur or task_cur holds a branch */
static inline bool rtm_irq_entry_busy(struct rtm_cpu *pc)
{
	if (sizeof(void *) == 8)
		return rtm_ld32(&pc->hi_cur) | rtm_peek64(&pc->ctx_words[1]) |
		       rtm_ld32(&pc->task_cur);
	return rtm_ld32(&pc->hi_cur) | rtm_ld32(&pc->hi_armed) |
	       rtm_ld32(&pc->si_cur) | rtm_ld32(&pc->task_cur);
}

static rtm_noinline void rtm_irq_start(struct rtm_core *c, u32 cpu,
				       struct rtm_cpu *pc, u64 ts, u32 irq)
{
	u32 b = rtm_chain_start(c, cpu, RTM_KIND_IRQ, irq, ts, RTM_HOP_IRQ,
				irq);

	if (b)
		rtm_slot_replace(c, cpu, &pc->hi_cur, b);
}

void rtm_ev_irq_entry(struct rtm_core *c, u32 cpu, u64 ts, u32 irq)
{
	struct rtm_cpu *pc;
	const struct rtm_tset *t;
	u32 seq;
	bool want;

	if (!RTM_CPU_OK(c, cpu))
		return;
	pc = &c->cpus[cpu];
	if (rtm_unlikely(rtm_irq_entry_busy(pc)))
		rtm_irq_busy(c, cpu, pc, ts, irq);
	do {
		t = rtm_tset_begin(c, &seq);
		want = t->irq_any || (irq < RTM_MAX_IRQ &&
				      ((t->irq_bits[irq / 64] >> (irq % 64)) & 1));
	} while (rtm_tset_retry(c, seq));
	if (want)
		rtm_irq_start(c, cpu, pc, ts, irq);
}

/*
 * At irq_handler_exit: the branch of the IRQ's handler on this cpu, taken
 * out of hi_cur, or 0 (none, another IRQ's: stale, or its chain done).
 */
static rtm_always_inline u32 rtm_irq_exit_take(struct rtm_core *c, u32 cpu,
					       u32 irq)
{
	struct rtm_cpu *pc = &c->cpus[cpu];
	u32 b;

	if (!rtm_ld32(&pc->hi_cur))
		return 0;
	b = rtm_xchg32(&pc->hi_cur, 0);
	if (!b)
		return 0;
	if (rtm_unlikely(rtm_chain_of(c, rtm_ld32(&rtm_br(c, b)->chain))->source != irq)) {
		rtm_branch_free(c, cpu, b, RTM_C_BR_STALE);
		return 0;
	}
	if (rtm_branch_done(c, b)) {
		rtm_branch_free(c, cpu, b, RTM_C_BR_PRUNED);
		return 0;
	}
	return b;
}

/*
 * Branch b (an IRQ's, owned) becomes its thread's: the hop (waking, or
 * rerun when the thread was awake) names the thread.
 */
static rtm_always_inline void rtm_irq_thread_branch(struct rtm_core *c, u32 cpu,
						    u32 b, u64 ts, u32 hop, u32 ctx,
						    u32 pid, u32 tgid,
						    const char *comm)
{
	struct rtm_branch *br = rtm_br(c, b);

	br->flags |= RTM_BF_IRQTHREAD;
	br->pid = pid;
	br->tgid = tgid;
	rtm_comm_load(br->comm, comm);
	rtm_hop_add(c, cpu, b, hop, ctx, pid, br->comm, ts);
}

void rtm_ev_irq_exit(struct rtm_core *c, u32 cpu, u64 ts, u32 irq,
		     int woke_thread, u32 thread_pid)
{
	struct rtm_cpu *pc;
	const struct rtm_tset *t;
	struct rtm_chain *ch;
	u32 seq, b;
	int tid;
	u64 dl;

	if (!RTM_CPU_OK(c, cpu))
		return;
	pc = &c->cpus[cpu];
	if (rtm_unlikely(c->intf[cpu].irq_b))
		rtm_intf_irq_exit(c, cpu, ts, irq);
	b = rtm_irq_exit_take(c, cpu, irq);
	if (!b)
		return;
	ch = rtm_chain_of(c, rtm_ld32(&rtm_br(c, b)->chain));
	if (woke_thread) {
		/*
		 * the IRQ thread's sched_waking follows, from this context;
		 * the armed branch names the thread it waits for (0: any
		 * hardirq wakeup, when the caller cannot tell)
		 */
		rtm_br(c, b)->pid = thread_pid;
		rtm_slot_replace(c, cpu, &pc->hi_armed, b);
		return;
	}
	do {
		t = rtm_tset_begin(c, &seq);
		tid = rtm_target_irqonly(t, ch->kind, ch->source);
		dl = tid >= 0 ? t->t[tid].dl_emit : 0;
	} while (rtm_tset_retry(c, seq));
	if (tid >= 0) {
		/* mainline: the IRQ's handling ends at exit without thread */
		rtm_hop_add(c, cpu, b, RTM_HOP_IRQ_EXIT, RTM_CTX_HARDIRQ, irq,
			    NULL, ts);
		rtm_complete_free(c, cpu, b, ts, tid, dl, 0, 0, NULL);
		return;
	}
	rtm_branch_free(c, cpu, b, RTM_C_BR_CLOSED);
}

/*
 * Branch b woke its task: the chain is now late only for the task targets
 * whose whole filter that task, or another it woke, passes
 * (rtm_target_chain_deadline()). The comm filter of all task targets skips
 * the look-up for tasks no target may want.
 */
static rtm_always_inline void rtm_mark_candidate(struct rtm_core *c, u32 b)
{
	struct rtm_branch *br = rtm_br(c, b);
	/* the chain's line is already ours: rtm_hop_add just reserved a hop */
	struct rtm_chain *ch = rtm_chain_of(c, rtm_ld32(&br->chain));
	u32 cand;

	if (!(rtm_ld64(&c->tg.bloom_task) & rtm_comm_bit(br->comm)))
		return;
	cand = rtm_target_candidates(c, ch->kind, ch->source, br->pid,
				     br->tgid, br->comm);
	if (cand & ~rtm_ld32(&ch->cand))
		rtm_or32(&ch->cand, cand);
}

/*
 * Branch b, handed to the next pass of IRQ thread pid running on run_cpu:
 * exchanged into that cpu's running-task slot, whose branch (the thread's
 * pass under way) is then merged with it (rtm_pass_over()). The slot is
 * never left empty, so the thread's switch-out there always finds a
 * branch of it. A slot holding another task's branch means the thread left
 * that cpu meanwhile: b waits in the task table instead. An empty one:
 * as in rtm_wake_running().
 */
static void rtm_pass_running(struct rtm_core *c, u32 cpu, u32 b, u32 pid,
			     u32 run_cpu)
{
	rtm_a32 *slot = &c->cpus[run_cpu].task_cur;
	u32 old = rtm_ld32(slot);

	/* the thread may be on its way to sleep: see rtm_switch_out() */
	rtm_br(c, b)->flags |= RTM_BF_RUNWAKE;
	for (;;) {
		if (old && rtm_racy32(&rtm_br(c, old)->pid) != pid) {
			rtm_br(c, b)->flags &= ~RTM_BF_RUNWAKE;
			rtm_task_put_pass(c, cpu, pid, b);
			return;
		}
		if (rtm_cas32(slot, old, b))
			break;
		old = rtm_ld32(slot);
	}
	if (!old)
		return;
	if (rtm_unlikely(rtm_br(c, old)->pid != pid)) {
		/* the peek raced a reuse of old: give the slot back */
		if (rtm_cas32(slot, b, old)) {
			rtm_br(c, b)->flags &= ~RTM_BF_RUNWAKE;
			rtm_task_put_pass(c, cpu, pid, b);
		} else
			rtm_branch_free(c, cpu, old, RTM_C_BR_STALE);
		return;
	}
	if (rtm_pass_over(c, cpu, old))
		return;
	/*
	 * One pass handles both interrupts: old's chain, started first, is
	 * flagged while old is ours (back in the slot, run_cpu may end it).
	 */
	rtm_pass_coalesce(c, cpu, old, 0);
	if (rtm_cas32(slot, b, old)) {
		rtm_branch_free(c, cpu, b, RTM_C_BR_MERGED);
		return;
	}
	/* the thread's cpu took b meanwhile: b's chain goes on, not old's */
	rtm_branch_free(c, cpu, old, RTM_C_BR_MERGED);
}

void rtm_ev_irq_exit_rerun(struct rtm_core *c, u32 cpu, u64 ts, u32 irq,
			   u32 thread_pid, const char *thread_comm,
			   int thread_cpu)
{
	u32 b;

	if (!RTM_CPU_OK(c, cpu))
		return;
	if (rtm_unlikely(c->intf[cpu].irq_b))
		rtm_intf_irq_exit(c, cpu, ts, irq);
	b = rtm_irq_exit_take(c, cpu, irq);
	if (!b)
		return;
	if (!thread_pid) {
		rtm_branch_free(c, cpu, b, RTM_C_BR_CLOSED);
		return;
	}
	/* an IRQ thread is a kernel thread: its tgid is its pid */
	rtm_irq_thread_branch(c, cpu, b, ts, RTM_HOP_RERUN, RTM_CTX_HARDIRQ,
			      thread_pid, thread_pid, thread_comm);
	rtm_mark_candidate(c, b);
	rtm_count(c, cpu, RTM_C_IRQ_RERUN);
	if ((u32)thread_cpu < c->p.ncpus)
		rtm_pass_running(c, cpu, b, thread_pid, (u32)thread_cpu);
	else
		rtm_task_put_pass(c, cpu, thread_pid, b);
}

/* The pending expiry of a non-sleeper timer running in ctx on cpu. */
static inline struct rtm_tpend *rtm_tpend_of(struct rtm_core *c, u32 cpu,
					     u32 ctx)
{
	return &c->tpend[cpu * 2 + (ctx == RTM_CTX_HARDIRQ)];
}

/* A sleeper's chain starts at its expiry (its task is the timer's). */
static rtm_noinline void rtm_sleeper_start(struct rtm_core *c, u32 cpu,
					   rtm_a32 *slot, u64 ts, u64 timer_id,
					   u64 expires, u32 ctx)
{
	u32 b = rtm_chain_start(c, cpu, RTM_KIND_TIMER,
				rtm_timer_source(RTM_TIMER_SLEEPER,
						 (u32)timer_id),
				expires, RTM_HOP_TIMER, 0);

	if (!b)
		return;
	rtm_hop_add(c, cpu, b, RTM_HOP_TIMER_RUN,
		    ctx > RTM_CTX_HARDIRQ ? RTM_CTX_SOFTIRQ : ctx, 0, NULL, ts);
	rtm_slot_replace(c, cpu, slot, b);
}

static rtm_always_inline void rtm_timer_entry_body(struct rtm_core *c,
						 u32 cpu, rtm_a32 *slot,
						 u64 ts, u64 timer_id,
						 u64 expires, u32 tkind,
						 u32 ctx)
{
	struct rtm_tpend *tp;

	/* the tick and timers no target wants: one load, no chain */
	if (!((rtm_ld32(&c->tg.timer_kinds) >> (tkind & 31)) & 1))
		return;
	if (expires > ts)
		expires = ts;
	if (tkind == RTM_TIMER_SLEEPER) {
		rtm_sleeper_start(c, cpu, slot, ts, timer_id, expires, ctx);
		return;
	}
	/* a chain only if the callback wakes a task (rtm_tpend_start) */
	tp = rtm_tpend_of(c, cpu, ctx);
	tp->expires = expires;
	tp->ts = ts;
	tp->kind = tkind;
	rtm_st32_rel(slot, RTM_TPEND);
}

/* A timer entry finding its slot taken (a missed exit) or an IRQ armed. */
static rtm_noinline void rtm_timer_entry_stale(struct rtm_core *c, u32 cpu,
					       u64 ts, u64 timer_id,
					       u64 expires, u32 tkind, u32 ctx)
{
	struct rtm_cpu *pc = &c->cpus[cpu];
	rtm_a32 *slot = rtm_timer_slot(pc, ctx);
	u32 b = rtm_slot_take(slot);

	if (rtm_slot_branch(b))
		rtm_branch_free(c, cpu, b, RTM_C_BR_STALE);
	rtm_disarm(c, cpu, pc);
	rtm_timer_entry_body(c, cpu, slot, ts, timer_id, expires, tkind, ctx);
}

/* the tick's path: no call but tail calls (no registers saved) */
void rtm_ev_timer_entry(struct rtm_core *c, u32 cpu, u64 ts, u64 timer_id,
			u64 expires, u32 tkind, u32 ctx)
{
	struct rtm_cpu *pc;
	rtm_a32 *slot;

	if (!RTM_CPU_OK(c, cpu))
		return;
	pc = &c->cpus[cpu];
	slot = rtm_timer_slot(pc, ctx);
	if (rtm_unlikely(rtm_ld32(slot) | rtm_ld32(&pc->hi_armed))) {
		rtm_timer_entry_stale(c, cpu, ts, timer_id, expires, tkind,
				      ctx);
		return;
	}
	rtm_timer_entry_body(c, cpu, slot, ts, timer_id, expires, tkind, ctx);
}

/*
 * The callback of a pending (non-sleeper) timer wakes task pid: its chain
 * starts now, at the remembered expiry, if a task target accepting this
 * kind of timer matches the task (a timer waking another task that hands
 * the work on to a target's task is not followed). 0: not wanted, or no
 * chain free.
 */
static rtm_noinline u32 rtm_tpend_start(struct rtm_core *c, u32 cpu, u32 ctx,
					u32 pid, u32 tgid, const char *comm)
{
	const struct rtm_tpend *tp = rtm_tpend_of(c, cpu, ctx);
	const struct rtm_tset *t;
	u64 cm[2], src = rtm_timer_source(tp->kind, pid);
	u32 seq, b;
	int tid;

	rtm_comm_load(cm, comm);
	if (!(rtm_ld64(&c->tg.bloom_broad) & rtm_comm_bit(cm)))
		return 0;
	do {
		t = rtm_tset_begin(c, &seq);
		tid = rtm_target_match(t, t->active & ~t->irqonly,
				       RTM_KIND_TIMER, src, pid, tgid, cm);
	} while (rtm_tset_retry(c, seq));
	if (tid < 0)
		return 0;
	b = rtm_chain_start(c, cpu, RTM_KIND_TIMER, src, tp->expires,
			    RTM_HOP_TIMER, 0);
	if (b)
		rtm_hop_add(c, cpu, b, RTM_HOP_TIMER_RUN,
			    ctx > RTM_CTX_HARDIRQ ? RTM_CTX_SOFTIRQ : ctx, 0,
			    NULL, tp->ts);
	return b;
}

void rtm_ev_timer_exit(struct rtm_core *c, u32 cpu, u64 ts, u64 timer_id,
		       u32 ctx)
{
	rtm_a32 *slot;
	u32 b;

	(void)ts;
	if (!RTM_CPU_OK(c, cpu))
		return;
	slot = rtm_timer_slot(&c->cpus[cpu], ctx);
	b = rtm_ld32(slot);
	if (!b)
		return;
	if (b == RTM_TPEND) {
		/* only this cpu's context writes it (rtm_tick leaves it) */
		rtm_st32(slot, 0);
		return;
	}
	b = rtm_xchg32(slot, 0);
	if (!rtm_slot_branch(b))
		return;
	/* a timer chain's source holds 32 bits of the id (rtm_timer_source) */
	if (timer_id &&
	    (u32)rtm_chain_of(c, rtm_ld32(&rtm_br(c, b)->chain))->source !=
	    (u32)timer_id)
		rtm_branch_free(c, cpu, b, RTM_C_BR_STALE);
	else
		rtm_branch_free(c, cpu, b, RTM_C_BR_CLOSED);
}

static rtm_always_inline void rtm_softirq_raise(struct rtm_core *c, u32 cpu,
					       u64 ts, u32 vec, u32 ctx)
{
	struct rtm_cpu *pc;
	rtm_a32 *slot;
	u32 sb, nb;

	pc = &c->cpus[cpu];
	slot = rtm_ctx_slot(pc, ctx);
	sb = rtm_slot_take(slot);
	if (!sb) {
		rtm_repoll_raise_none(c, cpu, vec, ctx);
		return;
	}
	if (sb == RTM_TPEND) {
		/* a non-sleeper timer's callback: chains start at wakeups */
		rtm_cas32(slot, 0, RTM_TPEND);
		rtm_repoll_drop(c, cpu, vec);
		return;
	}
	if (rtm_branch_done(c, sb)) {
		if (slot == &pc->si_cur) {
			rtm_repoll_raise_done(c, cpu, sb, ts, vec);
		} else {
			rtm_branch_free(c, cpu, sb, RTM_C_BR_PRUNED);
			rtm_repoll_drop(c, cpu, vec);
		}
		return;
	}
	if (slot == &pc->si_cur)
		rtm_repoll_raise(c, cpu, sb, ts, vec);
	nb = rtm_branch_fork(c, cpu, sb);
	if (nb) {
		rtm_hop_add(c, cpu, nb, RTM_HOP_SOFTIRQ_RAISE, ctx, vec, NULL,
			    ts);
		rtm_slot_put_merge(c, cpu, &pc->si_pend[vec], nb);
	}
	rtm_slot_putback(c, cpu, slot, sb);
}

/* (no record is emitted here: RTM_DBG_RAISE, rtm_internal.h) */
void rtm_ev_softirq_raise(struct rtm_core *c, u32 cpu, u64 ts, u32 vec,
			  u32 ctx)
{
	if (!RTM_CPU_OK(c, cpu) || vec >= RTM_NR_SOFTIRQ)
		return;
	RTM_DBG_RAISE(1);
	rtm_softirq_raise(c, cpu, ts, vec, ctx);
	RTM_DBG_RAISE(-1);
}

void rtm_ev_softirq_entry(struct rtm_core *c, u32 cpu, u64 ts, u32 vec)
{
	struct rtm_cpu *pc;
	u32 b;

	if (!RTM_CPU_OK(c, cpu) || vec >= RTM_NR_SOFTIRQ)
		return;
	pc = &c->cpus[cpu];
	if (rtm_unlikely(rtm_ld32(&pc->si_cur) | rtm_ld32(&pc->hi_armed))) {
		b = rtm_slot_take(&pc->si_cur);
		if (b)
			rtm_branch_free(c, cpu, b, RTM_C_BR_STALE);
		rtm_disarm(c, cpu, pc);
	}
	/* over a chain's task: interference, unless the chain's own */
	if (rtm_ld32(&pc->task_cur))
		rtm_intf_si_entry(c, cpu, ts);
	b = rtm_slot_take(&pc->si_pend[vec]);
	if (!b)
		return;
	if (rtm_branch_done(c, b)) {
		rtm_repoll_enter(c, cpu, b, ts, vec);
		return;
	}
	rtm_repoll_live_entry(c, cpu, vec);
	rtm_hop_add(c, cpu, b, RTM_HOP_SOFTIRQ_ENTRY, RTM_CTX_SOFTIRQ, vec,
		    NULL, ts);
	rtm_intf_si_own(c, cpu, b);
	rtm_slot_replace(c, cpu, &pc->si_cur, b);
}

void rtm_ev_softirq_exit(struct rtm_core *c, u32 cpu, u64 ts, u32 vec)
{
	u32 b;

	(void)vec;
	if (!RTM_CPU_OK(c, cpu))
		return;
	if (rtm_ld32(&c->intf[cpu].si_b))
		rtm_intf_si_exit(c, cpu, ts);
	b = rtm_slot_take(&c->cpus[cpu].si_cur);
	if (b)
		rtm_branch_free(c, cpu, b, RTM_C_BR_CLOSED);
}

/* The armed IRQ branch becomes the IRQ thread's branch (no fork). */
static void rtm_wake_running(struct rtm_core *c, u32 cpu, u32 nb, u64 ts,
			     u32 run_cpu);

/*
 * Branch b woke task pid: it waits in the task table for the task's
 * switch_in, unless the task is running already (see rtm_wake_running).
 */
static inline void rtm_task_wake(struct rtm_core *c, u32 cpu, u32 pid, u32 b,
				 u64 ts, int run_cpu)
{
	/* one compare: -1 (not running) is out of range as unsigned */
	if (rtm_unlikely((u32)run_cpu < c->p.ncpus))
		rtm_wake_running(c, cpu, b, ts, (u32)run_cpu);
	else
		rtm_task_put(c, cpu, pid, b);
}

static rtm_always_inline void rtm_wake_irq_thread(struct rtm_core *c, u32 cpu, u32 b, u64 ts,
				u32 ctx, u32 pid, u32 tgid, const char *comm,
				int run_cpu)
{
	if (rtm_branch_done(c, b)) {
		rtm_branch_free(c, cpu, b, RTM_C_BR_PRUNED);
		return;
	}
	rtm_irq_thread_branch(c, cpu, b, ts, RTM_HOP_WAKING, ctx, pid, tgid,
			      comm);
	rtm_mark_candidate(c, b);
	rtm_task_wake(c, cpu, pid, b, ts, run_cpu);
}

/*
 * The target whose end condition "end" branch br's task meets now (-1:
 * none), and its deadline in *dl. At a block, an IRQ thread also ends the
 * chain of an IRQ-only target of its IRQ.
 */
static rtm_always_inline int rtm_end_target(struct rtm_core *c,
					    const struct rtm_branch *br,
					    u32 end, u64 *dl)
{
	const struct rtm_chain *ch = rtm_chain_of(c, rtm_ld32(&br->chain));
	const struct rtm_tset *t;
	u32 seq;
	int tid;

	do {
		t = rtm_tset_begin(c, &seq);
		tid = -1;
		if (rtm_target_maybe(t, end, br->comm))
			tid = rtm_target_match(t, t->end_mask[end], ch->kind,
					       ch->source, br->pid, br->tgid,
					       br->comm);
		if (end == RTM_END_BLOCK && tid < 0 &&
		    (br->flags & RTM_BF_IRQTHREAD))
			tid = rtm_target_irqonly(t, ch->kind, ch->source);
		*dl = tid >= 0 ? t->t[tid].dl_emit : 0;
	} while (rtm_tset_retry(c, seq));
	return tid;
}

/*
 * Branch nb woke task pid that is running on run_cpu: no switch_in will
 * follow. A switch_in target is reached now; otherwise nb becomes the
 * task's current branch there, replacing the branch of the chain it was
 * running for (that chain's work is what the task leaves for the new one;
 * its other branches, e.g. a work cookie, go on). That cpu may have
 * switched to another task meanwhile: a branch of another task in its slot
 * is never touched (nb waits in the task table: the task's switch_in comes
 * after this wakeup). An empty slot cannot tell: nb may land there after
 * the task left, and the next event of another task there finds it
 * (rtm_runwake_late). An IRQ thread in its pass (a kworker in an item)
 * keeps it: another chain's wakeup only ends a wait inside its handler (a
 * lock, a bus transfer: RTM_HOP_WAIT), the pass goes on for its own chain.
 */
static void rtm_wake_running(struct rtm_core *c, u32 cpu, u32 nb, u64 ts,
			     u32 run_cpu)
{
	struct rtm_branch *br = rtm_br(c, nb);
	rtm_a32 *slot = &c->cpus[run_cpu].task_cur;
	const struct rtm_branch *ob;
	u32 old, pid;
	int tid;
	u64 dl;

	tid = rtm_end_target(c, br, RTM_END_SWITCH_IN, &dl);
	if (tid >= 0) {
		rtm_complete_free(c, cpu, nb, ts, tid, dl, br->pid, br->tgid,
				  br->comm);
		return;
	}
	pid = br->pid;	/* nb belongs to run_cpu's slot once published */
	br->flags |= RTM_BF_RUNWAKE;
	old = rtm_ld32(slot);
	for (;;) {
		ob = old ? rtm_br(c, old) : NULL;
		if (ob && rtm_racy32(&ob->pid) != pid)
			goto left;
		if (ob && (rtm_racy8(&ob->flags) & ~br->flags &
			   (RTM_BF_IRQTHREAD | RTM_BF_KWORK))) {
			rtm_branch_free(c, cpu, nb, RTM_C_BR_MERGED);
			return;
		}
		if (rtm_cas32(slot, old, nb))
			break;
		old = rtm_ld32(slot);
	}
	if (!old)
		return;
	if (rtm_likely(rtm_br(c, old)->pid == pid)) {
		rtm_branch_free(c, cpu, old, RTM_C_BR_MERGED);
		return;
	}
	/* the peek raced a reuse of old: give the slot back */
	if (!rtm_cas32(slot, nb, old)) {
		rtm_branch_free(c, cpu, old, RTM_C_BR_STALE);
		return;
	}
left:
	br->flags &= ~RTM_BF_RUNWAKE;
	rtm_task_put(c, cpu, pid, nb);
}

/*
 * A wakeup on a cpu with an armed IRQ branch (IRQ_WAKE_THREAD returned):
 * - the branch names its thread: that thread's own wakeup adopts it, in
 *   any context (a child IRQ demultiplexed in a threaded parent handler
 *   wakes its thread from task context); any other wakeup means the
 *   arming interrupt is over without it (irq_nowake);
 * - thread unknown (pid 0): the next hardirq wakeup while no hardirq
 *   handler or hard timer owns the context is taken as it; a wakeup from
 *   another context means the arming hardirq is over.
 * Returns true when the wakeup was the thread's (nothing more to do).
 * The common wakeup finds nothing armed: one load.
 */
static rtm_always_inline bool rtm_waking_armed(struct rtm_core *c, u32 cpu,
					  struct rtm_cpu *pc, u64 ts, u32 ctx,
					  u32 pid, u32 tgid, const char *comm,
					  int run_cpu)
{
	u32 sb;

	if (ctx == RTM_CTX_HARDIRQ && rtm_ld32(rtm_ctx_slot(pc, ctx)) &&
	    !rtm_br(c, rtm_ld32(&pc->hi_armed))->pid)
		return false;	/* a handler's own wakeup (peeked: re-checked) */
	sb = rtm_slot_take(&pc->hi_armed);
	if (!sb)
		return false;
	if (rtm_br(c, sb)->pid ? rtm_br(c, sb)->pid == pid :
				 ctx == RTM_CTX_HARDIRQ) {
		rtm_wake_irq_thread(c, cpu, sb, ts, ctx, pid, tgid, comm,
				    run_cpu);
		return true;
	}
	if (rtm_br(c, sb)->pid)
		rtm_count(c, cpu, RTM_C_IRQ_NOWAKE);
	rtm_branch_free(c, cpu, sb, RTM_C_BR_STALE);
	return false;
}

/*
 * The softirq daemons (ksoftirqd/N; ktimers/N on PREEMPT_RT) run raised
 * softirqs, which a chain follows from their raise (si_pend). A task wakes
 * one in task context at the end of a hard IRQ that interrupted it
 * (irq_exit_rcu()), or after raising a softirq itself: neither wakeup hands
 * the task's work on (it would mark an IRQ thread's pass as handed on).
 */
static bool rtm_softirq_daemon(const char *comm)
{
	return comm && (!strncmp(comm, "ksoftirqd/", 10) ||
			!strncmp(comm, "ktimers/", 8));
}

static rtm_always_inline void rtm_waking_body(struct rtm_core *c, u32 cpu,
					 u64 ts, u32 ctx, u32 waker_pid,
					 u32 pid, u32 tgid, const char *comm,
					 int run_cpu)
{
	struct rtm_cpu *pc = &c->cpus[cpu];
	struct rtm_branch *nbr;
	rtm_a32 *slot;
	u32 sb, nb;

	if (rtm_unlikely(rtm_ld32(&pc->hi_armed)) &&
	    rtm_waking_armed(c, cpu, pc, ts, ctx, pid, tgid, comm, run_cpu))
		return;
	slot = rtm_ctx_slot(pc, ctx);
	sb = rtm_slot_take(slot);
	if (!sb)
		return;
	if (rtm_unlikely(sb == RTM_TPEND)) {
		sb = rtm_tpend_start(c, cpu, ctx, pid, tgid, comm);
		if (!sb) {
			rtm_cas32(slot, 0, RTM_TPEND);
			return;
		}
	}
	if (ctx == RTM_CTX_TASK && waker_pid && rtm_br(c, sb)->pid != waker_pid) {
		if (!rtm_runwake_late(c, cpu, sb))
			rtm_branch_free(c, cpu, sb, RTM_C_BR_STALE);
		return;
	}
	if (rtm_branch_done(c, sb)) {
		if (slot != &pc->si_cur) {
			rtm_branch_free(c, cpu, sb, RTM_C_BR_PRUNED);
			return;
		}
		sb = rtm_repoll_wake(c, cpu, sb, pid, tgid, comm);
		if (!sb)
			return;
	}
	if (ctx == RTM_CTX_TASK && rtm_softirq_daemon(comm)) {
		rtm_slot_putback(c, cpu, slot, sb);
		return;
	}
	nb = rtm_branch_fork(c, cpu, sb);
	if (nb) {
		nbr = rtm_br(c, nb);
		nbr->pid = pid;
		nbr->tgid = tgid;
		rtm_comm_load(nbr->comm, comm);
		/*
		 * far past its hop slots, a task's wakeup hands the chain on
		 * only to a task a target may want (RTM_FOLLOW_HOPS_X)
		 */
		if (rtm_unlikely(rtm_hop_add(c, cpu, nb, RTM_HOP_WAKING, ctx,
					     pid, nbr->comm, ts))) {
			rtm_branch_free(c, cpu, nb, RTM_C_BR_PRUNED);
		} else {
			rtm_mark_candidate(c, nb);
			rtm_task_wake(c, cpu, pid, nb, ts, run_cpu);
		}
	}
	rtm_slot_putback(c, cpu, slot, sb);
}

/* the common wakeup: run_cpu -1 folded in, one argument less */
static rtm_noinline void rtm_waking_slow(struct rtm_core *c, u32 cpu,
					 u64 ts, u32 ctx, u32 waker_pid,
					 u32 pid, u32 tgid, const char *comm)
{
	rtm_waking_body(c, cpu, ts, ctx, waker_pid, pid, tgid, comm, -1);
}

static rtm_noinline void rtm_waking_slow_running(struct rtm_core *c, u32 cpu,
					 u64 ts, u32 ctx, u32 waker_pid,
					 u32 pid, u32 tgid, const char *comm,
					 int run_cpu)
{
	rtm_waking_body(c, cpu, ts, ctx, waker_pid, pid, tgid, comm, run_cpu);
}

void rtm_ev_waking(struct rtm_core *c, u32 cpu, u64 ts, u32 ctx,
		   u32 waker_pid, u32 pid, u32 tgid, const char *comm)
{
	if (!RTM_CPU_OK(c, cpu) || !pid ||
	    !rtm_waking_wanted_pc(&c->cpus[cpu], ctx))
		return;
	rtm_waking_slow(c, cpu, ts, ctx, waker_pid, pid, tgid, comm);
}

void rtm_ev_waking_running(struct rtm_core *c, u32 cpu, u64 ts, u32 ctx,
			   u32 waker_pid, u32 pid, u32 tgid, const char *comm,
			   int run_cpu)
{
	if (!RTM_CPU_OK(c, cpu) || !pid ||
	    !rtm_waking_wanted_pc(&c->cpus[cpu], ctx))
		return;
	rtm_waking_slow_running(c, cpu, ts, ctx, waker_pid, pid, tgid, comm,
				run_cpu);
}

/*
 * Branch br's task is preempted by next (NULL: waits, blocked). True: the
 * chain's hops run short (RTM_PREEMPT_HOPS_NUM/DEN), so this is folded
 * into the branch's next hop instead of a hop pair; the culprit is the
 * first task that preempted the branch since that hop.
 */
static rtm_noinline bool rtm_preempt_fold(struct rtm_core *c,
					  struct rtm_branch *br, u64 ts,
					  const struct rtm_task_who *next)
{
	struct rtm_chain *ch = rtm_chain_of(c, rtm_ld32(&br->chain));

	if (rtm_ld32(&ch->nhops) + 2 <=
	    c->p.chain_hops * RTM_PREEMPT_HOPS_NUM / RTM_PREEMPT_HOPS_DEN)
		return false;
	if (!br->pre_ns) {
		/* (pre_blk_ns, pre_by_* are only kept beside folded ns) */
		br->pre_blk_ns = 0;
		br->pre_by_pid = 0;
		br->pre_by_ns = 0;
	}
	br->flags = (u8)((br->flags & ~(RTM_BF_FOLD_BY | RTM_BF_FOLD_BLK)) |
			 RTM_BF_FOLDED);
	br->pre_at = ts;
	if (!next) {
		br->flags |= RTM_BF_FOLD_BLK;
		return true;
	}
	if (!next->pid)
		return true;
	if (!br->pre_by_pid) {
		br->pre_by_pid = next->pid;
		br->pre_by_prio = (u8)(next->prio < RTM_PRIO_UNKNOWN ?
				       next->prio : RTM_PRIO_UNKNOWN);
		rtm_comm_load(br->pre_by_comm, next->comm);
	}
	if (br->pre_by_pid == next->pid)
		br->flags |= RTM_BF_FOLD_BY;
	return true;
}

static inline u32 rtm_add_sat32(u32 a, u64 b)
{
	return b >= (u64)(0xffffffffu - a) ? 0xffffffffu : a + (u32)b;
}

/* branch br's task runs again after a folded preemption */
static rtm_noinline void rtm_preempt_unfold(struct rtm_branch *br, u64 ts)
{
	u64 ns = ts > br->pre_at ? ts - br->pre_at : 0;

	br->pre_ns = rtm_add_sat32(br->pre_ns, ns);
	if (br->flags & RTM_BF_FOLD_BY)
		br->pre_by_ns = rtm_add_sat32(br->pre_by_ns, ns);
	if (br->flags & RTM_BF_FOLD_BLK)
		br->pre_blk_ns = rtm_add_sat32(br->pre_blk_ns, ns);
	br->flags &= (u8)~(RTM_BF_FOLDED | RTM_BF_FOLD_BY | RTM_BF_FOLD_BLK);
}

/*
 * An IRQ thread blocking in S with a wakeup pending, its branch handed by
 * a wakeup or rerun that found it current: that pass is still to run only
 * if the branch has handed nothing on (else the pass ran), no other
 * branch waits for the thread (a later interrupt's wakeup is the pending
 * one) and no IRQ-only target ends the chain at this block. In D it waits
 * mid-pass (hop wait).
 */
static bool rtm_irq_pass_pending(struct rtm_core *c, const struct rtm_branch *br,
				 u32 prev, long prev_state)
{
	u64 dl;

	return prev_state == 1 && !(br->flags & RTM_BF_HANDED) &&
	       !rtm_htab_maybe(&c->tasks, prev) &&
	       rtm_end_target(c, br, RTM_END_BLOCK, &dl) < 0;
}

static void rtm_switch_out(struct rtm_core *c, u32 cpu, struct rtm_cpu *pc,
			   u64 ts, u32 prev, long prev_state,
			   const struct rtm_task_who *next)
{
	struct rtm_branch *br;
	bool pending;
	u32 b;
	int tid;
	u64 dl;

	b = rtm_xchg32(&pc->task_cur, 0);
	if (!b)
		return;
	br = rtm_br(c, b);
	if (rtm_unlikely(br->pid != prev)) {
		if (!rtm_runwake_late(c, cpu, b))
			rtm_branch_free(c, cpu, b, RTM_C_BR_STALE);
		return;
	}
	if (rtm_branch_done(c, b)) {
		rtm_branch_free(c, cpu, b, RTM_C_BR_PRUNED);
		return;
	}
	pending = prev_state & RTM_SWITCH_WAKE_PENDING;
	prev_state &= ~(long)RTM_SWITCH_WAKE_PENDING;
	if (rtm_unlikely(br->flags & RTM_BF_RUNWAKE)) {
		br->flags &= ~RTM_BF_RUNWAKE;
		/*
		 * The wakeup (or IRQ rerun) that handed b found the task
		 * current, on its way to sleep, and is delivered after this
		 * switch: b's work is still to be done, at the task's next
		 * switch_in, not ended by this block. The task slept all the
		 * same: it waits as a plain wakeup's task (runnable, no
		 * preempt hop), as its trace shows it (rtmon-replay).
		 */
		if (pending && (!(br->flags & RTM_BF_IRQTHREAD) ||
				rtm_irq_pass_pending(c, br, prev, prev_state))) {
			rtm_task_put(c, cpu, prev, b);
			return;
		}
	}
	if (prev_state == RTM_SWITCH_LOCK_WAIT ||
	    (prev_state == RTM_SWITCH_BLOCKED_D &&
	     (br->flags & (RTM_BF_IRQTHREAD | RTM_BF_KWORK)))) {
		/*
		 * an rtlock wait, or an IRQ thread's D mid-pass (a kworker's
		 * mid-item): the task goes on when it is woken (a branch
		 * found there came later: the older is kept), the time in
		 * between blocked
		 */
		if (!rtm_preempt_fold(c, br, ts, NULL))
			rtm_hop_add(c, cpu, b, RTM_HOP_WAIT, RTM_CTX_TASK,
				    br->pid, br->comm, ts);
		rtm_task_put(c, cpu, prev, b);
		return;
	}
	if (!prev_state) {
		/* preempted: keep the branch until it runs again */
		if (!rtm_preempt_fold(c, br, ts, next))
			rtm_hop_add_by(c, cpu, b, RTM_HOP_PREEMPT,
				       RTM_CTX_TASK, br->pid, br->comm, ts,
				       next);
		rtm_task_put(c, cpu, prev, b);
		return;
	}
	tid = rtm_end_target(c, br, RTM_END_BLOCK, &dl);
	if (tid < 0) {
		/* an IRQ thread's pass that handed nothing traced on */
		if ((br->flags & (RTM_BF_IRQTHREAD | RTM_BF_HANDED)) ==
		    RTM_BF_IRQTHREAD && rtm_handoff_pass_end(c, cpu, b))
			return;
		rtm_branch_free(c, cpu, b, RTM_C_BR_CLOSED);
		return;
	}
	rtm_hop_add(c, cpu, b, RTM_HOP_BLOCK, RTM_CTX_TASK, br->pid, br->comm,
		    ts);
	rtm_complete_free(c, cpu, b, ts, tid, dl, br->pid, br->tgid, br->comm);
}

static void rtm_switch_in(struct rtm_core *c, u32 cpu, struct rtm_cpu *pc,
			  u64 ts, u32 next, u32 tgid, const char *comm,
			  const struct rtm_task_who *prev)
{
	struct rtm_branch *br;
	bool folded;
	u32 b;
	int tid;
	u64 dl;

	b = rtm_htab_take(&c->tasks, next);
	if (!b)
		return;
	br = rtm_br(c, b);
	if (rtm_branch_done(c, b)) {
		rtm_branch_free(c, cpu, b, RTM_C_BR_PRUNED);
		return;
	}
	if (tgid)
		br->tgid = tgid;
	if (comm)
		rtm_comm_load(br->comm, comm);
	folded = br->flags & RTM_BF_FOLDED;
	if (rtm_unlikely(folded))
		rtm_preempt_unfold(br, ts);
	else
		rtm_hop_add_by(c, cpu, b, RTM_HOP_SWITCH_IN, RTM_CTX_TASK,
			       next, br->comm, ts, prev);
	tid = rtm_end_target(c, br, RTM_END_SWITCH_IN, &dl);
	if (tid >= 0) {
		/* the end's own hop, carrying what was folded */
		if (rtm_unlikely(folded))
			rtm_hop_add(c, cpu, b, RTM_HOP_SWITCH_IN,
				    RTM_CTX_TASK, next, br->comm, ts);
		rtm_complete_free(c, cpu, b, ts, tid, dl, br->pid, br->tgid, br->comm);
		return;
	}
	rtm_slot_replace(c, cpu, &pc->task_cur, b);
}

/* in: rtm_switch_in_maybe() already said yes (else it is asked here) */
static rtm_noinline void rtm_switch_slow(struct rtm_core *c, u32 cpu,
					 u64 ts, u32 prev_pid, long prev_state,
					 u32 next_pid, u32 next_tgid,
					 const char *next_comm,
					 const struct rtm_switch_who *who,
					 bool in)
{
	struct rtm_cpu *pc = &c->cpus[cpu];
	struct rtm_task_who other;

	rtm_disarm(c, cpu, pc);
	if (rtm_ld32(&pc->task_cur)) {
		other.pid = next_pid;
		other.prio = who ? who->next_prio : RTM_PRIO_UNKNOWN;
		other.comm = next_comm;
		rtm_switch_out(c, cpu, pc, ts, prev_pid, prev_state, &other);
	}
	/*
	 * asked after prev's end, which may change the table; with a chain
	 * on this cpu, the table is seldom empty: its live count not asked
	 */
	if (in || (next_pid && rtm_htab_maybe(&c->tasks, next_pid))) {
		other.pid = prev_pid;
		other.prio = who ? who->prev_prio : RTM_PRIO_UNKNOWN;
		other.comm = who ? who->prev_comm : NULL;
		rtm_switch_in(c, cpu, pc, ts, next_pid, next_tgid, next_comm,
			      &other);
	}
}

/*
 * rtm_switch_ask(), its table answer handed on: a switch to a task the
 * table may hold, from an untracked one, looks it up once.
 */
void rtm_ev_switch(struct rtm_core *c, u32 cpu, u64 ts, u32 prev_pid,
		   long prev_state, u32 next_pid, u32 next_tgid,
		   const char *next_comm, const struct rtm_switch_who *who)
{
	u32 ask;

	if (!RTM_CPU_OK(c, cpu))
		return;
	ask = rtm_switch_ask(c, &c->cpus[cpu], next_pid);
	if (ask != RTM_ASK_NO)
		rtm_switch_slow(c, cpu, ts, prev_pid, prev_state, next_pid,
				next_tgid, next_comm, who, ask == RTM_ASK_IN);
}

void rtm_ev_switch_asked(struct rtm_core *c, u32 cpu, u64 ts, u32 prev_pid,
			 long prev_state, u32 next_pid, u32 next_tgid,
			 const char *next_comm,
			 const struct rtm_switch_who *who, u32 ask)
{
	rtm_switch_slow(c, cpu, ts, prev_pid, prev_state, next_pid, next_tgid,
			next_comm, who, ask == RTM_ASK_IN);
}

/*
 * Task pid begins work with no open chain (sb: its branch, done or of
 * another task, or 0): the work reached it with no traced wakeup (it was
 * awake). An IRQ thread's pass parked for such a task (rtm_handoff.c) is
 * taken up; else the item waits for its pass, which may still be running
 * (and once waiting, looks again: the pass may have parked meanwhile);
 * else the item has no chain, counted.
 */
static rtm_noinline u32 rtm_work_untraced(struct rtm_core *c, u32 cpu,
					  u64 ts, u32 sb, u32 pid, u32 tgid,
					  u64 cookie, const char *comm)
{
	struct rtm_waitwork *w;

	if (sb && (rtm_br(c, sb)->pid == pid || !rtm_runwake_late(c, cpu, sb)))
		rtm_branch_free(c, cpu, sb, rtm_branch_done(c, sb) ?
				RTM_C_BR_PRUNED : RTM_C_BR_STALE);
	sb = rtm_handoff_take(c, cpu, ts, pid, tgid, comm, NULL);
	if (sb)
		return sb;
	RTM_TEST_POINT(c, cpu, RTM_TP_BEGIN_LOOKED);
	w = rtm_waitwork_add(c, cpu, ts, pid, tgid, cookie, comm);
	if (!w) {
		rtm_count(c, cpu, RTM_C_WORK_UNTRACED);
		return 0;
	}
	RTM_TEST_POINT(c, cpu, RTM_TP_BEGIN_PUBLISHED);
	/* waiting (published), then look */
	rtm_fence_full();
	return rtm_handoff_take(c, cpu, ts, pid, tgid, comm, w);
}

void rtm_ev_work_begin(struct rtm_core *c, u32 cpu, u64 ts, u32 pid,
		       u32 tgid, u64 cookie, const char *comm)
{
	struct rtm_cpu *pc;
	u32 sb, nb;

	if (!RTM_CPU_OK(c, cpu))
		return;
	pc = &c->cpus[cpu];
	sb = rtm_slot_take(&pc->task_cur);
	if (!sb && !(rtm_ld32(&c->handoff_used) | rtm_ld32(&c->tg.handoff_irq))) {
		/* untracked task, no hand-off possible: the common case */
		rtm_count(c, cpu, RTM_C_WORK_UNTRACED);
		return;
	}
	if (rtm_unlikely(!sb || rtm_br(c, sb)->pid != pid ||
			 rtm_branch_done(c, sb))) {
		sb = rtm_work_untraced(c, cpu, ts, sb, pid, tgid, cookie, comm);
		if (!sb)
			return;
	}
	nb = rtm_branch_fork(c, cpu, sb);
	if (nb)
		rtm_work_begin_branch(c, cpu, nb, ts, tgid, cookie);
	rtm_slot_putback(c, cpu, &pc->task_cur, sb);
}

_Static_assert(RTM_NLASTWORK == 1 << (32 - 26), "lastwork: a 6-bit hash");

/*
 * Task pid ends work at ts: returns when it last ended work before (0: not
 * known), to the 1024 ns unit below; it was busy until then.
 */
static u64 rtm_lastwork_swap(struct rtm_core *c, u32 pid, u64 ts)
{
	const u64 pmask = (1ull << RTM_LW_PID_BITS) - 1;
	const u64 umask = ~0ull >> RTM_LW_PID_BITS;
	rtm_a64 *e = &c->lastwork[(pid * 0x9e3779b1u) >> 26];
	u64 old = rtm_ld64(e), now = ts >> 10, then;

	rtm_st64(e, now << RTM_LW_PID_BITS | (pid & pmask));
	if (!old || (old & pmask) != (pid & pmask))
		return 0;
	then = old >> RTM_LW_PID_BITS;
	/* the stored units wrap every 2^42 (52 days): then must not be ahead */
	if (then > (now & umask))
		return 0;
	return (now - ((now & umask) - then)) << 10;
}

void rtm_ev_work_end(struct rtm_core *c, u32 cpu, u64 ts, u32 pid, u32 tgid,
		     u64 cookie, const char *comm)
{
	u64 freed;

	if (!RTM_CPU_OK(c, cpu))
		return;
	freed = rtm_lastwork_swap(c, pid, ts);
	if (rtm_unlikely(rtm_ld32(&c->waitwork_used)))
		rtm_waitwork_end(c, tgid, cookie, ts);
	/* the common case, no branch of this item: no call */
	if (!rtm_htab_maybe(&c->cookies, rtm_cookie_tag(tgid, cookie)))
		return;
	rtm_work_end_cookie(c, cpu, ts, pid, tgid, cookie, comm, freed);
}


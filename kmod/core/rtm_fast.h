/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rtm_fast.h - the core's fast-exit questions, inline for hot callers.
 *
 * Most events of a busy system touch no chain. Each rtm_ev_*() entry point
 * first asks one of the questions below and returns on "no"; the kernel
 * probes ask the same question before they read the clock and the tasks
 * the entry point takes. The sched_waking and sched_switch probes, the
 * busiest, first ask a gate (rtm_*_gate()): a superset of the question for
 * every context at once, with no core pointer to follow. Inline, a probe's
 * common path is a few loads and no call. A "no" is final: the event would
 * change nothing (tests/core/fuzz_core compares the core's memory byte for
 * byte, and checks that a gate lets through what its question wants). A
 * "yes" is asked again by the entry point. Lock-free reads of the cpu's
 * own slots, of the task table's live count and of the target filter.
 *
 * This header shows the core's private layout (rtm_internal.h): only the
 * core and the kernel probes include it.
 */
#ifndef RTM_FAST_H
#define RTM_FAST_H

#include "rtm_internal.h"

#define RTM_CPU_OK(c, cpu)	rtm_likely((cpu) < (c)->p.ncpus)

/*
 * The slot owning the waker's context. A running hrtimer handler owns its
 * context: a hard timer (hi_timer) the hard IRQ, a soft timer (si_timer)
 * the softirq it runs in (HRTIMER softirq, or ktimers/N on PREEMPT_RT).
 * A hard IRQ nested in a soft timer callback never sees si_timer, a soft
 * timer's wakeups never see hi_timer.
 */
static inline rtm_a32 *rtm_ctx_slot(struct rtm_cpu *pc, u32 ctx)
{
	if (ctx == RTM_CTX_HARDIRQ)
		return rtm_ld32(&pc->hi_timer) ? &pc->hi_timer : &pc->hi_cur;
	if (ctx == RTM_CTX_SOFTIRQ)
		return rtm_ld32(&pc->si_timer) ? &pc->si_timer : &pc->si_cur;
	return &pc->task_cur;
}

/* Nonzero if rtm_ctx_slot(pc, ctx) holds a branch (fast paths: no select). */
static inline u32 rtm_ctx_busy(struct rtm_cpu *pc, u32 ctx)
{
	if (ctx == RTM_CTX_HARDIRQ)
		return rtm_ld32(&pc->hi_timer) | rtm_ld32(&pc->hi_cur);
	if (ctx == RTM_CTX_SOFTIRQ)
		return rtm_ld32(&pc->si_timer) | rtm_ld32(&pc->si_cur);
	return rtm_ld32(&pc->task_cur);
}

/* The slot of a timer handler running in ctx (task counts as softirq). */
static inline rtm_a32 *rtm_timer_slot(struct rtm_cpu *pc, u32 ctx)
{
	return ctx == RTM_CTX_HARDIRQ ? &pc->hi_timer : &pc->si_timer;
}

/*
 * No branch in any context of this cpu, nothing armed: the six slots at
 * once, in three loads where a word holds two (six on 32-bit; the probes'
 * first gate,
 * rtm_waking_gate() and rtm_switch_gate(): no context is computed and no
 * core pointer followed before it says no).
 */
static inline bool rtm_cpu_busy(struct rtm_cpu *pc)
{
	if (sizeof(void *) == 8)
		return rtm_peek64(&pc->ctx_words[0]) |
		       rtm_peek64(&pc->ctx_words[1]) |
		       rtm_peek64(&pc->ctx_words[2]);
	return rtm_peek32(&pc->hi_cur) | rtm_peek32(&pc->hi_timer) |
	       rtm_peek32(&pc->hi_armed) | rtm_peek32(&pc->si_cur) |
	       rtm_peek32(&pc->si_timer) | rtm_peek32(&pc->task_cur);
}

/* A superset of rtm_waking_wanted_pc() in any context. */
static inline bool rtm_waking_gate(struct rtm_cpu *pc)
{
	return rtm_cpu_busy(pc);
}

/*
 * A superset of rtm_switch_wanted() for any next task: tasks_live is
 * the task table's live count (struct rtm_htab), 0 while the table is
 * empty (no woken task waiting to run, no preempted tracked task).
 */
static inline bool rtm_switch_gate(struct rtm_cpu *pc, rtm_a32 *tasks_live)
{
	return rtm_cpu_busy(pc) || rtm_peek32(tasks_live);
}

/*
 * A superset of rtm_kwork_queue_wanted() in any context: cookies_live is
 * the cookie table's live count, 0 while no item nor librtmon work waits.
 */
static inline bool rtm_kwork_queue_gate(struct rtm_cpu *pc,
					rtm_a32 *cookies_live)
{
	return rtm_cpu_busy(pc) || rtm_peek32(cookies_live);
}

/* no branch in the waker's context, nothing armed */
static inline bool rtm_waking_wanted_pc(struct rtm_cpu *pc, u32 ctx)
{
	return rtm_ld32(&pc->hi_armed) | rtm_ctx_busy(pc, ctx);
}

/* rtm_ev_waking(), rtm_ev_waking_running() */
static inline bool rtm_waking_wanted(struct rtm_core *c, u32 cpu, u32 ctx)
{
	return RTM_CPU_OK(c, cpu) && rtm_waking_wanted_pc(&c->cpus[cpu], ctx);
}

/* item work, queued by a chain, maybe waiting (rtm_ev_kwork_start()) */
static inline bool rtm_kwork_maybe(struct rtm_core *c, u64 work)
{
	return rtm_ld32(&c->cookies.live) &&
	       rtm_htab_maybe(&c->cookies, rtm_cookie_tag(0, work));
}

/*
 * rtm_ev_kwork_queue(): a branch in the queuing context, or one of the
 * work's waiting (a cancelled queueing's, freed by any new one)
 */
static inline bool rtm_kwork_queue_wanted(struct rtm_core *c, u32 cpu, u32 ctx,
					  u64 work)
{
	return RTM_CPU_OK(c, cpu) &&
	       (rtm_ctx_busy(&c->cpus[cpu], ctx) || rtm_kwork_maybe(c, work));
}

/* rtm_ev_kwork_end(): the running task carries a branch */
static inline bool rtm_kwork_end_wanted(struct rtm_core *c, u32 cpu)
{
	return RTM_CPU_OK(c, cpu) && rtm_ld32(&c->cpus[cpu].task_cur);
}

/* next task (0: the idle task) maybe in the task table */
static inline bool rtm_switch_in_maybe(struct rtm_core *c, u32 next_pid)
{
	return next_pid && rtm_ld32(&c->tasks.live) &&
	       rtm_htab_maybe(&c->tasks, next_pid);
}

/*
 * rtm_ev_switch()'s question, with the table's answer kept for
 * rtm_switch_slow(): RTM_ASK_NO (running task untracked, nothing armed,
 * next task not in the table), RTM_ASK_OUT (prev tracked or an IRQ armed:
 * the table is asked after prev's end) or RTM_ASK_IN (prev untracked, next
 * maybe in the table: asked once).
 */
#define RTM_ASK_NO	0
#define RTM_ASK_OUT	1
#define RTM_ASK_IN	2
static inline u32 rtm_switch_ask(struct rtm_core *c, struct rtm_cpu *pc,
				 u32 next_pid)
{
	if (rtm_ld32(&pc->task_cur) | rtm_ld32(&pc->hi_armed))
		return RTM_ASK_OUT;
	return rtm_switch_in_maybe(c, next_pid) ? RTM_ASK_IN : RTM_ASK_NO;
}

/*
 * rtm_ev_switch() for a caller that asked rtm_switch_ask() itself (the
 * kernel probe, before it reads the clock) and got ask, not RTM_ASK_NO.
 */
void rtm_ev_switch_asked(struct rtm_core *c, u32 cpu, u64 ts, u32 prev_pid,
			 long prev_state, u32 next_pid, u32 next_tgid,
			 const char *next_comm,
			 const struct rtm_switch_who *who, u32 ask);

/* rtm_ev_switch() */
static inline bool rtm_switch_wanted(struct rtm_core *c, u32 cpu,
				     u32 next_pid)
{
	return RTM_CPU_OK(c, cpu) &&
	       rtm_switch_ask(c, &c->cpus[cpu], next_pid) != RTM_ASK_NO;
}

/* rtm_ev_timer_entry(): a stale slot to clean, or a kind a target wants */
static inline bool rtm_timer_entry_wanted(struct rtm_core *c, u32 cpu,
					  u32 ctx, u32 tkind)
{
	struct rtm_cpu *pc;

	if (!RTM_CPU_OK(c, cpu))
		return false;
	pc = &c->cpus[cpu];
	return rtm_ld32(rtm_timer_slot(pc, ctx)) | rtm_ld32(&pc->hi_armed) |
	       ((rtm_ld32(&c->tg.timer_kinds) >> (tkind & 31)) & 1);
}

/* rtm_ev_timer_exit() */
static inline bool rtm_timer_exit_wanted(struct rtm_core *c, u32 cpu,
					 u32 ctx)
{
	return RTM_CPU_OK(c, cpu) &&
	       rtm_ld32(rtm_timer_slot(&c->cpus[cpu], ctx)) != 0;
}

/* rtm_ev_softirq_raise() */
static inline bool rtm_softirq_raise_wanted(struct rtm_core *c, u32 cpu,
					    u32 ctx, u32 vec)
{
	struct rtm_cpu *pc;

	if (!RTM_CPU_OK(c, cpu) || vec >= RTM_NR_SOFTIRQ)
		return false;
	pc = &c->cpus[cpu];
	/* a pending branch: a raise by anything else may drop it */
	return (rtm_ld32(rtm_ctx_slot(pc, ctx)) |
		rtm_ld32(&pc->si_pend[vec])) != 0;
}

/* rtm_ev_softirq_entry() */
static inline bool rtm_softirq_entry_wanted(struct rtm_core *c, u32 cpu,
					    u32 vec)
{
	struct rtm_cpu *pc;

	if (!RTM_CPU_OK(c, cpu) || vec >= RTM_NR_SOFTIRQ)
		return false;
	pc = &c->cpus[cpu];
	/* task_cur: softirq interference over a chain's task (rtm_intf.c) */
	return rtm_ld32(&pc->si_cur) | rtm_ld32(&pc->hi_armed) |
	       rtm_ld32(&pc->task_cur) | rtm_ld32(&pc->si_pend[vec]);
}

/* rtm_ev_softirq_exit() */
static inline bool rtm_softirq_exit_wanted(struct rtm_core *c, u32 cpu)
{
	return RTM_CPU_OK(c, cpu) &&
	       (rtm_ld32(&c->cpus[cpu].si_cur) |
		rtm_ld32(&c->intf[cpu].si_b)) != 0;
}

#endif /* RTM_FAST_H */

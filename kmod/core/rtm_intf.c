// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_intf.c - interference: hard IRQ handlers and softirqs that run on a
 * cpu over a chain's running task (task_cur) or its softirq (si_cur).
 *
 * Their time is added to that branch (intf_*_ns) and taken by its next
 * hop, out of the interval it closes (rtm_blame.c: irq_interference,
 * softirq_interference), so the parts still add up. An IRQ inside a
 * softirq that runs over a chain's task is the IRQ's time, for the task
 * as for the softirq's own chain. The branch is known by its handle at
 * the start and added to, without being taken from its slot (a slot left
 * empty would let another cpu's hand-over in), only if the slot still
 * holds it at the end; an add racing with the owner's hop moves a share
 * between categories, never the sum. Called by rtm_events.c's entry
 * points.
 */
#include "rtm_internal.h"

/* more than a chain lives (max_age): the counts never wrap */
#define RTM_INTF_MAX	0x7fffffffu

static void rtm_intf_give(struct rtm_core *c, rtm_a32 *slot, u32 want,
			  u64 ns, bool irq)
{
	struct rtm_branch *br;
	rtm_a32 *acc;

	if (!want || !ns || rtm_ld32(slot) != want)
		return;
	br = rtm_br(c, want);
	acc = irq ? &br->intf_irq_ns : &br->intf_si_ns;
	if (rtm_ld32(acc) < RTM_INTF_MAX && ns < RTM_INTF_MAX)
		rtm_add32_rlx(acc, (u32)ns);
}

void rtm_intf_irq_entry(struct rtm_core *c, u32 cpu, u64 ts, u32 irq)
{
	struct rtm_cpu *pc = &c->cpus[cpu];
	struct rtm_intf_cpu *ic = &c->intf[cpu];
	u32 b = rtm_ld32(&pc->si_cur);

	ic->irq_si = b != 0;
	if (!b)
		b = rtm_ld32(&pc->task_cur);
	ic->irq_b = b;
	ic->irq = irq;
	ic->irq_at = ts;
}

void rtm_intf_irq_exit(struct rtm_core *c, u32 cpu, u64 ts, u32 irq)
{
	struct rtm_cpu *pc = &c->cpus[cpu];
	struct rtm_intf_cpu *ic = &c->intf[cpu];
	u32 want = ic->irq_b, sb = rtm_ld32(&ic->si_b);
	u64 ns = ts > ic->irq_at ? ts - ic->irq_at : 0;

	if (ic->irq != irq)
		return;
	ic->irq_b = 0;
	rtm_st64(&ic->last_ns, ns);
	rtm_st64(&ic->last_end, ts);
	if (ic->irq_si)
		rtm_intf_give(c, &pc->si_cur, want, ns, true);
	/* within a softirq over a chain's task (from its entry's clock read on) */
	if (sb && rtm_ld64(&ic->si_at) <= ic->irq_at) {
		rtm_intf_give(c, &pc->task_cur, sb, ns, true);
		rtm_st64(&ic->si_irq_ns, rtm_ld64(&ic->si_irq_ns) + ns);
	} else if (!ic->irq_si) {
		rtm_intf_give(c, &pc->task_cur, want, ns, true);
	}
}

void rtm_intf_si_entry(struct rtm_core *c, u32 cpu, u64 ts)
{
	struct rtm_intf_cpu *ic = &c->intf[cpu];
	u64 end = rtm_ld64(&ic->last_end), last = rtm_ld64(&ic->last_ns);

	/*
	 * The start before the branch: an IRQ in between sees none or both;
	 * one that ended after ts, before this call, is within the softirq.
	 */
	rtm_st64(&ic->si_at, ts);
	rtm_st64(&ic->si_irq_ns, 0);
	if (rtm_unlikely(end > ts))
		rtm_st64(&ic->si_irq_ns, last < end - ts ? last : end - ts);
	ic->si_own = 0;
	rtm_st32_rel(&ic->si_b, rtm_ld32(&c->cpus[cpu].task_cur));
}

/*
 * The softirq entered carries branch b: of the task's own chain, its time
 * is the chain's work, not interference (its IRQs still are). The peek at
 * si_b's chain is a comparison only: si_b is task_cur's, not ours.
 */
void rtm_intf_si_own(struct rtm_core *c, u32 cpu, u32 b)
{
	struct rtm_intf_cpu *ic = &c->intf[cpu];
	u32 sb = rtm_ld32(&ic->si_b);

	if (sb && rtm_ld32(&rtm_br(c, sb)->chain) ==
		  rtm_ld32(&rtm_br(c, b)->chain))
		ic->si_own = 1;
}

void rtm_intf_si_exit(struct rtm_core *c, u32 cpu, u64 ts)
{
	struct rtm_intf_cpu *ic = &c->intf[cpu];
	u32 want = rtm_ld32(&ic->si_b);
	u64 at, ns, irqs, last;

	rtm_st32(&ic->si_b, 0);
	at = rtm_ld64(&ic->si_at);
	ns = ts > at ? ts - at : 0;
	irqs = rtm_ld64(&ic->si_irq_ns);
	last = rtm_ld64(&ic->last_ns);
	/* an IRQ after this exit's clock read is not within the softirq */
	if (rtm_unlikely(rtm_ld64(&ic->last_end) > ts) && irqs >= last)
		irqs -= last;
	ns = ns > irqs ? ns - irqs : 0;
	if (!ic->si_own)
		rtm_intf_give(c, &c->cpus[cpu].task_cur, want, ns, false);
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_intf.c - interference: hard IRQ handlers and softirqs that run on a
 * cpu over a chain's running task (task_cur) or its softirq (si_cur).
 *
 * Their time is added to that branch (struct rtm_intf) and carried by its
 * next hop, which takes it out of the interval it closes (rtm_blame.c:
 * irq_interference, softirq_interference), so the parts still add up.
 * An IRQ over an interfering softirq is the IRQ's time, not the softirq's.
 * The branch is known by its handle at the start and taken from its slot
 * at the end: one that left the slot meanwhile (switched out, handed to
 * another cpu) gets nothing. Called by rtm_events.c's entry points.
 */
#include "rtm_internal.h"

static inline u32 rtm_intf_add(u32 a, u64 b)
{
	return b >= (u64)(0xffffffffu - a) ? 0xffffffffu : a + (u32)b;
}

/*
 * ns of interference for the branch in slot if it is still want: at most
 * the time since its last hop (a hop added meanwhile by a cpu that held
 * it closed the interval before). True if it was given.
 */
static bool rtm_intf_give(struct rtm_core *c, u32 cpu, rtm_a32 *slot,
			  u32 want, u64 ts, u64 ns, bool irq)
{
	struct rtm_branch *br;
	struct rtm_chain *ch;
	u64 tip;
	u32 b;

	if (rtm_ld32(slot) != want)
		return false;
	b = rtm_slot_take(slot);
	if (!b)
		return false;
	if (b != want) {
		rtm_slot_putback(c, cpu, slot, b);
		return false;
	}
	br = rtm_br(c, b);
	ch = rtm_chain_of(c, rtm_ld32(&br->chain));
	tip = ch->hops[br->hop].ts;
	if (ts < tip + ns)
		ns = ts > tip ? ts - tip : 0;
	if (irq)
		br->intf.irq_ns = rtm_intf_add(br->intf.irq_ns, ns);
	else
		br->intf.si_ns = rtm_intf_add(br->intf.si_ns, ns);
	rtm_slot_putback(c, cpu, slot, b);
	return true;
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
	u32 want = ic->irq_b;
	u64 ns = ts > ic->irq_at ? ts - ic->irq_at : 0;

	if (ic->irq != irq)
		return;
	ic->irq_b = 0;
	if (ic->irq_si) {
		rtm_intf_give(c, cpu, &pc->si_cur, want, ts, ns, true);
		return;
	}
	if (rtm_intf_give(c, cpu, &pc->task_cur, want, ts, ns, true) &&
	    ic->si_b == want)
		ic->si_irq_ns += ns;
}

void rtm_intf_si_entry(struct rtm_core *c, u32 cpu, u64 ts)
{
	struct rtm_intf_cpu *ic = &c->intf[cpu];

	ic->si_b = rtm_ld32(&c->cpus[cpu].task_cur);
	ic->si_at = ts;
	ic->si_irq_ns = 0;
}

/* the softirq entered carries branch b: the chain's own work is not interference */
void rtm_intf_si_own(struct rtm_core *c, u32 cpu, u32 b)
{
	struct rtm_intf_cpu *ic = &c->intf[cpu];

	if (ic->si_b && rtm_ld32(&rtm_br(c, ic->si_b)->chain) ==
			rtm_ld32(&rtm_br(c, b)->chain))
		ic->si_b = 0;
}

void rtm_intf_si_exit(struct rtm_core *c, u32 cpu, u64 ts)
{
	struct rtm_intf_cpu *ic = &c->intf[cpu];
	u64 ns = ts > ic->si_at ? ts - ic->si_at : 0;
	u32 want = ic->si_b;

	ic->si_b = 0;
	ns = ns > ic->si_irq_ns ? ns - ic->si_irq_ns : 0;
	rtm_intf_give(c, cpu, &c->cpus[cpu].task_cur, want, ts, ns, false);
}

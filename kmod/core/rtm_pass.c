// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_pass.c - an IRQ thread's passes: the branch of a new interrupt for
 * a thread still awake, its pass under way over (the chain goes on in
 * what it handed on, or in a waiting item it adopts: rtm_handoff.c) or
 * both interrupts handled in one pass (coalesced).
 */
#include "rtm_internal.h"

/*
 * An IRQ thread already awake gets a new interrupt's branch (old: the
 * branch of its pass under way or pending, owned by the caller). The
 * kernel runs the thread's handler again after the pass under way, so
 * old's pass is over, as far as its chain goes, when:
 * - old's chain is done, or old has handed its work on (woke the task
 *   that processes it, raised a softirq: RTM_BF_HANDED): old is closed
 *   (its chain goes on in the branches it forked);
 * - an awake task has begun old's item already (it preempted the thread
 *   after the item was queued: the item waits, rtm_handoff.c): old's pass
 *   handed it on, untraced; old adopts it now (as it would when the pass
 *   blocks).
 * True then (old consumed); false when the thread has not handled old's
 * interrupt yet and will handle both in one pass (rtm_pass_coalesce()).
 */
bool rtm_pass_over(struct rtm_core *c, u32 cpu, u32 old)
{
	if (rtm_branch_done(c, old)) {
		rtm_branch_free(c, cpu, old, RTM_C_BR_PRUNED);
		return true;
	}
	if (rtm_br(c, old)->flags & RTM_BF_HANDED) {
		rtm_branch_free(c, cpu, old, RTM_C_BR_CLOSED);
		return true;
	}
	return rtm_unlikely(rtm_ld32(&c->waitwork_used)) &&
	       (rtm_br(c, old)->flags & RTM_BF_IRQTHREAD) &&
	       rtm_waitwork_adopt(c, cpu, old);
}

/*
 * Both interrupts in old's pass (old owned by the caller): old is kept
 * (its chain started first), the other interrupt is coalesced into it
 * (record flag COALESCED, counted: that interrupt has no record); b, its
 * branch, is freed (0: the caller frees it).
 */
void rtm_pass_coalesce(struct rtm_core *c, u32 cpu, u32 old, u32 b)
{
	struct rtm_chain *ch = rtm_chain_of(c, rtm_ld32(&rtm_br(c, old)->chain));

	if (!(rtm_ld32(&ch->xflags) & RTM_CX_COALESCED))
		rtm_or32(&ch->xflags, RTM_CX_COALESCED);
	rtm_count(c, cpu, RTM_C_IRQ_COALESCED);
	if (b)
		rtm_branch_free(c, cpu, b, RTM_C_BR_MERGED);
}

/* The pass of rtm_pass_over(): returns the branch kept, the other freed. */
u32 rtm_pass_merge(struct rtm_core *c, u32 cpu, u32 old, u32 b)
{
	if (rtm_pass_over(c, cpu, old))
		return b;
	rtm_pass_coalesce(c, cpu, old, b);
	return old;
}

void rtm_task_put_pass(struct rtm_core *c, u32 cpu, u32 pid, u32 b)
{
	rtm_task_store(c, cpu, pid, b, rtm_pass_merge);
}

/*
 * Branch b (owned), taken from a cpu's running-task slot by an event of
 * another task: if a wakeup or IRQ rerun that found its task current
 * there handed it (RTM_BF_RUNWAKE), it landed after the task had left.
 * Its task cannot have run its work yet (a wakeup's waker holds the
 * task's pi_lock until after the hand-off; the kernel marks a rerun's
 * pass only after it): b waits for the task's next switch_in in the task
 * table, as the hand-off puts it when it finds the task gone. False: any
 * other branch (the caller frees it).
 */
bool rtm_runwake_late(struct rtm_core *c, u32 cpu, u32 b)
{
	struct rtm_branch *br = rtm_br(c, b);

	if (!(br->flags & RTM_BF_RUNWAKE) || rtm_branch_done(c, b))
		return false;
	br->flags &= ~RTM_BF_RUNWAKE;
	if (br->flags & RTM_BF_IRQTHREAD)
		rtm_task_put_pass(c, cpu, br->pid, b);
	else
		rtm_task_put(c, cpu, br->pid, b);
	return true;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_kwork.c - a chain through a kernel workqueue item: queued by a
 * context holding a branch, run by a kworker (workqueue_queue_work,
 * workqueue_execute_start/end).
 *
 * A kworker busy with earlier items takes the new one up without a
 * wakeup, so the chain is followed by the item itself: its branch waits
 * in the cookie table (tgid 0, cookie = the work's address: no task
 * tgid is 0, so it never meets a librtmon cookie) until a kworker starts
 * it. A kworker woken for the item carries the chain already (its
 * wakeup's branch is kept, with its runnable time); else the time
 * since the queueing is the item's wait behind the kworker's earlier work
 * (hop queued, charged to the kworker). The item's branch is the
 * kworker's until the item ends: a wait inside it (D) is a wait, not the
 * end, and its end closes it, so that the kworker's next items are not
 * the chain's. A work is queued again only once its run began (its
 * PENDING bit cleared) or it was cancelled: a queueing by a context that
 * carries no chain frees a branch still waiting for the work, so that a
 * cancelled item's chain is not carried by a later, untraced queueing of
 * the same work (one in the instant between the PENDING bit's clearing
 * and the run's execute_start costs that run's chain: branches_stale); a
 * chain's queueing then waits next (RTM_KWORK_NEXT): both runs come. A
 * BH workqueue's item (6.9 and later) runs in softirq
 * context inside whatever task it interrupted: its start and end are
 * ignored, and its branch is pruned with its chain. Entry points, called
 * by the kernel probes and the replay; they call only rtm_pass.c's, the
 * chain's and the tables' own code.
 */
#include "rtm_fast.h"

#define RTM_KWORK_TGID	0	/* the item's key: no task has tgid 0 */
/*
 * The key of a work's second queueing, made after its run began (PENDING
 * cleared) but before that run's execute_start: both runs come, each with
 * its own chain, the second under work | 1 (a work_struct is aligned: no
 * work's address) until the first starts.
 */
#define RTM_KWORK_NEXT	1ull

/* the item branch waiting under key (work, or work | RTM_KWORK_NEXT), owned, or 0 */
static u32 rtm_kwork_take(struct rtm_core *c, u32 cpu, u64 key)
{
	if (!rtm_kwork_maybe(c, key))
		return 0;
	return rtm_cookie_take(c, cpu, RTM_KWORK_TGID, key, RTM_BF_KWORK);
}

/* the work's waiting second queueing becomes the next to start */
static void rtm_kwork_promote(struct rtm_core *c, u32 cpu, u64 work)
{
	u32 b = rtm_kwork_take(c, cpu, work | RTM_KWORK_NEXT);

	if (!b)
		return;
	rtm_br(c, b)->cookie = work;
	rtm_cookie_put(c, cpu, rtm_cookie_tag(RTM_KWORK_TGID, work), b);
}

void rtm_ev_kwork_queue(struct rtm_core *c, u32 cpu, u64 ts, u32 ctx,
			u32 pid, u64 work)
{
	struct rtm_cpu *pc;
	struct rtm_branch *nbr;
	rtm_a32 *slot;
	u32 sb, nb, ob;
	u64 key = work;

	if (!RTM_CPU_OK(c, cpu))
		return;
	pc = &c->cpus[cpu];
	if (!rtm_ctx_busy(pc, ctx)) {
		/*
		 * Queued by a context that carries no chain: a branch still
		 * waiting for the work is a cancelled queueing's (a chain's
		 * queueing waits next instead: RTM_KWORK_NEXT)
		 */
		nb = rtm_kwork_take(c, cpu, work);
		if (nb)
			rtm_branch_free(c, cpu, nb, RTM_C_BR_STALE);
		return;
	}
	slot = rtm_ctx_slot(pc, ctx);
	sb = rtm_ld32(slot);
	/* a timer's pending expiry starts its chain only at a wakeup */
	if (!sb || sb == RTM_TPEND)
		return;
	/* a branch of a task that left this cpu is its next event's */
	if (ctx == RTM_CTX_TASK && pid && rtm_racy32(&rtm_br(c, sb)->pid) != pid)
		return;
	sb = rtm_slot_take(slot);
	if (!sb)
		return;
	if (sb == RTM_TPEND) {
		rtm_cas32(slot, 0, RTM_TPEND);
		return;
	}
	if (rtm_branch_done(c, sb)) {
		rtm_slot_putback(c, cpu, slot, sb);
		return;
	}
	nb = rtm_branch_fork(c, cpu, sb);
	if (nb) {
		nbr = rtm_br(c, nb);
		nbr->pid = 0;
		nbr->tgid = RTM_KWORK_TGID;
		nbr->cookie = work;
		nbr->flags |= RTM_BF_KWORK;
		rtm_comm_load(nbr->comm, NULL);
		/* an item queueing itself again is followed as far as a wakeup */
		if (rtm_unlikely(rtm_hop_add(c, cpu, nb, RTM_HOP_QUEUE_WORK,
					     ctx, 0, NULL, ts))) {
			rtm_branch_free(c, cpu, nb, RTM_C_BR_PRUNED);
		} else {
			/* queued again before its begun run started: it waits next */
			ob = rtm_kwork_take(c, cpu, work);
			if (ob) {
				rtm_cookie_put(c, cpu, rtm_cookie_tag(RTM_KWORK_TGID, work), ob);
				key = work | RTM_KWORK_NEXT;
			}
			nbr->cookie = key;
			rtm_cookie_put(c, cpu, rtm_cookie_tag(RTM_KWORK_TGID, key), nb);
		}
	}
	rtm_slot_putback(c, cpu, slot, sb);
}

void rtm_ev_kwork_start(struct rtm_core *c, u32 cpu, u64 ts, u32 ctx,
			u32 pid, u32 tgid, const char *comm, u64 work)
{
	struct rtm_task_who who;
	struct rtm_branch *br, *ob;
	rtm_a32 *slot;
	u32 b, old;

	/* a BH item runs in softirq, inside the task it interrupted: not followed */
	if (ctx != RTM_CTX_TASK || !RTM_CPU_OK(c, cpu) || !rtm_kwork_maybe(c, work))
		return;
	/* (rtm_kwork_maybe asked above) */
	b = rtm_cookie_take(c, cpu, RTM_KWORK_TGID, work, RTM_BF_KWORK);
	if (!b)
		return;
	rtm_kwork_promote(c, cpu, work);
	br = rtm_br(c, b);
	slot = &c->cpus[cpu].task_cur;
	old = rtm_slot_take(slot);
	if (old) {
		ob = rtm_br(c, old);
		if (ob->pid == pid && rtm_ld32(&ob->chain) == rtm_ld32(&br->chain)) {
			/* woken for the item: that branch carries it */
			rtm_branch_free(c, cpu, b, RTM_C_BR_MERGED);
			ob->flags |= RTM_BF_KWORK;
			ob->cookie = work;
			rtm_slot_putback(c, cpu, slot, old);
			return;
		}
		/* the kworker's earlier work is over: the item's chain goes on */
		if (ob->pid == pid)
			rtm_branch_free(c, cpu, old, RTM_C_BR_CLOSED);
		else if (!rtm_runwake_late(c, cpu, old))
			rtm_branch_free(c, cpu, old, RTM_C_BR_STALE);
	}
	br->pid = pid;
	br->tgid = tgid;
	rtm_comm_load(br->comm, comm);
	who.pid = pid;
	who.prio = RTM_PRIO_UNKNOWN;
	who.comm = comm;
	rtm_hop_add_by(c, cpu, b, RTM_HOP_QUEUED, RTM_CTX_TASK, pid, br->comm,
		       ts, &who);
	rtm_slot_putback(c, cpu, slot, b);
}

void rtm_ev_kwork_end(struct rtm_core *c, u32 cpu, u64 ts, u32 ctx, u32 pid,
		      u64 work)
{
	rtm_a32 *slot;
	struct rtm_branch *br;
	u32 b;

	(void)ts;
	if (ctx != RTM_CTX_TASK || !RTM_CPU_OK(c, cpu))
		return;
	slot = &c->cpus[cpu].task_cur;
	b = rtm_ld32(slot);
	if (!b)
		return;
	br = rtm_br(c, b);
	if (!(rtm_racy8(&br->flags) & RTM_BF_KWORK) ||
	    rtm_racy32(&br->pid) != pid)
		return;
	b = rtm_slot_take(slot);
	if (!b)
		return;
	br = rtm_br(c, b);
	if (br->pid != pid || !(br->flags & RTM_BF_KWORK) ||
	    br->cookie != work) {
		rtm_slot_putback(c, cpu, slot, b);
		return;
	}
	/* what the item handed on goes on in its own branches */
	rtm_branch_free(c, cpu, b, RTM_C_BR_CLOSED);
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_handoff.c - an IRQ thread's work taken up by a task that was awake.
 *
 * An IRQ thread wakes the task that processes its data (a reader of a
 * GPIO line, a network socket...). When that task is awake already
 * (runnable after a preemption, or still busy with the previous item),
 * the kernel traces no wakeup: the thread's pass ends (it blocks) having
 * handed nothing on, and the task later takes up the new item with no
 * chain. The item's chain would be lost.
 *
 * The thread's branch is parked here instead of being closed, when some
 * work_end target exists (only librtmon's markers tell that a task begins
 * an item). A task that begins work (rtm_ev_work_begin) carrying no open
 * chain takes the oldest parked branch that a work_end target matching
 * that task accepts (the target names the IRQ or the source kind, and the
 * task): the chain goes on with hop HANDOFF. Parked branches whose chain
 * is done or expired are pruned by tick, like any slot.
 *
 * RTM_NHANDOFF slots, shared by all cpus, each taken and put with one
 * atomic exchange/CAS. Peeked fields are hints: a branch is re-checked
 * once owned. handoff_used counts the slots in use (each 0 <-> branch
 * change of a slot adds or subtracts one), so a work_begin with no chain
 * finds an empty parking with one load.
 */
#include "rtm_internal.h"

/* Start of the chain of a branch not owned (a hint), ~0 if none. */
static u64 rtm_handoff_start(struct rtm_core *c, u32 b)
{
	u32 ci = rtm_ld32(&rtm_br(c, b)->chain);

	if (!ci || ci > c->p.nchains)
		return ~0ull;
	return rtm_ld64(&rtm_chain_of(c, ci)->start);
}

/*
 * Park IRQ-thread branch b (owned by the caller) whose pass ends having
 * handed nothing on. Returns false when no work_end target exists (the
 * caller closes b). When every slot is taken, the oldest parked branch
 * gives way (closed).
 */
bool rtm_handoff_park(struct rtm_core *c, u32 cpu, u32 b)
{
	const struct rtm_tset *t;
	u32 seq, i, v, oldest = 0;
	u64 start, ostart = ~0ull;
	bool want;

	do {
		t = rtm_tset_begin(c, &seq);
		want = t->end_mask[RTM_END_WORK_END] != 0;
	} while (rtm_tset_retry(c, seq));
	if (!want)
		return false;
	for (i = 0; i < RTM_NHANDOFF; i++) {
		v = rtm_ld32(&c->handoff[i]);
		if (!v) {
			if (rtm_cas32(&c->handoff[i], 0, b)) {
				rtm_add32(&c->handoff_used, 1);
				return true;
			}
			continue;
		}
		start = rtm_handoff_start(c, v);
		if (start < ostart) {
			ostart = start;
			oldest = i;
		}
	}
	v = rtm_xchg32(&c->handoff[oldest], b);
	if (v)
		rtm_branch_free(c, cpu, v, RTM_C_BR_CLOSED);
	else
		rtm_add32(&c->handoff_used, 1);
	return true;
}

/* A parked branch back into its slot (else freed: the slot was refilled). */
static void rtm_handoff_putback(struct rtm_core *c, u32 cpu, u32 i, u32 b)
{
	if (rtm_cas32(&c->handoff[i], 0, b))
		rtm_add32(&c->handoff_used, 1);
	else
		rtm_branch_free(c, cpu, b, RTM_C_BR_STALE);
}

/* Tick: prune parked branches whose chain is done (or expired). */
void rtm_handoff_tick(struct rtm_core *c, u32 cpu)
{
	u32 i, v;

	if (!rtm_ld32(&c->handoff_used))
		return;
	for (i = 0; i < RTM_NHANDOFF; i++) {
		v = rtm_ld32(&c->handoff[i]);
		if (!v || !rtm_cas32(&c->handoff[i], v, 0))
			continue;
		rtm_add32(&c->handoff_used, (u32)-1);
		if (rtm_branch_done(c, v))
			rtm_branch_free(c, cpu, v, RTM_C_BR_PRUNED);
		else
			rtm_handoff_putback(c, cpu, i, v);
	}
}

/*
 * The target (work_end) of task pid/tgid/comm that accepts the chain of
 * branch b, owned by the caller (its chain reference keeps the chain's
 * fields stable), or -1.
 */
static int rtm_handoff_target(struct rtm_core *c, u32 b, u32 pid, u32 tgid,
			      const u64 *comm)
{
	const struct rtm_chain *ch = rtm_chain_of(c, rtm_ld32(&rtm_br(c, b)->chain));
	const struct rtm_tset *t;
	u32 seq;
	int tid;

	do {
		t = rtm_tset_begin(c, &seq);
		tid = rtm_target_match(t, t->end_mask[RTM_END_WORK_END],
				       ch->kind, ch->source, pid, tgid, comm);
	} while (rtm_tset_retry(c, seq));
	return tid;
}

/*
 * Task pid begins work carrying no open chain: take the oldest parked
 * branch a work_end target of this task accepts, as the task's branch
 * (hop HANDOFF at ts). Returns it (owned by the caller), or 0.
 * Candidates are ordered by their chain's start (atomic fields only),
 * then taken one by one and checked once owned; one that is not this
 * task's goes back.
 */
u32 rtm_handoff_take(struct rtm_core *c, u32 cpu, u64 ts, u32 pid, u32 tgid,
		     const char *comm)
{
	struct rtm_branch *br;
	u64 wcomm[2], start[RTM_NHANDOFF], st;
	u32 idx[RTM_NHANDOFF], n = 0, i, j, k, v;

	if (!comm || !rtm_ld32(&c->handoff_used))
		return 0;
	rtm_comm_load(wcomm, comm);
	for (i = 0; i < RTM_NHANDOFF; i++) {
		v = rtm_ld32(&c->handoff[i]);
		if (!v)
			continue;
		st = rtm_handoff_start(c, v);
		/* insertion into the list ordered by start */
		for (j = n; j > 0 && start[j - 1] > st; j--) {
			start[j] = start[j - 1];
			idx[j] = idx[j - 1];
		}
		start[j] = st;
		idx[j] = i;
		n++;
	}
	for (k = 0; k < n; k++) {
		v = rtm_xchg32(&c->handoff[idx[k]], 0);
		if (!v)
			continue;	/* taken meanwhile */
		rtm_add32(&c->handoff_used, (u32)-1);
		if (rtm_branch_done(c, v)) {
			rtm_branch_free(c, cpu, v, RTM_C_BR_PRUNED);
			continue;
		}
		if (rtm_handoff_target(c, v, pid, tgid, wcomm) < 0) {
			rtm_handoff_putback(c, cpu, idx[k], v);
			continue;
		}
		br = rtm_br(c, v);
		br->flags &= (u16)~(RTM_BF_IRQTHREAD | RTM_BF_HANDED);
		br->pid = pid;
		br->tgid = tgid;
		br->comm[0] = wcomm[0];
		br->comm[1] = wcomm[1];
		rtm_hop_add(c, cpu, v, RTM_HOP_HANDOFF, RTM_CTX_TASK, pid,
			    br->comm, ts);
		rtm_count(c, cpu, RTM_C_WORK_HANDOFF);
		return v;
	}
	return 0;
}

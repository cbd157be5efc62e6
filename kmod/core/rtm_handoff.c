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
 * The thread's branch is parked here instead of being closed, when a
 * work_end target names that IRQ by number (only librtmon's markers tell
 * that a task begins an item; a target of any IRQ cannot tell which
 * interrupt brought it). A task that begins work (rtm_ev_work_begin) carrying no open
 * chain takes the oldest parked branch that a work_end target matching
 * that task accepts (the target names the IRQ or the source kind, and the
 * task): the chain goes on with hop HANDOFF. Parked branches whose chain
 * is done or expired are pruned by tick, like any slot.
 *
 * The other order: the task, awake and of higher priority than the IRQ
 * thread, may take up the item while the thread's pass is still running
 * (preempted after queueing it), before the pass parks anything. Such a
 * work_begin (no chain, nothing parked that it takes) waits in waitwork[]
 * when a work_end target naming an IRQ may accept the task; the pass,
 * when it blocks having handed nothing traced on, adopts the oldest
 * waiting item begun after its interrupt that a target of that task
 * accepts: its branch
 * becomes the item's (hops HANDOFF and WORK_BEGIN at the work_begin's
 * time) and work_end completes it. An item whose work_end comes first
 * waits ended (end time kept): the pass that adopts it completes the
 * chain at once, at that end. An item not adopted within max_age is
 * counted work_untraced then.
 *
 * RTM_NHANDOFF slots, shared by all cpus, each taken and put with one
 * atomic exchange/CAS. Peeked fields are hints: a branch is re-checked
 * once owned. handoff_used counts the slots in use (each 0 <-> branch
 * change of a slot adds or subtracts one), so a work_begin with no chain
 * finds an empty parking with one load.
 *
 * The two sides meet on different cpus at nearly the same time (the task
 * takes the item up while the pass that queued it returns), so neither
 * may look before it publishes (else each side may find the other's table
 * empty). Each side publishes first, then looks, with a full barrier
 * between: the work_begin's item waits before it looks for a parked pass
 * (rtm_work_untraced), the pass is parked before it looks for a waiting
 * item (rtm_handoff_pass_end); one of the two sees the other. (Each
 * side counts its entry in after writing it, and the looker reads the
 * count with acquire before the entries.) Pairing
 * claims the parked branch first, then the item: the one holding the
 * branch is the only one that may claim an item with it, so two claimers
 * never give up on each other. What is still left apart (a branch held
 * for a moment by the other side while it looked) the tick pairs, at the
 * item's own times (rtm_handoff_tick). A work_end that finds its item
 * owned by the pass adopting it marks it ended (state 4) and the adopter,
 * releasing it, completes the chain if that work_end found no branch.
 */
#include "rtm_internal.h"

/*
 * A used-slot count moves just after its slot changed: it lags the slots
 * by at most one per cpu between the two, never more, either way.
 */
static inline void rtm_used_add(const struct rtm_core *c, rtm_a32 *used,
				u32 d, u32 nslots)
{
	u32 n = rtm_add32(used, d);

	rtm_assert((int)n >= -(int)c->p.ncpus &&
		   (int)n <= (int)(nslots + c->p.ncpus));
	(void)c;
	(void)n;
	(void)nslots;
}

/*
 * The work_end targets that name the chain's IRQ by number: only they
 * hand off. A target of any IRQ cannot tell which interrupt brought the
 * work: every IRQ thread's pass that wakes nothing of it (a disk's, a
 * NIC's) would be taken for it.
 */
static u32 rtm_handoff_mask(const struct rtm_tset *t, u32 kind, u64 source)
{
	u32 mask = t->end_mask[RTM_END_WORK_END], out = 0, i;

	if (kind != RTM_KIND_IRQ)
		return 0;
	while (mask) {
		i = rtm_ctz32(mask);
		mask &= mask - 1;
		if (t->t[i].src == RTM_SRC_IRQ && t->t[i].irq == source)
			out |= 1u << i;
	}
	return out;
}

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
 * handed nothing on. Returns its slot, or -1 when no work_end target names
 * its IRQ (the caller closes b). When every slot is taken, the oldest
 * parked branch gives way (closed).
 */
static int rtm_handoff_park(struct rtm_core *c, u32 cpu, u32 b)
{
	const struct rtm_chain *ch = rtm_chain_of(c, rtm_ld32(&rtm_br(c, b)->chain));
	const struct rtm_tset *t;
	u32 seq, i, v, oldest = 0;
	u64 start, ostart = ~0ull;
	bool want;

	do {
		t = rtm_tset_begin(c, &seq);
		want = rtm_handoff_mask(t, ch->kind, ch->source) != 0;
	} while (rtm_tset_retry(c, seq));
	if (!want)
		return -1;
	for (i = 0; i < RTM_NHANDOFF; i++) {
		v = rtm_ld32(&c->handoff[i]);
		if (!v) {
			if (rtm_cas32(&c->handoff[i], 0, b)) {
				rtm_used_add(c, &c->handoff_used, 1, RTM_NHANDOFF);
				return (int)i;
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
		rtm_used_add(c, &c->handoff_used, 1, RTM_NHANDOFF);
	return (int)oldest;
}

/*
 * Insert slot i with key k into the n slots of idx[] ordered by key[]
 * (insertion sort: at most 16 entries, on slow paths only).
 */
static void rtm_order_insert(u64 *key, u32 *idx, u32 n, u64 k, u32 i)
{
	u32 j;

	for (j = n; j > 0 && key[j - 1] > k; j--) {
		key[j] = key[j - 1];
		idx[j] = idx[j - 1];
	}
	key[j] = k;
	idx[j] = i;
}

/* The parked slots, ordered by their chain's start (hints); their number. */
static u32 rtm_handoff_sorted(struct rtm_core *c, u32 *idx)
{
	u64 start[RTM_NHANDOFF];
	u32 n = 0, i, v;

	for (i = 0; i < RTM_NHANDOFF; i++) {
		v = rtm_ld32(&c->handoff[i]);
		if (!v)
			continue;
		rtm_order_insert(start, idx, n++, rtm_handoff_start(c, v), i);
	}
	return n;
}

/*
 * A parked branch back into its slot, else (the slot was refilled) parked
 * again where there is room.
 */
static void rtm_handoff_putback(struct rtm_core *c, u32 cpu, u32 i, u32 b)
{
	if (rtm_cas32(&c->handoff[i], 0, b))
		rtm_used_add(c, &c->handoff_used, 1, RTM_NHANDOFF);
	else if (rtm_handoff_park(c, cpu, b) < 0)
		rtm_branch_free(c, cpu, b, RTM_C_BR_STALE);
}

/*
 * Tick: prune parked branches whose chain is done (or expired); they are
 * peeked at first, so that a live one never leaves its slot for that (a
 * work_begin looking meanwhile would find nothing). Then pair what the
 * rendezvous left apart: each parked pass, oldest first, adopts a waiting
 * item as it would have when it blocked (the item keeps its own times).
 */
void rtm_handoff_tick(struct rtm_core *c, u32 cpu)
{
	u32 idx[RTM_NHANDOFF], n, i, k, v;

	if (!rtm_ld32(&c->handoff_used))
		return;
	for (i = 0; i < RTM_NHANDOFF; i++) {
		v = rtm_ld32(&c->handoff[i]);
		if (!v || !rtm_peek_done(c, v) ||
		    !rtm_cas32(&c->handoff[i], v, 0))
			continue;
		rtm_used_add(c, &c->handoff_used, (u32)-1, RTM_NHANDOFF);
		RTM_TEST_POINT(c, cpu, RTM_TP_TICK_TAKEN);
		if (rtm_branch_done(c, v))
			rtm_branch_free(c, cpu, v, RTM_C_BR_PRUNED);
		else
			rtm_handoff_putback(c, cpu, i, v);
	}
	if (!rtm_ld32(&c->waitwork_used))
		return;
	n = rtm_handoff_sorted(c, idx);
	for (k = 0; k < n; k++) {
		v = rtm_xchg32(&c->handoff[idx[k]], 0);
		if (!v)
			continue;	/* taken meanwhile */
		rtm_used_add(c, &c->handoff_used, (u32)-1, RTM_NHANDOFF);
		RTM_TEST_POINT(c, cpu, RTM_TP_TICK_TAKEN);
		if (rtm_branch_done(c, v))
			rtm_branch_free(c, cpu, v, RTM_C_BR_PRUNED);
		else if (!rtm_waitwork_adopt(c, cpu, v))
			rtm_handoff_putback(c, cpu, idx[k], v);
	}
}

/*
 * The target (work_end) of task pid/tgid/comm that accepts the chain of
 * branch b, owned by the caller (its chain reference keeps the chain's
 * fields stable), or -1.
 */
static int rtm_handoff_target(struct rtm_core *c, u32 b, u32 pid, u32 tgid,
			      const u64 *comm, u64 *deadline)
{
	const struct rtm_chain *ch = rtm_chain_of(c, rtm_ld32(&rtm_br(c, b)->chain));
	const struct rtm_tset *t;
	u32 seq;
	int tid;
	u64 dl;

	do {
		t = rtm_tset_begin(c, &seq);
		tid = rtm_target_match(t, rtm_handoff_mask(t, ch->kind, ch->source),
				       ch->kind, ch->source, pid, tgid, comm);
		dl = tid >= 0 ? t->t[tid].dl_emit : 0;
	} while (rtm_tset_retry(c, seq));
	if (deadline)
		*deadline = dl;
	return tid;
}

/* An item waiting for its pass (begun, or ended first)? */
static inline bool rtm_waitwork_waiting(u32 state)
{
	return state == RTM_WW_BEGUN || state == RTM_WW_ENDED;
}

/* Own slot w if it is in state st (-> 1), or false. */
static bool rtm_waitwork_own(struct rtm_waitwork *w, u32 st)
{
	return rtm_ld32_acq(&w->state) == st &&
	       rtm_cas32(&w->state, st, RTM_WW_OWNED);
}

/* Free owned slot w (owned, or owned and ended meanwhile). */
static void rtm_waitwork_free(struct rtm_core *c, struct rtm_waitwork *w)
{
	rtm_st32_rel(&w->state, RTM_WW_FREE);
	rtm_used_add(c, &c->waitwork_used, (u32)-1, RTM_NWAITWORK);
}

/*
 * Put owned slot w back into waiting state st (begun or ended), or ended
 * if a work_end marked it meanwhile (state 4: end_ts is set).
 */
static void rtm_waitwork_putback(struct rtm_waitwork *w, u32 st)
{
	if (!rtm_cas32(&w->state, RTM_WW_OWNED, st))
		rtm_st32_rel(&w->state, RTM_WW_ENDED);
}

/*
 * Claim the caller's own waiting item w, begun at ts by tgid: false if a
 * pass owns or adopted it. (Adopted, its slot may already hold another
 * task's item: that one is put back untouched.)
 */
static bool rtm_waitwork_claim(struct rtm_waitwork *w, u64 ts, u32 tgid)
{
	if (!rtm_waitwork_own(w, RTM_WW_BEGUN))
		return false;
	if (rtm_ld64(&w->ts) == ts && rtm_ld32(&w->tgid) == tgid)
		return true;
	rtm_waitwork_putback(w, RTM_WW_BEGUN);
	return false;
}

/*
 * Task pid begins work carrying no open chain: take the oldest parked
 * branch a work_end target of this task accepts, as the task's branch
 * (hop HANDOFF at ts). Returns it (owned by the caller), or 0.
 * Candidates are ordered by their chain's start (atomic fields only),
 * then taken one by one and checked once owned; one that is not this
 * task's goes back. With own (the task's item, already waiting: the look
 * after publishing), the item is claimed once the branch is held, and
 * freed; if a pass adopting it holds it, the branch goes back (0).
 */
u32 rtm_handoff_take(struct rtm_core *c, u32 cpu, u64 ts, u32 pid, u32 tgid,
		     const char *comm, struct rtm_waitwork *own)
{
	struct rtm_branch *br;
	u64 wcomm[2];
	u32 idx[RTM_NHANDOFF], n, k, v;

	if (!comm || !rtm_ld32_acq(&c->handoff_used))
		return 0;
	rtm_comm_load(wcomm, comm);
	n = rtm_handoff_sorted(c, idx);
	for (k = 0; k < n; k++) {
		v = rtm_xchg32(&c->handoff[idx[k]], 0);
		if (!v)
			continue;	/* taken meanwhile */
		rtm_used_add(c, &c->handoff_used, (u32)-1, RTM_NHANDOFF);
		if (rtm_branch_done(c, v)) {
			rtm_branch_free(c, cpu, v, RTM_C_BR_PRUNED);
			continue;
		}
		if (rtm_handoff_target(c, v, pid, tgid, wcomm, NULL) < 0) {
			rtm_handoff_putback(c, cpu, idx[k], v);
			continue;
		}
		if (own && !rtm_waitwork_claim(own, ts, tgid)) {
			/* a pass adopts it (or did): it needs no other */
			rtm_handoff_putback(c, cpu, idx[k], v);
			return 0;
		}
		if (own)
			rtm_waitwork_free(c, own);
		br = rtm_br(c, v);
		br->flags &= (u8)~(RTM_BF_IRQTHREAD | RTM_BF_HANDED);
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

/* ---- work begun before the pass that brought it ended ---- */

/*
 * Work item (tgid, cookie) begun at ts by pid with no chain: wait for an
 * IRQ thread's pass to adopt it. Returns its slot (waiting: state 2), or
 * NULL (the caller counts work_untraced) when no work_end target may
 * accept the task, or every slot is taken.
 */
struct rtm_waitwork *rtm_waitwork_add(struct rtm_core *c, u32 cpu, u64 ts,
				      u32 pid, u32 tgid, u64 cookie,
				      const char *comm)
{
	const struct rtm_tset *t;
	struct rtm_waitwork *w;
	u64 wcomm[2];
	u32 seq, i, n;
	bool want;

	/* some work_end target names an IRQ by number (tg.handoff_irq) */
	if (!comm || !rtm_ld32(&c->tg.handoff_irq))
		return NULL;
	rtm_comm_load(wcomm, comm);
	do {
		t = rtm_tset_begin(c, &seq);
		want = rtm_target_maybe(t, RTM_END_WORK_END, wcomm);
	} while (rtm_tset_retry(c, seq));
	if (!want)
		return NULL;
	/* a process cannot take every slot from the others */
	for (i = 0, n = 0; i < RTM_NWAITWORK; i++)
		n += rtm_ld32(&c->waitwork[i].state) != RTM_WW_FREE &&
		     rtm_ld32(&c->waitwork[i].tgid) == tgid;
	if (n >= RTM_NWAITWORK_TGID)
		return NULL;
	for (i = 0; i < RTM_NWAITWORK; i++) {
		w = &c->waitwork[i];
		if (rtm_ld32(&w->state) ||
		    !rtm_cas32(&w->state, RTM_WW_FREE, RTM_WW_OWNED))
			continue;
		w->pid = pid;
		rtm_st32(&w->tgid, tgid);
		w->cpu = cpu;
		w->comm[0] = wcomm[0];
		w->comm[1] = wcomm[1];
		rtm_st64(&w->cookie, cookie);
		rtm_st64(&w->ts, ts);
		/*
		 * (a work_end of an older item with this cookie may have marked
		 * the slot while it was being filled: this item has not ended)
		 */
		rtm_st32_rel(&w->state, RTM_WW_BEGUN);
		rtm_used_add(c, &c->waitwork_used, 1, RTM_NWAITWORK);
		return w;
	}
	return NULL;
}

/*
 * Point branch br (owned) back at the latest hop of its path at or before
 * ts, so that hops added at ts keep the path in time order. The root is
 * never passed (ts is not before the chain's start).
 */
static void rtm_handoff_rewind(const struct rtm_chain *ch,
			       struct rtm_branch *br, u64 ts)
{
	u32 h = br->hop;

	while (ch->hops[h].depth > 1 && ch->hops[h].ts > ts)
		h = ch->hops[h].parent;
	/* interference since the later hops fell after ts: not the item's */
	if (h != br->hop) {
		rtm_st32(&br->intf_irq_ns, 0);
		rtm_st32(&br->intf_si_ns, 0);
	}
	br->hop = (u16)h;
}

/*
 * Release item w, owned by the adopter, whose cookie branch is now in the
 * cookie table. If a work_end marked it ended meanwhile (state 4), that
 * work_end may have looked for the branch before it was there: the item
 * ends now at the work_end's time, unless the work_end took the branch.
 */
static void rtm_waitwork_release(struct rtm_core *c, u32 cpu,
				 struct rtm_waitwork *w, u32 pid, u32 tgid,
				 u64 cookie, const u64 *comm)
{
	u64 end;

	if (rtm_cas32(&w->state, RTM_WW_OWNED, RTM_WW_FREE)) {
		rtm_used_add(c, &c->waitwork_used, (u32)-1, RTM_NWAITWORK);
		return;
	}
	/* state 4: end_ts was stored before the mark */
	rtm_ld32_acq(&w->state);
	end = rtm_ld64(&w->end_ts);
	rtm_waitwork_free(c, w);
	rtm_work_end_cookie(c, cpu, end, pid, tgid, cookie,
			    (const char *)comm, 0);
}

/*
 * IRQ-thread branch b (owned by the caller) ends its pass having handed
 * nothing traced on: adopt the oldest waiting item begun after the chain's
 * start whose task a work_end target accepts for this chain. b becomes
 * the item's cookie branch, or completes at once if the item has ended.
 * Returns false if none (b is still the caller's).
 */
bool rtm_waitwork_adopt(struct rtm_core *c, u32 cpu, u32 b)
{
	struct rtm_branch *br = rtm_br(c, b);
	struct rtm_chain *ch;
	struct rtm_waitwork *w;
	u64 start, ts[RTM_NWAITWORK], st, end = 0, cookie, dl;
	u32 idx[RTM_NWAITWORK], n = 0, i, k, pid, tgid, state, wcpu;
	u64 comm[2];
	int tid;

	if (!rtm_ld32_acq(&c->waitwork_used))
		return false;
	ch = rtm_chain_of(c, rtm_ld32(&br->chain));
	start = rtm_ld64(&ch->start);
	for (i = 0; i < RTM_NWAITWORK; i++) {
		w = &c->waitwork[i];
		if (!rtm_waitwork_waiting(rtm_ld32_acq(&w->state)))
			continue;
		st = rtm_ld64(&w->ts);
		if (st < start)
			continue;	/* begun before this interrupt */
		rtm_order_insert(ts, idx, n++, st, i);
	}
	for (k = 0; k < n; k++) {
		w = &c->waitwork[idx[k]];
		state = rtm_ld32(&w->state);
		if (!rtm_waitwork_waiting(state) || !rtm_waitwork_own(w, state))
			continue;	/* taken meanwhile */
		RTM_TEST_POINT(c, cpu, RTM_TP_ADOPT_OWNED);
		st = rtm_ld64(&w->ts);
		tgid = rtm_ld32(&w->tgid);
		tid = st < start ? -1 : rtm_handoff_target(c, b, w->pid, tgid,
							     w->comm, &dl);
		if (tid < 0) {
			rtm_waitwork_putback(w, state);	/* not ours */
			continue;
		}
		/* the chain now waits for that target's task */
		if (!(rtm_ld32(&ch->cand) & (1u << tid)))
			rtm_or32(&ch->cand, 1u << tid);
		pid = w->pid;
		comm[0] = w->comm[0];
		comm[1] = w->comm[1];
		cookie = rtm_ld64(&w->cookie);
		wcpu = w->cpu < c->p.ncpus ? w->cpu : cpu;
		if (state == RTM_WW_ENDED) {
			end = rtm_ld64(&w->end_ts);
			rtm_waitwork_free(c, w);
		}
		br->flags &= (u8)~(RTM_BF_IRQTHREAD | RTM_BF_HANDED);
		br->pid = pid;
		br->tgid = tgid;
		br->comm[0] = comm[0];
		br->comm[1] = comm[1];
		/*
		 * The path goes on from the pass's last hop before the item
		 * was begun: hops of the pass after that (the thread switched
		 * in again after the task preempted it) are not on the item's
		 * path, and the item keeps its own times. (Clamped to the
		 * pass's last hop instead, the item's end could fall after
		 * the real work_end.)
		 */
		rtm_handoff_rewind(ch, br, st);
		/* the hops where the task took the item up (its cpu) */
		rtm_hop_add(c, wcpu, b, RTM_HOP_HANDOFF, RTM_CTX_TASK, pid,
			    br->comm, st);
		rtm_count(c, cpu, RTM_C_WORK_HANDOFF);
		if (state == RTM_WW_BEGUN) {
			/*
			 * The item stays owned until its cookie branch is in the
			 * table: a work_end meanwhile marks it, not loses it.
			 */
			rtm_work_begin_branch(c, wcpu, b, st, tgid, cookie);
			RTM_TEST_POINT(c, cpu, RTM_TP_ADOPT_INSERTED);
			rtm_waitwork_release(c, cpu, w, pid, tgid, cookie, comm);
			return true;
		}
		/* it ended before its pass did: complete it now, at its end */
		br->cookie = cookie;
		br->flags |= RTM_BF_COOKIE;
		rtm_hop_add(c, wcpu, b, RTM_HOP_WORK_BEGIN, RTM_CTX_TASK, pid,
			    br->comm, st);
		if (end < st)
			end = st;
		rtm_hop_add(c, wcpu, b, RTM_HOP_WORK_END, RTM_CTX_TASK, pid,
			    br->comm, end);
		rtm_complete_free(c, cpu, b, end, tid, dl, pid, tgid, br->comm);
		return true;
	}
	return false;
}

/* Is an item waiting that was begun at or after start? (a hint) */
static bool rtm_waitwork_pending(struct rtm_core *c, u64 start)
{
	struct rtm_waitwork *w;
	u32 i;

	if (!rtm_ld32_acq(&c->waitwork_used))
		return false;
	for (i = 0; i < RTM_NWAITWORK; i++) {
		w = &c->waitwork[i];
		if (rtm_waitwork_waiting(rtm_ld32_acq(&w->state)) &&
		    rtm_ld64(&w->ts) >= start)
			return true;
	}
	return false;
}

/*
 * IRQ-thread branch b (owned by the caller) ends its pass having handed
 * nothing traced on: adopt a waiting item, else park b for a work_begin
 * to come. Parked, it looks once more for an item (the work_begin may
 * have published its item while b was being parked, and looked before b
 * was there), and takes b back to adopt it. Returns false when no
 * work_end target names its IRQ (b is still the caller's, to close).
 */
bool rtm_handoff_pass_end(struct rtm_core *c, u32 cpu, u32 b)
{
	struct rtm_chain *ch = rtm_chain_of(c, rtm_ld32(&rtm_br(c, b)->chain));
	u64 start = rtm_ld64(&ch->start);
	u32 tries = 0, cand;
	int i;

	/* the pass waits for the task of a target it may hand off to */
	cand = rtm_target_handoff(c, ch->kind, ch->source);
	if (cand & ~rtm_ld32(&ch->cand))
		rtm_or32(&ch->cand, cand);
	if (rtm_waitwork_adopt(c, cpu, b))
		return true;
	RTM_TEST_POINT(c, cpu, RTM_TP_PASS_LOOKED);
	for (;;) {
		i = rtm_handoff_park(c, cpu, b);
		if (i < 0)
			return false;
		RTM_TEST_POINT(c, cpu, RTM_TP_PASS_PARKED);
		/* parked (published), then look */
		rtm_fence_full();
		/*
		 * At most twice: an item that is no one's keeps it looking
		 * (the tick pairs what is left)
		 */
		if (++tries > 2 || !rtm_waitwork_pending(c, start) ||
		    !rtm_cas32(&c->handoff[i], b, 0))
			return true;	/* parked, or taken meanwhile */
		rtm_used_add(c, &c->handoff_used, (u32)-1, RTM_NHANDOFF);
		if (rtm_waitwork_adopt(c, cpu, b))
			return true;
	}
}

/*
 * Item (tgid, cookie) ends at ts: if still waiting, it waits ended; if a
 * pass is adopting it (owned), it is marked ended for that pass to see.
 */
void rtm_waitwork_end(struct rtm_core *c, u32 tgid, u64 cookie, u64 ts)
{
	struct rtm_waitwork *w;
	u32 i, s, again;

	for (i = 0; i < RTM_NWAITWORK; i++) {
		w = &c->waitwork[i];
		for (again = 0; again < 2; again++) {
			s = rtm_ld32_acq(&w->state);
			if ((s != RTM_WW_BEGUN && s != RTM_WW_OWNED) ||
			    rtm_ld64(&w->cookie) != cookie ||
			    rtm_ld32(&w->tgid) != tgid)
				break;
			if (s == RTM_WW_OWNED) {
				rtm_st64(&w->end_ts, ts);
				if (rtm_cas32(&w->state, RTM_WW_OWNED,
					      RTM_WW_OWNED_ENDED))
					return;
				continue;	/* released meanwhile: again */
			}
			if (!rtm_waitwork_own(w, RTM_WW_BEGUN))
				continue;
			if (rtm_ld32(&w->tgid) != tgid ||
			    rtm_ld64(&w->cookie) != cookie) {
				rtm_st32_rel(&w->state, RTM_WW_BEGUN);
				break;
			}
			rtm_st64(&w->end_ts, ts);
			rtm_st32_rel(&w->state, RTM_WW_ENDED);
			return;
		}
	}
}

/* Tick: items waiting past max_age (all: every item) had no chain. */
void rtm_waitwork_tick(struct rtm_core *c, u32 cpu, u64 now, bool all)
{
	struct rtm_waitwork *w;
	u32 i, state;
	u64 ts;

	if (!rtm_ld32(&c->waitwork_used))
		return;
	for (i = 0; i < RTM_NWAITWORK; i++) {
		w = &c->waitwork[i];
		state = rtm_ld32(&w->state);
		if (!rtm_waitwork_waiting(state))
			continue;
		ts = rtm_ld64(&w->ts);
		if (!all && (now < ts || now - ts <= c->p.max_age_ns))
			continue;
		if (!rtm_waitwork_own(w, state))
			continue;
		rtm_waitwork_free(c, w);
		rtm_count(c, cpu, RTM_C_WORK_UNTRACED);
	}
}

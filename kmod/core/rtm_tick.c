// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_tick.c - periodic housekeeping: overdue reports, max-age reclaim,
 * pruning of branches whose chain is done.
 *
 * Tick may run on any cpu, concurrently with events and other ticks. It
 * inspects chains it holds no reference to by reading the state word
 * (generation | flags), taking a reference only if the count is not zero
 * and re-checking the generation; slots are peeked and only taken
 * (atomically) when their branch's chain looks done.
 */
#include "rtm_internal.h"

/* expire_all: every open chain is reclaimed now, with no overdue report */
static void rtm_tick_chain(struct rtm_core *c, u32 cpu, u32 ci, u64 now,
			   u64 min_dl, bool expire_all)
{
	struct rtm_chain *ch = rtm_chain_of(c, ci);
	u32 s = rtm_ld32_acq(&ch->state), s2, dlt;
	u64 start, dl, age;
	bool aged, overdue;

	if (!(s & RTM_CS_LIVE) || (s & RTM_CS_DONE))
		return;
	start = rtm_ld64(&ch->start);
	age = now > start ? now - start : 0;
	aged = expire_all || age > c->p.max_age_ns;
	overdue = !expire_all && min_dl && !(s & RTM_CS_OVERDUE) && age > min_dl &&
		  !(rtm_ld32(&ch->xflags) & RTM_CX_REPOLL);	/* re-checked */
	if (!aged && !overdue)
		return;
	if (!rtm_chain_get_live(c, ci))
		return;
	/* with a reference and the same generation, the fields are stable */
	s2 = rtm_ld32_acq(&ch->state);
	if ((s2 >> 8) != (s >> 8) || !(s2 & RTM_CS_LIVE) || (s2 & RTM_CS_DONE))
		goto out;
	/* a REPOLL chain's start is an upper bound: never a verdict */
	if (overdue && (rtm_ld32(&ch->xflags) & RTM_CX_REPOLL))
		overdue = false;
	if (overdue && !(s2 & RTM_CS_OVERDUE)) {
		/* the smallest deadline among the targets it may be late for */
		rtm_target_chain_deadline(c, ch->kind, ch->source,
					  rtm_ld32(&ch->cand), ch->tseq,
					  &dl, &dlt);
		/*
		 * one tick reports it: the one that claims overdue_tgt, which
		 * a completion that sees OVERDUE sees too
		 */
		if (dl && age > dl &&
		    rtm_cas32(&ch->overdue_tgt, RTM_TARGET_NONE, dlt) &&
		    rtm_cas32(&ch->state, s2, s2 | RTM_CS_OVERDUE)) {
			rtm_count(c, cpu, RTM_C_OVERDUE);
			rtm_emit_timeout(c, cpu, ci, now, dlt, dl);
		}
	}
	if (aged) {
		s2 = rtm_ld32(&ch->state);
		while (!(s2 & RTM_CS_DONE)) {
			if (rtm_cas32(&ch->state, s2,
				      s2 | RTM_CS_DONE | RTM_CS_EXPIRED)) {
				rtm_count(c, cpu, RTM_C_EXPIRED);
				break;
			}
			s2 = rtm_ld32(&ch->state);
		}
	}
out:
	rtm_chain_put(c, cpu, ci);
}

/*
 * A slot whose branch's chain is done: the branch pruned. si_cur and
 * si_pend (keep_young): a done branch may be kept for a re-raise
 * (rtm_repoll.c) until it is no longer young at now.
 */
static void rtm_tick_slot(struct rtm_core *c, u32 cpu, rtm_a32 *slot,
			  u64 now, bool keep_young)
{
	u32 v = rtm_ld32(slot);

	if (!rtm_slot_branch(v) || !rtm_peek_done(c, v) ||
	    (keep_young && rtm_repoll_young(c, v, now)))
		return;
	RTM_TEST_POINT(c, cpu, RTM_TP_SLOT_PEEKED);
	if (!rtm_cas32(slot, v, 0))
		return;
	RTM_TEST_POINT(c, cpu, RTM_TP_SLOT_TAKEN);
	/*
	 * we own v now: its chain reference makes the check reliable; never
	 * put back done (the slot may belong to another pass by now)
	 */
	if (rtm_branch_done(c, v))
		rtm_branch_free(c, cpu, v, RTM_C_BR_PRUNED);
	else
		rtm_slot_putback(c, cpu, slot, v);
}

static void rtm_tick_bucket_way(struct rtm_core *c, u32 cpu,
				struct rtm_htab *h, u32 i, u32 w)
{
	u64 v = rtm_htab_peek(h, i, w);
	u32 b = (u32)v;

	if (!v || !rtm_peek_done(c, b) || !rtm_htab_take_word(h, i, w, v))
		return;
	if (rtm_branch_done(c, b)) {
		rtm_branch_free(c, cpu, b, RTM_C_BR_PRUNED);
	} else if (rtm_htab_insert(h, (u32)(v >> 32), b)) {
		rtm_count(c, cpu, h == &c->tasks ?
			  RTM_C_DROP_TASK : RTM_C_DROP_COOKIE);
		rtm_branch_free(c, cpu, b, RTM_C_BR_DROPPED);
	}
}

static void rtm_tick_cpu_slots(struct rtm_core *c, u32 cpu, u32 k, u64 now,
			       bool all)
{
	struct rtm_cpu *pc = &c->cpus[k];
	u32 i;

	/*
	 * At a stop, a timer callback's pending expiry whose exit will never
	 * be seen: left there, the next start's first wakeup in that context
	 * would begin a chain at that old expiry.
	 */
	if (all) {
		rtm_cas32(&pc->hi_timer, RTM_TPEND, 0);
		rtm_cas32(&pc->si_timer, RTM_TPEND, 0);
	}

	rtm_tick_slot(c, cpu, &pc->hi_cur, now, false);
	rtm_tick_slot(c, cpu, &pc->hi_timer, now, false);
	rtm_tick_slot(c, cpu, &pc->hi_armed, now, false);
	rtm_tick_slot(c, cpu, &pc->si_cur, now, !all);
	rtm_tick_slot(c, cpu, &pc->si_timer, now, false);
	rtm_tick_slot(c, cpu, &pc->task_cur, now, false);
	for (i = 0; i < RTM_NR_SOFTIRQ; i++)
		rtm_tick_slot(c, cpu, &pc->si_pend[i], now, !all);
}

/* The scan, in this order; each unit is one step of rtm_tick_run(). */
enum {
	RTM_TICK_CHAINS,	/* chains 1..nchains */
	RTM_TICK_SLOTS,		/* each cpu's slots */
	RTM_TICK_HANDOFF,	/* parked passes, waiting work items */
	RTM_TICK_TASKS,		/* task table buckets */
	RTM_TICK_COOKIES,	/* cookie table buckets */
	RTM_TICK_DONE
};

void rtm_tick_begin(struct rtm_core *c, struct rtm_tick_pos *t, __u64 now)
{
	t->now = now;
	t->min_dl = rtm_target_min_deadline(c);
	t->phase = RTM_TICK_CHAINS;
	t->i = 1;
	t->expire_all = 0;
}

static u32 rtm_tick_units(struct rtm_core *c, u32 phase)
{
	switch (phase) {
	case RTM_TICK_CHAINS:
		return c->p.nchains + 1;	/* chain indices start at 1 */
	case RTM_TICK_SLOTS:
		return c->p.ncpus;
	case RTM_TICK_HANDOFF:
		return 1;
	case RTM_TICK_TASKS:
		return c->tasks.mask + 1;
	case RTM_TICK_COOKIES:
		return c->cookies.mask + 1;
	}
	return 0;
}

/*
 * The closed chains, or the empty buckets, from unit i of the phase on:
 * how many follow in a row (at most max), each a load and a test.
 */
static u32 rtm_tick_skip(struct rtm_core *c, u32 phase, u32 i, u32 max)
{
	u32 n = rtm_tick_units(c, phase), k = 0;
	struct rtm_htab *h;

	if (max > n - i)
		max = n - i;
	switch (phase) {
	case RTM_TICK_CHAINS:
		while (k < max) {
			u32 s = rtm_ld32(&rtm_chain_of(c, i + k)->state);

			if ((s & RTM_CS_LIVE) && !(s & RTM_CS_DONE))
				break;
			k++;
		}
		break;
	case RTM_TICK_TASKS:
	case RTM_TICK_COOKIES:
		/*
		 * occ counts a slot before it is filled: 0, the bucket is
		 * empty; a slot being filled meanwhile is seen at the next
		 * tick
		 */
		h = phase == RTM_TICK_TASKS ? &c->tasks : &c->cookies;
		while (k < max && !rtm_ld64(&h->b[i + k].occ))
			k++;
		break;
	}
	return k;
}

int rtm_tick_run(struct rtm_core *c, __u32 cpu, struct rtm_tick_pos *t,
		 __u32 budget)
{
	bool all = t->expire_all;
	u32 w, k, cheap = 0;

	if (cpu >= c->p.ncpus) {
		t->phase = RTM_TICK_DONE;
		return 0;
	}
	while (t->phase < RTM_TICK_DONE && budget) {
		if (t->i >= rtm_tick_units(c, t->phase)) {
			t->phase++;
			t->i = 0;
			continue;
		}
		/*
		 * closed chains and empty buckets in a row, 4 a step of the
		 * budget: a batch takes no longer than one of full units
		 */
		k = rtm_tick_skip(c, t->phase, t->i,
				  budget > (~0u >> 2) ? ~0u : budget * 4 - cheap);
		if (k) {
			t->i += k;
			cheap += k;
			budget -= cheap / 4;
			cheap %= 4;
			continue;
		}
		switch (t->phase) {
		case RTM_TICK_CHAINS:
			rtm_tick_chain(c, cpu, t->i, t->now, t->min_dl, all);
			break;
		case RTM_TICK_SLOTS:
			rtm_tick_cpu_slots(c, cpu, t->i, t->now, all);
			break;
		case RTM_TICK_HANDOFF:
			rtm_handoff_tick(c, cpu);
			rtm_waitwork_tick(c, cpu, t->now, all);
			break;
		case RTM_TICK_TASKS:
		case RTM_TICK_COOKIES:
			for (w = 0; w < RTM_HT_WAYS; w++)
				rtm_tick_bucket_way(c, cpu, t->phase == RTM_TICK_TASKS ?
						    &c->tasks : &c->cookies, t->i, w);
			break;
		}
		t->i++;
		budget--;
	}
	return t->phase < RTM_TICK_DONE;
}

static void rtm_tick(struct rtm_core *c, u32 cpu, u64 now, bool expire_all)
{
	struct rtm_tick_pos t;

	rtm_tick_begin(c, &t, now);
	t.expire_all = expire_all;
	while (rtm_tick_run(c, cpu, &t, ~0u))
		;
}

void rtm_ev_tick(struct rtm_core *c, u32 cpu, u64 now)
{
	rtm_tick(c, cpu, now, false);
}

void rtm_core_expire_all(struct rtm_core *c, u32 cpu)
{
	rtm_tick(c, cpu, 0, true);
}

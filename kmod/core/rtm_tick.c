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
	overdue = !expire_all && min_dl && !(s & RTM_CS_OVERDUE) && age > min_dl;
	if (!aged && !overdue)
		return;
	if (!rtm_chain_get_live(c, ci))
		return;
	/* with a reference and the same generation, the fields are stable */
	s2 = rtm_ld32_acq(&ch->state);
	if ((s2 >> 8) != (s >> 8) || !(s2 & RTM_CS_LIVE) || (s2 & RTM_CS_DONE))
		goto out;
	if (overdue) {
		/* the smallest deadline among targets accepting this source */
		rtm_target_chain_deadline(c, ch->kind, ch->source,
					  rtm_ld32(&ch->xflags) & RTM_CX_CANDIDATE,
					  &dl, &dlt);
		if (dl && age > dl &&
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

/* Peek: does the branch in this slot belong to a finished chain? */
static inline bool rtm_peek_done(struct rtm_core *c, u32 b)
{
	u32 ci = rtm_ld32(&rtm_br(c, b)->chain);

	if (!ci || ci > c->p.nchains)
		return false;
	return rtm_ld32(&rtm_chain_of(c, ci)->state) & RTM_CS_DONE;
}

static void rtm_tick_slot(struct rtm_core *c, u32 cpu, rtm_a32 *slot)
{
	u32 v = rtm_ld32(slot);

	if (!v || !rtm_peek_done(c, v) || !rtm_cas32(slot, v, 0))
		return;
	/* we own v now: its chain reference makes the check reliable */
	if (rtm_branch_done(c, v))
		rtm_branch_free(c, cpu, v, RTM_C_BR_PRUNED);
	else
		rtm_slot_putback(c, cpu, slot, v);
}

static void rtm_tick_htab(struct rtm_core *c, u32 cpu, struct rtm_htab *h)
{
	u32 i, w, b;
	u64 v;

	for (i = 0; i <= h->mask; i++) {
		for (w = 0; w < RTM_HT_WAYS; w++) {
			v = rtm_htab_peek(h, i, w);
			if (!v)
				continue;
			b = (u32)v;
			if (!rtm_peek_done(c, b) || !rtm_htab_take_word(h, i, w, v))
				continue;
			if (rtm_branch_done(c, b)) {
				rtm_branch_free(c, cpu, b, RTM_C_BR_PRUNED);
			} else if (rtm_htab_insert(h, (u32)(v >> 32), b)) {
				rtm_count(c, cpu, h == &c->tasks ?
					  RTM_C_DROP_TASK : RTM_C_DROP_COOKIE);
				rtm_branch_free(c, cpu, b, RTM_C_BR_DROPPED);
			}
		}
	}
}

static void rtm_tick(struct rtm_core *c, u32 cpu, u64 now, bool expire_all)
{
	struct rtm_cpu *pc;
	u32 i, k;
	u64 min_dl;

	if (cpu >= c->p.ncpus)
		return;
	min_dl = rtm_target_min_deadline(c);
	for (i = 1; i <= c->p.nchains; i++)
		rtm_tick_chain(c, cpu, i, now, min_dl, expire_all);
	for (k = 0; k < c->p.ncpus; k++) {
		pc = &c->cpus[k];
		rtm_tick_slot(c, cpu, &pc->hi_cur);
		rtm_tick_slot(c, cpu, &pc->hi_timer);
		rtm_tick_slot(c, cpu, &pc->hi_armed);
		rtm_tick_slot(c, cpu, &pc->si_cur);
		rtm_tick_slot(c, cpu, &pc->si_timer);
		rtm_tick_slot(c, cpu, &pc->task_cur);
		for (i = 0; i < RTM_NR_SOFTIRQ; i++)
			rtm_tick_slot(c, cpu, &pc->si_pend[i]);
	}
	rtm_handoff_tick(c, cpu);
	rtm_waitwork_tick(c, cpu, now, expire_all);
	rtm_tick_htab(c, cpu, &c->tasks);
	rtm_tick_htab(c, cpu, &c->cookies);
}

void rtm_ev_tick(struct rtm_core *c, u32 cpu, u64 now)
{
	rtm_tick(c, cpu, now, false);
}

void rtm_core_expire_all(struct rtm_core *c, u32 cpu)
{
	rtm_tick(c, cpu, 0, true);
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_repoll.c - a softirq pass re-raised after its IRQ chain completed.
 *
 * On mainline a NAPI poll that finds more buffers raises NET_RX again
 * from its own pass; the next pass runs later (often in ksoftirqd) and
 * hands a task data no interrupt announced. The IRQ's chain completed
 * meanwhile, so that wakeup would have no chain. The done branch is kept
 * in si_pend, then si_cur, and the first wakeup in the next pass of a
 * task an IRQ target (with a task filter) wants for that IRQ starts a
 * chain at the re-raise: root hop softirq_raise, record flag REPOLL.
 *
 * Only a raise of the running pass's own vector, from that pass, counts;
 * the state (struct rtm_sipass) is written by the cpu's own probes only;
 * the tick only frees kept branches once their chain is past max_age.
 */
#include "rtm_internal.h"

static inline struct rtm_sipass *rtm_sipass_of(struct rtm_core *c, u32 cpu)
{
	return &c->sipass[cpu];
}

static inline const struct rtm_chain *rtm_chain_of_br(struct rtm_core *c,
						      u32 b)
{
	return rtm_chain_of(c, rtm_ld32(&rtm_br(c, b)->chain));
}

/* The hop a softirq branch of an IRQ chain ends at, NULL if not such. */
static const struct rtm_hop *rtm_si_hop(struct rtm_core *c, u32 b, u32 vec)
{
	const struct rtm_chain *ch = rtm_chain_of_br(c, b);
	const struct rtm_hop *h = &ch->hops[rtm_br(c, b)->hop];

	if (ch->kind != RTM_KIND_IRQ || h->pid != vec)
		return NULL;
	if (h->type == RTM_HOP_SOFTIRQ_ENTRY ||
	    (h->type == RTM_HOP_SOFTIRQ_RAISE && h->ctx == RTM_CTX_SOFTIRQ))
		return h;
	return NULL;
}

/*
 * The tick leaves a done branch in si_cur or si_pend (not owned: peeked)
 * while its chain is younger than max_age: it may be a re-raise's.
 */
bool rtm_repoll_young(struct rtm_core *c, u32 b, u64 now)
{
	u32 ci = rtm_ld32(&rtm_br(c, b)->chain);

	if (!ci || ci > c->p.nchains)
		return false;
	return (s64)(now - rtm_ld64(&rtm_chain_of(c, ci)->start)) <=
	       (s64)c->p.max_age_ns;
}

void rtm_repoll_live_entry(struct rtm_core *c, u32 cpu, u32 vec)
{
	struct rtm_sipass *sp = rtm_sipass_of(c, cpu);

	sp->vec = vec;
	sp->repoll = 0;
	sp->passes = 0;
	sp->reraise[vec] = 0;
	sp->kept &= ~(1u << vec);
}

/*
 * vec raised by what the kept pass is not (an interrupt no chain follows,
 * a task, a timer): the next pass may hand that one's data, so a kept
 * re-raise there is dropped; a chain's pending branch stays.
 */
void rtm_repoll_drop(struct rtm_core *c, u32 cpu, u32 vec)
{
	rtm_a32 *slot = &c->cpus[cpu].si_pend[vec];
	u32 b = rtm_ld32(slot);

	if (!b || !rtm_peek_done(c, b))
		return;
	b = rtm_slot_take(slot);
	if (!b)
		return;
	if (!rtm_branch_done(c, b)) {
		rtm_slot_putback(c, cpu, slot, b);
		return;
	}
	rtm_sipass_of(c, cpu)->reraise[vec] = 0;
	rtm_sipass_of(c, cpu)->kept &= ~(1u << vec);
	rtm_branch_free(c, cpu, b, RTM_C_BR_PRUNED);
}

/* A raise of vec from ctx with no branch: dropped unless the kept pass's */
void rtm_repoll_raise_none(struct rtm_core *c, u32 cpu, u32 vec, u32 ctx)
{
	const struct rtm_sipass *sp = rtm_sipass_of(c, cpu);

	if (ctx == RTM_CTX_SOFTIRQ && sp->vec == vec && (sp->kept & (1u << vec)))
		return;
	rtm_repoll_drop(c, cpu, vec);
}

void rtm_repoll_raise(struct rtm_core *c, u32 cpu, u32 sb, u64 ts, u32 vec)
{
	struct rtm_sipass *sp = rtm_sipass_of(c, cpu);

	if (sp->vec == vec && rtm_chain_of_br(c, sb)->kind == RTM_KIND_IRQ)
		sp->reraise[vec] = ts;
}

void rtm_repoll_raise_done(struct rtm_core *c, u32 cpu, u32 sb, u64 ts,
			   u32 vec)
{
	struct rtm_sipass *sp = rtm_sipass_of(c, cpu);

	/* another vector's raise: the pass may still raise its own */
	if (sp->vec != vec && rtm_si_hop(c, sb, sp->vec)) {
		rtm_repoll_drop(c, cpu, vec);
		rtm_slot_putback(c, cpu, &c->cpus[cpu].si_cur, sb);
		return;
	}
	/* a live branch there is the next pass's chain: it wins */
	if (sp->vec == vec && rtm_si_hop(c, sb, vec) &&
	    rtm_cas32(&c->cpus[cpu].si_pend[vec], 0, sb)) {
		sp->reraise[vec] = ts;
		sp->kept |= 1u << vec;
		return;
	}
	rtm_branch_free(c, cpu, sb, RTM_C_BR_PRUNED);
}

void rtm_repoll_enter(struct rtm_core *c, u32 cpu, u32 b, u64 ts, u32 vec)
{
	struct rtm_sipass *sp = rtm_sipass_of(c, cpu);
	const struct rtm_hop *h = rtm_si_hop(c, b, vec);
	u64 r = sp->reraise[vec];

	sp->reraise[vec] = 0;
	sp->kept &= ~(1u << vec);
	/*
	 * the re-raise came after b's last hop, not too long ago, and within
	 * a few passes of the chain's own (each pass with a kept branch takes
	 * every wakeup's slow path)
	 */
	if (!r || !h || (s64)(r - h->ts) < 0 ||
	    (s64)(ts - r) > (s64)c->p.max_age_ns ||
	    sp->passes >= RTM_REPOLL_PASSES) {
		rtm_branch_free(c, cpu, b, RTM_C_BR_PRUNED);
		return;
	}
	sp->vec = vec;
	sp->repoll = r;
	sp->entry = ts;
	sp->passes++;
	rtm_slot_replace(c, cpu, &c->cpus[cpu].si_cur, b);
}

/*
 * A re-raised pass wakes task pid (sb: the done branch, taken from
 * si_cur): a chain starts at the re-raise if an IRQ target with a task
 * filter wants the task for the done chain's IRQ; sb is freed and the
 * new branch returned. Otherwise sb goes back (a later re-raise of this
 * pass may still need it), or is freed if the pass was no re-raise's.
 */
u32 rtm_repoll_wake(struct rtm_core *c, u32 cpu, u32 sb, u32 pid, u32 tgid,
		    const char *comm)
{
	struct rtm_sipass *sp = rtm_sipass_of(c, cpu);
	u64 irq = rtm_chain_of_br(c, sb)->source;
	const struct rtm_tset *t;
	u64 cm[2];
	u32 seq, b;
	int tid;

	if (!rtm_si_hop(c, sb, sp->vec)) {
		rtm_branch_free(c, cpu, sb, RTM_C_BR_PRUNED);
		return 0;
	}
	if (!sp->repoll)
		goto keep;
	rtm_comm_load(cm, comm);
	if (!(rtm_ld64(&c->tg.bloom_kind[0]) & rtm_comm_bit(cm)))
		goto keep;
	do {
		t = rtm_tset_begin(c, &seq);
		tid = rtm_target_match(t, t->active & ~t->irqonly,
				       RTM_KIND_IRQ, irq, pid, tgid, cm);
	} while (rtm_tset_retry(c, seq));
	if (tid < 0)
		goto keep;
	b = rtm_chain_start(c, cpu, RTM_KIND_IRQ, irq, sp->repoll,
			    RTM_HOP_SOFTIRQ_RAISE, sp->vec);
	if (!b)
		goto keep;
	rtm_count(c, cpu, RTM_C_SOFTIRQ_REPOLL);
	rtm_hop_add(c, cpu, b, RTM_HOP_SOFTIRQ_ENTRY, RTM_CTX_SOFTIRQ, sp->vec,
		    NULL, sp->entry);
	sp->repoll = 0;
	sp->passes = 0;		/* the bound is for passes that wake no target */
	rtm_branch_free(c, cpu, sb, RTM_C_BR_PRUNED);
	return b;
keep:
	rtm_slot_putback(c, cpu, &c->cpus[cpu].si_cur, sb);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_target.c - the target table.
 *
 * Changes are rare and serialized by the caller. The writer edits a
 * private master copy, then publishes it into two reader copies with a
 * latch sequence (like the kernel's write_seqcount_latch): readers pick
 * copy[seq & 1]; the writer only overwrites the copy readers are not
 * directed to, and readers retry if seq moved. The hot path never blocks.
 */
#include "rtm_internal.h"

void rtm_targets_init(struct rtm_core *c)
{
	memset(&c->tg.master, 0, sizeof(c->tg.master));
	memcpy(&c->tg.copy[0], &c->tg.master, sizeof(c->tg.master));
	memcpy(&c->tg.copy[1], &c->tg.master, sizeof(c->tg.master));
	rtm_st32(&c->tg.seq, 0);
	rtm_st32(&c->tg.handoff_irq, 0);
	rtm_st32(&c->tg.timer_kinds, 0);
}

static inline bool rtm_comm_eq(const u64 *a, const u64 *b)
{
	return a[0] == b[0] && a[1] == b[1];
}

/* Add target i to the comm index (the writer's copy: no reader sees it). */
static void rtm_cidx_add(struct rtm_tset *m, const u64 *comm, u32 i)
{
	u32 h = rtm_cidx_hash(comm);
	struct rtm_cidx *e;

	for (;; h = (h + 1) & (RTM_CIDX_SLOTS - 1)) {
		e = &m->cidx[h];
		if (!e->mask) {
			e->comm[0] = comm[0];
			e->comm[1] = comm[1];
		} else if (!rtm_comm_eq(e->comm, comm)) {
			continue;	/* at most RTM_MAX_TARGETS used: ends */
		}
		e->mask |= 1u << i;
		return;
	}
}

/*
 * The targets whose comm filter comm passes: those with no filter, and
 * those of the index's entry for comm. With many targets, matching a task
 * looks only at these, not at every target the bloom word lets through
 * (a 64-bit filter of 32 comms passes a comm in about 4 cases of 10).
 */
u32 rtm_comm_targets(const struct rtm_tset *ts, const u64 *comm)
{
	const struct rtm_cidx *e;
	u32 h, n;

	if (!comm)
		return ts->nocomm;
	h = rtm_cidx_hash(comm);
	for (n = 0; n < RTM_CIDX_SLOTS; n++, h = (h + 1) & (RTM_CIDX_SLOTS - 1)) {
		e = &ts->cidx[h];
		if (!e->mask)
			return ts->nocomm;
		if (rtm_comm_eq(e->comm, comm))
			return ts->nocomm | e->mask;
	}
	/*
	 * A copy half written (the latch's reader retries after): no free
	 * slot is bounded only in a whole copy. Narrow nothing.
	 */
	return ~0u;
}

static void rtm_targets_publish(struct rtm_core *c)
{
	struct rtm_tset *m = &c->tg.master;
	const struct rtm_tgt *t;
	u64 broad = 0, task = 0, kind[2] = { 0, 0 }, bit;
	u32 i, k, handoff_irq = 0;

	m->active = 0;
	m->irqonly = 0;
	m->timers = 0;
	m->irq_any = 0;
	m->nocomm = 0;
	memset(m->cidx, 0, sizeof(m->cidx));
	memset(m->end_mask, 0, sizeof(m->end_mask));
	memset(m->bloom, 0, sizeof(m->bloom));
	memset(m->irq_bits, 0, sizeof(m->irq_bits));
	memset(m->comm_task, 0, sizeof(m->comm_task));
	for (i = 0; i < RTM_MAX_TARGETS; i++) {
		t = &m->t[i];
		if (!t->has_task && !t->src)
			continue;	/* unused slot (all zero) */
		m->active |= 1u << i;
		if (t->has_comm)
			rtm_cidx_add(m, t->comm, i);
		else
			m->nocomm |= 1u << i;
		if (t->has_task) {
			m->end_mask[t->end] |= 1u << i;
			if (t->end == RTM_END_WORK_END && t->src == RTM_SRC_IRQ)
				handoff_irq |= 1u << i;
			if (t->comm[0] | t->comm[1])
				m->bloom[t->end] |= rtm_comm_bit(t->comm);
			else
				m->bloom[t->end] = ~0ull;
			bit = t->comm[0] | t->comm[1] ?
			      rtm_comm_bit(t->comm) : ~0ull;
			task |= bit;
			for (k = 0; k < 64; k++)
				if (bit & (1ull << k))
					m->comm_task[k] |= 1u << i;
			if (t->src != RTM_SRC_IRQ)
				broad |= bit;
			if (t->src != RTM_SRC_TIMER)
				kind[0] |= bit;
			if (t->src == RTM_SRC_ANY || t->src == RTM_SRC_TIMER)
				kind[1] |= bit;
		}
		else
			m->irqonly |= 1u << i;
		if (t->src == RTM_SRC_ANY || t->src == RTM_SRC_TIMER)
			m->timers |= t->tkinds;
		if (t->src == RTM_SRC_ANY || t->src == RTM_SRC_IRQ_ANY)
			m->irq_any = 1;
		if (t->src == RTM_SRC_IRQ)
			m->irq_bits[t->irq / 64] |= 1ull << (t->irq % 64);
	}
	rtm_st64(&c->tg.bloom_broad, broad);
	rtm_st64(&c->tg.bloom_task, task);
	rtm_st64(&c->tg.bloom_kind[0], kind[0]);
	rtm_st64(&c->tg.bloom_kind[1], kind[1]);
	rtm_st32(&c->tg.handoff_irq, handoff_irq);
	/* a wider set first: a timer a new target wants is not missed */
	rtm_st32(&c->tg.timer_kinds, rtm_ld32(&c->tg.timer_kinds) | m->timers);
	rtm_add32(&c->tg.seq, 1);	/* readers now use copy[1] */
	memcpy(&c->tg.copy[0], m, sizeof(*m));
	rtm_add32(&c->tg.seq, 1);	/* readers now use copy[0] */
	memcpy(&c->tg.copy[1], m, sizeof(*m));
	rtm_st32(&c->tg.timer_kinds, m->timers);
}

int rtm_core_set_target(struct rtm_core *c, u32 id,
			const struct rtm_target_spec *s)
{
	struct rtm_tgt *t;
	bool has_task;
	u32 n;

	if (id >= RTM_MAX_TARGETS || !s || s->src > RTM_SRC_IRQ_ANY ||
	    s->end >= RTM_END_NR || (s->flags & ~RTM_TGT_MISSES_ONLY))
		return -22;
	if (s->src == RTM_SRC_IRQ && s->irq >= RTM_MAX_IRQ)
		return -22;
	if (s->deadline_ns & RTM_DL_MISSES_ONLY)	/* 292 years */
		return -22;
	/* timer kinds: known ones, and only for sources with timers */
	if ((s->timers & ~(u32)RTM_TIMERS_ALL) ||
	    (s->timers && s->src != RTM_SRC_ANY && s->src != RTM_SRC_TIMER))
		return -22;
	has_task = s->comm[0] || s->pid || s->tgid;
	if (!has_task && s->src != RTM_SRC_IRQ && s->src != RTM_SRC_IRQ_ANY)
		return -22;
	t = &c->tg.master.t[id];
	memset(t, 0, sizeof(*t));
	/* up to the NUL: tasks' comms are compared as 16 zero-filled bytes */
	for (n = 0; n < RTM_COMM_LEN && s->comm[n]; n++)
		;
	memcpy(t->comm, s->comm, n);
	t->pid = s->pid;
	t->tgid = s->tgid;
	t->src = s->src;
	t->irq = s->src == RTM_SRC_IRQ ? s->irq : 0;
	t->deadline = s->deadline_ns;
	t->dl_emit = s->deadline_ns |
		     (s->flags & RTM_TGT_MISSES_ONLY ? RTM_DL_MISSES_ONLY : 0);
	t->end = s->end;
	t->flags = s->flags;
	t->has_task = has_task;
	t->set_seq = rtm_ld32(&c->tg.seq) + 2;	/* after rtm_targets_publish */
	t->has_comm = (t->comm[0] | t->comm[1]) != 0;
	t->kinds = t->src == RTM_SRC_TIMER ? 1u << RTM_KIND_TIMER :
		   t->src == RTM_SRC_ANY ? (1u << RTM_KIND_TIMER) |
		   (1u << RTM_KIND_IRQ) : 1u << RTM_KIND_IRQ;
	t->tkinds = s->timers ? s->timers : RTM_TIMERS_ALL;
	rtm_targets_publish(c);
	return 0;
}

int rtm_core_clear_target(struct rtm_core *c, u32 id)
{
	if (id >= RTM_MAX_TARGETS)
		return -22;
	memset(&c->tg.master.t[id], 0, sizeof(c->tg.master.t[id]));
	rtm_targets_publish(c);
	return 0;
}

/* First target in mask matching the task and the chain source, or -1. */
int rtm_target_match(const struct rtm_tset *ts, u32 mask, u32 kind,
		     u64 source, u32 pid, u32 tgid, const u64 *comm)
{
	u32 i;

	/* several to try: only those whose comm filter passes */
	if (mask & (mask - 1))
		mask &= rtm_comm_targets(ts, comm);
	while (mask) {
		i = rtm_ctz32(mask);
		mask &= mask - 1;
		if (rtm_task_ok(&ts->t[i], kind, source, pid, tgid, comm))
			return (int)i;
	}
	return -1;
}

/* First IRQ-only target accepting this chain source, or -1. */
int rtm_target_irqonly(const struct rtm_tset *ts, u32 kind, u64 source)
{
	u32 mask = ts->irqonly, i;

	while (mask) {
		i = rtm_ctz32(mask);
		mask &= mask - 1;
		if (rtm_src_ok(&ts->t[i], kind, source))
			return (int)i;
	}
	return -1;
}

/*
 * The work_end targets naming this chain's IRQ: an IRQ thread's pass may
 * hand its work to their tasks untraced (rtm_handoff.c).
 */
u32 rtm_target_handoff(struct rtm_core *c, u32 kind, u64 source)
{
	const struct rtm_tset *ts;
	u32 seq, mask, i, m;

	do {
		ts = rtm_tset_begin(c, &seq);
		mask = rtm_ld32(&c->tg.handoff_irq);
		m = 0;
		while (mask) {
			i = rtm_ctz32(mask);
			mask &= mask - 1;
			if (rtm_src_ok(&ts->t[i], kind, source))
				m |= 1u << i;
		}
	} while (rtm_tset_retry(c, seq));
	return m;
}

/*
 * The smallest deadline among the targets an open chain may be late for,
 * for its overdue report. A task target counts only when a task the chain
 * woke passed its whole filter (cand): another task's chain (a disk
 * interrupt's, another process's sleep) is not its miss, even of its IRQ
 * (a chain held up before it woke the target's task shows at completion).
 * A target defined after the chain started is not the one its cand bit
 * was set for (an id deleted and added again). IRQ-only targets take
 * every chain of their IRQ.
 */
void rtm_target_chain_deadline(struct rtm_core *c, u32 kind, u64 source,
			       u32 cand, u32 tseq, u64 *deadline, u32 *target)
{
	const struct rtm_tset *ts;
	u32 seq, mask, i;
	u64 best;
	u32 bt;

	do {
		ts = rtm_tset_begin(c, &seq);
		best = 0;
		bt = RTM_TARGET_NONE;
		mask = ts->active;
		while (mask) {
			i = rtm_ctz32(mask);
			mask &= mask - 1;
			if (!ts->t[i].deadline ||
			    !rtm_src_ok(&ts->t[i], kind, source))
				continue;
			if (ts->t[i].has_task && (!(cand & (1u << i)) ||
			    (s32)(ts->t[i].set_seq - tseq) > 0))
				continue;
			if (!best || ts->t[i].deadline < best) {
				best = ts->t[i].deadline;
				bt = i;
			}
		}
	} while (rtm_tset_retry(c, seq));
	*deadline = best;
	*target = bt;
}

/* Smallest non-zero deadline of all targets (0: none), for tick. */
u64 rtm_target_min_deadline(struct rtm_core *c)
{
	const struct rtm_tset *ts;
	u32 seq, mask, i;
	u64 best;

	do {
		ts = rtm_tset_begin(c, &seq);
		best = 0;
		mask = ts->active;
		while (mask) {
			i = rtm_ctz32(mask);
			mask &= mask - 1;
			if (ts->t[i].deadline &&
			    (!best || ts->t[i].deadline < best))
				best = ts->t[i].deadline;
		}
	} while (rtm_tset_retry(c, seq));
	return best;
}

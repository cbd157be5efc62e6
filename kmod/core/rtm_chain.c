// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_chain.c - chain and branch life cycle.
 *
 * A chain (root: IRQ or timer) is referenced by each of its branches.
 * A branch is a tip of the wakeup tree; it is owned by whoever took it
 * out of a slot. The chain state word carries a generation so tick can
 * inspect chains it holds no reference to (seqlock-like, validated by
 * CAS). Hops are appended to the chain's fixed hop array with one
 * fetch-add; each hop remembers its parent, so the path of the
 * completing branch is rebuilt by walking parents back to the root.
 */
#include "rtm_internal.h"

u32 rtm_chain_start(struct rtm_core *c, u32 cpu, u32 kind, u64 source,
		    u64 start, u32 hop_type, u32 hop_pid)
{
	struct rtm_chain *ch;
	struct rtm_branch *br;
	struct rtm_hop *h;
	u32 ci, bi, gen;

	ci = rtm_pool_get(&c->chain_pool);
	if (rtm_unlikely(!ci)) {
		rtm_count(c, cpu, RTM_C_DROP_CHAIN);
		return 0;
	}
	bi = rtm_pool_get(&c->branch_pool);
	if (rtm_unlikely(!bi)) {
		rtm_pool_put(&c->chain_pool, ci);
		rtm_count(c, cpu, RTM_C_DROP_BRANCH);
		return 0;
	}
	ch = rtm_chain_of(c, ci);
	gen = (rtm_ld32(&ch->state) >> 8) + 1;
	rtm_st32(&ch->ref, 1);
	rtm_st32(&ch->nhops, 1);
	/* a re-raise as the root: a REPOLL chain (rtm_repoll.c) */
	rtm_st32(&ch->xflags, hop_type == RTM_HOP_SOFTIRQ_RAISE ? RTM_CX_REPOLL : 0);
	rtm_st32(&ch->cand, 0);
	rtm_st32(&ch->overdue_tgt, RTM_TARGET_NONE);
	ch->tseq = rtm_ld32(&c->tg.seq);
	rtm_st64(&ch->start, start);
	ch->source = source;
	ch->kind = (u8)kind;
	h = &ch->hops[0];
	h->ts = start;
	h->pid = hop_pid;
	h->cpu = (u16)cpu;
	h->type = (u8)hop_type;
	h->ctx = hop_type == RTM_HOP_SOFTIRQ_RAISE ? RTM_CTX_SOFTIRQ :
						     RTM_CTX_HARDIRQ;
	h->parent = 0;
	h->depth = 1;
	h->comm[0] = 0;
	h->comm[1] = 0;
	h->by_pid = 0;
	h->pre_ns = 0;
	rtm_hop_intf(c, ch, 0)->irq_ns = 0;
	rtm_hop_intf(c, ch, 0)->si_ns = 0;
	rtm_st32_rel(&ch->state, (gen << 8) | RTM_CS_LIVE);

	bi = rtm_br_handle(c, bi);
	br = rtm_br(c, bi);
	rtm_st32(&br->chain, ci);
	br->hop = 0;
	br->flags = 0;
	br->pid = 0;
	br->tgid = 0;
	br->cookie = 0;
	br->comm[0] = 0;
	br->comm[1] = 0;
	br->pre_ns = 0;
	rtm_st32(&br->intf_irq_ns, 0);
	rtm_st32(&br->intf_si_ns, 0);
	rtm_count(c, cpu, RTM_C_STARTED);
	rtm_count(c, cpu, RTM_C_BR_OPENED);
	return bi;
}

void rtm_chain_put(struct rtm_core *c, u32 cpu, u32 ci)
{
	struct rtm_chain *ch = rtm_chain_of(c, ci);
	u32 s;

	if (rtm_add32(&ch->ref, (u32)-1))
		return;
	s = rtm_ld32(&ch->state);
	if (!(s & RTM_CS_DONE))
		rtm_count(c, cpu, RTM_C_ABANDONED);
	rtm_st32_rel(&ch->state, s & ~(u32)RTM_CS_FLAGS);
	rtm_pool_put(&c->chain_pool, ci);
}

/* Take a reference on a chain nobody lent us, unless it is being freed. */
bool rtm_chain_get_live(struct rtm_core *c, u32 ci)
{
	struct rtm_chain *ch = rtm_chain_of(c, ci);
	u32 r = rtm_ld32(&ch->ref);

	while (r) {
		if (rtm_cas32(&ch->ref, r, r + 1))
			return true;
		r = rtm_ld32(&ch->ref);
	}
	return false;
}

u32 rtm_branch_fork(struct rtm_core *c, u32 cpu, u32 parent)
{
	struct rtm_branch *p = rtm_br(c, parent), *br;
	u32 bi = rtm_pool_get(&c->branch_pool);
	u32 ci;

	if (rtm_unlikely(!bi)) {
		rtm_count(c, cpu, RTM_C_DROP_BRANCH);
		return 0;
	}
	ci = rtm_ld32(&p->chain);
	rtm_add32_rlx(&rtm_chain_of(c, ci)->ref, 1);	/* we hold one already */
	p->flags |= RTM_BF_HANDED;	/* the caller owns the parent */
	bi = rtm_br_handle(c, bi);
	br = rtm_br(c, bi);
	rtm_st32(&br->chain, ci);
	br->hop = p->hop;
	br->flags = 0;
	br->pid = p->pid;
	br->tgid = p->tgid;
	br->cookie = 0;
	br->comm[0] = p->comm[0];
	br->comm[1] = p->comm[1];
	/*
	 * the parent's folded preemptions and interference fall before the
	 * fork's first hop
	 */
	rtm_st32(&br->intf_irq_ns, rtm_ld32(&p->intf_irq_ns));
	rtm_st32(&br->intf_si_ns, rtm_ld32(&p->intf_si_ns));
	br->pre_ns = p->pre_ns;
	if (rtm_unlikely(br->pre_ns)) {
		br->pre_blk_ns = p->pre_blk_ns;
		br->pre_by_ns = p->pre_by_ns;
		br->pre_by_pid = p->pre_by_pid;
		br->pre_by_prio = p->pre_by_prio;
		br->pre_by_comm[0] = p->pre_by_comm[0];
		br->pre_by_comm[1] = p->pre_by_comm[1];
	}
	rtm_count(c, cpu, RTM_C_BR_OPENED);
	return bi;
}

void rtm_branch_free(struct rtm_core *c, u32 cpu, u32 b, enum rtm_cnt why)
{
	u32 ci = rtm_ld32(&rtm_br(c, b)->chain);

	/* only the owner of a live handle frees it: never RTM_TPEND or 0 */
	rtm_assert(rtm_br_owned(c, b));
	rtm_assert(ci && ci <= c->p.nchains);
	/* the completing branch is counted by RTM_C_COMPLETED */
	if (why != RTM_C_BR_COMPLETED)
		rtm_count(c, cpu, why);
	rtm_pool_put(&c->branch_pool, b & RTM_BR_IDX_MASK);
	rtm_chain_put(c, cpu, ci);
}

/*
 * part of all (all > 0) in 1/2^bits, bits <= 16, (1 << bits) - 1: all of
 * it. 32-bit division only (32-bit kernels have no 64-bit one).
 */
static u32 rtm_fraction(u32 part, u32 all, u32 bits)
{
	while (all > 0xffff) {
		all >>= 1;
		part >>= 1;
	}
	return part >= all ? (1u << bits) - 1 : (part << bits) / all;
}

/*
 * Hop h closes the interval in which branch br's folded preemptions fell:
 * it carries them (their culprit in its by_* fields unless it names its
 * own: a switch_in's).
 */
void rtm_hop_take_folded(struct rtm_hop *h, struct rtm_branch *br, bool own_by)
{
	h->pre_ns = br->pre_ns;
	h->pre_blk = (u8)rtm_fraction(br->pre_blk_ns, br->pre_ns, 8);
	h->pre_share = 0;
	if (!own_by && br->pre_by_pid) {
		h->by_pid = br->pre_by_pid;
		h->by_prio = br->pre_by_prio;
		h->by_comm[0] = br->pre_by_comm[0];
		h->by_comm[1] = br->pre_by_comm[1];
		h->pre_share = (u16)rtm_fraction(br->pre_by_ns, br->pre_ns, 16);
	}
	br->pre_ns = 0;
}

/* rtm_hop_add found the chain's hops full: the chain says so once */
void rtm_hop_full(struct rtm_core *c, u32 cpu, struct rtm_chain *ch)
{
	if (!(rtm_ld32(&ch->xflags) & RTM_CX_DROPPED))
		rtm_or32(&ch->xflags, RTM_CX_DROPPED);
	rtm_count(c, cpu, RTM_C_DROP_HOPS);
}

/*
 * Branch b's task may be where a target of its chain's kind ends the chain
 * (a hint, like rtm_mark_candidate()). A wakeup with no comm (a replayed
 * line without one) may.
 */
bool rtm_may_reach(struct rtm_core *c, struct rtm_chain *ch, u32 b)
{
	const u64 *comm = rtm_br(c, b)->comm;

	return !(comm[0] | comm[1]) ||
	       (rtm_ld64(&c->tg.bloom_kind[ch->kind == RTM_KIND_TIMER]) &
		rtm_comm_bit(comm));
}

/*
 * Keep the branch whose chain started first (b1 on ties); free the other.
 * Two branches of one task: the kept one is an IRQ thread's pass, or a
 * kworker's item, if either was (a wakeup mid-pass by an older chain's).
 */
u32 rtm_merge(struct rtm_core *c, u32 cpu, u32 b1, u32 b2)
{
	u32 c1 = rtm_ld32(&rtm_br(c, b1)->chain);
	u32 c2 = rtm_ld32(&rtm_br(c, b2)->chain);
	u32 keep = b1, lose = b2, kc = c1;
	u32 r1 = rtm_ld32(&rtm_chain_of(c, c1)->xflags) & RTM_CX_REPOLL;
	u32 r2 = rtm_ld32(&rtm_chain_of(c, c2)->xflags) & RTM_CX_REPOLL;

	/* a REPOLL chain's start is only a bound: an interrupt's chain wins */
	if (r1 != r2 ? r1 != 0 :
	    rtm_ld64(&rtm_chain_of(c, c2)->start) <
	    rtm_ld64(&rtm_chain_of(c, c1)->start)) {
		keep = b2;
		lose = b1;
		kc = c2;
	}
	if (rtm_br(c, keep)->pid == rtm_br(c, lose)->pid) {
		rtm_br(c, keep)->flags |= rtm_br(c, lose)->flags &
					   RTM_BF_IRQTHREAD;
		/* a kworker woken mid-item by an older chain: still in it */
		if ((rtm_br(c, lose)->flags & ~rtm_br(c, keep)->flags) & RTM_BF_KWORK) {
			rtm_br(c, keep)->flags |= RTM_BF_KWORK;
			rtm_br(c, keep)->cookie = rtm_br(c, lose)->cookie;
		}
	}
	if (c1 != c2 &&
	    !(rtm_ld32(&rtm_chain_of(c, kc)->xflags) & RTM_CX_MERGED))
		rtm_or32(&rtm_chain_of(c, kc)->xflags, RTM_CX_MERGED);
	rtm_branch_free(c, cpu, lose, RTM_C_BR_MERGED);
	return keep;
}

/* Install b as the current branch of a context, dropping a stale one. */
void rtm_slot_replace(struct rtm_core *c, u32 cpu, rtm_a32 *slot, u32 b)
{
	u32 old;

	rtm_assert(rtm_br_owned(c, b));
	old = rtm_xchg32(slot, b);
	if (rtm_unlikely(rtm_slot_branch(old)))
		rtm_branch_free(c, cpu, old, RTM_C_BR_STALE);
}

/* Return a borrowed branch; if a nested event filled the slot, ours is stale. */
void rtm_slot_putback(struct rtm_core *c, u32 cpu, rtm_a32 *slot, u32 b)
{
	rtm_assert(rtm_br_owned(c, b));
	if (rtm_unlikely(!rtm_cas32(slot, 0, b)))
		rtm_branch_free(c, cpu, b, RTM_C_BR_STALE);
}

/* Store b in a slot shared by chains (softirq pending): older chain wins. */
void rtm_slot_put_merge(struct rtm_core *c, u32 cpu, rtm_a32 *slot, u32 b)
{
	u32 i, o;

	rtm_assert(rtm_br_owned(c, b));
	for (i = 0; i < 4; i++) {
		if (rtm_cas32(slot, 0, b))
			return;
		o = rtm_xchg32(slot, 0);
		if (!o)
			continue;
		/* a live chain's pass replaces a done one's (kept: re-raise) */
		if (rtm_branch_done(c, o))
			rtm_branch_free(c, cpu, o, RTM_C_BR_PRUNED);
		else
			b = rtm_merge(c, cpu, b, o);
	}
	rtm_branch_free(c, cpu, b, RTM_C_BR_STALE);
}

void rtm_task_put(struct rtm_core *c, u32 cpu, u32 pid, u32 b)
{
	rtm_task_store(c, cpu, pid, b, rtm_merge);
}

static void rtm_hop_out(struct rtm_rec_hop *o, const struct rtm_hop *h)
{
	memcpy(o, h, sizeof(*o));	/* same layout, see rtm_internal.h */
}

/*
 * Build the record of chain ci whose completing path ends at tip_hop into
 * rec. in_ring: rec is a ring slot (counts truncated records).
 */
static rtm_always_inline void rtm_fill_rec(struct rtm_core *c, u32 cpu,
				bool in_ring, struct rtm_record *rec,
				u64 seq, u32 ci,
				u32 tip_hop, u64 end, u32 target,
				u64 deadline, u32 pid, u32 tgid,
				const u64 *comm, u64 cookie, u32 flags)
{
	struct rtm_chain *ch = rtm_chain_of(c, ci);
	u32 len, n, i, h, xf, nh;
	u64 start;

	len = ch->hops[tip_hop].depth;	/* hops on the root..tip path */
	n = len;
	if (len > RTM_REC_MAX_HOPS) {
		n = RTM_REC_MAX_HOPS;
		flags |= RTM_REC_F_TRUNCATED;
		if (in_ring)
			rtm_count(c, cpu, RTM_C_TRUNCATED);
	}
	xf = rtm_ld32(&ch->xflags);
	flags |= xf & RTM_CX_RECORD;
	start = rtm_ld64(&ch->start);
	nh = rtm_ld32(&ch->nhops);

	rec->version = RTM_REC_VERSION;
	rec->size = sizeof(*rec);
	rec->flags = flags;
	rec->seq = seq;
	rec->kind = ch->kind;
	rec->nhops = (u8)n;
	rec->cpu = (u16)cpu;
	rec->path_len = (u16)len;
	rec->target_id = (u16)target;
	/* a timer chain's source carries its kind (rtm_timer_source) */
	rec->source = (u32)ch->source;
	rec->timer_kind = ch->kind == RTM_KIND_TIMER ?
			  (u32)(ch->source >> 32) : 0;
	rec->start_ns = start;
	rec->end_ns = end;
	rec->latency_ns = end > start ? end - start : 0;
	rec->deadline_ns = deadline;
	rec->target_pid = pid;
	rec->target_tgid = tgid;
	if (comm)
		memcpy(rec->target_comm, comm, RTM_COMM_LEN);
	else
		memset(rec->target_comm, 0, RTM_COMM_LEN);
	rec->chain_hops = nh < c->p.chain_hops ? nh : c->p.chain_hops;
	rec->cookie = cookie;
	/* walk back from the tip; parents strictly decrease to the root 0 */
	h = tip_hop;
	for (i = n - 1; i > 0 && h; i--) {
		rtm_hop_out(&rec->hops[i], &ch->hops[h]);
		h = ch->hops[h].parent;
	}
	rtm_hop_out(&rec->hops[0], &ch->hops[0]);
	rtm_blame_fill(c, ch, tip_hop, start, end, &rec->blame);
#ifdef RTM_DEBUG
	{
		u64 sum = 0;

		for (i = 0; i < RTM_BLAME_NR; i++)
			sum += rec->blame.ns[i];
		rtm_assert(sum == rec->latency_ns);
	}
#endif
}

/*
 * The ring of cpu is full: the record (sequence seq) is dropped, but the
 * hook still sees it, built in cpu's overflow scratch. The scratch is
 * taken with an exchange: an emitter nested over another one on this cpu
 * (or a tick on another cpu emitting for this one) finds it busy and
 * skips the hook for its record. Out of line: off the completion path.
 */
static rtm_noinline void rtm_emit_dropped(struct rtm_core *c, u32 cpu,
				u64 seq, u32 ci, u32 tip_hop, u64 end,
				u32 target, u64 deadline, u32 pid, u32 tgid,
				const u64 *comm, u64 cookie, u32 flags)
{
	struct rtm_ovf *o = &c->ovf[cpu];

	rtm_count(c, cpu, RTM_C_DROP_RING);
	if (!c->hook)
		return;
	if (rtm_xchg32(&o->busy, 1)) {
		rtm_count(c, cpu, RTM_C_HOOK_SKIPPED);
		return;
	}
	rtm_fill_rec(c, cpu, false, &o->rec, seq, ci, tip_hop, end, target,
		     deadline, pid, tgid, comm, cookie, flags | RTM_REC_F_RING_FULL);
	if (o->rec.nhops < RTM_REC_MAX_HOPS)	/* cold path: zero unused hops */
		memset(&o->rec.hops[o->rec.nhops], 0,
		       (RTM_REC_MAX_HOPS - o->rec.nhops) *
		       sizeof(o->rec.hops[0]));
	c->hook(c->hook_arg, cpu, &o->rec);	/* dropped whatever it says */
	rtm_st32_rel(&o->busy, 0);
}

/*
 * A misses-only target's record that met its deadline: not numbered, not
 * written to the ring; only the hook sees it (statistics, tracepoints),
 * with seq 0, built in the cpu's overflow scratch as a dropped record is
 * (busy: an emitter nested over another one, hook_skipped). Its unused
 * hops are not zeroed: the hook reads nhops of them, as in a ring slot.
 */
static rtm_noinline void rtm_emit_skipped(struct rtm_core *c, u32 cpu,
				u32 ci, u32 tip_hop, u64 end,
				u32 target, u64 deadline, u32 pid, u32 tgid,
				const u64 *comm, u64 cookie, u32 flags)
{
	struct rtm_ovf *o = &c->ovf[cpu];

	rtm_count(c, cpu, RTM_C_SKIPPED);
	if (!c->hook)
		return;
	if (rtm_xchg32(&o->busy, 1)) {
		rtm_count(c, cpu, RTM_C_HOOK_SKIPPED);
		return;
	}
	rtm_fill_rec(c, cpu, false, &o->rec, 0, ci, tip_hop, end, target,
		     deadline, pid, tgid, comm, cookie, flags);
	c->hook(c->hook_arg, cpu, &o->rec);	/* whatever it says */
	rtm_st32_rel(&o->busy, 0);
}

/*
 * Emit a record for chain ci whose completing path ends at tip_hop.
 * The caller holds a reference on the chain.
 */
static rtm_always_inline void rtm_emit_rec(struct rtm_core *c, u32 cpu, u32 ci,
				u32 tip_hop, u64 end, u32 target,
				u64 deadline, u32 pid, u32 tgid,
				const u64 *comm, u64 cookie, u32 flags)
{
	struct rtm_record *rec;
	u64 seq, pos;

	rtm_assert(!rtm_dbg_in_raise);
	/* the target's misses-only bit, read with its deadline */
	if (rtm_unlikely(deadline & RTM_DL_MISSES_ONLY)) {
		deadline &= ~RTM_DL_MISSES_ONLY;
		if (!(flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT))) {
			rtm_emit_skipped(c, cpu, ci, tip_hop, end, target,
					 deadline, pid, tgid, comm, cookie, flags);
			return;
		}
	}
	/* handed out per emitted record, dropped or not: gaps = losses */
	seq = rtm_add64(&c->seq, 1);	/* == records emitted so far */
	rec = rtm_ring_reserve(&c->rings[cpu], &pos);
	if (rtm_unlikely(!rec)) {
		rtm_emit_dropped(c, cpu, seq, ci, tip_hop, end, target,
				 deadline, pid, tgid, comm, cookie, flags);
		return;
	}
	rtm_fill_rec(c, cpu, true, rec, seq, ci, tip_hop, end, target,
		     deadline, pid, tgid, comm, cookie, flags);
	/* hops[nhops..] are zeroed by the reader (rtm_core_read), off the hot path */
	if (c->hook && !c->hook(c->hook_arg, cpu, rec)) {
		rtm_count(c, cpu, RTM_C_FILTERED);
		if (rtm_ring_cancel(&c->rings[cpu], pos))
			return;
		rec->version = 0;	/* skip record, dropped by readers */
		rtm_ring_commit(&c->rings[cpu], pos);
		return;
	}
	rtm_ring_commit(&c->rings[cpu], pos);
	if (c->notify)	/* readable now: a reader woken finds it */
		c->notify(c->hook_arg, cpu);
}

/*
 * Branch b reached target: complete its chain unless a sibling or tick
 * did first. Returns true if this call completed the chain (and emitted
 * the record). The caller still owns (and frees) b.
 */
static rtm_always_inline bool rtm_complete(struct rtm_core *c, u32 cpu, u32 b, u64 ts,
				int target, u64 deadline, u32 pid, u32 tgid,
				const u64 *comm)
{
	struct rtm_branch *br = rtm_br(c, b);
	u32 ci = rtm_ld32(&br->chain);
	struct rtm_chain *ch = rtm_chain_of(c, ci);
	u32 s = rtm_ld32(&ch->state);
	/* a cookie branch completes with its cookie in the record */
	u32 flags = br->flags & RTM_BF_COOKIE;
	/* the deadline itself (the misses-only bit goes on to the emit) */
	u64 dl = deadline & ~RTM_DL_MISSES_ONLY, start;

	for (;;) {
		if (s & RTM_CS_DONE)
			return false;
		if (rtm_cas32(&ch->state, s, s | RTM_CS_DONE | RTM_CS_COMPLETED))
			break;
		s = rtm_ld32(&ch->state);
	}
	start = rtm_ld64(&ch->start);
	/*
	 * a REPOLL chain starts at the re-raise: data may have come later,
	 * with no event to show it, so its latency is no verdict
	 */
	if (dl && ts > start && ts - start > dl &&
	    !(rtm_ld32(&ch->xflags) & RTM_CX_REPOLL))
		flags |= RTM_REC_F_DEADLINE_MISS;
	/* late for the target it completes for, as reported */
	if ((s & RTM_CS_OVERDUE) && rtm_ld32(&ch->overdue_tgt) == (u32)target)
		flags |= RTM_REC_F_WAS_OVERDUE;
	rtm_count(c, cpu, RTM_C_COMPLETED);
	RTM_TEST_BEFORE_EMIT(c, cpu);
	rtm_emit_rec(c, cpu, ci, br->hop, ts, (u32)target, deadline, pid, tgid,
		     comm, br->cookie, flags);
	return true;
}

/* Complete the chain of b (or prune b if a sibling was first), free b. */
void rtm_complete_free(struct rtm_core *c, u32 cpu, u32 b, u64 ts,
		       int target, u64 deadline, u32 pid, u32 tgid,
		       const u64 *comm)
{
	if (rtm_complete(c, cpu, b, ts, target, deadline, pid, tgid, comm))
		rtm_branch_free(c, cpu, b, RTM_C_BR_COMPLETED);
	else
		rtm_branch_free(c, cpu, b, RTM_C_BR_PRUNED);
}

/* Overdue report from tick: root hop only, chain still open. */
void rtm_emit_timeout(struct rtm_core *c, u32 cpu, u32 ci, u64 now,
		      u32 target, u64 deadline)
{
	rtm_emit_rec(c, cpu, ci, 0, now, target, deadline, 0, 0, NULL, 0,
		     RTM_REC_F_TIMEOUT | RTM_REC_F_DEADLINE_MISS);
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_core.c - sizing, initialisation and readout.
 *
 * Everything lives in the one block handed to rtm_core_init(), laid out
 * as: core | per-cpu slots | per-cpu counters | rings | ring slots |
 * per-cpu overflow records | chains (with their hop arrays) | branches |
 * pool links | tables.
 */
#include "rtm_internal.h"

#ifdef RTM_DEBUG
_Thread_local int rtm_dbg_in_raise;
#endif

void rtm_params_default(struct rtm_params *p, u32 ncpus)
{
	memset(p, 0, sizeof(*p));
	p->ncpus = ncpus;
	p->nchains = 1024;
	p->nbranches = 4096;
	p->chain_hops = 32;
	p->task_buckets = 1024;
	p->cookie_buckets = 256;
	p->ring_slots = 256;
	p->max_age_ns = 1000000000ull;
}

static bool rtm_pow2(u32 x)
{
	return x >= 2 && !(x & (x - 1));
}

struct rtm_layout {
	size_t cpus, cnt, rings, slots, ovf, tpend, sipass, intf, chains;
	size_t branches, cnext, bnext;
	size_t tasks, cookies, total;
	u32 stride;
};

static bool rtm_layout(const struct rtm_params *p, struct rtm_layout *l)
{
	size_t off;

	if (!p || !p->ncpus || p->ncpus > 4096 || !p->nchains ||
	    p->nchains > (1u << 24) || !p->nbranches ||
	    p->nbranches > RTM_BR_IDX_MASK || p->chain_hops < 2 ||
	    p->chain_hops > 1024 || !rtm_pow2(p->task_buckets) ||
	    p->task_buckets > (1u << 24) || !rtm_pow2(p->cookie_buckets) ||
	    p->cookie_buckets > (1u << 24) || !rtm_pow2(p->ring_slots) ||
	    p->ring_slots > (1u << 20) || !p->max_age_ns)
		return false;
	l->stride = RTM_ALIGN(sizeof(struct rtm_chain) + p->chain_hops *
			      (sizeof(struct rtm_hop) + sizeof(struct rtm_intf)),
			      64);
	off = RTM_ALIGN(sizeof(struct rtm_core), 64);
	l->cpus = off;
	off += RTM_ALIGN(p->ncpus * sizeof(struct rtm_cpu), 64);
	l->cnt = off;
	off += p->ncpus * sizeof(struct rtm_cpu_cnt);
	l->rings = off;
	off += RTM_ALIGN(p->ncpus * sizeof(struct rtm_ring), 64);
	l->slots = off;
	off += (size_t)p->ncpus * p->ring_slots * sizeof(struct rtm_ring_slot);
	off = RTM_ALIGN(off, 64);
	l->ovf = off;
	off += (size_t)p->ncpus * sizeof(struct rtm_ovf);
	l->tpend = off;
	off += (size_t)p->ncpus * 2 * sizeof(struct rtm_tpend);
	l->sipass = off;
	off += (size_t)p->ncpus * sizeof(struct rtm_sipass);
	off = RTM_ALIGN(off, 64);
	l->intf = off;
	off += (size_t)p->ncpus * sizeof(struct rtm_intf_cpu);
	l->chains = off;
	off += (size_t)(p->nchains + 1) * l->stride;
	l->branches = off;
	off += RTM_ALIGN((size_t)(p->nbranches + 1) *
			 sizeof(struct rtm_branch), 64);
	l->cnext = off;
	off += RTM_ALIGN((size_t)(p->nchains + 1) * sizeof(rtm_a32), 64);
	l->bnext = off;
	off += RTM_ALIGN((size_t)(p->nbranches + 1) * sizeof(rtm_a32), 64);
	l->tasks = off;
	off += (size_t)p->task_buckets * sizeof(struct rtm_htab_bucket);
	l->cookies = off;
	off += (size_t)p->cookie_buckets * sizeof(struct rtm_htab_bucket);
	l->total = off;
	return true;
}

size_t rtm_core_memsize(const struct rtm_params *p)
{
	struct rtm_layout l;

	return rtm_layout(p, &l) ? l.total : 0;
}

struct rtm_core *rtm_core_init(void *mem, size_t len,
			       const struct rtm_params *p)
{
	struct rtm_layout l;
	struct rtm_core *c = mem;
	u8 *base = mem;
	u32 i, k;

	if (!mem || ((unsigned long)mem & 63) || !rtm_layout(p, &l) ||
	    len < l.total)
		return NULL;
	memset(mem, 0, l.total);
	c->p = *p;
	rtm_st64(&c->seq, 0);
	c->cpus = (struct rtm_cpu *)(base + l.cpus);
	c->cnt = (struct rtm_cpu_cnt *)(base + l.cnt);
	c->rings = (struct rtm_ring *)(base + l.rings);
	c->chains = base + l.chains;
	c->chain_stride = l.stride;
	c->branches = (struct rtm_branch *)(base + l.branches);
	c->ovf = (struct rtm_ovf *)(base + l.ovf);
	c->tpend = (struct rtm_tpend *)(base + l.tpend);
	c->sipass = (struct rtm_sipass *)(base + l.sipass);
	c->intf = (struct rtm_intf_cpu *)(base + l.intf);
	for (k = 0; k < p->ncpus; k++)
		rtm_ring_init(&c->rings[k], (struct rtm_ring_slot *)(base +
			      l.slots) + (size_t)k * p->ring_slots,
			      p->ring_slots);
	for (i = 0; i <= p->nchains; i++)
		rtm_st32(&rtm_chain_of(c, i)->state, 0);
	rtm_pool_init(&c->chain_pool, (rtm_a32 *)(base + l.cnext), p->nchains);
	rtm_pool_init(&c->branch_pool, (rtm_a32 *)(base + l.bnext),
		      p->nbranches);
	rtm_htab_init(&c->tasks, (struct rtm_htab_bucket *)(base + l.tasks),
		      p->task_buckets);
	rtm_htab_init(&c->cookies, (struct rtm_htab_bucket *)(base +
		      l.cookies), p->cookie_buckets);
	rtm_targets_init(c);
	return c;
}

void rtm_core_set_hook(struct rtm_core *c, rtm_record_hook_t fn, void *arg)
{
	c->hook_arg = arg;
	c->hook = fn;
}

void rtm_core_set_notify(struct rtm_core *c, rtm_notify_fn_t fn)
{
	c->notify = fn;
}

int rtm_core_pending(struct rtm_core *c)
{
	struct rtm_ring *r;
	u64 pos, peek;
	u32 k;

	for (k = 0; k < c->p.ncpus; k++) {
		r = &c->rings[k];
		pos = rtm_ld64(&r->tail);
		peek = rtm_ld64(&r->peek);
		if ((s64)(peek - pos) > 0)
			pos = peek;	/* [tail, peek) already delivered */
		if (rtm_ld64_acq(&r->slots[pos & r->mask].seq) == pos + 1)
			return 1;
	}
	return 0;
}

/* the writer leaves unused hop slots alone: never expose stale hops */
static void rtm_clear_unused_hops(struct rtm_record *out)
{
	if (out->nhops < RTM_REC_MAX_HOPS)
		memset(&out->hops[out->nhops], 0,
		       (RTM_REC_MAX_HOPS - out->nhops) * sizeof(out->hops[0]));
}

int rtm_core_read(struct rtm_core *c, u32 cpu, struct rtm_record *out)
{
	if (cpu >= c->p.ncpus)
		return 0;
	do {
		if (!rtm_ring_pop(&c->rings[cpu], out))
			return 0;
	} while (rtm_unlikely(!out->version));	/* filtered (skip) record */
	rtm_clear_unused_hops(out);
	rtm_count(c, cpu, RTM_C_READ);
	return 1;
}

int rtm_core_peek(struct rtm_core *c, u32 cpu, struct rtm_record *out)
{
	if (cpu >= c->p.ncpus)
		return 0;
	do {
		if (!rtm_ring_peek(&c->rings[cpu], out))
			return 0;
	} while (rtm_unlikely(!out->version));	/* filtered (skip) record */
	rtm_clear_unused_hops(out);
	return 1;
}

u32 rtm_core_release(struct rtm_core *c, u32 cpu)
{
	u32 n;

	if (cpu >= c->p.ncpus)
		return 0;
	n = rtm_ring_release(&c->rings[cpu]);
	if (n)
		rtm_count_add(c, cpu, RTM_C_READ, n);
	return n;
}

void rtm_core_unpeek(struct rtm_core *c, u32 cpu)
{
	if (cpu < c->p.ncpus)
		rtm_ring_unpeek(&c->rings[cpu]);
}

void rtm_core_rewind(struct rtm_core *c, u32 cpu)
{
	if (cpu < c->p.ncpus)
		rtm_ring_rewind(&c->rings[cpu]);
}

void rtm_core_stats(struct rtm_core *c, struct rtm_stats *o)
{
	u64 v[RTM_C_NR];
	u32 k, i;

	memset(v, 0, sizeof(v));
	for (k = 0; k < c->p.ncpus; k++)
		for (i = 0; i < RTM_C_NR; i++)
			v[i] += rtm_ld64(&c->cnt[k].v[i]);
	o->chains_started = v[RTM_C_STARTED];
	o->chains_completed = v[RTM_C_COMPLETED];
	o->chains_abandoned = v[RTM_C_ABANDONED];
	o->chains_expired = v[RTM_C_EXPIRED];
	o->chains_overdue = v[RTM_C_OVERDUE];
	o->branches_opened = v[RTM_C_BR_OPENED];
	o->branches_completed = v[RTM_C_COMPLETED];	/* one per completion */
	o->branches_closed = v[RTM_C_BR_CLOSED];
	o->branches_pruned = v[RTM_C_BR_PRUNED];
	o->branches_merged = v[RTM_C_BR_MERGED];
	o->branches_stale = v[RTM_C_BR_STALE];
	o->branches_dropped = v[RTM_C_BR_DROPPED];
	o->records_emitted = rtm_ld64(&c->seq);	/* last sequence number */
	/* every emitted record is written, filtered or counted as a ring drop */
	o->records_filtered = v[RTM_C_FILTERED];
	o->records_skipped = v[RTM_C_SKIPPED];
	o->records_written = o->records_emitted - v[RTM_C_DROP_RING] -
			     v[RTM_C_FILTERED];
	o->records_read = v[RTM_C_READ];
	o->drop_ring_full = v[RTM_C_DROP_RING];
	o->drop_no_chain = v[RTM_C_DROP_CHAIN];
	o->drop_no_branch = v[RTM_C_DROP_BRANCH];
	o->drop_task_bucket = v[RTM_C_DROP_TASK];
	o->drop_cookie_bucket = v[RTM_C_DROP_COOKIE];
	o->drop_hops = v[RTM_C_DROP_HOPS];
	o->irq_rerun = v[RTM_C_IRQ_RERUN];
	o->irq_coalesced = v[RTM_C_IRQ_COALESCED];
	o->irq_nowake = v[RTM_C_IRQ_NOWAKE];
	o->work_untraced = v[RTM_C_WORK_UNTRACED];
	o->work_handoff = v[RTM_C_WORK_HANDOFF];
	o->softirq_repoll = v[RTM_C_SOFTIRQ_REPOLL];
	o->truncated = v[RTM_C_TRUNCATED];
	o->hook_skipped = v[RTM_C_HOOK_SKIPPED];
}

u32 rtm_core_check_quiescent(struct rtm_core *c)
{
	struct rtm_cpu *pc;
	u32 leaks = 0, k, i;

	leaks += c->p.nchains - rtm_pool_count_free(&c->chain_pool);
	leaks += c->p.nbranches - rtm_pool_count_free(&c->branch_pool);
	for (k = 0; k < c->p.ncpus; k++) {
		pc = &c->cpus[k];
		/* a pending timer expiry (RTM_TPEND) holds nothing */
		leaks += !!rtm_ld32(&pc->hi_cur) +
			 rtm_slot_branch(rtm_ld32(&pc->hi_timer)) +
			 !!rtm_ld32(&pc->hi_armed) + !!rtm_ld32(&pc->si_cur) +
			 rtm_slot_branch(rtm_ld32(&pc->si_timer)) +
			 !!rtm_ld32(&pc->task_cur);
		for (i = 0; i < RTM_NR_SOFTIRQ; i++)
			leaks += !!rtm_ld32(&pc->si_pend[i]);
		leaks += !!rtm_ld32(&c->ovf[k].busy);
	}
	for (i = 0; i < RTM_NHANDOFF; i++)
		leaks += !!rtm_ld32(&c->handoff[i]);
	leaks += rtm_ld32(&c->handoff_used);
	for (i = 0; i < RTM_NWAITWORK; i++)
		leaks += !!rtm_ld32(&c->waitwork[i].state);
	leaks += rtm_ld32(&c->waitwork_used);
	leaks += rtm_htab_count_used(&c->tasks);
	leaks += rtm_htab_count_used(&c->cookies);
	for (i = 1; i <= c->p.nchains; i++)
		leaks += !!(rtm_ld32(&rtm_chain_of(c, i)->state) &
			    RTM_CS_FLAGS);
	return leaks;
}

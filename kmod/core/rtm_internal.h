/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rtm_internal.h - core-private structures and helpers.
 *
 * Pools hand out 32-bit indices; index 0 is never used so that 0 means
 * "empty" in every slot. A branch tip is owned by whoever removed it from
 * a slot with an atomic exchange/CAS; every slot operation is such an
 * ownership transfer, which makes nesting on one cpu and concurrent
 * access (tick, migration) safe without locks.
 */
#ifndef RTM_INTERNAL_H
#define RTM_INTERNAL_H

#include "rtm_platform.h"
#include "rtm_core.h"

/* ---- pools (rtm_pool.c) ---- */
struct rtm_pool {
	rtm_a64 head;		/* (generation << 32) | first free index */
	rtm_a32 *next;		/* next[idx]: free-list link */
	u32 n;			/* usable indices 1..n */
};

void rtm_pool_init(struct rtm_pool *p, rtm_a32 *next, u32 n);
u32 rtm_pool_count_free(struct rtm_pool *p);

/*
 * Pop/push on a Treiber stack whose head packs (generation, index) so a
 * CAS on a stale head fails (ABA-safe). A racing reader may load the link
 * of a node someone else just popped; the generation makes its CAS fail.
 */
static inline u32 rtm_pool_get(struct rtm_pool *p)
{
	u64 old = rtm_ld64_acq(&p->head);
	u32 idx, nxt;

	for (;;) {
		idx = (u32)old;
		if (!idx)
			return 0;
		nxt = rtm_ld32(&p->next[idx]);
		if (rtm_cas64(&p->head, old, (((old >> 32) + 1) << 32) | nxt))
			return idx;
		old = rtm_ld64_acq(&p->head);
	}
}

static inline void rtm_pool_put(struct rtm_pool *p, u32 idx)
{
	u64 old = rtm_ld64(&p->head);

	for (;;) {
		rtm_st32(&p->next[idx], (u32)old);
		if (rtm_cas64(&p->head, old, (((old >> 32) + 1) << 32) | idx))
			return;
		old = rtm_ld64(&p->head);
	}
}

/* ---- hash tables of branch tips (rtm_htab.c) ---- */
#define RTM_HT_WAYS	7
struct rtm_htab_bucket {
	rtm_a64 slot[RTM_HT_WAYS];	/* (key << 32) | branch, 0 = empty */
	rtm_a64 occ;			/* 4 16-bit counters, one per key
					 * fingerprint (rtm_htab_fp): each >=
					 * the used slots of its keys */
};

_Static_assert(sizeof(struct rtm_htab_bucket) == 64,
	       "a task-table bucket is one cache line");

/*
 * A cache line each: live changes at every insert and removal, and is
 * read by every context switch of a cpu with no chain.
 */
struct rtm_htab {
	/*
	 * The sum of the buckets' occ counters: 0 when the table is empty
	 * (no woken task waiting to run, no preempted tracked task), so that
	 * a switch asks one word (rtm_switch_gate()), not a bucket. Shared
	 * by every cpu: with chains open on many cpus its line moves at
	 * every insert and removal.
	 * First, so that its updates are one instruction at the table's
	 * address.
	 */
	rtm_a32 live;
	u32 mask;
	u32 shift;
	struct rtm_htab_bucket *b;
} rtm_cacheline_aligned;

static inline u32 rtm_hash32(u32 key, u32 shift)
{
	return (key * 0x9e3779b1u) >> shift;
}

/*
 * Key's counter in its bucket's occ word: 2 bits of another hash than the
 * bucket's choose one of 4, so the keys of one bucket spread over them
 * and a lookup of an absent key finds its counter at 0 in most used
 * buckets (the key's own low bits or the bucket product's next bits follow
 * the pids' sequence: worse on runs of pids). 16 bits a counter: the used
 * slots (7 at most) and the claims in flight (one per cpu and context)
 * never carry into the next. The counter's unit and mask come from a
 * table: a load, not shifts by the index.
 */
static inline u32 rtm_htab_fp(u32 key)
{
	return (key * 0x85ebca6bu) >> 30;
}

/* (the units: rtm_htab.c) */
static const u64 rtm_htab_cmask[4] = {
	0xffffull, 0xffffull << 16, 0xffffull << 32, 0xffffull << 48
};

void rtm_htab_init(struct rtm_htab *h, struct rtm_htab_bucket *b, u32 nb);
u32 rtm_htab_take(struct rtm_htab *h, u32 key);
int rtm_htab_insert(struct rtm_htab *h, u32 key, u32 branch);
int rtm_htab_put(struct rtm_htab *h, u32 key, u32 branch, u32 *old);
u64 rtm_htab_peek(struct rtm_htab *h, u32 bucket, u32 way);
bool rtm_htab_take_word(struct rtm_htab *h, u32 bucket, u32 way, u64 v);
u32 rtm_htab_count_used(struct rtm_htab *h);

/*
 * Fast negative lookup: false if key is certainly not in the table. An
 * empty bucket costs one load; in a used one, key's counter is looked at.
 */
static inline bool rtm_htab_maybe(struct rtm_htab *h, u32 key)
{
	u64 occ = rtm_ld64(&h->b[rtm_hash32(key, h->shift)].occ);

	/* "occ &&" first: an empty bucket computes no fingerprint */
	return occ && (occ & rtm_htab_cmask[rtm_htab_fp(key)]);
}

/* ---- rings (rtm_ring.c) ---- */
struct rtm_ring_slot {
	rtm_a64 seq;
	u64 pad[7];
	struct rtm_record rec;
};

struct rtm_ring {
	rtm_a64 head;		/* next position to write */
	u64 pad0[7];
	rtm_a64 tail;		/* next position to read (slots before: free) */
	rtm_a64 peek;		/* acknowledged reads: next position to copy;
				 * [tail, peek) are delivered, not yet freed */
	u64 pad1[6];
	struct rtm_ring_slot *slots;
	u32 mask;
	u32 pad2[13];
};

void rtm_ring_init(struct rtm_ring *r, struct rtm_ring_slot *s, u32 n);
int rtm_ring_pop(struct rtm_ring *r, struct rtm_record *out);
/* One reader at a time (the caller serialises): see rtm_core_peek(). */
int rtm_ring_peek(struct rtm_ring *r, struct rtm_record *out);
u32 rtm_ring_release(struct rtm_ring *r);
void rtm_ring_unpeek(struct rtm_ring *r);
void rtm_ring_rewind(struct rtm_ring *r);

/*
 * Writer side (inline: it is on the completion path). A slot's sequence
 * is pos when free for the writer of position pos, pos + 1 once it holds
 * that record. Returns NULL when the ring is full (caller counts a drop).
 */
static inline struct rtm_record *rtm_ring_reserve(struct rtm_ring *r,
						  u64 *ppos)
{
	u64 pos = rtm_ld64(&r->head), seq;
	struct rtm_ring_slot *s;
	s64 dif;

	for (;;) {
		s = &r->slots[pos & r->mask];
		seq = rtm_ld64_acq(&s->seq);
		dif = (s64)(seq - pos);
		if (dif == 0) {
			if (rtm_cas64(&r->head, pos, pos + 1)) {
				*ppos = pos;
				return &s->rec;
			}
		} else if (dif < 0) {
			return NULL;	/* full */
		}
		pos = rtm_ld64(&r->head);
	}
}

static inline void rtm_ring_commit(struct rtm_ring *r, u64 pos)
{
	rtm_st64_rel(&r->slots[pos & r->mask].seq, pos + 1);
}

/*
 * Give a reserved, unpublished slot back. Possible only while no later
 * position was reserved (head still pos + 1; nested writers on one cpu
 * cancel in LIFO order); otherwise the caller publishes it as a skip
 * record (version 0) that readers drop. Returns true if given back.
 */
static inline bool rtm_ring_cancel(struct rtm_ring *r, u64 pos)
{
	return rtm_cas64(&r->head, pos + 1, pos);
}

/* ---- targets (rtm_target.c): a latch of two copies ---- */
#define RTM_DL_MISSES_ONLY	(1ull << 63)	/* in rtm_tgt.dl_emit */

/*
 * A test's hook between a completion's target lookup and its record, where
 * another cpu may change the target table (tests/core builds the core with
 * -DRTM_TEST_POINTS; the module and the tools have nothing there).
 */
#ifdef RTM_TEST_POINTS
extern void (*rtm_test_before_emit)(struct rtm_core *c, u32 cpu);
#define RTM_TEST_BEFORE_EMIT(c, cpu) \
	do { if (rtm_test_before_emit) rtm_test_before_emit(c, cpu); } while (0)
#else
#define RTM_TEST_BEFORE_EMIT(c, cpu) do { } while (0)
#endif
/*
 * Likewise inside the handoff rendezvous (rtm_handoff.c), where the other
 * side of a race runs in a test (ids: RTM_TP_*).
 */
#ifdef RTM_TEST_POINTS
extern void (*rtm_test_point)(struct rtm_core *c, u32 cpu, int id);
#define RTM_TEST_POINT(c, cpu, id) \
	do { if (rtm_test_point) rtm_test_point(c, cpu, id); } while (0)
#else
#define RTM_TEST_POINT(c, cpu, id) do { } while (0)
#endif
#define RTM_TP_ADOPT_OWNED	1	/* adopt owns a waiting item */
#define RTM_TP_ADOPT_INSERTED	2	/* ... its cookie branch inserted */
#define RTM_TP_BEGIN_LOOKED	3	/* work_begin found nothing parked */
#define RTM_TP_BEGIN_PUBLISHED	4	/* ... its item waits, before it looks */
#define RTM_TP_PASS_LOOKED	5	/* a pass found no waiting item */
#define RTM_TP_PASS_PARKED	6	/* ... it is parked, before it looks */
#define RTM_TP_TICK_TAKEN	7	/* the tick holds a parked branch */
#define RTM_TP_SLOT_PEEKED	8	/* the tick saw a done chain's slot */
#define RTM_TP_SLOT_TAKEN	9	/* ... and took the slot's branch */
/*
 * Nothing emits a record inside rtm_ev_softirq_raise(): softirq_raise
 * fires under the hrtimer base lock, and the module's record notify calls
 * hrtimer_start(), which takes that lock (a self-deadlock).
 */
#ifdef RTM_DEBUG
extern _Thread_local int rtm_dbg_in_raise;
#define RTM_DBG_RAISE(d)	(rtm_dbg_in_raise += (d))
#else
#define RTM_DBG_RAISE(d)	do { } while (0)
#endif
struct rtm_tgt {
	u64 comm[2];		/* 0,0 = any */
	u32 pid, tgid;
	u32 src, irq;
	u64 deadline;
	u64 dl_emit;		/* deadline | RTM_DL_MISSES_ONLY: what a
				 * completion reads and carries to the
				 * emit, so the misses-only bit comes from
				 * the same copy as the target it matched
				 * (an id reused meanwhile changes neither) */
	u32 end;
	u32 has_task;
	u32 has_comm;
	u32 kinds;		/* bit RTM_KIND_*: chain kinds accepted */
	u32 tkinds;		/* bit RTM_TIMER_*: timer kinds accepted */
	u32 flags;		/* RTM_TGT_* */
	u32 set_seq;		/* tg.seq once this definition is published */
};

/*
 * The targets by comm: an open-addressed table, twice the targets, so a
 * lookup ends within a probe or two. mask 0 marks a free slot.
 */
#define RTM_CIDX_SLOTS		(2 * RTM_MAX_TARGETS)
#define RTM_CIDX_SHIFT		58	/* 64 - log2(RTM_CIDX_SLOTS) */

_Static_assert(RTM_CIDX_SLOTS == 1 << (64 - RTM_CIDX_SHIFT),
	       "RTM_CIDX_SHIFT must index RTM_CIDX_SLOTS slots");

struct rtm_cidx {
	u64 comm[2];
	u32 mask;			/* targets with this comm */
	u32 pad;
};

struct rtm_tset {
	u32 active;			/* bit per used target */
	u32 end_mask[RTM_END_NR];	/* task targets per end condition */
	u32 irqonly;			/* IRQ-only targets */
	u32 timers;			/* bit RTM_TIMER_* some target accepts */
	u32 nocomm;			/* targets with no comm filter */
	u64 irq_any;			/* some target accepts any irq */
	u64 bloom[RTM_END_NR];		/* comm filter per end condition */
	u64 irq_bits[RTM_MAX_IRQ / 64];
	u32 comm_task[64];		/* by rtm_comm_idx(): the task targets
					 * a task of that comm hash may pass */
	struct rtm_tgt t[RTM_MAX_TARGETS];
	struct rtm_cidx cidx[RTM_CIDX_SLOTS];
};

struct rtm_targets {
	rtm_a32 seq;
	rtm_a32 handoff_irq;		/* bit per work_end target naming an
					 * IRQ by number (rtm_handoff.c): a
					 * hint for work_begin with no chain */
	rtm_a32 timer_kinds;		/* master.timers, one word for the
					 * hrtimer expiry (a hint) */
	struct rtm_tset master;		/* writer's copy */
	struct rtm_tset copy[2];
	rtm_a64 bloom_broad;		/* comm filter of the task targets of
					 * broad sources (any IRQ, timers): a
					 * hint for the hot path */
	rtm_a64 bloom_task;		/* comm filter of all task targets:
					 * a woken task may be a candidate
					 * (rtm_mark_candidate()) */
	rtm_a64 bloom_kind[2];		/* comm filter of the task targets an
					 * IRQ's chain ([0]) or a timer's ([1])
					 * may end at (rtm_may_reach()) */
};

/* ---- objects ---- */
/* the first 32 bytes are laid out exactly like struct rtm_rec_hop */
struct rtm_hop {
	u64 ts;
	u32 pid;
	u16 cpu;
	u8 type;
	u8 ctx;
	u64 comm[2];
	u16 parent;		/* index of the previous hop on the path */
	u16 depth;		/* hops on the root..this path (root: 1) */
	/*
	 * the task that had the cpu (switch_in: the one switched out for
	 * the chain's task; preempt: the one that took its place), 0: none
	 */
	u32 by_pid;
	u64 by_comm[2];
	u8 by_prio;		/* RTM_PRIO_UNKNOWN: not known */
	/*
	 * preemptions and waits folded into the interval this hop closes
	 * (no hop pair of their own: rtm_preempt_fold()): their ns, the
	 * waits' share in 1/256 and the by_* task's share in 1/65536 (the
	 * largest value: all), by_* being that task for hop types other
	 * than switch_in and preempt
	 */
	u8 pre_blk;
	u16 pre_share;
	u32 pre_ns;
};

_Static_assert(sizeof(struct rtm_hop) == 64, "rtm_hop: one cache line");
_Static_assert(__builtin_offsetof(struct rtm_hop, comm) ==
	       __builtin_offsetof(struct rtm_rec_hop, comm) &&
	       __builtin_offsetof(struct rtm_hop, parent) ==
	       sizeof(struct rtm_rec_hop) &&
	       __builtin_offsetof(struct rtm_hop, ctx) ==
	       __builtin_offsetof(struct rtm_rec_hop, ctx),
	       "rtm_hop must start with the rtm_rec_hop layout");

/* chain state word: generation << 8 | flags */
#define RTM_CS_LIVE		0x01
#define RTM_CS_DONE		0x02
#define RTM_CS_OVERDUE		0x04
#define RTM_CS_COMPLETED	0x08
#define RTM_CS_EXPIRED		0x10
#define RTM_CS_ABANDONED	0x20
#define RTM_CS_FLAGS		0xff

/* parked IRQ-thread branches awaiting a work_begin (rtm_handoff.c) */
#define RTM_NHANDOFF		16

/*
 * The last work_end of a task, in a slot its pid hashes to: one word, the
 * time in 1024 ns units above the pid's low RTM_LW_PID_BITS (a task's next
 * work_end finds how long its item waited for it: RTM_HOP_QUEUED). Tasks
 * sharing a slot evict each other: the item's wait is then not known.
 */
#define RTM_NLASTWORK		64
#define RTM_LW_PID_BITS		22	/* PID_MAX_LIMIT: 4M */
/* work begun with no chain, awaiting an IRQ thread's pass (rtm_handoff.c) */
#define RTM_NWAITWORK		16
#define RTM_NWAITWORK_TGID	8	/* of them waiting for one process */

/*
 * state: 0 free, 1 owned (being written or taken), 2 begun (waiting),
 * 3 ended (work_end came first: end_ts set, still waiting for its pass),
 * 4 owned and ended meanwhile (a work_end found it owned: end_ts set; the
 * owner, releasing it, sees the end and acts on it: rtm_handoff.c)
 */
#define RTM_WW_FREE		0
#define RTM_WW_OWNED		1
#define RTM_WW_BEGUN		2
#define RTM_WW_ENDED		3
#define RTM_WW_OWNED_ENDED	4
struct rtm_waitwork {
	rtm_a32 state;
	u32 pid;		/* read once owned */
	rtm_a32 tgid;		/* likewise; peeked by a work_end */
	u32 cpu, pad;		/* where the work began */
	rtm_a64 cookie;		/* peeked while begun or ended */
	rtm_a64 ts;		/* work_begin, likewise */
	rtm_a64 end_ts;		/* work_end, before state 3 or 4 */
	u64 comm[2];
};

/*
 * chain xflags: those that become record flags have the record flag's own
 * bit, so the record takes them with one mask (RTM_CX_RECORD)
 */
#define RTM_CX_DROPPED		RTM_REC_F_DROPPED_HOPS
#define RTM_CX_MERGED		RTM_REC_F_MERGED
#define RTM_CX_COALESCED	RTM_REC_F_COALESCED
#define RTM_CX_REPOLL		RTM_REC_F_REPOLL
#define RTM_CX_RECORD		(RTM_CX_DROPPED | RTM_CX_MERGED | \
				 RTM_CX_COALESCED | RTM_CX_REPOLL)

struct rtm_chain {
	rtm_a32 state;
	rtm_a32 ref;		/* one per branch (+ transient) */
	rtm_a32 nhops;		/* hop slots reserved */
	rtm_a32 xflags;
	rtm_a64 start;
	u64 source;
	rtm_a32 cand;		/* bit per task target whose whole filter
				 * a task the chain woke passes: the only
				 * task targets it may be overdue for */
	rtm_a32 overdue_tgt;	/* the target of the TIMEOUT record, claimed
				 * before RTM_CS_OVERDUE */
	u32 tseq;		/* the target set's seq at the start: a
				 * target (re)defined since is not in cand */
	u8 kind;
	u8 pad[3];
	struct rtm_hop hops[];
};

/* branch flags */
#define RTM_BF_IRQTHREAD	0x01	/* task woken as this IRQ's thread */
#define RTM_BF_HANDED		0x02	/* forked a branch (woke a task, raised
					 * a softirq, began work) since it
					 * became this task's branch: an IRQ
					 * thread's pass has handed its work on */
#define RTM_BF_RUNWAKE		0x04	/* handed by a wakeup or an IRQ rerun
					 * that found the task current
					 * (rtm_wake_running, rtm_pass_running),
					 * no switch of the task since */
#define RTM_BF_FOLDED		0x08	/* preempted, the preemption folded
					 * (pre_at): no hop at its switch_in */
#define RTM_BF_FOLD_BY		0x10	/* ... by the task in pre_by_* */
#define RTM_BF_FOLD_BLK		0x20	/* ... a wait (blocked), not a
					 * preemption */
#define RTM_BF_KWORK		0x40	/* a workqueue item's branch: cookie =
					 * the work's address (rtm_kwork.c) */
/* work cookie branch (work_begin): the record flag's own bit, no shift */
#define RTM_BF_COOKIE		RTM_REC_F_COOKIE
_Static_assert(RTM_REC_F_COOKIE <= 0xff, "RTM_BF_COOKIE fits branch flags");

/*
 * Interference (rtm_intf.c): hard IRQ and softirq time on the cpu over a
 * branch's task or softirq, in the interval a hop closes (rtm_hop_intf()).
 */
struct rtm_intf {
	u32 irq_ns;
	u32 si_ns;
};

struct rtm_branch {
	rtm_a32 chain;		/* peeked by tick without ownership */
	u16 hop;		/* last hop of this branch's path */
	u8 flags;
	u8 tag;			/* its handles' tag (rtm_br_handle()) */
	u32 pid, tgid;		/* task (task/cookie branches) */
	u64 cookie;		/* cookie branches */
	u64 comm[2];
	/*
	 * Preemptions folded since the branch's last hop (the chain's hops
	 * running short: rtm_preempt_fold()), carried by its next hop: their
	 * total, the first preemptor and its part (pre_by_*: valid only
	 * while pre_ns or RTM_BF_FOLDED).
	 */
	u64 pre_at;		/* RTM_BF_FOLDED: switched out then */
	u32 pre_ns;
	u32 pre_blk_ns;		/* of pre_ns: waits (blocked) */
	u32 pre_by_ns;
	u64 pre_by_comm[2];
	u32 pre_by_pid;
	u8 pre_by_prio;
	u8 pad[3];
	/*
	 * interference since the branch's last hop: added by the cpu it
	 * ran on without owning the branch (rtm_intf.c), taken by its hop
	 */
	rtm_a32 intf_irq_ns;
	rtm_a32 intf_si_ns;
};

/*
 * A preemption or a wait gets a hop pair (preempt or wait, then switch_in)
 * while the chain has used less than this fraction of its hop slots; past
 * that it is folded into the branch's next hop (pre_ns), so that they
 * never crowd out the hops that end the chain.
 */
#define RTM_PREEMPT_HOPS_NUM	3
#define RTM_PREEMPT_HOPS_DEN	4

/* per-cpu slots, each holds a branch handle or 0 */
struct rtm_cpu {
	union {
		struct {
			rtm_a32 hi_cur;		/* hard IRQ handler running */
			rtm_a32 hi_timer;	/* hrtimer handler in hard IRQ */
			rtm_a32 hi_armed;	/* IRQ exited, IRQ_WAKE_THREAD */
			rtm_a32 si_cur;		/* softirq running */
			rtm_a32 si_timer;	/* hrtimer handler in softirq */
			rtm_a32 task_cur;	/* the running task's branch */
		};
		/* the six above in three loads (rtm_cpu_busy()) */
		rtm_a64 ctx_words[3];
	};
	rtm_a32 si_pend[RTM_NR_SOFTIRQ];
};

/*
 * hi_timer/si_timer hold RTM_TPEND, not a branch, while the callback of a
 * non-sleeper timer some target may want runs: its expiry waits in
 * c->tpend until the callback wakes a task (rtm_events.c).
 */
#define RTM_TPEND	0xffffffffu

/* the expiry of a non-sleeper timer whose callback runs, per cpu and ctx */
struct rtm_tpend {
	u64 expires;		/* programmed expiry: the chain's start */
	u64 ts;			/* handler entry */
	u32 kind;		/* RTM_TIMER_* */
	u32 pad[3];
};

_Static_assert(sizeof(struct rtm_tpend) == 32, "rtm_tpend: 2 per 64 bytes");

/*
 * A softirq pass that raises its own vector again while its IRQ chain is
 * done (mainline NAPI polling on: the next pass, often in ksoftirqd,
 * hands on data no interrupt announced) keeps the done branch in si_pend,
 * then si_cur, for a chain of its own (rtm_repoll.c). Written by the
 * cpu's own probes only: the tick never writes it.
 */
struct rtm_sipass {
	u64 reraise[RTM_NR_SOFTIRQ];	/* a pass of vec raised vec then */
	u64 repoll;		/* the running pass was that re-raise's (0: no) */
	u64 entry;		/* the running pass's softirq entry */
	u32 vec;		/* the running pass's vector */
	u32 passes;		/* re-raised passes waking no target since */
	u32 kept;		/* bit vec: si_pend[vec] kept by this cpu's
				 * last pass of vec, maybe still running */
	u32 pad[5];
};

/* a kept re-raise goes on through at most this many re-raised passes */
#define RTM_REPOLL_PASSES	3

_Static_assert(sizeof(struct rtm_sipass) % 64 == 0, "rtm_sipass: cache lines");

/* A slot's value names a branch (not empty, not RTM_TPEND). */
static inline bool rtm_slot_branch(u32 v)
{
	return v && v != RTM_TPEND;
}

/* A timer chain's source: its timer kind above a pid. */
static inline u64 rtm_timer_source(u32 tkind, u32 pid)
{
	return (u64)tkind << 32 | pid;
}

#define RTM_NSLOTS_CPU	(6 + RTM_NR_SOFTIRQ)
_Static_assert(sizeof(struct rtm_cpu) == RTM_NSLOTS_CPU * sizeof(rtm_a32),
	       "struct rtm_cpu: slots only");

enum rtm_cnt {
	RTM_C_STARTED, RTM_C_COMPLETED, RTM_C_ABANDONED, RTM_C_EXPIRED,
	RTM_C_OVERDUE, RTM_C_BR_OPENED, RTM_C_BR_COMPLETED, RTM_C_BR_CLOSED,
	RTM_C_BR_PRUNED, RTM_C_BR_MERGED, RTM_C_BR_STALE, RTM_C_BR_DROPPED,
	RTM_C_READ, RTM_C_DROP_RING, RTM_C_DROP_CHAIN,
	RTM_C_DROP_BRANCH, RTM_C_DROP_TASK, RTM_C_DROP_COOKIE, RTM_C_DROP_HOPS,
	RTM_C_TRUNCATED, RTM_C_FILTERED, RTM_C_HOOK_SKIPPED,
	RTM_C_IRQ_RERUN, RTM_C_IRQ_COALESCED, RTM_C_IRQ_NOWAKE, RTM_C_WORK_UNTRACED,
	RTM_C_WORK_HANDOFF, RTM_C_SKIPPED, RTM_C_SOFTIRQ_REPOLL,
	RTM_C_NR
};

/*
 * Per-cpu overflow scratch: a record that got no ring slot is built here
 * so the record hook still sees it, then dropped. busy is taken with an
 * atomic exchange; a nested (or cross-cpu tick) emitter finding it taken
 * skips the hook for its record (RTM_C_HOOK_SKIPPED), never waits.
 */
struct rtm_ovf {
	rtm_a32 busy;
	u32 pad[15];
	struct rtm_record rec;
	u64 pad1[7];
};

_Static_assert(sizeof(struct rtm_ovf) % 64 == 0, "rtm_ovf: 64-byte stride");

/* 256 bytes: the per-cpu block is found with a shift */
struct rtm_cpu_cnt {
	rtm_a64 v[RTM_C_NR];
	u64 pad[32 - RTM_C_NR];
};

struct rtm_core {
	struct rtm_params p;
	rtm_a64 seq;			/* record sequence */
	u64 pad0[7];
	struct rtm_targets tg;
	struct rtm_pool chain_pool;
	struct rtm_pool branch_pool;
	struct rtm_htab tasks;
	struct rtm_htab cookies;
	u8 *chains;			/* chain_stride bytes per chain */
	u32 chain_stride;
	u32 pad1;
	struct rtm_branch *branches;
	struct rtm_cpu *cpus;
	struct rtm_cpu_cnt *cnt;
	struct rtm_ring *rings;
	rtm_record_hook_t hook;		/* set before events, then read-only */
	void *hook_arg;
	rtm_notify_fn_t notify;		/* likewise */
	struct rtm_ovf *ovf;		/* per cpu, records with no ring slot */
	struct rtm_tpend *tpend;	/* 2 per cpu: [0] soft, [1] hard */
	struct rtm_sipass *sipass;	/* per cpu (rtm_repoll.c) */
	struct rtm_intf_cpu *intf;	/* per cpu (rtm_intf.c) */
	rtm_a32 handoff[RTM_NHANDOFF];	/* IRQ threads' passes that handed
					 * nothing traced (rtm_handoff.c) */
	rtm_a32 handoff_used;		/* slots of handoff[] in use: exact
					 * once events stop (a hint meanwhile) */
	struct rtm_waitwork waitwork[RTM_NWAITWORK];
	rtm_a32 waitwork_used;		/* like handoff_used */
	/* written by every work_end: its own lines, apart from the above */
	rtm_a64 lastwork[RTM_NLASTWORK] rtm_cacheline_aligned;
};

static inline struct rtm_chain *rtm_chain_of(struct rtm_core *c, u32 idx)
{
	return (struct rtm_chain *)(c->chains + (size_t)idx * c->chain_stride);
}

/* the interference in the interval hop idx closes: after the hops */
static inline struct rtm_intf *rtm_hop_intf(const struct rtm_core *c,
					    const struct rtm_chain *ch, u32 idx)
{
	return (struct rtm_intf *)&ch->hops[c->p.chain_hops] + idx;
}

/*
 * The IRQ and the softirq running on a cpu over a branch (rtm_intf.c):
 * the branch's handle when it began (0: none), its start; the IRQ's
 * number and whether its branch is si_cur's (irq_si) or task_cur's; the
 * softirq's branch in task_cur, whether the softirq is the chain's own
 * (si_own: its IRQs still count), the IRQs within it; the last IRQ's
 * time and end (over a branch: an IRQ between a softirq probe's clock
 * read and its call is within the softirq or not by them). Only that
 * cpu's events touch it; neither kind nests in itself. An entry without its exit (a trace's lost event) is left to the
 * next exit, which only an IRQ of that number takes.
 */
struct rtm_intf_cpu {
	/* (marked where an IRQ may meet the softirq it interrupts: KCSAN) */
	u64 irq_at;
	rtm_a64 si_at;
	rtm_a64 si_irq_ns;
	rtm_a64 last_ns;
	rtm_a64 last_end;
	u32 irq_b;
	rtm_a32 si_b;
	u32 irq_si;
	u32 irq;
	u32 si_own;
	u32 pad;
};

/*
 * A branch is named by a handle: its index in the low RTM_BR_IDX_BITS,
 * above them a tag that moves on each time the branch leaves the pool, so
 * that a handle peeked before the branch was freed and taken again differs
 * from the new one (a CAS on a slot fails instead of taking another
 * chain's branch: ABA). Bit 31 stays clear: no handle is RTM_TPEND.
 */
#define RTM_BR_IDX_BITS		24
#define RTM_BR_IDX_MASK		((1u << RTM_BR_IDX_BITS) - 1)
#define RTM_BR_TAG_MASK		0x7fu

static inline struct rtm_branch *rtm_br(struct rtm_core *c, u32 b)
{
	return &c->branches[b & RTM_BR_IDX_MASK];
}

/*
 * b names a branch its holder owns: in range, and its tag the branch's
 * current one (a handle kept past a free and re-use is stale). Asserted.
 */
static inline bool rtm_br_owned(struct rtm_core *c, u32 b)
{
	return rtm_slot_branch(b) && (b & RTM_BR_IDX_MASK) &&
	       (b & RTM_BR_IDX_MASK) <= c->p.nbranches &&
	       (b >> RTM_BR_IDX_BITS) == rtm_br(c, b)->tag;
}

/* The handle of branch index bi, just taken off the pool by its owner. */
static inline u32 rtm_br_handle(struct rtm_core *c, u32 bi)
{
	struct rtm_branch *br = &c->branches[bi];

	br->tag = (u8)((br->tag + 1) & RTM_BR_TAG_MASK);
	return (u32)br->tag << RTM_BR_IDX_BITS | bi;
}

static inline void rtm_count(struct rtm_core *c, u32 cpu, enum rtm_cnt k)
{
	rtm_inc64_rlx(&c->cnt[cpu].v[k]);
}

static inline void rtm_count_add(struct rtm_core *c, u32 cpu, enum rtm_cnt k,
				 u64 n)
{
	rtm_add64(&c->cnt[cpu].v[k], n);
}

/* rtm_target.c */
void rtm_targets_init(struct rtm_core *c);
/*
 * Quick reject before rtm_target_match(): one bit per target comm (all
 * bits if some target of that end condition has no comm filter).
 */
static inline u32 rtm_comm_idx(const u64 *comm)
{
	return (comm[0] * 0x9e3779b97f4a7c15ull) >> 58;
}

static inline u64 rtm_comm_bit(const u64 *comm)
{
	return 1ull << rtm_comm_idx(comm);
}

static inline bool rtm_target_maybe(const struct rtm_tset *ts, u32 end,
				    const u64 *comm)
{
	return ts->bloom[end] & rtm_comm_bit(comm);
}

/* The slot of comm's chain in the comm index (rtm_tset.cidx). */
static inline u32 rtm_cidx_hash(const u64 *comm)
{
	return ((comm[0] ^ (comm[1] * 0xff51afd7ed558ccdull)) *
		0x9e3779b97f4a7c15ull) >> RTM_CIDX_SHIFT;
}

int rtm_target_match(const struct rtm_tset *ts, u32 mask, u32 kind,
		     u64 source, u32 pid, u32 tgid, const u64 *comm);
int rtm_target_irqonly(const struct rtm_tset *ts, u32 kind, u64 source);
u32 rtm_target_handoff(struct rtm_core *c, u32 kind, u64 source);
void rtm_target_chain_deadline(struct rtm_core *c, u32 kind, u64 source,
			       u32 cand, u32 tseq, u64 *deadline,
			       u32 *target);
u64 rtm_target_min_deadline(struct rtm_core *c);

/*
 * Latch readers: a writer updates one copy while readers use the other;
 * a reader retries only if the writer flipped copies meanwhile, so a
 * reader nested over the writer on the same cpu never spins.
 */
static inline const struct rtm_tset *rtm_tset_begin(struct rtm_core *c,
						    u32 *seq)
{
	*seq = rtm_ld32_acq(&c->tg.seq);
	return &c->tg.copy[*seq & 1];
}

static inline bool rtm_tset_retry(struct rtm_core *c, u32 seq)
{
	rtm_fence_acq();
	return rtm_ld32(&c->tg.seq) != seq;
}

u32 rtm_comm_targets(const struct rtm_tset *ts, const u64 *comm);

/* A timer chain's source carries its timer kind (rtm_timer_source). */
static rtm_always_inline bool rtm_src_ok(const struct rtm_tgt *t, u32 kind, u64 source)
{
	if (!(t->kinds & (1u << kind)))
		return false;
	if (kind == RTM_KIND_TIMER)
		return (t->tkinds >> ((source >> 32) & 31)) & 1;
	return t->src != RTM_SRC_IRQ || source == t->irq;
}

/* Target t's task filter passes the task, its source filter the chain. */
static rtm_always_inline bool rtm_task_ok(const struct rtm_tgt *t, u32 kind,
					  u64 source, u32 pid, u32 tgid,
					  const u64 *comm)
{
	/* branch-free: cheaper here than rtm_comm_eq() (callgrind) */
	if (t->has_comm &&
	    (!comm || ((t->comm[0] ^ comm[0]) | (t->comm[1] ^ comm[1]))))
		return false;
	if ((t->pid && t->pid != pid) || (t->tgid && t->tgid != tgid))
		return false;
	return rtm_src_ok(t, kind, source);
}

/*
 * The task targets whose whole filter (task and chain source) a task woken
 * on a chain passes: the targets the chain may be late for.
 */
static rtm_always_inline u32 rtm_target_candidates(struct rtm_core *c,
						   u32 kind, u64 source,
						   u32 pid, u32 tgid,
						   const u64 *comm)
{
	const struct rtm_tset *ts;
	u32 seq, mask, i, cand, ci = rtm_comm_idx(comm);

	do {
		ts = rtm_tset_begin(c, &seq);
		mask = ts->comm_task[ci];
		cand = 0;
		while (mask) {
			i = rtm_ctz32(mask);
			mask &= mask - 1;
			if (rtm_task_ok(&ts->t[i], kind, source, pid, tgid, comm))
				cand |= 1u << i;
		}
	} while (rtm_tset_retry(c, seq));
	return cand;
}

/* rtm_chain.c: chain and branch life cycle, shared by events and tick */
u32 rtm_chain_start(struct rtm_core *c, u32 cpu, u32 kind, u64 source,
		    u64 start, u32 hop_type, u32 hop_pid);
void rtm_chain_put(struct rtm_core *c, u32 cpu, u32 ci);
bool rtm_chain_get_live(struct rtm_core *c, u32 ci);
u32 rtm_branch_fork(struct rtm_core *c, u32 cpu, u32 parent);
void rtm_branch_free(struct rtm_core *c, u32 cpu, u32 b, enum rtm_cnt why);
void rtm_hop_full(struct rtm_core *c, u32 cpu, struct rtm_chain *ch);
bool rtm_may_reach(struct rtm_core *c, struct rtm_chain *ch, u32 b);
u32 rtm_merge(struct rtm_core *c, u32 cpu, u32 b1, u32 b2);
void rtm_slot_replace(struct rtm_core *c, u32 cpu, rtm_a32 *slot, u32 b);
void rtm_slot_putback(struct rtm_core *c, u32 cpu, rtm_a32 *slot, u32 b);
/* rtm_intf.c: IRQs and softirqs over a chain's task or softirq */
void rtm_intf_irq_entry(struct rtm_core *c, u32 cpu, u64 ts, u32 irq);
void rtm_intf_irq_exit(struct rtm_core *c, u32 cpu, u64 ts, u32 irq);
void rtm_intf_si_entry(struct rtm_core *c, u32 cpu, u64 ts);
void rtm_intf_si_own(struct rtm_core *c, u32 cpu, u32 b);
void rtm_intf_si_exit(struct rtm_core *c, u32 cpu, u64 ts);
void rtm_slot_put_merge(struct rtm_core *c, u32 cpu, rtm_a32 *slot, u32 b);
/* rtm_repoll.c: a softirq pass re-raised after its IRQ chain completed */
bool rtm_repoll_young(struct rtm_core *c, u32 b, u64 now);
void rtm_repoll_live_entry(struct rtm_core *c, u32 cpu, u32 vec);
void rtm_repoll_drop(struct rtm_core *c, u32 cpu, u32 vec);
void rtm_repoll_raise_none(struct rtm_core *c, u32 cpu, u32 vec, u32 ctx);
void rtm_repoll_raise(struct rtm_core *c, u32 cpu, u32 sb, u64 ts, u32 vec);
void rtm_repoll_raise_done(struct rtm_core *c, u32 cpu, u32 sb, u64 ts,
			   u32 vec);
void rtm_repoll_enter(struct rtm_core *c, u32 cpu, u32 b, u64 ts, u32 vec);
u32 rtm_repoll_wake(struct rtm_core *c, u32 cpu, u32 sb, u32 pid, u32 tgid,
		    const char *comm);
void rtm_task_put(struct rtm_core *c, u32 cpu, u32 pid, u32 b);
/* rtm_pass.c */
void rtm_task_put_pass(struct rtm_core *c, u32 cpu, u32 pid, u32 b);
bool rtm_runwake_late(struct rtm_core *c, u32 cpu, u32 b);
bool rtm_pass_over(struct rtm_core *c, u32 cpu, u32 old);
void rtm_pass_coalesce(struct rtm_core *c, u32 cpu, u32 old, u32 b);
u32 rtm_pass_merge(struct rtm_core *c, u32 cpu, u32 old, u32 b);
bool rtm_handoff_pass_end(struct rtm_core *c, u32 cpu, u32 b);
void rtm_handoff_tick(struct rtm_core *c, u32 cpu);
u32 rtm_handoff_take(struct rtm_core *c, u32 cpu, u64 ts, u32 pid, u32 tgid,
		     const char *comm, struct rtm_waitwork *own);
struct rtm_waitwork *rtm_waitwork_add(struct rtm_core *c, u32 cpu, u64 ts,
				      u32 pid, u32 tgid, u64 cookie,
				      const char *comm);
bool rtm_waitwork_adopt(struct rtm_core *c, u32 cpu, u32 b);

/*
 * A chain is followed through tasks that no target may want until the
 * hops of all its branches reach this many times its hop slots
 * (rtm_waking_body()): past that, a ping-pong of untargeted tasks would
 * carry it, every wakeup a transition, until max_age (a sleeper's chain
 * starts whatever its task, when a timer target exists: it may hand off to
 * one).
 */
#define RTM_FOLLOW_HOPS_X	4

static inline void rtm_comm_load(u64 *dst, const char *comm)
{
	if (comm) {
		memcpy(dst, comm, RTM_COMM_LEN);
	} else {
		dst[0] = 0;
		dst[1] = 0;
	}
}

/* a switch's other task, for a hop's by_* fields */
struct rtm_task_who {
	u32 pid;
	u32 prio;
	const char *comm;
};

/*
 * The hop at hi closes branch br's interval: it takes the interference
 * added meanwhile (an add racing with the take is lost to it: only a
 * category's share, never the sum).
 */
static inline void rtm_hop_take_intf(struct rtm_intf *hi, struct rtm_branch *br)
{
	hi->irq_ns = rtm_ld32(&br->intf_irq_ns);
	hi->si_ns = rtm_ld32(&br->intf_si_ns);
	if (rtm_unlikely(hi->irq_ns | hi->si_ns)) {
		rtm_st32(&br->intf_irq_ns, 0);
		rtm_st32(&br->intf_si_ns, 0);
	}
}

/* hop h carries branch br's folded preemptions (rtm_chain.c) */
void rtm_hop_take_folded(struct rtm_hop *h, struct rtm_branch *br,
			 bool own_by);

/*
 * A hop of branch b, after its tip. Inline: every transition adds one,
 * and a call with eight arguments costs more than the stores themselves.
 * The slot is reserved here; the hop is published with the branch's
 * hand-over. True: b is not to be followed, the chain having gone past
 * RTM_FOLLOW_HOPS_X times its hop slots: a task's wakeup of a task no
 * target may want, or a task's queueing of a workqueue item (an item
 * queueing itself would carry it forever); the caller frees b.
 */
static rtm_always_inline bool rtm_hop_add_by(struct rtm_core *c, u32 cpu, u32 b,
				  u32 type, u32 ctx, u32 pid, const u64 *comm,
				  u64 ts, const struct rtm_task_who *by)
{
	struct rtm_branch *br = rtm_br(c, b);
	struct rtm_chain *ch = rtm_chain_of(c, rtm_ld32(&br->chain));
	struct rtm_hop *h;
	u32 idx;

	idx = rtm_add32_rlx(&ch->nhops, 1) - 1;
	if (rtm_unlikely(idx >= c->p.chain_hops)) {
		rtm_hop_full(c, cpu, ch);
		/* (type is a constant at every call) */
		if (type == RTM_HOP_QUEUE_WORK)
			return ctx == RTM_CTX_TASK &&
			       idx >= RTM_FOLLOW_HOPS_X * c->p.chain_hops;
		return type == RTM_HOP_WAKING && ctx == RTM_CTX_TASK &&
		       idx >= RTM_FOLLOW_HOPS_X * c->p.chain_hops &&
		       !rtm_may_reach(c, ch, b);
	}
	h = &ch->hops[idx];
	h->ts = ts;
	h->pid = pid;
	h->cpu = (u16)cpu;
	h->type = (u8)type;
	h->ctx = (u8)ctx;
	h->parent = br->hop;
	h->depth = ch->hops[br->hop].depth + 1;
	if (comm) {
		h->comm[0] = comm[0];
		h->comm[1] = comm[1];
	} else {
		h->comm[0] = 0;
		h->comm[1] = 0;
	}
	if (by) {
		h->by_pid = by->pid;
		h->by_prio = (u8)(by->prio < RTM_PRIO_UNKNOWN ? by->prio :
				  RTM_PRIO_UNKNOWN);
		rtm_comm_load(h->by_comm, by->comm);
	} else {
		h->by_pid = 0;
	}
	h->pre_ns = 0;
	if (rtm_unlikely(br->pre_ns))
		rtm_hop_take_folded(h, br, by != NULL);
	rtm_hop_take_intf(rtm_hop_intf(c, ch, idx), br);
	br->hop = (u16)idx;
	return false;
}

static inline bool rtm_hop_add(struct rtm_core *c, u32 cpu, u32 b, u32 type,
			       u32 ctx, u32 pid, const u64 *comm, u64 ts)
{
	return rtm_hop_add_by(c, cpu, b, type, ctx, pid, comm, ts, NULL);
}
void rtm_waitwork_end(struct rtm_core *c, u32 tgid, u64 cookie, u64 ts);
void rtm_waitwork_tick(struct rtm_core *c, u32 cpu, u64 now, bool all);
/* rtm_work.c */
static inline u32 rtm_cookie_tag(u32 tgid, u64 cookie)
{
	u64 x = (cookie ^ ((u64)tgid << 32) ^ tgid) * 0x9e3779b97f4a7c15ull;
	u32 tag = (u32)(x >> 32);

	return tag ? tag : 1;
}

void rtm_cookie_put(struct rtm_core *c, u32 cpu, u32 tag, u32 b);
u32 rtm_cookie_take(struct rtm_core *c, u32 cpu, u32 tgid, u64 cookie,
		    u32 kwork);
void rtm_work_begin_branch(struct rtm_core *c, u32 cpu, u32 nb, u64 ts,
			   u32 tgid, u64 cookie);
void rtm_work_end_cookie(struct rtm_core *c, u32 cpu, u64 ts, u32 pid,
			 u32 tgid, u64 cookie, const char *comm, u64 freed);
void rtm_complete_free(struct rtm_core *c, u32 cpu, u32 b, u64 ts,
		       int target, u64 deadline, u32 pid, u32 tgid,
		       const u64 *comm);
void rtm_emit_timeout(struct rtm_core *c, u32 cpu, u32 ci, u64 now,
		      u32 target, u64 deadline);
/* record.blame of chain ch's path root..tip_hop (rtm_blame.c) */
void rtm_blame_fill(const struct rtm_core *c, const struct rtm_chain *ch,
		    u32 tip_hop, u64 start, u64 end,
		    struct rtm_rec_blame *out);

static inline bool rtm_branch_done(struct rtm_core *c, u32 b)
{
	u32 ci = rtm_ld32(&rtm_br(c, b)->chain);

	return rtm_ld32(&rtm_chain_of(c, ci)->state) & RTM_CS_DONE;
}

/*
 * Peek at a branch not owned (in a slot): does it belong to a finished
 * chain? A hint, re-checked once the branch is owned.
 */
static inline bool rtm_peek_done(struct rtm_core *c, u32 b)
{
	u32 ci = rtm_ld32(&rtm_br(c, b)->chain);

	if (!ci || ci > c->p.nchains)
		return false;
	return rtm_ld32(&rtm_chain_of(c, ci)->state) & RTM_CS_DONE;
}

/* Take the branch out of a slot (ownership), 0 if empty. */
static inline u32 rtm_slot_take(rtm_a32 *slot)
{
	if (!rtm_ld32(slot))
		return 0;
	return rtm_xchg32(slot, 0);
}

/*
 * Store the branch of a runnable task: at most one per pid; a second one
 * is merged by merge (rtm_merge: the older chain wins; rtm_pass_merge: an
 * IRQ thread's next pass), a constant once inlined.
 */
static rtm_always_inline void rtm_task_store(struct rtm_core *c, u32 cpu, u32 pid, u32 b,
					     u32 (*merge)(struct rtm_core *, u32, u32, u32))
{
	u32 i, o;

	for (i = 0; i < 4; i++) {
		switch (rtm_htab_put(&c->tasks, pid, b, &o)) {
		case 0:
			return;
		case 1:
			b = merge(c, cpu, o, b);
			continue;
		default:
			rtm_count(c, cpu, RTM_C_DROP_TASK);
			i = 4;
		}
	}
	rtm_branch_free(c, cpu, b, RTM_C_BR_DROPPED);
}

#endif /* RTM_INTERNAL_H */

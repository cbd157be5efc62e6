// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_armed.c - soft sleeper timers of target tasks, from their arming to
 * their expiry: a timer overdue before its callback ran (ktimers or the
 * timer softirq starved) is reported by the tick at its deadline, not when
 * the callback finally runs and its chain starts already late.
 *
 * An entry is one 64-bit key (pid, target, state, generation) and the
 * expiry it was armed for. Per pid, the arming, the cancel and the expiry
 * come one after another (one timer per sleeping task, each under its
 * base's lock); the tick only moves an armed entry to reported, or frees
 * one, with a CAS on the key: the generation, new at each arming, makes a
 * key read before a re-arming differ from the one after it.
 * Called by the timer events (rtm_events.c) and the tick (rtm_tick.c);
 * calls only the chain's and the targets' own code.
 */
#include "rtm_internal.h"
#include "rtm_fast.h"

#define RTM_AK_ARMED	1ull	/* waiting for its expiry */
#define RTM_AK_REPORTED	2ull	/* reported overdue; its expiry still to come */
#define RTM_AK_BUSY	3ull	/* being written by its task's arming */

static inline u64 rtm_ak(u32 pid, u32 tid, u64 state, u64 gen)
{
	return pid | (u64)(tid & 0xff) << 32 | state << 40 |
	       (gen & RTM_AK_GEN_MASK) << 42;
}

static inline u32 rtm_ak_pid(u64 k) { return (u32)k; }
static inline u32 rtm_ak_tid(u64 k) { return (u32)(k >> 32) & 0xff; }
static inline u64 rtm_ak_state(u64 k) { return (k >> 40) & 3; }
static inline u64 rtm_ak_gen(u64 k) { return k >> 42; }

/* the same entry, freed: its generation goes on */
static inline u64 rtm_ak_free(u64 k)
{
	return rtm_ak(0, 0, 0, rtm_ak_gen(k));
}

static inline u32 rtm_armed_home(u32 pid)
{
	return (pid * 0x9e3779b9u) >> (32 - RTM_NARMED_BITS);
}

/* pid's entry (any state but free), or NULL; *key: its key as read */
static struct rtm_armed *rtm_armed_find(struct rtm_core *c, u32 pid, u64 *key)
{
	u32 h = rtm_armed_home(pid), j;
	struct rtm_armed *e;
	u64 k;

	for (j = 0; j < RTM_ARMED_PROBES; j++) {
		e = &c->armed[(h + j) & (RTM_NARMED - 1)];
		k = rtm_ld64_acq(&e->key);
		if (rtm_ak_state(k) && rtm_ak_pid(k) == pid) {
			*key = k;
			return e;
		}
	}
	return NULL;
}

static bool rtm_armed_release(struct rtm_core *c, struct rtm_armed *e, u64 k)
{
	if (!rtm_cas64(&e->key, k, rtm_ak_free(k)))
		return false;
	rtm_add32(&c->armed_used, (u32)-1);
	return true;
}

/*
 * The target a timer of this task is late for first: the smallest
 * deadline among those it matches (as rtm_target_chain_deadline picks);
 * -1 if none has a deadline.
 */
static int rtm_armed_target(struct rtm_core *c, u32 pid, u32 tgid,
			    const u64 *cm)
{
	u64 src = rtm_timer_source(RTM_TIMER_SLEEPER, pid), best;
	const struct rtm_tset *t;
	u32 seq, mask;
	int i, tid;

	do {
		t = rtm_tset_begin(c, &seq);
		mask = t->active & ~t->irqonly;
		tid = -1;
		best = 0;
		while (mask) {
			i = rtm_target_match(t, mask, RTM_KIND_TIMER, src, pid,
					     tgid, cm);
			if (i < 0)
				break;
			mask &= ~(1u << i);
			if (t->t[i].deadline &&
			    (!best || t->t[i].deadline < best)) {
				best = t->t[i].deadline;
				tid = i;
			}
		}
	} while (rtm_tset_retry(c, seq));
	return tid;
}

/* pid's entry, made busy for its arming: NULL if it has none */
static struct rtm_armed *rtm_armed_own(struct rtm_core *c, u32 pid, u64 *key)
{
	struct rtm_armed *e;
	u32 i;

	/* the tick may report or free it meanwhile: once more then */
	for (i = 0; i < 2; i++) {
		e = rtm_armed_find(c, pid, key);
		if (!e || rtm_ak_state(*key) == RTM_AK_BUSY)
			return NULL;
		if (rtm_cas64(&e->key, *key, rtm_ak(pid, 0, RTM_AK_BUSY,
						    rtm_ak_gen(*key) + 1)))
			return e;
	}
	return NULL;
}

void rtm_ev_timer_armed(struct rtm_core *c, u32 cpu, u64 ts, u32 pid,
			u32 tgid, const char *comm, u64 expires)
{
	struct rtm_armed *e;
	u64 cm[2], k;
	u32 h, j, tseq;
	int tid = -1;

	/* the probe's question first: its "no" must change nothing */
	if (!rtm_timer_armed_wanted(c, cpu) || !pid || !comm)
		return;
	rtm_comm_load(cm, comm);
	if (!(rtm_ld64(&c->tg.bloom_broad) & rtm_comm_bit(cm)))
		return;
	/* before the match: a target defined after it is not the one matched */
	tseq = rtm_ld32(&c->tg.seq);
	/* a sleep longer than max_age would hold its entry for nothing */
	if (expires <= ts + c->p.max_age_ns)
		tid = rtm_armed_target(c, pid, tgid, cm);
	e = rtm_armed_find(c, pid, &k);
	/* enqueued again with the same expiry (cpu hotplug): still reported */
	if (e && rtm_ak_state(k) == RTM_AK_REPORTED && tid >= 0 &&
	    (u32)tid == rtm_ak_tid(k) && rtm_ld64(&e->expires) == expires)
		return;
	if (e) {
		e = rtm_armed_own(c, pid, &k);
		/* freed by the tick meanwhile: a slot of its own, as new */
		if (!e && !rtm_armed_find(c, pid, &k))
			goto claim;
		if (!e) {
			rtm_count(c, cpu, RTM_C_DROP_ARMED);
			return;
		}
		k = rtm_ak(pid, 0, RTM_AK_BUSY, rtm_ak_gen(k) + 1);
		if (tid < 0) {
			/* re-armed for a sleep no target wants: forgotten */
			rtm_armed_release(c, e, k);
			return;
		}
	} else {
claim:
		if (tid < 0)
			return;
		h = rtm_armed_home(pid);
		for (j = 0; j < RTM_ARMED_PROBES && !e; j++) {
			e = &c->armed[(h + j) & (RTM_NARMED - 1)];
			k = rtm_ld64(&e->key);
			if (rtm_ak_state(k) ||
			    !rtm_cas64(&e->key, k, rtm_ak(pid, 0, RTM_AK_BUSY,
							   rtm_ak_gen(k) + 1)))
				e = NULL;
		}
		if (!e) {
			/* untracked: its chain starts at its callback */
			rtm_count(c, cpu, RTM_C_DROP_ARMED);
			return;
		}
		rtm_add32(&c->armed_used, 1);
		k = rtm_ak(pid, 0, RTM_AK_BUSY, rtm_ak_gen(k) + 1);
	}
	rtm_st64(&e->expires, expires);
	rtm_st32(&e->tseq, tseq);
	rtm_st64_rel(&e->key, rtm_ak(pid, (u32)tid, RTM_AK_ARMED,
				     rtm_ak_gen(k)));
}

void rtm_ev_timer_disarmed(struct rtm_core *c, u32 cpu, u32 pid)
{
	struct rtm_armed *e;
	u32 i;
	u64 k;

	if (!RTM_CPU_OK(c, cpu) || !rtm_ld32(&c->armed_used))
		return;
	/*
	 * a reported entry stays for the callback (before v6.19 a cancel is
	 * traced just before it) or a re-arming (a sleep restarted with the
	 * same expiry after a signal is reported once)
	 */
	for (i = 0; i < 2; i++) {
		e = rtm_armed_find(c, pid, &k);
		if (!e || rtm_ak_state(k) != RTM_AK_ARMED ||
		    rtm_armed_release(c, e, k))
			return;
	}
}

int rtm_armed_expired(struct rtm_core *c, u32 pid)
{
	const struct rtm_tset *t;
	struct rtm_armed *e;
	u32 i, seq, tid;
	bool valid;
	u64 k;

	for (i = 0; i < 3; i++) {
		e = rtm_armed_find(c, pid, &k);
		if (!e || rtm_ak_state(k) == RTM_AK_BUSY)
			return -1;
		tid = rtm_ak_tid(k);
		if (rtm_ak_state(k) != RTM_AK_REPORTED) {
			if (rtm_armed_release(c, e, k))
				return -1;
			continue;	/* the tick reported it meanwhile */
		}
		/* the target reported, unless deleted or defined anew since */
		do {
			t = rtm_tset_begin(c, &seq);
			valid = (t->active >> tid) & 1 &&
				(s32)(t->t[tid].set_seq -
				      rtm_ld32(&e->tseq)) <= 0;
		} while (rtm_tset_retry(c, seq));
		if (rtm_armed_release(c, e, k))
			return valid ? (int)tid : -1;
	}
	return -1;
}

/*
 * Sleeper pid's timer, due at expires, has not run by now, past target
 * tid's deadline: a chain of its one hop, the expiry, reported overdue
 * and ended (its callback, when it runs, starts the chain that goes on).
 * The chain first: a report that cannot be made leaves the entry armed,
 * for the next tick.
 */
static void rtm_armed_report(struct rtm_core *c, u32 cpu, struct rtm_armed *e,
			     u64 k, u64 expires, u64 now, u64 dl)
{
	u32 pid = rtm_ak_pid(k), tid = rtm_ak_tid(k), b, ci, s;
	struct rtm_chain *ch;

	b = rtm_chain_start(c, cpu, RTM_KIND_TIMER,
			    rtm_timer_source(RTM_TIMER_SLEEPER, pid), expires,
			    RTM_HOP_TIMER, 0);
	if (!b)
		return;
	if (!rtm_cas64(&e->key, k, rtm_ak(pid, tid, RTM_AK_REPORTED,
					  rtm_ak_gen(k)))) {
		/* it ran, or was cancelled or re-armed meanwhile */
		rtm_branch_free(c, cpu, b, RTM_C_BR_CLOSED);
		return;
	}
	ci = rtm_ld32(&rtm_br(c, b)->chain);
	ch = rtm_chain_of(c, ci);
	/* a tick scanning chains may have found it live and reported it */
	if (!rtm_cas32(&ch->overdue_tgt, RTM_TARGET_NONE, tid)) {
		rtm_branch_free(c, cpu, b, RTM_C_BR_CLOSED);
		return;
	}
	s = rtm_ld32(&ch->state);
	while (!rtm_cas32(&ch->state, s, s | RTM_CS_OVERDUE))
		s = rtm_ld32(&ch->state);
	rtm_count(c, cpu, RTM_C_OVERDUE);
	rtm_count(c, cpu, RTM_C_ARMED_OVERDUE);
	rtm_emit_timeout(c, cpu, ci, now, tid, dl);
	rtm_branch_free(c, cpu, b, RTM_C_BR_CLOSED);
}

void rtm_armed_tick(struct rtm_core *c, u32 cpu, u32 i, u64 now, bool all)
{
	struct rtm_armed *e = &c->armed[i];
	u64 k = rtm_ld64_acq(&e->key), st = rtm_ak_state(k), exp, dl = 0;
	const struct rtm_tset *t;
	u32 seq, tid = rtm_ak_tid(k);

	if (!st || st == RTM_AK_BUSY)
		return;
	exp = rtm_ld64(&e->expires);
	/*
	 * at a stop; armed past its expiry by max_age: its callback's event
	 * missed (it ends as a chain would); reported, kept longer for a
	 * callback starved past max_age (its chain, starting at the old
	 * expiry, must find it), ended only by a cancel for good (a signal)
	 */
	if (all || (now > exp && now - exp > c->p.max_age_ns *
		    (st == RTM_AK_REPORTED ? RTM_ARMED_KEEP : 1))) {
		rtm_armed_release(c, e, k);
		return;
	}
	if (st == RTM_AK_REPORTED)
		return;
	do {
		t = rtm_tset_begin(c, &seq);
		/* the target it matched, unless deleted or defined anew since */
		if ((t->active >> tid) & 1 &&
		    (s32)(t->t[tid].set_seq - rtm_ld32(&e->tseq)) <= 0)
			dl = t->t[tid].deadline;
	} while (rtm_tset_retry(c, seq));
	if (!dl) {
		rtm_armed_release(c, e, k);
		return;
	}
	if (now > exp && now - exp > dl)
		rtm_armed_report(c, cpu, e, k, exp, now, dl);
}

u32 rtm_armed_leaks(struct rtm_core *c)
{
	u32 i, n = 0;

	for (i = 0; i < RTM_NARMED; i++)
		n += rtm_ak_state(rtm_ld64(&c->armed[i].key)) != 0;
	return n + rtm_ld32(&c->armed_used);
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_work.c - a work item's cookie branch (librtmon's markers): a branch
 * becomes item (tgid, cookie)'s at its work_begin and completes at its
 * work_end. Called by the marker events (rtm_events.c), by a pass that
 * adopts a waiting item (rtm_handoff.c) and by a queued workqueue item
 * (rtm_kwork.c, its table entry); calls only the chain's and the tables'
 * own code.
 */
#include "rtm_internal.h"

/* b into the cookie table under tag (a same item's branch merged) */
void rtm_cookie_put(struct rtm_core *c, u32 cpu, u32 tag, u32 b)
{
	struct rtm_branch *br = rtm_br(c, b), *ob;
	u32 i, o;

	for (i = 0; i < 4; i++) {
		o = rtm_htab_take(&c->cookies, tag);
		if (o) {
			ob = rtm_br(c, o);
			if (ob->cookie == br->cookie && ob->tgid == br->tgid &&
			    !((ob->flags ^ br->flags) & RTM_BF_KWORK)) {
				b = rtm_merge(c, cpu, o, b);
				br = rtm_br(c, b);
			} else {
				/* 32-bit tag collision: rare, documented */
				rtm_branch_free(c, cpu, o, RTM_C_BR_STALE);
			}
			continue;
		}
		if (!rtm_htab_insert(&c->cookies, tag, b))
			return;
		rtm_count(c, cpu, RTM_C_DROP_COOKIE);
		break;
	}
	rtm_branch_free(c, cpu, b, RTM_C_BR_DROPPED);
}

/*
 * Item (tgid, cookie)'s branch out of the cookie table, owned, or 0: none,
 * another item's under the same tag (put back), or its chain done (pruned).
 * kwork: a workqueue item's branch (RTM_BF_KWORK) is wanted, else a
 * librtmon cookie's.
 */
u32 rtm_cookie_take(struct rtm_core *c, u32 cpu, u32 tgid, u64 cookie,
		    u32 kwork)
{
	u32 tag = rtm_cookie_tag(tgid, cookie), b;
	struct rtm_branch *br;

	b = rtm_htab_take(&c->cookies, tag);
	if (!b)
		return 0;
	br = rtm_br(c, b);
	if (br->cookie != cookie || br->tgid != tgid ||
	    (br->flags & RTM_BF_KWORK) != kwork) {
		/* tag collision with another item: put it back */
		if (rtm_htab_insert(&c->cookies, tag, b)) {
			rtm_count(c, cpu, RTM_C_DROP_COOKIE);
			rtm_branch_free(c, cpu, b, RTM_C_BR_DROPPED);
		}
		return 0;
	}
	if (rtm_branch_done(c, b)) {
		rtm_branch_free(c, cpu, b, RTM_C_BR_PRUNED);
		return 0;
	}
	return b;
}

/* nb, a branch of task nb->pid, becomes work item (tgid, cookie)'s. */
void rtm_work_begin_branch(struct rtm_core *c, u32 cpu, u32 nb, u64 ts,
			   u32 tgid, u64 cookie)
{
	struct rtm_branch *nbr = rtm_br(c, nb);

	nbr->tgid = tgid;
	nbr->cookie = cookie;
	nbr->flags |= RTM_BF_COOKIE;
	rtm_hop_add(c, cpu, nb, RTM_HOP_WORK_BEGIN, RTM_CTX_TASK, nbr->pid,
		    nbr->comm, ts);
	rtm_cookie_put(c, cpu, rtm_cookie_tag(tgid, cookie), nb);
}

/*
 * Work item (tgid, cookie) ends at ts, in task pid: its cookie branch,
 * if any, completes (also called by a pass that adopted the item while
 * this work_end ran: rtm_handoff.c). freed: when pid last ended other work
 * (0: not known); after the item's last hop, the item waited for it.
 */
void rtm_work_end_cookie(struct rtm_core *c, u32 cpu, u64 ts, u32 pid,
			 u32 tgid, u64 cookie, const char *comm, u64 freed)
{
	const struct rtm_tset *t;
	struct rtm_branch *br;
	struct rtm_chain *ch;
	u32 seq, b, mask;
	u64 wcomm[2], dl;
	int tid;

	/* (rtm_ev_work_end checked rtm_htab_maybe before the call) */
	b = rtm_cookie_take(c, cpu, tgid, cookie, 0);
	if (!b)
		return;
	br = rtm_br(c, b);
	rtm_comm_load(wcomm, comm);
	ch = rtm_chain_of(c, rtm_ld32(&br->chain));
	/* only with room for the work_end hop after it */
	if (freed > ch->hops[br->hop].ts && freed < ts &&
	    rtm_ld32(&ch->nhops) + 2 <= c->p.chain_hops) {
		struct rtm_task_who who = { pid, RTM_PRIO_UNKNOWN,
					    (const char *)wcomm };

		rtm_hop_add_by(c, cpu, b, RTM_HOP_QUEUED, RTM_CTX_TASK, pid,
			       wcomm, freed, &who);
	}
	rtm_hop_add(c, cpu, b, RTM_HOP_WORK_END, RTM_CTX_TASK, pid, wcomm, ts);
	do {
		t = rtm_tset_begin(c, &seq);
		mask = t->end_mask[RTM_END_WORK_END];
		/* match the task ending the work, else the dispatcher */
		tid = rtm_target_match(t, mask, ch->kind, ch->source, pid,
				       tgid, comm ? wcomm : NULL);
		if (tid < 0)
			tid = rtm_target_match(t, mask, ch->kind, ch->source,
					       br->pid, br->tgid, br->comm);
		dl = tid >= 0 ? t->t[tid].dl_emit : 0;
	} while (rtm_tset_retry(c, seq));
	if (tid < 0) {
		rtm_branch_free(c, cpu, b, RTM_C_BR_CLOSED);
		return;
	}
	rtm_complete_free(c, cpu, b, ts, tid, dl, pid, tgid, wcomm);
}

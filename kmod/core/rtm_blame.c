// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_blame.c - a record's latency cut into causes (record.blame).
 *
 * The time between two consecutive hops of the root..end path goes to the
 * state the earlier hop put the chain in (an IRQ: its handler; a wakeup:
 * the woken task waits for its cpu; a preemption: preempted; ...). Hop
 * times are clamped into [start, end] and each part taken from the next
 * one, so the parts add up to the latency exactly, whatever the order of
 * clock reads of different cpus. Waits for the cpu name the task that had
 * it: the one switched out for the chain's task, or the one that
 * preempted it (the hops' by_* fields); a work item's wait for the task
 * that ends it, busy with earlier work, names that task (a queued hop).
 * IRQs and softirqs that ran over the chain's task or softirq in an
 * interval (rtm_intf.c) are taken out of it first, as folded preemptions.
 */
#include "rtm_internal.h"

/* the state a hop leaves its chain in, until the path's next hop */
static u32 rtm_blame_after(u32 type)
{
	switch (type) {
	case RTM_HOP_TIMER:
		return RTM_BLAME_SOURCE;
	case RTM_HOP_IRQ:
	case RTM_HOP_TIMER_RUN:
		return RTM_BLAME_HANDLER;
	case RTM_HOP_SOFTIRQ_RAISE:
	case RTM_HOP_SOFTIRQ_ENTRY:
		return RTM_BLAME_SOFTIRQ;
	case RTM_HOP_WAKING:
	case RTM_HOP_RERUN:
	case RTM_HOP_IRQ_EXIT:
		return RTM_BLAME_RUNNABLE;
	case RTM_HOP_PREEMPT:
		return RTM_BLAME_PREEMPTED;
	case RTM_HOP_WAIT:
		return RTM_BLAME_BLOCKED;
	default:	/* switch_in, work markers, handoff, block */
		return RTM_BLAME_RUNNING;
	}
}

#define RTM_BLAME_SEEN	8	/* distinct culprits kept while walking */

/* a culprit's shares, by category */
enum { RTM_WHO_RUNNABLE, RTM_WHO_PREEMPTED, RTM_WHO_QUEUED, RTM_WHO_NR };

static const u8 rtm_who_cat[RTM_WHO_NR] = {
	RTM_BLAME_RUNNABLE, RTM_BLAME_PREEMPTED, RTM_BLAME_QUEUED
};

struct rtm_blame_who {
	u64 ns[RTM_WHO_NR];
	u64 comm[2];
	u32 pid;
	u8 prio;
};

/* charge ns of waiting (category cat) to the task in hop h's by_* fields */
static void rtm_blame_charge(struct rtm_blame_who *w, u32 *nw, u64 *other,
			     const struct rtm_hop *h, u32 cat, u64 ns)
{
	u32 i, k = cat == RTM_BLAME_PREEMPTED ? RTM_WHO_PREEMPTED :
		   cat == RTM_BLAME_QUEUED ? RTM_WHO_QUEUED : RTM_WHO_RUNNABLE;

	if (!h->by_pid || !ns)
		return;
	for (i = 0; i < *nw; i++) {
		if (w[i].pid == h->by_pid) {
			w[i].ns[k] += ns;
			/* a queued hop does not know the priority: a switch may */
			if (w[i].prio == RTM_PRIO_UNKNOWN)
				w[i].prio = h->by_prio;
			return;
		}
	}
	if (*nw == RTM_BLAME_SEEN) {
		*other += ns;
		return;
	}
	w[*nw].pid = h->by_pid;
	w[*nw].prio = h->by_prio;
	w[*nw].comm[0] = h->by_comm[0];
	w[*nw].comm[1] = h->by_comm[1];
	memset(w[*nw].ns, 0, sizeof(w[*nw].ns));
	w[*nw].ns[k] = ns;
	(*nw)++;
}

/*
 * The folded preemptions and waits that hop h carries, at most span ns
 * (the interval it closes), into out; the preemptions' culprit (h's by_*
 * task) charged its share. Returns the ns taken.
 */
static u64 rtm_blame_folded(struct rtm_rec_blame *out,
			    struct rtm_blame_who *w, u32 *nw, u64 *other,
			    const struct rtm_hop *h, u64 span)
{
	u64 pre = h->pre_ns < span ? h->pre_ns : span, blk, by;

	blk = h->pre_blk == 0xff ? pre : (pre * h->pre_blk) >> 8;
	by = h->pre_share == 0xffff ? pre : (pre * h->pre_share) >> 16;
	if (by > pre - blk)
		by = pre - blk;
	out->ns[RTM_BLAME_BLOCKED] += blk;
	out->ns[RTM_BLAME_PREEMPTED] += pre - blk;
	rtm_blame_charge(w, nw, other, h, RTM_BLAME_PREEMPTED, by);
	return pre;
}

/* the interference in the interval hop ci closes, at most span ns */
static u64 rtm_blame_intf(struct rtm_rec_blame *out,
			  const struct rtm_intf *in, u64 span)
{
	u64 irq = in->irq_ns < span ? in->irq_ns : span;
	u64 si = in->si_ns < span - irq ? in->si_ns : span - irq;

	out->ns[RTM_BLAME_IRQ_INTF] += irq;
	out->ns[RTM_BLAME_SOFTIRQ_INTF] += si;
	return irq + si;
}

static u64 rtm_who_ns(const struct rtm_blame_who *w)
{
	return w->ns[RTM_WHO_RUNNABLE] + w->ns[RTM_WHO_PREEMPTED] +
	       w->ns[RTM_WHO_QUEUED];
}

/* the RTM_REC_CULPRITS largest of w[] into out, the rest into other */
static void rtm_blame_top(struct rtm_rec_blame *out,
			  const struct rtm_blame_who *w, u32 nw, u64 other)
{
	u32 i, j, k, best;
	u64 t, bt;
	u8 used[RTM_BLAME_SEEN] = { 0 };

	for (j = 0; j < RTM_REC_CULPRITS; j++) {
		struct rtm_rec_culprit *o = &out->culprit[j];

		best = nw;
		bt = 0;
		for (i = 0; i < nw; i++) {
			t = rtm_who_ns(&w[i]);
			if (!used[i] && (best == nw || t > bt)) {
				best = i;
				bt = t;
			}
		}
		if (best == nw) {
			memset(o, 0, sizeof(*o));
			continue;
		}
		used[best] = 1;
		o->ns = bt;
		o->pid = w[best].pid;
		for (i = k = 0; i < RTM_WHO_NR; i++)
			if (w[best].ns[i] > w[best].ns[k])
				k = i;
		o->category = rtm_who_cat[k];
		o->prio = w[best].prio;
		o->pad = 0;
		memcpy(o->comm, w[best].comm, RTM_COMM_LEN);
	}
	for (i = 0; i < nw; i++)
		if (!used[i])
			other += rtm_who_ns(&w[i]);
	out->culprit_other_ns = other;
}

void rtm_blame_fill(const struct rtm_core *c, const struct rtm_chain *ch,
		    u32 tip_hop, u64 start, u64 end,
		    struct rtm_rec_blame *out)
{
	struct rtm_blame_who w[RTM_BLAME_SEEN];
	const struct rtm_hop *h, *child = NULL;
	u64 next = end > start ? end : start, t, span, other = 0;
	u32 cat, nw = 0, hi = tip_hop, ci = 0, n = 0;

	memset(out->ns, 0, sizeof(out->ns));
	/* from the tip back to the root: parents strictly decrease to 0 */
	for (;;) {
		h = &ch->hops[hi];
		t = h->ts < start ? start : h->ts > next ? next : h->ts;
		/*
		 * after the tip: a TIMEOUT report's chain is still open (its
		 * completion record has the blame), or the end's own hop was
		 * not stored (hops full)
		 */
		cat = !child ? RTM_BLAME_UNKNOWN :
		      child->type == RTM_HOP_QUEUED ? RTM_BLAME_QUEUED :
		      rtm_blame_after(h->type);
		span = next - t;
		/* the rest goes to cat */
		if (child && rtm_unlikely(child->pre_ns))
			span -= rtm_blame_folded(out, w, &nw, &other, child,
						 span);
		if (child)
			span -= rtm_blame_intf(out, rtm_hop_intf(c, ch, ci),
					       span);
		out->ns[cat] += span;
		if (cat == RTM_BLAME_PREEMPTED)
			rtm_blame_charge(w, &nw, &other, h, cat, span);
		else if ((cat == RTM_BLAME_RUNNABLE &&
			  child->type == RTM_HOP_SWITCH_IN) ||
			 cat == RTM_BLAME_QUEUED)
			rtm_blame_charge(w, &nw, &other, child, cat, span);
		next = t;
		child = h;
		ci = hi;
		if (!hi || ++n >= c->p.chain_hops)
			break;
		hi = h->parent;
	}
	/* before the root's hop (none: it is the start) */
	out->ns[RTM_BLAME_SOURCE] += next - start;
	rtm_blame_top(out, w, nw, other);
}

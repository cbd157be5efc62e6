// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Chains through kernel workqueue items (rtm_kwork.c): an IRQ thread or a
 * hard IRQ handler queues an item that a kworker runs, busy with earlier
 * items (no wakeup) or woken for it; the item wakes the reader. One
 * "PASS: kwork_name" or "FAIL: ..." line per case; exit 1 if any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtm_core.h"
#include "rtm_internal.h"	/* the kworker's slot after its item ends */
#define UNIT_PREFIX "kwork_"
#include "unit.h"

#define IRQ	7
#define ITHR	100	/* irq/7-model */
#define KWORKER	200	/* kworker/1:1 */
#define READER	300
#define WORK	0xffff888004a1c0e8ull

static char c_ithr[RTM_COMM_LEN], c_kw[RTM_COMM_LEN], c_rd[RTM_COMM_LEN];

static void comm(char *dst, const char *s)
{
	memset(dst, 0, RTM_COMM_LEN);
	strncpy(dst, s, RTM_COMM_LEN - 1);
}

static struct rtm_core *setup(void)
{
	struct rtm_target_spec t;
	struct rtm_params p;
	struct rtm_core *c;

	rtm_params_default(&p, 2);
	c = mk(&p);
	memset(&t, 0, sizeof(t));
	comm(t.comm, "reader");
	t.src = RTM_SRC_IRQ;
	t.irq = IRQ;
	t.end = RTM_END_SWITCH_IN;
	if (rtm_core_set_target(c, 0, &t))
		return NULL;
	comm(c_ithr, "irq/7-model");
	comm(c_kw, "kworker/1:1");
	comm(c_rd, "reader");
	return c;
}


/* past max_age nothing is left; the case ends */
static void finish(struct rtm_core *c)
{
	rtm_ev_tick(c, 0, 10000000000ull);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

/* the path's hop of type type (-1: none) */
static int hop_of(const struct rtm_record *r, unsigned int type)
{
	unsigned int i;

	for (i = 0; i < r->nhops; i++)
		if (r->hops[i].type == type)
			return (int)i;
	return -1;
}


/* IRQ at ts on cpu 0: its thread woken, switched in, queues the item */
static void irq_thread_queues(struct rtm_core *c, unsigned long long ts)
{
	rtm_ev_irq_entry(c, 0, ts, IRQ);
	rtm_ev_irq_exit(c, 0, ts + 10, IRQ, 1, ITHR);
	rtm_ev_waking(c, 0, ts + 15, RTM_CTX_HARDIRQ, 0, ITHR, ITHR, c_ithr);
	rtm_ev_switch(c, 0, ts + 100, 0, 0, ITHR, ITHR, c_ithr, NULL);
	rtm_ev_kwork_queue(c, 0, ts + 200, RTM_CTX_TASK, ITHR, WORK);
}

/*
 * The kworker on cpu 1 runs a long item: the queued one starts after it
 * with no wakeup (the model device's workbusy mode). The chain goes on
 * from the item: queued from the queueing to its start, the kworker the
 * culprit; the item's wakeup of the reader ends the chain at its
 * switch_in. Once the item ended, the kworker's wakeups are not the
 * chain's.
 */
static void t_busy_kworker(void)
{
	struct rtm_core *c = setup();
	struct rtm_record r;
	int q, qd;

	begin("busy_kworker_runs_the_item_without_a_wakeup");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	rtm_ev_switch(c, 1, 500, 0, 0, KWORKER, 0, c_kw, NULL);
	rtm_ev_kwork_start(c, 1, 600, RTM_CTX_TASK, KWORKER, 0, c_kw, 0x1111);
	irq_thread_queues(c, 1000);
	/* the IRQ thread's pass is over: it waits for its next interrupt */
	rtm_ev_switch(c, 0, 1300, ITHR, 1, 0, 0, NULL, NULL);
	rtm_ev_kwork_end(c, 1, 5000, RTM_CTX_TASK, KWORKER, 0x1111);
	rtm_ev_kwork_start(c, 1, 5100, RTM_CTX_TASK, KWORKER, 0, c_kw, WORK);
	rtm_ev_waking(c, 1, 5400, RTM_CTX_TASK, KWORKER, READER, READER, c_rd);
	rtm_ev_kwork_end(c, 1, 5500, RTM_CTX_TASK, KWORKER, WORK);
	CHECK(!rtm_ld32(&c->cpus[1].task_cur));
	rtm_ev_switch(c, 0, 6000, 0, 0, READER, READER, c_rd, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.latency_ns == 5000 && r.target_pid == READER);
	q = hop_of(&r, RTM_HOP_QUEUE_WORK);
	qd = hop_of(&r, RTM_HOP_QUEUED);
	CHECK(q >= 0 && qd == q + 1);
	if (q >= 0 && qd == q + 1) {
		CHECK(r.hops[q].ts_ns == 1200 && r.hops[q].ctx == RTM_CTX_TASK);
		CHECK(r.hops[qd].ts_ns == 5100 && r.hops[qd].pid == KWORKER);
	}
	CHECK(unit_blame_sum(&r) == r.latency_ns);
	CHECK(r.blame.ns[RTM_BLAME_QUEUED] == 3900);
	CHECK(r.blame.culprit[0].pid == KWORKER &&
	      r.blame.culprit[0].category == RTM_BLAME_QUEUED &&
	      r.blame.culprit[0].ns == 3900);
	rtm_ev_switch(c, 0, 6100, READER, 1, 0, 0, NULL, NULL);
	rtm_ev_switch(c, 1, 6200, KWORKER, 1, 0, 0, NULL, NULL);
	finish(c);
}

/*
 * A kworker woken for the item: its wakeup's branch carries the chain
 * (runnable, not queued), the item's own branch gives way; after the
 * item's end a second wakeup by the kworker starts nothing.
 */
static void t_woken_kworker(void)
{
	struct rtm_core *c = setup();
	struct rtm_record r;

	begin("woken_kworker_keeps_its_wakeup");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	irq_thread_queues(c, 1000);
	rtm_ev_waking(c, 0, 1210, RTM_CTX_TASK, ITHR, KWORKER, 0, c_kw);
	rtm_ev_switch(c, 0, 1300, ITHR, 1, 0, 0, NULL, NULL);
	rtm_ev_switch(c, 1, 1800, 0, 0, KWORKER, 0, c_kw, NULL);
	rtm_ev_kwork_start(c, 1, 1850, RTM_CTX_TASK, KWORKER, 0, c_kw, WORK);
	rtm_ev_waking(c, 1, 1900, RTM_CTX_TASK, KWORKER, READER, READER, c_rd);
	rtm_ev_kwork_end(c, 1, 1950, RTM_CTX_TASK, KWORKER, WORK);
	CHECK(!rtm_ld32(&c->cpus[1].task_cur));
	rtm_ev_switch(c, 0, 2500, 0, 0, READER, READER, c_rd, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.latency_ns == 1500);
	CHECK(hop_of(&r, RTM_HOP_QUEUED) < 0 && hop_of(&r, RTM_HOP_QUEUE_WORK) < 0);
	CHECK(unit_blame_sum(&r) == r.latency_ns && !r.blame.ns[RTM_BLAME_QUEUED]);
	rtm_ev_switch(c, 0, 2600, READER, 1, 0, 0, NULL, NULL);
	rtm_ev_switch(c, 1, 2700, KWORKER, 1, 0, 0, NULL, NULL);
	finish(c);
}

/*
 * An item queued by a hard IRQ handler (no IRQ thread), that waits in D
 * in the middle (a bus transfer): the wait is blocked, the chain goes on
 * when the kworker runs again.
 */
static void t_hardirq_item_waits(void)
{
	struct rtm_core *c = setup();
	struct rtm_record r;

	begin("hardirq_queued_item_waits_mid_item");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	rtm_ev_switch(c, 1, 500, 0, 0, KWORKER, 0, c_kw, NULL);
	rtm_ev_irq_entry(c, 1, 1000, IRQ);
	rtm_ev_kwork_queue(c, 1, 1050, RTM_CTX_HARDIRQ, KWORKER, WORK);
	rtm_ev_irq_exit(c, 1, 1100, IRQ, 0, 0);
	rtm_ev_kwork_start(c, 1, 1200, RTM_CTX_TASK, KWORKER, 0, c_kw, WORK);
	rtm_ev_switch(c, 1, 1300, KWORKER, RTM_SWITCH_BLOCKED_D, 0, 0, NULL,
		      NULL);
	rtm_ev_waking(c, 0, 3000, RTM_CTX_HARDIRQ, 0, KWORKER, 0, c_kw);
	rtm_ev_switch(c, 1, 3100, 0, 0, KWORKER, 0, c_kw, NULL);
	rtm_ev_waking(c, 1, 3200, RTM_CTX_TASK, KWORKER, READER, READER, c_rd);
	rtm_ev_kwork_end(c, 1, 3300, RTM_CTX_TASK, KWORKER, WORK);
	rtm_ev_switch(c, 0, 3500, 0, 0, READER, READER, c_rd, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.latency_ns == 2500);
	CHECK(hop_of(&r, RTM_HOP_QUEUE_WORK) >= 0 &&
	      hop_of(&r, RTM_HOP_WAIT) >= 0);
	CHECK(unit_blame_sum(&r) == r.latency_ns);
	CHECK(r.blame.ns[RTM_BLAME_BLOCKED] == 1800);
	rtm_ev_switch(c, 0, 3600, READER, 1, 0, 0, NULL, NULL);
	rtm_ev_switch(c, 1, 3700, KWORKER, 1, 0, 0, NULL, NULL);
	finish(c);
}

/* an item nobody runs (cancelled) is pruned with its chain: nothing leaks */
static void t_item_never_runs(void)
{
	struct rtm_core *c = setup();
	struct rtm_record r;

	begin("cancelled_item_leaks_nothing");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	irq_thread_queues(c, 1000);
	rtm_ev_switch(c, 0, 1300, ITHR, 1, 0, 0, NULL, NULL);
	rtm_ev_tick(c, 0, 10000000000ull);
	rtm_ev_kwork_start(c, 1, 10000000100ull, RTM_CTX_TASK, KWORKER, 0, c_kw, WORK);
	CHECK(!rtm_ld32(&c->cpus[1].task_cur));
	CHECK(unit_drain(c, 2, &r) == 0);
	rtm_ev_tick(c, 0, 20000000000ull);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

/*
 * A BH workqueue's item (6.9 and later) runs in softirq inside the task it
 * interrupted, here the IRQ thread that queued it: its start and end leave
 * the thread's pass alone, and the pass goes on to wake the reader.
 */
static void t_bh_item(void)
{
	struct rtm_core *c = setup();
	struct rtm_record r;

	begin("bh_item_leaves_the_interrupted_task_alone");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	irq_thread_queues(c, 1000);
	rtm_ev_kwork_start(c, 0, 1300, RTM_CTX_SOFTIRQ, ITHR, ITHR, c_ithr, WORK);
	rtm_ev_kwork_end(c, 0, 1400, RTM_CTX_SOFTIRQ, ITHR, WORK);
	CHECK(rtm_ld32(&c->cpus[0].task_cur) != 0);
	rtm_ev_waking(c, 0, 1500, RTM_CTX_TASK, ITHR, READER, READER, c_rd);
	rtm_ev_switch(c, 0, 1600, ITHR, 1, READER, READER, c_rd, NULL);
	CHECK(unit_drain(c, 2, &r) == 1 && r.latency_ns == 600);
	rtm_ev_switch(c, 0, 1700, READER, 1, 0, 0, NULL, NULL);
	finish(c);
}

/*
 * A wakeup that found a helper task current on cpu 1 lands after it left
 * (the kworker now runs there): the kworker's item start hands that
 * branch to the task table (rtm_runwake_late), not to the bin, and the
 * helper, switched in later, wakes the reader.
 */
static void t_late_wakeup_kept(void)
{
	struct rtm_core *c = setup();
	struct rtm_record r;
	char c_h[RTM_COMM_LEN];

	begin("late_wakeup_in_the_kworkers_slot_kept");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	comm(c_h, "helper");
	rtm_ev_switch(c, 1, 500, 0, 0, 400, 400, c_h, NULL);
	irq_thread_queues(c, 1000);
	rtm_ev_switch(c, 1, 1190, 400, 1, KWORKER, 0, c_kw, NULL);
	rtm_ev_waking_running(c, 0, 1210, RTM_CTX_TASK, ITHR, 400, 400, c_h, 1);
	rtm_ev_kwork_start(c, 1, 1300, RTM_CTX_TASK, KWORKER, 0, c_kw, WORK);
	rtm_ev_kwork_end(c, 1, 1350, RTM_CTX_TASK, KWORKER, WORK);
	rtm_ev_switch(c, 0, 1400, ITHR, 1, 400, 400, c_h, NULL);
	rtm_ev_waking(c, 0, 1450, RTM_CTX_TASK, 400, READER, READER, c_rd);
	rtm_ev_switch(c, 0, 1500, 400, 1, READER, READER, c_rd, NULL);
	CHECK(unit_drain(c, 2, &r) == 1 && r.latency_ns == 500);
	rtm_ev_switch(c, 0, 1600, READER, 1, 0, 0, NULL, NULL);
	rtm_ev_switch(c, 1, 1700, KWORKER, 1, 0, 0, NULL, NULL);
	finish(c);
}

/*
 * The kworker in an item, woken by another chain's wakeup (running: a
 * wait ending, or mid-way to sleep; blocked in D: merged in the task
 * table, the older chain kept): it is still in that item, so the item's
 * end closes whichever branch it keeps, and its next item is not a chain's.
 */
static void t_woken_mid_item(void)
{
	struct rtm_core *c = setup();
	struct rtm_record r;
	int i;

	begin("kworker_woken_mid_item_still_ends_it");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	for (i = 0; i < 2; i++) {
		unsigned long long t = 100000ull * (unsigned long long)(i + 1);

		rtm_ev_switch(c, 1, t, 0, 0, KWORKER, 0, c_kw, NULL);
		irq_thread_queues(c, t + 1000);
		rtm_ev_kwork_start(c, 1, t + 1300, RTM_CTX_TASK, KWORKER, 0, c_kw, WORK);
		if (i) {	/* in D, woken by an older chain (the first IRQ's) */
			rtm_ev_switch(c, 1, t + 1350, KWORKER, RTM_SWITCH_BLOCKED_D,
				      0, 0, NULL, NULL);
			irq_thread_queues(c, t - 50000);
			rtm_ev_waking(c, 0, t + 1400, RTM_CTX_TASK, ITHR, KWORKER,
				      0, c_kw);
			rtm_ev_switch(c, 1, t + 1450, 0, 0, KWORKER, 0, c_kw, NULL);
		} else {	/* running: another cpu's wakeup finds it current */
			irq_thread_queues(c, t + 1320);
			rtm_ev_waking_running(c, 0, t + 1600, RTM_CTX_TASK, ITHR,
					      KWORKER, 0, c_kw, 1);
		}
		rtm_ev_kwork_end(c, 1, t + 1700, RTM_CTX_TASK, KWORKER, WORK);
		CHECK(!rtm_ld32(&c->cpus[1].task_cur));
		/* the next, untraced item wakes the reader: no chain's */
		rtm_ev_kwork_start(c, 1, t + 1800, RTM_CTX_TASK, KWORKER, 0, c_kw, 0x5555);
		rtm_ev_waking(c, 1, t + 1900, RTM_CTX_TASK, KWORKER, READER, READER, c_rd);
		rtm_ev_switch(c, 0, t + 2000, ITHR, 1, READER, READER, c_rd, NULL);
		CHECK(unit_drain(c, 2, &r) == 0);
		rtm_ev_switch(c, 0, t + 2100, READER, 1, 0, 0, NULL, NULL);
		rtm_ev_switch(c, 1, t + 2200, KWORKER, 1, 0, 0, NULL, NULL);
	}
	finish(c);
}

/*
 * A work is queued again only once it ran or was cancelled: an item the
 * chain queued, cancelled, then queued by a context that carries no chain
 * (a timer, another task) and run is not the chain's. Its run wakes the
 * reader: no record (the first queueing's chain is abandoned).
 */
static void t_cancelled_item_queued_again(void)
{
	struct rtm_core *c = setup();
	struct rtm_record r;
	struct rtm_stats s;

	begin("cancelled_item_queued_again_untraced");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	irq_thread_queues(c, 1000);
	rtm_ev_switch(c, 0, 1300, ITHR, 1, 0, 0, NULL, NULL);
	/* cancel_work() leaves no event; an untracked task queues it again */
	rtm_ev_switch(c, 1, 40000, 0, 0, 400, 400, c_rd, NULL);
	rtm_ev_kwork_queue(c, 1, 50000, RTM_CTX_TASK, 400, WORK);
	rtm_ev_switch(c, 1, 50050, 400, 1, KWORKER, 0, c_kw, NULL);
	rtm_ev_kwork_start(c, 1, 50100, RTM_CTX_TASK, KWORKER, 0, c_kw, WORK);
	rtm_ev_waking(c, 1, 50200, RTM_CTX_TASK, KWORKER, READER, READER, c_rd);
	rtm_ev_kwork_end(c, 1, 50250, RTM_CTX_TASK, KWORKER, WORK);
	rtm_ev_switch(c, 0, 50300, 0, 0, READER, READER, c_rd, NULL);
	CHECK(unit_drain(c, 2, &r) == 0);
	rtm_core_stats(c, &s);
	CHECK(s.chains_abandoned == 1 && s.chains_completed == 0);
	rtm_ev_switch(c, 0, 50400, READER, 1, 0, 0, NULL, NULL);
	rtm_ev_switch(c, 1, 50500, KWORKER, 1, 0, 0, NULL, NULL);
	finish(c);
}

/*
 * An item that queues itself again from its own run (a polling driver)
 * carries its chain only as far as a wakeup would: past RTM_FOLLOW_HOPS_X
 * times the chain's hop slots, the next queueing is not followed, and the
 * reader its 100th run wakes is no record of the interrupt's.
 */
static void t_self_requeue_bounded(void)
{
	struct rtm_core *c = setup();
	struct rtm_record r;
	unsigned long long t = 2000;
	unsigned int i;

	begin("self_requeueing_item_bounded");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	irq_thread_queues(c, 1000);
	rtm_ev_switch(c, 0, 1300, ITHR, 1, 0, 0, NULL, NULL);
	rtm_ev_switch(c, 1, 1500, 0, 0, KWORKER, 0, c_kw, NULL);
	for (i = 0; i < 100; i++, t += 1000) {
		rtm_ev_kwork_start(c, 1, t, RTM_CTX_TASK, KWORKER, 0, c_kw, WORK);
		rtm_ev_kwork_queue(c, 1, t + 100, RTM_CTX_TASK, KWORKER, WORK);
		rtm_ev_kwork_end(c, 1, t + 200, RTM_CTX_TASK, KWORKER, WORK);
	}
	rtm_ev_kwork_start(c, 1, t, RTM_CTX_TASK, KWORKER, 0, c_kw, WORK);
	rtm_ev_waking(c, 1, t + 100, RTM_CTX_TASK, KWORKER, READER, READER, c_rd);
	rtm_ev_kwork_end(c, 1, t + 200, RTM_CTX_TASK, KWORKER, WORK);
	rtm_ev_switch(c, 0, t + 300, 0, 0, READER, READER, c_rd, NULL);
	CHECK(unit_drain(c, 2, &r) == 0);
	rtm_ev_switch(c, 0, t + 400, READER, 1, 0, 0, NULL, NULL);
	rtm_ev_switch(c, 1, t + 500, KWORKER, 1, 0, 0, NULL, NULL);
	finish(c);
}

/*
 * An IRQ's chain queues the item again after its run began (PENDING
 * cleared), before the kworker's execute_start: the run carries the older
 * chain, not the newer one (a re-queue must not free the waiting branch
 * of a chain that queued it); the newer waits for the second run.
 */
static void t_requeue_by_a_chain(void)
{
	struct rtm_core *c = setup();
	struct rtm_record r;

	begin("requeue_by_another_chain_keeps_the_older");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	rtm_ev_switch(c, 1, 500, 0, 0, KWORKER, 0, c_kw, NULL);
	rtm_ev_kwork_start(c, 1, 600, RTM_CTX_TASK, KWORKER, 0, c_kw, 0x1111);
	irq_thread_queues(c, 1000);
	rtm_ev_switch(c, 0, 1300, ITHR, 1, 0, 0, NULL, NULL);
	rtm_ev_kwork_end(c, 1, 5000, RTM_CTX_TASK, KWORKER, 0x1111);
	irq_thread_queues(c, 5010);
	rtm_ev_switch(c, 0, 5250, ITHR, 1, 0, 0, NULL, NULL);
	rtm_ev_kwork_start(c, 1, 5300, RTM_CTX_TASK, KWORKER, 0, c_kw, WORK);
	rtm_ev_waking(c, 1, 5400, RTM_CTX_TASK, KWORKER, READER, READER, c_rd);
	rtm_ev_kwork_end(c, 1, 5500, RTM_CTX_TASK, KWORKER, WORK);
	rtm_ev_switch(c, 0, 6000, 0, 0, READER, READER, c_rd, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.start_ns == 1000 && r.latency_ns == 5000);
	CHECK(!(r.flags & RTM_REC_F_MERGED));
	CHECK(unit_blame_sum(&r) == r.latency_ns);
	rtm_ev_switch(c, 0, 6100, READER, 1, 0, 0, NULL, NULL);
	rtm_ev_switch(c, 1, 6200, KWORKER, 1, 0, 0, NULL, NULL);
	finish(c);
}

/*
 * The model device's work mode on PREEMPT_RT: the kworker, woken for
 * interrupt 1's item, clears the work's PENDING bit and enables IRQs;
 * interrupt 2's IRQ thread preempts it and queues the work again before
 * the first run's execute_start. Both runs come, each wakes the reader:
 * two records, each its own interrupt's (before: one, the second merged
 * into the first).
 */
static void t_requeued_before_start(void)
{
	struct rtm_core *c = setup();
	struct rtm_record r[2];
	struct rtm_record x;
	unsigned int k;
	int n = 0;

	begin("requeued_before_the_begun_runs_start_both_recorded");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	irq_thread_queues(c, 1000);
	rtm_ev_waking(c, 0, 1210, RTM_CTX_TASK, ITHR, KWORKER, 0, c_kw);
	rtm_ev_switch(c, 0, 1300, ITHR, 1, 0, 0, NULL, NULL);
	rtm_ev_switch(c, 1, 1400, 0, 0, KWORKER, 0, c_kw, NULL);
	/* PENDING cleared; interrupt 2's thread preempts the kworker */
	rtm_ev_irq_entry(c, 1, 1500, IRQ);
	rtm_ev_irq_exit(c, 1, 1510, IRQ, 1, ITHR);
	rtm_ev_waking(c, 1, 1515, RTM_CTX_HARDIRQ, 0, ITHR, ITHR, c_ithr);
	rtm_ev_switch(c, 1, 1600, KWORKER, 0, ITHR, ITHR, c_ithr, NULL);
	rtm_ev_kwork_queue(c, 1, 1700, RTM_CTX_TASK, ITHR, WORK);
	rtm_ev_switch(c, 1, 1800, ITHR, 1, KWORKER, 0, c_kw, NULL);
	/* the first run */
	rtm_ev_kwork_start(c, 1, 1900, RTM_CTX_TASK, KWORKER, 0, c_kw, WORK);
	rtm_ev_waking(c, 1, 2000, RTM_CTX_TASK, KWORKER, READER, READER, c_rd);
	rtm_ev_kwork_end(c, 1, 2100, RTM_CTX_TASK, KWORKER, WORK);
	rtm_ev_switch(c, 0, 2500, 0, 0, READER, READER, c_rd, NULL);
	rtm_ev_switch(c, 0, 2600, READER, 1, 0, 0, NULL, NULL);
	/* the second run, no wakeup: the kworker goes on to it */
	rtm_ev_kwork_start(c, 1, 3000, RTM_CTX_TASK, KWORKER, 0, c_kw, WORK);
	rtm_ev_waking(c, 1, 3100, RTM_CTX_TASK, KWORKER, READER, READER, c_rd);
	rtm_ev_kwork_end(c, 1, 3200, RTM_CTX_TASK, KWORKER, WORK);
	rtm_ev_switch(c, 0, 3500, 0, 0, READER, READER, c_rd, NULL);
	for (k = 0; k < 2; k++)
		while (rtm_core_read(c, k, &x)) {
			if (n < 2)
				r[n] = x;
			n++;
		}
	CHECK(n == 2);
	if (n == 2) {
		if (r[0].start_ns > r[1].start_ns) {
			x = r[0];
			r[0] = r[1];
			r[1] = x;
		}
		CHECK(r[0].start_ns == 1000 && r[0].latency_ns == 1500);
		CHECK(r[1].start_ns == 1500 && r[1].latency_ns == 2000);
		CHECK(unit_blame_sum(&r[0]) == r[0].latency_ns &&
		      unit_blame_sum(&r[1]) == r[1].latency_ns);
	}
	rtm_ev_switch(c, 0, 3600, READER, 1, 0, 0, NULL, NULL);
	rtm_ev_switch(c, 1, 3700, KWORKER, 1, 0, 0, NULL, NULL);
	finish(c);
}

int main(void)
{
	t_busy_kworker();
	t_woken_kworker();
	t_hardirq_item_waits();
	t_item_never_runs();
	t_bh_item();
	t_late_wakeup_kept();
	t_woken_mid_item();
	t_cancelled_item_queued_again();
	t_self_requeue_bounded();
	t_requeue_by_a_chain();
	t_requeued_before_start();
	free(mem);
	return failed;
}

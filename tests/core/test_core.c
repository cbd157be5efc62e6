// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Direct unit tests of the rtmon core API: one "PASS: name" or
 * "FAIL: name: reason" line per test; exit 1 if any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtm_core.h"
#include "rtm_internal.h"	/* rtm_cidx_hash: t_many_targets */
#define UNIT_PREFIX "core_"
#include "unit.h"

static struct rtm_core *mk_default(unsigned int ncpus)
{
	struct rtm_params p;

	rtm_params_default(&p, ncpus);
	return mk(&p);
}

static void comm(char *dst, const char *s)
{
	memset(dst, 0, RTM_COMM_LEN);
	strncpy(dst, s, RTM_COMM_LEN - 1);
}

static struct rtm_target_spec spec(const char *name, unsigned int src,
				   unsigned int irq, unsigned int endc,
				   unsigned long long dl)
{
	struct rtm_target_spec t;

	memset(&t, 0, sizeof(t));
	if (name)
		comm(t.comm, name);
	t.src = src;
	t.irq = irq;
	t.end = endc;
	t.deadline_ns = dl;
	return t;
}

static int target(struct rtm_core *c, unsigned int id, const char *name,
		  unsigned int src, unsigned int irq, unsigned int endc,
		  unsigned long long dl)
{
	struct rtm_target_spec t = spec(name, src, irq, endc, dl);

	return rtm_core_set_target(c, id, &t);
}


/* IRQ on cpu0 wakes pid directly from the handler */
static void irq_wake(struct rtm_core *c, unsigned int cpu, unsigned long long ts,
		     unsigned int irq, unsigned int pid, const char *name)
{
	char cm[16];

	comm(cm, name);
	rtm_ev_irq_entry(c, cpu, ts, irq);
	rtm_ev_waking(c, cpu, ts + 10, RTM_CTX_HARDIRQ, 0, pid, pid, cm);
	rtm_ev_irq_exit(c, cpu, ts + 20, irq, 0, 0);
}

static void t_params(void)
{
	struct rtm_params p;
	size_t sz;
	char *raw;

	begin("params");
	rtm_params_default(&p, 4);
	sz = rtm_core_memsize(&p);
	CHECK(sz > 0);
	p.task_buckets = 1000;
	CHECK(rtm_core_memsize(&p) == 0);
	rtm_params_default(&p, 0);
	CHECK(rtm_core_memsize(&p) == 0);
	rtm_params_default(&p, 4);
	p.chain_hops = 1;
	CHECK(rtm_core_memsize(&p) == 0);
	rtm_params_default(&p, 4);
	p.ring_slots = 3;
	CHECK(rtm_core_memsize(&p) == 0);
	rtm_params_default(&p, 4);
	raw = aligned_alloc(64, sz + 64);
	CHECK(rtm_core_init(raw + 8, sz, &p) == NULL);	/* misaligned */
	CHECK(rtm_core_init(raw, sz - 1, &p) == NULL);	/* too small */
	CHECK(rtm_core_init(raw, sz, &p) != NULL);
	/* bigger pools need more memory */
	p.nchains *= 2;
	CHECK(rtm_core_memsize(&p) > sz);
	free(raw);
	end();
}

static void t_targets(void)
{
	struct rtm_core *c = mk_default(2);
	struct rtm_target_spec t;

	begin("target_validation");
	memset(&t, 0, sizeof(t));
	CHECK(rtm_core_set_target(c, 0, &t) == -22);	/* no filter at all */
	t.src = RTM_SRC_TIMER;
	CHECK(rtm_core_set_target(c, 0, &t) == -22);	/* timer-only, no task */
	t.src = RTM_SRC_IRQ;
	t.irq = RTM_MAX_IRQ;
	CHECK(rtm_core_set_target(c, 0, &t) == -22);
	t.irq = 5;
	CHECK(rtm_core_set_target(c, 0, &t) == 0);	/* IRQ-only */
	CHECK(rtm_core_set_target(c, RTM_MAX_TARGETS, &t) == -22);
	t.end = RTM_END_NR;
	t.pid = 3;
	CHECK(rtm_core_set_target(c, 1, &t) == -22);
	CHECK(rtm_core_clear_target(c, 0) == 0);
	CHECK(rtm_core_clear_target(c, 99) == -22);
	end();
}

static void t_no_targets_no_cost(void)
{
	struct rtm_core *c = mk_default(2);
	struct rtm_stats s;
	char cm[16];
	int i;

	begin("no_targets_no_state");
	comm(cm, "x");
	for (i = 0; i < 1000; i++) {
		rtm_ev_irq_entry(c, i & 1, i * 100, i % 64);
		rtm_ev_waking(c, i & 1, i * 100 + 1, RTM_CTX_HARDIRQ, 0, 10 + i, 10, cm);
		rtm_ev_irq_exit(c, i & 1, i * 100 + 2, i % 64, i & 1, 0);
		rtm_ev_timer_entry(c, 0, i * 100 + 3, 7, i * 100, 1,
				   (i & 1) ? RTM_CTX_SOFTIRQ : RTM_CTX_HARDIRQ);
		rtm_ev_timer_exit(c, 0, i * 100 + 4, 7,
				  (i & 1) ? RTM_CTX_SOFTIRQ : RTM_CTX_HARDIRQ);
		rtm_ev_switch(c, 1, i * 100 + 5, 10 + i, 1, 11 + i, 11, cm, NULL);
	}
	rtm_core_stats(c, &s);
	CHECK(s.chains_started == 0 && s.branches_opened == 0);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

static void t_runtime_target_change(void)
{
	struct rtm_core *c = mk_default(2);
	struct rtm_record r;
	struct rtm_stats s;
	char cm[16];

	begin("runtime_target_change");
	comm(cm, "app");
	CHECK(target(c, 3, "app", RTM_SRC_IRQ, 9, RTM_END_SWITCH_IN, 0) == 0);
	irq_wake(c, 0, 1000, 9, 200, "app");
	rtm_ev_switch(c, 1, 1100, 0, 0, 200, 200, cm, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.target_id == 3 && r.latency_ns == 100 && r.seq == 1);
	CHECK(r.version == RTM_REC_VERSION && r.size == sizeof(r));
	CHECK(r.nhops == 3 && r.hops[2].type == RTM_HOP_SWITCH_IN &&
	      r.hops[2].cpu == 1 && r.hops[1].type == RTM_HOP_WAKING);
	CHECK(!strcmp((char *)r.target_comm, "app") && r.target_pid == 200);
	CHECK(rtm_core_clear_target(c, 3) == 0);
	irq_wake(c, 0, 2000, 9, 200, "app");
	rtm_ev_switch(c, 1, 2100, 0, 0, 200, 200, cm, NULL);
	CHECK(unit_drain(c, 2, NULL) == 0);
	/* another irq number now */
	CHECK(target(c, 4, "app", RTM_SRC_IRQ, 10, RTM_END_SWITCH_IN, 0) == 0);
	irq_wake(c, 0, 3000, 9, 200, "app");
	irq_wake(c, 0, 3100, 10, 200, "app");
	rtm_ev_switch(c, 1, 3200, 0, 0, 200, 200, cm, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.source == 10 && r.target_id == 4 && r.seq == 2);
	rtm_core_stats(c, &s);
	CHECK(s.chains_started == 2);
	end();
}

static void t_armed_slot(void)
{
	struct rtm_core *c = mk_default(2);
	struct rtm_stats s;
	char cm[16];

	begin("rt_armed_slot_never_stale");
	comm(cm, "irq/5-x");
	CHECK(target(c, 0, NULL, RTM_SRC_IRQ, 5, 0, 0) == 0);
	/* exit with wake, but the thread was already running: no waking */
	rtm_ev_irq_entry(c, 0, 100, 5);
	rtm_ev_irq_exit(c, 0, 200, 5, 1, 0);
	/* a task-context event on that cpu disarms the slot */
	rtm_ev_switch(c, 0, 300, 1, 1, 2, 2, cm, NULL);
	rtm_ev_waking(c, 0, 400, RTM_CTX_HARDIRQ, 0, 77, 77, cm);
	rtm_core_stats(c, &s);
	CHECK(s.branches_stale == 1 && s.branches_opened == 1);
	CHECK(rtm_core_check_quiescent(c) == 0);
	/* armed on cpu0 is not consumed by a hardirq waking on cpu1 */
	rtm_ev_irq_entry(c, 0, 1000, 5);
	rtm_ev_irq_exit(c, 0, 1100, 5, 1, 0);
	rtm_ev_waking(c, 1, 1150, RTM_CTX_HARDIRQ, 0, 78, 78, cm);
	rtm_ev_waking(c, 0, 1200, RTM_CTX_HARDIRQ, 0, 79, 79, cm);
	rtm_ev_switch(c, 1, 1300, 0, 0, 78, 78, cm, NULL);
	rtm_ev_switch(c, 0, 1300, 0, 0, 79, 79, cm, NULL);
	rtm_ev_switch(c, 0, 1400, 79, 1, 0, 0, cm, NULL);
	CHECK(unit_drain(c, 2, NULL) == 1);	/* irq thread 79 blocked: IRQ-only */
	end();
}

static void t_quiescent_detects_open(void)
{
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_stats s;

	begin("quiescent_and_expiry");
	rtm_params_default(&p, 2);
	p.max_age_ns = 1000;
	c = mk(&p);
	CHECK(target(c, 0, "app", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 0) == 0);
	irq_wake(c, 0, 100, 1, 200, "app");
	CHECK(rtm_core_check_quiescent(c) > 0);	/* open chain is counted */
	rtm_ev_tick(c, 1, 500);			/* not old yet */
	CHECK(rtm_core_check_quiescent(c) > 0);
	rtm_ev_tick(c, 1, 1200);
	CHECK(rtm_core_check_quiescent(c) == 0);
	rtm_core_stats(c, &s);
	CHECK(s.chains_expired == 1 && s.branches_pruned == 1);
	CHECK(s.chains_started == s.chains_completed + s.chains_abandoned +
	      s.chains_expired);
	end();
}

static void t_task_bucket_full(void)
{
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_stats s;
	char cm[16];
	unsigned int i;

	begin("task_bucket_full");
	rtm_params_default(&p, 1);
	p.task_buckets = 2;		/* 14 slots */
	c = mk(&p);
	comm(cm, "w");
	CHECK(target(c, 0, "app", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 0) == 0);
	rtm_ev_irq_entry(c, 0, 100, 1);
	for (i = 0; i < 40; i++)
		rtm_ev_waking(c, 0, 200 + i, RTM_CTX_HARDIRQ, 0, 1000 + i, 1, cm);
	rtm_ev_irq_exit(c, 0, 300, 1, 0, 0);
	rtm_core_stats(c, &s);
	CHECK(s.drop_task_bucket == 40 - 14);
	CHECK(s.branches_dropped == s.drop_task_bucket);
	/* all 14 stored tasks run and block: everything closes */
	for (i = 0; i < 40; i++)
		rtm_ev_switch(c, 0, 400 + i, 1000 + i - 1, 1, 1000 + i, 1, cm, NULL);
	rtm_ev_switch(c, 0, 500, 1039, 1, 0, 0, cm, NULL);
	CHECK(rtm_core_check_quiescent(c) == 0);
	rtm_core_stats(c, &s);
	CHECK(s.chains_abandoned == 1);
	CHECK(s.branches_opened == s.branches_completed + s.branches_closed +
	      s.branches_pruned + s.branches_merged + s.branches_stale +
	      s.branches_dropped);
	end();
}

static void t_cookie_scope(void)
{
	struct rtm_core *c = mk_default(2);
	struct rtm_record r;
	char cm[16], wk[16];

	begin("cookie_scoped_by_tgid");
	comm(cm, "disp");
	comm(wk, "worker");
	CHECK(target(c, 0, "worker", RTM_SRC_ANY, 0, RTM_END_WORK_END, 0) == 0);
	irq_wake(c, 0, 100, 3, 50, "disp");
	rtm_ev_switch(c, 0, 200, 0, 0, 50, 40, cm, NULL);
	rtm_ev_work_begin(c, 0, 300, 50, 40, 0xdead, NULL);
	rtm_ev_work_begin(c, 0, 310, 51, 40, 0xbeef, NULL);	/* not the tracked task */
	rtm_ev_work_end(c, 1, 400, 61, 41, 0xdead, wk);	/* other tgid */
	CHECK(unit_drain(c, 2, NULL) == 0);
	rtm_ev_work_end(c, 1, 500, 60, 40, 0xdead, wk);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.latency_ns == 400 && r.target_pid == 60 &&
	      r.hops[r.nhops - 1].type == RTM_HOP_WORK_END &&
	      r.hops[r.nhops - 2].type == RTM_HOP_WORK_BEGIN);
	/* the record names the work item: the cookie that completed it */
	CHECK((r.flags & RTM_REC_F_COOKIE) && r.cookie == 0xdead);
	rtm_ev_switch(c, 0, 600, 50, 1, 0, 0, cm, NULL);
	rtm_ev_tick(c, 0, 10000000000ull);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

/*
 * A work item that waits for its worker, busy ending earlier work: the
 * time from the item's begin to that earlier work_end (kept in 1024 ns
 * units) is queued behind the worker (a queued hop, the worker its
 * culprit), whichever cpu each end ran on. None when the earlier end came
 * before the begin, or a task sharing the worker's slot (pid 149: the
 * same hash) ended work meanwhile.
 */
static void t_blame_queued(void)
{
	struct rtm_core *c = mk_default(2);
	struct rtm_switch_who w = { 119, 120, NULL };
	struct rtm_record r;
	char cm[16], wk[16];
	unsigned long long sum = 0;
	unsigned int i;

	begin("blame_queued_behind_a_busy_worker");
	comm(cm, "disp");
	comm(wk, "worker");
	w.prev_comm = wk;
	CHECK(target(c, 0, "worker", RTM_SRC_ANY, 0, RTM_END_WORK_END, 0) == 0);
	/*
	 * the dispatcher, woken at 110, waits for worker 60 (nice -1) until
	 * 200; item 1 begins at 300; the worker ends item 0 at 2048 (cpu 0),
	 * 1 at 2148 (cpu 1)
	 */
	irq_wake(c, 0, 100, 3, 50, "disp");
	rtm_ev_switch(c, 0, 200, 60, 0, 50, 40, cm, &w);
	rtm_ev_work_begin(c, 0, 300, 50, 40, 1, NULL);
	rtm_ev_work_end(c, 1, 1000, 61, 40, 6, wk);	/* another task */
	rtm_ev_work_end(c, 0, 2048, 60, 40, 0, wk);
	rtm_ev_work_end(c, 1, 2148, 60, 40, 1, wk);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.latency_ns == 2048 && r.nhops >= 2 &&
	      r.hops[r.nhops - 2].type == RTM_HOP_QUEUED &&
	      r.hops[r.nhops - 2].ts_ns == 2048 &&
	      r.hops[r.nhops - 2].pid == 60);
	for (i = 0; i < RTM_BLAME_NR; i++)
		sum += r.blame.ns[i];
	CHECK(sum == r.latency_ns);
	/* running: 200..300 (dispatcher), 2048..2148 (worker) */
	CHECK(r.blame.ns[RTM_BLAME_QUEUED] == 1748 &&
	      r.blame.ns[RTM_BLAME_RUNNING] == 200);
	/* one entry for the worker: its runnable 90 and queued 1748, its
	 * priority from the switch (a queued hop does not know it) */
	CHECK(r.blame.culprit[0].pid == 60 && r.blame.culprit[0].ns == 1838 &&
	      r.blame.culprit[0].category == RTM_BLAME_QUEUED &&
	      r.blame.culprit[0].prio == 119 && !r.blame.culprit[1].pid &&
	      !strcmp((char *)r.blame.culprit[0].comm, "worker"));
	rtm_ev_switch(c, 0, 2500, 50, 1, 0, 0, cm, NULL);
	/* worker 60 free (3072) before item 2 began (3300): running only */
	irq_wake(c, 0, 3000, 3, 50, "disp");
	rtm_ev_switch(c, 0, 3100, 0, 0, 50, 40, cm, NULL);
	rtm_ev_work_end(c, 1, 3072, 60, 40, 7, wk);
	rtm_ev_work_begin(c, 0, 3300, 50, 40, 2, NULL);
	rtm_ev_work_end(c, 1, 3500, 60, 40, 2, wk);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.hops[r.nhops - 2].type == RTM_HOP_WORK_BEGIN &&
	      !r.blame.ns[RTM_BLAME_QUEUED] &&
	      r.blame.ns[RTM_BLAME_RUNNING] == 400);
	rtm_ev_switch(c, 0, 3600, 50, 1, 0, 0, cm, NULL);
	/* pid 149 shares worker 60's slot: its end evicts the worker's */
	irq_wake(c, 0, 4000, 3, 50, "disp");
	rtm_ev_switch(c, 0, 4100, 0, 0, 50, 40, cm, NULL);
	rtm_ev_work_begin(c, 0, 4200, 50, 40, 3, NULL);
	rtm_ev_work_end(c, 1, 5120, 60, 40, 8, wk);
	rtm_ev_work_end(c, 0, 5200, 149, 40, 9, wk);
	rtm_ev_work_end(c, 1, 5300, 60, 40, 3, wk);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.hops[r.nhops - 2].type == RTM_HOP_WORK_BEGIN &&
	      !r.blame.ns[RTM_BLAME_QUEUED] && r.blame.culprit[0].pid != 60);
	rtm_ev_switch(c, 0, 5400, 50, 1, 0, 0, cm, NULL);
	rtm_ev_tick(c, 0, 10000000000ull);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

/*
 * A chain with one hop slot left at the work_end: the work_end hop, not a
 * queued hop, takes it (the record ends at its end, no hops dropped).
 */
static void t_blame_queued_last_slot(void)
{
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_record r;
	char cm[16], wk[16];

	begin("blame_queued_never_takes_the_work_ends_slot");
	rtm_params_default(&p, 2);
	p.chain_hops = 5;	/* irq, waking, switch_in, work_begin: one left */
	c = mk(&p);
	comm(cm, "disp");
	comm(wk, "worker");
	CHECK(target(c, 0, "worker", RTM_SRC_ANY, 0, RTM_END_WORK_END, 0) == 0);
	irq_wake(c, 0, 100, 3, 50, "disp");
	rtm_ev_switch(c, 0, 200, 0, 0, 50, 40, cm, NULL);
	rtm_ev_work_begin(c, 0, 300, 50, 40, 1, NULL);
	rtm_ev_work_end(c, 1, 2048, 60, 40, 0, wk);
	rtm_ev_work_end(c, 1, 2148, 60, 40, 1, wk);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.nhops == 5 && r.hops[4].type == RTM_HOP_WORK_END &&
	      r.hops[3].type == RTM_HOP_WORK_BEGIN &&
	      !(r.flags & RTM_REC_F_DROPPED_HOPS) &&
	      !r.blame.ns[RTM_BLAME_QUEUED] && !r.blame.ns[RTM_BLAME_UNKNOWN]);
	rtm_ev_switch(c, 0, 2500, 50, 1, 0, 0, cm, NULL);
	rtm_ev_tick(c, 0, 10000000000ull);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

static void t_ring_wrap(void)
{
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_record r;
	struct rtm_stats s;
	char cm[16];
	unsigned long long last = 0;
	int i, n = 0;

	begin("ring_wrap_and_seq");
	rtm_params_default(&p, 1);
	p.ring_slots = 4;
	c = mk(&p);
	comm(cm, "app");
	CHECK(target(c, 0, "app", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 0) == 0);
	for (i = 0; i < 50; i++) {
		irq_wake(c, 0, 1000 * i, 1, 200, "app");
		rtm_ev_switch(c, 0, 1000 * i + 500, 0, 0, 200, 200, cm, NULL);
		if (i % 6 == 5)	/* read some, let the ring overflow */
			while (rtm_core_read(c, 0, &r)) {
				CHECK(r.seq > last);
				last = r.seq;
				n++;
			}
	}
	while (rtm_core_read(c, 0, &r)) {
		CHECK(r.seq > last);
		last = r.seq;
		n++;
	}
	CHECK(!rtm_core_read(c, 0, &r));
	rtm_core_stats(c, &s);
	CHECK(s.records_emitted == 50);
	CHECK(s.records_read == (unsigned long long)n);
	CHECK(s.records_written == s.records_read);
	CHECK(s.records_written + s.drop_ring_full == s.records_emitted);
	CHECK(s.drop_ring_full > 0 && n >= 4 * 8);
	end();
}

/*
 * Acknowledged reads: peeked records keep their slots (the ring fills, no
 * overwrite), a rewind delivers them again in the same order, a release
 * frees them and counts them read; poll's pending sees only unpeeked ones.
 */
static void t_ring_peek(void)
{
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_record r;
	struct rtm_stats s;
	unsigned long long first[4];
	char cm[16];
	int i, n;

	begin("ring_peek_release_rewind");
	rtm_params_default(&p, 1);
	p.ring_slots = 4;
	c = mk(&p);
	comm(cm, "app");
	CHECK(target(c, 0, "app", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 0) == 0);
	for (i = 0; i < 3; i++) {
		irq_wake(c, 0, 1000 * i, 1, 200, "app");
		rtm_ev_switch(c, 0, 1000 * i + 500, 0, 0, 200, 200, cm, NULL);
	}
	for (n = 0; rtm_core_peek(c, 0, &r); n++)
		first[n] = r.seq;
	CHECK(n == 3 && !rtm_core_pending(c));
	/* the peeked slots are not free: one more fits, then the ring is full */
	for (i = 3; i < 6; i++) {
		irq_wake(c, 0, 1000 * i, 1, 200, "app");
		rtm_ev_switch(c, 0, 1000 * i + 500, 0, 0, 200, 200, cm, NULL);
	}
	rtm_core_stats(c, &s);
	CHECK(s.drop_ring_full == 2 && s.records_read == 0);
	CHECK(rtm_core_pending(c));
	/* the reader died: the next one gets the same records first */
	rtm_core_rewind(c, 0);
	for (n = 0; n < 3 && rtm_core_peek(c, 0, &r); n++)
		CHECK(r.seq == first[n]);
	CHECK(n == 3);
	/* an undeliverable record goes back, the next peek has it again */
	rtm_core_unpeek(c, 0);
	CHECK(rtm_core_peek(c, 0, &r) && r.seq == first[2]);
	CHECK(rtm_core_release(c, 0) == 3);
	rtm_core_rewind(c, 0);		/* nothing peeked: no effect */
	CHECK(rtm_core_peek(c, 0, &r) && r.seq > first[2]);
	CHECK(!rtm_core_peek(c, 0, &r));
	CHECK(rtm_core_release(c, 0) == 1 && rtm_core_release(c, 0) == 0);
	rtm_core_stats(c, &s);
	CHECK(s.records_read == 4 && s.records_written == 4);
	/* freed slots take new records; consuming reads still work */
	irq_wake(c, 0, 9000, 1, 200, "app");
	rtm_ev_switch(c, 0, 9500, 0, 0, 200, 200, cm, NULL);
	CHECK(rtm_core_read(c, 0, &r) && !rtm_core_read(c, 0, &r));
	CHECK(rtm_core_peek(c, 1, &r) == 0 && rtm_core_release(c, 1) == 0);
	end();
}

static unsigned int hook_calls;

/*
 * Tracking stopped with chains open: rtm_core_expire_all() ends them with
 * no record and no overdue report, and leaves nothing allocated; a later
 * tick (tracking started again) reports nothing for them.
 */
static void t_expire_all(void)
{
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_record r;
	struct rtm_stats s;
	char cm[16];

	begin("expire_all_at_stop");
	rtm_params_default(&p, 2);
	c = mk(&p);
	comm(cm, "app");
	CHECK(target(c, 0, "app", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 1000000) == 0);
	irq_wake(c, 0, 1000, 1, 200, "app");	/* open: never switched in */
	irq_wake(c, 1, 2000, 2, 201, "app");
	rtm_core_stats(c, &s);
	CHECK(s.chains_started == 2);
	rtm_core_expire_all(c, 0);
	rtm_core_stats(c, &s);
	CHECK(s.chains_expired == 2 && s.chains_overdue == 0);
	CHECK(s.records_emitted == 0);
	CHECK(rtm_core_check_quiescent(c) == 0);
	/* started again, far past the deadline: nothing left to report */
	rtm_ev_tick(c, 0, 10000000000ull);
	rtm_ev_switch(c, 0, 10000000100ull, 0, 0, 200, 200, cm, NULL);
	CHECK(!rtm_core_read(c, 0, &r) && !rtm_core_read(c, 1, &r));
	end();
}

/* the notify callback: the record it announces must be readable already */
static struct rtm_core *notify_core;
static unsigned int notify_calls, notify_unreadable;

static void notify_check(void *arg, __u32 cpu)
{
	(void)arg;
	(void)cpu;
	notify_calls++;
	if (!rtm_core_pending(notify_core))
		notify_unreadable++;
}

static _Bool odd_filter(void *arg, __u32 cpu, const struct rtm_record *r)
{
	(void)cpu;
	hook_calls++;
	return !(r->seq & 1) || arg != NULL;
}

static void t_hook(void)
{
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_record r;
	struct rtm_stats s;
	char cm[16];
	int i, n = 0;

	begin("record_hook_and_pending");
	rtm_params_default(&p, 2);
	p.ring_slots = 4;
	c = mk(&p);
	comm(cm, "app");
	CHECK(target(c, 0, "app", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 0) == 0);
	rtm_core_set_hook(c, odd_filter, NULL);
	rtm_core_set_notify(c, notify_check);
	notify_core = c;
	CHECK(!rtm_core_pending(c));
	for (i = 0; i < 6; i++) {	/* odd seqs filtered: ring never fills */
		irq_wake(c, 0, 1000 * i, 1, 200, "app");
		rtm_ev_switch(c, 1, 1000 * i + 500, 0, 0, 200, 200, cm, NULL);
		/* the reader takes it at once, as one woken by notify would */
		while (rtm_core_read(c, 1, &r)) {
			CHECK(!(r.seq & 1));
			n++;
		}
	}
	CHECK(hook_calls == 6);
	/* notified once per published record, each already readable */
	CHECK(notify_calls == 3 && notify_unreadable == 0);
	CHECK(n == 3 && !rtm_core_pending(c));
	rtm_core_stats(c, &s);
	CHECK(s.records_filtered == 3 && s.drop_ring_full == 0);
	CHECK(s.records_written == 3 && s.records_read == 3);
	end();
}

/*
 * One scenario with ticks done at once (rtm_ev_tick) or in steps of
 * `budget` units on alternating cpus (rtm_tick_run, as the module's
 * preemptible tick does): overdue reports, reclaim by age, pruning.
 */
static unsigned int tick_scenario(unsigned int budget, struct rtm_stats *s,
				  struct rtm_record *recs, unsigned int max)
{
	static const unsigned long long ticks[] = { 3000, 4000, 9000, 20000 };
	struct rtm_tick_pos t;
	struct rtm_params p;
	struct rtm_core *c;
	unsigned int i, k, n = 0, steps = 0;
	char cm[16];

	rtm_params_default(&p, 2);
	p.max_age_ns = 5000;
	c = mk(&p);
	comm(cm, "app");
	target(c, 0, "app", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 1000);
	irq_wake(c, 0, 1000, 1, 200, "app");		/* open: overdue, aged */
	irq_wake(c, 1, 1200, 2, 201, "app");		/* completed */
	rtm_ev_switch(c, 0, 1500, 0, 0, 201, 201, cm, NULL);
	irq_wake(c, 1, 2500, 3, 202, "app");		/* overdue at 4000 */
	for (i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++) {
		if (!budget) {
			rtm_ev_tick(c, i & 1, ticks[i]);
			continue;
		}
		rtm_tick_begin(c, &t, ticks[i]);
		while (rtm_tick_run(c, (steps++) & 1, &t, budget))
			;
	}
	rtm_core_stats(c, s);
	for (k = 0; k < 2; k++)
		while (n < max && rtm_core_read(c, k, &recs[n]))
			n++;
	CHECK(rtm_core_check_quiescent(c) == 0);
	/*
	 * in steps indeed: each tick takes a step for every cpu's slots and
	 * the hand-offs at least (a closed chain or an empty bucket takes a quarter)
	 */
	CHECK(!budget || steps >= 4 * ((p.ncpus + 1 + budget - 1) / budget));
	return n;
}

/*
 * Closed chains and empty buckets are passed over four to a step of the
 * budget: with nothing open, a tick in steps of 1 takes a step per four.
 */
static void t_tick_skip_budget(void)
{
	struct rtm_tick_pos t;
	struct rtm_params p;
	struct rtm_core *c;
	unsigned int steps = 0;

	begin("tick_skips_four_to_a_step");
	rtm_params_default(&p, 2);
	c = mk(&p);
	rtm_tick_begin(c, &t, 1000);
	while (rtm_tick_run(c, steps & 1, &t, 1))
		steps++;
	CHECK(steps + 1 >= (p.nchains + p.task_buckets + p.cookie_buckets) / 4 + p.ncpus + 1);
	CHECK(steps < (p.nchains + p.task_buckets + p.cookie_buckets) / 4 + p.ncpus + 8);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

static void t_tick_steps(void)
{
	struct rtm_record a[8], b[8];
	struct rtm_stats sa, sb;
	unsigned int na, nb, i, budget;

	begin("tick_in_steps_same_as_at_once");
	na = tick_scenario(0, &sa, a, 8);
	CHECK(na == 3 && sa.chains_overdue == 2 && sa.chains_expired == 2);
	for (budget = 1; budget <= 64; budget *= 4) {
		nb = tick_scenario(budget, &sb, b, 8);
		sa.records_read = sb.records_read;
		CHECK(!memcmp(&sa, &sb, sizeof(sa)));
		CHECK(na == nb);
		for (i = 0; i < na && i < nb; i++)
			CHECK(a[i].seq == b[i].seq && a[i].flags == b[i].flags &&
			      a[i].start_ns == b[i].start_ns &&
			      a[i].target_pid == b[i].target_pid);
	}
	end();
}

/* misses-only: what the hook saw, in order */
static struct {
	unsigned int calls, zero_seq, zero_seq_miss;
} mo;

static _Bool misses_only_hook(void *arg, __u32 cpu, const struct rtm_record *r)
{
	(void)arg;
	(void)cpu;
	mo.calls++;
	if (!r->seq) {
		mo.zero_seq++;
		if (r->flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT))
			mo.zero_seq_miss++;
	}
	return 1;
}

/*
 * A misses-only target's records that met their deadline take no sequence
 * number (issue 22, item 3: they looked like losses to readers): the
 * records read are numbered 1..n without a gap, the met ones are counted
 * as records_skipped and seen by the hook with seq 0. A target without
 * the flag, interleaved, keeps all of its records.
 */
static void t_misses_only_numbering(void)
{
	struct rtm_target_spec t;
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_record r;
	struct rtm_stats s;
	unsigned long long last = 0;
	char app[16], oth[16];
	unsigned int k, n = 0, misses = 0;
	int i;

	begin("misses_only_numbering");
	rtm_params_default(&p, 2);
	c = mk(&p);
	comm(app, "app");
	comm(oth, "other");
	t = spec("app", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 400);
	t.flags = 0x80;
	CHECK(rtm_core_set_target(c, 0, &t) == -22);	/* unknown flag */
	t.flags = RTM_TGT_MISSES_ONLY;
	CHECK(rtm_core_set_target(c, 0, &t) == 0);
	CHECK(target(c, 1, "other", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 400) == 0);
	rtm_core_set_hook(c, misses_only_hook, NULL);
	for (i = 0; i < 8; i++) {	/* app: met, missed, met, ... */
		unsigned long long ts = 10000ull * (i + 1);

		irq_wake(c, 0, ts, 1, 200, "app");
		rtm_ev_switch(c, 1, ts + (i & 1 ? 500 : 100), 0, 0, 200, 200, app, NULL);
		irq_wake(c, 0, ts + 5000, 2, 300, "other");	/* met, kept */
		rtm_ev_switch(c, 1, ts + 5100, 0, 0, 300, 300, oth, NULL);
	}
	for (k = 0; k < 2; k++)
		while (rtm_core_read(c, k, &r)) {
			CHECK(r.seq == last + 1);	/* no gap */
			last = r.seq;
			n++;
			if (r.target_id == 0) {
				CHECK(r.flags & RTM_REC_F_DEADLINE_MISS);
				misses++;
			}
		}
	CHECK(n == 12 && misses == 4);
	rtm_core_stats(c, &s);
	CHECK(s.records_emitted == 12 && s.records_skipped == 4);
	CHECK(s.records_written == 12 && s.records_filtered == 0);
	CHECK(s.records_emitted + s.records_skipped ==
	      s.chains_completed + s.chains_overdue);
	CHECK(mo.calls == 16 && mo.zero_seq == 4 && mo.zero_seq_miss == 0);
	/* the flag goes with the target: replaced without it, all are kept */
	t.flags = 0;
	CHECK(rtm_core_set_target(c, 0, &t) == 0);
	irq_wake(c, 0, 200000, 1, 200, "app");
	rtm_ev_switch(c, 1, 200100, 0, 0, 200, 200, app, NULL);
	CHECK(rtm_core_read(c, 1, &r) && r.seq == 13 && r.target_id == 0);
	end();
}

/* rtm_complete()'s test point: the control path reuses target 0 */
void (*rtm_test_before_emit)(struct rtm_core *c, __u32 cpu);
/* (the handoff's test points: tests/core/test_handoff.c) */
void (*rtm_test_point)(struct rtm_core *c, __u32 cpu, int id);
static const struct rtm_target_spec *reuse_spec;
static unsigned int reuses;

static void reuse_target(struct rtm_core *c, __u32 cpu)
{
	(void)cpu;
	if (reuse_spec && rtm_core_set_target(c, 0, reuse_spec) == 0)
		reuses++;
	reuse_spec = NULL;	/* once */
}

/*
 * The misses-only bit goes with the target a completion matched (issue
 * 22, item 6): target 0 is reused (cleared, set again with or without the
 * flag) between a completion's lookup and its record, as the control path
 * on another cpu can. The record follows the target it matched: a met
 * chain of a misses-only target stays out even when the id is reused
 * without the flag (it leaked with the 400 ns deadline before), and a met
 * chain of a plain target is kept even when the id turns misses-only.
 */
static void t_misses_only_reuse(void)
{
	struct rtm_target_spec mo_spec, plain;
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_record r;
	struct rtm_stats s;
	char app[16];

	begin("misses_only_target_reused_before_emit");
	rtm_params_default(&p, 2);
	c = mk(&p);
	comm(app, "app");
	mo_spec = spec("app", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 400);
	mo_spec.flags = RTM_TGT_MISSES_ONLY;
	plain = spec("app", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 900);
	rtm_test_before_emit = reuse_target;
	/* misses-only, met (100 ns): reused as plain before the emit */
	CHECK(rtm_core_set_target(c, 0, &mo_spec) == 0);
	reuse_spec = &plain;
	irq_wake(c, 0, 10000, 1, 200, "app");
	rtm_ev_switch(c, 1, 10100, 0, 0, 200, 200, app, NULL);
	CHECK(reuses == 1);
	CHECK(!rtm_core_read(c, 0, &r) && !rtm_core_read(c, 1, &r));
	/* plain, met: reused as misses-only before the emit */
	reuse_spec = &mo_spec;
	irq_wake(c, 0, 20000, 1, 200, "app");
	rtm_ev_switch(c, 1, 20100, 0, 0, 200, 200, app, NULL);
	CHECK(reuses == 2);
	CHECK(rtm_core_read(c, 1, &r) && r.target_id == 0 &&
	      r.deadline_ns == 900 && !(r.flags & RTM_REC_F_DEADLINE_MISS));
	rtm_core_stats(c, &s);
	CHECK(s.records_emitted == 1 && s.records_skipped == 1);
	/* a deadline with the top bit (the bit's place) is refused */
	plain.deadline_ns = 1ull << 63;
	CHECK(rtm_core_set_target(c, 1, &plain) == -22);
	rtm_test_before_emit = NULL;
	end();
}

/* hook that counts what it sees, including records dropped on a full ring */
static struct {
	unsigned int calls, ring_full, nest, depth, bad;
	unsigned char seen[64];
	struct rtm_core *c;
	struct rtm_record last_full;
} hk;

static _Bool count_hook(void *arg, __u32 cpu, const struct rtm_record *r)
{
	struct rtm_record before;
	unsigned int i;

	(void)arg;
	hk.calls++;
	if (r->seq == 0 || r->seq >= sizeof(hk.seen) * 8 ||
	    (hk.seen[r->seq / 8] & (1u << (r->seq % 8))) ||
	    r->version != RTM_REC_VERSION || r->cpu != cpu || !r->nhops)
		hk.bad++;
	else
		hk.seen[r->seq / 8] |= (unsigned char)(1u << (r->seq % 8));
	if (!(r->flags & RTM_REC_F_RING_FULL))
		return 1;
	hk.ring_full++;
	hk.last_full = *r;
	if (hk.nest && !hk.depth) {
		/*
		 * A hard IRQ nested over this hook on the same cpu completes
		 * IRQ-only chains while the ring is still full: the overflow
		 * scratch is busy, so their hook calls are skipped and
		 * counted, and this record stays intact.
		 */
		before = *r;
		hk.depth++;
		for (i = 0; i < hk.nest; i++) {
			rtm_ev_irq_entry(hk.c, cpu, r->end_ns + 1 + i * 10, 9);
			rtm_ev_irq_exit(hk.c, cpu, r->end_ns + 5 + i * 10, 9, 0, 0);
		}
		hk.depth--;
		if (memcmp(&before, r, sizeof(before)))
			hk.bad++;
	}
	return 0;	/* irrelevant for a dropped record: not "filtered" */
}

/* a full ring drops records, but the hook still sees every one of them */
static void t_hook_ring_full(void)
{
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_record r;
	struct rtm_stats s;
	char cm[16];
	unsigned int i, n = 0, N = 7;

	begin("hook_sees_ring_full_drops");
	memset(&hk, 0, sizeof(hk));
	rtm_params_default(&p, 2);
	p.ring_slots = 2;
	p.max_age_ns = 100000;
	c = mk(&p);
	comm(cm, "app");
	CHECK(target(c, 0, "app", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 300) == 0);
	rtm_core_set_hook(c, count_hook, NULL);
	for (i = 0; i < N; i++) {	/* no reader: the ring fills up */
		irq_wake(c, 0, 1000 * i, 1, 200 + i, "app");
		rtm_ev_switch(c, 1, 1000 * i + 100 + 100 * (i & 1), 0, 0,
			      200 + i, 200 + i, cm, NULL);
	}
	CHECK(hk.calls == N && hk.bad == 0);
	CHECK(hk.ring_full == N - p.ring_slots);
	/* the dropped record was built like a ring record */
	r = hk.last_full;
	CHECK(r.seq == N && r.kind == RTM_KIND_IRQ && r.source == 1 &&
	      r.cpu == 1 && r.target_id == 0 && r.target_pid == 200 + N - 1 &&
	      !strcmp((char *)r.target_comm, "app"));
	CHECK(r.start_ns == 1000 * (N - 1) && r.end_ns == 1000 * (N - 1) + 100 &&
	      r.latency_ns == 100 && !(r.flags & RTM_REC_F_DEADLINE_MISS));
	CHECK(r.nhops == 3 && r.hops[0].type == RTM_HOP_IRQ &&
	      r.hops[1].type == RTM_HOP_WAKING &&
	      r.hops[2].type == RTM_HOP_SWITCH_IN && r.hops[3].type == 0);
	/* a TIMEOUT report from tick into the full ring: seen and dropped */
	irq_wake(c, 1, 10000, 1, 300, "app");
	rtm_ev_tick(c, 1, 10500);
	CHECK(hk.calls == N + 1 && hk.ring_full == N + 1 - p.ring_slots);
	CHECK(hk.last_full.seq == N + 1 &&
	      (hk.last_full.flags & RTM_REC_F_TIMEOUT) && hk.last_full.nhops == 1);
	rtm_core_stats(c, &s);
	CHECK(s.records_emitted == N + 1 && s.records_filtered == 0);
	CHECK(s.drop_ring_full == N + 1 - p.ring_slots && s.hook_skipped == 0);
	CHECK(s.records_written == p.ring_slots);
	/* the ring holds the first ring_slots records, published normally */
	while (rtm_core_read(c, 1, &r)) {
		n++;
		CHECK(r.seq == n && !(r.flags & RTM_REC_F_RING_FULL));
	}
	CHECK(n == p.ring_slots && unit_drain(c, 2, NULL) == 0);
	rtm_ev_tick(c, 0, 10000 + p.max_age_ns + 1);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

/* nested emitters on one cpu while the overflow scratch is in use */
static void t_hook_ring_full_nested(void)
{
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_stats s;
	char cm[16];
	unsigned int i;

	begin("hook_ring_full_nested_skipped");
	memset(&hk, 0, sizeof(hk));
	rtm_params_default(&p, 2);
	p.ring_slots = 2;
	c = mk(&p);
	hk.c = c;
	comm(cm, "app");
	CHECK(target(c, 0, "app", RTM_SRC_IRQ, 1, RTM_END_SWITCH_IN, 0) == 0);
	CHECK(target(c, 1, NULL, RTM_SRC_IRQ, 9, 0, 0) == 0);	/* IRQ-only */
	rtm_core_set_hook(c, count_hook, NULL);
	for (i = 0; i < 3; i++) {	/* 2 into the ring, 1 dropped */
		irq_wake(c, 0, 1000 * i, 1, 200, "app");
		rtm_ev_switch(c, 1, 1000 * i + 100, 0, 0, 200, 200, cm, NULL);
	}
	CHECK(hk.calls == 3 && hk.ring_full == 1);
	/* the next dropped record's hook is interrupted by 2 IRQ chains */
	hk.nest = 2;
	irq_wake(c, 0, 5000, 1, 200, "app");
	rtm_ev_switch(c, 1, 5100, 0, 0, 200, 200, cm, NULL);
	hk.nest = 0;
	CHECK(hk.calls == 4 && hk.ring_full == 2 && hk.bad == 0);
	CHECK(hk.last_full.seq == 4 && hk.last_full.target_id == 0 &&
	      hk.last_full.end_ns == 5100);
	rtm_core_stats(c, &s);
	CHECK(s.records_emitted == 6 && s.chains_completed == 6);
	CHECK(s.hook_skipped == 2 && s.drop_ring_full == 4);
	CHECK(hk.calls + s.hook_skipped == s.records_emitted);
	/* the scratch is free again: the next dropped record is seen */
	irq_wake(c, 1, 6000, 9, 0, "");
	CHECK(hk.calls == 5 && hk.ring_full == 3 && hk.last_full.seq == 7 &&
	      hk.last_full.target_id == 1 && hk.bad == 0);
	rtm_core_stats(c, &s);
	CHECK(hk.calls + s.hook_skipped == s.records_emitted);
	CHECK(s.records_written + s.drop_ring_full + s.records_filtered ==
	      s.records_emitted && s.records_filtered == 0);
	CHECK(unit_drain(c, 2, NULL) == 2);
	rtm_ev_tick(c, 0, 6000 + p.max_age_ns + 1);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

/* soft timer slot: separate from the hard one, lost exit, quiescence */
static void t_soft_timer_slot(void)
{
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_record r;
	struct rtm_stats s;
	char cm[16], cm2[16];
	unsigned long long n, k;

	begin("soft_timer_slot");
	rtm_params_default(&p, 2);
	p.max_age_ns = 10000;
	c = mk(&p);
	comm(cm, "cyc");
	comm(cm2, "other");
	CHECK(target(c, 0, "cyc", RTM_SRC_TIMER, 0, RTM_END_SWITCH_IN, 0) == 0);
	CHECK(target(c, 1, "other", RTM_SRC_TIMER, 0, RTM_END_SWITCH_IN, 0) == 0);
	/* soft timer whose exit is lost: its slot holds the chain */
	rtm_ev_timer_entry(c, 0, 100, 9, 90, 1, RTM_CTX_SOFTIRQ);
	CHECK(rtm_core_check_quiescent(c) > 0);
	/* a hardirq waking (IRQ nested in the callback) is not its chain */
	rtm_ev_waking(c, 0, 110, RTM_CTX_HARDIRQ, 0, 20, 20, cm2);
	/* a task-context waking neither */
	rtm_ev_waking(c, 0, 115, RTM_CTX_TASK, 5, 21, 21, cm2);
	rtm_ev_switch(c, 1, 120, 0, 0, 20, 20, cm2, NULL);
	rtm_ev_switch(c, 1, 130, 20, 1, 21, 21, cm2, NULL);
	CHECK(unit_drain(c, 2, NULL) == 0);
	/* a hard timer entry on the same cpu leaves the soft slot alone */
	rtm_ev_timer_entry(c, 0, 140, 8, 135, 1, RTM_CTX_HARDIRQ);
	rtm_ev_timer_exit(c, 0, 145, 8, RTM_CTX_HARDIRQ);
	rtm_ev_waking(c, 0, 150, RTM_CTX_SOFTIRQ, 0, 22, 22, cm);
	rtm_ev_switch(c, 0, 160, 0, 0, 22, 22, cm, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.kind == RTM_KIND_TIMER && r.source == 9 && r.start_ns == 90);
	CHECK(r.hops[1].type == RTM_HOP_TIMER_RUN &&
	      r.hops[1].ctx == RTM_CTX_SOFTIRQ);
	/* a task ctx timer counts as soft; the tick reclaims its slot */
	rtm_ev_timer_entry(c, 1, 200, 7, 190, 1, RTM_CTX_TASK);
	rtm_ev_tick(c, 0, 20000);
	CHECK(rtm_core_check_quiescent(c) == 0);
	rtm_core_stats(c, &s);
	CHECK(s.chains_started == 3 && s.chains_completed == 1);
	CHECK(s.chains_started == s.chains_completed + s.chains_abandoned +
	      s.chains_expired);
	CHECK(s.branches_opened == s.branches_completed + s.branches_closed +
	      s.branches_pruned + s.branches_merged + s.branches_stale +
	      s.branches_dropped);
	/* the module's exit passes id 0 (it cannot read the timer then): the
	 * context's timer branch is closed, not counted stale */
	n = s.branches_closed;
	k = s.branches_stale;
	rtm_ev_timer_entry(c, 0, 30000, 6, 29990, 1, RTM_CTX_HARDIRQ);
	rtm_ev_timer_exit(c, 0, 30005, 0, RTM_CTX_HARDIRQ);
	rtm_core_stats(c, &s);
	CHECK(s.branches_closed == n + 1 && s.branches_stale == k);
	end();
}

static int timer_target(struct rtm_core *c, unsigned int id, const char *name,
			unsigned int src, unsigned int timers)
{
	struct rtm_target_spec t;

	memset(&t, 0, sizeof(t));
	comm(t.comm, name);
	t.src = src;
	t.end = RTM_END_SWITCH_IN;
	t.timers = timers;
	return rtm_core_set_target(c, id, &t);
}

/*
 * Timers other than sleepers (timerfd, POSIX, timerlat, ...): no chain at
 * the expiry, one at the first wakeup of a wanted task by the callback,
 * starting at the programmed expiry; the kind filter; bad target kinds.
 */
static void t_timer_kinds(void)
{
	struct rtm_record r;
	struct rtm_stats s;
	struct rtm_core *c = mk_default(2);
	char app[16], other[16];

	begin("timer_kinds");
	comm(app, "app");
	comm(other, "other");
	/* unknown kinds, kinds with an IRQ source: refused */
	CHECK(timer_target(c, 0, "app", RTM_SRC_TIMER, 1u << RTM_TIMER_NR) == -22);
	CHECK(timer_target(c, 0, "app", RTM_SRC_TIMER, 1) == -22);
	CHECK(timer_target(c, 0, "app", RTM_SRC_IRQ_ANY,
			   1u << RTM_TIMER_TIMERFD) == -22);
	/* no target wants timers: the tick starts nothing, wakes nothing */
	rtm_ev_timer_entry(c, 0, 100, 0, 95, RTM_TIMER_OTHER, RTM_CTX_HARDIRQ);
	rtm_ev_waking(c, 0, 101, RTM_CTX_HARDIRQ, 0, 30, 30, app);
	rtm_ev_timer_exit(c, 0, 102, 0, RTM_CTX_HARDIRQ);
	rtm_ev_switch(c, 0, 103, 0, 0, 30, 30, app, NULL);
	rtm_core_stats(c, &s);
	CHECK(s.chains_started == 0 && unit_drain(c, 2, NULL) == 0);

	CHECK(timer_target(c, 0, "app", RTM_SRC_TIMER,
			   1u << RTM_TIMER_TIMERFD | 1u << RTM_TIMER_POSIX) == 0);
	/* a wanted kind that wakes no one (or only others): no chain */
	rtm_ev_timer_entry(c, 0, 200, 0, 190, RTM_TIMER_TIMERFD,
			   RTM_CTX_HARDIRQ);
	rtm_ev_softirq_raise(c, 0, 201, 3, RTM_CTX_HARDIRQ);
	rtm_ev_waking(c, 0, 202, RTM_CTX_HARDIRQ, 0, 31, 31, other);
	rtm_ev_timer_exit(c, 0, 203, 0, RTM_CTX_HARDIRQ);
	rtm_core_stats(c, &s);
	CHECK(s.chains_started == 0);
	CHECK(rtm_core_check_quiescent(c) == 0);
	/* a kind the target does not want: no chain */
	rtm_ev_timer_entry(c, 0, 300, 0, 290, RTM_TIMER_SLEEPER,
			   RTM_CTX_HARDIRQ);
	rtm_ev_timer_exit(c, 0, 301, 0, RTM_CTX_HARDIRQ);
	rtm_ev_timer_entry(c, 0, 310, 0, 305, RTM_TIMER_TIMERLAT,
			   RTM_CTX_HARDIRQ);
	rtm_ev_waking(c, 0, 311, RTM_CTX_HARDIRQ, 0, 30, 30, app);
	rtm_ev_timer_exit(c, 0, 312, 0, RTM_CTX_HARDIRQ);
	rtm_ev_switch(c, 0, 313, 0, 0, 30, 30, app, NULL);
	rtm_core_stats(c, &s);
	CHECK(s.chains_started == 0 && unit_drain(c, 2, NULL) == 0);
	/* a timerfd expiry waking the target (soft, as on PREEMPT_RT) */
	rtm_ev_timer_entry(c, 1, 1000, 0, 900, RTM_TIMER_TIMERFD,
			   RTM_CTX_SOFTIRQ);
	/* a hard IRQ nested in the callback is not its chain */
	rtm_ev_waking(c, 1, 1005, RTM_CTX_HARDIRQ, 0, 30, 30, app);
	rtm_ev_waking(c, 1, 1010, RTM_CTX_SOFTIRQ, 0, 30, 30, app);
	rtm_ev_timer_exit(c, 1, 1020, 0, RTM_CTX_SOFTIRQ);
	/* after the exit, a softirq wakeup is no timer's */
	rtm_ev_waking(c, 1, 1030, RTM_CTX_SOFTIRQ, 0, 30, 30, app);
	rtm_ev_switch(c, 0, 1100, 0, 0, 30, 30, app, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.kind == RTM_KIND_TIMER && r.timer_kind == RTM_TIMER_TIMERFD);
	CHECK(r.source == 30 && r.start_ns == 900 && r.latency_ns == 200);
	CHECK(r.nhops == 4 && r.hops[1].type == RTM_HOP_TIMER_RUN &&
	      r.hops[1].ts_ns == 1000 && r.hops[1].ctx == RTM_CTX_SOFTIRQ &&
	      r.hops[2].type == RTM_HOP_WAKING && r.hops[2].ts_ns == 1010);
	/* a POSIX timer's callback waking another task first, then ours */
	rtm_ev_timer_entry(c, 0, 2000, 0, 1990, RTM_TIMER_POSIX,
			   RTM_CTX_HARDIRQ);
	rtm_ev_waking(c, 0, 2001, RTM_CTX_HARDIRQ, 0, 31, 31, other);
	rtm_ev_waking(c, 0, 2002, RTM_CTX_HARDIRQ, 0, 30, 30, app);
	rtm_ev_timer_exit(c, 0, 2003, 0, RTM_CTX_HARDIRQ);
	rtm_ev_switch(c, 0, 2010, 0, 0, 30, 30, app, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.timer_kind == RTM_TIMER_POSIX && r.source == 30 &&
	      r.start_ns == 1990);
	/* every kind (timers 0): a sleeper's chain keeps its task as source */
	CHECK(timer_target(c, 0, "app", RTM_SRC_ANY, 0) == 0);
	rtm_ev_timer_entry(c, 0, 3000, 30, 2995, RTM_TIMER_SLEEPER,
			   RTM_CTX_HARDIRQ);
	rtm_ev_waking(c, 0, 3001, RTM_CTX_HARDIRQ, 0, 30, 30, app);
	rtm_ev_timer_exit(c, 0, 3002, 0, RTM_CTX_HARDIRQ);
	rtm_ev_switch(c, 0, 3010, 0, 0, 30, 30, app, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.timer_kind == RTM_TIMER_SLEEPER && r.source == 30);
	/* an expiry whose exit never came is forgotten at the next entry */
	rtm_ev_timer_entry(c, 0, 4000, 0, 3990, RTM_TIMER_OTHER,
			   RTM_CTX_HARDIRQ);
	rtm_ev_timer_entry(c, 0, 4100, 0, 4090, RTM_TIMER_OTHER,
			   RTM_CTX_HARDIRQ);
	rtm_ev_waking(c, 0, 4101, RTM_CTX_HARDIRQ, 0, 30, 30, app);
	rtm_ev_timer_exit(c, 0, 4102, 0, RTM_CTX_HARDIRQ);
	rtm_ev_switch(c, 0, 4110, 0, 0, 30, 30, app, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.timer_kind == RTM_TIMER_OTHER && r.start_ns == 4090);
	rtm_core_stats(c, &s);
	CHECK(s.chains_started == 4 && s.chains_completed == 4);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

/* An IRQ 9 chain to task pid/name ending at its switch_in: records read. */
static int irq9_chain(struct rtm_core *c, unsigned long long ts,
		      unsigned int pid, const char *name, struct rtm_record *r)
{
	char cm[16];

	comm(cm, name);
	irq_wake(c, 0, ts, 9, pid, name);
	rtm_ev_switch(c, 1, ts + 100, 0, 0, pid, pid, cm, NULL);
	return unit_drain(c, 2, r);
}

/*
 * All RTM_MAX_TARGETS targets in use: a task is matched through the comm
 * index (rtm_tset.cidx), which must give what comparing every target
 * gives: the first target by id whose comm, pid and source match, a
 * target with no comm filter for any comm, nothing for a comm no target
 * has. Two comms hash to the index's last slot, so the second wraps to
 * the first; clearing a target rebuilds the index.
 */
static void t_many_targets(void)
{
	struct rtm_core *c = mk_default(2);
	struct rtm_target_spec t;
	struct rtm_record r;
	char names[RTM_MAX_TARGETS][16], cm[16];
	unsigned int i, n = 0, k;
	__u64 w[2];

	begin("many_targets_comm_index");
	/* ids 0 and 1: comms of the last slot */
	for (k = 0; n < 2 && k < 100000; k++) {
		snprintf(names[n], 16, "w%u", k);
		comm(cm, names[n]);
		memcpy(w, cm, sizeof(w));
		if (rtm_cidx_hash(w) == RTM_CIDX_SLOTS - 1)
			n++;
	}
	CHECK(n == 2);
	for (i = 2; i < RTM_MAX_TARGETS; i++)
		snprintf(names[i], 16, "t%u", i);
	strcpy(names[5], "dup");
	strcpy(names[30], "dup");
	for (i = 0; i < RTM_MAX_TARGETS - 1; i++) {
		t = spec(names[i], RTM_SRC_IRQ, 9, RTM_END_SWITCH_IN, 0);
		if (i == 5)
			t.pid = 999;	/* "dup" of pid 999 only */
		CHECK(rtm_core_set_target(c, i, &t) == 0);
	}
	t = spec(NULL, RTM_SRC_IRQ, 9, RTM_END_SWITCH_IN, 0);
	t.pid = 4242;			/* no comm filter */
	CHECK(rtm_core_set_target(c, 31, &t) == 0);

	CHECK(irq9_chain(c, 1000, 200, names[1], &r) == 1 && r.target_id == 1);
	CHECK(irq9_chain(c, 2000, 200, names[0], &r) == 1 && r.target_id == 0);
	CHECK(irq9_chain(c, 3000, 200, "t17", &r) == 1 && r.target_id == 17);
	CHECK(irq9_chain(c, 4000, 200, "dup", &r) == 1 && r.target_id == 30);
	CHECK(irq9_chain(c, 5000, 999, "dup", &r) == 1 && r.target_id == 5);
	CHECK(irq9_chain(c, 6000, 4242, "zzz", &r) == 1 && r.target_id == 31);
	CHECK(irq9_chain(c, 7000, 4242, "t17", &r) == 1 && r.target_id == 17);
	CHECK(irq9_chain(c, 8000, 201, "absent", &r) == 0);
	CHECK(irq9_chain(c, 9000, 201, "t1", &r) == 0);	/* no target t1 */
	/* the wrapped comm after its slot's owner is gone */
	CHECK(rtm_core_clear_target(c, 0) == 0);
	CHECK(irq9_chain(c, 10000, 200, names[1], &r) == 1 && r.target_id == 1);
	CHECK(irq9_chain(c, 11000, 200, names[0], &r) == 0);
	CHECK(rtm_core_clear_target(c, 30) == 0);
	CHECK(irq9_chain(c, 12000, 200, "dup", &r) == 0);
	CHECK(irq9_chain(c, 13000, 999, "dup", &r) == 1 && r.target_id == 5);
	/* a comm in the index whose targets refuse the task: no filter's */
	CHECK(irq9_chain(c, 14000, 4242, "dup", &r) == 1 && r.target_id == 31);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

/*
 * The task table's counters per key fingerprint (rtm_htab.c): a present
 * key is always "maybe", an absent key whose counter is 0 is not even in
 * a used bucket, a full bucket refuses an 8th key and leaves the counters
 * as they were, and every way of removing a key gives its count back.
 */
static void t_htab_counters(void)
{
	static struct rtm_htab_bucket b[16] __attribute__((aligned(64)));
	struct rtm_htab h;
	__u32 keys[RTM_HT_WAYS], absent = 0, k, n = 0, i, old, one[4] = { 0 };
	__u64 occ, want = 0;

	begin("htab_fingerprint_counters");
	rtm_htab_init(&h, b, 16);
	/* one key of bucket 5 per counter: each counts in its own 16 bits */
	for (k = 1, n = 0; k < 1000000 && n < 4; k++)
		if (rtm_hash32(k, h.shift) == 5 && !one[rtm_htab_fp(k)]) {
			one[rtm_htab_fp(k)] = k;
			n++;
		}
	CHECK(n == 4);
	for (i = 0; i < 4; i++) {
		CHECK(rtm_htab_insert(&h, one[i], 10 + i) == 0);
		want += 1ull << (16 * i);
		CHECK(rtm_ld64(&b[5].occ) == want && rtm_ld32(&h.live) == i + 1);
	}
	for (i = 0; i < 4; i++)
		CHECK(rtm_htab_maybe(&h, one[i]));
	for (i = 0; i < 4; i++) {
		CHECK(rtm_htab_take(&h, one[i]) == 10 + i);
		want -= 1ull << (16 * i);
		CHECK(rtm_ld64(&b[5].occ) == want && !rtm_htab_maybe(&h, one[i]));
	}
	n = 0;
	/* 7 keys of bucket 3, and a key of bucket 3 no counter of theirs has */
	for (k = 1; k < 1000000 && (n < RTM_HT_WAYS || !absent); k++) {
		if (rtm_hash32(k, h.shift) != 3)
			continue;
		if (n < RTM_HT_WAYS && (n < 2 || rtm_htab_fp(k) == rtm_htab_fp(keys[0])))
			keys[n++] = k;
		else if (n == RTM_HT_WAYS && rtm_htab_fp(k) != rtm_htab_fp(keys[0]) &&
			 rtm_htab_fp(k) != rtm_htab_fp(keys[1]))
			absent = k;
	}
	CHECK(n == RTM_HT_WAYS && absent);
	for (i = 0; i < n; i++)
		CHECK(rtm_htab_insert(&h, keys[i], 100 + i) == 0);
	for (i = 0; i < n; i++)
		CHECK(rtm_htab_maybe(&h, keys[i]));
	CHECK(!rtm_htab_maybe(&h, absent));
	occ = rtm_ld64(&b[3].occ);
	CHECK(rtm_htab_insert(&h, absent, 200) == -1);	/* bucket full */
	CHECK(rtm_htab_put(&h, absent, 200, &old) == -1);
	CHECK(rtm_ld64(&b[3].occ) == occ && !rtm_htab_maybe(&h, absent));
	CHECK(rtm_htab_count_used(&h) == n && rtm_ld32(&h.live) == n);
	/* put of a present key hands its branch back, count returned */
	CHECK(rtm_htab_put(&h, keys[1], 300, &old) == 1 && old == 101);
	CHECK(rtm_htab_count_used(&h) == n - 1);
	CHECK(rtm_htab_take(&h, keys[0]) == 100);
	CHECK(rtm_htab_take(&h, keys[0]) == 0);
	/* the tick's removal by word */
	for (i = 0; i < RTM_HT_WAYS; i++) {
		__u64 v = rtm_htab_peek(&h, 3, i);

		if (v && (__u32)(v >> 32) == keys[2])
			CHECK(rtm_htab_take_word(&h, 3, i, v));
	}
	/* keys 3..6 are left, all under keys[0]'s counter */
	CHECK(rtm_ld64(&b[3].occ) == 4ull << (16 * rtm_htab_fp(keys[0])));
	for (i = 3; i < n; i++)
		CHECK(rtm_htab_take(&h, keys[i]) == 100 + i);
	CHECK(rtm_ld64(&b[3].occ) == 0 && rtm_htab_count_used(&h) == 0);
	CHECK(rtm_ld32(&h.live) == 0);
	for (i = 0; i < n; i++)
		CHECK(!rtm_htab_maybe(&h, keys[i]));
	/* a live count out of step is a leak to the quiescent check */
	rtm_st32(&h.live, 1);
	CHECK(rtm_htab_count_used(&h) == 1);
	rtm_st32(&h.live, 0);
	end();
}

/* IRQ 9 on cpu 0 at t wakes app (pid 50) 100 ns later, exits at t + 200 */
static void irq9_wakes_app(struct rtm_core *c, unsigned long long t,
			   const char *app)
{
	rtm_ev_irq_entry(c, 0, t, 9);
	rtm_ev_waking(c, 0, t + 100, RTM_CTX_HARDIRQ, 0, 50, 50, app);
	rtm_ev_irq_exit(c, 0, t + 200, 9, 0, 0);
}

/*
 * record.blame: IRQ 9 on cpu0 wakes app (pid 50); a hog (pid 60, rt 80)
 * holds cpu1 until app runs there, app runs, is preempted by a second
 * hog (pid 61), runs again and blocks: each interval in its category, the
 * hogs named as the tasks app waited behind, the parts adding up to the
 * latency. A second chain still open at the tick is reported (TIMEOUT,
 * its root hop only): its time is unknown until its completion record.
 */
static void t_blame(void)
{
	struct rtm_core *c = mk_default(2);
	struct rtm_switch_who w = { 120, 120, NULL };
	struct rtm_record r;
	char app[16], hog[16], hog2[16];
	unsigned long long sum = 0;
	unsigned int i;

	begin("blame_adds_up_and_names_the_hogs");
	comm(app, "app");
	comm(hog, "hog");
	comm(hog2, "hog2");
	CHECK(target(c, 0, "app", RTM_SRC_IRQ, 9, RTM_END_BLOCK, 1000000) == 0);
	irq9_wakes_app(c, 1000, app);
	/* cpu1: hog (prio 19: rt 80) switched out for app after 5000 */
	w.prev_prio = 19;
	w.prev_comm = hog;
	rtm_ev_switch(c, 1, 6100, 60, 0, 50, 50, app, &w);	/* runnable 5000 */
	/* app runs 300, preempted by hog2 (prio 9: rt 90) for 2000 */
	w.prev_prio = 120;
	w.next_prio = 9;
	w.prev_comm = app;
	rtm_ev_switch(c, 1, 6400, 50, 0, 61, 61, hog2, &w);	/* running 300 */
	w.prev_prio = 9;
	w.next_prio = 120;
	w.prev_comm = hog2;
	rtm_ev_switch(c, 1, 8400, 61, 0, 50, 50, app, &w);	/* preempted 2000 */
	rtm_ev_switch(c, 1, 8900, 50, 1, 0, 0, NULL, NULL);	/* running 500 */
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.latency_ns == 7900);
	for (i = 0; i < RTM_BLAME_NR; i++)
		sum += r.blame.ns[i];
	CHECK(sum == r.latency_ns);
	CHECK(r.blame.ns[RTM_BLAME_HANDLER] == 100);
	CHECK(r.blame.ns[RTM_BLAME_RUNNABLE] == 5000);
	CHECK(r.blame.ns[RTM_BLAME_RUNNING] == 800);
	CHECK(r.blame.ns[RTM_BLAME_PREEMPTED] == 2000);
	CHECK(r.blame.culprit[0].pid == 60 && r.blame.culprit[0].ns == 5000 &&
	      r.blame.culprit[0].category == RTM_BLAME_RUNNABLE &&
	      r.blame.culprit[0].prio == 19 &&
	      !strcmp((char *)r.blame.culprit[0].comm, "hog"));
	CHECK(r.blame.culprit[1].pid == 61 && r.blame.culprit[1].ns == 2000 &&
	      r.blame.culprit[1].category == RTM_BLAME_PREEMPTED &&
	      r.blame.culprit[1].prio == 9 &&
	      !strcmp((char *)r.blame.culprit[1].comm, "hog2"));
	CHECK(!r.blame.culprit[2].pid && !r.blame.culprit_other_ns);
	end();

	/*
	 * app waits 700 ns for a PREEMPT_RT sleeping lock mid-chain: blocked,
	 * not preempted (no task is charged), and its chain goes on
	 */
	begin("blame_of_an_rtlock_wait_is_blocked");
	irq9_wakes_app(c, 20000, app);
	w.prev_prio = 120;
	w.next_prio = 120;
	w.prev_comm = NULL;
	rtm_ev_switch(c, 1, 21000, 0, 0, 50, 50, app, &w);	/* runnable 900 */
	w.prev_comm = app;
	rtm_ev_switch(c, 1, 21300, 50, RTM_SWITCH_LOCK_WAIT, 70, 70, hog2,
		      &w);					/* running 300 */
	w.prev_comm = hog2;
	rtm_ev_switch(c, 1, 22000, 70, 1, 50, 50, app, &w);	/* blocked 700 */
	rtm_ev_switch(c, 1, 22100, 50, 1, 0, 0, NULL, NULL);	/* running 100 */
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.latency_ns == 2100);
	CHECK(r.blame.ns[RTM_BLAME_BLOCKED] == 700);
	CHECK(r.blame.ns[RTM_BLAME_PREEMPTED] == 0);
	CHECK(r.blame.ns[RTM_BLAME_RUNNING] == 400);
	CHECK(!r.blame.culprit[0].pid);
	end();

	/*
	 * app preempted 40 times before it blocks: the first preemptions
	 * get hop pairs; past RTM_PREEMPT_HOPS_NUM/DEN of the chain's 32
	 * slots they are folded into the block's hop, so the record keeps
	 * its end (no dropped hops) and every preempted ns.
	 */
	begin("blame_folds_preemptions_past_the_hop_budget");
	comm(hog, "hog3");
	irq9_wakes_app(c, 200000, app);
	w.prev_prio = 120;
	w.prev_comm = NULL;
	rtm_ev_switch(c, 1, 201000, 0, 0, 50, 50, app, &w);	/* runnable 900 */
	{
		unsigned long long t = 201000, pre = 0, by2 = 0;

		for (i = 0; i < 40; i++) {
			int three = i % 4 == 3;
			unsigned int d = three ? 200 : 100;

			t += 50;	/* running 50 */
			w.prev_prio = 120;
			w.next_prio = three ? 5 : 9;
			w.prev_comm = app;
			rtm_ev_switch(c, 1, t, 50, 0, three ? 62 : 61, 0,
				      three ? hog : hog2, &w);
			t += d;
			w.prev_prio = w.next_prio;
			w.next_prio = 120;
			w.prev_comm = three ? hog : hog2;
			rtm_ev_switch(c, 1, t, three ? 62 : 61, 0, 50, 50,
				      app, &w);
			pre += d;
			by2 += three ? 0 : d;
		}
		t += 50;
		rtm_ev_switch(c, 1, t, 50, 1, 0, 0, NULL, NULL);
		CHECK(unit_drain(c, 2, &r) == 1);
		CHECK(!(r.flags & RTM_REC_F_DROPPED_HOPS));
		CHECK(r.path_len <= 32 &&
		      r.hops[r.nhops - 1].type == RTM_HOP_BLOCK);
		sum = 0;
		for (i = 0; i < RTM_BLAME_NR; i++)
			sum += r.blame.ns[i];
		CHECK(sum == r.latency_ns && r.latency_ns == t - 200000);
		CHECK(r.blame.ns[RTM_BLAME_PREEMPTED] == pre);
		CHECK(r.blame.ns[RTM_BLAME_RUNNING] == 41 * 50);
		CHECK(r.blame.ns[RTM_BLAME_RUNNABLE] == 900);
		/* hog2 held 3/4 of the folded part: named within 1/65536 */
		CHECK(r.blame.culprit[0].pid == 61 &&
		      r.blame.culprit[0].category == RTM_BLAME_PREEMPTED &&
		      r.blame.culprit[0].ns <= by2 &&
		      r.blame.culprit[0].ns + 1 >= by2 &&
		      !strcmp((char *)r.blame.culprit[0].comm, "hog2"));
		printf("# folded: path %u hops, preempted %llu ns, hog2 %llu of %llu ns\n",
		       r.path_len, (unsigned long long)r.blame.ns[RTM_BLAME_PREEMPTED],
		       (unsigned long long)r.blame.culprit[0].ns, by2);
	}
	end();

	/*
	 * app preempted 20 times and waiting for an rtlock 20 times, in
	 * turn: past the hop budget both are folded, the waits as blocked
	 * (to 1/256 of the folded part), the sums exact
	 */
	begin("blame_folds_waits_as_blocked");
	irq9_wakes_app(c, 300000, app);
	w.prev_prio = 120;
	w.next_prio = 9;
	w.prev_comm = NULL;
	rtm_ev_switch(c, 1, 301000, 0, 0, 50, 50, app, &w);
	{
		unsigned long long t = 301000, pre = 0, blk = 0, all;

		for (i = 0; i < 40; i++) {
			unsigned int d = i & 1 ? 200 : 100;

			t += 50;
			w.prev_comm = app;
			rtm_ev_switch(c, 1, t, 50, i & 1 ? RTM_SWITCH_LOCK_WAIT : 0,
				      61, 0, hog2, &w);
			t += d;
			w.prev_comm = hog2;
			rtm_ev_switch(c, 1, t, 61, 0, 50, 50, app, &w);
			if (i & 1)
				blk += d;
			else
				pre += d;
		}
		t += 50;
		rtm_ev_switch(c, 1, t, 50, 1, 0, 0, NULL, NULL);
		CHECK(unit_drain(c, 2, &r) == 1);
		CHECK(!(r.flags & RTM_REC_F_DROPPED_HOPS));
		CHECK(r.hops[r.nhops - 1].type == RTM_HOP_BLOCK);
		sum = 0;
		for (i = 0; i < RTM_BLAME_NR; i++)
			sum += r.blame.ns[i];
		all = r.blame.ns[RTM_BLAME_BLOCKED] + r.blame.ns[RTM_BLAME_PREEMPTED];
		CHECK(sum == r.latency_ns && all == pre + blk);
		CHECK(r.blame.ns[RTM_BLAME_RUNNING] == 41 * 50);
		CHECK(r.blame.ns[RTM_BLAME_BLOCKED] <= blk &&
		      r.blame.ns[RTM_BLAME_BLOCKED] + all / 256 + 1 >= blk);
		printf("# folded waits: path %u hops, blocked %llu of %llu ns, preempted %llu of %llu ns\n",
		       r.path_len, (unsigned long long)r.blame.ns[RTM_BLAME_BLOCKED], blk,
		       (unsigned long long)r.blame.ns[RTM_BLAME_PREEMPTED], pre);
	}
	end();

	begin("blame_of_a_timeout_is_unknown");
	irq9_wakes_app(c, 100000, app);
	rtm_ev_tick(c, 0, 100000 + 1000000 + 500);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.flags & RTM_REC_F_TIMEOUT);
	sum = 0;
	for (i = 0; i < RTM_BLAME_NR; i++)
		sum += r.blame.ns[i];
	CHECK(sum == r.latency_ns);
	CHECK(r.blame.ns[RTM_BLAME_UNKNOWN] == r.latency_ns);
	end();
}

int main(void)
{
	t_params();
	t_targets();
	t_no_targets_no_cost();
	t_runtime_target_change();
	t_armed_slot();
	t_quiescent_detects_open();
	t_task_bucket_full();
	t_cookie_scope();
	t_blame_queued();
	t_blame_queued_last_slot();
	t_ring_wrap();
	t_ring_peek();
	t_expire_all();
	t_hook();
	t_misses_only_numbering();
	t_misses_only_reuse();
	t_tick_steps();
	t_tick_skip_budget();
	t_hook_ring_full();
	t_hook_ring_full_nested();
	t_soft_timer_slot();
	t_timer_kinds();
	t_many_targets();
	t_htab_counters();
	t_blame();
	free(mem);
	return failed;
}

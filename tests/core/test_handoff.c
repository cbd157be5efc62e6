// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The handoff rendezvous across cpus (kmod/core/rtm_handoff.c): an IRQ
 * thread's pass on cpu0 that ends having woken nothing (its task was
 * awake), and the task on cpu1 that takes the item up (work_begin with no
 * chain) and ends it (work_end). The two sides run at nearly the same
 * time; each interleaving is made here by running one cpu's whole event
 * inside a test point of the other cpu's event (RTM_TEST_POINT). Every
 * case must give the one record a sequential run gives: cookie 1, the
 * interrupt's start, the work_end's time, and no chain left open.
 *
 * Found in CI (gpio-loopback on the debug kernel, one chain of 1000 lost)
 * and replayed here: A, a work_end while the pass adopting its item owns
 * it; B, each side finding the other's table empty before publishing its
 * own; C, the tick holding the parked pass while the work_begin looks.
 * One "PASS: name" or "FAIL: name: reason" line per case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtm_core.h"
#include "rtm_internal.h"
#define UNIT_PREFIX "handoff_"
#include "unit.h"

void (*rtm_test_before_emit)(struct rtm_core *c, u32 cpu);
void (*rtm_test_point)(struct rtm_core *c, u32 cpu, int id);

#define IRQ	28
#define THR	176		/* irq/28, FIFO 50, cpu0 */
#define RESP	170		/* the responder, FIFO 80, cpu1 */
#define MS	1000000ull

static char thr_comm[16] = "irq/28-rtmon-re", resp_comm[16] = "rtmon-gpio-resp";
/* the responder's target: IRQ 28, ends at work_end, 5 ms */
static struct rtm_core *mk_handoff(void)
{
	struct rtm_params p;
	struct rtm_target_spec t;
	struct rtm_core *c;

	rtm_params_default(&p, 2);
	p.max_age_ns = 10000 * MS;	/* the module's default */
	c = mk(&p);
	memset(&t, 0, sizeof(t));
	strcpy(t.comm, resp_comm);
	t.src = RTM_SRC_IRQ;
	t.irq = IRQ;
	t.end = RTM_END_WORK_END;
	t.deadline_ns = 5 * MS;
	if (!c || rtm_core_set_target(c, 0, &t)) {
		fprintf(stderr, "test_handoff: core setup failed\n");
		exit(2);
	}
	return c;
}

/* IRQ 28 on cpu0 at ts; its thread woken and switched in on cpu0 */
static void edge(struct rtm_core *c, u64 ts)
{
	rtm_ev_irq_entry(c, 0, ts, IRQ);
	rtm_ev_irq_exit(c, 0, ts + 100, IRQ, 1, THR);
	rtm_ev_waking(c, 0, ts + 200, RTM_CTX_HARDIRQ, 0, THR, THR, thr_comm);
	rtm_ev_switch(c, 0, ts + 300, 0, 0, THR, THR, thr_comm, NULL);
}

/* the pass blocks (S) having woken nothing */
static void pass_blocks(struct rtm_core *c, u64 ts)
{
	rtm_ev_switch(c, 0, ts, THR, 1, 0, 0, "swapper/0", NULL);
}

static void work_begin(struct rtm_core *c, u64 ts, u64 cookie)
{
	rtm_ev_work_begin(c, 1, ts, RESP, RESP, cookie, resp_comm);
}

static void work_end(struct rtm_core *c, u64 ts, u64 cookie)
{
	rtm_ev_work_end(c, 1, ts, RESP, RESP, cookie, resp_comm);
}

/* ---- one nested event, run at one test point ---- */
static int armed_id;
static void (*armed_fn)(struct rtm_core *c);
static int fired;

static void point(struct rtm_core *c, u32 cpu, int id)
{
	void (*fn)(struct rtm_core *c) = armed_fn;

	(void)cpu;
	if (id != armed_id || !fn)
		return;
	armed_fn = NULL;	/* once */
	fired++;
	fn(c);
}

static void arm(int id, void (*fn)(struct rtm_core *c))
{
	armed_id = id;
	armed_fn = fn;
	fired = 0;
}

static void nested_end_1450(struct rtm_core *c) { work_end(c, 1450, 1); }
static void nested_block_1420(struct rtm_core *c) { pass_blocks(c, 1420); }
static void nested_begin_1420(struct rtm_core *c) { work_begin(c, 1420, 1); }
static void nested_begin_1500(struct rtm_core *c) { work_begin(c, 1500, 1); }

static int tick_pairs;	/* the case leaves the pairing to the tick */

/*
 * The record of item cookie (the only one): the interrupt's start at
 * start, the work_end's time end; counters: completed, one handoff, no
 * item untraced, nothing left open or waiting.
 */
static void check_one(struct rtm_core *c, u64 cookie, u64 start, u64 endt)
{
	struct rtm_record r, x;
	struct rtm_stats s;
	int n = 0;
	unsigned int k;

	/* paired at once, not by the tick below */
	if (!tick_pairs) {
		rtm_core_stats(c, &s);
		CHECK(s.work_handoff == 1);
		CHECK(rtm_ld32(&c->handoff_used) == 0 &&
		      rtm_ld32(&c->waitwork_used) == 0);
	}
	/* the tick that would pair what the rendezvous left apart */
	rtm_ev_tick(c, 0, start + 20 * MS);
	for (k = 0; k < 2; k++)
		while (rtm_core_read(c, k, &x)) {
			if (x.flags & RTM_REC_F_TIMEOUT)
				continue;
			r = x;
			n++;
		}
	CHECK(n == 1);
	if (n != 1)
		return;
	CHECK((r.flags & RTM_REC_F_COOKIE) && r.cookie == cookie);
	CHECK(r.start_ns == start && r.end_ns == endt);
	CHECK(r.nhops >= 2 && r.hops[r.nhops - 1].type == RTM_HOP_WORK_END);
	rtm_core_stats(c, &s);
	CHECK(s.chains_completed == 1 && s.chains_expired == 0);
	CHECK(s.work_handoff == 1 && s.work_untraced == 0);
	CHECK(rtm_ld32(&c->handoff_used) == 0 && rtm_ld32(&c->waitwork_used) == 0);
	CHECK(rtm_core_check_quiescent(c) == 0);
}

/* control: begin before the block (the pass adopts), and after (takes) */
static void t_sequential(void)
{
	struct rtm_core *c;

	begin("sequential_adopt");
	c = mk_handoff();
	edge(c, 1000);
	work_begin(c, 1400, 1);
	pass_blocks(c, 1500);
	work_end(c, 1600, 1);
	check_one(c, 1, 1000, 1600);
	end();

	begin("sequential_take");
	c = mk_handoff();
	edge(c, 1000);
	pass_blocks(c, 1400);
	work_begin(c, 1500, 1);
	work_end(c, 1600, 1);
	check_one(c, 1, 1000, 1600);
	end();

	begin("sequential_ended_first");
	c = mk_handoff();
	edge(c, 1000);
	work_begin(c, 1400, 1);
	work_end(c, 1450, 1);
	pass_blocks(c, 1500);
	check_one(c, 1, 1000, 1450);
	end();
}

/*
 * A: the work_end on cpu1 while the pass on cpu0 adopts its item: once
 * the pass owns the item (before, the end found the slot owned and the
 * cookie table empty: dropped, and the chain stayed open until max_age),
 * and once its cookie branch is in the table (the work_end completes it;
 * the pass must not complete it twice).
 */
static void t_adopt_vs_end(void)
{
	static const struct { const char *name; int id; } at[] = {
		{ "A_end_while_adopt_owns", RTM_TP_ADOPT_OWNED },
		{ "A_end_after_cookie_branch", RTM_TP_ADOPT_INSERTED },
	};
	struct rtm_core *c;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		begin(at[i].name);
		c = mk_handoff();
		edge(c, 1000);
		work_begin(c, 1400, 1);		/* no chain, nothing parked: waits */
		arm(at[i].id, nested_end_1450);
		pass_blocks(c, 1500);		/* adopts */
		CHECK(fired == 1);
		check_one(c, 1, 1000, 1450);
		end();
	}
}

/*
 * B: each side looked before the other published. The work_begin found
 * nothing parked, then the pass blocked (found no item, parked) before
 * the item was added: the work_begin's look after adding finds the pass.
 * And the other way: the pass found no item, then the work_begin ran
 * (found nothing parked, added its item) before the pass parked: the
 * pass's look after parking finds the item.
 */
static void t_dekker(void)
{
	/*
	 * begin_outside: the work_begin at 1400 is the outer event and the
	 * pass blocks at 1420 inside it; else the pass blocks at 1400 and
	 * the work_begin at 1420 runs inside
	 */
	static const struct {
		const char *name;
		int id;
		int begin_outside;
	} at[] = {
		{ "B_pass_parks_between_begin_look_and_publish",
		  RTM_TP_BEGIN_LOOKED, 1 },
		{ "B_begin_publishes_between_pass_look_and_park",
		  RTM_TP_PASS_LOOKED, 0 },
		/* both published, each looks in the other's window */
		{ "B_begin_inside_pass_parked_window", RTM_TP_PASS_PARKED, 0 },
		{ "B_pass_inside_begin_published_window",
		  RTM_TP_BEGIN_PUBLISHED, 1 },
	};
	struct rtm_core *c;
	unsigned int i;

	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		begin(at[i].name);
		c = mk_handoff();
		edge(c, 1000);
		if (at[i].begin_outside) {
			arm(at[i].id, nested_block_1420);
			work_begin(c, 1400, 1);
		} else {
			arm(at[i].id, nested_begin_1420);
			pass_blocks(c, 1400);
		}
		CHECK(fired == 1);
		work_end(c, 1600, 1);
		check_one(c, 1, 1000, 1600);
		end();
	}
}

/*
 * C: the tick while a pass is parked and no item waits leaves the live
 * pass in its slot (it took every parked branch out and put the live ones
 * back: a work_begin meanwhile found nothing).
 */
static void t_tick(void)
{
	struct rtm_core *c;

	begin("C_tick_keeps_live_pass_parked");
	c = mk_handoff();
	edge(c, 1000);
	pass_blocks(c, 1400);
	CHECK(rtm_ld32(&c->handoff_used) == 1);
	arm(RTM_TP_TICK_TAKEN, nested_begin_1500);
	rtm_ev_tick(c, 0, 1450);
	CHECK(fired == 0);		/* never taken out */
	CHECK(rtm_ld32(&c->handoff_used) == 1);
	arm(0, NULL);
	work_begin(c, 1500, 1);
	work_end(c, 1600, 1);
	check_one(c, 1, 1000, 1600);
	end();
}

/*
 * The tick pairs a pass and an item left apart (each side's look found
 * the other's entry held for a moment elsewhere), at the item's own
 * times: begun (its work_end completes it) or already ended.
 */
static void t_tick_pairs(void)
{
	struct rtm_core *c;
	struct rtm_stats s;

	tick_pairs = 1;
	begin("tick_pairs_left_apart_begun");
	c = mk_handoff();
	edge(c, 1000);
	pass_blocks(c, 1400);		/* parked */
	/* the item a work_begin published whose look missed the pass */
	CHECK(rtm_waitwork_add(c, 1, 1500, RESP, RESP, 1, resp_comm) != NULL);
	rtm_ev_tick(c, 0, 10 * MS);
	rtm_core_stats(c, &s);
	CHECK(s.work_handoff == 1 && rtm_ld32(&c->waitwork_used) == 0);
	work_end(c, 11 * MS, 1);
	check_one(c, 1, 1000, 11 * MS);
	end();

	begin("tick_pairs_left_apart_ended");
	c = mk_handoff();
	edge(c, 1000);
	pass_blocks(c, 1400);
	CHECK(rtm_waitwork_add(c, 1, 1500, RESP, RESP, 1, resp_comm) != NULL);
	work_end(c, 1600, 1);		/* waits ended */
	check_one(c, 1, 1000, 1600);	/* its tick pairs and completes */
	end();
	tick_pairs = 0;
}

/*
 * The work_begin's own item, while it looks after publishing, is adopted
 * by its pass, and its slot refilled by another task's item; a later pass
 * is parked. The look must not claim the other task's item as its own
 * (it would free it and take the pass for an item that has one).
 */
static void nested_adopt_refill_park(struct rtm_core *c)
{
	pass_blocks(c, 1420);			/* adopts item 1 */
	rtm_ev_work_begin(c, 1, 1425, RESP + 1, RESP + 1, 2, resp_comm);
	edge(c, 1430);				/* the next edge */
	pass_blocks(c, 1800);			/* item 2 predates it: parks */
}

static void t_own_slot_reused(void)
{
	struct rtm_core *c;
	struct rtm_record r;
	int n = 0;
	unsigned int k;

	begin("own_item_slot_reused_before_look");
	c = mk_handoff();
	edge(c, 1000);
	arm(RTM_TP_BEGIN_PUBLISHED, nested_adopt_refill_park);
	work_begin(c, 1400, 1);
	CHECK(fired == 1);
	/* the other task's item still waits, the later pass still parked */
	CHECK(rtm_ld32(&c->waitwork_used) == 1 && rtm_ld32(&c->handoff_used) == 1);
	CHECK(rtm_ld32(&c->waitwork[0].tgid) == RESP + 1);
	work_end(c, 1600, 1);
	for (k = 0; k < 2; k++)
		while (rtm_core_read(c, k, &r))
			if (!(r.flags & RTM_REC_F_TIMEOUT)) {
				n++;
				CHECK(r.cookie == 1 && r.start_ns == 1000 &&
				      r.end_ns == 1600);
			}
	CHECK(n == 1);
	end();
}

/*
 * Edges in a row, each item begun at another point of its pass's end:
 * every item has its own record with its own interrupt's start (a pass
 * left parked used to be taken by the next edge's item: a wrong start).
 */
static u64 row_ts, row_cookie;

static void row_begin(struct rtm_core *c) { work_begin(c, row_ts, row_cookie); }
static void row_block(struct rtm_core *c) { pass_blocks(c, row_ts); }
static void row_end(struct rtm_core *c) { work_end(c, row_ts, row_cookie); }

static void t_in_a_row(void)
{
	static const int ids[] = {
		0, RTM_TP_PASS_LOOKED, RTM_TP_PASS_PARKED, RTM_TP_BEGIN_LOOKED,
		RTM_TP_BEGIN_PUBLISHED, RTM_TP_ADOPT_OWNED,
	};
	struct rtm_core *c;
	struct rtm_record r;
	struct rtm_stats s;
	unsigned int i, k, n = 0, bad = 0;
	u64 t0;

	begin("edges_in_a_row");
	c = mk_handoff();
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		t0 = (u64)(i + 1) * 6 * MS;
		row_cookie = i + 1;
		edge(c, t0);
		switch (ids[i]) {
		case RTM_TP_PASS_LOOKED:
		case RTM_TP_PASS_PARKED:	/* the begin inside the block */
			row_ts = t0 + 420;
			arm(ids[i], row_begin);
			pass_blocks(c, t0 + 400);
			break;
		case RTM_TP_BEGIN_LOOKED:
		case RTM_TP_BEGIN_PUBLISHED:	/* the block inside the begin */
			row_ts = t0 + 420;
			arm(ids[i], row_block);
			work_begin(c, t0 + 400, row_cookie);
			break;
		case RTM_TP_ADOPT_OWNED:	/* the end inside the adopt */
			work_begin(c, t0 + 400, row_cookie);
			row_ts = t0 + 450;
			arm(ids[i], row_end);
			pass_blocks(c, t0 + 500);
			break;
		default:
			arm(0, NULL);
			work_begin(c, t0 + 400, row_cookie);
			pass_blocks(c, t0 + 500);
		}
		CHECK(!ids[i] || fired == 1);
		if (ids[i] != RTM_TP_ADOPT_OWNED)
			work_end(c, t0 + 900, row_cookie);
		rtm_ev_tick(c, 0, t0 + 2 * MS);
		for (k = 0; k < 2; k++)
			while (rtm_core_read(c, k, &r)) {
				if (r.flags & RTM_REC_F_TIMEOUT)
					continue;
				n++;
				bad += r.start_ns != t0 || r.cookie != row_cookie;
			}
	}
	rtm_core_stats(c, &s);
	CHECK(n == i && bad == 0);
	CHECK(s.chains_completed == i && s.work_untraced == 0);
	CHECK(rtm_ld32(&c->handoff_used) == 0 && rtm_ld32(&c->waitwork_used) == 0);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

/*
 * One process cannot take every waiting-item slot (a member of the
 * device's group naming its thread as a target's task could): one item
 * past RTM_NWAITWORK_TGID waiting at once is not kept, another process's
 * still is.
 */
static void t_waitwork_per_process(void)
{
	struct rtm_core *c;
	u64 k;

	begin("waitwork_slots_bounded_per_process");
	c = mk_handoff();
	for (k = 0; k < RTM_NWAITWORK_TGID; k++)
		CHECK(rtm_waitwork_add(c, 1, 1500 + k, RESP, RESP, 10 + k,
				       resp_comm) != NULL);
	CHECK(rtm_waitwork_add(c, 1, 1600, RESP, RESP, 99, resp_comm) == NULL);
	CHECK(rtm_waitwork_add(c, 1, 1600, RESP + 1, RESP + 1, 99,
			       resp_comm) != NULL);
	CHECK(rtm_ld32(&c->waitwork_used) == RTM_NWAITWORK_TGID + 1);
	end();
}

int main(void)
{
	rtm_test_point = point;
	t_sequential();
	t_adopt_vs_end();
	t_dekker();
	t_tick();
	t_tick_pairs();
	t_own_slot_reused();
	t_in_a_row();
	t_waitwork_per_process();
	free(mem);
	return failed;
}

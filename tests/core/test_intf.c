// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Interference (rtm_intf.c): hard IRQs and softirqs that run on the cpu
 * of a chain's running task or softirq are taken out of the interval they
 * fell in, into irq_interference and softirq_interference; the parts
 * still add up to the latency. One "PASS: intf_name" or "FAIL: ..." line
 * per case; exit 1 if any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtm_core.h"
#define UNIT_PREFIX "intf_"
#include "unit.h"

#define IRQ	9
#define APP	50
#define NET_RX	3
#define TASKLET	6

static char c_app[RTM_COMM_LEN];

#define IRQ2	30	/* a second chain's IRQ, raising NET_RX for app2 */

static char c_app2[RTM_COMM_LEN];

static struct rtm_core *setup(unsigned int end)
{
	struct rtm_target_spec t;
	struct rtm_params p;
	struct rtm_core *c;

	rtm_params_default(&p, 2);
	c = mk(&p);
	memset(&t, 0, sizeof(t));
	memset(c_app, 0, sizeof(c_app));
	strcpy(c_app, "app");
	memcpy(t.comm, c_app, RTM_COMM_LEN);
	t.src = RTM_SRC_IRQ;
	t.irq = IRQ;
	t.end = end;
	if (rtm_core_set_target(c, 0, &t))
		return NULL;
	memset(c_app2, 0, sizeof(c_app2));
	strcpy(c_app2, "app2");
	memcpy(t.comm, c_app2, RTM_COMM_LEN);
	t.irq = IRQ2;
	t.end = RTM_END_SWITCH_IN;
	if (rtm_core_set_target(c, 1, &t))
		return NULL;
	return c;
}



/* IRQ 9 on cpu 0 wakes app from its handler (1000-1100); app runs on cpu 1 from 2000 */
static void app_runs(struct rtm_core *c)
{
	rtm_ev_irq_entry(c, 0, 1000, IRQ);
	rtm_ev_waking(c, 0, 1050, RTM_CTX_HARDIRQ, 0, APP, APP, c_app);
	rtm_ev_irq_exit(c, 0, 1100, IRQ, 0, 0);
	rtm_ev_switch(c, 1, 2000, 0, 0, APP, APP, c_app, NULL);
}

/* past max_age nothing is left; the case ends */
static void finish(struct rtm_core *c)
{
	rtm_ev_tick(c, 0, 10000000000ull);
	CHECK(rtm_core_check_quiescent(c) == 0);
	end();
}

/*
 * IRQ 9 on cpu 0 wakes app from its handler; app runs on cpu 1 from 2000
 * and blocks at 3500. Meanwhile on cpu 1: IRQ 20 (200 ns), then a
 * softirq that is no chain's (400 ns, with IRQ 21 inside it for 100 ns).
 * running is what is left: 1500 - 300 - 300.
 */
static void t_irq_and_softirq_over_the_task(void)
{
	struct rtm_core *c = setup(RTM_END_BLOCK);
	struct rtm_record r;

	begin("irq_and_softirq_over_the_running_task");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	app_runs(c);
	rtm_ev_irq_entry(c, 1, 2300, 20);
	rtm_ev_irq_exit(c, 1, 2500, 20, 0, 0);
	rtm_ev_softirq_entry(c, 1, 2500, NET_RX);
	rtm_ev_irq_entry(c, 1, 2600, 21);
	rtm_ev_irq_exit(c, 1, 2700, 21, 0, 0);
	rtm_ev_softirq_exit(c, 1, 2900, NET_RX);
	rtm_ev_switch(c, 1, 3500, APP, 1, 0, 0, NULL, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.latency_ns == 2500);
	CHECK(unit_blame_sum(&r) == r.latency_ns);
	CHECK(r.blame.ns[RTM_BLAME_HANDLER] == 50);
	CHECK(r.blame.ns[RTM_BLAME_RUNNABLE] == 950);
	CHECK(r.blame.ns[RTM_BLAME_IRQ_INTF] == 300);
	CHECK(r.blame.ns[RTM_BLAME_SOFTIRQ_INTF] == 300);
	CHECK(r.blame.ns[RTM_BLAME_RUNNING] == 900);
	finish(c);
}

/*
 * Mainline NAPI: IRQ 9 raises NET_RX, whose softirq (the chain's own: not
 * interference) wakes app; IRQ 20 lands inside that softirq for 100 ns.
 */
static void t_irq_over_the_chains_softirq(void)
{
	struct rtm_core *c = setup(RTM_END_SWITCH_IN);
	struct rtm_record r;

	begin("irq_over_the_chains_softirq");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	rtm_ev_irq_entry(c, 0, 1000, IRQ);
	rtm_ev_softirq_raise(c, 0, 1050, NET_RX, RTM_CTX_HARDIRQ);
	rtm_ev_irq_exit(c, 0, 1100, IRQ, 0, 0);
	rtm_ev_softirq_entry(c, 0, 1200, NET_RX);
	rtm_ev_irq_entry(c, 0, 1300, 20);
	rtm_ev_irq_exit(c, 0, 1400, 20, 0, 0);
	rtm_ev_waking(c, 0, 1500, RTM_CTX_SOFTIRQ, 0, APP, APP, c_app);
	rtm_ev_softirq_exit(c, 0, 1600, NET_RX);
	rtm_ev_switch(c, 1, 2000, 0, 0, APP, APP, c_app, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.latency_ns == 1000);
	CHECK(unit_blame_sum(&r) == r.latency_ns);
	CHECK(r.blame.ns[RTM_BLAME_IRQ_INTF] == 100);
	CHECK(r.blame.ns[RTM_BLAME_SOFTIRQ_INTF] == 0);
	CHECK(r.blame.ns[RTM_BLAME_SOFTIRQ] == 350);
	CHECK(r.blame.ns[RTM_BLAME_RUNNABLE] == 500);
	finish(c);
}

/*
 * The chain's own softirq run on top of its task (app raised TASKLET,
 * whose run wakes nobody) is the chain's work, not interference; the
 * time stays running.
 */
static void t_own_softirq_over_the_task(void)
{
	struct rtm_core *c = setup(RTM_END_BLOCK);
	struct rtm_record r;

	begin("chains_own_softirq_is_no_interference");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	app_runs(c);
	rtm_ev_softirq_raise(c, 1, 2100, TASKLET, RTM_CTX_TASK);
	rtm_ev_softirq_entry(c, 1, 2200, TASKLET);
	rtm_ev_softirq_exit(c, 1, 2600, TASKLET);
	rtm_ev_switch(c, 1, 3000, APP, 1, 0, 0, NULL, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.latency_ns == 2000);
	CHECK(unit_blame_sum(&r) == r.latency_ns);
	CHECK(r.blame.ns[RTM_BLAME_SOFTIRQ_INTF] == 0);
	CHECK(r.blame.ns[RTM_BLAME_IRQ_INTF] == 0);
	CHECK(r.blame.ns[RTM_BLAME_RUNNING] == 1000);
	finish(c);
}

/*
 * An IRQ on a cpu whose task carries no chain, and one that ends after
 * the chain's task was switched out (its branch left the slot), add
 * nothing; an IRQ entry without its exit (a replayed trace cut short)
 * leaves the next one whole.
 */
static void t_nothing_for_others(void)
{
	struct rtm_core *c = setup(RTM_END_BLOCK);
	struct rtm_record r;

	begin("no_interference_for_tasks_without_a_chain");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	rtm_ev_irq_entry(c, 1, 500, 20);
	rtm_ev_irq_exit(c, 1, 700, 20, 0, 0);
	app_runs(c);
	rtm_ev_irq_entry(c, 1, 2100, 20);	/* no exit */
	rtm_ev_irq_entry(c, 1, 2400, 20);
	rtm_ev_irq_exit(c, 1, 2450, 20, 0, 0);
	rtm_ev_switch(c, 1, 3000, APP, 1, 0, 0, NULL, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(unit_blame_sum(&r) == r.latency_ns);
	CHECK(r.blame.ns[RTM_BLAME_IRQ_INTF] == 50);
	CHECK(r.blame.ns[RTM_BLAME_RUNNING] == 950);
	finish(c);
}

/*
 * Another chain's NET_RX softirq (IRQ 30's) runs over app for 400 ns, with
 * IRQ 21 inside it for 100: app's path has IRQ 30's handler and IRQ 21 as
 * irq_interference (200) and the softirq less its IRQ (300).
 */
static void t_irq_inside_another_chains_softirq(void)
{
	struct rtm_core *c = setup(RTM_END_BLOCK);
	struct rtm_record r;

	begin("irq_inside_another_chains_softirq_over_the_task");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	app_runs(c);
	rtm_ev_irq_entry(c, 1, 2200, IRQ2);
	rtm_ev_softirq_raise(c, 1, 2250, NET_RX, RTM_CTX_HARDIRQ);
	rtm_ev_irq_exit(c, 1, 2300, IRQ2, 0, 0);
	rtm_ev_softirq_entry(c, 1, 2300, NET_RX);
	rtm_ev_irq_entry(c, 1, 2400, 21);
	rtm_ev_irq_exit(c, 1, 2500, 21, 0, 0);
	rtm_ev_softirq_exit(c, 1, 2700, NET_RX);
	rtm_ev_switch(c, 1, 3500, APP, 1, 0, 0, NULL, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(r.target_pid == APP && r.latency_ns == 2500);
	CHECK(unit_blame_sum(&r) == r.latency_ns);
	CHECK(r.blame.ns[RTM_BLAME_IRQ_INTF] == 200);
	CHECK(r.blame.ns[RTM_BLAME_SOFTIRQ_INTF] == 300);
	CHECK(r.blame.ns[RTM_BLAME_RUNNING] == 1000);
	finish(c);
}

/*
 * An IRQ that lands between a softirq probe's clock read and its call into
 * the core (delivered first, stamped after the softirq's entry) is within
 * the softirq: counted once, as the IRQ's (before: 50 irq + 400 softirq
 * for 400 ns).
 */
static void t_irq_before_the_softirq_entry_call(void)
{
	struct rtm_core *c = setup(RTM_END_BLOCK);
	struct rtm_record r;

	begin("irq_between_softirq_clock_read_and_call_counted_once");
	CHECK(c != NULL);
	if (!c) {
		end();
		return;
	}
	app_runs(c);
	rtm_ev_irq_entry(c, 1, 2310, 21);
	rtm_ev_irq_exit(c, 1, 2360, 21, 0, 0);
	rtm_ev_softirq_entry(c, 1, 2300, TASKLET);
	/* and one after the exit's clock read, before its call */
	rtm_ev_irq_entry(c, 1, 2710, 22);
	rtm_ev_irq_exit(c, 1, 2730, 22, 0, 0);
	rtm_ev_softirq_exit(c, 1, 2700, TASKLET);
	rtm_ev_switch(c, 1, 3500, APP, 1, 0, 0, NULL, NULL);
	CHECK(unit_drain(c, 2, &r) == 1);
	CHECK(unit_blame_sum(&r) == r.latency_ns);
	CHECK(r.blame.ns[RTM_BLAME_IRQ_INTF] == 70);
	CHECK(r.blame.ns[RTM_BLAME_SOFTIRQ_INTF] == 350);
	CHECK(r.blame.ns[RTM_BLAME_RUNNING] == 1080);
	finish(c);
}

int main(void)
{
	t_irq_and_softirq_over_the_task();
	t_irq_over_the_chains_softirq();
	t_own_softirq_over_the_task();
	t_nothing_for_others();
	t_irq_inside_another_chains_softirq();
	t_irq_before_the_softirq_entry_call();
	free(mem);
	return failed;
}

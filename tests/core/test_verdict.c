// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_verdict.c - a record is charged only to a target its chain earned:
 * overdue reports go to a target whose whole filter a task of the chain
 * passed, WAS_OVERDUE marks only the target reported, a wakeup racing a
 * switch never frees another task's branch, a stop inside a timer
 * callback leaves nothing for the next start, and a chain started at a
 * softirq's re-raise (REPOLL) only where its own pass raised it again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtm_core.h"
#include "rtm_internal.h"
#define UNIT_PREFIX "verdict_"
#include "unit.h"

/* the core's test hooks (built with -DRTM_TEST_POINTS) */
void (*rtm_test_before_emit)(struct rtm_core *c, u32 cpu);
void (*rtm_test_point)(struct rtm_core *c, u32 cpu, int id);

#define US	1000ull
#define MS	1000000ull

static struct rtm_core *mk_cpus(unsigned int ncpus)
{
	struct rtm_params p;

	rtm_params_default(&p, ncpus);
	p.max_age_ns = 100 * MS;
	return mk(&p);
}

static void comm(char *dst, const char *s)
{
	memset(dst, 0, RTM_COMM_LEN);
	if (s)
		strncpy(dst, s, RTM_COMM_LEN - 1);
}

static int target(struct rtm_core *c, unsigned int id, const char *name,
		  unsigned int pid, unsigned int tgid, unsigned int src,
		  unsigned int irq, unsigned int endc, unsigned long long dl)
{
	struct rtm_target_spec t;

	memset(&t, 0, sizeof(t));
	comm(t.comm, name);
	t.pid = pid;
	t.tgid = tgid;
	t.src = src;
	t.irq = irq;
	t.end = endc;
	t.deadline_ns = dl;
	return rtm_core_set_target(c, id, &t);
}

#define NREC 16
static struct rtm_record rec[NREC];

/* every record of every cpu, in sequence order (rings are per cpu) */
static int drain(struct rtm_core *c, unsigned int ncpus)
{
	struct rtm_record r;
	unsigned int k;
	int n = 0, i, j;

	for (k = 0; k < ncpus; k++)
		while (rtm_core_read(c, k, &r))
			if (n < NREC)
				rec[n++] = r;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && rec[j].seq < rec[j - 1].seq; j--) {
			r = rec[j];
			rec[j] = rec[j - 1];
			rec[j - 1] = r;
		}
	return n;
}

static void wake(struct rtm_core *c, unsigned int cpu, unsigned long long ts,
		 unsigned int ctx, unsigned int pid, const char *name)
{
	char cm[RTM_COMM_LEN];

	comm(cm, name);
	rtm_ev_waking(c, cpu, ts, ctx, 0, pid, pid, cm);
}

static void switch_to(struct rtm_core *c, unsigned int cpu,
		      unsigned long long ts, unsigned int prev, long state,
		      unsigned int next, const char *name)
{
	char cm[RTM_COMM_LEN];

	comm(cm, name);
	rtm_ev_switch(c, cpu, ts, prev, state, next, next, name ? cm : NULL, NULL);
}

/* IRQ irq on cpu wakes pid from its handler at ts + 1 us */
static void irq_wakes(struct rtm_core *c, unsigned int cpu,
		      unsigned long long ts, unsigned int irq,
		      unsigned int pid, const char *name)
{
	rtm_ev_irq_entry(c, cpu, ts, irq);
	wake(c, cpu, ts + US, RTM_CTX_HARDIRQ, pid, name);
	rtm_ev_irq_exit(c, cpu, ts + 2 * US, irq, 0, 0);
}

/* a nanosleep of task pid expires at ts on cpu and wakes it */
static void sleeper_wakes(struct rtm_core *c, unsigned int cpu,
			  unsigned long long ts, unsigned int pid,
			  const char *name)
{
	rtm_ev_timer_entry(c, cpu, ts, pid, ts, RTM_TIMER_SLEEPER,
			   RTM_CTX_HARDIRQ);
	wake(c, cpu, ts + US, RTM_CTX_HARDIRQ, pid, name);
	rtm_ev_timer_exit(c, cpu, 0, pid, RTM_CTX_HARDIRQ);
}

static void finish(struct rtm_core *c, unsigned int ncpus)
{
	rtm_core_expire_all(c, 0);
	drain(c, ncpus);
	CHECK(rtm_core_check_quiescent(c) == 0);
}

/*
 * A pid-only target (its comm filter empty) is late only for chains that
 * woke its pid: another task's 300 us sleep is not its miss.
 */
static void t_pid_target_other_sleeper(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_stats s;
	int n;

	begin("pid_target_not_charged_for_other_task");
	CHECK(target(c, 0, NULL, 1234, 0, RTM_SRC_TIMER, 0, RTM_END_SWITCH_IN,
		     100 * US) == 0);
	sleeper_wakes(c, 0, 1 * MS, 555, "other");
	rtm_ev_tick(c, 1, 1 * MS + 150 * US);
	rtm_ev_tick(c, 1, 1 * MS + 250 * US);
	switch_to(c, 0, 1 * MS + 300 * US, 0, 0, 555, "other");
	rtm_ev_tick(c, 1, 1 * MS + 400 * US);
	n = drain(c, 2);
	rtm_core_stats(c, &s);
	CHECK(n == 0);
	CHECK(s.chains_overdue == 0);
	/* its own late chain is still reported, then completes late */
	sleeper_wakes(c, 0, 2 * MS, 1234, "ct");
	rtm_ev_tick(c, 1, 2 * MS + 150 * US);
	switch_to(c, 0, 2 * MS + 300 * US, 0, 0, 1234, "ct");
	n = drain(c, 2);
	CHECK(n == 2);
	CHECK(rec[0].flags == (RTM_REC_F_TIMEOUT | RTM_REC_F_DEADLINE_MISS));
	CHECK(rec[0].target_id == 0);
	CHECK(rec[1].flags == (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_WAS_OVERDUE));
	CHECK(rec[1].target_pid == 1234);
	finish(c, 2);
	end();
}

/* Likewise a tgid-only target, for an IRQ's chain of another process. */
static void t_tgid_target_other_irq(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_stats s;

	begin("tgid_target_not_charged_for_other_process");
	CHECK(target(c, 0, NULL, 0, 4000, RTM_SRC_IRQ_ANY, 0, RTM_END_BLOCK,
		     50 * US) == 0);
	irq_wakes(c, 0, 1 * MS, 40, 600, "net");
	switch_to(c, 0, 1 * MS + 5 * US, 0, 0, 600, "net");
	rtm_ev_tick(c, 1, 1 * MS + 500 * US);
	switch_to(c, 0, 1 * MS + 900 * US, 600, 1, 0, NULL);
	rtm_ev_tick(c, 1, 2 * MS);
	rtm_core_stats(c, &s);
	CHECK(drain(c, 2) == 0);
	CHECK(s.chains_overdue == 0);
	finish(c, 2);
	end();
}

/*
 * Two targets of broad sources, cyclictest (100 us) and app (1 ms): an
 * IRQ's chain that wakes app is late for app only. It meets app's 1 ms,
 * so no target has a miss and the record carries no WAS_OVERDUE.
 */
static void t_deadline_of_the_woken_target(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_stats s;
	int n;

	begin("deadline_of_the_target_woken");
	CHECK(target(c, 0, "cyclictest", 0, 0, RTM_SRC_ANY, 0,
		     RTM_END_SWITCH_IN, 100 * US) == 0);
	CHECK(target(c, 1, "app", 0, 0, RTM_SRC_ANY, 0, RTM_END_SWITCH_IN,
		     1 * MS) == 0);
	irq_wakes(c, 0, 1 * MS, 30, 700, "app");
	rtm_ev_tick(c, 1, 1 * MS + 150 * US);
	rtm_ev_tick(c, 1, 1 * MS + 180 * US);
	switch_to(c, 0, 1 * MS + 200 * US, 0, 0, 700, "app");
	n = drain(c, 2);
	rtm_core_stats(c, &s);
	CHECK(n == 1);
	CHECK(s.chains_overdue == 0);
	CHECK(rec[0].target_id == 1);
	CHECK(rec[0].flags == 0);
	CHECK(rec[0].latency_ns == 200 * US);
	finish(c, 2);
	end();
}

/*
 * A chain that wakes the tasks of two targets is reported overdue for the
 * one with the smaller deadline; completing for the other, it is not
 * flagged WAS_OVERDUE (that target was never told it was late).
 */
static void t_was_overdue_only_for_reported(void)
{
	struct rtm_core *c = mk_cpus(2);
	int n;

	begin("was_overdue_only_for_the_target_reported");
	CHECK(target(c, 0, "fast", 0, 0, RTM_SRC_ANY, 0, RTM_END_SWITCH_IN,
		     100 * US) == 0);
	CHECK(target(c, 1, "slow", 0, 0, RTM_SRC_ANY, 0, RTM_END_SWITCH_IN,
		     10 * MS) == 0);
	rtm_ev_irq_entry(c, 0, 1 * MS, 30);
	wake(c, 0, 1 * MS + 1 * US, RTM_CTX_HARDIRQ, 801, "slow");
	wake(c, 0, 1 * MS + 2 * US, RTM_CTX_HARDIRQ, 800, "fast");
	rtm_ev_irq_exit(c, 0, 1 * MS + 3 * US, 30, 0, 0);
	rtm_ev_tick(c, 1, 1 * MS + 150 * US);
	switch_to(c, 1, 1 * MS + 200 * US, 0, 0, 801, "slow");
	n = drain(c, 2);
	CHECK(n == 2);
	CHECK(rec[0].target_id == 0 && (rec[0].flags & RTM_REC_F_TIMEOUT));
	CHECK(rec[1].target_id == 1);
	CHECK(rec[1].flags == 0);
	finish(c, 2);
	/* completing for the target reported, it is */
	rtm_ev_irq_entry(c, 0, 3 * MS, 30);
	wake(c, 0, 3 * MS + 1 * US, RTM_CTX_HARDIRQ, 801, "slow");
	wake(c, 0, 3 * MS + 2 * US, RTM_CTX_HARDIRQ, 800, "fast");
	rtm_ev_irq_exit(c, 0, 3 * MS + 3 * US, 30, 0, 0);
	rtm_ev_tick(c, 1, 3 * MS + 150 * US);
	switch_to(c, 1, 3 * MS + 200 * US, 0, 0, 800, "fast");
	n = drain(c, 2);
	CHECK(n == 2);
	CHECK(rec[1].target_id == 0);
	CHECK(rec[1].flags == (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_WAS_OVERDUE));
	finish(c, 2);
	end();
}

/*
 * A task target of one IRQ: its IRQ's chain is late for it once it woke
 * the target's task, not when it woke only another task that runs long,
 * nor while its IRQ thread is held up before waking anyone (that chain
 * may be for another task: its miss shows at completion).
 */
static void t_irq_target(void)
{
	struct rtm_core *c = mk_cpus(2);
	char th[RTM_COMM_LEN];
	int n;

	begin("irq_target_late_only_for_its_chains");
	comm(th, "irq/30-dev");
	CHECK(target(c, 0, "app", 0, 0, RTM_SRC_IRQ, 30, RTM_END_SWITCH_IN,
		     100 * US) == 0);
	/* another task of the IRQ runs 500 us: not app's miss */
	irq_wakes(c, 0, 1 * MS, 30, 900, "logger");
	switch_to(c, 0, 1 * MS + 5 * US, 0, 0, 900, "logger");
	rtm_ev_tick(c, 1, 1 * MS + 300 * US);
	switch_to(c, 0, 1 * MS + 500 * US, 900, 1, 0, NULL);
	CHECK(drain(c, 2) == 0);
	/* the IRQ thread held up 300 us, then it wakes app: late from then */
	rtm_ev_irq_entry(c, 0, 2 * MS, 30);
	rtm_ev_irq_exit(c, 0, 2 * MS + 1 * US, 30, 1, 50);
	rtm_ev_waking(c, 0, 2 * MS + 2 * US, RTM_CTX_HARDIRQ, 0, 50, 50, th);
	rtm_ev_tick(c, 1, 2 * MS + 300 * US);
	CHECK(drain(c, 2) == 0);
	switch_to(c, 1, 2 * MS + 400 * US, 0, 0, 50, "irq/30-dev");
	wake(c, 1, 2 * MS + 410 * US, RTM_CTX_TASK, 901, "app");
	rtm_ev_tick(c, 0, 2 * MS + 450 * US);
	switch_to(c, 1, 2 * MS + 500 * US, 50, 1, 901, "app");
	n = drain(c, 2);
	CHECK(n == 2);
	CHECK(rec[0].target_id == 0 && rec[0].flags ==
	      (RTM_REC_F_TIMEOUT | RTM_REC_F_DEADLINE_MISS));
	CHECK(rec[1].target_pid == 901 && rec[1].flags ==
	      (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_WAS_OVERDUE));
	finish(c, 2);
	end();
}

/*
 * A wakeup that saw its task current on cpu 1, while cpu 1 has switched
 * to another tracked task meanwhile: that task's branch is not freed, and
 * the woken task's chain waits for its switch_in.
 */
static void t_wake_running_other_task(void)
{
	struct rtm_core *c = mk_cpus(2);
	char cm[RTM_COMM_LEN];
	struct rtm_stats s;
	int n;

	begin("wake_running_keeps_another_tasks_branch");
	CHECK(target(c, 0, "x", 0, 0, RTM_SRC_ANY, 0, RTM_END_BLOCK,
		     10 * MS) == 0);
	CHECK(target(c, 1, "t", 0, 0, RTM_SRC_ANY, 0, RTM_END_BLOCK,
		     10 * MS) == 0);
	irq_wakes(c, 1, 1 * MS, 10, 300, "x");
	switch_to(c, 1, 1 * MS + 10 * US, 400, 1, 300, "x");
	/* t was current on cpu 1 when its waker looked */
	comm(cm, "t");
	rtm_ev_irq_entry(c, 0, 1 * MS + 20 * US, 11);
	rtm_ev_waking_running(c, 0, 1 * MS + 21 * US, RTM_CTX_HARDIRQ, 0, 400,
			      400, cm, 1);
	rtm_ev_irq_exit(c, 0, 1 * MS + 22 * US, 11, 0, 0);
	switch_to(c, 1, 1 * MS + 40 * US, 300, 1, 0, NULL);
	switch_to(c, 0, 1 * MS + 50 * US, 0, 0, 400, "t");
	switch_to(c, 0, 1 * MS + 60 * US, 400, 1, 0, NULL);
	n = drain(c, 2);
	rtm_core_stats(c, &s);
	CHECK(n == 2);
	CHECK(s.branches_stale == 0);
	CHECK(n >= 1 && rec[0].target_pid == 300 && rec[0].latency_ns == 40 * US);
	CHECK(n >= 2 && rec[1].target_pid == 400 && rec[1].latency_ns == 40 * US);
	finish(c, 2);
	end();
}

/*
 * A stop inside a timer callback (its exit never seen): the next start
 * finds no pending expiry, so no wakeup there makes a chain from it.
 */
static void t_stop_in_timer_callback(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_stats s;

	begin("stop_in_timer_callback_leaves_nothing");
	CHECK(target(c, 0, "app", 0, 0, RTM_SRC_TIMER, 0, RTM_END_SWITCH_IN,
		     100 * US) == 0);
	rtm_ev_timer_entry(c, 0, 1 * MS, 77, 1 * MS, RTM_TIMER_TIMERFD,
			   RTM_CTX_HARDIRQ);
	rtm_core_expire_all(c, 1);		/* stop */
	/* start, 5 s later: a hard IRQ's handler wakes app */
	rtm_ev_irq_entry(c, 0, 5000 * MS, 12);
	wake(c, 0, 5000 * MS + 1 * US, RTM_CTX_HARDIRQ, 700, "app");
	rtm_ev_irq_exit(c, 0, 5000 * MS + 2 * US, 12, 0, 0);
	switch_to(c, 0, 5000 * MS + 10 * US, 0, 0, 700, "app");
	rtm_core_stats(c, &s);
	CHECK(drain(c, 2) == 0);
	CHECK(s.chains_started == 0);
	CHECK(rtm_ld32(&c->cpus[0].hi_timer) == 0);
	finish(c, 2);
	end();
}

/* A target's comm counts up to its NUL: bytes after it are not compared. */
static void t_comm_bytes_after_nul(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_target_spec t;

	begin("target_comm_ends_at_its_nul");
	memset(&t, 0, sizeof(t));
	memcpy(t.comm, "app\0XXXXXXXXXXX", RTM_COMM_LEN);
	t.src = RTM_SRC_ANY;
	t.end = RTM_END_SWITCH_IN;
	t.deadline_ns = 1 * MS;
	CHECK(rtm_core_set_target(c, 0, &t) == 0);
	irq_wakes(c, 0, 1 * MS, 30, 700, "app");
	switch_to(c, 0, 1 * MS + 20 * US, 0, 0, 700, "app");
	CHECK(drain(c, 2) == 1);
	CHECK(rec[0].target_id == 0 && rec[0].target_pid == 700);
	finish(c, 2);
	end();
}

/*
 * An IRQ thread's target (end block): the IRQ's chain handed to the
 * thread's next pass (the thread awake: rerun, no wakeup) is late for it.
 */
static void t_rerun_target(int thread_cpu)
{
	struct rtm_core *c = mk_cpus(2);
	char th[RTM_COMM_LEN];

	begin(thread_cpu >= 0 ? "rerun_running_thread_target_late" :
	      "rerun_runnable_thread_target_late");
	comm(th, "irq/30-dev");
	CHECK(target(c, 0, "irq/30-dev", 0, 0, RTM_SRC_IRQ, 30, RTM_END_BLOCK,
		     100 * US) == 0);
	rtm_ev_irq_entry(c, 0, 1 * MS, 30);
	rtm_ev_irq_exit_rerun(c, 0, 1 * MS + 1 * US, 30, 50, th, thread_cpu);
	rtm_ev_tick(c, 1, 1 * MS + 300 * US);
	CHECK(drain(c, 2) == 1);
	CHECK(rec[0].target_id == 0 && (rec[0].flags & RTM_REC_F_TIMEOUT));
	finish(c, 2);
	end();
}

/*
 * A pass that adopts an item an awake reader began (the next interrupt
 * came first: rerun) makes the chain late for the reader's work_end target.
 */
static void t_adopt_target(void)
{
	struct rtm_core *c = mk_cpus(2);
	char th[RTM_COMM_LEN], rd[RTM_COMM_LEN];

	begin("adopted_item_late_for_its_target");
	comm(th, "irq/30-dev");
	comm(rd, "reader");
	CHECK(target(c, 0, "reader", 0, 0, RTM_SRC_IRQ, 30, RTM_END_WORK_END,
		     100 * US) == 0);
	rtm_ev_irq_entry(c, 0, 1 * MS, 30);
	rtm_ev_irq_exit(c, 0, 1 * MS + 1 * US, 30, 1, 50);
	rtm_ev_waking(c, 0, 1 * MS + 2 * US, RTM_CTX_HARDIRQ, 0, 50, 50, th);
	rtm_ev_switch(c, 1, 1 * MS + 5 * US, 0, 0, 50, 50, th, NULL);
	rtm_ev_work_begin(c, 0, 1 * MS + 20 * US, 901, 901, 7, rd);
	rtm_ev_irq_entry(c, 0, 1 * MS + 30 * US, 30);
	rtm_ev_irq_exit_rerun(c, 0, 1 * MS + 31 * US, 30, 50, th, 1);
	rtm_ev_tick(c, 1, 1 * MS + 300 * US);
	CHECK(drain(c, 2) == 1);
	CHECK(rec[0].target_id == 0 && (rec[0].flags & RTM_REC_F_TIMEOUT));
	rtm_ev_work_end(c, 0, 1 * MS + 400 * US, 901, 901, 7, rd);
	CHECK(drain(c, 2) == 1);
	CHECK(rec[0].flags & RTM_REC_F_WAS_OVERDUE);
	finish(c, 2);
	end();
}

/* A target id deleted and defined again is not late for older chains. */
static void t_readded_target(void)
{
	struct rtm_core *c = mk_cpus(2);

	begin("readded_target_not_late_for_older_chains");
	CHECK(target(c, 0, "app", 0, 0, RTM_SRC_ANY, 0, RTM_END_SWITCH_IN,
		     10 * MS) == 0);
	sleeper_wakes(c, 0, 1 * MS, 901, "app");
	CHECK(rtm_core_clear_target(c, 0) == 0);
	CHECK(target(c, 0, "other", 0, 0, RTM_SRC_ANY, 0, RTM_END_SWITCH_IN,
		     100 * US) == 0);
	rtm_ev_tick(c, 1, 1 * MS + 300 * US);
	CHECK(drain(c, 2) == 0);
	finish(c, 2);
	end();
}

/* Two ticks at once report a chain once. */
static void t_two_ticks(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_tick_pos a, b;

	begin("two_ticks_one_timeout");
	CHECK(target(c, 0, "app", 0, 0, RTM_SRC_ANY, 0, RTM_END_SWITCH_IN,
		     100 * US) == 0);
	sleeper_wakes(c, 0, 1 * MS, 901, "app");
	rtm_tick_begin(c, &a, 1 * MS + 300 * US);
	rtm_tick_begin(c, &b, 1 * MS + 300 * US);
	while (rtm_tick_run(c, 0, &a, 1) | rtm_tick_run(c, 1, &b, 1))
		;
	CHECK(drain(c, 2) == 1);
	finish(c, 2);
	end();
}

/*
 * The tick peeks at a slot whose branch's chain is done; before it takes
 * the slot, the owner frees that branch and a new chain's branch, the same
 * index off the pool, goes into the same slot (ABA). The tick must not
 * take the live branch: while it held it, the owner's next branch there
 * would find the slot taken, and the live one be freed as stale.
 */
static struct { rtm_a32 *slot; u32 next; int peeked, taken; u64 next_start; } aba;

static void aba_point(struct rtm_core *c, u32 cpu, int id)
{
	u32 old;

	if (id == RTM_TP_SLOT_PEEKED && aba.slot && !aba.peeked++) {
		old = rtm_xchg32(aba.slot, 0);
		rtm_branch_free(c, cpu, old, RTM_C_BR_PRUNED);
		aba.next = rtm_chain_start(c, cpu, RTM_KIND_IRQ, 12,
					   aba.next_start, RTM_HOP_IRQ, 0);
		rtm_st32(aba.slot, aba.next);
	} else if (id == RTM_TP_SLOT_TAKEN && aba.slot && !aba.taken++) {
		/* the owner's next branch for the slot */
		rtm_st32(aba.slot, rtm_branch_fork(c, cpu, aba.next));
	}
}

static void t_tick_slot_aba(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_tick_pos t;
	struct rtm_stats s;
	struct rtm_chain *ch;
	u32 b, st, now;
	/* past max_age: the tick leaves a younger done branch in si_cur */
	u64 tick_at = 1 * MS + c->p.max_age_ns + 10 * US;

	begin("tick_slot_aba_keeps_the_live_branch");
	aba.next_start = tick_at - 10 * US;
	b = rtm_chain_start(c, 0, RTM_KIND_IRQ, 11, 1 * MS, RTM_HOP_IRQ, 0);
	CHECK(b != 0);
	ch = rtm_chain_of(c, rtm_ld32(&rtm_br(c, b)->chain));
	st = rtm_ld32(&ch->state);
	rtm_st32(&ch->state, st | RTM_CS_DONE);
	aba.slot = &c->cpus[0].si_cur;
	rtm_st32(aba.slot, b);
	rtm_test_point = aba_point;
	rtm_tick_begin(c, &t, tick_at);
	while (rtm_tick_run(c, 1, &t, 64))
		;
	rtm_test_point = NULL;
	now = rtm_ld32(aba.slot);
	rtm_core_stats(c, &s);
	CHECK(aba.peeked == 1);
	CHECK(s.branches_stale == 0);
	CHECK(now != 0 && !rtm_branch_done(c, now));
	aba.slot = NULL;
	rtm_st32(&c->cpus[0].si_cur, 0);
	if (now)
		rtm_branch_free(c, 0, now, RTM_C_BR_PRUNED);
	finish(c, 2);
	end();
}

/* ---- a softirq pass re-raised after its IRQ chain completed (REPOLL) ---- */
#define NET_TX	2
#define NET_RX	3

/*
 * IRQ 29 at t raises NET_RX; the pass wakes app (pid 200) and raises vec
 * again; app's switch-in at t + 40 us completes the chain (one record).
 */
static void napi_pass(struct rtm_core *c, unsigned long long t,
		      unsigned int vec)
{
	rtm_ev_irq_entry(c, 1, t, 29);
	rtm_ev_softirq_raise(c, 1, t + 1 * US, NET_RX, RTM_CTX_HARDIRQ);
	rtm_ev_irq_exit(c, 1, t + 2 * US, 29, 0, 0);
	rtm_ev_softirq_entry(c, 1, t + 3 * US, NET_RX);
	wake(c, 1, t + 10 * US, RTM_CTX_SOFTIRQ, 200, "app");
	rtm_ev_softirq_raise(c, 1, t + 11 * US, vec, RTM_CTX_SOFTIRQ);
	rtm_ev_softirq_exit(c, 1, t + 12 * US, NET_RX);
	switch_to(c, 1, t + 40 * US, 0, 0, 200, "app");
}

/* a pass of vec at t that wakes app, then app runs */
static void pass_wakes_app(struct rtm_core *c, unsigned long long t,
			   unsigned int vec)
{
	rtm_ev_softirq_entry(c, 1, t, vec);
	wake(c, 1, t + 5 * US, RTM_CTX_SOFTIRQ, 200, "app");
	rtm_ev_softirq_exit(c, 1, t + 6 * US, vec);
	switch_to(c, 1, t + 20 * US, 0, 0, 200, "app");
}

static int app_target(struct rtm_core *c, unsigned int id)
{
	return target(c, id, "app", 0, 0, RTM_SRC_IRQ, 29, RTM_END_SWITCH_IN,
		      100 * US);
}

/* the case REPOLL is for: the re-raised pass's wakeup gets a record */
static void t_repoll_followed(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_stats s;

	begin("repoll_reraised_pass_has_its_chain");
	CHECK(app_target(c, 0) == 0);
	napi_pass(c, 1 * MS, NET_RX);
	pass_wakes_app(c, 1 * MS + 200 * US, NET_RX);
	rtm_core_stats(c, &s);
	CHECK(drain(c, 2) == 2);
	CHECK(!(rec[0].flags & RTM_REC_F_REPOLL));
	CHECK(rec[1].flags & RTM_REC_F_REPOLL);
	CHECK(rec[1].source == 29);
	CHECK(rec[1].start_ns == 1 * MS + 11 * US);
	CHECK(rec[1].latency_ns == 209 * US);
	CHECK(s.softirq_repoll == 1);
	finish(c, 2);
	end();
}

/* a stop between the re-raise and its pass leaves nothing for the start */
static void t_repoll_stop(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_stats s;

	begin("repoll_stop_leaves_no_reraise");
	CHECK(app_target(c, 0) == 0);
	napi_pass(c, 1 * MS, NET_RX);
	CHECK(drain(c, 2) == 1);
	rtm_core_expire_all(c, 0);		/* stop */
	CHECK(rtm_core_check_quiescent(c) == 0);
	pass_wakes_app(c, 5000 * MS, NET_RX);	/* start, 5 s later */
	rtm_core_stats(c, &s);
	CHECK(drain(c, 2) == 0);
	CHECK(s.softirq_repoll == 0);
	finish(c, 2);
	end();
}

/* a pass raising another vector is no re-raise of its own */
static void t_repoll_other_vec(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_stats s;

	begin("repoll_other_vector_is_no_reraise");
	CHECK(app_target(c, 0) == 0);
	napi_pass(c, 1 * MS, NET_TX);
	pass_wakes_app(c, 1 * MS + 200 * US, NET_TX);
	rtm_core_stats(c, &s);
	CHECK(drain(c, 2) == 1);
	CHECK(s.softirq_repoll == 0);
	finish(c, 2);
	end();
}

/*
 * An IRQ-only target completes the chain at the hard IRQ's exit: the
 * interrupt's own first pass (raised in hard IRQ) is no re-raise.
 */
static void t_repoll_irqonly_first_pass(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_stats s;
	int n, i;

	begin("repoll_irqonly_first_pass_is_no_reraise");
	CHECK(target(c, 0, NULL, 0, 0, RTM_SRC_IRQ, 29, RTM_END_SWITCH_IN,
		     100 * US) == 0);
	CHECK(app_target(c, 1) == 0);
	rtm_ev_irq_entry(c, 1, 1 * MS, 29);
	rtm_ev_softirq_raise(c, 1, 1 * MS + 1 * US, NET_RX, RTM_CTX_HARDIRQ);
	rtm_ev_irq_exit(c, 1, 1 * MS + 2 * US, 29, 0, 0);
	pass_wakes_app(c, 1 * MS + 3 * US, NET_RX);
	rtm_core_stats(c, &s);
	n = drain(c, 2);
	CHECK(n >= 1);
	for (i = 0; i < n; i++)
		CHECK(!(rec[i].flags & RTM_REC_F_REPOLL));
	CHECK(s.softirq_repoll == 0);
	finish(c, 2);
	end();
}

/*
 * A new interrupt's pass replaces a kept re-raise: its chain is recorded
 * from its own interrupt (a merge kept the older, done chain: the new one
 * was lost and the pass started a chain at the old re-raise).
 */
static void t_repoll_new_irq_wins(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_stats s;

	begin("repoll_new_interrupt_replaces_the_reraise");
	CHECK(app_target(c, 0) == 0);
	napi_pass(c, 1 * MS, NET_RX);
	rtm_ev_irq_entry(c, 1, 2 * MS, 29);
	rtm_ev_softirq_raise(c, 1, 2 * MS + 1 * US, NET_RX, RTM_CTX_HARDIRQ);
	rtm_ev_irq_exit(c, 1, 2 * MS + 2 * US, 29, 0, 0);
	pass_wakes_app(c, 2 * MS + 3 * US, NET_RX);
	rtm_core_stats(c, &s);
	CHECK(drain(c, 2) == 2);
	CHECK(rec[1].start_ns == 2 * MS);
	CHECK(!(rec[1].flags & (RTM_REC_F_REPOLL | RTM_REC_F_MERGED)));
	CHECK(s.softirq_repoll == 0);
	finish(c, 2);
	end();
}

/*
 * The tick (another cpu) leaves a kept re-raise while its chain is
 * younger than max_age, frees it after, and never gives a done branch
 * back to a slot a later pass may own.
 */
static void t_repoll_tick_ages(void)
{
	struct rtm_core *c = mk_cpus(2);
	unsigned long long old = 1 * MS + c->p.max_age_ns + 1 * MS;
	struct rtm_stats s;

	begin("repoll_tick_ages_the_reraise_out");
	CHECK(app_target(c, 0) == 0);
	napi_pass(c, 1 * MS, NET_RX);
	rtm_ev_tick(c, 0, 2 * MS);
	CHECK(rtm_ld32(&c->cpus[1].si_pend[NET_RX]) != 0);
	rtm_ev_tick(c, 0, old);
	CHECK(rtm_ld32(&c->cpus[1].si_pend[NET_RX]) == 0);
	pass_wakes_app(c, old + 1 * MS, NET_RX);
	/* kept in si_cur by a re-raised pass that woke no target */
	napi_pass(c, old + 2 * MS, NET_RX);
	rtm_ev_softirq_entry(c, 1, old + 3 * MS, NET_RX);
	wake(c, 1, old + 3 * MS + 1 * US, RTM_CTX_SOFTIRQ, 300, "other");
	CHECK(rtm_ld32(&c->cpus[1].si_cur) != 0);
	rtm_ev_tick(c, 0, old + 3 * MS + c->p.max_age_ns);
	CHECK(rtm_ld32(&c->cpus[1].si_cur) == 0);
	rtm_ev_softirq_exit(c, 1, old + 3 * MS + c->p.max_age_ns + 1 * US,
			    NET_RX);
	pass_wakes_app(c, old + 4 * MS + c->p.max_age_ns, NET_RX);
	rtm_core_stats(c, &s);
	CHECK(drain(c, 2) == 2);
	CHECK(s.softirq_repoll == 0);
	finish(c, 2);
	end();
}

/*
 * A REPOLL chain starts at the re-raise, but data may have come later
 * with no event to show it (an interrupt while NAPI was scheduled raises
 * nothing): its latency is no verdict, no miss, no overdue report.
 */
static void t_repoll_no_verdict(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_stats s;

	begin("repoll_is_no_miss_verdict");
	CHECK(app_target(c, 0) == 0);
	napi_pass(c, 1 * MS, NET_RX);
	rtm_ev_irq_entry(c, 1, 5 * MS, 29);	/* NAPI scheduled: no raise */
	rtm_ev_irq_exit(c, 1, 5 * MS + 1 * US, 29, 0, 0);
	rtm_ev_softirq_entry(c, 1, 5 * MS + 10 * US, NET_RX);
	wake(c, 1, 5 * MS + 20 * US, RTM_CTX_SOFTIRQ, 200, "app");
	rtm_ev_softirq_exit(c, 1, 5 * MS + 30 * US, NET_RX);
	rtm_ev_tick(c, 0, 5 * MS + 40 * US);	/* past the deadline */
	switch_to(c, 1, 5 * MS + 50 * US, 0, 0, 200, "app");
	rtm_core_stats(c, &s);
	CHECK(drain(c, 2) == 2);
	CHECK(rec[1].flags == RTM_REC_F_REPOLL);
	CHECK(s.chains_overdue == 0 && s.softirq_repoll == 1);
	finish(c, 2);
	end();
}

/* a raise of vec by something else (no chain: a task) drops the re-raise */
static void t_repoll_foreign_raise(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_stats s;

	begin("repoll_foreign_raise_drops_the_reraise");
	CHECK(app_target(c, 0) == 0);
	napi_pass(c, 1 * MS, NET_RX);
	rtm_ev_softirq_raise(c, 1, 2 * MS, NET_RX, RTM_CTX_TASK);
	pass_wakes_app(c, 2 * MS + 10 * US, NET_RX);
	rtm_core_stats(c, &s);
	CHECK(drain(c, 2) == 1);
	CHECK(s.softirq_repoll == 0);
	finish(c, 2);
	end();
}

/* the pass raising another vector first still keeps its own re-raise */
static void t_repoll_other_vec_first(void)
{
	struct rtm_core *c = mk_cpus(2);
	struct rtm_stats s;

	char cm[RTM_COMM_LEN];

	begin("repoll_other_vector_raised_first");
	CHECK(app_target(c, 0) == 0);
	switch_to(c, 1, 500 * US, 0, 0, 200, "app");	/* app runs */
	rtm_ev_irq_entry(c, 1, 1 * MS, 29);
	rtm_ev_softirq_raise(c, 1, 1 * MS + 1 * US, NET_RX, RTM_CTX_HARDIRQ);
	rtm_ev_irq_exit(c, 1, 1 * MS + 2 * US, 29, 0, 0);
	rtm_ev_softirq_entry(c, 1, 1 * MS + 3 * US, NET_RX);
	/* app is running: its wakeup completes the chain */
	comm(cm, "app");
	rtm_ev_waking_running(c, 1, 1 * MS + 10 * US, RTM_CTX_SOFTIRQ, 0, 200,
			      200, cm, 1);
	rtm_ev_softirq_raise(c, 1, 1 * MS + 11 * US, NET_TX, RTM_CTX_SOFTIRQ);
	rtm_ev_softirq_raise(c, 1, 1 * MS + 12 * US, NET_RX, RTM_CTX_SOFTIRQ);
	rtm_ev_softirq_exit(c, 1, 1 * MS + 13 * US, NET_RX);
	switch_to(c, 1, 1 * MS + 20 * US, 200, 1, 21, "ksoftirqd/1");
	pass_wakes_app(c, 1 * MS + 30 * US, NET_RX);
	rtm_core_stats(c, &s);
	CHECK(drain(c, 2) == 2);
	CHECK(rec[1].flags & RTM_REC_F_REPOLL);
	CHECK(s.softirq_repoll == 1);
	finish(c, 2);
	end();
}

/* a re-raise goes on through RTM_REPOLL_PASSES passes that wake no target */
static void t_repoll_passes_bounded(void)
{
	struct rtm_core *c = mk_cpus(2);
	unsigned long long t = 2 * MS;
	struct rtm_stats s;
	unsigned int i;

	begin("repoll_passes_bounded");
	CHECK(app_target(c, 0) == 0);
	napi_pass(c, 1 * MS, NET_RX);
	for (i = 0; i < RTM_REPOLL_PASSES; i++, t += 100 * US) {
		rtm_ev_softirq_entry(c, 1, t, NET_RX);
		wake(c, 1, t + 1 * US, RTM_CTX_SOFTIRQ, 300, "other");
		rtm_ev_softirq_raise(c, 1, t + 2 * US, NET_RX, RTM_CTX_SOFTIRQ);
		rtm_ev_softirq_exit(c, 1, t + 3 * US, NET_RX);
	}
	CHECK(rtm_ld32(&c->cpus[1].si_pend[NET_RX]) != 0);
	pass_wakes_app(c, t, NET_RX);
	rtm_core_stats(c, &s);
	CHECK(drain(c, 2) == 1);
	CHECK(s.softirq_repoll == 0);
	finish(c, 2);
	end();
}

int main(void)
{
	t_pid_target_other_sleeper();
	t_tgid_target_other_irq();
	t_deadline_of_the_woken_target();
	t_was_overdue_only_for_reported();
	t_irq_target();
	t_wake_running_other_task();
	t_stop_in_timer_callback();
	t_comm_bytes_after_nul();
	t_rerun_target(1);
	t_rerun_target(-1);
	t_adopt_target();
	t_readded_target();
	t_two_ticks();
	t_tick_slot_aba();
	t_repoll_followed();
	t_repoll_stop();
	t_repoll_other_vec();
	t_repoll_irqonly_first_pass();
	t_repoll_new_irq_wins();
	t_repoll_tick_ages();
	t_repoll_no_verdict();
	t_repoll_foreign_raise();
	t_repoll_other_vec_first();
	t_repoll_passes_bounded();
	free(mem);
	return failed;
}

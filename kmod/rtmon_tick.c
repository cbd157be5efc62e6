// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon_tick.c - the housekeeping tick: overdue reports, reclaim of chains
 * past max_age_ms, pruning (rtm_ev_tick's work, kmod/core/rtm_tick.c), and
 * the reader's wakeup for records no batch woke it for (rtmon_tracker.c).
 *
 * The scan visits every chain, every cpu's slots and every task and cookie
 * table bucket: up to milliseconds at the largest sizes the module
 * accepts. It runs in its own kthread, in batches of
 * RTMON_TICK_BATCH units with preemption off (the record hook's per-cpu
 * statistics need it) and a preemption point between them: a task above
 * the tick waits at most one batch for its cpu. The core's tick takes no
 * locks, may migrate between steps, and runs concurrently with events.
 *
 * The kthread is SCHED_FIFO 50, the priority of the kernel's IRQ threads,
 * and sleeps on an hrtimer (an RT task's, expiring in hard IRQ): real-time
 * tasks below 50 hogging every cpu (with RT throttling off, as real-time
 * setups often run) delay neither the overdue reports nor the reclaim,
 * which is when misses need reporting and pools drain. A task at or above
 * 50 that hogs a cpu starves the IRQ threads as well.
 *
 * The cost is visible in /proc/rtmon/status: the last tick's duration, the
 * worst one, the worst batch (the longest stretch without preemption; in
 * an emulated guest host scheduling inflates it) and how often a task was
 * waiting for the cpu at the end of a batch (it ran then, mid-tick).
 * Durations are unsigned long nanoseconds: one word, never torn on 32-bit.
 */
#include <linux/kthread.h>
#include <linux/hrtimer.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/timekeeping.h>

#include "rtmon.h"

/* units (a chain, a cpu's slots, a table bucket) per non-preemptible step */
#define RTMON_TICK_BATCH	64

static struct task_struct *rtmon_tick_task;
static unsigned long rtmon_tick_last_ns, rtmon_tick_worst_ns;
static unsigned long rtmon_tick_worst_batch_ns, rtmon_tick_count;
static unsigned long rtmon_tick_yields;	/* a task was waiting at a batch's end */

static void rtmon_tick_pass(struct rtm_core *c)
{
	unsigned long worst_batch = 0, took;
	struct rtm_tick_pos pos;
	u64 t0, b0, batch;
	int more;

	t0 = local_clock();
	rtm_tick_begin(c, &pos, ktime_get_mono_fast_ns());
	do {
		preempt_disable();
		b0 = local_clock();
		more = rtm_tick_run(c, smp_processor_id(), &pos,
				    RTMON_TICK_BATCH);
		batch = local_clock() - b0;
		/* it gets the cpu now, not at the end of the tick */
		if (need_resched())
			WRITE_ONCE(rtmon_tick_yields, rtmon_tick_yields + 1);
		preempt_enable();
		if (batch > worst_batch)
			worst_batch = batch;
		cond_resched();
	} while (more);
	took = local_clock() - t0;
	WRITE_ONCE(rtmon_tick_last_ns, took);
	if (took > rtmon_tick_worst_ns)
		WRITE_ONCE(rtmon_tick_worst_ns, took);
	if (worst_batch > rtmon_tick_worst_batch_ns)
		WRITE_ONCE(rtmon_tick_worst_batch_ns, worst_batch);
	WRITE_ONCE(rtmon_tick_count, rtmon_tick_count + 1);
	rtmon_wake_readers_pending(true);
}

static int rtmon_tick_fn(void *unused)
{
	struct rtm_core *c;
	ktime_t period;

	sched_set_fifo(current);
	while (!kthread_should_stop()) {
		period = ms_to_ktime(rtmon_param_tick_ms);
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule_hrtimeout(&period, HRTIMER_MODE_REL);
		__set_current_state(TASK_RUNNING);
		c = READ_ONCE(rtmon_core);
		if (c)
			rtmon_tick_pass(c);
	}
	return 0;
}

/* After rtmon_core is published. */
int rtmon_tick_start(void)
{
	struct task_struct *t;

	t = kthread_run(rtmon_tick_fn, NULL, "rtmon_tick");
	if (IS_ERR(t))
		return PTR_ERR(t);
	rtmon_tick_task = t;
	return 0;
}

/* After rtmon_core is cleared: waits for a tick under way, none follows. */
void rtmon_tick_stop(void)
{
	if (!rtmon_tick_task)
		return;
	kthread_stop(rtmon_tick_task);
	rtmon_tick_task = NULL;
}

void rtmon_tick_info(struct rtmon_tick_info *t)
{
	t->period_ms = rtmon_param_tick_ms;
	t->batch = RTMON_TICK_BATCH;
	t->count = READ_ONCE(rtmon_tick_count);
	t->last_ns = READ_ONCE(rtmon_tick_last_ns);
	t->worst_ns = READ_ONCE(rtmon_tick_worst_ns);
	t->worst_batch_ns = READ_ONCE(rtmon_tick_worst_batch_ns);
	t->yields = READ_ONCE(rtmon_tick_yields);
}

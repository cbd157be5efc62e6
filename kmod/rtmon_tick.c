// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon_tick.c - the housekeeping tick: overdue reports, reclaim of chains
 * past max_age_ms, pruning (rtm_ev_tick's work, kmod/core/rtm_tick.c), and
 * the reader's wakeup for records no batch woke it for (rtmon_tracker.c).
 *
 * The scan visits every chain, every cpu's slots and every task and cookie
 * table bucket: 13-24 us at the default sizes, milliseconds at the largest
 * the module accepts. A monitor of real-time latency must not add that
 * much to the latency it measures, so the tick is not a timer callback
 * (ktimers/N or softirq, preemption off throughout) but delayed work in a
 * kworker (SCHED_OTHER), done in batches of RTMON_TICK_BATCH units with
 * preemption off (the record hook's per-cpu statistics need it) and a
 * preemption point between them: a real-time task waits at most one batch
 * for its cpu. The core's tick is safe to run that way: it takes no locks,
 * may migrate between steps, and runs concurrently with events.
 *
 * The cost is visible in /proc/rtmon/status: the last tick's duration, the
 * worst one, the worst batch (the longest stretch without preemption; in
 * an emulated guest host scheduling inflates it) and how often a task was
 * waiting for the cpu at the end of a batch (it ran then, mid-tick).
 * Durations are unsigned long nanoseconds: one word, never torn on 32-bit.
 */
#include <linux/workqueue.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/jiffies.h>
#include <linux/timekeeping.h>

#include "rtmon.h"

/* units (a chain, a cpu's slots, a table bucket) per non-preemptible step */
#define RTMON_TICK_BATCH	64

static struct delayed_work rtmon_tick_work;
static unsigned long rtmon_tick_last_ns, rtmon_tick_worst_ns;
static unsigned long rtmon_tick_worst_batch_ns, rtmon_tick_count;
static unsigned long rtmon_tick_yields;	/* a task was waiting at a batch's end */

static void rtmon_tick_queue(void)
{
	queue_delayed_work(system_unbound_wq, &rtmon_tick_work,
			   msecs_to_jiffies(rtmon_param_tick_ms));
}

static void rtmon_tick_fn(struct work_struct *w)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);
	unsigned long worst_batch = 0, took;
	struct rtm_tick_pos pos;
	u64 t0, b0, batch;
	int more;

	if (!c)
		return;		/* stopped: rtmon_tick_stop() cancels us */
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
	rtmon_wake_readers_pending();
	rtmon_tick_queue();
}

void rtmon_tick_init(void)
{
	INIT_DELAYED_WORK(&rtmon_tick_work, rtmon_tick_fn);
}

/* After rtmon_core is published. */
void rtmon_tick_start(void)
{
	rtmon_tick_queue();
}

/* After rtmon_core is cleared: waits for a tick under way, none follows. */
void rtmon_tick_stop(void)
{
	cancel_delayed_work_sync(&rtmon_tick_work);
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

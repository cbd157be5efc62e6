// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon_tracker.c - the chain-tracking core inside the kernel: its memory,
 * targets, start/stop (the housekeeping tick: rtmon_tick.c), what happens to each record
 * (per-target statistics, tracepoints, waking readers) and the record
 * readout for /dev/rtmon.
 *
 * All memory is taken here at load time: one vmalloc'ed block for the core
 * (pools, tables, rings) and per-cpu statistics. Nothing is allocated while
 * tracking. Readers are woken through irq_work: records complete inside
 * sched_switch/sched_waking probes, where waking a task would deadlock on
 * the runqueue lock.
 */
#include <linux/module.h>
#include <linux/vmalloc.h>
#include <linux/irq_work.h>
#include <linux/cpumask.h>
#include <linux/log2.h>
#include <linux/capability.h>
#include <linux/u64_stats_sync.h>

#include "rtmon.h"
#include "rtmon_compat.h"
#include "rtmon_trace.h"

struct rtm_core *rtmon_core;		/* published while running */
DEFINE_MUTEX(rtmon_ctl_lock);
DECLARE_WAIT_QUEUE_HEAD(rtmon_readers_wq);

static struct rtm_core *rtmon_core_mem;	/* the core, running or not */
static struct rtm_params rtmon_params;
static size_t rtmon_core_size;
/*
 * One per cpu: on PREEMPT_RT an irq_work runs in irq_work/N of the cpu
 * that queued it, and a pending one cannot be queued again; a single one
 * would hold every cpu's wakeups behind a busy real-time task there.
 */
static DEFINE_PER_CPU(struct irq_work, rtmon_wake_work);
/*
 * Records published on this cpu since it last woke the reader, and
 * whether one of them is a miss or a timeout. Waking the reader for every
 * record costs more than tracking the chain. Misses wake it at once
 * (rtmond snapshots the trace buffers when it reads one), other records
 * every wake_batch records; the housekeeping tick (a SCHED_FIFO kthread on
 * a hard hrtimer, rtmon_tick.c) takes the rest at its next pass. No timer
 * is armed on the record's cpu: it would expire one period after a
 * periodic task's wakeup, in that task's next response.
 */
static DEFINE_PER_CPU(unsigned int, rtmon_unwoken);
static DEFINE_PER_CPU(bool, rtmon_wake_urgent);
/* how the reader was woken (/proc/rtmon/status): rare, so shared */
static atomic_long_t rtmon_wakes_miss, rtmon_wakes_batch, rtmon_wakes_tick;
/* a wakeup was sent since the reader last found nothing to read */
static bool rtmon_reader_woken;
static bool rtmon_running;
static unsigned int rtmon_read_cpu;	/* round-robin over the cpu rings */

/* User-visible target definitions (control path, under rtmon_ctl_lock). */
static struct rtmon_target rtmon_targets[RTM_MAX_TARGETS];
static unsigned long rtmon_target_used[BITS_TO_LONGS(RTM_MAX_TARGETS)];
/* deleted since the last grace period: reused only after one */
static unsigned long rtmon_target_retired[BITS_TO_LONGS(RTM_MAX_TARGETS)];

/*
 * Written by the record hook on its cpu, read from any cpu. syncp: on
 * 32-bit cpus a u64 is two words and a reader elsewhere could see half an
 * update (armhf without LPAE); there it is a sequence count that readers
 * retry on, its writer has interrupts off so that no nested record can
 * reenter it. On 64-bit it is empty and costs nothing.
 */
struct rtmon_cpu_stats {
	struct u64_stats_sync syncp;
	struct rtmon_tgt_stats t[RTM_MAX_TARGETS];
	u64 deadline_misses;
};
static struct rtmon_cpu_stats __percpu *rtmon_stats;

/*
 * Sets no woken flag: on PREEMPT_RT this is a preemptible thread, and a
 * flag set before a wakeup that a busy task holds back stops the tick's.
 */
static void rtmon_wake_readers(struct irq_work *w)
{
	wake_up_interruptible(&rtmon_readers_wq);
}

/* /proc/rtmon/status's histogram: log2 of the latency in us (RTMON_HIST_BUCKETS) */
static unsigned int rtmon_status_bucket(u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC);

	if (!us)
		return 0;
	return min_t(unsigned int, ilog2(us) + 1, RTMON_HIST_BUCKETS - 1);
}

/*
 * Called by the core for every record it emits, on the emitting cpu, in
 * probe context (possibly inside sched_switch with the runqueue locked):
 * count it, trace it. The records of a misses-only target that met their
 * deadline come here too (seq 0) and go no further: the core keeps them
 * out of the ring and out of the numbering (RTM_TGT_MISSES_ONLY).
 */
static bool rtmon_on_record(void *arg, u32 cpu, const struct rtm_record *r)
{
	bool miss = r->flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT);
	u32 id = r->target_id;

	if (id < RTM_MAX_TARGETS) {
		struct u64_stats_sync *syncp = this_cpu_ptr(&rtmon_stats->syncp);
		unsigned long flags;

		flags = u64_stats_update_begin_irqsave(syncp);
		/* this_cpu ops: safe against a nested record on this cpu */
		if (r->flags & RTM_REC_F_TIMEOUT) {
			this_cpu_inc(rtmon_stats->t[id].overdue);
		} else if (!(r->flags & RTM_REC_F_REPOLL)) {
			/* (a REPOLL latency is only a bound: not in the stats) */
			struct rtmon_tgt_stats *s = this_cpu_ptr(&rtmon_stats->t[id]);
			u64 lat = r->latency_ns;
			int i;

			this_cpu_inc(rtmon_stats->t[id].chains);
			this_cpu_add(rtmon_stats->t[id].sum_ns, lat);
			this_cpu_inc(rtmon_stats->t[id].hist[rtmon_status_bucket(lat)]);
			for (i = 0; i < RTM_BLAME_NR; i++)
				this_cpu_add(rtmon_stats->t[id].blame_ns[i],
					     r->blame.ns[i]);
			/* min/max: a nested update may be lost, never torn */
			if (!READ_ONCE(s->min_ns) || lat < READ_ONCE(s->min_ns))
				WRITE_ONCE(s->min_ns, lat ? lat : 1);
			if (lat > READ_ONCE(s->max_ns))
				WRITE_ONCE(s->max_ns, lat);
			if (r->flags & RTM_REC_F_DEADLINE_MISS) {
				this_cpu_inc(rtmon_stats->t[id].misses);
				this_cpu_inc(rtmon_stats->deadline_misses);
			}
		}
		u64_stats_update_end_irqrestore(syncp, flags);
	}
	trace_rtmon_chain(r);	/* seq 0: a misses-only target's, not kept */
	if (miss) {
		trace_rtmon_deadline_miss(r);
		this_cpu_write(rtmon_wake_urgent, true);
	}
	return true;
}

/* Wake the reader from this cpu (irq_work: any context), counted in n. */
static void rtmon_wake_now(atomic_long_t *n)
{
	atomic_long_inc(n);
	this_cpu_write(rtmon_unwoken, 0);
	this_cpu_write(rtmon_wake_urgent, false);
	irq_work_queue(this_cpu_ptr(&rtmon_wake_work));
}

/*
 * After the record is in its ring: wake the reader for a miss, or when
 * wake_batch records wait; the tick takes the rest.
 */
static void rtmon_on_published(void *arg, u32 cpu)
{
	if (this_cpu_read(rtmon_wake_urgent))
		rtmon_wake_now(&rtmon_wakes_miss);
	else if (this_cpu_inc_return(rtmon_unwoken) >= rtmon_param_wake_batch)
		rtmon_wake_now(&rtmon_wakes_batch);
}

/*
 * The reader found nothing and is about to sleep: a record published from
 * now on needs a wakeup. The flag is cleared before the rings are looked
 * at, so that the tick, which looks at them first, cannot miss one.
 */
bool rtmon_reader_idle_check(void)
{
	WRITE_ONCE(rtmon_reader_woken, false);
	smp_mb();	/* pairs with rtmon_wake_readers_pending() */
	return rtmon_records_pending();
}

/*
 * From the tick and at stop (process context): records no miss or batch
 * woke the reader for. A reader already woken and not yet run needs no
 * second wakeup, so each tick wakeup ends one sleep that found nothing.
 */
void rtmon_wake_readers_pending(bool tick)
{
	if (!wq_has_sleeper(&rtmon_readers_wq) || !rtmon_records_pending())
		return;
	smp_mb();	/* pairs with rtmon_reader_idle_check() */
	if (tick && READ_ONCE(rtmon_reader_woken))
		return;
	WRITE_ONCE(rtmon_reader_woken, true);
	atomic_long_inc(&rtmon_wakes_tick);
	wake_up_interruptible(&rtmon_readers_wq);
}

void rtmon_reader_wakes(unsigned long *miss, unsigned long *batch,
			unsigned long *tick)
{
	*miss = atomic_long_read(&rtmon_wakes_miss);
	*batch = atomic_long_read(&rtmon_wakes_batch);
	*tick = atomic_long_read(&rtmon_wakes_tick);
}

bool rtmon_tracker_running(void)
{
	return READ_ONCE(rtmon_running);
}

void rtmon_tracker_params(struct rtm_params *p)
{
	*p = rtmon_params;
}

/* Start tracking: publish the core to the probes. */
int rtmon_tracker_start(void)
{
	int ret;

	lockdep_assert_held(&rtmon_ctl_lock);
	if (rtmon_running)
		return 0;
	rtmon_probes_publish(rtmon_core_mem);
	WRITE_ONCE(rtmon_core, rtmon_core_mem);
	WRITE_ONCE(rtmon_running, true);
	ret = rtmon_tick_start();
	if (ret)	/* no tick, no reclaim: no tracking either */
		rtmon_tracker_stop();
	return ret;
}

/*
 * Stop tracking. Open chains end here, silently (chains_expired): kept,
 * they would complete after a START with the stopped time in their
 * latency, or be reported overdue. Records already in the rings stay
 * readable.
 */
void rtmon_tracker_stop(void)
{
	lockdep_assert_held(&rtmon_ctl_lock);
	if (!rtmon_running)
		return;
	WRITE_ONCE(rtmon_core, NULL);
	rtmon_probes_unpublish();
	WRITE_ONCE(rtmon_running, false);
	/* probes that still saw the core finish before we return */
	tracepoint_synchronize_unregister();
	rtmon_tick_stop();
	/* no event call runs now: any cpu's counters will do */
	rtm_core_expire_all(rtmon_core_mem, raw_smp_processor_id());
	/* the tick is gone: hand the reader what no batch woke it for */
	rtmon_wake_readers_pending(false);
}

static int rtmon_spec_of(const struct rtmon_target *t,
			 struct rtm_target_spec *s, int irq)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->comm, t->comm, sizeof(s->comm));
	s->pid = t->pid;
	s->tgid = t->tgid;
	s->end = t->end;
	s->deadline_ns = t->deadline_ns;
	s->timers = t->timers;
	if (t->flags & RTMON_TF_MISSES_ONLY)
		s->flags |= RTM_TGT_MISSES_ONLY;
	switch (t->src) {
	case RTMON_SRC_ANY:
		s->src = RTM_SRC_ANY;
		break;
	case RTMON_SRC_IRQ:
		s->src = RTM_SRC_IRQ;
		s->irq = irq;
		break;
	case RTMON_SRC_TIMER:
		s->src = RTM_SRC_TIMER;
		break;
	case RTMON_SRC_IRQ_ANY:
		s->src = RTM_SRC_IRQ_ANY;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/*
 * Add a target; t has been copied from user space and validated for
 * layout by the caller. Fills t->id. Needs rtmon_ctl_lock.
 */
int rtmon_target_add(struct rtmon_target *t)
{
	struct rtm_target_spec spec;
	int id, cpu, irq = -1, ret;

	lockdep_assert_held(&rtmon_ctl_lock);
	if (t->src == RTMON_SRC_IRQ) {
		if (t->irq_name[0]) {
			irq = rtmon_irq_by_name(t->irq_name);
			if (irq < 0)
				return irq;
		} else {
			irq = t->irq;
		}
		if (irq < 0 || irq >= RTM_MAX_IRQ)
			return -EINVAL;
		t->irq = irq;
	}
	id = find_first_zero_bit(rtmon_target_used, RTM_MAX_TARGETS);
	if (id >= RTM_MAX_TARGETS)
		return -ENOSPC;
	/*
	 * A probe or tick that matched the id's old target may still be
	 * emitting into its statistics: they all run with preemption off,
	 * so one grace period lets them finish (one for all ids retired).
	 */
	if (test_bit(id, rtmon_target_retired)) {
		synchronize_rcu();
		bitmap_zero(rtmon_target_retired, RTM_MAX_TARGETS);
	}
	ret = rtmon_spec_of(t, &spec, irq);
	if (ret)
		return ret;
	/*
	 * Prepare, then publish: the core matches the target from
	 * rtm_core_set_target() on, and its first records must find fresh
	 * statistics (a reused id keeps the old ones). The core publishes
	 * the misses-only bit with the target.
	 */
	for_each_possible_cpu(cpu)
		memset(&per_cpu_ptr(rtmon_stats, cpu)->t[id], 0,
		       sizeof(struct rtmon_tgt_stats));
	smp_wmb();	/* zeroed before the target is seen */
	ret = rtm_core_set_target(rtmon_core_mem, id, &spec);
	if (ret)
		return ret;
	t->id = id;
	rtmon_targets[id] = *t;
	set_bit(id, rtmon_target_used);
	return 0;
}

int rtmon_target_del(u32 id)
{
	lockdep_assert_held(&rtmon_ctl_lock);
	if (id >= RTM_MAX_TARGETS || !test_bit(id, rtmon_target_used))
		return -ENOENT;
	rtm_core_clear_target(rtmon_core_mem, id);
	set_bit(id, rtmon_target_retired);
	clear_bit(id, rtmon_target_used);
	return 0;
}

int rtmon_target_get(u32 id, struct rtmon_target *t)
{
	lockdep_assert_held(&rtmon_ctl_lock);
	if (id >= RTM_MAX_TARGETS || !test_bit(id, rtmon_target_used))
		return -ENOENT;
	*t = rtmon_targets[id];
	return 0;
}

/*
 * Sum of the per-cpu statistics of target id: each cpu's part is one
 * consistent copy (a 32-bit reader retries while that cpu writes).
 */
void rtmon_target_stats(u32 id, struct rtmon_tgt_stats *out)
{
	struct rtmon_tgt_stats s;
	unsigned int start;
	int cpu, i;

	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		const struct rtmon_cpu_stats *c = per_cpu_ptr(rtmon_stats, cpu);

		do {
			start = u64_stats_fetch_begin(&c->syncp);
			memcpy(&s, &c->t[id], sizeof(s));
		} while (u64_stats_fetch_retry(&c->syncp, start));
		out->chains += s.chains;
		out->misses += s.misses;
		out->overdue += s.overdue;
		out->sum_ns += s.sum_ns;
		if (s.min_ns && (!out->min_ns || s.min_ns < out->min_ns))
			out->min_ns = s.min_ns;
		out->max_ns = max(out->max_ns, s.max_ns);
		for (i = 0; i < RTMON_HIST_BUCKETS; i++)
			out->hist[i] += s.hist[i];
		for (i = 0; i < RTM_BLAME_NR; i++)
			out->blame_ns[i] += s.blame_ns[i];
	}
}

static u64 rtmon_deadline_misses(void)
{
	unsigned int start;
	u64 sum = 0, v;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct rtmon_cpu_stats *c = per_cpu_ptr(rtmon_stats, cpu);

		do {
			start = u64_stats_fetch_begin(&c->syncp);
			v = c->deadline_misses;
		} while (u64_stats_fetch_retry(&c->syncp, start));
		sum += v;
	}
	return sum;
}

void rtmon_counters(struct rtmon_counters *o)
{
	struct rtm_stats s;
	int i;

	rtm_core_stats(rtmon_core_mem, &s);
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->chains_started = s.chains_started;
	o->chains_completed = s.chains_completed;
	o->chains_abandoned = s.chains_abandoned;
	o->chains_expired = s.chains_expired;
	o->chains_overdue = s.chains_overdue;
	o->branches_opened = s.branches_opened;
	o->branches_pruned = s.branches_pruned;
	o->records_emitted = s.records_emitted;
	o->records_read = s.records_read;
	o->records_skipped = s.records_skipped;
	o->drop_ring_full = s.drop_ring_full;
	o->drop_no_chain = s.drop_no_chain;
	o->drop_no_branch = s.drop_no_branch;
	o->drop_task_table = s.drop_task_bucket;
	o->drop_cookie_table = s.drop_cookie_bucket;
	o->drop_hops = s.drop_hops;
	o->hook_skipped = s.hook_skipped;
	o->irq_rerun = s.irq_rerun;
	o->irq_coalesced = s.irq_coalesced;
	o->irq_nowake = s.irq_nowake;
	o->work_untraced = s.work_untraced;
	o->work_handoff = s.work_handoff;
	o->softirq_repoll = s.softirq_repoll;
	o->deadline_misses = rtmon_deadline_misses();
	for (i = 0; i < RTMON_NR_PROBES && i < ARRAY_SIZE(o->probe_hits); i++)
		o->probe_hits[i] = rtmon_probe_hits(i);
}

/*
 * Pop one record, taking the cpu rings in turn so that no cpu starves the
 * others. Readers are serialised by /dev/rtmon (one reader at a time).
 */
int rtmon_record_pop(struct rtm_record *out)
{
	unsigned int n = rtmon_params.ncpus, i, cpu;

	for (i = 0; i < n; i++) {
		cpu = (rtmon_read_cpu + i) % n;
		if (rtm_core_read(rtmon_core_mem, cpu, out)) {
			rtmon_read_cpu = (cpu + 1) % n;
			return 1;
		}
	}
	return 0;
}

/*
 * The same, acknowledged: the slot stays taken until rtmon_records_ack().
 * Returns the record's cpu + 1 (for rtmon_record_unpeek()), 0 if none.
 */
int rtmon_record_peek(struct rtm_record *out)
{
	unsigned int n = rtmon_params.ncpus, i, cpu;

	for (i = 0; i < n; i++) {
		cpu = (rtmon_read_cpu + i) % n;
		if (rtm_core_peek(rtmon_core_mem, cpu, out)) {
			rtmon_read_cpu = (cpu + 1) % n;
			return cpu + 1;
		}
	}
	return 0;
}

/* The record peeked last on cpu could not be delivered: it goes back. */
void rtmon_record_unpeek(unsigned int cpu)
{
	rtm_core_unpeek(rtmon_core_mem, cpu);
}

/* Free every record peeked so far; returns how many. */
unsigned int rtmon_records_ack(void)
{
	unsigned int n = 0, cpu;

	for (cpu = 0; cpu < rtmon_params.ncpus; cpu++)
		n += rtm_core_release(rtmon_core_mem, cpu);
	return n;
}

/* The reader went away: what it peeked is read again by the next one. */
void rtmon_records_rewind(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < rtmon_params.ncpus; cpu++)
		rtm_core_rewind(rtmon_core_mem, cpu);
}

bool rtmon_records_pending(void)
{
	return rtm_core_pending(rtmon_core_mem);
}

int rtmon_tracker_init(struct rtm_params *p)
{
	int cpu;

	rtmon_params = *p;
	rtmon_core_size = rtm_core_memsize(p);
	if (!rtmon_core_size)
		return -EINVAL;
	rtmon_stats = alloc_percpu(struct rtmon_cpu_stats);
	if (!rtmon_stats)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(rtmon_stats, cpu)->syncp);
	/* vmalloc memory is page aligned, more than the core's 64 bytes */
	rtmon_core_mem = vzalloc(rtmon_core_size);
	if (!rtmon_core_mem) {
		pr_err("rtmon: cannot allocate %zu bytes for the core\n",
		       rtmon_core_size);
		free_percpu(rtmon_stats);
		return -ENOMEM;
	}
	if (!rtm_core_init(rtmon_core_mem, rtmon_core_size, p)) {
		vfree(rtmon_core_mem);
		free_percpu(rtmon_stats);
		return -EINVAL;
	}
	rtm_core_set_hook(rtmon_core_mem, rtmon_on_record, NULL);
	rtm_core_set_notify(rtmon_core_mem, rtmon_on_published);
	for_each_possible_cpu(cpu) {
		init_irq_work(per_cpu_ptr(&rtmon_wake_work, cpu),
			      rtmon_wake_readers);
	}
	pr_info("rtmon: core %zu KiB: %u chains, %u branches, %u records per cpu on %u cpus\n",
		rtmon_core_size >> 10, p->nchains, p->nbranches, p->ring_slots,
		p->ncpus);
	return 0;
}

/* After the probes are gone: nothing can reach the core any more. */
void rtmon_tracker_exit(void)
{
	int cpu;

	mutex_lock(&rtmon_ctl_lock);
	rtmon_tracker_stop();
	mutex_unlock(&rtmon_ctl_lock);
	rtmon_tick_stop();
	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&rtmon_wake_work, cpu));
	vfree(rtmon_core_mem);
	rtmon_core_mem = NULL;
	free_percpu(rtmon_stats);
}

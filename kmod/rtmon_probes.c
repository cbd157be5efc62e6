// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon_probes.c - attach to the kernel's scheduling and interrupt
 * tracepoints.
 *
 * None of these tracepoints is exported to modules, so each is found by name
 * with for_each_kernel_tracepoint() and attached with
 * tracepoint_probe_register_prio(), below every tracer's default priority
 * (RTMON_PROBE_PRIO). Probes run with preemption disabled, may nest
 * (a hard IRQ interrupting a softirq or task-context probe), and on
 * sched_switch/sched_waking with scheduler locks held: they must never sleep,
 * allocate or wake anything.
 */
#include <linux/module.h>
#include <linux/tracepoint.h>
#include <linux/interrupt.h>
#include <linux/hrtimer.h>
#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/timer.h>
#include <trace/events/workqueue.h>

#include "rtmon.h"
#include "rtmon_compat.h"
#include "core/rtm_core.h"
#include "core/rtm_fast.h"

DEFINE_PER_CPU(struct rtmon_probe_counts, rtmon_probe_counts);

/*
 * rtmon's probes run after those of every tracer attached at the default
 * priority (ftrace's events, perf, LTTng), whichever attached first. A
 * recording of the same run (trace-cmd, replayed by rtmon-replay) then
 * stamps every event before rtmon reads the clock, by the same stretch of
 * the tracer's own work, which then cancels out between a chain's
 * start and its end; with rtmon first, its own work (a completion and its
 * record at a switch-in, not at an IRQ's entry) would stand between the
 * two clock reads of some events only (tests/vm/guest/replay-module.sh
 * measures both under instruction counting).
 */
#define RTMON_PROBE_PRIO	(TRACEPOINT_DEFAULT_PRIO - 1)

/*
 * What the sched_waking and sched_switch probes read first, published
 * with the core (rtmon_probes_publish()): this cpu's slots, and the task
 * table's live count. While no core runs (and on a cpu the core does not
 * know) they point at zeros, so that the common path follows no core
 * pointer and tests no NULL: a per-cpu load and three words, and on a
 * switch one more word (core/rtm_fast.h, rtm_*_gate()). Read with
 * __this_cpu_read(): probes run with preemption disabled, and on arm64 and
 * arm this_cpu_read() would raise and lower the preempt count around it.
 */
static struct rtm_cpu rtmon_cpu_quiet;
static rtm_a32 rtmon_tasks_quiet;
static DEFINE_PER_CPU(struct rtm_cpu *, rtmon_pc);	/* set before attaching */
static rtm_a32 *rtmon_tasks_live = &rtmon_tasks_quiet;
static rtm_a32 *rtmon_cookies_live = &rtmon_tasks_quiet;	/* items queued */

/* Before rtmon_core is published. */
void rtmon_probes_publish(struct rtm_core *c)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (cpu < c->p.ncpus)
			WRITE_ONCE(per_cpu(rtmon_pc, cpu), &c->cpus[cpu]);
	WRITE_ONCE(rtmon_tasks_live, &c->tasks.live);
	WRITE_ONCE(rtmon_cookies_live, &c->cookies.live);
}

/* With rtmon_core cleared, before the wait for probes under way. */
void rtmon_probes_unpublish(void)
{
	unsigned int cpu;

	WRITE_ONCE(rtmon_tasks_live, &rtmon_tasks_quiet);
	WRITE_ONCE(rtmon_cookies_live, &rtmon_tasks_quiet);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu(rtmon_pc, cpu), &rtmon_cpu_quiet);
}

/*
 * The hrtimer callbacks whose kind a target may choose (RTM_TIMER_*):
 * hrtimer_wakeup() of every sleeper, and the others found by name (NULL
 * where this kernel has none: their timers count as "other").
 */
static struct {
	rtmon_hrtimer_fn sleeper, timerfd, posix, itimer, timerlat;
} rtmon_timer_fns;

static inline u32 rtmon_timer_kind(const struct hrtimer *timer)
{
	rtmon_hrtimer_fn fn = timer->function;

	if (fn == rtmon_timer_fns.sleeper)
		return RTM_TIMER_SLEEPER;
	if (fn == rtmon_timer_fns.timerfd)
		return RTM_TIMER_TIMERFD;
	if (fn == rtmon_timer_fns.posix || fn == rtmon_timer_fns.itimer)
		return RTM_TIMER_POSIX;
	if (fn == rtmon_timer_fns.timerlat)
		return RTM_TIMER_TIMERLAT;
	return RTM_TIMER_OTHER;
}

/* Which timer kinds this kernel lets rtmon tell apart, for the status. */
int rtmon_timer_kinds_known(char *buf, size_t len)
{
	return scnprintf(buf, len, "sleeper%s%s%s",
			 rtmon_timer_fns.timerfd ? " timerfd" : "",
			 rtmon_timer_fns.posix ? " posix" : "",
			 rtmon_timer_fns.timerlat ? " timerlat" : "");
}

static void rtmon_timer_fns_find(void)
{
	rtmon_kallsyms_fn lookup = rtmon_kallsyms_lookup_fn();

	rtmon_timer_fns.sleeper = rtmon_hrtimer_sleeper_fn();
	rtmon_timer_fns.itimer = rtmon_hrtimer_itimer_fn();
	if (!lookup) {
		pr_warn("rtmon: no kallsyms lookup (kprobes): timerfd, POSIX timer and timerlat chains count as \"other\" timers\n");
		return;
	}
	rtmon_timer_fns.timerfd = (rtmon_hrtimer_fn)lookup("timerfd_tmrproc");
	rtmon_timer_fns.posix = (rtmon_hrtimer_fn)lookup("posix_timer_fn");
	/* CONFIG_TIMERLAT_TRACER only */
	rtmon_timer_fns.timerlat = (rtmon_hrtimer_fn)lookup("timerlat_irq");
}

static inline void rtmon_count(enum rtmon_probe_id id)
{
	local64_inc(this_cpu_ptr(&rtmon_probe_counts.hits[id]));
}

/*
 * Benchmark build (tests/bench/kmod): KCFLAGS=-DRTMON_BENCH_EMPTY_PROBES
 * makes every probe return at once, to measure what attaching costs.
 */
#ifdef RTMON_BENCH_EMPTY_PROBES
#define rtmon_bench_empty()	return
#else
#define rtmon_bench_empty()	do { } while (0)
#endif

/*
 * A timer's id in records: for a sleeper (nanosleep, clock_nanosleep,
 * futex timeouts...) the pid of the sleeping task, else 0. Never a kernel
 * address: records reach user space.
 */
static inline u64 rtmon_timer_id(struct hrtimer *timer)
{
	struct task_struct *t;

	if (timer->function != rtmon_timer_fns.sleeper)
		return 0;
	t = READ_ONCE(container_of(timer, struct hrtimer_sleeper, timer)->task);
	return t ? t->pid : 0;
}

static inline u64 rtmon_now(void)
{
	/* CLOCK_MONOTONIC, NMI-safe, comparable with clock_gettime() */
	return ktime_get_mono_fast_ns();
}

static inline u32 rtmon_ctx(void)
{
	if (in_hardirq())
		return RTM_CTX_HARDIRQ;
	if (in_serving_softirq())
		return RTM_CTX_SOFTIRQ;
	return RTM_CTX_TASK;
}

static void rtmon_irq_entry(void *data, int irq, struct irqaction *action)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);

	rtmon_bench_empty();
	rtmon_count(RTMON_P_IRQ_ENTRY);
	if (c)
		rtm_ev_irq_entry(c, smp_processor_id(), rtmon_now(), irq);
}

/*
 * A handler returning IRQ_WAKE_THREAD has its thread woken right after
 * this tracepoint (__irq_wake_thread). The core is told which thread, so
 * it takes only that thread's wakeup as the chain's next hop, in any
 * context. A thread already awake (runnable, running its previous pass,
 * being woken, or signalled for a pass: rtmon_irq_thread_wakes()) is only
 * marked to run again and no sched_waking is traced: the core then hands
 * the chain to the thread's next pass.
 */
static void rtmon_irq_exit(void *data, int irq, struct irqaction *action,
			   int ret)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);
	struct task_struct *t;

	rtmon_bench_empty();
	rtmon_count(RTMON_P_IRQ_EXIT);
	if (!c)
		return;
	t = (ret & IRQ_WAKE_THREAD) ? READ_ONCE(action->thread) : NULL;
	if (!t)
		rtm_ev_irq_exit(c, smp_processor_id(), rtmon_now(), irq,
				ret & IRQ_WAKE_THREAD, 0);
	else if (rtmon_irq_thread_wakes(action, t))
		rtm_ev_irq_exit(c, smp_processor_id(), rtmon_now(), irq, 1,
				t->pid);
	else
		rtm_ev_irq_exit_rerun(c, smp_processor_id(), rtmon_now(), irq,
				      t->pid, t->comm,
				      rtmon_task_running_cpu(t));
}

static void rtmon_softirq_raise(void *data, unsigned int vec_nr)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);
	u32 cpu, ctx;

	rtmon_bench_empty();
	rtmon_count(RTMON_P_SOFTIRQ_RAISE);
	if (!c)
		return;
	cpu = smp_processor_id();
	ctx = rtmon_ctx();
	if (rtm_softirq_raise_wanted(c, cpu, ctx, vec_nr))
		rtm_ev_softirq_raise(c, cpu, rtmon_now(), vec_nr, ctx);
}

static void rtmon_softirq_entry(void *data, unsigned int vec_nr)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);
	u32 cpu;

	rtmon_bench_empty();
	rtmon_count(RTMON_P_SOFTIRQ_ENTRY);
	if (!c)
		return;
	cpu = smp_processor_id();
	if (rtm_softirq_entry_wanted(c, cpu, vec_nr))
		rtm_ev_softirq_entry(c, cpu, rtmon_now(), vec_nr);
}

static void rtmon_softirq_exit(void *data, unsigned int vec_nr)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);
	u32 cpu;

	rtmon_bench_empty();
	rtmon_count(RTMON_P_SOFTIRQ_EXIT);
	if (!c)
		return;
	cpu = smp_processor_id();
	if (rtm_softirq_exit_wanted(c, cpu))
		rtm_ev_softirq_exit(c, cpu, rtmon_now(), vec_nr);
}

static noinline void rtmon_hrtimer_entry_track(struct rtm_core *c, u32 cpu,
					       u32 ctx, u32 kind,
					       struct hrtimer *timer)
{
	u64 ts = rtmon_now();

	rtm_ev_timer_entry(c, cpu, ts, rtmon_timer_id(timer),
			   rtmon_hrtimer_expiry_mono(timer), kind, ctx);
}

static void rtmon_hrtimer_entry(void *data, struct hrtimer *timer,
				ktime_t *now)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);
	u32 cpu, ctx, kind;

	rtmon_bench_empty();
	rtmon_count(RTMON_P_HRTIMER_ENTRY);
	if (!c)
		return;
	/* hard IRQ, or the timer softirq (ktimers on RT: SCHED_OTHER sleepers) */
	cpu = smp_processor_id();
	ctx = rtmon_ctx();
	kind = rtmon_timer_kind(timer);
	/* the tick and the timers no target wants: no clock read */
	if (rtm_timer_entry_wanted(c, cpu, ctx, kind))
		rtmon_hrtimer_entry_track(c, cpu, ctx, kind, timer);
}

static void rtmon_hrtimer_exit(void *data, struct hrtimer *timer)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);
	u32 cpu, ctx;

	rtmon_bench_empty();
	rtmon_count(RTMON_P_HRTIMER_EXIT);
	if (!c)
		return;
	cpu = smp_processor_id();
	ctx = rtmon_ctx();
	/*
	 * not the timer: hrtimer_wakeup() cleared the sleeper's task, and a
	 * HRTIMER_NORESTART callback may have freed the timer; not the
	 * clock: the exit adds no hop (rtm_core.h)
	 */
	if (rtm_timer_exit_wanted(c, cpu, ctx))
		rtm_ev_timer_exit(c, cpu, 0, 0, ctx);
}

/*
 * The probes below are split: the probe itself counts the hit and passes
 * the gate (a superset of the core's question, asked of this cpu's slots
 * in any context: most events of a busy system touch no chain), and only
 * then calls the part that asks the core's question, and reads the clock
 * and the tasks. Kept out of line, that part leaves the common path
 * without the register saves it needs (the questions: core/rtm_fast.h).
 */
static rtmon_slowpath void rtmon_sched_waking_track(void *data,
						    struct task_struct *p)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);
	u32 cpu, ctx;
	int run_cpu;

	if (!c)
		return;
	cpu = smp_processor_id();
	ctx = rtmon_ctx();
	if (!rtm_waking_wanted(c, cpu, ctx) || in_nmi() ||
	    rtmon_wake_is_lock_handoff(p))
		return;
	run_cpu = rtmon_task_running_cpu(p);
	if (likely(run_cpu < 0))
		rtm_ev_waking(c, cpu, rtmon_now(), ctx, current->pid, p->pid,
			      p->tgid, p->comm);
	else
		rtm_ev_waking_running(c, cpu, rtmon_now(), ctx, current->pid,
				      p->pid, p->tgid, p->comm, run_cpu);
}

static void rtmon_sched_waking(void *data, struct task_struct *p)
{
	rtmon_bench_empty();
	rtmon_count(RTMON_P_SCHED_WAKING);
	if (rtm_waking_gate(__this_cpu_read(rtmon_pc)))
		rtmon_sched_waking_track(data, p);
}

/*
 * The probe's own arguments: its call is a jump (gcc: noipa; clang, which
 * has no noipa, may still clone it).
 */
static rtmon_slowpath void rtmon_sched_switch_track(RTMON_SCHED_SWITCH_ARGS)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);
	struct rtm_switch_who who;
	long blocked;
	u32 cpu, ask;

	if (!c)
		return;
	cpu = smp_processor_id();
	if (!RTM_CPU_OK(c, cpu))
		return;
	/* the core's question, its table lookup kept for the core */
	ask = rtm_switch_ask(c, &c->cpus[cpu], next->pid);
	if (ask == RTM_ASK_NO)
		return;
	blocked = rtmon_switch_blocked(preempt, rtmon_prev_state(prev));
	/*
	 * Blocked while a try_to_wake_up() of it holds its pi_lock: that
	 * waker found it still queued and current (a sched_waking traced,
	 * seen as a wakeup of a running task) and now waits for this
	 * runqueue's lock; it wakes the task after this switch, with no
	 * second sched_waking: the work that wakeup handed the task is
	 * still to run.
	 */
	if (blocked && blocked != RTM_SWITCH_LOCK_WAIT &&
	    raw_spin_is_locked(&prev->pi_lock))
		blocked |= RTM_SWITCH_WAKE_PENDING;
	who.prev_prio = prev->prio;
	who.next_prio = next->prio;
	who.prev_comm = prev->comm;
	rtm_ev_switch_asked(c, cpu, rtmon_now(), prev->pid, blocked,
			    next->pid, next->tgid, next->comm, &who, ask);
}

static void rtmon_sched_switch(RTMON_SCHED_SWITCH_ARGS)
{
	rtmon_bench_empty();
	rtmon_count(RTMON_P_SCHED_SWITCH);
	if (rtm_switch_gate(__this_cpu_read(rtmon_pc),
			    READ_ONCE(rtmon_tasks_live)))
		rtmon_sched_switch_pass(rtmon_sched_switch_track);
}

/*
 * Workqueue items (core/rtm_kwork.c): an item queued by a context that
 * holds a branch carries the chain to the kworker that runs it, woken or
 * busy with earlier items (no wakeup then). The item's address is its key;
 * any queueing of a work whose branch still waits (a cancelled item's)
 * frees that branch, so the gate lets those through too.
 */
static rtmon_slowpath void rtmon_wq_queue_track(void *data,
						struct work_struct *work)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);
	u32 cpu, ctx;

	if (!c)
		return;
	cpu = smp_processor_id();
	ctx = rtmon_ctx();
	if (!rtm_kwork_queue_wanted(c, cpu, ctx, (u64)(unsigned long)work) ||
	    in_nmi())
		return;
	rtm_ev_kwork_queue(c, cpu, rtmon_now(), ctx, current->pid,
			   (u64)(unsigned long)work);
}

static void rtmon_wq_queue(void *data, rtmon_wq_req_cpu_t req_cpu,
			   struct pool_workqueue *pwq, struct work_struct *work)
{
	rtmon_bench_empty();
	rtmon_count(RTMON_P_WQ_QUEUE);
	if (rtm_kwork_queue_gate(__this_cpu_read(rtmon_pc),
				 READ_ONCE(rtmon_cookies_live)))
		rtmon_wq_queue_track(data, work);
}

static rtmon_slowpath void rtmon_wq_start_track(void *data,
						struct work_struct *work)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);

	/* a BH workqueue's item runs in softirq, in the task it interrupted */
	if (!c || !(current->flags & PF_WQ_WORKER) || rtmon_ctx() != RTM_CTX_TASK ||
	    !rtm_kwork_maybe(c, (u64)(unsigned long)work))
		return;
	rtm_ev_kwork_start(c, smp_processor_id(), rtmon_now(), RTM_CTX_TASK,
			   current->pid, current->tgid, current->comm,
			   (u64)(unsigned long)work);
}

static void rtmon_wq_start(void *data, struct work_struct *work)
{
	rtmon_bench_empty();
	rtmon_count(RTMON_P_WQ_START);
	if (rtm_ld32(READ_ONCE(rtmon_cookies_live)))
		rtmon_wq_start_track(data, work);
}

static rtmon_slowpath void rtmon_wq_end_track(void *data,
					      struct work_struct *work)
{
	struct rtm_core *c = READ_ONCE(rtmon_core);
	u32 cpu = smp_processor_id();

	/* the end only closes the item's branch: no clock read */
	if (c && (current->flags & PF_WQ_WORKER) && rtmon_ctx() == RTM_CTX_TASK &&
	    rtm_kwork_end_wanted(c, cpu))
		rtm_ev_kwork_end(c, cpu, 0, RTM_CTX_TASK, current->pid,
				 (u64)(unsigned long)work);
}

static void rtmon_wq_end(void *data, struct work_struct *work,
			 work_func_t function)
{
	rtmon_bench_empty();
	rtmon_count(RTMON_P_WQ_END);
	if (rtm_ld32(&__this_cpu_read(rtmon_pc)->task_cur))
		rtmon_wq_end_track(data, work);
}

/* A prototype that drifts from the kernel's fails the build here. */
static inline void rtmon_check_probe_types(void)
{
	check_trace_callback_type_irq_handler_entry(rtmon_irq_entry);
	check_trace_callback_type_irq_handler_exit(rtmon_irq_exit);
	check_trace_callback_type_softirq_raise(rtmon_softirq_raise);
	check_trace_callback_type_softirq_entry(rtmon_softirq_entry);
	check_trace_callback_type_softirq_exit(rtmon_softirq_exit);
	check_trace_callback_type_hrtimer_expire_entry(rtmon_hrtimer_entry);
	check_trace_callback_type_hrtimer_expire_exit(rtmon_hrtimer_exit);
	check_trace_callback_type_sched_waking(rtmon_sched_waking);
	check_trace_callback_type_sched_switch(rtmon_sched_switch);
	check_trace_callback_type_workqueue_queue_work(rtmon_wq_queue);
	check_trace_callback_type_workqueue_execute_start(rtmon_wq_start);
	check_trace_callback_type_workqueue_execute_end(rtmon_wq_end);
}

struct rtmon_probe {
	const char *name;
	void *func;
	struct tracepoint *tp;
	bool registered;
};

static struct rtmon_probe rtmon_probes[RTMON_NR_PROBES] = {
	[RTMON_P_IRQ_ENTRY]	= { "irq_handler_entry",    rtmon_irq_entry },
	[RTMON_P_IRQ_EXIT]	= { "irq_handler_exit",     rtmon_irq_exit },
	[RTMON_P_SOFTIRQ_RAISE]	= { "softirq_raise",        rtmon_softirq_raise },
	[RTMON_P_SOFTIRQ_ENTRY]	= { "softirq_entry",        rtmon_softirq_entry },
	[RTMON_P_SOFTIRQ_EXIT]	= { "softirq_exit",         rtmon_softirq_exit },
	[RTMON_P_HRTIMER_ENTRY]	= { "hrtimer_expire_entry", rtmon_hrtimer_entry },
	[RTMON_P_HRTIMER_EXIT]	= { "hrtimer_expire_exit",  rtmon_hrtimer_exit },
	[RTMON_P_SCHED_WAKING]	= { "sched_waking",         rtmon_sched_waking },
	[RTMON_P_SCHED_SWITCH]	= { "sched_switch",         rtmon_sched_switch },
	[RTMON_P_WQ_QUEUE]	= { "workqueue_queue_work", rtmon_wq_queue },
	[RTMON_P_WQ_START]	= { "workqueue_execute_start", rtmon_wq_start },
	[RTMON_P_WQ_END]	= { "workqueue_execute_end", rtmon_wq_end },
};

static void rtmon_find_tracepoint(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < RTMON_NR_PROBES; i++)
		if (!rtmon_probes[i].tp && !strcmp(tp->name, rtmon_probes[i].name))
			rtmon_probes[i].tp = tp;
}

const char *rtmon_probe_name(enum rtmon_probe_id id)
{
	return rtmon_probes[id].name;
}

bool rtmon_probe_registered(enum rtmon_probe_id id)
{
	return rtmon_probes[id].registered;
}

u64 rtmon_probe_hits(enum rtmon_probe_id id)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += local64_read(per_cpu_ptr(&rtmon_probe_counts.hits[id],
						cpu));
	return sum;
}

void rtmon_probes_unregister(void)
{
	int i;
	bool any = false;

	for (i = RTMON_NR_PROBES - 1; i >= 0; i--) {
		struct rtmon_probe *p = &rtmon_probes[i];

		if (!p->registered)
			continue;
		WARN_ON_ONCE(tracepoint_probe_unregister(p->tp, p->func, NULL));
		p->registered = false;
		any = true;
	}
	/* No probe may still be running when the caller frees state. */
	if (any)
		tracepoint_synchronize_unregister();
}

int rtmon_probes_register(void)
{
	int i, ret;

	rtmon_check_probe_types();
	rtmon_timer_fns_find();
	/* not in DEFINE_PER_CPU: a module's per-cpu section gets no relocation */
	rtmon_probes_unpublish();
	for (i = 0; i < RTMON_NR_PROBES; i++)
		rtmon_probes[i].tp = NULL;
	for_each_kernel_tracepoint(rtmon_find_tracepoint, NULL);

	for (i = 0; i < RTMON_NR_PROBES; i++) {
		struct rtmon_probe *p = &rtmon_probes[i];

		if (!p->tp) {
			pr_err("rtmon: tracepoint %s not found in this kernel\n",
			       p->name);
			ret = -ENOENT;
			goto fail;
		}
		ret = tracepoint_probe_register_prio(p->tp, p->func, NULL,
						     RTMON_PROBE_PRIO);
		if (ret) {
			pr_err("rtmon: cannot attach to %s: %d\n", p->name, ret);
			goto fail;
		}
		p->registered = true;
	}
	return 0;
fail:
	rtmon_probes_unregister();
	return ret;
}

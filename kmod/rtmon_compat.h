/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtmon_compat.h - every kernel-version difference rtmon depends on.
 *
 * The rest of the module is written against one API; what changed between
 * kernel releases is mapped here, each with the version that changed it.
 * Probe prototypes are checked at compile time with
 * check_trace_callback_type_<tracepoint>() in rtmon_probes.c, so a
 * prototype change breaks the build instead of the running kernel.
 *
 * Built and tested on 6.1 (Debian 12, PREEMPT_RT patch set and mainline)
 * and 6.12 (Debian 13, PREEMPT_RT in mainline): between these two, nothing
 * rtmon uses changed its API (probe prototypes, TASK_RTLOCK_WAIT, the
 * hrtimer sleeper set-up), so there is no 6.12 shim.
 * The run-time behaviour rtmon relies on (IRQ thread woken after
 * irq_handler_exit, sleeper wakeups inside hrtimer_expire_entry/exit, soft
 * expiry of SCHED_OTHER sleepers in ktimers on RT, prev_state of a blocked
 * task) is pinned per kernel by tests/vm/guest/kernel-behaviour.sh.
 */
#ifndef RTMON_COMPAT_H
#define RTMON_COMPAT_H

#include <linux/version.h>
#include <linux/sched.h>
#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/interrupt.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/sched/signal.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 15, 0)
#error "rtmon needs Linux 5.15 or later"
#endif

/*
 * A probe's out-of-line part, called with the probe's own arguments: not
 * inlined, and not cloned with the unused ones dropped (gcc's constprop
 * and IPA-SRA), which would make the probe move every argument register
 * before its test: most of what a hit that needs nothing costs.
 */
#if __has_attribute(__noipa__)
#define rtmon_slowpath		__attribute__((__noipa__))
#else
#define rtmon_slowpath		noinline
#endif

/*
 * workqueue_queue_work's req_cpu is an int from v5.19 on, an unsigned int
 * before (lttng-modules' workqueue probe switches at the same version).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 19, 0)
typedef int rtmon_wq_req_cpu_t;
#else
typedef unsigned int rtmon_wq_req_cpu_t;
#endif

/*
 * sched_switch gained the prev_state argument in v5.18 (commit fa2c3254d7cf
 * "sched/tracing: Don't re-read p->state when emitting sched_switch event").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
#define RTMON_SCHED_SWITCH_ARGS						\
	void *data, bool preempt, struct task_struct *prev,		\
	struct task_struct *next, unsigned int prev_state
#define rtmon_sched_switch_pass(fn)	fn(data, preempt, prev, next, prev_state)
#define rtmon_prev_state(prev)	(prev_state)
#else
#define RTMON_SCHED_SWITCH_ARGS						\
	void *data, bool preempt, struct task_struct *prev,		\
	struct task_struct *next
#define rtmon_sched_switch_pass(fn)	fn(data, preempt, prev, next)
#define rtmon_prev_state(prev)	READ_ONCE((prev)->__state)
#endif

/*
 * Whether prev left the CPU because it blocked (end of its processing) or
 * was only preempted. A task preempted between setting its state and
 * calling schedule() still has a sleeping state, hence the preempt flag.
 * On PREEMPT_RT, spinlock_t and rwlock_t sleep on an rtmutex with
 * TASK_RTLOCK_WAIT (v5.15, commit cbcebf5bd3d1): that is a lock wait inside
 * the processing, not its end. D (TASK_UNINTERRUPTIBLE, also in TASK_IDLE
 * and TASK_KILLABLE) is told apart: an IRQ thread's pass goes on through it
 * (RTM_SWITCH_BLOCKED_D, rtm_core.h).
 */
static inline long rtmon_switch_blocked(bool preempt, unsigned int state)
{
	if (preempt || state == TASK_RUNNING)
		return 0;
#ifdef TASK_RTLOCK_WAIT
	if (state & TASK_RTLOCK_WAIT)
		return RTM_SWITCH_LOCK_WAIT;
#endif
	if (state & TASK_UNINTERRUPTIBLE)
		return RTM_SWITCH_BLOCKED_D;
	return 1;
}

/*
 * sched_waking of a task blocked on a PREEMPT_RT sleeping spinlock
 * (TASK_RTLOCK_WAIT, v5.15): the lock is handed over, no new work reaches
 * the task. Its own chain waits in the task table (see above); the
 * releaser's chain must not be forked into it (it would win the merge
 * when it started earlier, and take over the task's processing).
 */
static inline bool rtmon_wake_is_lock_handoff(struct task_struct *p)
{
#ifdef TASK_RTLOCK_WAIT
	return READ_ONCE(p->__state) & TASK_RTLOCK_WAIT;
#else
	return false;
#endif
}

/*
 * Whether p is queued to run. v6.12 (commit 152e11f6df29 "sched/fair:
 * Implement delayed dequeue") keeps a fair task that blocked on the
 * runqueue (se.sched_delayed) until it would have been picked: on_rq
 * alone no longer means runnable. This is 6.12's task_is_runnable() with
 * marked loads: that one is for a task whose state is held (rq lock,
 * task_call_func()), and the probes read it under p->pi_lock only, while
 * p's cpu may be dequeuing it. The answer is a snapshot the core is ready
 * to find wrong (RTM_BF_RUNWAKE).
 */
static inline bool rtmon_task_queued(struct task_struct *p)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	return READ_ONCE(p->on_rq) && !READ_ONCE(p->se.sched_delayed);
#else
	return READ_ONCE(p->on_rq);
#endif
}

/*
 * The cpu a task is running on when it is still current there (queued
 * and on the cpu): a wakeup then finds it running (ttwu_runnable(), no
 * switch-in follows), and an IRQ thread in that state runs its next pass
 * without one. Else -1. A task that blocked but is still on its cpu until
 * finish_task() (6.12: delayed dequeue keeps it on_rq too) is not
 * running: a switch-in follows its wakeup. on_cpu exists on SMP only.
 */
static inline int rtmon_task_running_cpu(struct task_struct *p)
{
#ifdef CONFIG_SMP
	if (rtmon_task_queued(p) && READ_ONCE(p->on_cpu))
		return task_cpu(p);
	return -1;
#else
	return p == current ? 0 : -1;
#endif
}

/*
 * Whether __irq_wake_thread(), which runs right after irq_handler_exit for
 * a handler returning IRQ_WAKE_THREAD, will emit a sched_waking for the
 * IRQ's thread. It returns early when the thread is signalled already
 * (IRQTF_RUNTHREAD set: an earlier interrupt's pass is pending), and
 * try_to_wake_up() only traces a task in a sleeping state: the thread
 * sleeps TASK_INTERRUPTIBLE in irq_wait_for_interrupt(); runnable or
 * running it is TASK_RUNNING, and while another cpu's wakeup of it sits
 * on a wake list (ttwu_queue_wakelist(), not on PREEMPT_RT) it is
 * TASK_WAKING. IRQTF_RUNTHREAD is bit 0 of the private enum in
 * kernel/irq/internals.h (6.1 and 6.12 alike).
 */
#define RTMON_IRQTF_RUNTHREAD	0

static inline bool rtmon_irq_thread_wakes(struct irqaction *action,
					  struct task_struct *t)
{
	if (test_bit(RTMON_IRQTF_RUNTHREAD, &action->thread_flags))
		return false;
	return READ_ONCE(t->__state) & TASK_NORMAL;
}

/* Clock of the base an hrtimer is queued on (struct hrtimer_clock_base). */
/*
 * What the sleeper asked for, in CLOCK_MONOTONIC: the soft expiry (the
 * hard one adds the task's timer slack: 50 us for SCHED_OTHER by default,
 * what cyclictest counts as latency), less the base's offset to
 * CLOCK_MONOTONIC (REALTIME, BOOTTIME, TAI bases; 0 for MONOTONIC).
 */
static inline u64 rtmon_hrtimer_expiry_mono(struct hrtimer *timer)
{
	return ktime_to_ns(ktime_sub(hrtimer_get_softexpires(timer),
				     READ_ONCE(timer->base)->offset));
}

/*
 * hrtimer_wakeup() is static; every hrtimer_sleeper's timer runs it. Learn
 * its address from a sleeper initialised on the stack (no kallsyms: it is
 * not exported since v5.7). hrtimer_init_sleeper_on_stack() exists up to
 * v6.12 at least; v6.13 renamed it hrtimer_setup_sleeper_on_stack().
 */
typedef enum hrtimer_restart (*rtmon_hrtimer_fn)(struct hrtimer *);

/*
 * The callback of every process's ITIMER_REAL timer (setitimer, alarm):
 * copy_signal() sets it in each new signal_struct, so the module's
 * loader has it too.
 */
static inline rtmon_hrtimer_fn rtmon_hrtimer_itimer_fn(void)
{
	return current->signal->real_timer.function;
}

/*
 * Static kernel functions by name: the other timer callbacks rtmon tells
 * apart (timerfd_tmrproc, posix_timer_fn, timerlat_irq). kallsyms_lookup_name()
 * is not exported since v5.7; like lttng-modules (wrapper/kallsyms.c),
 * learn its address from a kprobe once. The kprobe's address may lie past
 * the function's landing pad (ENDBR64 with X86_KERNEL_IBT, v5.18+), and an
 * indirect call must land on the pad: step back by the offset kallsyms
 * gives for that address. NULL without kprobes.
 */
typedef unsigned long (*rtmon_kallsyms_fn)(const char *name);

static inline rtmon_kallsyms_fn rtmon_kallsyms_lookup_fn(void)
{
#ifdef CONFIG_KPROBES
	static const char name[] = "kallsyms_lookup_name";
	struct kprobe kp = { .symbol_name = name };
	char buf[KSYM_SYMBOL_LEN];
	unsigned long addr, off;

	if (register_kprobe(&kp))
		return NULL;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	/* "kallsyms_lookup_name+0x4/0x60" */
	sprint_symbol(buf, addr);
	if (strncmp(buf, name, sizeof(name) - 1) || buf[sizeof(name) - 1] != '+' ||
	    sscanf(buf + sizeof(name), "%lx", &off) != 1 || off > 16)
		return NULL;
	return (rtmon_kallsyms_fn)(addr - off);
#else
	return NULL;
#endif
}

static inline rtmon_hrtimer_fn rtmon_hrtimer_sleeper_fn(void)
{
	struct hrtimer_sleeper sl;
	rtmon_hrtimer_fn fn;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup_sleeper_on_stack(&sl, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
#else
	hrtimer_init_sleeper_on_stack(&sl, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
#endif
	fn = sl.timer.function;
	destroy_hrtimer_on_stack(&sl.timer);
	return fn;
}

/*
 * PREEMPT_RT: CONFIG_PREEMPT_RT since v5.3 (was CONFIG_PREEMPT_RT_FULL in
 * the out-of-tree patch set); in mainline from v6.12.
 */
#ifdef CONFIG_PREEMPT_RT
#define RTMON_PREEMPT_RT	1
#else
#define RTMON_PREEMPT_RT	0
#endif

#endif /* RTMON_COMPAT_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * replay_kev.c - kernel events (struct rx_kev, parsed by the ftrace text
 * reader or the .dat reader) replayed as the module sees them: the
 * context of each event (from the trace's flags, or inferred from the
 * event sequence), irq exits held until the next event tells whether the
 * handler woke its thread, hrtimer expiries turned into chain starts,
 * and ticks synthesized from trace time. Both readers call rx_kevent(),
 * so a .dat and its `trace-cmd report` text replay alike.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtm_core.h"
#include "replay.h"

#define TIMER_HASH	4096

struct ft_cpu {
	int hard;		/* hard IRQ nesting (no flags field) */
	int soft;
	__u32 tsoft;		/* running hrtimer handlers: bit set = soft */
	int tdepth;		/* (stack, innermost in bit 0) */
	bool after_exit;	/* last event was an irq exit (hardirq) */
	bool exit_pending;	/* irq_handler_exit ret=handled waiting */
	__u32 exit_irq;
	__u64 exit_ts;
};

static struct ft_cpu ftc[NCPU_FT];

/*
 * PREEMPT_RT lock waits. spinlock_t and rwlock_t sleep on an rtmutex there,
 * in TASK_RTLOCK_WAIT; the module sees that state and follows the chain
 * through the wait (not the end of the processing; the waking that ends
 * it is a lock hand-over, no new work). sched_switch reports that state
 * as D, like any sleep, so a recording tells it only by the lock events:
 * a task that blocks between its own lock:contention_begin with the RT
 * flag (LCB_F_RT: every rtmutex-based wait) and its contention_end waits
 * for a lock. That window also holds the waits for sleeping mutexes on
 * RT (rt_mutex based, also LCB_F_RT, also D), which the module counts as
 * blocking: the recording cannot tell the two apart, and the replay
 * takes both as lock waits. Without lock events, every D is a block.
 * Pids in such a window: one bit per pid (PID_MAX_LIMIT), on first use.
 */
#define PID_BITS	(4u << 20)
static unsigned long *in_lock_wait;
unsigned long rx_lock_waits, rx_lock_handovers;

static bool pid_bit(const unsigned long *bits, __u32 pid)
{
	const unsigned int w = 8 * sizeof(*bits);

	return bits && pid < PID_BITS && (bits[pid / w] >> (pid % w) & 1);
}

static bool lock_waiting(__u32 pid)
{
	return pid_bit(in_lock_wait, pid);
}

static void pid_bit_set(unsigned long **bits, __u32 pid, bool on)
{
	const unsigned int w = 8 * sizeof(**bits);

	if (pid >= PID_BITS)
		return;
	if (!*bits) {
		if (!on)
			return;
		*bits = calloc(PID_BITS / w, sizeof(**bits));
		if (!*bits) {
			perror("rtmon-replay");
			exit(2);
		}
	}
	if (on)
		(*bits)[pid / w] |= 1ul << (pid % w);
	else
		(*bits)[pid / w] &= ~(1ul << (pid % w));
}

static void lock_wait_set(__u32 pid, bool on)
{
	pid_bit_set(&in_lock_wait, pid, on);
}

/*
 * IRQ threads. A handler that returns IRQ_WAKE_THREAD while its thread is
 * awake (woken and not yet through its pass, runnable, running, or waiting
 * for an rtlock: not TASK_NORMAL) only marks it to run again: no waking
 * is traced, and irq_handler_exit's ret=handled does not tell it from a
 * handler that needed no thread. The module sees it and hands the chain
 * to the thread's next pass (rtm_ev_irq_exit_rerun); the replay infers it:
 * a handled exit with no waking of the IRQ's thread after it, while that
 * thread (comm "irq/N-...", learned from the events naming it) is awake
 * (since its last waking, or switch-in, and not switched out in S: a D,
 * or a lock wait, is mid-pass). Unknown at the start of the trace: asleep.
 */
#define IRQ_THREADS	4096
static struct {
	__u32 pid;
	char comm[RTM_COMM_LEN];
} irq_thread[IRQ_THREADS];
static unsigned long *awake;
unsigned long rx_irq_reruns;

static void irq_thread_learn(__u32 pid, const char *comm)
{
	unsigned long n;
	char *end;

	if (strncmp(comm, "irq/", 4))
		return;
	n = strtoul(comm + 4, &end, 10);
	if (end == comm + 4 || *end != '-' || n >= IRQ_THREADS)
		return;
	irq_thread[n].pid = pid;
	memcpy(irq_thread[n].comm, comm, RTM_COMM_LEN);
}

static __u64 next_tick;
enum rx_clock rx_trace_clock = RX_CLOCK_GUESS;
static struct { __u64 id, expires; } timers[TIMER_HASH];

static void timer_remember(__u64 id, __u64 expires)
{
	__u32 h = (__u32)((id * 0x9e3779b97f4a7c15ull) >> 52), i;

	for (i = 0; i < TIMER_HASH; i++, h = (h + 1) % TIMER_HASH) {
		if (!timers[h].id || timers[h].id == id) {
			timers[h].id = id;
			timers[h].expires = expires;
			return;
		}
	}
	timers[h].id = id;	/* table full: overwrite */
	timers[h].expires = expires;
}

static bool timer_lookup(__u64 id, __u64 *expires)
{
	__u32 h = (__u32)((id * 0x9e3779b97f4a7c15ull) >> 52), i;

	for (i = 0; i < TIMER_HASH && timers[h].id; i++, h = (h + 1) % TIMER_HASH)
		if (timers[h].id == id) {
			*expires = timers[h].expires;
			return true;
		}
	return false;
}


static __u32 ft_ctx(struct ft_cpu *fc, char flag)
{
	if (flag == 'h' || flag == 'H' || flag == 'z' || flag == 'Z')
		return RTM_CTX_HARDIRQ;
	if (flag == 's')
		return RTM_CTX_SOFTIRQ;
	if (flag == '.')
		return RTM_CTX_TASK;
	/* no flags column: infer from the event sequence */
	if (fc->hard > 0 || fc->after_exit)
		return RTM_CTX_HARDIRQ;
	if (fc->soft > 0)
		return RTM_CTX_SOFTIRQ;
	return RTM_CTX_TASK;
}

static void ft_flush_exit(__u32 cpu, bool woke)
{
	struct ft_cpu *fc = &ftc[cpu];

	if (!fc->exit_pending)
		return;
	fc->exit_pending = false;
	if (!woke && fc->exit_irq < IRQ_THREADS && irq_thread[fc->exit_irq].pid &&
	    pid_bit(awake, irq_thread[fc->exit_irq].pid)) {
		__u32 pid = irq_thread[fc->exit_irq].pid;

		rx_irq_reruns++;
		rtm_ev_irq_exit_rerun(core, cpu, fc->exit_ts, fc->exit_irq, pid,
				      irq_thread[fc->exit_irq].comm,
				      running_cpu(pid));
	} else {
		rtm_ev_irq_exit(core, cpu, fc->exit_ts, fc->exit_irq, woke, 0);
	}
	after_event();
}

static void ft_ticks(__u64 ts)
{
	if (!opt.tick_ns)
		return;
	if (!next_tick)
		next_tick = ts + opt.tick_ns;
	if (ts >= next_tick && ts - next_tick > 64 * opt.tick_ns)
		next_tick = ts - ts % opt.tick_ns;	/* long gap: skip ahead */
	while (ts >= next_tick) {
		rtm_ev_tick(core, 0, next_tick);
		after_event();
		if (next_tick > UINT64_MAX - opt.tick_ns) {
			next_tick = UINT64_MAX;	/* the clock's end: no wrap */
			break;
		}
		next_tick += opt.tick_ns;
	}
}


/* the chain start of a timer expiring at ts, its handler's clock read now */
static __u64 timer_start(__u64 id, __u64 ts, __u64 now)
{
	__u64 exp, late = 0;
	bool known = timer_lookup(id, &exp);

	if (known && now > exp)
		late = now - exp;
	if (late > ts)
		late = ts;
	/*
	 * The trace on the timer's own clock (trace_clock mono, trace-cmd
	 * record -C mono; a MONOTONIC timer): the programmed expiry is the
	 * start, as in the module. Else (another trace clock or timer base)
	 * the expiry as far before the event as it was before the handler's
	 * clock read, which misses the time from that read to the event.
	 * Unknown clock (text): mono when `now` is within a second before
	 * the event.
	 */
	if (known && exp <= ts &&
	    (rx_trace_clock == RX_CLOCK_MONO ||
	     (rx_trace_clock == RX_CLOCK_GUESS && now <= ts &&
	      ts - now < 1000000000ull)))
		return exp;
	return ts - late;
}

/*
 * A waking of a task that is current on another cpu (from the switch
 * events): the task may be running there, or inside __schedule on its
 * way to sleep, already dequeued; the module, reading the task, then sees
 * a plain wakeup, and the task's switch-out (a block) follows with no
 * second waking. The trace tells which by the task's next event on its
 * cpu: a blocking switch-out of the task makes it a plain wakeup, any
 * other event there a wakeup that finds the task running. The waking is
 * held until then, and the events of the other cpus meanwhile wait
 * behind it in a queue (in trace order), so that the waker's cpu goes on
 * only after the waking is decided: an IRQ's exit on the waker's cpu
 * (which would close the chain the waking forks) often comes before the
 * sleeper's switch-out (a 6.1 guest: the exit 10 us after the waking,
 * the switch-out 100 us). A full queue (HOLD_MAX events and still no
 * event on the task's cpu: it is running, not switching out) or the end
 * of the trace decides "running". One waking held at a time.
 */
#define HOLD_MAX	512
static struct {
	bool on;
	__u32 waker_cpu, run_cpu, ctx, waker, pid;
	__u64 ts;
	char comm[RTM_COMM_LEN];
} held;
static struct rx_kev held_q[HOLD_MAX];	/* the events behind the held waking */
static unsigned int held_qhead, held_qn;
unsigned long rx_wakeups_asleep;

static void kev_apply(const struct rx_kev *e);

static void held_flush(bool asleep)
{
	if (!held.on)
		return;
	held.on = false;
	rx_wakeups_asleep += asleep;
	rtm_ev_waking_running(core, held.waker_cpu, held.ts, held.ctx,
			      held.waker, held.pid, 0, held.comm,
			      asleep ? -1 : (int)held.run_cpu);
	after_event();
}

/* Apply the queued events that no held waking waits for; at the end of
 * the trace (end), decide a held waking with no event on its cpu. */
static void held_pump(bool end)
{
	unsigned int i;

	while (held_qn) {
		if (held.on) {
			const struct rx_kev *d = NULL;

			for (i = 0; i < held_qn && !d; i++)
				if (held_q[(held_qhead + i) % HOLD_MAX].cpu == held.run_cpu)
					d = &held_q[(held_qhead + i) % HOLD_MAX];
			if (!d && held_qn < HOLD_MAX && !end)
				return;		/* undecided: wait for more */
			held_flush(d && d->type == RX_KEV_SWITCH &&
				   d->prev == held.pid && d->prev_state);
		}
		i = held_qhead;
		held_qhead = (held_qhead + 1) % HOLD_MAX;
		held_qn--;
		kev_apply(&held_q[i]);	/* may hold a waking again */
	}
}

void rx_kevent(const struct rx_kev *e)
{
	if (!held.on && !held_qn) {
		kev_apply(e);
		return;
	}
	held_q[(held_qhead + held_qn) % HOLD_MAX] = *e;
	held_qn++;
	held_pump(false);
}

static void kev_apply(const struct rx_kev *e)
{
	struct ft_cpu *fc = &ftc[e->cpu];
	__u32 c = e->cpu, ctx;
	__u64 ts = e->ts;
	struct rtm_switch_who who;
	bool was_after_exit, soft;
	long blocked;
	int run;

	set_ts(ts);
	ft_ticks(ts);
	ctx = ft_ctx(fc, e->flag);
	was_after_exit = fc->after_exit;
	fc->after_exit = false;

	/* resolve a held irq exit: did the handler wake its thread? */
	if (fc->exit_pending)
		ft_flush_exit(c, e->type == RX_KEV_WAKING &&
			      ctx == RTM_CTX_HARDIRQ &&
			      !strncmp(e->next_comm, "irq/", 4));

	switch (e->type) {
	case RX_KEV_OTHER:
		return;		/* other events are ignored */
	case RX_KEV_IRQ_ENTRY:
		fc->hard++;
		rtm_ev_irq_entry(core, c, ts, e->irq);
		break;
	case RX_KEV_IRQ_EXIT:
		if (fc->hard > 0)
			fc->hard--;
		fc->after_exit = true;
		if (e->handled) {
			/*
			 * ret=handled does not tell IRQ_WAKE_THREAD apart:
			 * held until the next event on this cpu
			 */
			fc->exit_pending = true;
			fc->exit_irq = e->irq;
			fc->exit_ts = ts;
			return;
		}
		rtm_ev_irq_exit(core, c, ts, e->irq, 0, 0);
		break;
	case RX_KEV_SOFTIRQ_RAISE:
		if (!e->flag && was_after_exit)
			ctx = RTM_CTX_HARDIRQ;
		rtm_ev_softirq_raise(core, c, ts, e->vec, ctx);
		break;
	case RX_KEV_SOFTIRQ_ENTRY:
		fc->soft++;
		rtm_ev_softirq_entry(core, c, ts, e->vec);
		break;
	case RX_KEV_SOFTIRQ_EXIT:
		if (fc->soft > 0)
			fc->soft--;
		rtm_ev_softirq_exit(core, c, ts, e->vec);
		break;
	case RX_KEV_HRTIMER_START:
		/* the soft expiry, what the sleeper asked for (as the module) */
		timer_remember(e->timer, e->expires);
		return;
	case RX_KEV_HRTIMER_ENTRY:
		/*
		 * Soft timer (HRTIMER softirq; on RT ktimers/N): flags 's'
		 * (or '.'), 'h'/'H' = hard. No flags column: soft only inside
		 * softirq_entry/exit, else hard (hrtimer_interrupt is not an
		 * irq_handler_entry).
		 */
		soft = e->flag ? ctx != RTM_CTX_HARDIRQ : ctx == RTM_CTX_SOFTIRQ;
		if (soft)
			fc->soft++;
		else
			fc->hard++;
		fc->tsoft = fc->tsoft << 1 | soft;
		fc->tdepth++;
		rtm_ev_timer_entry(core, c, ts, e->timer,
				   timer_start(e->timer, ts, e->now),
				   e->timer_kind,
				   soft ? RTM_CTX_SOFTIRQ : RTM_CTX_HARDIRQ);
		break;
	case RX_KEV_HRTIMER_EXIT:
		if (fc->tdepth > 0) {
			soft = fc->tsoft & 1;
			fc->tsoft >>= 1;
			fc->tdepth--;
		} else {
			soft = e->flag ? ctx != RTM_CTX_HARDIRQ :
					 ctx == RTM_CTX_SOFTIRQ;
		}
		if (soft && fc->soft > 0)
			fc->soft--;
		else if (!soft && fc->hard > 0)
			fc->hard--;
		rtm_ev_timer_exit(core, c, ts, e->timer,
				  soft ? RTM_CTX_SOFTIRQ : RTM_CTX_HARDIRQ);
		break;
	case RX_KEV_WAKING:
		irq_thread_learn(e->next, e->next_comm);
		pid_bit_set(&awake, e->next, true);
		if (lock_waiting(e->next)) {
			rx_lock_handovers++;	/* a lock handed over */
			break;
		}
		if (!e->flag && was_after_exit)
			ctx = RTM_CTX_HARDIRQ;
		run = running_cpu(e->next);
		if (run >= 0 && (__u32)run != c) {
			held.on = true;
			held.waker_cpu = c;
			held.run_cpu = (__u32)run;
			held.ctx = ctx;
			held.waker = e->pid;
			held.pid = e->next;
			held.ts = ts;
			memcpy(held.comm, e->next_comm, sizeof(held.comm));
			return;
		}
		rtm_ev_waking_running(core, c, ts, ctx, e->pid, e->next, 0,
				      e->next_comm, run);
		break;
	case RX_KEV_SWITCH:
		fc->hard = 0;
		fc->soft = 0;
		fc->tsoft = 0;
		fc->tdepth = 0;
		track_switch(c, e->next);
		irq_thread_learn(e->next, e->next_comm);
		pid_bit_set(&awake, e->next, true);
		blocked = e->prev_state;
		if (blocked && lock_waiting(e->prev)) {
			rx_lock_waits++;	/* a lock wait, not the end */
			blocked = RTM_SWITCH_LOCK_WAIT;
		}
		/*
		 * asleep for a new interrupt only in S (or another non-D
		 * state): an IRQ thread in D mid-pass, or waiting for a lock,
		 * is woken by it with a traced waking, or not at all
		 */
		if (blocked && blocked != RTM_SWITCH_LOCK_WAIT &&
		    blocked != RTM_SWITCH_BLOCKED_D)
			pid_bit_set(&awake, e->prev, false);
		who.prev_prio = e->prev_prio;
		who.next_prio = e->next_prio;
		who.prev_comm = e->prev_comm[0] ? e->prev_comm : NULL;
		rtm_ev_switch(core, c, ts, e->prev, blocked, e->next, 0,
			      e->next_comm, &who);
		break;
	case RX_KEV_LOCK_BEGIN:
		if (e->lock_rt)
			lock_wait_set(e->pid, true);
		return;
	case RX_KEV_LOCK_END:
		lock_wait_set(e->pid, false);
		return;
	case RX_KEV_KWORK_QUEUE:
		rtm_ev_kwork_queue(core, c, ts, ctx, e->pid, e->cookie);
		break;
	case RX_KEV_KWORK_START:
		rtm_ev_kwork_start(core, c, ts, ctx, e->pid, 0,
				   e->comm[0] ? e->comm : NULL, e->cookie);
		break;
	case RX_KEV_KWORK_END:
		rtm_ev_kwork_end(core, c, ts, ctx, e->pid, e->cookie);
		break;
	case RX_KEV_WORK_BEGIN:
		/* tgid is not in the trace: 0 on both sides */
		rtm_ev_work_begin(core, c, ts, e->pid, 0, e->cookie,
				  e->work_comm ? e->comm : NULL);
		break;
	case RX_KEV_WORK_END:
		rtm_ev_work_end(core, c, ts, e->pid, 0, e->cookie,
				e->work_comm ? e->comm : NULL);
		break;
	}
	after_event();
}

void rx_kev_end(void)
{
	__u32 i;

	held_pump(true);
	held_flush(false);
	for (i = 0; i < params.ncpus && i < NCPU_FT; i++)
		ft_flush_exit(i, false);
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Benchmark of the rtmon core entry points on synthetic, pre-decoded
 * event streams (parsing is not measured):
 *
 *   nochain      events that touch no chain while targets are configured:
 *                sched_switch/sched_waking storms of untracked tasks,
 *                untargeted IRQs with softirqs, non-sleeper timers, work
 *                items of untracked tasks.
 *   transition   only events that move a chain: IRQ -> IRQ thread -> app
 *                (RT), IRQ -> softirq -> app (mainline), sleeper timer ->
 *                cyclictest; chain start, forks, completion, records.
 *   mixed        realistic mix: ~97% nochain, ~3% transition events.
 *   fanout F     chains that fan out: an IRQ's thread wakes F tasks, F - 1
 *                untargeted workers that run and block, then the app
 *                (the fan-out curve: cost a chain against F).
 *
 *   bench_core MODE [N]       run MODE once over N events (for callgrind)
 *   bench_core fanout F [N]   the fanout stream, F tasks a chain
 *   bench_core --time [N]     time all modes, print key=value lines
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtm_core.h"

enum { E_IRQ_IN, E_IRQ_OUT, E_SI_RAISE, E_SI_IN, E_SI_OUT, E_TMR_IN,
       E_TMR_OUT, E_WAKE, E_SWITCH, E_WBEGIN, E_WEND };

struct ev {
	unsigned char type, cpu, ctx, flag;
	unsigned int a, b, c;
	unsigned long long ts, x;
	const char *comm;
};

#define NCPU 4

static struct rtm_core *core;
static struct ev *evs;
static size_t nev, cap;
static unsigned long long clk = 1000;
static unsigned int seed = 1;
static size_t ntrans;	/* events in transition sequences */

static char comm_app[16] = "app", comm_cyc[16] = "cyclictest",
	    comm_thr[16] = "irq/42-eth0", comm_other[16] = "kworker/0:1",
	    comm_bash[16] = "bash", comm_wrk[16] = "worker";

static unsigned int rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) & 0xffffff;
}

static struct ev *add(unsigned char type, unsigned int cpu)
{
	struct ev *e;

	if (nev == cap) {
		cap = cap ? cap * 2 : 4096;
		evs = realloc(evs, cap * sizeof(*evs));
		if (!evs)
			exit(1);
	}
	e = &evs[nev++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->cpu = (unsigned char)cpu;
	clk += 50 + rnd() % 200;
	e->ts = clk;
	return e;
}

/* untracked activity: pids 1000..1999, irqs 0..40 */
static void gen_nochain(size_t n)
{
	struct ev *e;
	size_t end = nev + n;
	unsigned int r, cpu;

	while (nev < end) {
		r = rnd() % 100;
		cpu = rnd() % NCPU;
		if (r < 40) {
			e = add(E_SWITCH, cpu);
			e->a = 1000 + rnd() % 1000;
			e->flag = r & 1;
			e->b = 1000 + rnd() % 1000;
			e->c = e->b;
			e->comm = comm_other;
		} else if (r < 70) {
			e = add(E_WAKE, cpu);
			e->ctx = RTM_CTX_TASK;
			e->a = 1000 + rnd() % 1000;
			e->b = 1000 + rnd() % 1000;
			e->c = e->b;
			e->comm = comm_bash;
		} else if (r < 76) {
			e = add(E_IRQ_IN, cpu);
			e->a = rnd() % 40;
		} else if (r < 82) {
			e = add(E_IRQ_OUT, cpu);
			e->a = rnd() % 40;
		} else if (r < 85) {
			e = add(E_SI_RAISE, cpu);
			e->a = rnd() % 10;
			e->ctx = RTM_CTX_HARDIRQ;
		} else if (r < 88) {
			e = add(E_SI_IN, cpu);
			e->a = rnd() % 10;
		} else if (r < 91) {
			e = add(E_SI_OUT, cpu);
			e->a = rnd() % 10;
		} else if (r < 94) {
			e = add(E_TMR_IN, cpu);
			e->x = 0x5000 + cpu;
			e->flag = RTM_TIMER_OTHER;	/* the tick, say */
			e->ctx = (r & 1) ? RTM_CTX_SOFTIRQ : RTM_CTX_HARDIRQ;
		} else if (r < 96) {
			e = add(E_TMR_OUT, cpu);
			e->x = 0x5000 + cpu;
			e->ctx = (r & 1) ? RTM_CTX_SOFTIRQ : RTM_CTX_HARDIRQ;
		} else if (r < 98) {
			e = add(E_WBEGIN, cpu);
			e->a = 1000 + rnd() % 1000;
			e->b = e->a;
			e->x = rnd();
		} else {
			e = add(E_WEND, cpu);
			e->a = 1000 + rnd() % 1000;
			e->b = e->a;
			e->x = rnd();
		}
	}
}

/* the tick: a timer whose callback wakes no one (hard, as on RT) */
static void gen_tick(size_t n)
{
	struct ev *e;
	size_t end = nev + n;
	unsigned int cpu;

	while (nev < end) {
		cpu = rnd() % NCPU;
		e = add(E_TMR_IN, cpu);
		e->x = 0;
		e->flag = RTM_TIMER_OTHER;
		e->ctx = RTM_CTX_HARDIRQ;
		e = add(E_TMR_OUT, cpu);
		e->ctx = RTM_CTX_HARDIRQ;
	}
}

/*
 * A sleeper whose task no target is (sleeper-other, with a timer target
 * elsewhere): its expiry starts a chain all the same (it may hand off to a
 * target), which ends unreported when the task blocks having woken no one.
 */
static void gen_sleeper_other(size_t n)
{
	struct ev *e;
	size_t end = nev + n;
	unsigned int cpu, pid;

	while (nev < end) {
		cpu = rnd() % NCPU;
		pid = 3000 + cpu;
		e = add(E_TMR_IN, cpu); e->x = pid; e->flag = RTM_TIMER_SLEEPER;
		e->ctx = RTM_CTX_HARDIRQ;
		e = add(E_WAKE, cpu); e->ctx = RTM_CTX_HARDIRQ; e->b = pid;
		e->c = pid; e->comm = comm_other;
		e = add(E_TMR_OUT, cpu); e->x = pid; e->ctx = RTM_CTX_HARDIRQ;
		e = add(E_SWITCH, cpu); e->a = 0; e->flag = 0; e->b = pid;
		e->c = pid; e->comm = comm_other;
		e = add(E_SWITCH, cpu); e->a = pid; e->flag = 1; e->b = 0;
		e->comm = comm_other;
	}
}

/* IRQ 42 wakes its thread (pid 90), which runs: an RT chain's start */
static void gen_irq_thread(unsigned int cpu)
{
	struct ev *e;

	e = add(E_IRQ_IN, cpu); e->a = 42;
	e = add(E_IRQ_OUT, cpu); e->a = 42; e->flag = 1; e->b = 90;
	e = add(E_WAKE, cpu); e->ctx = RTM_CTX_HARDIRQ; e->b = 90;
	e->c = 90; e->comm = comm_thr;
	e = add(E_SWITCH, cpu); e->a = 0; e->flag = 0; e->b = 90;
	e->c = 90; e->comm = comm_thr;
}

/* one chain, every event touches it */
static void gen_chain(void)
{
	unsigned int cpu = rnd() % NCPU, cpu2 = rnd() % NCPU, k = rnd() % 3;
	unsigned int app = 100 + rnd() % 16;
	struct ev *e;
	size_t start = nev;

	if (k == 0) {		/* RT: IRQ -> IRQ thread -> app */
		gen_irq_thread(cpu);
		e = add(E_WAKE, cpu); e->ctx = RTM_CTX_TASK; e->a = 90;
		e->b = app; e->c = app; e->comm = comm_app;
		e = add(E_SWITCH, cpu); e->a = 90; e->flag = 1; e->b = 0;
		e->comm = comm_other;
		e = add(E_SWITCH, cpu2); e->a = 0; e->flag = 0; e->b = app;
		e->c = app; e->comm = comm_app;
	} else if (k == 1) {	/* mainline: IRQ -> NET_RX -> app */
		e = add(E_IRQ_IN, cpu); e->a = 42;
		e = add(E_SI_RAISE, cpu); e->a = 3; e->ctx = RTM_CTX_HARDIRQ;
		e = add(E_IRQ_OUT, cpu); e->a = 42;
		e = add(E_SI_IN, cpu); e->a = 3;
		e = add(E_WAKE, cpu); e->ctx = RTM_CTX_SOFTIRQ; e->b = app;
		e->c = app; e->comm = comm_app;
		e = add(E_SI_OUT, cpu); e->a = 3;
		e = add(E_SWITCH, cpu2); e->a = 0; e->flag = 0; e->b = app;
		e->c = app; e->comm = comm_app;
	} else {		/* sleeper timer -> cyclictest */
		/* odd cpus: soft timer (RT, SCHED_OTHER sleeper, ktimers) */
		unsigned char tctx = (cpu & 1) ? RTM_CTX_SOFTIRQ : RTM_CTX_HARDIRQ;

		e = add(E_TMR_IN, cpu); e->x = 0x9000 + cpu; e->flag = 1;
		e->ctx = tctx;
		e = add(E_WAKE, cpu); e->ctx = tctx; e->b = 200 + cpu;
		e->c = 200; e->comm = comm_cyc;
		e = add(E_TMR_OUT, cpu); e->x = 0x9000 + cpu; e->ctx = tctx;
		e = add(E_SWITCH, cpu); e->a = 0; e->flag = 0; e->b = 200 + cpu;
		e->c = 200; e->comm = comm_cyc;
	}
	ntrans += nev - start;
}

/*
 * One chain of fan-out F on one cpu: IRQ 42 -> its thread, which wakes
 * F tasks (pids 4000.. untargeted "worker", the last the target "app")
 * and blocks; each runs in turn and blocks, the app's switch_in ends the
 * chain. Every wakeup forks a branch off the thread's.
 */
static void gen_fanout(unsigned int fan)
{
	unsigned int cpu = rnd() % NCPU, i, prev;
	struct ev *e;
	size_t start = nev;

	gen_irq_thread(cpu);
	for (i = 0; i < fan; i++) {
		e = add(E_WAKE, cpu); e->ctx = RTM_CTX_TASK; e->a = 90;
		e->b = i + 1 < fan ? 4000 + i : 100;
		e->c = e->b;
		e->comm = i + 1 < fan ? comm_wrk : comm_app;
	}
	for (i = 0, prev = 90; i < fan; i++) {
		e = add(E_SWITCH, cpu); e->a = prev; e->flag = 1;
		e->b = i + 1 < fan ? 4000 + i : 100;
		e->c = e->b;
		e->comm = i + 1 < fan ? comm_wrk : comm_app;
		prev = e->b;
	}
	e = add(E_SWITCH, cpu); e->a = 100; e->flag = 1; e->b = 0;
	e->comm = comm_other;
	ntrans += nev - start;
}

static void run(size_t from, size_t to)
{
	const struct ev *e;
	size_t i;

	for (i = from; i < to; i++) {
		e = &evs[i];
		switch (e->type) {
		case E_IRQ_IN:
			rtm_ev_irq_entry(core, e->cpu, e->ts, e->a);
			break;
		case E_IRQ_OUT:
			/* the module names the IRQ's thread (b) when it wakes it */
			rtm_ev_irq_exit(core, e->cpu, e->ts, e->a, e->flag,
					e->flag ? e->b : 0);
			break;
		case E_SI_RAISE:
			rtm_ev_softirq_raise(core, e->cpu, e->ts, e->a, e->ctx);
			break;
		case E_SI_IN:
			rtm_ev_softirq_entry(core, e->cpu, e->ts, e->a);
			break;
		case E_SI_OUT:
			rtm_ev_softirq_exit(core, e->cpu, e->ts, e->a);
			break;
		case E_TMR_IN:
			rtm_ev_timer_entry(core, e->cpu, e->ts, e->x, e->ts - 300,
					   e->flag, e->ctx);
			break;
		case E_TMR_OUT:
			rtm_ev_timer_exit(core, e->cpu, e->ts, e->x, e->ctx);
			break;
		case E_WAKE:
			rtm_ev_waking(core, e->cpu, e->ts, e->ctx, e->a, e->b,
				      e->c, e->comm);
			break;
		case E_SWITCH:
			rtm_ev_switch(core, e->cpu, e->ts, e->a, e->flag, e->b,
				      e->c, e->comm, NULL);
			break;
		case E_WBEGIN:
			rtm_ev_work_begin(core, e->cpu, e->ts, e->a, e->b, e->x,
					  e->comm);
			break;
		default:
			rtm_ev_work_end(core, e->cpu, e->ts, e->a, e->b, e->x,
					e->comm);
		}
	}
}

static unsigned long long drained;

static void drain(void)
{
	struct rtm_record r;
	unsigned int k;

	for (k = 0; k < NCPU; k++)
		while (rtm_core_read(core, k, &r))
			drained++;
}

/*
 * Targets: an app behind IRQ 42, cyclictest's timers (every kind, or
 * sleepers only: timers, a RTM_TIMER_* mask, 0 = all).
 */
static void setup(unsigned int timers)
{
	struct rtm_params p;
	struct rtm_target_spec t;
	size_t sz;
	void *mem;

	rtm_params_default(&p, NCPU);
	p.ring_slots = 4096;
	sz = rtm_core_memsize(&p);
	mem = aligned_alloc(64, (sz + 63) & ~(size_t)63);
	core = rtm_core_init(mem, sz, &p);
	if (!core)
		exit(1);
	memset(&t, 0, sizeof(t));
	strcpy(t.comm, "app");
	t.src = RTM_SRC_IRQ;
	t.irq = 42;
	t.end = RTM_END_SWITCH_IN;
	t.deadline_ns = 100000;
	rtm_core_set_target(core, 0, &t);
	strcpy(t.comm, "cyclictest");
	t.src = RTM_SRC_TIMER;
	t.timers = timers;
	rtm_core_set_target(core, 1, &t);
}

static void gen(const char *mode, size_t n)
{
	nev = 0;
	ntrans = 0;
	if (!strcmp(mode, "nochain")) {
		gen_nochain(n);
	} else if (!strcmp(mode, "sleeper-other")) {
		gen_sleeper_other(n);
	} else if (!strncmp(mode, "tick", 4)) {
		gen_tick(n);
	} else if (!strcmp(mode, "transition")) {
		while (nev < n)
			gen_chain();
	} else {
		while (nev < n) {
			gen_nochain(150);
			gen_chain();
		}
	}
}

/*
 * Open chains (the open-chains curve): N interrupts of the target's IRQ
 * each wake an app task (pids 5000..) that never runs, so N chains wait
 * in the task table, as under a burst or a stalled cpu. Their tasks' pids
 * share the table's buckets with the stream's.
 */
static void open_chains(unsigned int n)
{
	unsigned int i;
	char cm[16] = "app";

	for (i = 0; i < n; i++) {
		rtm_ev_irq_entry(core, i % NCPU, i * 100, 42);
		rtm_ev_waking(core, i % NCPU, i * 100 + 10, RTM_CTX_HARDIRQ, 0,
			      5000 + i, 5000 + i, cm);
		rtm_ev_irq_exit(core, i % NCPU, i * 100 + 20, 42, 0, 0);
	}
}

/* the whole stream, drained every 1024 events (as a reader would) */
static void run_drained(void)
{
	size_t i;

	for (i = 0; i < nev; i += 1024) {
		run(i, i + 1024 < nev ? i + 1024 : nev);
		drain();
	}
}

/* run in chunks, drain between chunks (reader side, not measured) */
static double timed(void)
{
	struct timespec a, b;
	double ns = 0;
	size_t i, step = 1024;

	for (i = 0; i < nev; i += step) {
		size_t to = i + step < nev ? i + step : nev;

		clock_gettime(CLOCK_MONOTONIC, &a);
		run(i, to);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns += (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
		drain();
	}
	return ns;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "nochain", "transition", "mixed" };
	size_t n = 200000, i;
	struct rtm_stats s;
	double best, ns;
	int rep;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_core nochain|transition|mixed|tick|tick-sleeper|sleeper-other|--time [N]\n"
			"       bench_core open OPEN nochain|transition [N]\n"
			"       bench_core fanout F [N]\n");
		return 2;
	}
	if (!strcmp(argv[1], "fanout")) {
		unsigned long fan = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;

		if (!fan || fan > 1000) {
			fprintf(stderr, "usage: bench_core fanout F [N] (F: 1 to 1000 tasks a chain)\n");
			return 2;
		}
		if (argc > 3)
			n = strtoul(argv[3], NULL, 0);
		setup(0);
		while (nev < n)
			gen_fanout(fan);
		run_drained();
		rtm_core_stats(core, &s);
		printf("mode=fanout fan=%lu events=%zu chains=%llu completed=%llu branches=%llu dropped=%llu\n",
		       fan, nev, (unsigned long long)s.chains_started,
		       (unsigned long long)s.chains_completed,
		       (unsigned long long)s.branches_opened,
		       (unsigned long long)(s.drop_no_branch + s.branches_dropped));
		return 0;
	}
	if (!strcmp(argv[1], "open")) {
		unsigned long open;

		if (argc < 4 || (strcmp(argv[3], "nochain") && strcmp(argv[3], "transition"))) {
			fprintf(stderr, "usage: bench_core open OPEN nochain|transition [N]\n");
			return 2;
		}
		open = strtoul(argv[2], NULL, 0);
		if (argc > 4)
			n = strtoul(argv[4], NULL, 0);
		setup(0);
		open_chains(open);
		rtm_core_stats(core, &s);
		if (s.chains_started != open) {
			fprintf(stderr, "bench_core: %llu chains open, not %lu (pool size?)\n",
				(unsigned long long)s.chains_started, open);
			return 1;
		}
		/* bench.sh subtracts a run with no stream (N 0) */
		gen(argv[3], n);
		run_drained();
		rtm_core_stats(core, &s);
		printf("mode=open open=%lu stream=%s events=%zu chains=%llu completed=%llu\n",
		       open, argv[3], nev, (unsigned long long)s.chains_started,
		       (unsigned long long)s.chains_completed);
		return 0;
	}
	if (argc > 2)
		n = strtoul(argv[2], NULL, 0);
	/* tick-sleeper: no target wants the tick's kind of timer */
	setup(strcmp(argv[1], "tick-sleeper") ? 0 : 1u << RTM_TIMER_SLEEPER);
	if (strcmp(argv[1], "--time")) {
		gen(argv[1], n);
		run_drained();
		rtm_core_stats(core, &s);
		printf("mode=%s events=%zu transition_events=%zu chains=%llu completed=%llu\n",
		       argv[1], nev, ntrans, (unsigned long long)s.chains_started,
		       (unsigned long long)s.chains_completed);
		return 0;
	}
	for (i = 0; i < 3; i++) {
		gen(modes[i], n);
		best = 1e300;
		for (rep = 0; rep < 5; rep++) {
			ns = timed();
			if (ns < best)
				best = ns;
		}
		rtm_core_stats(core, &s);
		printf("time_%s_ns_per_event=%.1f events=%zu transition_events=%zu chains_completed=%llu\n",
		       modes[i], best / nev, nev, ntrans,
		       (unsigned long long)s.chains_completed);
	}
	return 0;
}

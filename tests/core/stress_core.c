// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-threaded stress of the rtmon core, built with -fsanitize=thread.
 *
 * One thread per simulated cpu generates IRQ/softirq/timer/wakeup/switch/
 * work events for its cpu, with tasks migrating between cpus, cookies
 * crossing cpus and periodic ticks; hard IRQs are also injected as
 * "nested" calls from a signal handler (SIGUSR1 sent by an interrupter
 * thread) and by interleaving hardirq events inside task sequences. A
 * reader thread drains all rings concurrently. Afterwards: final tick past
 * max age, drain, then invariants are asserted.
 *
 *   stress_core [seconds] [ncpus] [label]  (defaults: 4 s, 4 cpus, "tsan")
 *
 * The same source is also built without TSan (ASan/UBSan, label "async"):
 * TSan defers signal handlers to safe points, the plain build really
 * nests the handler inside core calls.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtm_core.h"

#define MAXCPU		8
#define NTASK		64

static struct rtm_core *core;
static unsigned int ncpus = 4;
static _Atomic unsigned long long clk = 1000;
static atomic_int stop;
static atomic_int nested_calls;
static pthread_t cpu_thr[MAXCPU];
static __thread int my_cpu = -1;
static __thread unsigned int nest_seed;

static unsigned char *seen;		/* seq bitmap, reader/main only */
static size_t seen_cap;
static unsigned long long nread, dup_seq, bad_rec;

static unsigned long long now(void)
{
	return atomic_fetch_add_explicit(&clk, 7, memory_order_relaxed);
}

static unsigned int rnd(unsigned int *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) & 0xffffff;
}

static void comm_of(char *dst, unsigned int pid)
{
	memset(dst, 0, 16);
	if (pid < 132)
		strcpy(dst, "app");
	else if (pid < 148)
		strcpy(dst, "blk");
	else
		snprintf(dst, 16, "t%u", pid);
}

static void check_record(const struct rtm_record *r)
{
	unsigned long long s = r->seq;

	nread++;
	if (r->version != RTM_REC_VERSION || r->size != sizeof(*r) ||
	    !r->nhops || r->nhops > RTM_REC_MAX_HOPS ||
	    r->latency_ns != (r->end_ns > r->start_ns ? r->end_ns - r->start_ns : 0) ||
	    (r->hops[0].type != RTM_HOP_IRQ && r->hops[0].type != RTM_HOP_TIMER &&
	     !(r->hops[0].type == RTM_HOP_SOFTIRQ_RAISE && (r->flags & RTM_REC_F_REPOLL))))
		bad_rec++;
	if (s == 0 || s >= seen_cap * 8) {
		bad_rec++;
		return;
	}
	if (s % 5 == 0)
		bad_rec++;	/* the hook filtered it: must not be read */
	if (seen[s / 8] & (1u << (s % 8)))
		dup_seq++;
	seen[s / 8] |= (unsigned char)(1u << (s % 8));
}

static atomic_ullong hook_rejected, hook_calls, hook_ring_full, hook_bad;
static atomic_uchar *hook_seen;		/* seq bitmap of hooked records */
static _Thread_local int in_hook;

/*
 * record hook: every 5th record is filtered (slot given back or skipped).
 * It also sees records dropped on a full ring (RTM_REC_F_RING_FULL; its
 * answer is ignored then); now and then it takes a nested IRQ that
 * completes chains on its cpu meanwhile (the overflow scratch is busy:
 * hook_skipped).
 */
static _Bool hook(void *arg, __u32 cpu, const struct rtm_record *r)
{
	unsigned long long s = r->seq;
	struct rtm_record before;

	(void)arg;
	atomic_fetch_add(&hook_calls, 1);
	if (r->version != RTM_REC_VERSION || r->cpu != cpu || !r->nhops ||
	    r->nhops > RTM_REC_MAX_HOPS || s == 0 || s >= seen_cap * 8 ||
	    (atomic_fetch_or(&hook_seen[s / 8], (unsigned char)(1u << (s % 8))) &
	     (1u << (s % 8))))
		atomic_fetch_add(&hook_bad, 1);
	if (r->flags & RTM_REC_F_RING_FULL) {
		atomic_fetch_add(&hook_ring_full, 1);
		if (s % 8 == 0 && my_cpu == (int)cpu && !in_hook) {
			before = *r;
			in_hook = 1;
			pthread_kill(pthread_self(), SIGUSR1);
			in_hook = 0;
			if (memcmp(&before, r, sizeof(before)))
				atomic_fetch_add(&hook_bad, 1);
		}
		return s % 5 != 0;	/* ignored: dropped anyway */
	}
	if (s % 5 == 0) {
		atomic_fetch_add(&hook_rejected, 1);
		return 0;
	}
	return 1;
}

static void *reader(void *arg)
{
	struct rtm_record r;
	unsigned int k;

	(void)arg;
	while (!atomic_load(&stop)) {
		for (k = 0; k < ncpus; k++)
			while (rtm_core_read(core, k, &r))
				check_record(&r);
	}
	return NULL;
}

/* a hard IRQ "interrupting" whatever the cpu thread was doing */
static void nested_irq(int sig)
{
	char cm[16];
	unsigned int pid;

	(void)sig;
	if (my_cpu < 0)
		return;
	pid = 100 + rnd(&nest_seed) % 48;
	comm_of(cm, pid);
	rtm_ev_irq_entry(core, my_cpu, now(), 60 + my_cpu);
	rtm_ev_waking(core, my_cpu, now(), RTM_CTX_HARDIRQ, 0, pid, pid, cm);
	rtm_ev_softirq_raise(core, my_cpu, now(), 3, RTM_CTX_HARDIRQ);
	rtm_ev_irq_exit(core, my_cpu, now(), 60 + my_cpu, 0, 0);
	/* an IRQ-only target's chain: a record emitted from the nested IRQ */
	rtm_ev_irq_entry(core, my_cpu, now(), 45);
	rtm_ev_irq_exit(core, my_cpu, now(), 45, 0, 0);
	atomic_fetch_add(&nested_calls, 1);
}

/*
 * Control path changing targets while events run (async build only: the
 * latch readers use plain loads validated by the sequence, like the
 * kernel's seqcount latch, which TSan would report).
 */
static int target(unsigned int id, const char *name, unsigned int src,
		  unsigned int irq, unsigned int endc, unsigned long long dl);
static atomic_int target_changes;

static void *churn(void *arg)
{
	unsigned int i = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		if (i & 1)
			target(4, "t150", RTM_SRC_ANY, 0, i % 3, 1000 + i % 5000);
		else
			rtm_core_clear_target(core, 4);
		target(5, NULL, RTM_SRC_IRQ, 40 + i % 8, 0, 500 + i % 3000);
		atomic_fetch_add(&target_changes, 1);
		i++;
		usleep(100);
	}
	return NULL;
}

static void *interrupter(void *arg)
{
	unsigned int k = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		pthread_kill(cpu_thr[k++ % ncpus], SIGUSR1);
		usleep(200);
	}
	return NULL;
}

struct cpu_state {
	unsigned int cur;	/* pid running on this cpu (0 = idle) */
};

static void *cpu_main(void *arg)
{
	unsigned int cpu = (unsigned int)(long)arg, s = 12345 + cpu * 777;
	struct cpu_state st = { 0 };
	unsigned int op, pid, irq, n = 0;
	char cm[16];

	my_cpu = (int)cpu;
	nest_seed = s ^ 0x5555;
	while (!atomic_load(&stop)) {
		op = rnd(&s) % 100;
		pid = 100 + rnd(&s) % NTASK;
		irq = 40 + rnd(&s) % 8;
		comm_of(cm, pid);
		if (op < 20) {
			/* hard IRQ, handler wakes a task (mainline style) */
			rtm_ev_irq_entry(core, cpu, now(), irq);
			if (op & 1)
				rtm_ev_waking(core, cpu, now(), RTM_CTX_HARDIRQ, 0,
					      pid, pid, cm);
			rtm_ev_softirq_raise(core, cpu, now(), op % 10,
					     RTM_CTX_HARDIRQ);
			rtm_ev_irq_exit(core, cpu, now(), irq, 0, 0);
		} else if (op < 30) {
			/* RT: IRQ thread woken after exit */
			rtm_ev_irq_entry(core, cpu, now(), irq);
			rtm_ev_irq_exit(core, cpu, now(), irq, 1, 0);
			comm_of(cm, 148 + irq % 8);
			rtm_ev_waking(core, cpu, now(), RTM_CTX_HARDIRQ, 0,
				      148 + irq % 8, 148 + irq % 8, cm);
		} else if (op < 40) {
			/* softirq run, wakes a task; an IRQ interleaves */
			unsigned int v = rnd(&s) % 10;

			rtm_ev_softirq_entry(core, cpu, now(), v);
			if (op & 1) {
				rtm_ev_irq_entry(core, cpu, now(), irq);
				rtm_ev_irq_exit(core, cpu, now(), irq, 0, 0);
			}
			/* sometimes the woken task runs on another cpu:
			 * its slot is exchanged from here
			 */
			rtm_ev_waking_running(core, cpu, now(), RTM_CTX_SOFTIRQ, 0, pid,
				      pid, cm, (op & 2) ? (int)(pid % ncpus) : -1);
			rtm_ev_softirq_exit(core, cpu, now(), v);
		} else if (op < 45 && (op & 1)) {
			/* sleeper (or timerfd) timer expiring in hard IRQ */
			unsigned long long t = now();
			unsigned int k = (op & 4) ? RTM_TIMER_TIMERFD :
						    RTM_TIMER_SLEEPER;
			unsigned int id = k == RTM_TIMER_SLEEPER ? 0x1000 + cpu : 0;

			rtm_ev_timer_entry(core, cpu, t, id, t - 50, k,
					   RTM_CTX_HARDIRQ);
			rtm_ev_waking(core, cpu, now(), RTM_CTX_HARDIRQ, 0, pid,
				      pid, cm);
			rtm_ev_timer_exit(core, cpu, now(), id, RTM_CTX_HARDIRQ);
		} else if (op < 45) {
			/* soft sleeper timer (HRTIMER softirq / RT ktimers),
			 * sometimes a hard timer or an IRQ nested in it */
			unsigned long long t = now();

			rtm_ev_softirq_entry(core, cpu, t, 8);
			rtm_ev_timer_entry(core, cpu, t, 0x2000 + cpu, t - 80, 1,
					   RTM_CTX_SOFTIRQ);
			if (op & 2) {
				t = now();
				rtm_ev_timer_entry(core, cpu, t, 0x1000 + cpu,
						   t - 20, 1, RTM_CTX_HARDIRQ);
				rtm_ev_timer_exit(core, cpu, now(), 0x1000 + cpu,
						  RTM_CTX_HARDIRQ);
			} else if (op & 4) {
				rtm_ev_irq_entry(core, cpu, now(), irq);
				comm_of(cm, 148 + irq % 8);
				rtm_ev_waking(core, cpu, now(), RTM_CTX_HARDIRQ,
					      0, 148 + irq % 8, 148 + irq % 8, cm);
				rtm_ev_irq_exit(core, cpu, now(), irq, 0, 0);
				comm_of(cm, pid);
			}
			/* sometimes the woken task runs on another cpu:
			 * its slot is exchanged from here
			 */
			rtm_ev_waking_running(core, cpu, now(), RTM_CTX_SOFTIRQ, 0, pid,
				      pid, cm, (op & 2) ? (int)(pid % ncpus) : -1);
			rtm_ev_timer_exit(core, cpu, now(), 0x2000 + cpu,
					  RTM_CTX_SOFTIRQ);
			rtm_ev_softirq_exit(core, cpu, now(), 8);
		} else if (op < 75) {
			/* context switch: prev blocks or is preempted */
			unsigned int prev = st.cur;

			rtm_ev_switch(core, cpu, now(), prev, op & 1, pid, pid, cm, NULL);
			st.cur = pid;
		} else if (op < 85) {
			/* running task wakes another (task context) */
			if (st.cur)
				rtm_ev_waking(core, cpu, now(), RTM_CTX_TASK,
					      st.cur, pid, pid, cm);
			if (st.cur && (op & 1))
				rtm_ev_softirq_raise(core, cpu, now(), 3,
						     RTM_CTX_TASK);
		} else if (op < 92) {
			/* work items: begin here, end on any cpu */
			unsigned long long ck = rnd(&s) % 32;

			if (op & 1) {
				if (st.cur)
					rtm_ev_work_begin(core, cpu, now(), st.cur,
							  1, ck, cm);
			} else {
				rtm_ev_work_end(core, cpu, now(), pid, 1, ck, cm);
			}
		} else if (op < 94) {
			rtm_ev_tick(core, cpu, now());
		} else {
			/* idle */
			rtm_ev_switch(core, cpu, now(), st.cur, 1, 0, 0, cm, NULL);
			st.cur = 0;
		}
		n++;
	}
	my_cpu = -1;
	return NULL;
}

static int target(unsigned int id, const char *name, unsigned int src,
		  unsigned int irq, unsigned int endc, unsigned long long dl)
{
	struct rtm_target_spec t;

	memset(&t, 0, sizeof(t));
	if (name)
		strncpy(t.comm, name, 15);
	t.src = src;
	t.irq = irq;
	t.end = endc;
	t.deadline_ns = dl;
	return rtm_core_set_target(core, id, &t);
}

static int fail;
static const char *label = "tsan";

static void verdict(const char *name, int ok, const char *fmt,
		    unsigned long long a, unsigned long long b)
{
	if (ok) {
		printf("PASS: stress_%s_%s\n", label, name + 7);
	} else {
		printf("FAIL: stress_%s_%s: ", label, name + 7);
		printf(fmt, a, b);
		printf("\n");
		fail = 1;
	}
}

int main(int argc, char **argv)
{
	struct rtm_params p;
	struct rtm_stats s;
	struct rtm_record r;
	struct sigaction sa;
	pthread_t rd, intr, chn;
	unsigned int secs = 4, k, leaks;
	size_t sz;
	void *mem;

	if (argc > 1)
		secs = (unsigned int)atoi(argv[1]);
	if (argc > 2)
		ncpus = (unsigned int)atoi(argv[2]);
	if (argc > 3)
		label = argv[3];
	if (ncpus < 1 || ncpus > MAXCPU) {
		fprintf(stderr, "ncpus 1..%d\n", MAXCPU);
		return 2;
	}
	rtm_params_default(&p, ncpus);
	p.nchains = 64;			/* small: exhaustion happens too */
	p.nbranches = 256;
	p.task_buckets = 16;
	p.cookie_buckets = 4;
	p.ring_slots = 16;
	p.max_age_ns = 200000;		/* fake clock units */
	sz = rtm_core_memsize(&p);
	mem = aligned_alloc(64, (sz + 63) & ~(size_t)63);
	core = rtm_core_init(mem, sz, &p);
	if (!core) {
		printf("FAIL: stress_init: core init\n");
		return 1;
	}
	rtm_core_set_hook(core, hook, NULL);
	target(0, "app", RTM_SRC_ANY, 0, RTM_END_SWITCH_IN, 3000);
	target(1, "blk", RTM_SRC_IRQ_ANY, 0, RTM_END_BLOCK, 5000);
	target(2, NULL, RTM_SRC_IRQ, 45, 0, 2000);	/* IRQ-only */
	target(3, "t160", RTM_SRC_ANY, 0, RTM_END_WORK_END, 4000);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nested_irq;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);

	seen_cap = 8u << 20; 		/* bits for seq numbers */
	seen = calloc(seen_cap, 1);
	hook_seen = calloc(seen_cap, 1);
	pthread_create(&rd, NULL, reader, NULL);
	for (k = 0; k < ncpus; k++)
		pthread_create(&cpu_thr[k], NULL, cpu_main, (void *)(long)k);
	pthread_create(&intr, NULL, interrupter, NULL);
	if (strcmp(label, "tsan"))
		pthread_create(&chn, NULL, churn, NULL);
	sleep(secs);
	atomic_store(&stop, 1);
	pthread_join(intr, NULL);
	if (strcmp(label, "tsan"))
		pthread_join(chn, NULL);
	for (k = 0; k < ncpus; k++)
		pthread_join(cpu_thr[k], NULL);
	pthread_join(rd, NULL);

	/* quiesce: tick past max age on every cpu, drain */
	for (k = 0; k < ncpus; k++)
		rtm_ev_tick(core, k, now() + p.max_age_ns + 1);
	for (k = 0; k < ncpus; k++)
		while (rtm_core_read(core, k, &r))
			check_record(&r);
	leaks = rtm_core_check_quiescent(core);
	rtm_core_stats(core, &s);

	printf("# stress %s: %u cpus %u s: chains %llu (completed %llu) records %llu, "
	       "nested irqs %d, target changes %d, drops chain %llu branch %llu ring %llu, "
	       "hook calls %llu (ring full %llu) skipped %llu\n",
	       label, ncpus, secs, s.chains_started, s.chains_completed, nread,
	       atomic_load(&nested_calls), atomic_load(&target_changes),
	       s.drop_no_chain, s.drop_no_branch,
	       s.drop_ring_full, atomic_load(&hook_calls),
	       atomic_load(&hook_ring_full), s.hook_skipped);
	verdict("stress_activity", s.chains_completed > 100 && nread > 100 &&
		s.chains_overdue > 0 && s.chains_expired + s.chains_abandoned > 0,
		"too little activity: completed %llu read %llu",
		s.chains_completed, nread);
	verdict("stress_no_leaks", leaks == 0, "%llu leaked objects%llu",
		leaks, 0);
	verdict("stress_chain_accounting",
		s.chains_started == s.chains_completed + s.chains_abandoned +
		s.chains_expired, "started %llu != sum %llu", s.chains_started,
		s.chains_completed + s.chains_abandoned + s.chains_expired);
	verdict("stress_branch_accounting",
		s.branches_opened == s.branches_completed + s.branches_closed +
		s.branches_pruned + s.branches_merged + s.branches_stale +
		s.branches_dropped, "opened %llu != released %llu",
		s.branches_opened, s.branches_completed + s.branches_closed +
		s.branches_pruned + s.branches_merged + s.branches_stale +
		s.branches_dropped);
	verdict("stress_branches_completed",
		s.branches_completed == s.chains_completed,
		"branches_completed %llu chains_completed %llu",
		s.branches_completed, s.chains_completed);
	verdict("stress_records_emitted",
		s.records_emitted == s.chains_completed + s.chains_overdue,
		"emitted %llu != completed+overdue %llu", s.records_emitted,
		s.chains_completed + s.chains_overdue);
	verdict("stress_records_read",
		nread == s.records_written &&
		s.records_written + s.drop_ring_full + s.records_filtered ==
		s.records_emitted && s.records_read == nread &&
		s.records_filtered == atomic_load(&hook_rejected) &&
		s.records_filtered > 0,
		"read %llu written %llu", nread, s.records_written);
	verdict("stress_hook_saw_all",
		atomic_load(&hook_calls) + s.hook_skipped == s.records_emitted &&
		atomic_load(&hook_ring_full) + s.hook_skipped == s.drop_ring_full &&
		atomic_load(&hook_bad) == 0 && s.drop_ring_full > 0 &&
		s.hook_skipped > 0,
		"hook calls %llu + skipped %llu != emitted",
		atomic_load(&hook_calls), s.hook_skipped);
	verdict("stress_seq_unique", dup_seq == 0 && bad_rec == 0,
		"dup seq %llu, bad records %llu", dup_seq, bad_rec);
	free(seen);
	free(hook_seen);
	free(mem);
	return fail;
}

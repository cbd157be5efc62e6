// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer harness for the rtmon core: the input bytes decode into a
 * sequence of events (random cpus, contexts, pids, irqs, vectors,
 * cookies, target changes, ticks) fed to a core with tiny pools, so
 * exhaustion, merges, stale slots and lost events are all reached. After
 * the sequence: drain, tick past max age on every cpu, drain again, and
 * assert the invariants (no leaks, consistent counters, unique sequence
 * numbers, sane records). Any violation aborts.
 *
 * Build: clang -fsanitize=fuzzer,address,undefined (see Makefile).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtm_core.h"
#include "rtm_fast.h"

#define NCPU	4

static void *mem;
static size_t memsz;

#define ASSERT(c) do {							\
	if (!(c)) {							\
		fprintf(stderr, "invariant failed: %s (line %d)\n", #c,	\
			__LINE__);					\
		abort();						\
	}								\
} while (0)

struct in {
	const uint8_t *p;
	size_t n;
};

static unsigned int take(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static const char *const names[4] = { "app", "blk", "irq/5-x", "worker" };

static void comm_of(char *dst, unsigned int pid)
{
	memset(dst, 0, 16);
	strcpy(dst, names[pid & 3]);
}

static void set_target(struct rtm_core *c, unsigned int b1, unsigned int b2)
{
	struct rtm_target_spec t;

	memset(&t, 0, sizeof(t));
	if (b1 & 0x80)
		strcpy(t.comm, names[b1 & 3]);
	if (b1 & 0x40)
		t.pid = 1 + (b2 & 15);
	t.src = (b1 >> 2) & 3;
	t.irq = b2 & 7;
	t.end = (b2 >> 4) % 3;
	t.deadline_ns = (b2 & 0x80) ? 0 : 50 + (b2 & 0x7f) * 10;
	if ((b1 & 3) == 3)	/* a quarter of them misses-only */
		t.flags = RTM_TGT_MISSES_ONLY;
	/* timer kinds, some unknown or with an IRQ source (refused) */
	if (b2 & 0x40)
		t.timers = (b1 ^ b2) & 0x7f;
	/* may be rejected (-22): that is part of the test */
	if (rtm_core_set_target(c, (b1 >> 4) & 3, &t) && (b2 & 0x08))
		rtm_core_clear_target(c, (b1 >> 4) & 3);
}

static unsigned char seen[1 << 14];
static unsigned char hook_seen[1 << 14];
static unsigned long long hook_rejected, hook_calls, hook_ring_full, hook_unnumbered;
static unsigned int hook_mode;

/*
 * record hook: filter some records (ring slot given back or skipped);
 * it also sees the records dropped on a full ring (RTM_REC_F_RING_FULL),
 * whose return value does not count, and, with seq 0, the records of
 * misses-only targets that met their deadline (never numbered)
 */
static _Bool hook(void *arg, __u32 cpu, const struct rtm_record *r)
{
	ASSERT(arg == (void *)&hook_mode && cpu < NCPU);
	ASSERT(r->version == RTM_REC_VERSION && r->nhops >= 1);
	ASSERT(r->nhops <= RTM_REC_MAX_HOPS && r->path_len >= r->nhops);
	ASSERT(r->latency_ns == (r->end_ns > r->start_ns ?
				 r->end_ns - r->start_ns : 0));
	hook_calls++;
	if (!r->seq) {	/* a misses-only target's met deadline: not kept */
		ASSERT(!(r->flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT |
				     RTM_REC_F_RING_FULL)));
		ASSERT(r->target_id < RTM_MAX_TARGETS);
		hook_unnumbered++;
		return 0;
	}
	ASSERT(r->seq < sizeof(hook_seen) * 8);
	ASSERT(!(hook_seen[r->seq / 8] & (1u << (r->seq % 8))));
	hook_seen[r->seq / 8] |= (unsigned char)(1u << (r->seq % 8));
	if (r->flags & RTM_REC_F_RING_FULL)
		hook_ring_full++;
	if ((r->seq + hook_mode) % 3 == 0) {
		if (!(r->flags & RTM_REC_F_RING_FULL))
			hook_rejected++;
		return 0;
	}
	return 1;
}

static int c_hooked;

static void check_rec(const struct rtm_record *r, unsigned long long *n)
{
	ASSERT(r->version == RTM_REC_VERSION && r->size == sizeof(*r));
	ASSERT(r->nhops >= 1 && r->nhops <= RTM_REC_MAX_HOPS);
	ASSERT(r->path_len >= r->nhops);
	ASSERT(r->hops[0].type == RTM_HOP_IRQ || r->hops[0].type == RTM_HOP_TIMER);
	/* a cookie only on chains a work_end completed (its hop is the
	 * last one unless the chain's hop storage overflowed)
	 */
	if (r->flags & RTM_REC_F_COOKIE)
		ASSERT(!(r->flags & RTM_REC_F_TIMEOUT) &&
		       (r->hops[r->nhops - 1].type == RTM_HOP_WORK_END ||
			(r->flags & RTM_REC_F_DROPPED_HOPS)));
	else
		ASSERT(r->cookie == 0);
	ASSERT(r->latency_ns == (r->end_ns > r->start_ns ?
				 r->end_ns - r->start_ns : 0));
	ASSERT(r->seq >= 1 && r->seq < sizeof(seen) * 8);
	ASSERT(!(r->flags & RTM_REC_F_RING_FULL));
	ASSERT(!c_hooked || (r->seq + hook_mode) % 3 != 0);
	ASSERT(!(seen[r->seq / 8] & (1u << (r->seq % 8))));
	seen[r->seq / 8] |= (unsigned char)(1u << (r->seq % 8));
	(*n)++;
}

static void drain(struct rtm_core *c, unsigned long long *n)
{
	struct rtm_record r;
	unsigned int k;

	for (k = 0; k < NCPU; k++)
		while (rtm_core_read(c, k, &r))
			check_rec(&r, n);
}

/*
 * The kernel probes skip an event the core's rtm_*_wanted() declines,
 * without reading the clock (kmod/rtmon_probes.c): a "no" must mean the
 * event would have changed nothing, not one byte of the core's memory.
 */
static unsigned char *snap;

#define UNLESS_WANTED_NOOP(wanted, call)				\
	do {								\
		if (wanted) {						\
			call;						\
			break;						\
		}							\
		memcpy(snap, mem, memsz);				\
		call;							\
		ASSERT(!memcmp(snap, mem, memsz));			\
	} while (0)

/*
 * The probes ask a gate first (rtm_*_gate(): this cpu's slots in any
 * context, the task table's live count): whatever the core would want, the
 * gate must let through.
 */
static unsigned int used_slots(struct rtm_htab *h)
{
	unsigned int i, w, n = 0;

	for (i = 0; i <= h->mask; i++)
		for (w = 0; w < RTM_HT_WAYS; w++)
			n += !!rtm_ld64(&h->b[i].slot[w]);
	return n;
}

#define GATE_COVERS(wanted, gate)					\
	ASSERT(cpu >= p.ncpus || !(wanted) || (gate))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rtm_params p;
	struct rtm_core *c;
	struct rtm_stats s;
	struct in in = { data, size };
	unsigned long long ts = 1000, nread = 0;
	unsigned int op, cpu, a, b, i;
	char cm[16];

	rtm_params_default(&p, NCPU);
	p.nchains = 4;
	p.nbranches = 8;
	p.chain_hops = 6;
	p.task_buckets = 2;
	p.cookie_buckets = 2;
	p.ring_slots = 4;
	p.max_age_ns = 5000;
	if (!mem) {
		memsz = rtm_core_memsize(&p);
		mem = aligned_alloc(64, (memsz + 63) & ~(size_t)63);
		snap = malloc(memsz);
		ASSERT(mem && snap);
	}
	c = rtm_core_init(mem, memsz, &p);
	ASSERT(c);
	memset(seen, 0, sizeof(seen));
	memset(hook_seen, 0, sizeof(hook_seen));
	hook_rejected = hook_calls = hook_ring_full = hook_unnumbered = 0;
	if (in.n && (in.p[0] & 1)) {
		hook_mode = in.p[0] >> 1;
		rtm_core_set_hook(c, hook, &hook_mode);
	}
	c_hooked = in.n && (in.p[0] & 1);
	for (i = 0; i < 3 && in.n >= 2; i++)
		set_target(c, take(&in), take(&in));

	while (in.n) {
		op = take(&in);
		a = take(&in);
		b = take(&in);
		cpu = op & 3;
		ts += a & 0x3f;
		if ((a & 0xc0) == 0xc0 && (b & 1))
			ts -= a & 0x7;		/* jitter: non-monotonic */
		comm_of(cm, b & 15);
		switch (op >> 2) {
		case 0: case 1:
			rtm_ev_irq_entry(c, cpu, ts, b & 7);
			break;
		case 2:
			/* thread unknown (0) or named: pids 0..15 as wakeups */
			rtm_ev_irq_exit(c, cpu, ts, b & 7, (a >> 6) & 1,
					(a & 0x20) ? (b >> 4) & 15 : 0);
			break;
		case 3:
			/* thread awake: runnable (-1), running on a cpu (or out of range) */
			rtm_ev_irq_exit_rerun(c, cpu, ts, b & 7, (b >> 4) & 15,
					      (a & 1) ? NULL : cm,
					      (int)((a >> 5) & 7) - 1);
			break;
		case 4:
			UNLESS_WANTED_NOOP(rtm_softirq_raise_wanted(c, cpu, (a >> 6) & 3, b % 11),
					   rtm_ev_softirq_raise(c, cpu, ts, b % 11, (a >> 6) & 3));
			break;
		case 5:
			UNLESS_WANTED_NOOP(rtm_softirq_entry_wanted(c, cpu, b % 11),
					   rtm_ev_softirq_entry(c, cpu, ts, b % 11));
			break;
		case 6:
			UNLESS_WANTED_NOOP(rtm_softirq_exit_wanted(c, cpu),
					   rtm_ev_softirq_exit(c, cpu, ts, b % 11));
			break;
		case 7:
			/* ctx: task/softirq/hardirq, 3 = out of range */
			/* timer kinds 0..7: 0, 6, 7 are no kind */
			UNLESS_WANTED_NOOP(rtm_timer_entry_wanted(c, cpu, (b >> 2) & 3, (a >> 5) & 7),
					   rtm_ev_timer_entry(c, cpu, ts, b & 3, ts - (a & 0x1f),
							      (a >> 5) & 7, (b >> 2) & 3));
			break;
		case 8:
			UNLESS_WANTED_NOOP(rtm_timer_exit_wanted(c, cpu, (b >> 2) & 3),
					   rtm_ev_timer_exit(c, cpu, ts, b & 3, (b >> 2) & 3));
			break;
		case 9: case 10: case 11: case 12:
			GATE_COVERS(rtm_waking_wanted(c, cpu, (a >> 6) & 3),
				    rtm_waking_gate(&c->cpus[cpu]));
			UNLESS_WANTED_NOOP(rtm_waking_wanted(c, cpu, (a >> 6) & 3),
					   rtm_ev_waking_running(c, cpu, ts, (a >> 6) & 3,
								 (a & 1) ? 0 : (a >> 1) & 15,
								 b & 15, (b & 15) | 1, cm,
								 (a & 0x20) ? (int)((b >> 4) & 7) - 1 : -1));
			break;
		case 13: case 14: case 15: case 16: case 17:
			GATE_COVERS(rtm_switch_wanted(c, cpu, b & 15),
				    rtm_switch_gate(&c->cpus[cpu], &c->tasks.live));
			UNLESS_WANTED_NOOP(rtm_switch_wanted(c, cpu, b & 15),
					   rtm_ev_switch(c, cpu, ts, a & 15, (a >> 6) & 1, b & 15,
							 (b & 15) | 1, (b & 0x80) ? NULL : cm, NULL));
			break;
		case 18:
			rtm_ev_work_begin(c, cpu, ts, a & 15, (a >> 4) & 1, b & 7,
					  (b & 0x80) ? NULL : cm);
			break;
		case 19:
			rtm_ev_work_end(c, cpu, ts, a & 15, (a >> 4) & 1, b & 7,
					(b & 0x80) ? NULL : cm);
			break;
		case 20:
			rtm_ev_tick(c, cpu, ts);
			break;
		case 21:
			drain(c, &nread);
			break;
		case 22:
			set_target(c, a, b);
			break;
		case 24:
			GATE_COVERS(rtm_kwork_queue_wanted(c, cpu, (a >> 6) & 3, b & 7),
				    rtm_kwork_queue_gate(&c->cpus[cpu], &c->cookies.live));
			UNLESS_WANTED_NOOP(rtm_kwork_queue_wanted(c, cpu, (a >> 6) & 3, b & 7),
					   rtm_ev_kwork_queue(c, cpu, ts, (a >> 6) & 3,
							      a & 15, b & 7));
			break;
		case 25:
			UNLESS_WANTED_NOOP(rtm_kwork_maybe(c, b & 7),
					   rtm_ev_kwork_start(c, cpu, ts, (a >> 6) & 3, a & 15, 0,
							      (b & 0x80) ? NULL : cm,
							      b & 7));
			break;
		case 26:
			UNLESS_WANTED_NOOP(rtm_kwork_end_wanted(c, cpu),
					   rtm_ev_kwork_end(c, cpu, ts, (a >> 6) & 3, a & 15,
							    b & 7));
			break;
		case 23:
			/* out-of-range cpu must be ignored */
			rtm_ev_switch(c, NCPU + (a & 3), ts, 1, 1, 2, 2, cm, NULL);
			rtm_ev_irq_entry(c, NCPU, ts, 1);
			break;
		default:
			drain(c, &nread);
			break;
		}
		/* between events (no claim in flight): live = the used slots */
		ASSERT(rtm_ld32(&c->tasks.live) == used_slots(&c->tasks) &&
		       rtm_ld32(&c->cookies.live) == used_slots(&c->cookies));
	}
	drain(c, &nread);
	for (i = 0; i < NCPU; i++)
		rtm_ev_tick(c, i, ts + p.max_age_ns + 100);
	drain(c, &nread);
	ASSERT(rtm_core_check_quiescent(c) == 0);
	rtm_core_stats(c, &s);
	ASSERT(s.chains_started == s.chains_completed + s.chains_abandoned +
	       s.chains_expired);
	ASSERT(s.branches_opened == s.branches_completed + s.branches_closed +
	       s.branches_pruned + s.branches_merged + s.branches_stale +
	       s.branches_dropped);
	ASSERT(s.branches_completed == s.chains_completed);
	ASSERT(s.records_emitted + s.records_skipped ==
	       s.chains_completed + s.chains_overdue);
	ASSERT(s.records_written + s.drop_ring_full + s.records_filtered ==
	       s.records_emitted);
	ASSERT(s.records_filtered == hook_rejected);
	/* no nesting here: the hook saw every record, dropped ones included */
	ASSERT(s.hook_skipped == 0);
	ASSERT(!c_hooked || (hook_calls == s.records_emitted + s.records_skipped &&
			     hook_unnumbered == s.records_skipped &&
			     hook_ring_full == s.drop_ring_full));
	ASSERT(c_hooked || hook_calls == 0);
	ASSERT(s.records_read == nread && nread == s.records_written);
	return 0;
}

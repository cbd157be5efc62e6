// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * explain.c - split a chain's latency into who took the time (explain.h).
 *
 * Each stretch between two hops is handed to the context that had to act
 * next (the handler, the woken task, the task at work); its time is then
 * split by what the kernel events say that cpu or task did: which task
 * ran, hard IRQs and softirqs on top of it, the task preempted, blocked,
 * woken. Every stretch is attributed in full (what the snapshot does not
 * cover is "unknown"), so the parts add up to the latency exactly.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "explain.h"
#include "rtm_record.h"
#include "rtmon/rtmon.h"

static const char *const cat_names[RTX_NCAT] = {
	[RTX_SOURCE_DELAY] = "source_delay",
	[RTX_HANDLER] = "handler",
	[RTX_SOFTIRQ] = "softirq",
	[RTX_RUNNABLE] = "runnable",
	[RTX_IRQ] = "irq_interference",
	[RTX_SOFTIRQ_INTF] = "softirq_interference",
	[RTX_RUNNING] = "running",
	[RTX_PREEMPTED] = "preempted",
	[RTX_BLOCKED] = "blocked",
	[RTX_QUEUED] = "queued",
	[RTX_UNKNOWN] = "unknown",
};

static const char *const vec_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU"
};

const char *rtx_cat_name(enum rtx_cat c)
{
	return (unsigned int)c < RTX_NCAT ? cat_names[c] : "?";
}

/* ---- parts ---- */

struct rtx_ctx {
	const struct rtx_chain *c;
	const struct fts_trace *t;
	struct rtx_result *r;
	int hop;		/* the hop the current stretch leads to */
	int busy;		/* a worker's running is queued (earlier work) */
};

/* Is s nothing but a task's priority: "", " rt N", " nice N", each
 * maybe followed by " (boosted)"? */
static int prio_suffix(const char *s)
{
	if (!strncmp(s, " rt ", 4))
		s += 4;
	else if (!strncmp(s, " nice ", 6))
		s += 6;
	else
		return !*s || !strcmp(s, " (boosted)");
	if (*s == '-')
		s++;
	if (*s < '0' || *s > '9')
		return 0;
	while (*s >= '0' && *s <= '9')
		s++;
	return !*s || !strcmp(s, " (boosted)");
}

static void part_add_ns(struct rtx_part *p, int hop, uint64_t ns)
{
	p->ns += ns;
	if (hop >= 0 && hop <= RTX_MAX_HOPS)
		p->hop_ns[hop] += ns;
}

static void add_part(struct rtx_ctx *x, enum rtx_cat cat, const char *who,
		     int cpu, uint64_t ns)
{
	struct rtx_result *r = x->r;
	int i;

	if (!ns)
		return;
	r->sum += ns;
	/* one part per (category, cpu, who), a task's priority aside: a
	 * task seen at two priorities (priority inheritance) is marked */
	const char *br = strchr(who, ']');
	size_t key = br ? (size_t)(br - who) + 1 : strlen(who);

	for (i = 0; i < r->nparts; i++) {
		struct rtx_part *p = &r->parts[i];

		if (p->cat != cat || p->cpu != cpu)
			continue;
		/* the same task (its priority aside), or the same words */
		if (strcmp(p->who, who) &&
		    (strncmp(p->who, who, key) || !prio_suffix(p->who + key) ||
		     !prio_suffix(who + key)))
			continue;
		part_add_ns(p, x->hop, ns);
		if (strcmp(p->who, who) && !strstr(p->who, " (boosted)") &&
		    strlen(p->who) + 11 < sizeof(p->who))
			strcat(p->who, " (boosted)");
		return;
	}
	if (r->nparts == RTX_MAX_PARTS) {
		/* full: the rest goes to the last part, renamed */
		struct rtx_part *p = &r->parts[RTX_MAX_PARTS - 1];

		p->cat = RTX_UNKNOWN;
		snprintf(p->who, sizeof(p->who), "(more parts than kept)");
		p->cpu = -1;
		part_add_ns(p, x->hop, ns);
		return;
	}
	r->parts[r->nparts].cat = cat;
	snprintf(r->parts[r->nparts].who, sizeof(r->parts[0].who), "%s", who);
	r->parts[r->nparts].cpu = cpu;
	r->parts[r->nparts].hop = x->hop;
	part_add_ns(&r->parts[r->nparts], x->hop, ns);
	r->nparts++;
}

static void note_missing(struct rtx_ctx *x, const char *what)
{
	size_t l = strlen(x->r->missing);

	x->r->partial = 1;
	if (strstr(x->r->missing, what))
		return;
	snprintf(x->r->missing + l, sizeof(x->r->missing) - l, "%s%s",
		 l ? "; " : "", what);
}

/*
 * The name a task had last in the snapshot: a switch records the comm of
 * that moment (a process that exec()s while it runs shows its old name
 * until it is switched out again). pid 0 (idle) keeps its own per cpu.
 */
static const struct fts_trace *name_trace;

static const char *latest_comm(const struct fts_task *t)
{
	const struct fts_trace *tr = name_trace;
	size_t i;

	if (!tr || !t->pid)
		return t->comm;
	for (i = tr->n; i-- > 0;) {
		const struct fts_event *e = &tr->ev[i];

		if (e->type == FTS_SWITCH && e->a.pid == t->pid)
			return e->a.comm;
		if (e->type == FTS_SWITCH && e->b.pid == t->pid)
			return e->b.comm;
		if (e->type == FTS_WAKING && e->a.pid == t->pid)
			return e->a.comm;
	}
	return t->comm;
}

static void task_name(char *buf, size_t len, const struct fts_task *t)
{
	const char *comm = latest_comm(t);

	/* pid 0 is the cpu's idle task: no task took the cpu then */
	if (!t->pid)
		snprintf(buf, len, "idle (%s)", comm);
	else if (t->prio < 0)
		snprintf(buf, len, "%s[%u]", comm, t->pid);
	else if (t->prio < 100)
		snprintf(buf, len, "%s[%u] rt %d", comm, t->pid, 99 - t->prio);
	else
		snprintf(buf, len, "%s[%u] nice %d", comm, t->pid, t->prio - 120);
}

/* ---- what a cpu did from a to b ---- */

struct cpu_state {
	int known;		/* task known */
	struct fts_task task;
	int irq;		/* -1: none */
	char irq_name[24];
	int vec;		/* -1: none */
	uint32_t vec_pid;	/* the task running it (PREEMPT_RT: any) */
	int timer;		/* an hrtimer callback running */
	char timer_fn[24];	/* its name, "" if the trace has none */
};

/*
 * Is the softirq on the cpu running now? On PREEMPT_RT softirqs run in
 * task context and are preempted like the task (ktimers/N, ksoftirqd/N,
 * or a task in local_bh_enable()): while another task runs, the softirq
 * waits with its task and takes no time. Without PREEMPT_RT no switch
 * comes between softirq_entry and _exit, so this changes nothing there.
 */
static int cpu_softirq_on(const struct cpu_state *s)
{
	return s->vec >= 0 && (!s->known || s->task.pid == s->vec_pid);
}

static void cpu_state_apply(struct cpu_state *s, const struct fts_event *e)
{
	switch (e->type) {
	case FTS_SWITCH:
		s->task = e->b;
		s->known = 1;
		break;
	case FTS_IRQ_ENTRY:
		s->irq = e->n;
		snprintf(s->irq_name, sizeof(s->irq_name), "%s", e->name);
		break;
	case FTS_IRQ_EXIT:
		s->irq = -1;
		break;
	case FTS_SOFTIRQ_ENTRY:
		s->vec = e->n;
		s->vec_pid = e->cur.pid;
		break;
	case FTS_SOFTIRQ_EXIT:
		s->vec = -1;
		break;
	case FTS_TIMER_ENTRY:
		s->timer = 1;
		snprintf(s->timer_fn, sizeof(s->timer_fn), "%s", e->name);
		break;
	case FTS_TIMER_EXIT:
		s->timer = 0;
		break;
	default:
		break;
	}
}

/* s: what cpu was doing after the trace's first n events */
static void cpu_state_upto(const struct fts_trace *t, int cpu, size_t n,
			   struct cpu_state *s)
{
	size_t i;

	*s = (struct cpu_state){ .irq = -1, .vec = -1 };
	for (i = 0; i < n; i++)
		if (t->ev[i].cpu == cpu)
			cpu_state_apply(s, &t->ev[i]);
}

/*
 * s: what cpu was doing at ts (events up to ts applied). Returns the index
 * of the first event after ts.
 */
static size_t cpu_state_at(const struct fts_trace *t, int cpu, uint64_t ts,
			   struct cpu_state *s)
{
	size_t i;

	for (i = 0; i < t->n && t->ev[i].ts <= ts; i++)
		;
	cpu_state_upto(t, cpu, i, s);
	return i;
}

/*
 * Attribute [a, b) on cpu: hard IRQ and softirq time as interference,
 * the rest to the task running: cat_self when it is pid, else cat_other.
 * With self_label, pid is the task running the chain's own softirq: its
 * time, softirq included, is cat_self named self_label.
 */
static void cpu_split_as(struct rtx_ctx *x, int cpu, uint64_t a, uint64_t b,
			 uint32_t pid, enum rtx_cat cat_self,
			 enum rtx_cat cat_other, const char *self_label)
{
	const struct fts_trace *t = x->t;
	struct cpu_state s;
	uint64_t from = a;
	char who[128];
	size_t i;

	if (b <= a)
		return;
	/* the state at a; a cpu not switched before a runs the first prev */
	i = cpu_state_at(t, cpu, a, &s);
	if (!s.known) {
		size_t j;

		for (j = i; j < t->n; j++)
			if (t->ev[j].cpu == cpu && t->ev[j].type == FTS_SWITCH) {
				s.task = t->ev[j].a;
				s.known = 1;
				break;
			}
	}
	for (;; i++) {
		uint64_t to = (i < t->n && t->ev[i].ts < b) ? t->ev[i].ts : b;

		if (to > from) {
			if (s.irq >= 0) {
				snprintf(who, sizeof(who), "irq %d %s", s.irq, s.irq_name);
				add_part(x, RTX_IRQ, who, cpu, to - from);
			} else if (self_label && (s.known ? s.task.pid == pid :
						  s.vec >= 0 && s.vec_pid == pid)) {
				add_part(x, cat_self, self_label, cpu, to - from);
			} else if (cpu_softirq_on(&s)) {
				snprintf(who, sizeof(who), "softirq %s",
					 s.vec < 10 ? vec_names[s.vec] : "?");
				add_part(x, RTX_SOFTIRQ_INTF, who, cpu, to - from);
			} else if (!s.known) {
				add_part(x, RTX_UNKNOWN, "cpu not in the snapshot", cpu,
					 to - from);
			} else {
				task_name(who, sizeof(who), &s.task);
				add_part(x, s.task.pid == pid && pid ? cat_self : cat_other,
					 who, cpu, to - from);
			}
			from = to;
		}
		if (to == b)
			break;
		if (t->ev[i].cpu == cpu)
			cpu_state_apply(&s, &t->ev[i]);
	}
}

static void cpu_split(struct rtx_ctx *x, int cpu, uint64_t a, uint64_t b,
		      uint32_t pid, enum rtx_cat cat_self, enum rtx_cat cat_other)
{
	cpu_split_as(x, cpu, a, b, pid, cat_self, cat_other, NULL);
}

/* The task running on cpu at ts (the host of a softirq there): 0 if the
 * snapshot does not say, else 1 with *pid. */
static int cpu_task_at(const struct fts_trace *t, int cpu, uint64_t ts,
		       uint32_t *pid)
{
	struct cpu_state s;

	cpu_state_at(t, cpu, ts, &s);
	if (s.vec >= 0) {
		*pid = s.vec_pid;
		return 1;
	}
	*pid = s.task.pid;
	return s.known;
}

/* ---- what a task did from a to b ---- */

enum tstate { T_UNKNOWN, T_RUNNING, T_PREEMPTED, T_RUNNABLE, T_BLOCKED };

struct task_state {
	enum tstate st;
	int cpu;
	char blocked[8];	/* prev_state when it blocked */
	uint64_t since;		/* when it blocked (0: before the snapshot) */
	struct fts_task self;
};

static int task_event(const struct fts_event *e, uint32_t pid)
{
	if (e->type == FTS_SWITCH)
		return e->a.pid == pid || e->b.pid == pid;
	if (e->type == FTS_WAKING || e->type == FTS_MIGRATE)
		return e->a.pid == pid;
	return 0;
}

static void task_apply(struct task_state *s, const struct fts_event *e,
		       uint32_t pid)
{
	if (e->type == FTS_SWITCH && e->b.pid == pid) {
		s->st = T_RUNNING;
		s->cpu = e->cpu;
		s->self = e->b;
	} else if (e->type == FTS_SWITCH && e->a.pid == pid) {
		s->self = e->a;
		s->cpu = e->cpu;
		if (e->prev_state[0] == 'R') {
			s->st = T_PREEMPTED;
		} else {
			s->st = T_BLOCKED;
			s->since = e->ts;
			snprintf(s->blocked, sizeof(s->blocked), "%s", e->prev_state);
		}
	} else if (e->type == FTS_WAKING) {
		s->st = T_RUNNABLE;
		s->cpu = e->n;
		s->self = e->a;
	} else if (e->type == FTS_MIGRATE) {
		s->cpu = e->n;
	}
}

/*
 * The waking that ends the block of pid: its next event from index i on
 * (a migration aside), if that is a waking (its waker), else NULL. Not
 * bounded by the stretch being explained: a hop (its time read by the
 * module, microseconds off the trace's) may end the stretch just before
 * the waking.
 */
static const struct fts_event *next_waking(const struct fts_trace *t, size_t i,
					   uint32_t pid)
{
	for (; i < t->n; i++)
		if (task_event(&t->ev[i], pid) && t->ev[i].type != FTS_MIGRATE)
			return t->ev[i].type == FTS_WAKING ? &t->ev[i] : NULL;
	return NULL;
}

/*
 * Who did the waking t->ev[w]: the line's task, unless an IRQ handler or
 * a timer callback was open on its cpu then (the task was only the one
 * it ran over: "irq 27 virtio1-requests in pi-owner[201] nice 0").
 * Returns 1 when it was such a handler, else 0.
 */
static int waker_name(char *buf, size_t len, const struct fts_trace *t,
		      size_t w)
{
	const struct fts_event *wk = &t->ev[w];
	struct cpu_state s;
	char task[40];

	/* (by index, not time: the expiry's exit may share its microsecond) */
	cpu_state_upto(t, wk->cpu, w, &s);
	task_name(task, sizeof(task), &wk->cur);
	if (s.irq >= 0)
		snprintf(buf, len, "irq %d %.20s in %s", s.irq, s.irq_name, task);
	else if (s.timer)
		snprintf(buf, len, "timer %.20s in %s",
			 s.timer_fn[0] ? s.timer_fn : "?", task);
	else
		snprintf(buf, len, "%s", task);
	return s.irq >= 0 || s.timer;
}

/*
 * Priority inheritance: did the waker wk->cur run boosted while the task
 * was blocked, from from to the waking? Its switches then show a higher
 * priority (a lower kernel prio) than at its first switch after the
 * waking (an rt_mutex owner gives the boost back when it unlocks).
 * Returns the boosted kernel prio, or -1.
 */
static int waker_boost(const struct fts_trace *t, uint64_t from,
		       const struct fts_event *wk)
{
	uint32_t pid = wk->cur.pid;
	int during = -1, after = -1;
	size_t i;

	if (!pid)
		return -1;
	for (i = 0; i < t->n; i++) {
		const struct fts_event *e = &t->ev[i];
		int p;

		if (e->type != FTS_SWITCH || e->ts < from)
			continue;
		if (e->a.pid == pid)
			p = e->a.prio;
		else if (e->b.pid == pid)
			p = e->b.prio;
		else
			continue;
		if (e->ts <= wk->ts) {
			if (p >= 0 && (during < 0 || p < during))
				during = p;
		} else {
			after = p;
			break;
		}
	}
	return during >= 0 && during < 100 && after > during ? during : -1;
}

static void task_interval(struct rtx_ctx *x, const struct task_state *s,
			  uint32_t pid, size_t i, uint64_t from, uint64_t to)
{
	char who[128], w[80];
	const struct fts_event *wk;

	switch (s->st) {
	case T_RUNNING:
		cpu_split(x, s->cpu, from, to, pid,
			  x->busy ? RTX_QUEUED : RTX_RUNNING, RTX_PREEMPTED);
		break;
	case T_PREEMPTED:
		cpu_split(x, s->cpu, from, to, pid, RTX_RUNNING, RTX_PREEMPTED);
		break;
	case T_RUNNABLE:
		cpu_split(x, s->cpu, from, to, pid, RTX_RUNNING, RTX_RUNNABLE);
		break;
	case T_BLOCKED:
		task_name(who, sizeof(who), &s->self);
		wk = next_waking(x->t, i, pid);
		if (wk) {
			/* the boost from the block's start (never after
			 * from): an earlier stretch may hold the owner's
			 * boosted switch-in */
			int boost = -1;

			/* a boost is the waking task's, not an IRQ's */
			if (!waker_name(w, sizeof(w), x->t, (size_t)(wk - x->t->ev)))
				boost = waker_boost(x->t, s->since ? s->since : from, wk);
			snprintf(who + strlen(who), sizeof(who) - strlen(who),
				 " %s, woken by %s", s->blocked, w);
			if (boost >= 0)
				snprintf(who + strlen(who), sizeof(who) - strlen(who),
					 " (boosted to rt %d)", 99 - boost);
		} else {
			snprintf(who + strlen(who), sizeof(who) - strlen(who),
				 " %s", s->blocked);
		}
		add_part(x, RTX_BLOCKED, who, s->cpu, to - from);
		break;
	default:
		add_part(x, RTX_UNKNOWN, "task state not in the snapshot", -1,
			 to - from);
	}
}

/*
 * The trace's own event of hop p, when p is pid's waking or switch-in:
 * its index, else (size_t)-1. The module reads its clock in its own probe
 * on the tracepoint, before ftrace's: the trace stamps the same event
 * later, microseconds on hardware, up to milliseconds under emulation
 * (the vCPU stood still between the two probes). The own event is then
 * pid's first event from a on (within the file's microsecond, OWN_SLACK),
 * if it is of the hop's kind: the task can do nothing else in between.
 */
#define OWN_SLACK	2000

static size_t own_event(const struct fts_trace *t, const struct rtx_hop *p,
			uint32_t pid, uint64_t a)
{
	size_t i;

	if (!p || p->pid != pid ||
	    (p->type != RTM_HOP_WAKING && p->type != RTM_HOP_SWITCH_IN))
		return (size_t)-1;
	/* by difference: ts + OWN_SLACK wraps at the end of the clock */
	for (i = 0; i < t->n && t->ev[i].ts < a && a - t->ev[i].ts > OWN_SLACK; i++)
		;
	for (; i < t->n; i++) {
		const struct fts_event *e = &t->ev[i];

		if (!task_event(e, pid) || e->type == FTS_MIGRATE)
			continue;
		if (p->type == RTM_HOP_WAKING ? e->type == FTS_WAKING :
		    e->type == FTS_SWITCH && e->b.pid == pid)
			return i;
		break;
	}
	return (size_t)-1;
}

/*
 * Attribute [a, b) to task pid, in state hint on hint_cpu unless the
 * events before a tell otherwise. own: the hop at a, when it may be the
 * task's own event (its waking, its switch-in): the state from that
 * event on, however much later the trace stamped it.
 */
static void task_split(struct rtx_ctx *x, uint32_t pid, const char *comm,
		       uint64_t a, uint64_t b, enum tstate hint, int hint_cpu,
		       const struct rtx_hop *own)
{
	const struct fts_trace *t = x->t;
	struct task_state s = { .st = hint, .cpu = hint_cpu };
	uint64_t from = a, to;
	size_t i, last = (size_t)-1, anchor;

	if (b <= a)
		return;
	s.self.pid = pid;
	s.self.prio = -1;
	snprintf(s.self.comm, sizeof(s.self.comm), "%s", comm);
	anchor = own_event(t, own, pid, a);
	if (anchor != (size_t)-1) {
		last = anchor;
		i = anchor + 1;
	} else {
		/* the latest event of the task before a tells its state
		 * (a hop's own event is at a: within the file's
		 * microseconds) */
		for (i = 0; i < t->n && t->ev[i].ts <= a; i++)
			if (task_event(&t->ev[i], pid))
				last = i;
	}
	if (last != (size_t)-1)
		task_apply(&s, &t->ev[last], pid);
	if (anchor != (size_t)-1 && t->ev[anchor].type == FTS_SWITCH &&
	    t->ev[anchor].ts > a) {
		/* switched in by the module's clock, not yet by the trace's:
		 * the switch itself, the task's (the cpu's events there are
		 * the switch's way in) */
		char who[128];

		from = t->ev[anchor].ts < b ? t->ev[anchor].ts : b;
		task_name(who, sizeof(who), &s.self);
		add_part(x, RTX_RUNNING, who, s.cpu, from - a);
	}
	for (; i < t->n && t->ev[i].ts < b; i++) {
		if (!task_event(&t->ev[i], pid))
			continue;
		/* (after an own event stamped before a: from a on) */
		to = t->ev[i].ts > from ? t->ev[i].ts : from;
		task_interval(x, &s, pid, i, from, to);
		from = to;
		task_apply(&s, &t->ev[i], pid);
	}
	task_interval(x, &s, pid, i, from, b);
}

/* ---- one stretch between hops ---- */

/*
 * The item of the chain reached worker pid through a queue at a, and the
 * worker ends it (or, handed off, begins it) at b. Until the worker's
 * last librtmon marker of another cookie in [a, b) (the end of an earlier
 * item, or the begin of the next one it took first) the worker was on
 * earlier work: returns that marker's time, a if none (or no cookie to
 * tell the items apart).
 */
static uint64_t busy_until(const struct rtx_ctx *x, uint32_t pid, uint64_t a,
			   uint64_t b)
{
	const struct fts_trace *t = x->t;
	uint64_t m = a;
	size_t i;

	if (!x->c->has_cookie || !pid)
		return a;
	for (i = 0; i < t->n && t->ev[i].ts < b; i++) {
		const struct fts_event *e = &t->ev[i];

		if (e->ts >= a && (e->type == FTS_WORK_BEGIN || e->type == FTS_WORK_END) &&
		    e->cur.pid == pid && e->cookie != x->c->cookie)
			m = e->ts;
	}
	return m;
}

static void irq_who(const struct rtx_chain *c, char *buf, size_t len)
{
	if (c->kind == RTM_KIND_TIMER)
		snprintf(buf, len, "timer");
	else
		snprintf(buf, len, "irq %" PRIu64, c->source);
}

static void stretch(struct rtx_ctx *x, const struct rtx_hop *p,
		    const struct rtx_hop *h, uint64_t a, uint64_t b)
{
	char who[128];

	if (b <= a)
		return;
	switch (h->type) {
	case RTM_HOP_TIMER_RUN:
		/* programmed expiry -> handler: whoever ran there meanwhile */
		cpu_split(x, h->cpu, a, b, 0, RTX_SOURCE_DELAY, RTX_SOURCE_DELAY);
		return;
	case RTM_HOP_SWITCH_IN:
		/* woken (or preempted earlier) until it runs */
		task_split(x, h->pid, h->comm, a, b,
			   p->type == RTM_HOP_SWITCH_IN ||
			   p->type == RTM_HOP_PREEMPT ? T_PREEMPTED :
			   p->type == RTM_HOP_WAIT ? T_BLOCKED : T_RUNNABLE,
			   h->cpu, p);
		return;
	case RTM_HOP_SOFTIRQ_ENTRY:
		/* raised until it runs: who ran on that cpu */
		cpu_split(x, h->cpu, a, b, 0, RTX_RUNNABLE, RTX_RUNNABLE);
		return;
	case RTM_HOP_QUEUED:
		/* the module saw the worker end earlier work at b: busy till then */
		x->busy = 1;
		task_split(x, h->pid, h->comm, a, b, T_RUNNING, h->cpu, NULL);
		x->busy = 0;
		return;
	case RTM_HOP_WORK_END:
	case RTM_HOP_HANDOFF:
		if (h->pid != p->pid) {
			/* through a queue to another task: its earlier items first */
			uint64_t m = busy_until(x, h->pid, a, b);

			x->busy = 1;
			task_split(x, h->pid, h->comm, a, m, T_RUNNING, h->cpu, NULL);
			x->busy = 0;
			a = m;
		}
		task_split(x, h->pid, h->comm, a, b, T_RUNNING, h->cpu, p);
		return;
	case RTM_HOP_WORK_BEGIN:
	case RTM_HOP_BLOCK:
	case RTM_HOP_WAIT:
	case RTM_HOP_PREEMPT:
		task_split(x, h->pid, h->comm, a, b, T_RUNNING, h->cpu, p);
		return;
	default:
		break;
	}
	/* a wakeup, raise, rerun or IRQ exit: by the context it names */
	if (h->ctx == RTM_CTX_HARDIRQ) {
		irq_who(x->c, who, sizeof(who));
		add_part(x, RTX_HANDLER, who, h->cpu, b - a);
	} else if (h->ctx == RTM_CTX_SOFTIRQ) {
		const char *label = p->type == RTM_HOP_TIMER_RUN ?
			"timer (softirq)" : p->type == RTM_HOP_SOFTIRQ_ENTRY &&
			p->pid < 10 ? vec_names[p->pid] : "softirq";
		uint32_t host;

		/* on PREEMPT_RT the softirq's task can be preempted: that
		 * time is the preempting task's */
		if (cpu_task_at(x->t, h->cpu, a, &host))
			cpu_split_as(x, h->cpu, a, b, host, RTX_SOFTIRQ,
				     RTX_PREEMPTED, label);
		else
			add_part(x, RTX_SOFTIRQ, label, h->cpu, b - a);
	} else {
		/* a task woke the next one: the waker is the previous hop's task */
		task_split(x, p->pid, p->comm, a, b, T_RUNNING, h->cpu, p);
	}
}

void rtx_explain(const struct rtx_chain *c, const struct fts_trace *t,
		 struct rtx_result *r)
{
	struct rtx_ctx x = { .c = c, .t = t, .r = r };
	uint64_t a, b, lo, hi;
	int i;

	memset(r, 0, sizeof(*r));
	r->culprit = -1;
	name_trace = t;
	r->latency = c->end > c->start ? c->end - c->start : 0;
	if (!t->n)
		note_missing(&x, "no kernel events in the snapshot");
	if (c->truncated)
		note_missing(&x, "hops between the root and the last 15 are not in the record");
	for (i = 1; i <= c->nhops; i++) {
		const struct rtx_hop *p = &c->hops[i - 1];
		const struct rtx_hop *h = i < c->nhops ? &c->hops[i] : NULL;

		x.hop = i;
		a = p->ts < c->start ? c->start : p->ts;
		if (a > c->end)
			a = c->end;
		b = h ? h->ts : c->end;
		if (b > c->end)
			b = c->end;
		if (b <= a)
			continue;
		if (!h) {
			/* an open chain (overdue report): it waits at its last hop */
			note_missing(&x, "the chain was still open (overdue report)");
			add_part(&x, RTX_UNKNOWN, "still open", p->cpu, b - a);
			continue;
		}
		/* what the snapshot does not cover */
		lo = t->n ? t->first_ts : b;
		hi = t->n ? t->last_ts : b;
		if (a < lo) {
			uint64_t e = lo < b ? lo : b;

			note_missing(&x, "the snapshot starts after the chain's start");
			add_part(&x, RTX_UNKNOWN, "before the snapshot", h->cpu, e - a);
			a = e;
		}
		if (b > hi && a < b) {
			uint64_t s = hi > a ? hi : a;

			note_missing(&x, "the snapshot ends before the chain's end");
			add_part(&x, RTX_UNKNOWN, "after the snapshot", h->cpu, b - s);
			b = s;
		}
		stretch(&x, p, h, a, b);
	}
	/* largest first; the culprit is the largest known part */
	for (i = 1; i < r->nparts; i++) {
		struct rtx_part k = r->parts[i];
		int j = i;

		while (j > 0 && r->parts[j - 1].ns < k.ns) {
			r->parts[j] = r->parts[j - 1];
			j--;
		}
		r->parts[j] = k;
	}
	for (i = 0; i < r->nparts; i++)
		if (r->parts[i].cat != RTX_UNKNOWN) {
			r->culprit = i;
			break;
		}
}

void rtx_culprit_line(const struct rtx_result *r, char *buf, size_t len)
{
	const struct rtx_part *p;
	double pct;
	char on[24] = "";

	if (r->culprit < 0) {
		snprintf(buf, len, "no culprit: %s", r->missing[0] ? r->missing :
			 "nothing to explain");
		return;
	}
	p = &r->parts[r->culprit];
	pct = r->latency ? 100.0 * (double)p->ns / (double)r->latency : 0;
	if (p->cpu >= 0)
		snprintf(on, sizeof(on), " on cpu %d", p->cpu);
	switch (p->cat) {
	case RTX_RUNNABLE:
		snprintf(buf, len, "%.0f%% (%.3f us) runnable behind %s%s", pct, p->ns / 1e3, p->who, on);
		break;
	case RTX_PREEMPTED:
		snprintf(buf, len, "%.0f%% (%.3f us) preempted by %s%s", pct, p->ns / 1e3, p->who, on);
		break;
	case RTX_SOURCE_DELAY:
		snprintf(buf, len, "%.0f%% (%.3f us) source delay, %s running%s", pct, p->ns / 1e3, p->who, on);
		break;
	case RTX_QUEUED:
		snprintf(buf, len, "%.0f%% (%.3f us) queued behind %s, busy with earlier work%s",
			 pct, p->ns / 1e3, p->who, on);
		break;
	default:
		snprintf(buf, len, "%.0f%% (%.3f us) %s: %s%s", pct, p->ns / 1e3,
			 rtx_cat_name(p->cat), p->who, on);
	}
	if (r->partial && strlen(buf) + 10 < len)
		strcat(buf, " (partial)");
}

json_t *rtx_json(const struct rtx_result *r)
{
	json_t *o, *parts = json_array();
	char line[256];
	int i;

	for (i = 0; i < r->nparts; i++) {
		const struct rtx_part *p = &r->parts[i];
		json_t *by_hop = json_array();
		int h;

		for (h = 0; h <= RTX_MAX_HOPS; h++)
			if (p->hop_ns[h])
				json_array_append_new(by_hop, json_pack("{s:i, s:I}", "hop", h,
									"ns", (json_int_t)p->hop_ns[h]));
		json_array_append_new(parts, json_pack("{s:s, s:s, s:i, s:i, s:I, s:f, s:o}",
			"category", rtx_cat_name(p->cat), "who", p->who,
			"cpu", p->cpu, "hop", p->hop, "ns", (json_int_t)p->ns,
			"share", r->latency ? (double)p->ns / (double)r->latency : 0.0,
			"by_hop", by_hop));
	}
	rtx_culprit_line(r, line, sizeof(line));
	o = json_pack("{s:I, s:I, s:b, s:s, s:o}",
		      "latency_ns", (json_int_t)r->latency,
		      "sum_ns", (json_int_t)r->sum, "partial", r->partial,
		      "culprit", line, "parts", parts);
	if (o && r->missing[0])
		json_object_set_new(o, "missing", json_string(r->missing));
	return o;
}

/* ---- the chain from a record's JSON ---- */

/* a record's hop event names are librtmon's (rtmon_hop_name, "?" unknown) */
static int hop_type(const char *ev)
{
	unsigned int i;

	for (i = 1; ev && strcmp(ev, "?") && i <= UINT8_MAX; i++)
		if (!strcmp(ev, rtmon_hop_name(i)))
			return (int)i;
	return -1;
}

static int ctx_of(const char *s)
{
	if (s && !strcmp(s, "hardirq"))
		return RTM_CTX_HARDIRQ;
	if (s && !strcmp(s, "softirq"))
		return RTM_CTX_SOFTIRQ;
	return RTM_CTX_TASK;
}

void rtx_chain_from_record(struct rtx_chain *c, const struct rtm_record *r)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->seq = r->seq;
	c->start = r->start_ns;
	c->end = r->end_ns;
	c->kind = r->kind;
	c->source = r->source;
	c->truncated = !!(r->flags & RTM_REC_F_TRUNCATED);
	c->cookie = r->cookie;
	c->has_cookie = !!(r->flags & RTM_REC_F_COOKIE);
	c->nhops = r->nhops < RTX_MAX_HOPS ? r->nhops : RTX_MAX_HOPS;
	for (i = 0; i < (unsigned int)c->nhops; i++) {
		const struct rtm_rec_hop *h = &r->hops[i];

		c->hops[i].ts = h->ts_ns;
		c->hops[i].cpu = h->cpu;
		c->hops[i].type = h->type;
		c->hops[i].ctx = h->ctx;
		c->hops[i].pid = h->pid;
		memcpy(c->hops[i].comm, h->comm, RTM_COMM_LEN < FTS_COMM_LEN ?
		       RTM_COMM_LEN : FTS_COMM_LEN - 1);
		/* hops on other cpus: same clock, order kept */
		if (i && c->hops[i].ts < c->hops[i - 1].ts)
			c->hops[i].ts = c->hops[i - 1].ts;
	}
}

int rtx_chain_from_json(struct rtx_chain *c, json_t *rec, char *err, size_t len)
{
	json_t *hops = json_object_get(rec, "hops"), *h, *fl;
	const char *kind = json_string_value(json_object_get(rec, "kind"));
	size_t i;

	memset(c, 0, sizeof(*c));
	if (!json_is_object(rec) || !json_is_array(hops) || !json_array_size(hops) ||
	    !json_is_integer(json_object_get(rec, "start_ns")) ||
	    !json_is_integer(json_object_get(rec, "end_ns"))) {
		snprintf(err, len, "not a chain record (start_ns, end_ns, hops)");
		return -1;
	}
	c->seq = (uint64_t)json_integer_value(json_object_get(rec, "seq"));
	c->start = (uint64_t)json_integer_value(json_object_get(rec, "start_ns"));
	c->end = (uint64_t)json_integer_value(json_object_get(rec, "end_ns"));
	c->kind = kind && !strcmp(kind, "timer") ? RTM_KIND_TIMER : RTM_KIND_IRQ;
	c->source = (uint64_t)json_integer_value(json_object_get(rec, "source"));
	if (json_is_integer(json_object_get(rec, "cookie"))) {
		c->cookie = (uint64_t)json_integer_value(json_object_get(rec, "cookie"));
		c->has_cookie = 1;
	}
	json_array_foreach(json_object_get(rec, "flags"), i, fl)
		if (json_is_string(fl) && !strcmp(json_string_value(fl), "truncated"))
			c->truncated = 1;
	json_array_foreach(hops, i, h) {
		struct rtx_hop *o;
		const char *ev = json_string_value(json_object_get(h, "event"));
		json_int_t ts = json_integer_value(json_object_get(h, "ts_ns"));

		if (i >= RTX_MAX_HOPS) {
			snprintf(err, len, "more than %d hops", RTX_MAX_HOPS);
			return -1;
		}
		o = &c->hops[i];
		o->type = hop_type(ev);
		if (o->type < 0 || !json_is_integer(json_object_get(h, "ts_ns")) || ts < 0) {
			snprintf(err, len, "hop %zu: unknown event or no ts_ns", i);
			return -1;
		}
		o->ts = (uint64_t)ts;
		o->cpu = (int)json_integer_value(json_object_get(h, "cpu"));
		o->ctx = ctx_of(json_string_value(json_object_get(h, "ctx")));
		o->pid = (uint32_t)json_integer_value(json_object_get(h, "pid"));
		snprintf(o->comm, sizeof(o->comm), "%s",
			 json_string_value(json_object_get(h, "comm")) ?: "");
		if (i && o->ts < c->hops[i - 1].ts) {
			/* hops on other cpus: same clock, order kept */
			o->ts = c->hops[i - 1].ts;
		}
	}
	c->nhops = (int)json_array_size(hops);
	if (c->end < c->start) {
		snprintf(err, len, "end_ns before start_ns");
		return -1;
	}
	return 0;
}

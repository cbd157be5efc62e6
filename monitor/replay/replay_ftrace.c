// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * replay_ftrace.c - ftrace text (/sys/kernel/tracing/trace) and
 * `trace-cmd report` text, line by line: each event line parsed into a
 * struct rx_kev and replayed by replay_kev.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtm_core.h"
#include "replay.h"

static const char *ft_field(const char *s, const char *key)
{
	size_t kl = strlen(key);
	const char *p = s;

	while ((p = strstr(p, key))) {
		if ((p == s || p[-1] == ' ' || p[-1] == ',') && p[kl] == '=')
			return p + kl + 1;
		p += kl;
	}
	return NULL;
}

static bool ft_num(const char *s, const char *key, int base, __u64 *out)
{
	const char *v = ft_field(s, key);
	char *end;

	if (!v || !isxdigit((unsigned char)*v))
		return false;
	errno = 0;
	*out = strtoull(v, &end, base);
	return !errno && (!*end || *end == ' ' || *end == ',' || *end == ']');
}

/* comm value up to " <next_key>=" */
static void ft_comm(const char *s, const char *key, const char *next,
		    char *dst)
{
	const char *v = ft_field(s, key), *e;
	char pat[32];
	size_t l;

	memset(dst, 0, RTM_COMM_LEN);
	if (!v)
		return;
	snprintf(pat, sizeof(pat), " %s=", next);
	e = strstr(v, pat);
	l = e ? (size_t)(e - v) : strcspn(v, " ");
	if (l > RTM_COMM_LEN - 1)
		l = RTM_COMM_LEN - 1;
	memcpy(dst, v, l);
}

/*
 * trace-cmd report's sched plugin prints tasks as "comm:pid [prio]"
 * (sched_waking: "comm:pid [prio] CPU:001", sched_switch: "prev:pid
 * [prio] S ==> next:pid [prio]"), not the event's fields. A task from
 * s..end (exclusive): the pid after the last ':' before " [". False if
 * that is not there.
 */
static bool ft_plugin_task(const char *s, const char *end, __u64 *pid,
			   char *comm, __u32 *prio)
{
	const char *br = s, *b, *colon = NULL, *p;
	char *e;
	size_t l;

	while ((b = strstr(br, " [")) && b < end) {
		br = b + 1;
		colon = b;	/* last " [" before end */
	}
	if (!colon)
		return false;
	b = colon;
	for (p = b; p > s && p[-1] != ':'; p--)
		;
	if (p == s || !isdigit((unsigned char)*p))
		return false;
	errno = 0;
	*pid = strtoull(p, &e, 10);
	if (errno || e != b)
		return false;
	while (*s == ' ')
		s++;
	l = (size_t)(p - 1 - s);
	memset(comm, 0, RTM_COMM_LEN);
	memcpy(comm, s, l < RTM_COMM_LEN - 1 ? l : RTM_COMM_LEN - 1);
	if (prio) {
		unsigned long v = strtoul(b + 2, &e, 10);

		*prio = e != b + 2 && *e == ']' && v < RTM_PRIO_UNKNOWN ?
			(__u32)v : RTM_PRIO_UNKNOWN;
	}
	return true;
}

/* a switch's "KEY=prio", RTM_PRIO_UNKNOWN when absent or out of range */
static __u32 ft_prio(const char *q, const char *key)
{
	__u64 v;

	return ft_num(q, key, 10, &v) && v < RTM_PRIO_UNKNOWN ? (__u32)v :
	       RTM_PRIO_UNKNOWN;
}

/* sched_waking's task: "comm=... pid=..." or trace-cmd's "comm:pid [prio]" */
static bool ft_waking_task(const char *q, __u64 *pid, char *comm)
{
	if (ft_num(q, "pid", 10, pid)) {
		ft_comm(q, "comm", "pid", comm);
		return true;
	}
	return ft_plugin_task(q, q + strlen(q), pid, comm, NULL);
}

/*
 * lock:contention_begin "LOCK (flags=SPIN|RT)", or with -R "flags=8":
 * whether LCB_F_RT (8, an rtmutex-based wait on PREEMPT_RT) is set.
 */
static bool ft_lock_rt(const char *q)
{
	const char *t = strstr(q, "flags=");
	size_t n;

	if (!t)
		return false;
	t += 6;
	if (isdigit((unsigned char)*t))
		return strtoull(t, NULL, 0) & 8;
	for (; *t && *t != ')' && !isspace((unsigned char)*t); t += n + 1) {
		n = strcspn(t, "|) \t");
		if (n == 2 && !strncmp(t, "RT", 2))
			return true;
		if (t[n] != '|')
			break;
	}
	return false;
}

static void ftrace_line(char *line)
{
	char *p, *q, *ev, *f, flag = 0;
	bool range;
	__u64 cpu, secs, frac = 0, ts, x, y;
	struct rx_kev e;
	int nd = 0;

	memset(&e, 0, sizeof(e));
	line[strcspn(line, "\r\n")] = 0;
	for (p = line; isspace((unsigned char)*p); p++)
		;
	if (!strncmp(p, "cpus=", 5)) {
		/* trace-cmd report header: size the core for this trace */
		if (!core && !params_set) {
			rtm_params_default(&params, 4);
			params.ncpus = (__u32)strtoul(p + 5, NULL, 10);
			if (!params.ncpus || params.ncpus > NCPU_FT)
				input_error("bad cpus= header");
			params_set = true;
		}
		return;
	}
	if (!*p || *p == '#' || !strncmp(p, "CPU ", 4))
		return;
	if (!core && !params_set) {
		/* ftrace without --param ncpus: room for NCPU_FT cpus */
		rtm_params_default(&params, NCPU_FT);
		params_set = true;
	}
	/* task-pid: the last '-' before the cpu column "[nnn]" */
	q = p;
	while ((q = strchr(q, '[')) &&
	       !(isdigit((unsigned char)q[1]) && strchr(q, ']') &&
		 strspn(q + 1, "0123456789") == (size_t)(strchr(q, ']') - q - 1)))
		q++;
	if (!q) {
		not_understood("no [cpu] column");
		return;
	}
	{
		char *d = q;

		while (d > p && *d != '-')
			d--;
		if (*d == '-') {
			e.pid = (__u32)strtoull(d + 1, NULL, 10);
			/* the task's comm: what precedes "-pid" */
			f = p;
			while (f < d && isspace((unsigned char)*f))
				f++;
			memcpy(e.comm, f, (size_t)(d - f) < sizeof(e.comm) - 1 ?
			       (size_t)(d - f) : sizeof(e.comm) - 1);
		}
	}
	cpu = strtoull(q + 1, &q, 10);
	q++;			/* ']' */
	while (isspace((unsigned char)*q))
		q++;
	/* optional flags column (irqs-off, need-resched, hardirq/softirq, ...) */
	f = q;
	while (*q && !isspace((unsigned char)*q))
		q++;
	if (q[-1] != ':' || !isdigit((unsigned char)*f)) {
		/* the hardirq/softirq column moves (RT adds lazy columns) */
		if (strspn(f, ".bBdDXNnpLlZzHhs0123456789") < (size_t)(q - f)) {
			not_understood("no flags column or timestamp after the cpu");
			return;
		}
		flag = '.';
		if (memchr(f, 'h', q - f) || memchr(f, 'H', q - f) ||
		    memchr(f, 'z', q - f) || memchr(f, 'Z', q - f))
			flag = 'h';
		else if (memchr(f, 's', q - f))
			flag = 's';
		while (isspace((unsigned char)*q))
			q++;
		f = q;
		while (*q && !isspace((unsigned char)*q))
			q++;
	}
	/* timestamp "secs.frac:" */
	if (q[-1] != ':' || !isdigit((unsigned char)*f)) {
		not_understood("no timestamp");
		return;
	}
	errno = 0;
	secs = strtoull(f, &f, 10);
	range = !errno;
	if (*f == '.') {
		for (f++; isdigit((unsigned char)*f); f++) {
			if (nd < 9) {
				frac = frac * 10 + (unsigned long long)(*f - '0');
				nd++;
			}
		}
	}
	if (*f != ':') {
		not_understood("no timestamp");
		return;
	}
	for (; nd < 9; nd++)
		frac *= 10;
	/* 18446744073.709551615 s at most: wrapped, it would replay elsewhere */
	if (!range || secs > (UINT64_MAX - frac) / 1000000000ull)
		input_error("timestamp past the 64-bit ns clock");
	ts = secs * 1000000000ull + frac;
	while (isspace((unsigned char)*q))
		q++;
	ev = q;
	q = strchr(ev, ':');
	if (!q) {
		not_understood("no event name");
		return;
	}
	*q++ = 0;
	while (isspace((unsigned char)*q))
		q++;
	core_setup();
	if (cpu >= params.ncpus || cpu >= NCPU_FT)
		input_error("cpu %llu out of range (use --param ncpus=N)", cpu);
	if (ts < last_ts)
		ts = last_ts;	/* merged per-cpu buffers may jitter */
	e.cpu = (__u32)cpu;
	e.ts = ts;
	e.flag = flag;

	if (!strcmp(ev, "irq_handler_entry")) {
		if (!ft_num(q, "irq", 10, &x))
			input_error("irq_handler_entry without irq=");
		e.type = RX_KEV_IRQ_ENTRY;
		e.irq = (__u32)x;
	} else if (!strcmp(ev, "irq_handler_exit")) {
		if (!ft_num(q, "irq", 10, &x))
			input_error("irq_handler_exit without irq=");
		e.type = RX_KEV_IRQ_EXIT;
		e.irq = (__u32)x;
		e.handled = strstr(q, "ret=handled") != NULL;
	} else if (!strcmp(ev, "softirq_raise") || !strcmp(ev, "softirq_entry") ||
		   !strcmp(ev, "softirq_exit")) {
		if (!ft_num(q, "vec", 10, &x) || x >= RTM_NR_SOFTIRQ)
			input_error("%s without valid vec=", ev);
		e.type = ev[8] == 'r' ? RX_KEV_SOFTIRQ_RAISE :
			 ev[9] == 'n' ? RX_KEV_SOFTIRQ_ENTRY : RX_KEV_SOFTIRQ_EXIT;
		e.vec = (__u32)x;
	} else if (!strcmp(ev, "hrtimer_start")) {
		/* the soft expiry, what the sleeper asked for (as the module) */
		if (ft_num(q, "hrtimer", 16, &x) &&
		    (ft_num(q, "softexpires", 10, &y) || ft_num(q, "expires", 10, &y))) {
			e.type = RX_KEV_HRTIMER_START;
			e.timer = x;
			e.expires = y;
		}
	} else if (!strcmp(ev, "hrtimer_expire_entry")) {
		if (!ft_num(q, "hrtimer", 16, &x) || !ft_num(q, "now", 10, &y))
			input_error("hrtimer_expire_entry without hrtimer=/now=");
		e.type = RX_KEV_HRTIMER_ENTRY;
		e.timer = x;
		e.now = y;
		e.timer_kind = timer_kind_of_fn(ft_field(q, "function"));
	} else if (!strcmp(ev, "hrtimer_expire_exit")) {
		if (!ft_num(q, "hrtimer", 16, &x))
			input_error("hrtimer_expire_exit without hrtimer=");
		e.type = RX_KEV_HRTIMER_EXIT;
		e.timer = x;
	} else if (!strcmp(ev, "sched_waking")) {
		if (!ft_waking_task(q, &x, e.next_comm))
			input_error("sched_waking without pid= (or trace-cmd's comm:pid [prio])");
		e.type = RX_KEV_WAKING;
		e.next = (__u32)x;
	} else if (!strcmp(ev, "sched_switch")) {
		const char *st = ft_field(q, "prev_state"), *arrow;

		if (ft_num(q, "prev_pid", 10, &x) && ft_num(q, "next_pid", 10, &y)
		    && st) {
			ft_comm(q, "next_comm", "next_pid", e.next_comm);
			ft_comm(q, "prev_comm", "prev_pid", e.prev_comm);
			e.prev_prio = ft_prio(q, "prev_prio");
			e.next_prio = ft_prio(q, "next_prio");
		} else if ((arrow = strstr(q, " ==> ")) &&
			   ft_plugin_task(q, arrow, &x, e.prev_comm,
					  &e.prev_prio) &&
			   ft_plugin_task(arrow + 5, arrow + 5 + strlen(arrow + 5),
					  &y, e.next_comm, &e.next_prio)) {
			/* "prev:pid [prio] S ==> ...": the state before the arrow */
			for (st = arrow; st > q && st[-1] != ']'; st--)
				;
			while (*st == ' ')
				st++;
		} else {
			input_error("sched_switch without prev_pid/prev_state/next_pid (or trace-cmd's prev:pid [prio] S ==> next:pid [prio])");
		}
		e.type = RX_KEV_SWITCH;
		e.prev = (__u32)x;
		e.next = (__u32)y;
		/* R (or R+): preempted, still runnable; D or I (TASK_IDLE,
		 * uninterruptible too): blocked in D */
		e.prev_state = *st == 'R' ? 0 :
			       *st == 'D' || *st == 'I' ? RTM_SWITCH_BLOCKED_D : 1;
	} else if (!strcmp(ev, "rtmon_work")) {
		/* the markers, from rtmon's tracepoint: "begin|end cookie=N" */
		if (!ft_num(q, "cookie", 10, &x))
			input_error("rtmon_work without cookie=");
		while (isspace((unsigned char)*q))
			q++;
		e.type = !strncmp(q, "begin", 5) ? RX_KEV_WORK_BEGIN :
						   RX_KEV_WORK_END;
		e.cookie = x;
		e.work_comm = true;
	} else if (!strcmp(ev, "contention_begin")) {
		e.type = RX_KEV_LOCK_BEGIN;
		e.lock_rt = ft_lock_rt(q);
	} else if (!strcmp(ev, "contention_end")) {
		e.type = RX_KEV_LOCK_END;
	} else if (!strcmp(ev, "workqueue_queue_work")) {
		if (ft_num(q, "work struct", 16, &x)) {
			e.type = RX_KEV_KWORK_QUEUE;
			e.cookie = x;
		}
	} else if (!strcmp(ev, "workqueue_execute_start") ||
		   !strcmp(ev, "workqueue_execute_end")) {
		const char *w = strstr(q, "work struct ");

		if (w) {
			e.type = !strcmp(ev, "workqueue_execute_start") ?
				 RX_KEV_KWORK_START : RX_KEV_KWORK_END;
			e.cookie = strtoull(w + 12, NULL, 16);
		}
	}
	rx_kevent(&e);
}

static void ftrace_input_line(char *line)
{
	if (opt.explain)
		rx_keep_line(line);	/* ftrace_line() cuts it */
	ftrace_line(line);
}

const struct rx_input rx_ftrace_input = {
	.name = "ftrace",
	.line = ftrace_input_line,
	.end = rx_kev_end,
};

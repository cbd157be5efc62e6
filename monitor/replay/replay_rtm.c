// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * replay_rtm.c - rtmon-replay's native format: one event per line,
 * "<ts> <cpu> <event> key=value...", plus "param", "option", "target"
 * and "untarget" directives (README.md in this directory).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>

#include "rtm_core.h"
#include "replay.h"

#define MAX_TOK		64

#define NCPU_MAX_RUN	4096

static __u32 parse_ctx(const char *v)
{
	if (!strcmp(v, "task"))
		return RTM_CTX_TASK;
	if (!strcmp(v, "softirq"))
		return RTM_CTX_SOFTIRQ;
	if (!strcmp(v, "hardirq"))
		return RTM_CTX_HARDIRQ;
	input_error("bad ctx '%s' (task|softirq|hardirq)", v);
}

/* irq_exit thread_run=: runnable (-1) or the cpu it runs on */
static int parse_thread_run(const char *v)
{
	__u64 x;

	if (!strcmp(v, "runnable"))
		return -1;
	if (parse_u64(v, &x) && x < NCPU_MAX_RUN)
		return (int)x;
	input_error("bad thread_run '%s' (asleep|runnable|CPU)", v);
}

/*
 * waking run=: where the module found the woken task when it read it,
 * asleep (-1) or running on CPU; default: from the switch events
 */
static int parse_waking_run(const char *v)
{
	__u64 x;

	if (!strcmp(v, "asleep"))
		return -1;
	if (parse_u64(v, &x) && x < NCPU_MAX_RUN)
		return (int)x;
	input_error("bad run '%s' (asleep|CPU)", v);
}

static __u32 parse_vec(const char *v)
{
	__u64 x;
	int i;

	for (i = 0; i < RTM_NR_SOFTIRQ; i++)
		if (!strcasecmp(v, vec_names[i]))
			return (__u32)i;
	if (!parse_u64(v, &x) || x >= RTM_NR_SOFTIRQ)
		input_error("bad softirq vector '%s'", v);
	return (__u32)x;
}

static int tokenize(char *s, char **tok)
{
	int n = 0;
	char *p;

	for (p = strtok(s, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) {
		if (*p == '#')
			break;
		if (n == MAX_TOK)
			input_error("too many fields");
		tok[n++] = p;
	}
	return n;
}

static void rtm_line(char *line)
{
	char *tok[MAX_TOK], comm[RTM_COMM_LEN];
	struct kv kv[MAX_TOK];
	__u64 ts, cpu;
	__u32 c, id, x;
	const char *ev, *v;
	char err[160];
	int n, m;

	n = tokenize(line, tok);
	if (!n)
		return;
	if (!strcmp(tok[0], "param")) {
		m = split_kv(tok + 1, n - 1, kv);
		rtm_param_line(kv, m);
		return;
	}
	if (!strcmp(tok[0], "option")) {
		m = split_kv(tok + 1, n - 1, kv);
		v = kv_get(kv, m, "drain", false);
		if (v) {
			if (strcmp(v, "end") && strcmp(v, "event"))
				input_error("option drain=end|event");
			opt.drain_at_end = !strcmp(v, "end");
		}
		return;
	}
	if (!strcmp(tok[0], "target") || !strcmp(tok[0], "untarget")) {
		m = split_kv(tok + 1, n - 1, kv);
		if (tok[0][0] == 'u') {
			id = kv_u32(kv, m, "id", true, 0);
			if (id >= RTM_MAX_TARGETS)
				input_error("bad target id");
			pending_used[id] = false;
			if (core)
				rtm_core_clear_target(core, id);
			return;
		}
		if (parse_target(kv, m, &id, err, sizeof(err)))
			input_error("%s", err);
		if (core && rtm_core_set_target(core, id, &pending_tg[id]))
			input_error("target %u rejected by the core", id);
		return;
	}
	if (n < 3)
		input_error("expected '<ts> <cpu> <event> key=value...'");
	if (!parse_dur(tok[0], &ts))
		input_error("bad timestamp '%s'", tok[0]);
	if (!parse_u64(tok[1], &cpu))
		input_error("bad cpu '%s'", tok[1]);
	core_setup();
	check_cpu(cpu);
	set_ts(ts);
	c = (__u32)cpu;
	ev = tok[2];
	m = split_kv(tok + 3, n - 3, kv);
	if (!strcmp(ev, "irq_entry")) {
		static const char *const ok[] = { "irq", NULL };

		kv_check(kv, m, ok);
		rtm_ev_irq_entry(core, c, ts, kv_u32(kv, m, "irq", true, 0));
	} else if (!strcmp(ev, "irq_exit")) {
		static const char *const ok[] = { "irq", "wake", "thread",
						  "thread_comm", "thread_run",
						  NULL };

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "thread_run", false);
		if (!v || !strcmp(v, "asleep"))
			rtm_ev_irq_exit(core, c, ts,
					kv_u32(kv, m, "irq", true, 0),
					kv_u32(kv, m, "wake", false, 0) != 0,
					kv_u32(kv, m, "thread", false, 0));
		else
			rtm_ev_irq_exit_rerun(core, c, ts,
					      kv_u32(kv, m, "irq", true, 0),
					      kv_u32(kv, m, "thread", true, 0),
					      kv_get(kv, m, "thread_comm", false),
					      parse_thread_run(v));
	} else if (!strcmp(ev, "softirq_raise")) {
		static const char *const ok[] = { "vec", "ctx", NULL };

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "ctx", false);
		rtm_ev_softirq_raise(core, c, ts,
				     parse_vec(kv_get(kv, m, "vec", true)),
				     v ? parse_ctx(v) : RTM_CTX_HARDIRQ);
	} else if (!strcmp(ev, "softirq_entry") || !strcmp(ev, "softirq_exit")) {
		static const char *const ok[] = { "vec", NULL };

		kv_check(kv, m, ok);
		if (ev[8] == 'e' && ev[9] == 'n')
			rtm_ev_softirq_entry(core, c, ts,
					     parse_vec(kv_get(kv, m, "vec", true)));
		else
			rtm_ev_softirq_exit(core, c, ts,
					    parse_vec(kv_get(kv, m, "vec", true)));
	} else if (!strcmp(ev, "timer_entry")) {
		static const char *const ok[] = {
			"id", "expires", "sleeper", "timer", "ctx", NULL
		};
		__u64 exp;
		__u32 tctx, tkind;

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "ctx", false);
		tctx = v ? parse_ctx(v) : RTM_CTX_HARDIRQ;
		v = kv_get(kv, m, "expires", true);
		if (!parse_dur(v, &exp))
			input_error("bad expires '%s'", v);
		/* timer=KIND; the older sleeper=0 is any other timer */
		v = kv_get(kv, m, "timer", false);
		if (v) {
			tkind = timer_kind_parse(v);
			if (!tkind)
				input_error("unknown timer kind '%s' (sleeper, timerfd, posix, timerlat, other)",
					    v);
		} else {
			tkind = kv_u32(kv, m, "sleeper", false, 1) ?
				RTM_TIMER_SLEEPER : RTM_TIMER_OTHER;
		}
		rtm_ev_timer_entry(core, c, ts, kv_u64(kv, m, "id", true, 0), exp,
				   tkind, tctx);
	} else if (!strcmp(ev, "timer_exit")) {
		static const char *const ok[] = { "id", "ctx", NULL };

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "ctx", false);
		rtm_ev_timer_exit(core, c, ts, kv_u64(kv, m, "id", true, 0),
				  v ? parse_ctx(v) : RTM_CTX_HARDIRQ);
	} else if (!strcmp(ev, "waking")) {
		static const char *const ok[] = {
			"pid", "tgid", "comm", "ctx", "waker", "run", NULL
		};
		const char *run;

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "ctx", false);
		comm_copy(comm, kv_get(kv, m, "comm", false));
		x = kv_u32(kv, m, "pid", true, 0);
		run = kv_get(kv, m, "run", false);
		rtm_ev_waking_running(core, c, ts, v ? parse_ctx(v) : RTM_CTX_TASK,
			      kv_u32(kv, m, "waker", false, 0), x,
			      kv_u32(kv, m, "tgid", false, 0), comm,
			      run ? parse_waking_run(run) : running_cpu(x));
	} else if (!strcmp(ev, "switch")) {
		static const char *const ok[] = {
			"prev", "state", "next", "tgid", "comm", "prev_comm",
			"prev_prio", "next_prio", NULL
		};
		struct rtm_switch_who who;
		char pcomm[RTM_COMM_LEN];
		long st = 1;

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "state", false);
		if (v) {
			if (!strcmp(v, "R") || !strcmp(v, "R+") || !strcmp(v, "0"))
				st = 0;
			else if (!strcmp(v, "W") || !strcmp(v, "2"))
				st = 1 | RTM_SWITCH_WAKE_PENDING;
			else if (!strcmp(v, "D"))
				st = RTM_SWITCH_BLOCKED_D;
			else if (strcmp(v, "S") && strcmp(v, "1"))
				input_error("bad state '%s' (0|1|2|R|S|D|W)", v);
		}
		comm_copy(comm, kv_get(kv, m, "comm", false));
		x = kv_u32(kv, m, "next", true, 0);
		track_switch(c, x);
		v = kv_get(kv, m, "prev_comm", false);
		comm_copy(pcomm, v);
		who.prev_comm = v ? pcomm : NULL;
		who.prev_prio = kv_u32(kv, m, "prev_prio", false, RTM_PRIO_UNKNOWN);
		who.next_prio = kv_u32(kv, m, "next_prio", false, RTM_PRIO_UNKNOWN);
		rtm_ev_switch(core, c, ts, kv_u32(kv, m, "prev", true, 0), st,
			      x, kv_u32(kv, m, "tgid", false, 0), comm, &who);
	} else if (!strcmp(ev, "work_begin") || !strcmp(ev, "work_end")) {
		static const char *const ok[] = {
			"pid", "tgid", "cookie", "comm", NULL
		};

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "comm", false);
		comm_copy(comm, v);
		if (ev[5] == 'b')
			rtm_ev_work_begin(core, c, ts, kv_u32(kv, m, "pid", true, 0),
					  kv_u32(kv, m, "tgid", true, 0),
					  kv_u64(kv, m, "cookie", true, 0),
					  v ? comm : NULL);
		else
			rtm_ev_work_end(core, c, ts, kv_u32(kv, m, "pid", true, 0),
					kv_u32(kv, m, "tgid", true, 0),
					kv_u64(kv, m, "cookie", true, 0),
					v ? comm : NULL);
	} else if (!strcmp(ev, "kwork_queue")) {
		static const char *const ok[] = { "work", "ctx", "pid", NULL };

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "ctx", false);
		rtm_ev_kwork_queue(core, c, ts, v ? parse_ctx(v) : RTM_CTX_TASK,
				   kv_u32(kv, m, "pid", false, 0),
				   kv_u64(kv, m, "work", true, 0));
	} else if (!strcmp(ev, "kwork_start")) {
		static const char *const ok[] = {
			"work", "pid", "tgid", "comm", "ctx", NULL
		};
		const char *x = kv_get(kv, m, "ctx", false);

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "comm", false);
		comm_copy(comm, v);
		rtm_ev_kwork_start(core, c, ts, x ? parse_ctx(x) : RTM_CTX_TASK,
				   kv_u32(kv, m, "pid", true, 0),
				   kv_u32(kv, m, "tgid", false, 0),
				   v ? comm : NULL,
				   kv_u64(kv, m, "work", true, 0));
	} else if (!strcmp(ev, "kwork_end")) {
		static const char *const ok[] = { "work", "pid", "ctx", NULL };

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "ctx", false);
		rtm_ev_kwork_end(core, c, ts, v ? parse_ctx(v) : RTM_CTX_TASK,
				 kv_u32(kv, m, "pid", true, 0),
				 kv_u64(kv, m, "work", true, 0));
	} else if (!strcmp(ev, "tick")) {
		if (m)
			input_error("tick takes no arguments");
		rtm_ev_tick(core, c, ts);
	} else {
		input_error("unknown event '%s'", ev);
	}
	after_event();
}

static void rtm_input_line(char *line)
{
	if (opt.explain)
		input_error("--explain needs a kernel trace (ftrace text, trace-cmd report), not the rtm format");
	rtm_line(line);
}

static void rtm_end(void)
{
}

const struct rx_input rx_rtm_input = {
	.name = "rtm",
	.line = rtm_input_line,
	.end = rtm_end,
};

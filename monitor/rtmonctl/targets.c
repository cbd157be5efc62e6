// SPDX-License-Identifier: GPL-2.0
/*
 * targets.c - rtmonctl targets add|del|list: the module's targets.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "rtmon/rtmon.h"
#include "rtmon_format.h"
#include "rtmonctl.h"

static json_t *target_json(const struct rtmon_target *t)
{
	static const char *const srcs[] = { "any", "irq", "timer", "any_irq" };
	/* another tool may have put any bytes there: escaped, never refused */
	char timers[64], name[4 * sizeof(t->name)], comm[4 * sizeof(t->comm)];
	char irq_name[4 * sizeof(t->irq_name)];

	rtmon_text_escape(name, sizeof(name), t->name);
	rtmon_text_escape(comm, sizeof(comm), t->comm);
	rtmon_text_escape(irq_name, sizeof(irq_name), t->irq_name);
	return json_pack("{s:i, s:s, s:s, s:i, s:i, s:s, s:s, s:i, s:s, s:s, s:I, s:b, s:b}",
		"id", (int)t->id, "name", name, "comm", comm,
		"pid", (int)t->pid, "tgid", (int)t->tgid,
		"source", t->src < 4 ? srcs[t->src] : "?",
		"irq_name", irq_name, "irq", t->irq,
		"timers", t->src == RTMON_SRC_ANY || t->src == RTMON_SRC_TIMER ?
			  rtmon_timers_format(timers, sizeof(timers), t->timers) : "",
		"end", rtmon_end_name(t->end),
		"deadline_ns", (json_int_t)t->deadline_ns,
		"misses_only", !!(t->flags & RTMON_TF_MISSES_ONLY),
		"rtmond", !!(t->flags & RTMON_TF_RTMOND));
}

int cmd_targets_list(struct rtmon *r, int json)
{
	struct rtmon_version v;
	struct rtmon_target t;
	char tn[RTMON_NAME_LEN * 4], tc[RTM_COMM_LEN * 4];
	json_t *arr = json_array();
	uint32_t id;
	int err;

	err = rtmon_version(r, &v);
	if (err)
		fail(-err, "version query failed");
	if (!json)
		printf("%-3s %-16s %-16s %-7s %-7s %-14s %-9s %s\n", "id", "name",
		       "comm", "pid", "tgid", "source", "end", "deadline");
	for (id = 0; id < v.max_targets; id++) {
		char src[96], dl[32], timers[64];

		err = rtmon_target_get(r, id, &t);
		if (err == -ENOENT)
			continue;
		if (err)
			fail(-err, "reading target %u failed", id);
		if (json) {
			json_array_append_new(arr, target_json(&t));
			continue;
		}
		if (t.src == RTMON_SRC_IRQ)
			snprintf(src, sizeof(src), "irq %d%s%s", t.irq,
				 t.irq_name[0] ? " " : "", t.irq_name);
		else if (t.timers)	/* "timer:timerfd,posix" */
			snprintf(src, sizeof(src), "%s:%s",
				 t.src == RTMON_SRC_TIMER ? "timer" : "any",
				 rtmon_timers_format(timers, sizeof(timers), t.timers));
		else
			snprintf(src, sizeof(src), "%s", t.src == RTMON_SRC_TIMER ?
				 "timer" : t.src == RTMON_SRC_IRQ_ANY ? "any irq" : "any");
		/* names as others set them: escaped for the terminal */
		printf("%-3u %-16s %-16s %-7u %-7u %-14s %-9s %s%s%s\n", t.id,
		       rtmon_term(tn, sizeof(tn), t.name[0] ? t.name : "-"),
		       rtmon_term(tc, sizeof(tc), t.comm[0] ? t.comm : "*"),
		       t.pid, t.tgid, src, rtmon_end_name(t.end),
		       t.deadline_ns ? rtmon_fmt_ns(dl, sizeof(dl), t.deadline_ns) : "-",
		       t.flags & RTMON_TF_MISSES_ONLY ? " (misses only)" : "",
		       t.flags & RTMON_TF_RTMOND ? " (rtmond)" : "");
	}
	if (json)
		json_out(arr);
	else
		json_decref(arr);
	return 0;
}

static void copy_str(char *dst, size_t len, const char *src, const char *what)
{
	if (strlen(src) >= len)
		usage_error("%s '%s' is too long (at most %zu characters)", what,
			    src, len - 1);
	strcpy(dst, src);
}

static uint32_t parse_u32(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s || v > UINT32_MAX || s[0] == '-')
		usage_error("bad %s '%s'", what, s);
	return (uint32_t)v;
}

const char targets_usage[] =
	"usage: rtmonctl targets list [--json]\n"
	"       rtmonctl targets del ID\n"
	"       rtmonctl targets add [--name LABEL] [--comm NAME] [--pid PID] [--tgid PID]\n"
	"                            [--irq NUMBER|NAME | --timer[=KINDS] | --any-irq]\n"
	"                            [--end switch_in|block|work_end] [--deadline DURATION]\n"
	"                            [--misses-only] [--json]\n"
	"Chains start at any IRQ or timer unless a source is given; they end where the\n"
	"end condition says (default switch_in). --timer follows the expiry of any\n"
	"hrtimer whose callback wakes the task; KINDS narrows it, comma-separated:\n"
	"  sleeper   nanosleep, clock_nanosleep, poll/select/epoll timeouts\n"
	"  timerfd   timerfd_create() timers\n"
	"  posix     timer_create() timers (SIGEV_SIGNAL, SIGEV_THREAD_ID), setitimer\n"
	"  timerlat  the timerlat tracer's timer (rtla timerlat)\n"
	"  other     any other kernel timer that wakes the task\n"
	"DURATION has a unit: 250us, 1.5ms, 2s.\n";

static int cmd_targets_add(int argc, char **argv, int json)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'N' },
		{ "comm", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tgid", required_argument, NULL, 'g' },
		{ "irq", required_argument, NULL, 'i' },
		{ "timer", optional_argument, NULL, 'T' },
		{ "any-irq", no_argument, NULL, 'A' },
		{ "end", required_argument, NULL, 'e' },
		{ "deadline", required_argument, NULL, 'd' },
		{ "misses-only", no_argument, NULL, 'm' },
		{ 0 }
	};
	struct rtmon_target t;
	struct rtmon *r;
	uint64_t dl;
	int c, err;

	rtmon_target_init(&t);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'N':
			copy_str(t.name, sizeof(t.name), optarg, "name");
			if (!rtmon_text_ok(t.name))
				usage_error("a target name must be UTF-8 text without control characters");
			break;
		case 'c':
			copy_str(t.comm, sizeof(t.comm), optarg, "task name");
			break;
		case 'p':
			t.pid = parse_u32(optarg, "pid");
			break;
		case 'g':
			t.tgid = parse_u32(optarg, "tgid");
			break;
		case 'i':
			if (t.src != RTMON_SRC_ANY)
				usage_error("give one source only");
			t.src = RTMON_SRC_IRQ;
			if (optarg[0] >= '0' && optarg[0] <= '9')
				t.irq = (int32_t)parse_u32(optarg, "irq number");
			else
				copy_str(t.irq_name, sizeof(t.irq_name), optarg, "irq name");
			break;
		case 'T':
		case 'A':
			if (t.src != RTMON_SRC_ANY)
				usage_error("give one source only");
			t.src = c == 'T' ? RTMON_SRC_TIMER : RTMON_SRC_IRQ_ANY;
			if (c == 'T' && optarg && rtmon_timers_parse(optarg, &t.timers))
				usage_error("unknown timer kind in '%s' (sleeper, timerfd, posix, timerlat, other)",
					    optarg);
			break;
		case 'e':
			if (rtmon_end_parse(optarg, &t.end))
				usage_error("unknown end condition '%s' (switch_in, block, work_end)",
					    optarg);
			break;
		case 'd':
			if (rtmon_parse_duration(optarg, &dl))
				usage_error("bad deadline '%s' (a number with a unit: 100us, 2ms)",
					    optarg);
			if (!dl)
				usage_error("a deadline must be more than 0 (leave it out for none)");
			t.deadline_ns = dl;
			break;
		case 'm':
			t.flags |= RTMON_TF_MISSES_ONLY;
			break;
		default:
			usage_hint();
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!t.comm[0] && !t.pid && !t.tgid && t.src != RTMON_SRC_IRQ)
		usage_error("a target needs a task (--comm/--pid/--tgid) or an --irq");
	r = open_dev();
	err = rtmon_target_add(r, &t);
	if (err == -EPERM)
		fail(0, "adding targets needs CAP_SYS_ADMIN (run as root)");
	if (err == -ENOENT && t.irq_name[0])
		fail(0, "no interrupt handler named '%s' (see /proc/interrupts)", t.irq_name);
	if (err == -ENOSPC)
		fail(0, "all target slots are in use");
	if (err == -EINVAL && t.timers) {
		struct rtmon_version v;

		if (!rtmon_version(r, &v) && v.record_version < 3)
			fail(0, "the loaded rtmon module (record version %u) knows no timer kinds: use --timer alone",
			     v.record_version);
	}
	if (err)
		fail(-err, "adding the target failed");
	if (json)
		json_out(target_json(&t));
	else
		printf("target %u added\n", t.id);
	return 0;
}

int cmd_targets(int argc, char **argv, int json)
{
	struct rtmon *r;
	int err;

	if (argc < 2)
		usage_error("targets: add, del or list?");
	if (!strcmp(argv[1], "list"))
		return cmd_targets_list(open_dev(), json);
	if (!strcmp(argv[1], "add"))
		return cmd_targets_add(argc - 1, argv + 1, json);
	if (!strcmp(argv[1], "del")) {
		uint32_t id;

		if (argc != 3)
			usage_error("usage: rtmonctl targets del ID");
		id = parse_u32(argv[2], "target id");
		r = open_dev();
		err = rtmon_target_del(r, id);
		if (err == -ENOENT)
			fail(0, "no target %s", argv[2]);
		if (err == -EPERM)
			fail(0, "removing targets needs CAP_SYS_ADMIN (run as root)");
		if (err)
			fail(-err, "removing target %s failed", argv[2]);
		return 0;
	}
	usage_error("targets: unknown command '%s'", argv[1]);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rtmonctl - control rtmon and look at what it measured.
 *
 *   rtmonctl status [--json]
 *   rtmonctl targets add [options]     (see 'rtmonctl targets add --help')
 *   rtmonctl targets del ID
 *   rtmonctl targets list [--json]
 *   rtmonctl start | stop
 *   rtmonctl records [--json] [-n COUNT] [-t SECONDS] [-s|--stamp] [-m|--misses]
 *   rtmonctl hist TARGET [--dir DIR] [--json]      (rtmond's histograms)
 *   rtmonctl misses [--dir DIR] [-n COUNT] [--json] (rtmond's misses)
 *   rtmonctl show SEQ [--dir DIR] [--json]          (one miss, per-hop table)
 *   rtmonctl top [-i SEC] [-n N] [--dir DIR] [--json] (live per-target view, top.c)
 *   rtmonctl plot TARGET -o FILE.svg|png [--from SAVED.json] (gnuplot, plot.c)
 *
 * Errors go to stderr with a non-zero exit status: 1 for a failed
 * operation, 2 for bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "rtmon/rtmon.h"
#include "rtmon_format.h"
#include "rtmon_hist.h"
#include "rtmonctl.h"

static const char *prog = "rtmonctl";

#define RTMON_MAX_TARGET_IDS	64	/* >= the module's max_targets */

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	exit(2);
}

void fail(int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(1);
}

/* Open the device with a message a person can act on. */
static struct rtmon *open_dev(void)
{
	struct rtmon *r = rtmon_open(NULL);

	if (r)
		return r;
	switch (errno) {
	case ENOENT:
		fail(0, "%s not found: is the rtmon module loaded? (modprobe rtmon)",
		     RTMON_DEVICE);
	case EACCES:
	case EPERM:
		fail(0, "no permission to open %s: run as root or join the device's group",
		     RTMON_DEVICE);
	case EPROTO:
		fail(0, "the loaded rtmon module speaks another ABI version than this rtmonctl (%d)",
		     RTMON_ABI_VERSION);
	default:
		fail(errno, "cannot open %s", RTMON_DEVICE);
	}
}

void json_out(json_t *j)
{
	json_dumpf(j, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(j);
}

static int want_json(int *argc, char ***argv)
{
	int i, j = 0;

	for (i = 1; i < *argc; i++)
		if (!strcmp((*argv)[i], "--json")) {
			memmove(&(*argv)[i], &(*argv)[i + 1],
				(*argc - i) * sizeof(char *));
			(*argc)--;
			j = 1;
			i--;
		}
	return j;
}

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

static int cmd_targets_list(struct rtmon *r, int json)
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

static const char targets_add_help[] =
	"usage: rtmonctl targets add [--name LABEL] [--comm NAME] [--pid PID] [--tgid PID]\n"
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
		{ "help", no_argument, NULL, 'h' },
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
			t.deadline_ns = dl;
			break;
		case 'm':
			t.flags |= RTMON_TF_MISSES_ONLY;
			break;
		case 'h':
			fputs(targets_add_help, stdout);
			return 0;
		default:
			fputs(targets_add_help, stderr);
			exit(2);
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

static int cmd_targets(int argc, char **argv, int json)
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

static json_t *counters_json(const struct rtmon_counters *c)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}}",
		"chains_started", (json_int_t)c->chains_started,
		"chains_completed", (json_int_t)c->chains_completed,
		"chains_abandoned", (json_int_t)c->chains_abandoned,
		"chains_expired", (json_int_t)c->chains_expired,
		"chains_overdue", (json_int_t)c->chains_overdue,
		"deadline_misses", (json_int_t)c->deadline_misses,
		"branches_opened", (json_int_t)c->branches_opened,
		"branches_pruned", (json_int_t)c->branches_pruned,
		"records_emitted", (json_int_t)c->records_emitted,
		"records_read", (json_int_t)c->records_read,
		"records_skipped", (json_int_t)c->records_skipped,
		"softirq_repoll", (json_int_t)c->softirq_repoll,
		"drops",
		"ring_full", (json_int_t)c->drop_ring_full,
		"no_chain", (json_int_t)c->drop_no_chain,
		"no_branch", (json_int_t)c->drop_no_branch,
		"task_table", (json_int_t)c->drop_task_table,
		"cookie_table", (json_int_t)c->drop_cookie_table,
		"hops", (json_int_t)c->drop_hops,
		"irq_coalesced", (json_int_t)c->irq_coalesced,
		"irq_nowake", (json_int_t)c->irq_nowake,
		"irq_rerun", (json_int_t)c->irq_rerun,
		"work_untraced", (json_int_t)c->work_untraced,
		"work_handoff", (json_int_t)c->work_handoff);
}

static int cmd_status(int json)
{
	struct rtmon *r = open_dev();
	struct rtmon_counters c;
	struct rtmon_version v;
	int err;

	err = rtmon_version(r, &v);
	if (!err)
		err = rtmon_counters(r, &c);
	if (err)
		fail(-err, "querying the module failed");
	if (json) {
		json_out(json_pack("{s:s, s:i, s:b, s:b, s:i, s:i, s:i, s:i, s:o}",
			"module_version", v.module_version, "abi", (int)v.abi_version,
			"running", v.running, "preempt_rt", v.preempt_rt,
			"ncpus", (int)v.ncpus, "nchains", (int)v.nchains,
			"nbranches", (int)v.nbranches, "ring_slots", (int)v.ring_slots,
			"counters", counters_json(&c)));
		return 0;
	}
	printf("rtmon %s (ABI %u) %s, %s kernel, %u cpus\n", v.module_version,
	       v.abi_version, v.running ? "tracking" : "stopped",
	       v.preempt_rt ? "PREEMPT_RT" : "non-RT", v.ncpus);
	printf("chains: %llu started, %llu completed, %llu"
	       " abandoned, %llu expired, %llu overdue, %llu misses\n",
	       c.chains_started, c.chains_completed, c.chains_abandoned,
	       c.chains_expired, c.chains_overdue, c.deadline_misses);
	printf("records: %llu emitted, %llu read, %llu skipped (misses-only"
	       " targets' met deadlines)\n",
	       c.records_emitted, c.records_read, c.records_skipped);
	printf("drops: ring full %llu, no chain %llu, no branch %llu"
	       ", task table %llu, cookie table %llu, hops %llu\n",
	       c.drop_ring_full, c.drop_no_chain, c.drop_no_branch,
	       c.drop_task_table, c.drop_cookie_table, c.drop_hops);
	printf("irq threads: %llu interrupts found their thread awake (followed)"
	       ", %llu coalesced into its pass, %llu no wakeup (lost)\n",
	       c.irq_rerun, c.irq_coalesced, c.irq_nowake);
	printf("work: %llu items begun without a traced trigger (no record), "
	       "%llu taken up from their IRQ thread (followed)\n",
	       c.work_untraced, c.work_handoff);
	printf("softirq: %llu passes re-raised after their interrupt's chain woke a target (followed)\n",
	       c.softirq_repoll);
	return cmd_targets_list(r, 0);
}

/* Target labels by id, to name them in records (read once at start). */
static char target_names[RTMON_MAX_TARGET_IDS][RTMON_NAME_LEN];

static void load_target_names(struct rtmon *r)
{
	struct rtmon_target t;
	uint32_t id;

	for (id = 0; id < RTMON_MAX_TARGET_IDS; id++)
		if (!rtmon_target_get(r, id, &t))
			rtmon_text_escape(target_names[id], sizeof(target_names[id]), t.name);
}

static const char *target_name(uint32_t id)
{
	if (id >= RTMON_MAX_TARGET_IDS || !target_names[id][0])
		return NULL;
	return target_names[id];
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read records until COUNT were printed or SECONDS passed with none. */
static int cmd_records(int argc, char **argv, int json)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "stamp", no_argument, NULL, 's' },
		{ "misses", no_argument, NULL, 'm' },
		{ 0 }
	};
	struct rtm_record recs[16];
	int stamp = 0, misses = 0;
	double timeout = 1, deadline;
	long count = -1, got = 0;
	struct rtmon *r;
	int c, n, i;
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "n:t:sm", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			count = strtol(optarg, &end, 10);
			if (*end || count < 1)
				usage_error("bad count '%s'", optarg);
			break;
		case 't':
			timeout = strtod(optarg, &end);
			if (*end || timeout < 0)
				usage_error("bad timeout '%s' (seconds)", optarg);
			break;
		case 's':
			stamp = 1;
			break;
		case 'm':
			misses = 1;
			break;
		default:
			exit(2);
		}
	}
	r = open_dev();
	if (rtmon_set_nonblock(r, 1))
		fail(errno, "fcntl");
	load_target_names(r);
	deadline = now_s() + timeout;
	while (count < 0 || got < count) {
		struct pollfd p = { .fd = rtmon_fd(r), .events = POLLIN };
		int ms = (int)((deadline - now_s()) * 1000);

		n = rtmon_read_records(r, recs, count < 0 || count - got > 16 ?
				       16 : (size_t)(count - got));
		if (n == -EAGAIN) {
			if (ms <= 0)
				break;
			poll(&p, 1, ms);
			continue;
		}
		if (n == -EBUSY)
			fail(0, "another process (rtmond?) is reading the records");
		if (n == -EPERM)
			fail(0, "reading the records needs CAP_PERFMON or CAP_SYS_ADMIN (the device's group may only mark work)");
		if (n < 0)
			fail(-n, "reading records failed");
		for (i = 0; i < n; i++) {
			if (misses && !(recs[i].flags & (RTM_REC_F_DEADLINE_MISS |
							 RTM_REC_F_TIMEOUT)))
				continue;
			if (json) {
				json_t *o = rtmon_record_json(&recs[i],
							target_name(recs[i].target_id));

				if (stamp)	/* when the reader got it */
					json_object_set_new(o, "read_ns",
						json_integer((json_int_t)(now_s() * 1e9)));
				json_out(o);
			} else
				rtmon_record_print(stdout, &recs[i],
						   target_name(recs[i].target_id));
		}
		got += n;
		deadline = now_s() + timeout;
	}
	fflush(stdout);
	return 0;
}

/* ---- rtmond's outputs: DIR/stats.json, DIR/misses.jsonl ---- */

const char *rtmond_dir = "/var/lib/rtmon";

json_t *rtmond_stats_load(json_error_t *err)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/stats.json", rtmond_dir);
	return json_load_file(path, 0, err);
}

json_t *rtmond_stats_target(json_t *stats, const char *name)
{
	return json_object_get(json_object_get(stats, "targets"), name);
}

/* --dir DIR / -n N for the commands that read rtmond's files */
long dir_opts(int argc, char **argv, int want_n)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ 0 }
	};
	long n = -1;
	char *end;
	int c;

	if (getenv("RTMON_DIR"))
		rtmond_dir = getenv("RTMON_DIR");
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			rtmond_dir = optarg;
			break;
		case 'n':
			n = strtol(optarg, &end, 10);
			if (!want_n || *end || n < 1)
				usage_error("bad count '%s'", optarg);
			break;
		default:
			exit(2);
		}
	}
	return n;
}

static int cmd_hist(int argc, char **argv, int json)
{
	struct rtmon_hist *h;
	json_error_t jerr;
	json_t *root, *t, *b;
	const char *name;
	char path[1024], a[32];
	size_t i;

	dir_opts(argc, argv, 0);
	if (optind != argc - 1)
		usage_error("usage: rtmonctl hist TARGET [--dir DIR] [--json]");
	name = argv[optind];
	snprintf(path, sizeof(path), "%s/stats.json", rtmond_dir);
	root = rtmond_stats_load(&jerr);
	if (!root)
		fail(0, "cannot read %s: %s (is rtmond running with snapshot.dir = \"%s\"?)",
		     path, jerr.text, rtmond_dir);
	t = rtmond_stats_target(root, name);
	if (!t)
		fail(0, "rtmond has no target '%s' (%s)", name, path);
	if (json) {
		json_out(json_incref(t));
		json_decref(root);
		return 0;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		fail(ENOMEM, "hist");
	rtmon_hist_init(h);
	json_array_foreach(json_object_get(t, "buckets"), i, b) {
		json_int_t idx = json_integer_value(json_array_get(b, 0));

		if (idx >= 0 && idx < RTMON_HIST_NBUCKETS)
			h->b[idx] = (uint64_t)json_integer_value(json_array_get(b, 1));
	}
	h->count = (uint64_t)json_integer_value(json_object_get(t, "count"));
	h->sum_ns = (uint64_t)json_integer_value(json_object_get(t, "sum_ns"));
	h->min_ns = (uint64_t)json_integer_value(json_object_get(t, "min_ns"));
	h->max_ns = (uint64_t)json_integer_value(json_object_get(t, "max_ns"));
	printf("%s: %llu chains, %llu misses, %llu timeouts", name,
	       (unsigned long long)h->count,
	       (unsigned long long)json_integer_value(json_object_get(t, "misses")),
	       (unsigned long long)json_integer_value(json_object_get(t, "timeouts")));
	if (json_integer_value(json_object_get(t, "deadline_ns")))
		printf(", deadline %s", rtmon_fmt_ns(a, sizeof(a),
			(uint64_t)json_integer_value(json_object_get(t, "deadline_ns"))));
	putchar('\n');
	if (h->count) {
		printf("  min %s", rtmon_fmt_ns(a, sizeof(a), h->min_ns));
		printf("  mean %s", rtmon_fmt_ns(a, sizeof(a), rtmon_hist_mean(h)));
		printf("  p50 %s", rtmon_fmt_ns(a, sizeof(a), rtmon_hist_percentile(h, 50)));
		printf("  p90 %s", rtmon_fmt_ns(a, sizeof(a), rtmon_hist_percentile(h, 90)));
		printf("  p99 %s", rtmon_fmt_ns(a, sizeof(a), rtmon_hist_percentile(h, 99)));
		printf("  p99.9 %s", rtmon_fmt_ns(a, sizeof(a), rtmon_hist_percentile(h, 99.9)));
		printf("  max %s\n", rtmon_fmt_ns(a, sizeof(a), h->max_ns));
	}
	rtmon_hist_print(stdout, h, 25, 40,
			 (uint64_t)json_integer_value(json_object_get(t, "deadline_ns")));
	free(h);
	json_decref(root);
	return 0;
}

static FILE *open_misses(void)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/misses.jsonl", rtmond_dir);
	f = fopen(path, "r");
	if (!f)
		fail(errno, "cannot read %s (rtmond's snapshot.dir; --dir DIR)", path);
	return f;
}

static const char *snap_where(json_t *m, char *buf, size_t len)
{
	json_t *s = json_object_get(m, "snapshot");
	const char *skipped = json_string_value(json_object_get(s, "skipped"));
	const char *ft = json_string_value(json_object_get(s, "ftrace"));
	json_t *lt = json_object_get(s, "lttng");
	const char *ln = json_string_value(json_object_get(lt, "name"));

	if (skipped)
		snprintf(buf, len, "(%s)", skipped);
	else	/* (a hand-edited file may lack any of them) */
		snprintf(buf, len, "%s%s%s", ft ? ft : "", ft && json_is_object(lt) ? " + lttng " : "",
			 json_is_object(lt) ? ln ? ln : "?" : "");
	return buf;
}

/*
 * A miss's culprit from the module's blame (no snapshot to explain it):
 * its largest category, and the task the largest culprit entry names when
 * that entry is of the category. -1 when the record has no blame.
 */
static int module_culprit(json_t *m, char *buf, size_t len)
{
	uint64_t lat = (uint64_t)json_integer_value(json_object_get(m, "latency_ns"));
	const struct rtm_rec_culprit *k;
	struct rtm_rec_blame b;
	char a[32], comm[RTMON_COMM_TEXT], who[RTMON_COMM_TEXT + 32] = "";
	unsigned int i, top = 0;

	if (rtmon_blame_from_json(json_object_get(m, "blame"), &b) || !lat)
		return -1;
	for (i = 1; i < RTM_BLAME_NR; i++)
		if (b.ns[i] > b.ns[top])
			top = i;
	k = &b.culprit[0];
	if (k->pid && k->category == top) {
		rtmon_comm(comm, k->comm);
		snprintf(who, sizeof(who), " behind %s[%u]", comm[0] ? comm : "?", k->pid);
	}
	snprintf(buf, len, "%.0f%% (%s) %s%s (the module's blame)",
		 100.0 * (double)b.ns[top] / (double)lat, rtmon_fmt_ns(a, sizeof(a), b.ns[top]),
		 rtmon_blame_name(top), who);
	return 0;
}

static int cmd_misses(int argc, char **argv, int json)
{
	long n = dir_opts(argc, argv, 1), total = 0, i;
	json_t **all = NULL;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (optind != argc)
		usage_error("usage: rtmonctl misses [--dir DIR] [-n COUNT] [--json]");
	f = open_misses();
	while (getline(&line, &cap, f) > 0) {
		json_t *m = json_loads(line, 0, NULL);

		if (!m)
			continue;
		all = realloc(all, (size_t)(total + 1) * sizeof(*all));
		if (!all)
			fail(ENOMEM, "misses");
		all[total++] = m;
	}
	fclose(f);
	free(line);
	if (!json)
		printf("%-8s %-16s %-8s %13s %13s %-22s %s\n", "seq", "target", "kind",
		       "latency", "deadline", "task", "snapshot");
	for (i = n > 0 && total > n ? total - n : 0; i < total; i++) {
		json_t *m = all[i];
		char a[32], b[32], who[48], where[600], t1[160], t2[160], w2[2400];
		json_t *flags = json_object_get(m, "flags"), *fl;
		const char *kind = "miss";
		size_t k;

		if (json) {
			json_out(json_incref(m));
			continue;
		}
		json_array_foreach(flags, k, fl)	/* not a string: not ours */
			if (json_is_string(fl) && !strcmp(json_string_value(fl), "timeout"))
				kind = "timeout";
		/* names from the file: escaped for the terminal (rtmon_term) */
		if (json_string_length(json_object_get(m, "comm")))
			snprintf(who, sizeof(who), "%s[%lld]",
				 rtmon_term(t1, sizeof(t1), json_string_value(json_object_get(m, "comm"))),
				 (long long)json_integer_value(json_object_get(m, "pid")));
		else
			snprintf(who, sizeof(who), "-");	/* open: no task yet */
		printf("%-8lld %-16s %-8s %13s %13s %-22s %s\n",
		       (long long)json_integer_value(json_object_get(m, "seq")),
		       rtmon_term(t2, sizeof(t2), json_string_value(json_object_get(m, "target_name")) ?: "-"),
		       kind,
		       rtmon_fmt_ns(a, sizeof(a), (uint64_t)json_integer_value(json_object_get(m, "latency_ns"))),
		       rtmon_fmt_ns(b, sizeof(b), (uint64_t)json_integer_value(json_object_get(m, "deadline_ns"))),
		       who, rtmon_term(w2, sizeof(w2), snap_where(m, where, sizeof(where))));
		if (!rtmond_miss_culprit(m, where, sizeof(where)) ||
		    !module_culprit(m, where, sizeof(where)))
			printf("         culprit: %s\n", rtmon_term(w2, sizeof(w2), where));
	}
	for (i = 0; i < total; i++)
		json_decref(all[i]);
	free(all);
	return 0;
}

long long rtmond_seq_arg(const char *arg)
{
	long long seq;
	char *end;

	errno = 0;
	seq = strtoll(arg, &end, 10);
	if (*end || seq < 0 || end == arg || errno)
		usage_error("bad record number '%s' (the seq of 'rtmonctl misses')", arg);
	return seq;
}

static void seq_key(char *key, size_t len, long long seq)
{
	snprintf(key, len, "%lld", seq);
}

static int seq_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

json_t *rtmond_misses_index(const long long *seqs, size_t n)
{
	json_t *index = json_object();
	long long *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	char *line = NULL, key[24];
	size_t cap = 0;
	FILE *f;

	if (!index || !sorted)
		fail(ENOMEM, "misses");
	memcpy(sorted, seqs, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), seq_cmp);
	f = open_misses();
	while (getline(&line, &cap, f) > 0) {
		json_t *x = json_loads(line, 0, NULL);
		long long seq = json_integer_value(json_object_get(x, "seq"));

		/* the last line of a seq wins */
		if (json_is_integer(json_object_get(x, "seq")) &&
		    bsearch(&seq, sorted, n, sizeof(*sorted), seq_cmp)) {
			seq_key(key, sizeof(key), seq);
			json_object_set(index, key, x);
		}
		json_decref(x);
	}
	fclose(f);
	free(line);
	free(sorted);
	return index;
}

json_t *rtmond_misses_get(json_t *index, long long seq)
{
	char key[24];

	seq_key(key, sizeof(key), seq);
	return json_object_get(index, key);
}

json_t *rtmond_miss_find(const char *seq_arg)
{
	long long seq = rtmond_seq_arg(seq_arg);
	json_t *index = rtmond_misses_index(&seq, 1);
	json_t *m = json_incref(rtmond_misses_get(index, seq));

	json_decref(index);
	if (!m)
		fail(0, "no miss with seq %lld in %s/misses.jsonl", seq, rtmond_dir);
	return m;
}

/* the module's blame of a miss (records of version 4 on) */
static void show_blame(json_t *m)
{
	struct rtm_rec_blame b;

	if (rtmon_blame_from_json(json_object_get(m, "blame"), &b))
		printf("  blame: none (a record of a module before version 4)\n");
	else
		rtmon_blame_print(stdout, &b);
}

static int cmd_show(int argc, char **argv, int json)
{
	json_t *m, *hops, *h, *flags, *fl;
	char a[32], b[32], where[600], t1[160], t2[160], t3[160], w2[2400];
	long long want;
	size_t i;

	dir_opts(argc, argv, 0);
	if (optind != argc - 1)
		usage_error("usage: rtmonctl show SEQ [--dir DIR] [--json]");
	m = rtmond_miss_find(argv[optind]);
	want = json_integer_value(json_object_get(m, "seq"));
	if (json) {
		json_out(m);
		return 0;
	}
	/* every string from the file is escaped for the terminal (rtmon_term) */
	printf("#%lld %s %lld -> %s[%lld] target %s latency %s",
	       want, rtmon_term(t1, sizeof(t1), json_string_value(json_object_get(m, "kind")) ?: "?"),
	       (long long)json_integer_value(json_object_get(m, "source")),
	       rtmon_term(t2, sizeof(t2), json_string_value(json_object_get(m, "comm")) ?: "?"),
	       (long long)json_integer_value(json_object_get(m, "pid")),
	       rtmon_term(t3, sizeof(t3), json_string_value(json_object_get(m, "target_name")) ?: "-"),
	       rtmon_fmt_ns(a, sizeof(a), (uint64_t)json_integer_value(json_object_get(m, "latency_ns"))));
	if (json_integer_value(json_object_get(m, "deadline_ns")))
		printf(" deadline %s", rtmon_fmt_ns(b, sizeof(b),
			(uint64_t)json_integer_value(json_object_get(m, "deadline_ns"))));
	flags = json_object_get(m, "flags");
	json_array_foreach(flags, i, fl)
		printf(" %s", rtmon_term(t1, sizeof(t1), json_string_value(fl) ?: "?"));
	putchar('\n');
	printf("  %-3s %-13s %-4s %-8s %-28s %14s\n", "hop", "event", "cpu", "context", "who", "+time");
	hops = json_object_get(m, "hops");
	json_array_foreach(hops, i, h)
		printf("  %-3zu %-13s %-4lld %-8s %-28s %14s\n", i,
		       rtmon_term(t1, sizeof(t1), json_string_value(json_object_get(h, "event")) ?: "?"),
		       (long long)json_integer_value(json_object_get(h, "cpu")),
		       rtmon_term(t2, sizeof(t2), json_string_value(json_object_get(h, "ctx")) ?: "?"),
		       rtmon_term(t3, sizeof(t3), json_string_value(json_object_get(h, "what")) ?: "?"),
		       rtmon_fmt_ns(a, sizeof(a), (uint64_t)json_integer_value(json_object_get(h, "delta_ns"))));
	show_blame(m);
	printf("  snapshot: %s\n", rtmon_term(w2, sizeof(w2), snap_where(m, where, sizeof(where))));
	json_decref(m);
	return 0;
}

static const char help[] =
	"usage: rtmonctl [--json] COMMAND [ARGS]\n"
	"  status                     module state, counters and targets\n"
	"  targets add [OPTIONS]      follow chains to a task or IRQ (--help for options)\n"
	"  targets del ID             stop following a target\n"
	"  targets list               the targets\n"
	"  start | stop               start or stop tracking\n"
	"  records [-n N] [-t SEC] [-s|--stamp] [-m|--misses]\n"
	"                             print chain records as they come (until N, or SEC\n"
	"                             idle); --stamp adds the time each was read,\n"
	"                             --misses shows deadline misses and timeouts only\n"
	"  hist TARGET [--dir DIR]    rtmond's latency histogram and percentiles of a target\n"
	"  misses [-n N] [--dir DIR]  the misses rtmond saved, with their snapshot files\n"
	"  show SEQ [--dir DIR]       one miss with its per-hop breakdown\n"
	"  explain SEQ... [--dir DIR] where a miss's time went, and who took it (from\n"
	"                             its ftrace snapshot, and the module's own blame;\n"
	"                             that alone without a snapshot); explain --record\n"
	"                             FILE [--snapshot FILE]: a saved record and snapshot\n"
	"  top [-i SEC] [-n N] [--dir DIR] [--status FILE]\n"
	"                             live per-target view every SEC (default 1) seconds,\n"
	"                             N times (default: until interrupted)\n"
	"  plot TARGET -o FILE.svg|FILE.png [--dir DIR] [--from SAVED.json]\n"
	"                             the latency histogram drawn by gnuplot; --from: a\n"
	"                             saved 'hist TARGET --json' instead of rtmond's\n"
	"                             (DIR: rtmond's snapshot.dir, default /var/lib/rtmon,\n"
	"                             or $RTMON_DIR)\n"
	"--json gives one JSON document (records: one per line).\n";

int main(int argc, char **argv)
{
	int json = want_json(&argc, &argv), err;
	struct rtmon *r;

	if (argc < 2)
		usage_error("no command given");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(help, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "status"))
		return cmd_status(json);
	if (!strcmp(argv[1], "targets"))
		return cmd_targets(argc - 1, argv + 1, json);
	if (!strcmp(argv[1], "records"))
		return cmd_records(argc - 1, argv + 1, json);
	if (!strcmp(argv[1], "hist"))
		return cmd_hist(argc - 1, argv + 1, json);
	if (!strcmp(argv[1], "misses"))
		return cmd_misses(argc - 1, argv + 1, json);
	if (!strcmp(argv[1], "show"))
		return cmd_show(argc - 1, argv + 1, json);
	if (!strcmp(argv[1], "top"))
		return cmd_top(argc - 1, argv + 1, json);
	if (!strcmp(argv[1], "plot"))
		return cmd_plot(argc - 1, argv + 1, json);
	if (!strcmp(argv[1], "explain"))
		return cmd_explain(argc - 1, argv + 1, json);
	if (!strcmp(argv[1], "start") || !strcmp(argv[1], "stop")) {
		r = open_dev();
		err = argv[1][2] == 'a' ? rtmon_start(r) : rtmon_stop(r);
		if (err == -EPERM)
			fail(0, "%s needs CAP_SYS_ADMIN (run as root)", argv[1]);
		if (err)
			fail(-err, "%s failed", argv[1]);
		return 0;
	}
	usage_error("unknown command '%s'", argv[1]);
}

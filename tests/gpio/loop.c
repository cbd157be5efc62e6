// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon-gpio-loop - the stimulus side of a GPIO loopback test, and the
 * join of its measurements with rtmon's.
 *
 * It toggles the stimulus output line N times (fixed or random period),
 * takes CLOCK_MONOTONIC right before each set, and reads the response
 * edge (the kernel's timestamp of the edge on its response input line):
 * response time = response edge - stimulus. Statistics, percentiles, a
 * histogram, misses against --deadline-us; --json for machines.
 *
 * Join with rtmon (--rtmon: the tool adds a target and reads /dev/rtmon
 * while it runs; or --records FILE: a records JSON-lines file from rtmond
 * or 'rtmonctl records --json'), edge by edge by cookie. It needs the
 * responder's per-edge log (--log, written by rtmon-gpio-respond --log at
 * its exit): the responder's edge timestamp is the one the kernel's
 * gpiolib-cdev took for the responder's input line, and its sequence
 * number is the cookie it passed to rtmon_work_begin/end. Checks:
 *   - every edge has exactly one completed chain with its cookie (missing,
 *     duplicate, extra ones reported);
 *   - rtmon's start (IRQ entry of the input line's IRQ) is at or before
 *     the gpiolib timestamp, by at most --bound-us;
 *   - rtmon's end (the work_end marker) lies between the responder's
 *     clock reads right before and after rtmon_work_end;
 *   - rtmon's chain lies inside the driver's window (stimulus .. response
 *     edge): an rtmon miss is a driver miss too.
 * See README.md in this directory for the bound and why.
 *
 * Exit status: 0 all good; 1 a runtime error, lost edges, a join or
 * agreement failure, or misses with --fail-on-miss; 2 bad options.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "rtmon/rtmon.h"
#include "rtmon_format.h"
#include "rtmon_hist.h"
#include "gpio_common.h"
#include "gpio_line.h"

static const char *prog = "rtmon-gpio-loop";

/* default --bound-us: see README.md ("agreement bound") */
#define DEFAULT_BOUND_US	50

struct cfg {
	const char *chip, *out, *in, *consumer, *board;
	uint64_t count, period_us, rnd_min, rnd_max, seed;
	uint64_t deadline_us, timeout_us, bound_us, end_slack_ns;
	double bound_pct;
	int random, prio, cpu, json, edges, fail_on_miss, rtmon, quiet;
	int irq_any;
	unsigned int hist_rows, slowest;
	const char *ready, *log, *records, *target, *hist_out;
	uint64_t wait_s;
	/* the responder, from --ready or options */
	char resp_comm[RTM_COMM_LEN + 1];
	char resp_consumer[RTMON_NAME_LEN];
	int resp_pid, resp_irq;
};

/* one stimulus edge, as the driver sees it */
struct dedge {
	uint64_t stim_ns, stim_after_ns, resp_ns;
	int lost, overrun;
	/* join */
	json_t *rlog;		/* the responder's entry (borrowed) */
	json_t *rec;		/* rtmon's completion record (borrowed) */
	int nrec, ntimeout;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s [--board FILE | --chip CHIP --out LINE --in LINE] [options]\n"
"stimulus and timing:\n"
"  --board FILE       chip and lines from a board file (output\n"
"                     BOARD_GPIO_STIM_OUT, input BOARD_GPIO_RESP_IN)\n"
"  --chip CHIP        gpiochipN, N, /dev/gpiochipN or the chip's label\n"
"  --out LINE         stimulus output line (offset or name)\n"
"  --in LINE          response input line (offset or name)\n"
"  --consumer NAME    consumer label of the driver's lines (rtmon-loop)\n"
"  --count N          stimulus edges (default 1000)\n"
"  --period-us P      fixed period (default 5000)\n"
"  --random MIN:MAX   random period, uniform in [MIN, MAX] us\n"
"  --seed S           random seed (default 1)\n"
"  --deadline-us D    deadline for misses, also rtmon's target's (1000)\n"
"  --timeout-us T     an edge without response after T us is lost (200000)\n"
"  --prio P           SCHED_FIFO priority, 0 = leave the policy (default 70)\n"
"  --cpu C            run on cpu C\n"
"output:\n"
"  --json             one JSON object on stdout (config, stats, histogram,\n"
"                     misses, join)\n"
"  --edges            with --json: the per-edge list\n"
"  --hist-rows N      rows of the text histogram (default 20)\n"
"  --hist-out FILE    the response-time histogram as 'rtmonctl hist --json'\n"
"                     writes it (rtmonctl plot -o FILE.svg --from FILE)\n"
"  --slowest K        breakdown of the K slowest edges (default 5)\n"
"  --quiet            no progress messages on stderr\n"
"  --fail-on-miss     exit 1 when any edge misses the deadline\n"
"join with rtmon (needs --log):\n"
"  --ready FILE       the responder's --ready-file: wait for it (pid, comm,\n"
"                     consumer = its IRQ's name)\n"
"  --log FILE         the responder's --log, read at the end\n"
"  --wait S           seconds to wait for --ready and --log (default 10)\n"
"  --rtmon            add a target to rtmon.ko and read /dev/rtmon while\n"
"                     running (not while rtmond reads it: use --records)\n"
"  --any-irq          the target's source: any IRQ (default: the\n"
"                     responder's input line's IRQ, by its name)\n"
"  --records FILE     rtmon records, JSON lines (rtmond records.jsonl,\n"
"                     rtmonctl records --json)\n"
"  --target NAME      with --records: only records of this target name\n"
"                     (default: records ending in the responder's comm)\n"
"  --responder-comm C the responder's comm (default rtmon-gpio-resp)\n"
"  --responder-consumer NAME  its input line's consumer (rtmon-respond)\n"
"  --bound-us B       edge timestamp - rtmon start bound (default %d)\n"
"  --bound-pct P      at least P%% of the edges within it (default 100)\n"
"  --end-slack-us S   rtmon end vs the responder's marker window (default 0)\n"
"Exit status: 0 all good; 1 runtime error, lost edges, join or agreement\n"
"failure, misses with --fail-on-miss; 2 bad options.\n",
		prog, DEFAULT_BOUND_US);
}

/* ---- the responder's ready file and log ---- */

static int wait_file(const char *path, uint64_t wait_s)
{
	uint64_t end = now_ns() + wait_s * 1000000000ull;
	struct stat st;

	while (stat(path, &st)) {
		if (now_ns() > end || stop)
			return -1;
		usleep(10000);
	}
	return 0;
}

static int read_ready(struct cfg *c)
{
	json_error_t je;
	const char *s;
	json_t *o;

	if (wait_file(c->ready, c->wait_s)) {
		fprintf(stderr, "%s: --ready %s: the responder did not write it within %" PRIu64 " s\n",
			prog, c->ready, c->wait_s);
		return -1;
	}
	o = json_load_file(c->ready, 0, &je);
	if (!o) {
		fprintf(stderr, "%s: --ready %s: line %d: %s\n", prog, c->ready,
			je.line, je.text);
		return -1;
	}
	s = json_string_value(json_object_get(o, "comm"));
	if (s)
		snprintf(c->resp_comm, sizeof(c->resp_comm), "%s", s);
	s = json_string_value(json_object_get(o, "consumer"));
	if (s)
		snprintf(c->resp_consumer, sizeof(c->resp_consumer), "%s", s);
	c->resp_pid = (int)json_integer_value(json_object_get(o, "pid"));
	c->resp_irq = json_object_get(o, "irq") ?
		(int)json_integer_value(json_object_get(o, "irq")) : -1;
	json_decref(o);
	return 0;
}

/* JSON lines into an array; bad lines are counted, not fatal */
static json_t *read_jsonl(const char *path, unsigned int *bad)
{
	json_t *a = json_array(), *o;
	char *line = NULL;
	size_t len = 0;
	FILE *f;

	*bad = 0;
	f = fopen(path, "r");
	if (!f) {
		json_decref(a);
		return NULL;
	}
	while (getline(&line, &len, f) > 0) {
		if (line[0] == '\n')
			continue;
		o = json_loads(line, JSON_DECODE_ANY, NULL);
		if (json_is_object(o))
			json_array_append_new(a, o);
		else {
			json_decref(o);
			(*bad)++;
		}
	}
	free(line);
	fclose(f);
	return a;
}

static uint64_t ju64(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

static int jhas_flag(json_t *rec, const char *flag)
{
	json_t *flags = json_object_get(rec, "flags"), *v;
	size_t i;

	json_array_foreach(flags, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), flag))
			return 1;
	return 0;
}

/* ---- rtmon: a target and a record reader thread ---- */

struct reader {
	struct rtmon *r;
	uint32_t target;
	json_t *recs;
	int err;
	volatile int stop;
	pthread_t th;
};

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	struct rtm_record recs[16];
	int n, i, idle = 0;

	for (;;) {
		struct pollfd p = { .fd = rtmon_fd(rd->r), .events = POLLIN };

		if (rd->stop && idle)
			break;
		poll(&p, 1, 50);
		n = rtmon_read_records(rd->r, recs, 16);
		if (n == -EAGAIN || n == 0) {
			idle = 1;
			continue;
		}
		if (n < 0) {
			rd->err = -n;
			break;
		}
		idle = 0;
		for (i = 0; i < n; i++)
			if (recs[i].target_id == rd->target)
				json_array_append_new(rd->recs,
					rtmon_record_json(&recs[i], "gpio-loop"));
	}
	return NULL;
}

static int rtmon_begin(struct cfg *c, struct reader *rd)
{
	struct rtmon_target t;
	int ret;

	rd->r = rtmon_open(NULL);
	if (!rd->r) {
		fprintf(stderr, "%s: --rtmon: %s: %s\n", prog, RTMON_DEVICE,
			errno == ENOENT ? "no such device (is rtmon.ko loaded?)" :
			errno == EPROTO ? "the module's ABI differs from this tool's" :
			strerror(errno));
		return -1;
	}
	rtmon_target_init(&t);
	t.end = RTMON_END_WORK_END;
	snprintf(t.comm, sizeof(t.comm), "%s", c->resp_comm);
	snprintf(t.name, sizeof(t.name), "gpio-loop");
	t.deadline_ns = c->deadline_us * 1000;
	if (c->irq_any) {
		t.src = RTMON_SRC_IRQ_ANY;
	} else {
		t.src = RTMON_SRC_IRQ;
		snprintf(t.irq_name, sizeof(t.irq_name), "%s", c->resp_consumer);
	}
	ret = rtmon_target_add(rd->r, &t);
	if (ret) {
		fprintf(stderr, "%s: --rtmon: adding the target (comm %s, irq %s): %s%s\n",
			prog, t.comm, c->irq_any ? "any" : t.irq_name,
			strerror(-ret),
			ret == -ENOENT || ret == -EINVAL ?
			" (no IRQ of that name: is the responder running? --ready)" :
			ret == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");
		rtmon_close(rd->r);
		rd->r = NULL;
		return -1;
	}
	rd->target = t.id;
	rd->recs = json_array();
	rtmon_set_nonblock(rd->r, 1);
	/* the device has one record reader: fail now if rtmond is it */
	{
		struct rtm_record r1;

		ret = rtmon_read_records(rd->r, &r1, 1);
		if (ret == -EBUSY) {
			fprintf(stderr, "%s: --rtmon: another program (rtmond?) reads the records of %s: use --records with its records file\n",
				prog, RTMON_DEVICE);
			rtmon_target_del(rd->r, rd->target);
			rtmon_close(rd->r);
			rd->r = NULL;
			return -1;
		}
	}
	if (pthread_create(&rd->th, NULL, reader_main, rd)) {
		fprintf(stderr, "%s: --rtmon: no reader thread\n", prog);
		return -1;
	}
	return 0;
}

static int rtmon_finish(struct reader *rd)
{
	rd->stop = 1;
	pthread_join(rd->th, NULL);
	rtmon_target_del(rd->r, rd->target);
	rtmon_close(rd->r);
	if (rd->err) {
		fprintf(stderr, "%s: --rtmon: reading records: %s%s\n", prog,
			strerror(rd->err),
			rd->err == EBUSY ? " (another program, rtmond?, reads the records: use --records with its records file)" : "");
		return -1;
	}
	return 0;
}

/* A record of the run for the responder's target (--target, else comm). */
static int rec_ours(const struct cfg *c, json_t *rec, uint64_t since)
{
	const char *comm = json_string_value(json_object_get(rec, "comm"));
	const char *tn = json_string_value(json_object_get(rec, "target_name"));

	if (c->target ? !tn || strcmp(tn, c->target) :
	    !comm || strcmp(comm, c->resp_comm))
		return 0;
	return ju64(rec, "start_ns") >= since;
}

/* does recs hold a completion record with a cookie for every logged edge? */
static int records_complete(const struct cfg *c, json_t *recs, json_t *rlog,
			    uint64_t since)
{
	size_t i, n = 0;
	json_t *rec;

	json_array_foreach(recs, i, rec)
		if (rec_ours(c, rec, since) && !jhas_flag(rec, "timeout") &&
		    json_object_get(rec, "cookie"))
			n++;
	return n >= json_array_size(rlog);
}

/*
 * The end of the hard IRQ that started a record: the time of its next hop
 * when that happened in hard IRQ context (the wake-up of the IRQ thread,
 * after the primary handlers ran, so after gpiolib's timestamp), or of the
 * IRQ's exit hop; UINT64_MAX when the record does not show it.
 */
static uint64_t irq_window_end(json_t *rec)
{
	json_t *hops = json_object_get(rec, "hops"), *h;
	const char *ev, *ctx;

	h = json_array_get(hops, 1);
	if (!h)
		return UINT64_MAX;
	ev = json_string_value(json_object_get(h, "event"));
	ctx = json_string_value(json_object_get(h, "ctx"));
	if ((ev && !strcmp(ev, "irq_exit")) || (ctx && !strcmp(ctx, "hardirq")))
		return ju64(h, "ts_ns");
	return UINT64_MAX;
}

/* ---- statistics ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of sorted v[0..n) */
static uint64_t pct(const uint64_t *v, size_t n, double p)
{
	size_t k;

	if (!n)
		return 0;
	k = (size_t)ceil(p / 100.0 * n);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return v[k - 1];
}

struct stats {
	size_t n;
	uint64_t min, max, avg, p50, p90, p99, p999;
};

static void stats_of(uint64_t *v, size_t n, struct stats *s)
{
	uint64_t sum = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		sum += v[i];
	s->min = v[0];
	s->max = v[n - 1];
	s->avg = sum / n;
	s->p50 = pct(v, n, 50);
	s->p90 = pct(v, n, 90);
	s->p99 = pct(v, n, 99);
	s->p999 = pct(v, n, 99.9);
}

static json_t *stats_json(const struct stats *s)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
		"count", (json_int_t)s->n, "min_ns", (json_int_t)s->min,
		"avg_ns", (json_int_t)s->avg, "max_ns", (json_int_t)s->max,
		"p50_ns", (json_int_t)s->p50, "p90_ns", (json_int_t)s->p90,
		"p99_ns", (json_int_t)s->p99, "p99_9_ns", (json_int_t)s->p999);
}

static void stats_print(const char *what, const struct stats *s)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32];

	if (!s->n) {
		printf("%s: none\n", what);
		return;
	}
	printf("%s (%zu): min %s avg %s max %s\n", what, s->n,
	       rtmon_fmt_ns(a, sizeof(a), s->min),
	       rtmon_fmt_ns(b, sizeof(b), s->avg),
	       rtmon_fmt_ns(c, sizeof(c), s->max));
	printf("  p50 %s  p90 %s  p99 %s  p99.9 %s\n",
	       rtmon_fmt_ns(d, sizeof(d), s->p50),
	       rtmon_fmt_ns(e, sizeof(e), s->p90),
	       rtmon_fmt_ns(f, sizeof(f), s->p99),
	       rtmon_fmt_ns(g, sizeof(g), s->p999));
}

/* ---- the breakdown of one edge from rtmon's hops ---- */

struct breakdown {
	int64_t stim_irq;	/* stimulus -> rtmon start (IRQ entry) */
	int64_t irq_thread;	/* IRQ entry -> first IRQ thread runs */
	int64_t to_resp;	/* IRQ thread -> responder runs */
	int64_t work;		/* responder runs -> work_end */
	int64_t end_resp;	/* work_end -> response edge */
	char path[512];
};

static void breakdown_of(const struct cfg *c, const struct dedge *e,
			 struct breakdown *b)
{
	json_t *hops = json_object_get(e->rec, "hops"), *h;
	uint64_t start = ju64(e->rec, "start_ns"), end = ju64(e->rec, "end_ns");
	uint64_t t_irqthr = 0, t_resp = 0;
	size_t i, len = 0;

	memset(b, 0, sizeof(*b));
	json_array_foreach(hops, i, h) {
		const char *ev = json_string_value(json_object_get(h, "event"));
		const char *comm = json_string_value(json_object_get(h, "comm"));
		const char *what = json_string_value(json_object_get(h, "what"));
		uint64_t ts = ju64(h, "ts_ns");

		if (!ev)
			continue;
		if (!strcmp(ev, "switch_in") && comm) {
			if (!t_irqthr && !strncmp(comm, "irq/", 4))
				t_irqthr = ts;
			if (!t_resp && !strcmp(comm, c->resp_comm))
				t_resp = ts;
		}
		if (len < sizeof(b->path) - 64)
			len += snprintf(b->path + len, sizeof(b->path) - len,
					"%s%s:%s", i ? " -> " : "", ev,
					what ? what : "?");
	}
	b->stim_irq = (int64_t)(start - e->stim_ns);
	b->irq_thread = t_irqthr ? (int64_t)(t_irqthr - start) : -1;
	b->to_resp = t_resp ? (int64_t)(t_resp - (t_irqthr ? t_irqthr : start)) : -1;
	b->work = t_resp ? (int64_t)(end - t_resp) : -1;
	b->end_resp = e->lost ? -1 : (int64_t)(e->resp_ns - end);
}

static const char *fmt_sns(char *buf, size_t len, int64_t ns)
{
	if (ns < 0)
		snprintf(buf, len, "-");
	else
		rtmon_fmt_ns(buf, len, (uint64_t)ns);
	return buf;
}

/* ---- main ---- */

static void opt_chip_lines(struct cfg *c, struct gpio_board *b)
{
	board_read(prog, c->board, b);
	if (!c->chip)
		c->chip = b->chip;
	if (!c->out)
		c->out = b->stim_out;
	if (!c->in)
		c->in = b->resp_in;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "chip", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "in", required_argument, NULL, 'i' },
		{ "consumer", required_argument, NULL, 'C' },
		{ "count", required_argument, NULL, 'n' },
		{ "period-us", required_argument, NULL, 'P' },
		{ "random", required_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 'S' },
		{ "deadline-us", required_argument, NULL, 'd' },
		{ "timeout-us", required_argument, NULL, 't' },
		{ "prio", required_argument, NULL, 'p' },
		{ "cpu", required_argument, NULL, 'u' },
		{ "json", no_argument, NULL, 'j' },
		{ "edges", no_argument, NULL, 'e' },
		{ "hist-rows", required_argument, NULL, 'H' },
		{ "hist-out", required_argument, NULL, 'O' },
		{ "slowest", required_argument, NULL, 'K' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "fail-on-miss", no_argument, NULL, 'F' },
		{ "ready", required_argument, NULL, 'r' },
		{ "log", required_argument, NULL, 'l' },
		{ "wait", required_argument, NULL, 'W' },
		{ "rtmon", no_argument, NULL, 'M' },
		{ "any-irq", no_argument, NULL, 'A' },
		{ "records", required_argument, NULL, 'f' },
		{ "target", required_argument, NULL, 'T' },
		{ "responder-comm", required_argument, NULL, 'x' },
		{ "responder-consumer", required_argument, NULL, 'y' },
		{ "bound-us", required_argument, NULL, 'B' },
		{ "bound-pct", required_argument, NULL, 'Q' },
		{ "end-slack-us", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct cfg c = {
		.consumer = "rtmon-loop", .count = 1000, .period_us = 5000,
		.seed = 1, .deadline_us = 1000, .timeout_us = 200000,
		.bound_us = DEFAULT_BOUND_US, .bound_pct = 100, .prio = 70, .cpu = -1,
		.hist_rows = 20, .slowest = 5, .wait_s = 10,
		.resp_comm = "rtmon-gpio-resp", .resp_consumer = "rtmon-respond",
		.resp_pid = 0, .resp_irq = -1,
	};
	struct gl_line *stim = NULL, *resp = NULL;
	struct reader rd = { 0 };
	struct gpio_board board;
	struct gl_chip *chip;
	struct dedge *E;
	char err[GL_ERRLEN];
	unsigned int out_off, in_off;
	struct sigaction sa;
	uint64_t i, next, late = 0, lost = 0, overruns = 0;
	int opt, level = 0, ret = EXIT_OK, join;
	json_t *rlog = NULL, *recs = NULL;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'b': c.board = optarg; break;
		case 'c': c.chip = optarg; break;
		case 'o': c.out = optarg; break;
		case 'i': c.in = optarg; break;
		case 'C': c.consumer = optarg; break;
		case 'n': c.count = opt_u64(prog, "--count", optarg, 1, 10000000); break;
		case 'P': c.period_us = opt_u64(prog, "--period-us", optarg, 1, 60000000); break;
		case 'R':
			opt_range(prog, "--random", optarg, 1, 60000000, &c.rnd_min, &c.rnd_max);
			c.random = 1;
			break;
		case 'S': c.seed = opt_u64(prog, "--seed", optarg, 0, UINT32_MAX); break;
		case 'd': c.deadline_us = opt_u64(prog, "--deadline-us", optarg, 0, 60000000); break;
		case 't': c.timeout_us = opt_u64(prog, "--timeout-us", optarg, 1, 60000000); break;
		case 'p': c.prio = (int)opt_u64(prog, "--prio", optarg, 0, 99); break;
		case 'u': c.cpu = (int)opt_u64(prog, "--cpu", optarg, 0, CPU_SETSIZE - 1); break;
		case 'j': c.json = 1; break;
		case 'e': c.edges = 1; break;
		case 'H': c.hist_rows = (unsigned int)opt_u64(prog, "--hist-rows", optarg, 1, 1000); break;
		case 'O': c.hist_out = optarg; break;
		case 'K': c.slowest = (unsigned int)opt_u64(prog, "--slowest", optarg, 0, 1000); break;
		case 'q': c.quiet = 1; break;
		case 'F': c.fail_on_miss = 1; break;
		case 'r': c.ready = optarg; break;
		case 'l': c.log = optarg; break;
		case 'W': c.wait_s = opt_u64(prog, "--wait", optarg, 0, 3600); break;
		case 'M': c.rtmon = 1; break;
		case 'A': c.irq_any = 1; break;
		case 'f': c.records = optarg; break;
		case 'T': c.target = optarg; break;
		case 'x':
			if (!*optarg || strlen(optarg) > RTM_COMM_LEN - 1) {
				fprintf(stderr, "%s: --responder-comm: 1 to %d characters\n",
					prog, RTM_COMM_LEN - 1);
				return EXIT_USAGE;
			}
			snprintf(c.resp_comm, sizeof(c.resp_comm), "%s", optarg);
			break;
		case 'y':
			if (!*optarg || strlen(optarg) >= RTMON_NAME_LEN) {
				fprintf(stderr, "%s: --responder-consumer: 1 to %d characters\n",
					prog, RTMON_NAME_LEN - 1);
				return EXIT_USAGE;
			}
			snprintf(c.resp_consumer, sizeof(c.resp_consumer), "%s", optarg);
			break;
		case 'B': c.bound_us = opt_u64(prog, "--bound-us", optarg, 0, 60000000); break;
		case 'Q': {
			char *end;

			errno = 0;
			c.bound_pct = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(c.bound_pct >= 0 && c.bound_pct <= 100)) {
				fprintf(stderr, "%s: --bound-pct: '%s' is not a percentage (0 to 100)\n",
					prog, optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'E': c.end_slack_ns = 1000 * opt_u64(prog, "--end-slack-us", optarg, 0, 60000000); break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (c.board)
		opt_chip_lines(&c, &board);
	if (!c.chip || !c.out || !c.in) {
		fprintf(stderr, "%s: give --board FILE, or --chip, --out and --in\n", prog);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (c.rtmon && c.records) {
		fprintf(stderr, "%s: --rtmon and --records: choose one\n", prog);
		return EXIT_USAGE;
	}
	join = c.rtmon || c.records;
	if (join && !c.log) {
		fprintf(stderr, "%s: the join with rtmon (--rtmon, --records) needs the responder's --log\n", prog);
		return EXIT_USAGE;
	}
	if (c.edges && !c.json) {
		fprintf(stderr, "%s: --edges goes with --json\n", prog);
		return EXIT_USAGE;
	}

	chip = gl_chip_open(c.chip, err, sizeof(err));
	if (!chip) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	if (gl_line_lookup(chip, c.out, &out_off, err, sizeof(err)) ||
	    gl_line_lookup(chip, c.in, &in_off, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	if (out_off == in_off) {
		fprintf(stderr, "%s: --out and --in are the same line (%u)\n", prog, out_off);
		return EXIT_USAGE;
	}
	E = calloc(c.count + 1, sizeof(*E));
	if (!E) {
		fprintf(stderr, "%s: no memory for %" PRIu64 " edges\n", prog, c.count);
		return EXIT_FAIL;
	}
	stim = gl_request_output(chip, out_off, c.consumer, 0, err, sizeof(err));
	if (stim)
		resp = gl_request_edges(chip, in_off, c.consumer, err, sizeof(err));
	if (!stim || !resp) {
		fprintf(stderr, "%s: %s\n", prog, err);
		gl_release(stim);
		return EXIT_FAIL;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (c.ready && read_ready(&c)) {
		ret = EXIT_FAIL;
		goto out_lines;
	}
	if (c.rtmon && rtmon_begin(&c, &rd)) {
		ret = EXIT_FAIL;
		goto out_lines;
	}
	if (rt_setup(prog, c.prio, c.cpu)) {
		ret = EXIT_FAIL;
		goto out_rtmon;
	}
	srandom((unsigned int)c.seed);
	if (!c.quiet)
		fprintf(stderr, "%s: %" PRIu64 " edges on %s (%s) line %u, response on line %u, period %s%" PRIu64 " us\n",
			prog, c.count, gl_chip_name(chip), gl_chip_label(chip),
			out_off, in_off, c.random ? "random " : "",
			c.random ? c.rnd_min : c.period_us);

	/* ---- the stimulus loop ---- */
	next = now_ns() + 1000000;
	for (i = 1; i <= c.count && !stop; i++) {
		struct dedge *e = &E[i];
		struct timespec ts;
		struct gl_event ev;
		uint64_t period, deadline;
		int r;

		period = c.random ? c.rnd_min + (uint64_t)random() % (c.rnd_max - c.rnd_min + 1)
				  : c.period_us;
		if (now_ns() > next) {
			e->overrun = 1;
			overruns++;
			next = now_ns();
		}
		ts.tv_sec = next / 1000000000;
		ts.tv_nsec = next % 1000000000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop)
			;
		next += period * 1000;
		/* a response that came after its edge's timeout */
		while (gl_event_wait(resp, 0) > 0 && !gl_event_read(resp, &ev))
			late++;
		level ^= 1;
		e->stim_ns = now_ns();
		if (gl_set(stim, level)) {
			fprintf(stderr, "%s: setting line %u: %s\n", prog, out_off,
				strerror(errno));
			ret = EXIT_FAIL;
			break;
		}
		e->stim_after_ns = now_ns();
		deadline = e->stim_ns + c.timeout_us * 1000;
		for (;;) {
			uint64_t now = now_ns();

			r = now < deadline ? gl_event_wait(resp, (int64_t)(deadline - now)) : 0;
			if (r < 0 && errno == EINTR && !stop)
				continue;
			break;
		}
		if (r > 0 && !gl_event_read(resp, &ev)) {
			e->resp_ns = ev.ts_ns;
		} else {
			e->lost = 1;
			lost++;
		}
	}
	if (stop) {
		fprintf(stderr, "%s: interrupted after %" PRIu64 " edges\n", prog, i - 1);
		c.count = i - 1;
	}
	/* records are emitted at work_end, read through irq_work and poll() */
	usleep(300000);

out_rtmon:
	if (c.rtmon && rd.r) {
		if (rtmon_finish(&rd))
			ret = EXIT_FAIL;
		recs = rd.recs;
	}
out_lines:
	gl_release(stim);
	gl_release(resp);
	if (ret != EXIT_OK) {
		gl_chip_close(chip);
		return ret;
	}

	/* ---- the responder's log and rtmon's records ---- */
	if (c.log) {
		unsigned int bad;

		if (wait_file(c.log, c.wait_s) && c.resp_pid > 0) {
			/* it is still waiting for edges (some were lost) */
			kill(c.resp_pid, SIGTERM);
			wait_file(c.log, c.wait_s);
		}
		rlog = read_jsonl(c.log, &bad);
		if (!rlog) {
			fprintf(stderr, "%s: --log %s: %s\n", prog, c.log, strerror(errno));
			ret = EXIT_FAIL;
			goto out;
		}
	}
	if (c.records) {
		uint64_t until = now_ns() + c.wait_s * 1000000000ull;
		unsigned int bad;

		/*
		 * The file may still be being written (rtmond writes a line per
		 * record; rtmonctl's output is buffered until it exits): wait
		 * until it holds a record for every edge of the responder's
		 * log, or --wait seconds.
		 */
		for (;;) {
			recs = read_jsonl(c.records, &bad);
			if (!recs && errno != ENOENT) {
				fprintf(stderr, "%s: --records %s: %s\n", prog,
					c.records, strerror(errno));
				ret = EXIT_FAIL;
				goto out;
			}
			if (recs && (!rlog || records_complete(&c, recs, rlog, E[1].stim_ns)))
				break;
			if (now_ns() > until || stop)
				break;
			json_decref(recs);
			recs = NULL;
			usleep(200000);
		}
		if (!recs) {
			fprintf(stderr, "%s: --records %s: %s\n", prog, c.records,
				strerror(ENOENT));
			ret = EXIT_FAIL;
			goto out;
		}
		if (bad)
			fprintf(stderr, "%s: --records %s: %u lines that are not JSON objects skipped\n",
				prog, c.records, bad);
	}

	{
		uint64_t *lat = calloc(c.count + 1, sizeof(uint64_t));
		uint64_t *rlat = calloc(c.count + 1, sizeof(uint64_t));
		uint64_t *wire = calloc(c.count + 1, sizeof(uint64_t));
		uint64_t n = 0, nr = 0, nw = 0, win_lo, win_hi, unmapped = 0;
		uint64_t missing = 0, dups = 0, extra = 0, nocookie = 0, joined = 0;
		uint64_t timeouts = 0, start_bad = 0, end_bad = 0, window_bad = 0;
		uint64_t irq_bad = 0;
		uint64_t not_answered = 0;
		int64_t dstart_min = INT64_MAX, dstart_max = INT64_MIN;
		int64_t dend_max = 0;
		uint64_t dend_max_abs = 0;
		struct stats st, rst, wst;
		struct rtmon_hist *h;
		json_t *out, *jmiss_d, *jmiss_r, *jprov, *jboth, *jedges, *jslow;
		json_t *jextra, *jjoin = NULL, *jhist;
		size_t k, ri;
		uint64_t *order;
		int join_ok = 1;

		h = malloc(sizeof(*h));
		if (!lat || !rlat || !wire || !h) {
			fprintf(stderr, "%s: out of memory\n", prog);
			ret = EXIT_FAIL;
			goto out;
		}
		rtmon_hist_init(h);
		for (i = 1; i <= c.count; i++) {
			if (E[i].lost)
				continue;
			lat[n++] = E[i].resp_ns - E[i].stim_ns;
			rtmon_hist_add(h, E[i].resp_ns - E[i].stim_ns);
		}

		/* map the responder's edges to the stimuli: edge i's input edge
		 * lies in [stim_i, stim_i+1) */
		if (rlog) {
			json_t *le;

			k = 1;
			json_array_foreach(rlog, ri, le) {
				uint64_t ts = ju64(le, "edge_ns");

				while (k <= c.count && k < c.count &&
				       ts >= E[k + 1].stim_ns)
					k++;
				if (k > c.count || ts < E[k].stim_ns || E[k].rlog) {
					unmapped++;
					continue;
				}
				E[k].rlog = le;
				wire[nw++] = ts - E[k].stim_ns;
			}
			for (i = 1; i <= c.count; i++)
				if (!E[i].rlog)
					not_answered++;
		}

		/* join rtmon's records by cookie = the responder's seq */
		jextra = json_array();
		if (recs && rlog) {
			uint64_t maxseq = json_array_size(rlog) + 1;
			json_t **byseq = calloc(maxseq + 1, sizeof(json_t *));
			json_t *rec;

			win_lo = E[1].stim_ns;
			win_hi = now_ns();
			/* by seq */
			for (i = 1; i <= c.count; i++)
				if (E[i].rlog) {
					uint64_t s = ju64(E[i].rlog, "seq");

					if (s <= maxseq)
						byseq[s] = (json_t *)&E[i];
				}
			json_array_foreach(recs, ri, rec) {
				json_t *ck = json_object_get(rec, "cookie");
				struct dedge *e;
				uint64_t s;

				if (!rec_ours(&c, rec, win_lo) ||
				    ju64(rec, "start_ns") > win_hi)
					continue;	/* another target's, run's */
				if (jhas_flag(rec, "timeout")) {
					timeouts++;
					s = ju64(rec, "cookie");
					if (ck && s <= maxseq && byseq[s])
						((struct dedge *)byseq[s])->ntimeout++;
					continue;
				}
				if (!json_is_integer(ck)) {
					nocookie++;
					json_array_append(jextra, rec);
					continue;
				}
				s = (uint64_t)json_integer_value(ck);
				e = s <= maxseq ? (struct dedge *)byseq[s] : NULL;
				if (!e) {
					extra++;
					json_array_append(jextra, rec);
					continue;
				}
				if (e->nrec++) {
					dups++;
					continue;
				}
				e->rec = rec;
			}
			free(byseq);

			for (i = 1; i <= c.count; i++) {
				struct dedge *e = &E[i];
				int64_t ds, de;
				uint64_t rs, re;

				if (!e->rlog)
					continue;
				if (!e->rec) {
					missing++;
					continue;
				}
				joined++;
				rs = ju64(e->rec, "start_ns");
				re = ju64(e->rec, "end_ns");
				rlat[nr++] = re - rs;
				ds = (int64_t)(ju64(e->rlog, "edge_ns") - rs);
				if (ds < dstart_min)
					dstart_min = ds;
				if (ds > dstart_max)
					dstart_max = ds;
				if (ds < 0 || (uint64_t)ds > c.bound_us * 1000)
					start_bad++;
				if (ds < 0 || ju64(e->rlog, "edge_ns") > irq_window_end(e->rec))
					irq_bad++;
				/* the end between the reads around the marker */
				if (re + c.end_slack_ns < ju64(e->rlog, "end_ns"))
					de = (int64_t)(re - ju64(e->rlog, "end_ns"));
				else if (re > ju64(e->rlog, "end_after_ns") + c.end_slack_ns)
					de = (int64_t)(re - ju64(e->rlog, "end_after_ns"));
				else
					de = 0;
				if (de) {
					end_bad++;
					if ((uint64_t)llabs(de) > dend_max_abs) {
						dend_max_abs = (uint64_t)llabs(de);
						dend_max = de;
					}
				}
				if (rs < e->stim_ns || (!e->lost && re > e->resp_ns))
					window_bad++;
			}
			if (missing || dups || extra || nocookie || irq_bad ||
			    end_bad || window_bad || not_answered || unmapped)
				join_ok = 0;
			/* the bound: all edges, or --bound-pct of them */
			if (joined && (double)(joined - start_bad) * 100.0 <
			    c.bound_pct * (double)joined)
				join_ok = 0;
		} else if (rlog) {
			if (not_answered || unmapped)
				join_ok = 0;
		}

		stats_of(lat, n, &st);
		stats_of(rlat, nr, &rst);
		stats_of(wire, nw, &wst);

		/* misses */
		jmiss_d = json_array();
		jmiss_r = json_array();
		jprov = json_array();
		jboth = json_array();
		{
			uint64_t dmiss = 0, rmiss = 0, rmiss_not_d = 0, prov_not_both = 0;

			for (i = 1; i <= c.count; i++) {
				struct dedge *e = &E[i];
				/* a lost edge (no response within --timeout-us) is a miss */
				int dm = c.deadline_us && (e->lost ||
					 e->resp_ns - e->stim_ns > c.deadline_us * 1000);
				int rm = e->rec && jhas_flag(e->rec, "deadline_miss");
				int pv = e->rlog && json_is_true(json_object_get(e->rlog, "provoked"));

				if (dm) {
					dmiss++;
					json_array_append_new(jmiss_d, json_integer((json_int_t)i));
				}
				if (rm) {
					rmiss++;
					json_array_append_new(jmiss_r, json_integer((json_int_t)i));
					if (!dm)
						rmiss_not_d++;
				}
				if (pv) {
					json_array_append_new(jprov, json_integer((json_int_t)i));
					if (!(dm && (rm || !recs)))
						prov_not_both++;
				}
				if (dm && rm)
					json_array_append_new(jboth, json_integer((json_int_t)i));
			}
			if (rmiss_not_d)
				join_ok = 0;
			if (c.fail_on_miss && dmiss)
				ret = EXIT_FAIL;
			if (lost)
				ret = EXIT_FAIL;
			if ((rlog || recs) && !join_ok)
				ret = EXIT_FAIL;

			/* the K slowest edges (by the driver's response time) */
			order = calloc(c.count + 1, sizeof(*order));
			for (i = 1, k = 0; i <= c.count; i++)
				if (!E[i].lost)
					order[k++] = ((E[i].resp_ns - E[i].stim_ns) << 24) | i;
			qsort(order, k, sizeof(*order), cmp_u64);
			jslow = json_array();
			{
				size_t m;

				for (m = 0; m < c.slowest && m < k; m++) {
					uint64_t idx = order[k - 1 - m] & 0xffffff;
					struct dedge *e = &E[idx];
					struct breakdown b;
					json_t *o;

					o = json_pack("{s:I, s:I}", "edge", (json_int_t)idx,
						      "response_ns", (json_int_t)(e->resp_ns - e->stim_ns));
					if (e->rlog)
						json_object_set_new(o, "cookie", json_integer((json_int_t)ju64(e->rlog, "seq")));
					if (e->rec) {
						breakdown_of(&c, e, &b);
						json_object_set_new(o, "rtmon_latency_ns",
							json_integer((json_int_t)(ju64(e->rec, "end_ns") - ju64(e->rec, "start_ns"))));
						json_object_set(o, "record_seq", json_object_get(e->rec, "seq"));
						json_object_set_new(o, "breakdown", json_pack("{s:I, s:I, s:I, s:I, s:I}",
							"stimulus_to_irq_ns", (json_int_t)b.stim_irq,
							"irq_to_irq_thread_ns", (json_int_t)b.irq_thread,
							"irq_thread_to_responder_ns", (json_int_t)b.to_resp,
							"responder_to_work_end_ns", (json_int_t)b.work,
							"work_end_to_response_ns", (json_int_t)b.end_resp));
						json_object_set_new(o, "path", json_string(b.path));
					}
					json_array_append_new(jslow, o);
				}
			}

			if (c.hist_out) {
				json_t *hb = json_array(), *ho;

				for (k = 0; k < RTMON_HIST_NBUCKETS; k++)
					if (h->b[k])
						json_array_append_new(hb, json_pack("[I, I]",
							(json_int_t)k, (json_int_t)h->b[k]));
				ho = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
					"name", "gpio-loopback",
					"count", (json_int_t)st.n, "misses", (json_int_t)dmiss,
					"timeouts", (json_int_t)lost,
					"min_ns", (json_int_t)st.min, "avg_ns", (json_int_t)st.avg,
					"p99_ns", (json_int_t)st.p99, "max_ns", (json_int_t)st.max,
					"deadline_ns", (json_int_t)(c.deadline_us * 1000),
					"buckets", hb);
				if (json_dump_file(ho, c.hist_out, JSON_INDENT(1))) {
					fprintf(stderr, "%s: --hist-out %s: cannot write it\n",
						prog, c.hist_out);
					ret = EXIT_FAIL;
				}
				json_decref(ho);
			}

			jhist = json_array();
			for (k = 0; k < RTMON_HIST_NBUCKETS; k++)
				if (h->b[k])
					json_array_append_new(jhist, json_pack("{s:I, s:I, s:I}",
						"lo_ns", (json_int_t)rtmon_hist_bucket_lo(k),
						"hi_ns", (json_int_t)(k == RTMON_HIST_NBUCKETS - 1 ? -1 :
							(json_int_t)rtmon_hist_bucket_hi(k)),
						"count", (json_int_t)h->b[k]));

			if (recs && rlog)
				jjoin = json_pack("{s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:o, s:o}",
					"source", c.rtmon ? "rtmon" : c.records,
					"ok", join_ok,
					"edges", (json_int_t)c.count,
					"responder_edges", (json_int_t)json_array_size(rlog),
					"not_answered", (json_int_t)not_answered,
					"unmapped_responder_edges", (json_int_t)unmapped,
					"joined", (json_int_t)joined,
					"missing", (json_int_t)missing,
					"duplicate", (json_int_t)dups,
					"extra", (json_int_t)extra,
					"no_cookie", (json_int_t)nocookie,
					"timeout_reports", (json_int_t)timeouts,
					"bound_ns", (json_int_t)(c.bound_us * 1000),
					"start_outside_bound", (json_int_t)start_bad,
					"bound_pct", c.bound_pct,
					"edge_outside_irq", (json_int_t)irq_bad,
					"end_outside_marker", (json_int_t)end_bad,
					"end_max_deviation_ns", (json_int_t)dend_max,
					"outside_driver_window", (json_int_t)window_bad,
					"rtmon_miss_not_driver_miss", (json_int_t)rmiss_not_d,
					"edge_minus_start_ns", joined ?
						json_pack("{s:I, s:I}", "min", (json_int_t)dstart_min,
							  "max", (json_int_t)dstart_max) : json_null(),
					"rtmon_latency", stats_json(&rst));
			else if (rlog)
				jjoin = json_pack("{s:s, s:b, s:I, s:I, s:I}",
					"source", "none", "ok", join_ok,
					"responder_edges", (json_int_t)json_array_size(rlog),
					"not_answered", (json_int_t)not_answered,
					"unmapped_responder_edges", (json_int_t)unmapped);

			if (c.json) {
				out = json_pack("{s:{s:s, s:s, s:I, s:I, s:s?, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:s, s:I}, s:o, s:o, s:{s:I, s:I, s:I, s:I}, s:o, s:{s:o, s:o, s:o, s:o, s:I, s:I}, s:o}",
					"config",
					"chip", gl_chip_name(chip), "label", gl_chip_label(chip),
					"out", (json_int_t)out_off, "in", (json_int_t)in_off,
					"board", c.board,
					"count", (json_int_t)c.count,
					"period_us", (json_int_t)(c.random ? 0 : c.period_us),
					"random_min_us", (json_int_t)(c.random ? c.rnd_min : 0),
					"random_max_us", (json_int_t)(c.random ? c.rnd_max : 0),
					"deadline_us", (json_int_t)c.deadline_us,
					"timeout_us", (json_int_t)c.timeout_us,
					"bound_us", (json_int_t)c.bound_us,
					"rtmon", c.rtmon, "backend", gl_backend(),
					"prio", (json_int_t)c.prio,
					"stats", stats_json(&st),
					"stimulus_to_input_edge", stats_json(&wst),
					"edges",
					"sent", (json_int_t)c.count, "lost", (json_int_t)lost,
					"late", (json_int_t)late, "overruns", (json_int_t)overruns,
					"histogram", jhist,
					"misses",
					"driver", jmiss_d, "rtmon", jmiss_r, "provoked", jprov,
					"both", jboth, "driver_count", (json_int_t)dmiss,
					"rtmon_count", (json_int_t)rmiss,
					"slowest", jslow);
				if (jjoin)
					json_object_set_new(out, "join", jjoin);
				if (json_array_size(jextra))
					json_object_set(out, "extra_records", jextra);
				if (c.edges) {
					jedges = json_array();
					for (i = 1; i <= c.count; i++) {
						struct dedge *e = &E[i];
						json_t *o = json_pack("{s:I, s:I, s:b}",
							"edge", (json_int_t)i,
							"stim_ns", (json_int_t)e->stim_ns,
							"lost", e->lost);

						if (!e->lost) {
							json_object_set_new(o, "resp_ns", json_integer((json_int_t)e->resp_ns));
							json_object_set_new(o, "response_ns", json_integer((json_int_t)(e->resp_ns - e->stim_ns)));
						}
						if (e->rlog) {
							json_object_set(o, "cookie", json_object_get(e->rlog, "seq"));
							json_object_set(o, "edge_ns", json_object_get(e->rlog, "edge_ns"));
							json_object_set(o, "work_end_ns", json_object_get(e->rlog, "end_ns"));
							json_object_set(o, "provoked", json_object_get(e->rlog, "provoked"));
						}
						if (e->rec) {
							json_object_set(o, "rtmon_seq", json_object_get(e->rec, "seq"));
							json_object_set(o, "rtmon_start_ns", json_object_get(e->rec, "start_ns"));
							json_object_set(o, "rtmon_end_ns", json_object_get(e->rec, "end_ns"));
							json_object_set_new(o, "rtmon_miss", json_boolean(jhas_flag(e->rec, "deadline_miss")));
						}
						if (e->nrec > 1)
							json_object_set_new(o, "rtmon_records", json_integer(e->nrec));
						json_array_append_new(jedges, o);
					}
					json_object_set_new(out, "edges_list", jedges);
				}
				json_object_set_new(out, "ok", json_boolean(ret == EXIT_OK));
				json_dumpf(out, stdout, JSON_INDENT(1));
				putchar('\n');
				json_decref(out);
			} else {
				char a[32], b2[32], cc[32], d[32], e2[32], f2[32];
				size_t m;

				printf("GPIO loopback: %s (%s) out %u -> in %u, %" PRIu64 " edges, %s %" PRIu64 " us, deadline %" PRIu64 " us\n",
				       gl_chip_name(chip), gl_chip_label(chip), out_off, in_off,
				       c.count, c.random ? "random period from" : "period",
				       c.random ? c.rnd_min : c.period_us, c.deadline_us);
				printf("edges: %" PRIu64 " sent, %" PRIu64 " answered, %" PRIu64 " lost (no response within %" PRIu64 " us), %" PRIu64 " late, %" PRIu64 " overruns\n",
				       c.count, n, lost, c.timeout_us, late, overruns);
				stats_print("response time (stimulus -> response edge)", &st);
				if (nw)
					stats_print("stimulus -> responder's input edge", &wst);
				if (st.n) {
					printf("histogram (response time):\n");
					rtmon_hist_print(stdout, h, c.hist_rows, 50,
							 c.deadline_us * 1000);
				}
				if (recs)
					printf("misses (> %" PRIu64 " us, or lost): driver %" PRIu64 ", rtmon %" PRIu64 ", both %zu, provoked %zu\n",
					       c.deadline_us, dmiss, rmiss, json_array_size(jboth),
					       json_array_size(jprov));
				else
					printf("misses (> %" PRIu64 " us, or lost): %" PRIu64 ", provoked %zu\n",
					       c.deadline_us, dmiss, json_array_size(jprov));
				if (json_array_size(jmiss_d)) {
					json_t *v;

					printf("  driver misses (edge):");
					json_array_foreach(jmiss_d, m, v) {
						if (m == 20) {
							printf(" ...");
							break;
						}
						printf(" %" JSON_INTEGER_FORMAT, json_integer_value(v));
					}
					putchar('\n');
				}
				if (rlog && !recs)
					printf("responder: %zu edges logged, %" PRIu64 " stimuli without, %" PRIu64 " not matching a stimulus\n",
					       json_array_size(rlog), not_answered, unmapped);
				if (recs && rlog) {
					printf("join with rtmon (%s): %s\n", c.rtmon ? "/dev/rtmon" : c.records,
					       join_ok ? "OK" : "FAILED");
					printf("  %" PRIu64 " joined, %" PRIu64 " missing, %" PRIu64 " duplicate, %" PRIu64 " extra, %" PRIu64 " without cookie, %" PRIu64 " overdue reports\n",
					       joined, missing, dups, extra, nocookie, timeouts);
					if (not_answered || unmapped)
						printf("  responder: %" PRIu64 " stimuli without its edge, %" PRIu64 " of its edges match no stimulus\n",
						       not_answered, unmapped);
					if (joined)
						printf("  edge timestamp - rtmon start: min %s max %s (bound %" PRIu64 " us for %g%% of the edges): %" PRIu64 " outside\n",
						       fmt_sns(a, sizeof(a), dstart_min),
						       fmt_sns(b2, sizeof(b2), dstart_max), c.bound_us,
						       c.bound_pct, start_bad);
					printf("  edge timestamp outside rtmon's hard IRQ (IRQ entry .. IRQ thread wake-up): %" PRIu64 "\n",
					       irq_bad);
					printf("  rtmon end vs the responder's work_end: %" PRIu64 " outside the marker window%s%s\n",
					       end_bad, end_bad ? ", worst by " : "",
					       end_bad ? fmt_sns(cc, sizeof(cc), (int64_t)dend_max_abs) : "");
					printf("  chains outside the driver's window: %" PRIu64 ", rtmon misses the driver did not see: %" PRIu64 "\n",
					       window_bad, rmiss_not_d);
					stats_print("  rtmon latency (IRQ -> work_end)", &rst);
				}
				if (json_array_size(jslow)) {
					json_t *o;

					printf("slowest edges:%s\n", recs ? "  (stimulus->irq | irq->irq thread | irq thread->responder | responder->work_end | work_end->response)" : "");
					json_array_foreach(jslow, m, o) {
						json_t *bd = json_object_get(o, "breakdown");

						printf("  edge %" JSON_INTEGER_FORMAT " response %s",
						       json_integer_value(json_object_get(o, "edge")),
						       rtmon_fmt_ns(a, sizeof(a), ju64(o, "response_ns")));
						if (bd)
							printf("  rtmon %s: %s | %s | %s | %s | %s\n    %s",
							       rtmon_fmt_ns(b2, sizeof(b2), ju64(o, "rtmon_latency_ns")),
							       fmt_sns(cc, sizeof(cc), json_integer_value(json_object_get(bd, "stimulus_to_irq_ns"))),
							       fmt_sns(d, sizeof(d), json_integer_value(json_object_get(bd, "irq_to_irq_thread_ns"))),
							       fmt_sns(e2, sizeof(e2), json_integer_value(json_object_get(bd, "irq_thread_to_responder_ns"))),
							       fmt_sns(f2, sizeof(f2), json_integer_value(json_object_get(bd, "responder_to_work_end_ns"))),
							       fmt_sns(a, sizeof(a), json_integer_value(json_object_get(bd, "work_end_to_response_ns"))),
							       json_string_value(json_object_get(o, "path")));
						putchar('\n');
					}
				}
				printf("result: %s\n", ret == EXIT_OK ? "OK" : "FAILED");
				json_decref(jmiss_d);
				json_decref(jmiss_r);
				json_decref(jprov);
				json_decref(jboth);
				json_decref(jslow);
				json_decref(jhist);
				json_decref(jjoin);
			}
		}
		json_decref(jextra);
		free(order);
		free(lat);
		free(rlat);
		free(wire);
		free(h);
	}
out:
	json_decref(rlog);
	json_decref(recs);
	gl_chip_close(chip);
	free(E);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * records.c - rtmonctl records: chain records as the module hands them out,
 * and a summary of them at exit (for CI: --duration, --fail-on-miss).
 */
#define _GNU_SOURCE		/* ppoll */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "rtmon/rtmon.h"
#include "rtmon_format.h"
#include "rtmon_summary.h"
#include "rtmonctl.h"

#define RTMON_MAX_TARGET_IDS	RTMON_SUMMARY_IDS	/* >= the module's max_targets */

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

const char records_usage[] =
	"usage: rtmonctl records [-n COUNT] [-t SECONDS] [-d DURATION] [-s|--stamp]\n"
	"                        [-m|--misses] [-q|--quiet] [--summary] [--fail-on-miss]\n"
	"                        [--json]\n"
	"Print chain records as the module hands them out (one reader at a time: not\n"
	"while rtmond runs; then use 'rtmonctl misses', 'hist' and 'show').\n"
	"  -n, --count COUNT      stop after COUNT records were printed\n"
	"  -t, --timeout SECONDS  stop after SECONDS without a record (default 1; with\n"
	"                         --duration: none)\n"
	"  -d, --duration DURATION  stop after DURATION (a unit: 30s, 10min, 500ms)\n"
	"  -s, --stamp            add the time each record was read (read_ns)\n"
	"  -m, --misses           print deadline misses and timeouts only\n"
	"  -q, --quiet            print no records, only the summary\n"
	"      --summary          with --json: end with one {\"summary\": ...} line\n"
	"      --fail-on-miss     exit 3 when any record read was a miss or a timeout\n"
	"At exit (also on SIGINT or SIGTERM) a summary of every record read follows:\n"
	"per target its count, misses, timeouts and latency min/avg/max/p99/p99.9 in us.\n"
	"Exit status: 0, 1 a failure, 2 bad usage, 3 a miss with --fail-on-miss.\n";

static volatile sig_atomic_t records_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	records_stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int is_miss(const struct rtm_record *rec)
{
	return !!(rec->flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT));
}

static void print_record(const struct rtm_record *rec, int json, int stamp,
			 int64_t wall_off_ns)
{
	if (json) {
		json_t *o = rtmon_record_json(rec, target_name(rec->target_id));

		/* its end on CLOCK_REALTIME, as in rtmond's files */
		json_object_set_new(o, "wall_ns",
				    json_integer((json_int_t)(rec->end_ns + (uint64_t)wall_off_ns)));
		if (stamp)	/* when the reader got it */
			json_object_set_new(o, "read_ns",
					    json_integer((json_int_t)(now_s() * 1e9)));
		json_out(o);
	} else {
		rtmon_record_print(stdout, rec, target_name(rec->target_id));
	}
}

static double parse_seconds(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0))
		usage_error("bad %s '%s' (seconds)", what, s);
	return v;
}

/*
 * Read records until COUNT were printed, SECONDS passed with none, the
 * DURATION ended or a signal came; then the summary.
 */
int cmd_records(int argc, char **argv, int json)
{
	enum { OPT_SUMMARY = 256, OPT_FAIL_ON_MISS };
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "duration", required_argument, NULL, 'd' },
		{ "stamp", no_argument, NULL, 's' },
		{ "misses", no_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "fail-on-miss", no_argument, NULL, OPT_FAIL_ON_MISS },
		{ 0 }
	};
	struct sigaction sa = { .sa_handler = on_stop_signal };
	sigset_t stops, waiting;
	int stamp = 0, misses_only = 0, quiet = 0, summary = !json, fail_on_miss = 0;
	double timeout = -1, idle_end, end_at = 0;
	struct rtmon_summary sum = { 0 };
	double start_s;
	struct rtm_record recs[16];
	long count = -1, printed = 0;
	uint64_t missed = 0, dur_ns;
	int64_t wall_off;
	struct rtmon *r;
	int c, n, i;
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "n:t:d:smq", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			errno = 0;
			count = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || count < 1)
				usage_error("bad count '%s'", optarg);
			break;
		case 't':
			timeout = parse_seconds(optarg, "timeout");
			break;
		case 'd':
			if (rtmon_parse_duration(optarg, &dur_ns) || !dur_ns)
				usage_error("bad duration '%s' (a number with a unit: 30s, 10min, 500ms)",
					    optarg);
			end_at = (double)dur_ns / 1e9;
			break;
		case 's':
			stamp = 1;
			break;
		case 'm':
			misses_only = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case OPT_SUMMARY:
			summary = 1;
			break;
		case OPT_FAIL_ON_MISS:
			fail_on_miss = 1;
			break;
		default:
			usage_hint();
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (timeout < 0 && !end_at)
		timeout = 1;
	r = open_dev();
	if (rtmon_set_nonblock(r, 1))
		fail(errno, "fcntl");
	load_target_names(r);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/*
	 * the stop signals come only inside the wait (ppoll), so none falls
	 * between the loop's test and the wait; one held back while records
	 * stream is seen pending
	 */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_BLOCK, &stops, &waiting);
	start_s = now_s();
	if (end_at)
		end_at += start_s;
	idle_end = start_s + timeout;
	while (!records_stop && (count < 0 || printed < count)) {
		struct pollfd p = { .fd = rtmon_fd(r), .events = POLLIN };
		double t = now_s(), stop = end_at;	/* 0: none */

		if (end_at && t >= end_at)
			break;
		if (timeout >= 0 && (!stop || idle_end < stop))
			stop = idle_end;
		n = rtmon_read_records(r, recs, count < 0 || count - printed > 16 ?
				       16 : (size_t)(count - printed));
		if (n == -EAGAIN) {
			if (stop && t >= stop)
				break;
			if (stop) {
				double w = stop - t + 0.001;
				struct timespec ts = { (time_t)w,
					(long)((w - (double)(time_t)w) * 1e9) };

				ppoll(&p, 1, &ts, &waiting);
			} else {
				ppoll(&p, 1, NULL, &waiting);
			}
			continue;
		}
		if (n == -EBUSY)
			fail(0, "another process (rtmond?) is reading the records; "
			     "with rtmond use 'rtmonctl misses', 'hist' and 'show'");
		if (n == -EPERM)
			fail(0, "reading the records needs CAP_PERFMON or CAP_SYS_ADMIN (the device's group may only mark work)");
		if (n < 0)
			fail(-n, "reading records failed");
		wall_off = rtmon_wall_offset_ns();
		for (i = 0; i < n; i++) {
			if (rtmon_summary_add(&sum, &recs[i]))
				fail(ENOMEM, "records");
			missed += is_miss(&recs[i]);
			if (misses_only && !is_miss(&recs[i]))
				continue;
			printed++;
			if (!quiet)
				print_record(&recs[i], json, stamp, wall_off);
		}
		idle_end = now_s() + timeout;
		if (!records_stop) {
			sigset_t pend;

			records_stop = !sigpending(&pend) &&
				       (sigismember(&pend, SIGINT) == 1 ||
					sigismember(&pend, SIGTERM) == 1);
		}
	}
	/* a stop signal held back is taken now, by the handler */
	sigprocmask(SIG_SETMASK, &waiting, NULL);
	if (json && (summary || quiet))
		json_out(rtmon_summary_json(&sum, now_s() - start_s, target_name));
	else if (summary || quiet)
		rtmon_summary_text(stdout, &sum, now_s() - start_s, target_name);
	fflush(stdout);
	rtmon_summary_free(&sum);
	rtmon_close(r);
	return fail_on_miss && missed ? 3 : 0;
}

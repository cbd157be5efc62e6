// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - Prometheus text exposition: module counters
 * (RTMON_IOC_COUNTERS), rtmond's own counters and per-target latency
 * histograms (_bucket{le}, _sum, _count) plus quantile gauges, served by
 * libmicrohttpd on the configured ADDRESS:PORT (loopback by default)
 * and/or written atomically as a node_exporter textfile.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

#include "rtmond.h"

static struct MHD_Daemon *mhd;
#define METRICS_RETRY_S	5	/* a failed listen is tried again this often */

struct buf {
	char *p;
	size_t len, cap;
};

static void __attribute__((format(printf, 2, 3))) bput(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (b->p && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		b->cap = (b->cap + (size_t)n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
}

static void counter(struct buf *b, const char *name, const char *help, uint64_t v)
{
	bput(b, "# HELP %s %s\n# TYPE %s counter\n%s %" PRIu64 "\n", name, help, name, name, v);
}

__thread int rtmond_rcu_registered;

/*
 * The time of the explained misses' parts, per target and category
 * (explain_job.c, in the snapshot worker). A fixed table: a category of a
 * target beyond it is left out of the metric (logged once).
 */
#define CAUSE_MAX	512
static pthread_mutex_t cause_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char target[RTMON_NAME_LEN];
	char category[24];
	uint64_t ns;
} causes[CAUSE_MAX];
static unsigned int ncauses;

void rtmond_metrics_cause_add(const char *target, const char *category, uint64_t ns)
{
	static int full_logged;
	unsigned int i;

	pthread_mutex_lock(&cause_lock);
	for (i = 0; i < ncauses; i++)
		if (!strcmp(causes[i].target, target) && !strcmp(causes[i].category, category))
			break;
	if (i == ncauses) {
		if (ncauses == CAUSE_MAX) {
			if (!full_logged++)
				rtmond_log("metrics: more than %d target/category pairs of miss causes", CAUSE_MAX);
			pthread_mutex_unlock(&cause_lock);
			return;
		}
		snprintf(causes[i].target, sizeof(causes[i].target), "%s", target);
		snprintf(causes[i].category, sizeof(causes[i].category), "%s", category);
		ncauses++;
	}
	causes[i].ns += ns;
	pthread_mutex_unlock(&cause_lock);
}

/* A label value as the exposition format wants it: \\, \" and \n escaped. */
static const char *label_esc(char *out, size_t len, const char *in)
{
	size_t o = 0;

	for (; *in && o + 3 < len; in++) {
		if (*in == '\\' || *in == '"') {
			out[o++] = '\\';
			out[o++] = *in;
		} else if (*in == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			out[o++] = *in;
		}
	}
	out[o] = 0;
	return out;
}

static void causes_put(struct buf *b)
{
	char t[2 * RTMON_NAME_LEN + 4];
	unsigned int i;

	bput(b, "# HELP rtmon_miss_cause_seconds_total Time of explained misses by target and category (rtmonctl explain).\n"
		"# TYPE rtmon_miss_cause_seconds_total counter\n");
	pthread_mutex_lock(&cause_lock);
	for (i = 0; i < ncauses; i++)
		bput(b, "rtmon_miss_cause_seconds_total{target=\"%s\",category=\"%s\"} %.9f\n",
		     label_esc(t, sizeof(t), causes[i].target), causes[i].category,
		     (double)causes[i].ns / 1e9);
	pthread_mutex_unlock(&cause_lock);
}

char *rtmond_metrics_text(size_t *len)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999, 1.0 };
	struct rtmon_counters c;
	struct buf b = { 0 };
	struct rtmond_live *live;
	struct rtmon_hist *h;
	unsigned int i, j;
	int reg = !rtmond_rcu_registered;
	char what[96];

	h = malloc(sizeof(*h));
	if (!h)
		return NULL;
	/* the HTTP thread registers for the time of one scrape */
	if (reg)
		urcu_memb_register_thread();
	if (!rtmon_counters(rtmond_dev, &c)) {
		counter(&b, "rtmon_chains_started_total", "Chains the module started.", c.chains_started);
		counter(&b, "rtmon_chains_completed_total", "Chains that reached a target's end.", c.chains_completed);
		counter(&b, "rtmon_chains_abandoned_total", "Chains whose branches all ended before a target.", c.chains_abandoned);
		counter(&b, "rtmon_chains_expired_total", "Chains reclaimed after max_age_ms.", c.chains_expired);
		counter(&b, "rtmon_chains_overdue_total", "Chains reported open past their deadline.", c.chains_overdue);
		counter(&b, "rtmon_deadline_misses_total", "Chains completed past their deadline.", c.deadline_misses);
		counter(&b, "rtmon_records_emitted_total", "Records the module emitted.", c.records_emitted);
		counter(&b, "rtmon_records_read_total", "Records read from the module.", c.records_read);
		counter(&b, "rtmon_records_skipped_total", "Records of misses-only targets that met their deadline (not emitted).", c.records_skipped);
		bput(&b, "# HELP rtmon_drops_total Events or records the module dropped, by cause.\n"
			 "# TYPE rtmon_drops_total counter\n");
		bput(&b, "rtmon_drops_total{cause=\"ring_full\"} %llu\n", c.drop_ring_full);
		bput(&b, "rtmon_drops_total{cause=\"no_chain\"} %llu\n", c.drop_no_chain);
		bput(&b, "rtmon_drops_total{cause=\"no_branch\"} %llu\n", c.drop_no_branch);
		bput(&b, "rtmon_drops_total{cause=\"task_table\"} %llu\n", c.drop_task_table);
		bput(&b, "rtmon_drops_total{cause=\"cookie_table\"} %llu\n", c.drop_cookie_table);
		bput(&b, "rtmon_drops_total{cause=\"hops\"} %llu\n", c.drop_hops);
		/* interrupts coalesced into their thread's pass, or whose
		 * thread wakeup never came: chains of their own lost */
		bput(&b, "rtmon_drops_total{cause=\"irq_coalesced\"} %llu\n", c.irq_coalesced);
		bput(&b, "rtmon_drops_total{cause=\"irq_nowake\"} %llu\n", c.irq_nowake);
		bput(&b, "rtmon_drops_total{cause=\"work_untraced\"} %llu\n", c.work_untraced);
		counter(&b, "rtmon_irq_rerun_total", "Interrupts that found their thread awake (chain followed to its next pass).", c.irq_rerun);
		counter(&b, "rtmon_work_handoff_total", "Work items a task took up from its IRQ thread with no traced wakeup (followed).", c.work_handoff);
		counter(&b, "rtmon_softirq_repoll_total", "Chains started at a softirq pass re-raised after its interrupt's chain completed (followed).", c.softirq_repoll);
	}
	counter(&b, "rtmond_records_total", "Records rtmond read.", CNT_GET(records));
	counter(&b, "rtmond_seq_gaps_total", "Gaps in the record sequence rtmond saw.", CNT_GET(seq_gaps));
	counter(&b, "rtmond_records_lost_total", "Records missing from the sequence.", CNT_GET(records_lost));
	counter(&b, "rtmond_records_reread_total",
		"Records read again after a restart, already stored: skipped.",
		CNT_GET(records_reread));
	counter(&b, "rtmond_misses_total", "Deadline misses and timeouts rtmond read.", CNT_GET(misses));
	bput(&b, "# HELP rtmond_snapshots_total Snapshots saved (kind) or skipped (reason).\n"
		 "# TYPE rtmond_snapshots_total counter\n");
	bput(&b, "rtmond_snapshots_total{kind=\"ftrace\"} %" PRIu64 "\n", CNT_GET(snap_ftrace));
	bput(&b, "rtmond_snapshots_total{kind=\"lttng\"} %" PRIu64 "\n", CNT_GET(snap_lttng));
	bput(&b, "rtmond_snapshots_total{kind=\"rate_limited\"} %" PRIu64 "\n", CNT_GET(snap_rate_limited));
	bput(&b, "rtmond_snapshots_total{kind=\"busy\"} %" PRIu64 "\n", CNT_GET(snap_busy));
	bput(&b, "rtmond_snapshots_total{kind=\"failed\"} %" PRIu64 "\n", CNT_GET(snap_failed));
	counter(&b, "rtmond_snapshots_deferred_total",
		"Snapshots taken once the worker was done with the one before (misses that found it busy).",
		CNT_GET(snap_deferred));
	counter(&b, "rtmond_snapshots_pruned_total",
		"Snapshot files removed by the disk budget (snapshot.max_disk, max_age).",
		CNT_GET(snap_pruned));
	counter(&b, "rtmond_write_errors_total",
		"Failed writes of misses.jsonl, records.jsonl or rtmond.seq (disk full, I/O error): tried again, nothing acknowledged until stored.",
		CNT_GET(write_errors));
	counter(&b, "rtmond_textfile_errors_total",
		"Writes of the metrics textfile refused or failed (its directory unsafe, something not a regular file at its .tmp name): logged once per reason.",
		CNT_GET(textfile_errors));
	bput(&b, "# HELP rtmond_lines_waiting Lines read and not stored while writes fail (0 when they work).\n"
		 "# TYPE rtmond_lines_waiting gauge\nrtmond_lines_waiting %" PRIu64 "\n",
	     rtmond_writer_waiting(what, sizeof(what)));
	bput(&b, "# HELP rtmond_metrics_listen_failing 1 while the HTTP endpoint cannot listen (tried again every %d s).\n"
		 "# TYPE rtmond_metrics_listen_failing gauge\nrtmond_metrics_listen_failing %d\n",
	     METRICS_RETRY_S, rtmond_metrics_listen_error(what, sizeof(what)));
	causes_put(&b);

	urcu_memb_read_lock();
	live = rcu_dereference(rtmond_live);
	if (live) {
		const struct rtmond_config *cf = &live->conf;
		char tn[2 * RTMON_NAME_LEN + 1];	/* a target name, escaped */

		bput(&b, "# HELP rtmon_target_records_total Records per target (completions and timeouts).\n"
			 "# TYPE rtmon_target_records_total counter\n");
		for (i = 0; i < cf->ntargets; i++) {
			struct rtmond_slot *s = &rtmond_slots[live->slot[i]];

			bput(&b, "rtmon_target_records_total{target=\"%s\"} %" PRIu64 "\n",
			     label_esc(tn, sizeof(tn), s->name), __atomic_load_n(&s->records, __ATOMIC_RELAXED));
		}
		bput(&b, "# HELP rtmon_target_misses_total Deadline misses per target (completions past the deadline).\n"
			 "# TYPE rtmon_target_misses_total counter\n");
		for (i = 0; i < cf->ntargets; i++) {
			struct rtmond_slot *s = &rtmond_slots[live->slot[i]];

			bput(&b, "rtmon_target_misses_total{target=\"%s\"} %" PRIu64 "\n",
			     label_esc(tn, sizeof(tn), s->name), __atomic_load_n(&s->misses, __ATOMIC_RELAXED));
		}
		bput(&b, "# HELP rtmon_target_timeouts_total Chains reported open past the deadline per target.\n"
			 "# TYPE rtmon_target_timeouts_total counter\n");
		for (i = 0; i < cf->ntargets; i++) {
			struct rtmond_slot *s = &rtmond_slots[live->slot[i]];

			bput(&b, "rtmon_target_timeouts_total{target=\"%s\"} %" PRIu64 "\n",
			     label_esc(tn, sizeof(tn), s->name), __atomic_load_n(&s->timeouts, __ATOMIC_RELAXED));
		}
		bput(&b, "# HELP rtmon_target_blame_seconds_total Time of completed chains per target by cause (the module's blame: it adds up to their latency).\n"
			 "# TYPE rtmon_target_blame_seconds_total counter\n");
		for (i = 0; i < cf->ntargets; i++) {
			struct rtmond_slot *s = &rtmond_slots[live->slot[i]];

			label_esc(tn, sizeof(tn), s->name);
			for (j = 0; j < RTM_BLAME_NR; j++)
				bput(&b, "rtmon_target_blame_seconds_total{target=\"%s\",category=\"%s\"} %.9f\n",
				     tn, rtmon_blame_name(j),
				     __atomic_load_n(&s->blame_ns[j], __ATOMIC_RELAXED) / 1e9);
		}
		bput(&b, "# HELP rtmon_target_deadline_seconds Deadline per target (0: none).\n"
			 "# TYPE rtmon_target_deadline_seconds gauge\n");
		for (i = 0; i < cf->ntargets; i++)
			bput(&b, "rtmon_target_deadline_seconds{target=\"%s\"} %.9f\n",
			     label_esc(tn, sizeof(tn), cf->targets[i].name), cf->targets[i].t.deadline_ns / 1e9);
		bput(&b, "# HELP rtmon_latency_seconds Chain latency per target (completed chains).\n"
			 "# TYPE rtmon_latency_seconds histogram\n");
		for (i = 0; i < cf->ntargets; i++) {
			struct rtmond_slot *s = &rtmond_slots[live->slot[i]];

			pthread_mutex_lock(&s->lock);
			memcpy(h, &s->hist, sizeof(*h));
			pthread_mutex_unlock(&s->lock);
			for (j = 0; j < cf->nle; j++)
				bput(&b, "rtmon_latency_seconds_bucket{target=\"%s\",le=\"%.9g\"} %" PRIu64 "\n",
				     label_esc(tn, sizeof(tn), s->name), cf->le_ns[j] / 1e9, rtmon_hist_count_below(h, cf->le_ns[j]));
			bput(&b, "rtmon_latency_seconds_bucket{target=\"%s\",le=\"+Inf\"} %" PRIu64 "\n",
			     label_esc(tn, sizeof(tn), s->name), h->count);
			bput(&b, "rtmon_latency_seconds_sum{target=\"%s\"} %.9f\n", label_esc(tn, sizeof(tn), s->name), h->sum_ns / 1e9);
			bput(&b, "rtmon_latency_seconds_count{target=\"%s\"} %" PRIu64 "\n", label_esc(tn, sizeof(tn), s->name), h->count);
		}
		/* a summary: the only type a quantile label belongs to (promtool check metrics) */
		bput(&b, "# HELP rtmon_latency_quantile_seconds Latency quantiles per target from rtmond's 1 us histogram (quantile 0 is the minimum, 1 the maximum).\n"
			 "# TYPE rtmon_latency_quantile_seconds summary\n");
		for (i = 0; i < cf->ntargets; i++) {
			struct rtmond_slot *s = &rtmond_slots[live->slot[i]];

			pthread_mutex_lock(&s->lock);
			memcpy(h, &s->hist, sizeof(*h));
			pthread_mutex_unlock(&s->lock);
			if (!h->count)
				continue;
			for (j = 0; j < sizeof(qs) / sizeof(qs[0]); j++)
				bput(&b, "rtmon_latency_quantile_seconds{target=\"%s\",quantile=\"%g\"} %.9f\n",
				     label_esc(tn, sizeof(tn), s->name), qs[j], rtmon_hist_percentile(h, qs[j] * 100) / 1e9);
			bput(&b, "rtmon_latency_quantile_seconds{target=\"%s\",quantile=\"0\"} %.9f\n",
			     label_esc(tn, sizeof(tn), s->name), h->min_ns / 1e9);
			bput(&b, "rtmon_latency_quantile_seconds_sum{target=\"%s\"} %.9f\n",
			     label_esc(tn, sizeof(tn), s->name), h->sum_ns / 1e9);
			bput(&b, "rtmon_latency_quantile_seconds_count{target=\"%s\"} %" PRIu64 "\n",
			     label_esc(tn, sizeof(tn), s->name), h->count);
		}
	}
	urcu_memb_read_unlock();
	if (reg)
		urcu_memb_unregister_thread();
	free(h);
	if (!b.p)
		bput(&b, "%s", "");
	*len = b.len;
	return b.p;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url,
			       const char *method, const char *version, const char *data,
			       size_t *data_size, void **state)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t len;
	char *text;

	(void)cls; (void)version; (void)data; (void)data_size; (void)state;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return MHD_NO;
	if (strcmp(url, "/metrics") && strcmp(url, "/")) {
		static char nf[] = "not found: try /metrics\n";

		resp = MHD_create_response_from_buffer(strlen(nf), nf, MHD_RESPMEM_PERSISTENT);
		ret = MHD_queue_response(conn, MHD_HTTP_NOT_FOUND, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	text = rtmond_metrics_text(&len);
	if (!text)
		return MHD_NO;
	resp = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(resp, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * libmicrohttpd's messages: while a start is tried (in that thread), kept
 * for the caller to say once; else logged.
 */
static __thread char *start_err;

static void mhd_logger(void *cls, const char *fm, va_list ap)
{
	char buf[256];
	size_t n;

	(void)cls;
	vsnprintf(buf, sizeof(buf), fm, ap);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	if (start_err) {
		if (!start_err[0])
			snprintf(start_err, 256, "%s", buf);
	} else {
		rtmond_log("metrics: %s", buf);
	}
}

/* The server on listen ("ADDRESS:PORT"), or NULL with why. */
static struct MHD_Daemon *listen_on(const char *listen, char why[256])
{
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	char host[128];
	const char *colon;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	int port;

	memset(&ss, 0, sizeof(ss));
	colon = strrchr(listen, ':');
	snprintf(host, sizeof(host), "%.*s", (int)(colon - listen), listen);
	port = atoi(colon + 1);
	if (host[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		host[strlen(host) - 1] = 0;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, host + 1, &s6->sin6_addr);
		flags |= MHD_USE_IPv6;
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, host, &s4->sin_addr);
	}
	why[0] = 0;
	start_err = why;
	d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, handler, NULL,
			     MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_LIMIT, 16u,
			     MHD_OPTION_CONNECTION_TIMEOUT, 10u,
			     /* mlockall() makes every stack page resident */
			     MHD_OPTION_THREAD_STACK_SIZE, (size_t)(256 * 1024),
			     MHD_OPTION_END);
	start_err = NULL;
	if (!d && !why[0])
		snprintf(why, 256, "libmicrohttpd did not start");
	return d;
}

/*
 * A listen that fails (the port taken by another process) leaves the
 * monitor running: a thread tries again every METRICS_RETRY_S, saying the
 * failure once per change and the success. It is started from the thread
 * that starts the server, so it and the server's thread have that one's
 * capabilities and policy.
 */
static pthread_mutex_t retry_lock = PTHREAD_MUTEX_INITIALIZER;	/* PI once started */
static pthread_cond_t retry_cond;	/* CLOCK_MONOTONIC */
static pthread_t retry_thread;
static int retrying, retry_stop;
static char retry_listen[sizeof(((struct rtmond_config *)0)->listen)];
static char listen_err[256];	/* "" when serving (or not configured) */

static void *retry_main(void *arg)
{
	struct MHD_Daemon *d = NULL;
	struct timespec ts;
	unsigned int tries = 1;
	char why[256];
	int changed;

	(void)arg;
	pthread_mutex_lock(&retry_lock);
	while (!retry_stop && !d) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += METRICS_RETRY_S;
		if (pthread_cond_timedwait(&retry_cond, &retry_lock, &ts) != ETIMEDOUT || retry_stop)
			continue;
		pthread_mutex_unlock(&retry_lock);
		d = listen_on(retry_listen, why);
		tries++;
		pthread_mutex_lock(&retry_lock);
		changed = d ? 1 : strcmp(why, listen_err);
		if (d)
			mhd = d;
		snprintf(listen_err, sizeof(listen_err), "%s", d ? "" : why);
		pthread_mutex_unlock(&retry_lock);
		if (d)
			rtmond_log("metrics: http://%s/metrics (listening after %u tries)",
				   retry_listen, tries);
		else if (changed)
			rtmond_log("metrics: cannot listen on %s: %s (trying again every %d s)",
				   retry_listen, why, METRICS_RETRY_S);
		pthread_mutex_lock(&retry_lock);
	}
	pthread_mutex_unlock(&retry_lock);
	return NULL;
}

int rtmond_metrics_start(const struct rtmond_config *c)
{
	static int once;
	char why[256];
	int err;

	if (!once++) {
		pthread_condattr_t ca;

		rtmond_pi_mutex_init(&retry_lock);	/* the reader's status reads it */
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&retry_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (!c->listen[0])
		return 0;
	mhd = listen_on(c->listen, why);
	if (mhd) {
		rtmond_log("metrics: http://%s/metrics", c->listen);
		return 0;
	}
	rtmond_log("metrics: cannot listen on %s: %s; trying again every %d s, records and "
		   "misses are stored meanwhile", c->listen, why, METRICS_RETRY_S);
	pthread_mutex_lock(&retry_lock);
	snprintf(listen_err, sizeof(listen_err), "%s", why);
	snprintf(retry_listen, sizeof(retry_listen), "%s", c->listen);
	retry_stop = 0;
	pthread_mutex_unlock(&retry_lock);
	err = rtmond_start_thread(&retry_thread, retry_main);
	if (err) {
		rtmond_log("metrics: cannot start the thread that tries again: %s", strerror(-err));
		return 0;
	}
	pthread_setname_np(retry_thread, "rtmond-listen");
	retrying = 1;
	return 0;
}

int rtmond_metrics_listen_error(char *why, size_t len)
{
	pthread_mutex_lock(&retry_lock);
	snprintf(why, len, "%s", listen_err);
	pthread_mutex_unlock(&retry_lock);
	return why[0] != 0;
}

void rtmond_metrics_stop(void)
{
	if (retrying) {
		rtmond_stop_thread(retry_thread, &retry_lock, &retry_cond, &retry_stop);
		retrying = 0;
	}
	pthread_mutex_lock(&retry_lock);
	listen_err[0] = 0;
	pthread_mutex_unlock(&retry_lock);
	if (mhd) {
		MHD_stop_daemon(mhd);
		mhd = NULL;
	}
}

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symlink" :
	       S_ISSOCK(m) ? "a socket" : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}

/*
 * PATH.tmp for writing, created afresh: O_EXCL (after removing a stale
 * regular file) never opens what another process put there, O_NONBLOCK
 * never waits on a FIFO, O_NOFOLLOW never goes through a symlink. -errno,
 * why said in why.
 */
static int textfile_open(const char *tmp, char *why, size_t len)
{
	struct stat st;
	int fd, e;

	if (!lstat(tmp, &st)) {
		if (!S_ISREG(st.st_mode)) {
			snprintf(why, len, "%s is %s, not a regular file: not written until it is "
				 "removed", tmp, file_kind(st.st_mode));
			return -EEXIST;
		}
		if (unlink(tmp) && errno != ENOENT) {
			e = errno;
			snprintf(why, len, "cannot remove %s: %s", tmp, strerror(e));
			return -e;
		}
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = errno;
		snprintf(why, len, "cannot create %s: %s", tmp, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s is not a regular file once opened", tmp);
		close(fd);
		return -EEXIST;
	}
	return fd;
}

/* The textfile's last failure, said once until another one or a success. */
static void textfile_said(const char *why)
{
	static char last[PATH_MAX + 200];

	if (!strcmp(why, last))
		return;
	if (why[0])
		rtmond_log("metrics.textfile: %s", why);
	else
		rtmond_log("metrics.textfile: written again");
	snprintf(last, sizeof(last), "%s", why);
}

int rtmond_metrics_textfile(const char *path)
{
	char tmp[PATH_MAX], dir[PATH_MAX], why[PATH_MAX + 200] = "";
	size_t len;
	char *text, *slash;
	FILE *f;
	int ok, fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = rtmond_dir_safe(dir[0] ? dir : "/", why, sizeof(why));
	if (!fd)
		fd = textfile_open(tmp, why, sizeof(why));
	if (fd < 0) {
		CNT_ADD(textfile_errors, 1);
		textfile_said(why);
		return fd;
	}
	text = rtmond_metrics_text(&len);
	f = text ? fdopen(fd, "w") : NULL;
	ok = f && fwrite(text, 1, len, f) == len;
	ok = (f ? !fclose(f) : !close(fd)) && ok;
	free(text);
	if (!ok || rename(tmp, path)) {
		snprintf(why, sizeof(why), "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		CNT_ADD(textfile_errors, 1);
		textfile_said(why);
		return -EIO;
	}
	textfile_said("");
	return 0;
}

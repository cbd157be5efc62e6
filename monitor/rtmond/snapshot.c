// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot.c - what rtmond saves with each deadline miss:
 *
 * - ftrace: an instance of its own (/sys/kernel/tracing/instances/NAME)
 *   recording sched_switch, sched_waking, sched_migrate_task (what
 *   rtmonctl explain needs), irq_handler_entry/exit,
 *   softirq_raise/entry/exit, hrtimer_expire_entry/exit and rtmon:* on the
 *   mono clock (the records' CLOCK_MONOTONIC), with its snapshot buffer
 *   allocated at setup. On a miss the main thread writes 1 to 'snapshot'
 *   (a buffer swap, microseconds); the worker copies the snapshot file to
 *   DIR/ftrace/miss-ID.txt and clears it (2). A miss that finds the
 *   worker busy is not left unexplained: it joins one deferred snapshot
 *   that the worker swaps in as soon as it is done ("deferred": its
 *   events are still in the flight recorder unless it wrapped meanwhile).
 * - LTTng: a snapshot-mode session of its own (liblttng-ctl), user-space
 *   domain, events rtmon:* (librtmon's markers) and rtmond:* (the miss
 *   event) with vpid, vtid and procname, output DIR/lttng or a net://
 *   relay; on a miss the worker records a snapshot named miss-ID. With lttng-modules loaded (and
 *   lttng_kernel on) the session also has a kernel channel with the events
 *   of the ftrace instance (lttng_kernel_events), so each snapshot is one
 *   CTF trace collection, kernel and user space on LTTng's one clock
 *   (CLOCK_MONOTONIC), for babeltrace2 and Trace Compass. Without them this
 *   is logged once and the JSON says the kernel context is in the ftrace file.
 * - a token bucket (burst, then one per interval) limits both.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <lttng/lttng.h>

#include "rtmond.h"
#include "rtmond_tp.h"

#define TRACEFS "/sys/kernel/tracing"

static char ft_dir[256];		/* the instance, "" when off */
static uint64_t ft_since;		/* when it started recording */
static char out_dir[256];
static char lt_session[64];		/* "" when LTTng is off */
static char lt_output[300];
static int lt_kernel;

/* token bucket (main thread only) */
static double tokens;
static uint64_t tokens_ns;
static unsigned int bucket_burst;
static uint64_t bucket_interval;

/* worker: one job at a time, and one deferred job waiting behind it */
static pthread_mutex_t wk_lock;		/* PTHREAD_PRIO_INHERIT (wk_lock_init) */
static pthread_cond_t wk_cond = PTHREAD_COND_INITIALIZER;
static int wk_busy, wk_stop, wk_started, wk_prune;
static int wk_closing;			/* teardown waits: no deferred job now */
static pthread_t wk_thread;
/*
 * The jobs (41 KiB each), filled in place by the reader: wk_job only
 * while the worker is idle, wk_pend only while PEND_FILLING (both set
 * under wk_lock by the reader alone); the worker reads wk_job while busy
 * and swaps in wk_pend only when it is PEND_READY. No copy of records.
 */
static struct rtmond_snap_job jobs[2];
static struct rtmond_snap_job *wk_job = &jobs[0], *wk_pend = &jobs[1];
static enum { PEND_NONE, PEND_FILLING, PEND_READY } pend_state;
/*
 * When the worker began its job, how long its last one took, and the span
 * the last snapshot that overran kept (0: none overran): a deferred
 * snapshot that would come after its misses' events wrapped out is not
 * worth one. Under wk_lock.
 */
static uint64_t job_t0, job_ns, wrap_ns;
/* when the worker's snapshot was swapped out: what came after is live */
static uint64_t swap_ns;

/* the real-time reader takes wk_lock too: no priority inversion */
__attribute__((constructor)) static void wk_lock_init(void)
{
	rtmond_pi_mutex_init(&wk_lock);
}

static int write_file(const char *dir, const char *file, const char *val)
{
	char path[512];
	int fd, ret = 0;
	size_t n = strlen(val);

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_TRUNC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, n) != (ssize_t)n)
		ret = -errno;
	close(fd);
	return ret;
}

static const char *const ft_events[] = {
	"sched/sched_switch", "sched/sched_waking", "sched/sched_migrate_task",
	"irq/irq_handler_entry",
	"irq/irq_handler_exit", "irq/softirq_raise", "irq/softirq_entry",
	"irq/softirq_exit", "timer/hrtimer_expire_entry",
	"timer/hrtimer_expire_exit", "rtmon", NULL
};

static int ftrace_setup(const struct rtmond_config *c)
{
	const char *const *e;
	char file[128], kb[32];
	int err;

	snprintf(ft_dir, sizeof(ft_dir), TRACEFS "/instances/%s", c->ftrace_instance);
	if (mkdir(ft_dir, 0700) && errno != EEXIST) {
		err = errno;
		if (access(TRACEFS "/instances", F_OK))
			rtmond_log("ftrace: no %s (tracefs not mounted?): ftrace snapshots off",
				   TRACEFS "/instances");
		else
			rtmond_log("ftrace: cannot create %s: %s: ftrace snapshots off",
				   ft_dir, strerror(err));
		ft_dir[0] = 0;
		return -err;
	}
	write_file(ft_dir, "tracing_on", "0");
	snprintf(kb, sizeof(kb), "%u", c->ftrace_buffer_kb);
	if ((err = write_file(ft_dir, "buffer_size_kb", kb)))
		rtmond_log("ftrace: buffer_size_kb %s: %s", kb, strerror(-err));
	if (write_file(ft_dir, "trace_clock", "mono"))
		rtmond_log("ftrace: no mono trace clock: timestamps are the local clock");
	write_file(ft_dir, "trace", "");
	for (e = ft_events; *e; e++) {
		snprintf(file, sizeof(file), "events/%s/enable", *e);
		if ((err = write_file(ft_dir, file, "1")))
			rtmond_log("ftrace: cannot enable %s: %s", *e, strerror(-err));
	}
	/* allocate the snapshot buffer now (not at the first miss), empty */
	if ((err = write_file(ft_dir, "snapshot", "1")) ||
	    (err = write_file(ft_dir, "snapshot", "2"))) {
		rtmond_log("ftrace: no snapshot buffer (CONFIG_TRACER_SNAPSHOT?): %s: ftrace snapshots off",
			   strerror(-err));
		ft_dir[0] = 0;
		return err;
	}
	write_file(ft_dir, "tracing_on", "1");
	ft_since = rtmond_mono_ns();
	rtmond_log("ftrace: instance %s recording sched, irq, softirq, hrtimer and rtmon events (%u KiB per cpu)",
		   ft_dir, c->ftrace_buffer_kb);
	return 0;
}

static int lttng_enable(struct lttng_handle *h, const char *chan, const char *name)
{
	struct lttng_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = LTTNG_EVENT_TRACEPOINT;
	ev.loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
	snprintf(ev.name, sizeof(ev.name), "%s", name);
	return lttng_enable_event(h, &ev, chan);
}

/*
 * The kernel events of each snapshot, named as lttng-modules names them
 * (its probes for the sched, irq and timer tracepoints): what a chain is
 * made of, what rtmonctl explain reads from the ftrace snapshot, and what
 * Trace Compass's critical-path and resource views need.
 */
static const char *const lttng_kernel_events[] = {
	"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new",
	"sched_migrate_task", "sched_process_fork", "sched_process_exit",
	"sched_pi_setprio",
	"irq_handler_entry", "irq_handler_exit",
	"irq_softirq_raise", "irq_softirq_entry", "irq_softirq_exit",
	"timer_hrtimer_expire_entry", "timer_hrtimer_expire_exit",
	NULL
};

/*
 * The kernel channel: one ring buffer per cpu of lttng_kernel_buffer_kb in
 * 4 sub-buffers, overwritten (flight recorder), mmap output (what snapshots
 * need). 0 when it is on; otherwise why not, logged (the session goes on
 * with its user-space channel).
 */
static int lttng_kernel_setup(const struct rtmond_config *c)
{
	struct lttng_domain dom;
	struct lttng_handle *h;
	struct lttng_channel *ch;
	char missing[256] = "";
	int ret, i, n = 0;

	memset(&dom, 0, sizeof(dom));
	dom.type = LTTNG_DOMAIN_KERNEL;
	dom.buf_type = LTTNG_BUFFER_GLOBAL;
	h = lttng_create_handle(lt_session, &dom);
	ch = h ? lttng_channel_create(&dom) : NULL;
	if (!ch) {
		lttng_destroy_handle(h);
		return -LTTNG_ERR_NOMEM;
	}
	snprintf(ch->name, sizeof(ch->name), "rtmon-kernel");
	ch->attr.overwrite = 1;
	ch->attr.output = LTTNG_EVENT_MMAP;
	ch->attr.num_subbuf = 4;
	ch->attr.subbuf_size = (uint64_t)c->lttng_kernel_buffer_kb * 1024 / 4;
	ret = lttng_enable_channel(h, ch);
	lttng_channel_destroy(ch);
	if (ret) {
		lttng_destroy_handle(h);
		return ret;
	}
	for (i = 0; lttng_kernel_events[i]; i++) {
		if (!lttng_enable(h, "rtmon-kernel", lttng_kernel_events[i])) {
			n++;
			continue;
		}
		/* an older kernel lacks one (sched_waking before 4.3) */
		snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s",
			 lttng_kernel_events[i]);
	}
	lttng_destroy_handle(h);
	if (missing[0])
		rtmond_log("lttng: kernel events not available:%s", missing);
	return n ? 0 : -LTTNG_ERR_KERN_ENABLE_FAIL;
}

static int lttng_add_ctx(struct lttng_handle *h, const char *chan, enum lttng_event_context_type t)
{
	struct lttng_event_context ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.ctx = t;
	return lttng_add_context(h, &ctx, NULL, chan);
}

static void lttng_teardown(void)
{
	if (lt_session[0]) {
		lttng_destroy_session(lt_session);
		lt_session[0] = 0;
	}
}

static int lttng_setup(const struct rtmond_config *c)
{
	struct lttng_session_descriptor *d;
	struct lttng_domain dom;
	struct lttng_handle *h;
	struct lttng_channel *ch;
	const char *out = c->lttng_output;
	int ret;

	if (!lttng_session_daemon_alive()) {
		rtmond_log("lttng: no session daemon running (start lttng-sessiond): LTTng snapshots off");
		return -ENOENT;
	}
	lttng_destroy_session(c->lttng_session);	/* a previous run's */
	if (!out[0]) {
		snprintf(lt_output, sizeof(lt_output), "%s/lttng", c->dir);
		mkdir(lt_output, 0750);
		d = lttng_session_descriptor_snapshot_local_create(c->lttng_session, lt_output);
	} else if (!strncmp(out, "net", 3)) {
		snprintf(lt_output, sizeof(lt_output), "%s", out);
		d = lttng_session_descriptor_snapshot_network_create(c->lttng_session, out, NULL);
	} else {
		snprintf(lt_output, sizeof(lt_output), "%s",
			 !strncmp(out, "file://", 7) ? out + 7 : out);
		mkdir(lt_output, 0750);
		d = lttng_session_descriptor_snapshot_local_create(c->lttng_session, lt_output);
	}
	if (!d) {
		rtmond_log("lttng: bad output %s", out);
		return -EINVAL;
	}
	ret = (int)lttng_create_session_ext(d);
	lttng_session_descriptor_destroy(d);
	if (ret != LTTNG_OK) {
		rtmond_log("lttng: cannot create session %s (output %s): %s: LTTng snapshots off",
			   c->lttng_session, lt_output, lttng_strerror(-ret));
		return -EIO;
	}
	snprintf(lt_session, sizeof(lt_session), "%s", c->lttng_session);
	memset(&dom, 0, sizeof(dom));
	dom.type = LTTNG_DOMAIN_UST;
	dom.buf_type = LTTNG_BUFFER_PER_UID;
	h = lttng_create_handle(lt_session, &dom);
	ch = h ? lttng_channel_create(&dom) : NULL;
	if (!ch) {
		rtmond_log("lttng: cannot create a user-space channel handle");
		lttng_destroy_handle(h);
		lttng_teardown();
		return -ENOMEM;
	}
	snprintf(ch->name, sizeof(ch->name), "rtmon");
	ch->attr.overwrite = 1;
	ch->attr.output = LTTNG_EVENT_MMAP;
	ch->attr.subbuf_size = 256 * 1024;
	ch->attr.num_subbuf = 4;
	ret = lttng_enable_channel(h, ch);
	lttng_channel_destroy(ch);
	if (!ret)
		ret = lttng_enable(h, "rtmon", "rtmon:*");
	if (!ret)
		ret = lttng_enable(h, "rtmon", "rtmond:*");
	/* which thread marked: what ties a marker to the kernel's sched events */
	if (!ret)
		ret = lttng_add_ctx(h, "rtmon", LTTNG_EVENT_CONTEXT_VPID);
	if (!ret)
		ret = lttng_add_ctx(h, "rtmon", LTTNG_EVENT_CONTEXT_VTID);
	if (!ret)
		ret = lttng_add_ctx(h, "rtmon", LTTNG_EVENT_CONTEXT_PROCNAME);
	lttng_destroy_handle(h);
	lt_kernel = 0;
	if (!ret && c->lttng_kernel) {
		/* the kernel domain needs lttng-modules: without them, go on */
		int kret = lttng_kernel_setup(c);

		if (kret)
			rtmond_log("lttng: no kernel channel (%s; lttng-modules loaded?): "
				   "the kernel context of each miss is in its ftrace snapshot only",
				   lttng_strerror(kret));
		else
			lt_kernel = 1;
	}
	if (!ret)
		ret = lttng_start_tracing(lt_session);
	if (ret) {
		rtmond_log("lttng: session setup failed: %s: LTTng snapshots off", lttng_strerror(ret));
		lttng_teardown();
		return -EIO;
	}
	if (lt_kernel)
		rtmond_log("lttng: snapshot session %s, user-space events rtmon:* and rtmond:*, "
			   "kernel sched, irq, softirq and hrtimer events (%u KiB per cpu), output %s",
			   lt_session, c->lttng_kernel_buffer_kb, lt_output);
	else
		rtmond_log("lttng: snapshot session %s, user-space events rtmon:* and rtmond:*, "
			   "output %s", lt_session, lt_output);
	return 0;
}

int rtmond_snap_setup(const struct rtmond_config *c)
{
	rtmond_snap_teardown();
	snprintf(out_dir, sizeof(out_dir), "%s", c->dir);
	rtmond_budget_set(c);	/* the worker is idle (teardown) */
	pthread_mutex_lock(&wk_lock);
	wk_prune = 1;		/* what an earlier run left, by the worker */
	pthread_cond_broadcast(&wk_cond);
	pthread_mutex_unlock(&wk_lock);
	bucket_burst = c->rate_burst;
	bucket_interval = c->rate_interval_ns;
	tokens = bucket_burst;
	tokens_ns = rtmond_mono_ns();
	if (c->ftrace) {
		char d[300];

		snprintf(d, sizeof(d), "%s/ftrace", c->dir);
		mkdir(d, 0750);
		ftrace_setup(c);
	} else {
		rtmond_log("ftrace: snapshots off (configuration)");
	}
	if (c->lttng)
		lttng_setup(c);
	else
		rtmond_log("lttng: snapshots off (configuration)");
	return 0;
}

void rtmond_snap_teardown(void)
{
	/* let a running copy finish before the instance goes */
	pthread_mutex_lock(&wk_lock);
	wk_closing = 1;
	while (wk_busy)
		pthread_cond_wait(&wk_cond, &wk_lock);
	wk_closing = 0;
	pthread_mutex_unlock(&wk_lock);
	lttng_teardown();
	if (ft_dir[0]) {
		write_file(ft_dir, "tracing_on", "0");
		if (rmdir(ft_dir))
			rtmond_log("ftrace: cannot remove %s: %s", ft_dir, strerror(errno));
		ft_dir[0] = 0;
	}
}

uint64_t rtmond_snap_ftrace_since(void)
{
	return ft_dir[0] ? ft_since : 0;
}

const char *rtmond_snap_lttng_state(void)
{
	if (!lt_session[0])
		return "off";
	if (lt_kernel)
		return "user+kernel";
	return "user (no kernel channel: kernel context in ftrace)";
}

/* rtmond-ust.so, built into rtmond by rtmond_ust_so.S */
extern const char rtmond_ust_so[], rtmond_ust_so_end[];

/*
 * Load rtmond's lttng-ust probes, and with them liblttng-ust, from the copy
 * inside rtmond (a memfd: no file to install, find or swap). liblttng-ust's
 * constructor starts the threads that talk to lttng-sessiond, with the
 * capabilities and scheduling policy of the thread that loads it, and
 * blocks every signal in them (so neither a later cap_set_proc() nor
 * libpsx's signal reaches them): rtmond calls this from a thread that has
 * already dropped its capabilities and is SCHED_OTHER. Until then
 * rtmond:miss is a no-op (dynamic linkage, rtmond_tp.c).
 */
int rtmond_snap_load_provider(void)
{
	size_t n = (size_t)(rtmond_ust_so_end - rtmond_ust_so), o = 0;
	char path[64];
	ssize_t w;
	int fd, err = 0;

	fd = memfd_create("rtmond-ust.so", MFD_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	while (o < n && (w = write(fd, rtmond_ust_so + o, n - o)) > 0)
		o += (size_t)w;
	if (o != n) {
		err = -EIO;
		goto out;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!dlopen(path, RTLD_NOW)) {
		rtmond_log("lttng: cannot load rtmond's provider: %s: no rtmond:miss events", dlerror());
		close(fd);
		return -ENOENT;
	}
out:
	if (err)
		rtmond_log("lttng: cannot load rtmond's provider: %s: no rtmond:miss events",
			   strerror(-err));
	if (fd >= 0)
		close(fd);	/* the mapping stays */
	return err;
}

void rtmond_snap_miss_event(const struct rtm_record *r, const char *target)
{
	lttng_ust_tracepoint(rtmond, miss, r->seq, target, r->start_ns, r->end_ns,
			     r->latency_ns, r->deadline_ns, r->target_pid,
			     !!(r->flags & RTM_REC_F_TIMEOUT));
}

/* Swap the ftrace buffers (what: "snapshot" or "deferred snapshot"): 0 or -errno, said */
static int ftrace_swap(uint64_t id, const char *what)
{
	int err = write_file(ft_dir, "snapshot", "1");

	if (err) {
		rtmond_log("ftrace: %s %" PRIu64 " failed: %s", what, id, strerror(-err));
		CNT_ADD(snap_failed, 1);
	}
	return err;
}

/* the snapshot's file names, for the plan of the miss with seq id */
static void plan_names(struct rtmond_snap_plan *plan, uint64_t id, int ftrace)
{
	plan->id = id;
	if (ftrace)
		snprintf(plan->ftrace, sizeof(plan->ftrace), "ftrace/miss-%s-%" PRIu64 ".txt",
			 rtmond_load_tag, id);
	if (lt_session[0])
		snprintf(plan->lttng, sizeof(plan->lttng), "miss-%s-%" PRIu64, rtmond_load_tag, id);
	if (plan->ftrace[0])
		snprintf(plan->explain, sizeof(plan->explain),
			 "ftrace/miss-%s-%" PRIu64 ".explain.jsonl", rtmond_load_tag, id);
}

static void skip_busy(struct rtmond_snap_plan *plan)
{
	plan->skipped = "busy";
	CNT_ADD(snap_busy, 1);
}

/* A token of the bucket, or the plan says "rate_limited": 0 */
static int spend_token(struct rtmond_snap_plan *plan)
{
	if (tokens < 1) {
		plan->skipped = "rate_limited";
		CNT_ADD(snap_rate_limited, 1);
		return 0;
	}
	tokens -= 1;
	return 1;
}

/*
 * The worker is busy. Misses that ended before its snapshot was swapped
 * are in that one (named, explained on demand); misses that began after
 * join the deferred job (opened with a token of the bucket) unless it
 * would swap only after their events wrapped out; the others straddle
 * the swap: "busy". Called with wk_lock held.
 */
static void take_deferred(uint64_t id, uint64_t start_ns, uint64_t end_ns, unsigned int nmiss,
			  struct rtmond_snap_plan *plan)
{
	uint64_t due = job_t0 + job_ns, now, wait;

	if (end_ns <= swap_ns && wk_job->plan.ftrace[0]) {
		*plan = wk_job->plan;
		plan->explain[0] = 0;
		plan->named_only = 1;
		return;
	}
	if (start_ns < swap_ns) {
		skip_busy(plan);
		return;
	}
	if (pend_state == PEND_READY) {
		*plan = wk_pend->plan;
		/* a whole batch to explain already: in the snapshot, explained
		 * on demand (rtmonctl explain), not by the worker */
		if (wk_pend->nrecs + nmiss > RTMOND_BATCH)
			plan->explain[0] = 0;
		pend_state = PEND_FILLING;
		return;
	}
	assert(pend_state == PEND_NONE);
	/* the swap when the worker is due, a quarter late: still holding the chain? */
	now = rtmond_mono_ns();
	if (due < now)
		due = now;
	wait = due > start_ns ? due - start_ns : 0;
	if (wrap_ns && wait + wait / 4 > wrap_ns) {
		skip_busy(plan);
		return;
	}
	if (!spend_token(plan))
		return;
	plan_names(plan, id, ft_dir[0]);
	plan->deferred = 1;
	wk_pend->nrecs = 0;
	wk_pend->plan = *plan;
	pend_state = PEND_FILLING;
	CNT_ADD(snap_deferred, 1);
}

void rtmond_snap_take(const struct rtmond_config *c, uint64_t id, uint64_t start_ns,
		      uint64_t end_ns, unsigned int nmiss, struct rtmond_snap_plan *plan)
{
	uint64_t now = rtmond_mono_ns();
	int busy;

	memset(plan, 0, sizeof(*plan));
	plan->id = id;
	if (!ft_dir[0] && !lt_session[0]) {
		plan->skipped = "off";
		return;
	}
	/* refill: one token per interval, at most burst */
	if (bucket_interval) {
		tokens += (double)(now - tokens_ns) / (double)bucket_interval;
		if (tokens > bucket_burst)
			tokens = bucket_burst;
	}
	tokens_ns = now;
	pthread_mutex_lock(&wk_lock);
	busy = wk_busy;
	if (busy && c->defer) {
		take_deferred(id, start_ns, end_ns, nmiss, plan);
	} else if (busy) {
		skip_busy(plan);
	} else
		assert(pend_state == PEND_NONE);
	pthread_mutex_unlock(&wk_lock);
	if (busy || !spend_token(plan))
		return;
	if (ft_dir[0]) {
		int err;

		swap_ns = rtmond_mono_ns();	/* the worker is idle: the reader's to set */
		err = ftrace_swap(id, "snapshot");
		plan_names(plan, id, !err);
	} else {
		plan_names(plan, id, 0);
	}
	if (!plan->ftrace[0] && !plan->lttng[0]) {
		plan->skipped = "failed";
		return;
	}
	wk_job->nrecs = 0;
}

void rtmond_snap_add_miss(struct rtmond_snap_plan *plan, const struct rtm_record *r,
			  const char *target)
{
	struct rtmond_snap_job *j = plan->deferred ? wk_pend : wk_job;

	if (!plan->explain[0] || j->nrecs >= RTMOND_BATCH)
		return;
	j->recs[j->nrecs] = *r;
	snprintf(j->targets[j->nrecs], sizeof(j->targets[0]), "%s", target);
	j->nrecs++;
}

/* The deferred job becomes the worker's (wk_lock held, wk_busy stays 1). */
static void start_deferred(void)
{
	struct rtmond_snap_job *j = wk_pend;

	wk_pend = wk_job;
	wk_job = j;
	pend_state = PEND_NONE;
}

/*
 * A job done (wk_lock held): the deferred one next, unless rtmond stops or
 * reloads: then it is dropped, said, so that neither waits for its copy.
 */
static void job_done(void)
{
	if (pend_state == PEND_READY && !wk_stop && !wk_closing) {
		start_deferred();
		return;
	}
	if (pend_state == PEND_READY) {
		rtmond_log("ftrace: deferred snapshot %" PRIu64 " dropped (stopping): "
			   "its misses' snapshot files are not written", wk_pend->plan.id);
		CNT_ADD(snap_failed, 1);
		pend_state = PEND_NONE;
	}
	wk_busy = 0;
}

/* The deferred job's ftrace snapshot: by the worker, before its copy. */
static void swap_deferred(struct rtmond_snap_job *j)
{
	if (j->plan.ftrace[0] && ft_dir[0] && ftrace_swap(j->plan.id, "deferred snapshot"))
		j->plan.ftrace[0] = 0;
}

/* the job to the worker (a planned snapshot only) */
void rtmond_snap_commit(struct rtmond_snap_plan *plan)
{
	if ((!plan->ftrace[0] && !plan->lttng[0]) || plan->named_only)
		return;
	pthread_mutex_lock(&wk_lock);
	if (plan->deferred) {
		assert(pend_state == PEND_FILLING);
		pend_state = PEND_READY;
		/* the worker went idle meanwhile: its turn now */
		if (!wk_busy) {
			start_deferred();
			wk_busy = 1;
		}
	} else {
		wk_job->plan = *plan;
		wk_busy = 1;
	}
	pthread_cond_broadcast(&wk_cond);
	pthread_mutex_unlock(&wk_lock);
}

static int copy_ftrace(const struct rtmond_snap_plan *p)
{
	int ok = 0;
	char src[300], dst[600], tmp[610], buf[65536];
	int in, out;
	ssize_t n;

	snprintf(src, sizeof(src), "%s/snapshot", ft_dir);
	snprintf(dst, sizeof(dst), "%s/%s", out_dir, p->ftrace);
	snprintf(tmp, sizeof(tmp), "%s.tmp", dst);
	in = open(src, O_RDONLY | O_CLOEXEC);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (in < 0 || out < 0) {
		rtmond_log("ftrace: copy of snapshot %" PRIu64 " to %s failed: %s", p->id, dst,
			   strerror(errno));
		CNT_ADD(snap_failed, 1);
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n < 0 || rename(tmp, dst)) {
		rtmond_log("ftrace: copy of snapshot %" PRIu64 " failed: %s", p->id, strerror(errno));
		CNT_ADD(snap_failed, 1);
		unlink(tmp);
	} else {
		CNT_ADD(snap_ftrace, 1);
		ok = 1;
	}
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	/* empty the buffer that becomes the live one at the next swap */
	write_file(ft_dir, "snapshot", "2");
	return ok;
}

static void record_lttng(const struct rtmond_snap_plan *p)
{
	struct lttng_snapshot_output *o = lttng_snapshot_output_create();
	uint64_t t0 = rtmond_mono_ns();
	int ret;

	if (!o)
		return;
	lttng_snapshot_output_set_name(p->lttng, o);
	ret = lttng_snapshot_record(lt_session, o, 0);
	lttng_snapshot_output_destroy(o);
	if (ret) {
		rtmond_log("lttng: snapshot %s failed: %s", p->lttng, lttng_strerror(ret));
		CNT_ADD(snap_failed, 1);
	} else {
		/* what it costs, for whoever sizes the buffers (README) */
		rtmond_log("lttng: snapshot %s recorded in %.1f ms", p->lttng,
			   (double)(rtmond_mono_ns() - t0) / 1e6);
		CNT_ADD(snap_lttng, 1);
	}
}

static void *worker(void *arg)
{
	const struct rtmond_snap_plan *job;
	uint64_t t0, wrap;

	(void)arg;
	pthread_mutex_lock(&wk_lock);
	for (;;) {
		while (!wk_busy && !wk_stop && !wk_prune)
			pthread_cond_wait(&wk_cond, &wk_lock);
		if (!wk_busy && !wk_prune && wk_stop)
			break;
		if (!wk_busy) {
			/* a new configuration: the budget, before any snapshot */
			wk_prune = 0;
			wk_busy = 1;
			pthread_mutex_unlock(&wk_lock);
			rtmond_budget_remove_cut_short();
			rtmond_budget_prune();
			pthread_mutex_lock(&wk_lock);
			job_done();
			pthread_cond_broadcast(&wk_cond);
			continue;
		}
		job = &wk_job->plan;
		t0 = job_t0 = rtmond_mono_ns();
		/* under the lock: take_deferred() reads swap_ns */
		if (job->deferred) {
			swap_deferred(wk_job);
			swap_ns = rtmond_mono_ns();
		}
		pthread_mutex_unlock(&wk_lock);
		wrap = 0;
		/*
		 * ftrace first: its miss lines already name the file, and a
		 * kill during the copy leaves the .tmp the next start names
		 */
		if (job->ftrace[0] && ft_dir[0]) {
			uint64_t c0 = rtmond_mono_ns(), c1;

			if (copy_ftrace(job)) {
				c1 = rtmond_mono_ns();
				if (wk_job->nrecs)
					rtmond_explain_snapshot(out_dir, wk_job, &wrap);
				/* what a snapshot costs, for whoever sizes the buffer */
				rtmond_log("ftrace: snapshot %" PRIu64 "%s copied in %.1f ms, "
					   "%u misses explained in %.1f ms", job->id,
					   job->deferred ? " (deferred)" : "",
					   (double)(c1 - c0) / 1e6, wk_job->nrecs,
					   (double)(rtmond_mono_ns() - c1) / 1e6);
			}
		}
		if (job->lttng[0] && lt_session[0])
			record_lttng(job);
		rtmond_budget_prune();
		pthread_mutex_lock(&wk_lock);
		job_ns = rtmond_mono_ns() - t0;
		if (wrap)
			wrap_ns = wrap;
		/* misses that came meanwhile: their snapshot, at once */
		job_done();
		pthread_cond_broadcast(&wk_cond);
	}
	pthread_mutex_unlock(&wk_lock);
	return NULL;
}

int rtmond_snap_start_worker(void)
{
	int err = rtmond_start_thread(&wk_thread, worker);

	if (!err)
		wk_started = 1;
	return err;
}

void rtmond_snap_stop_worker(void)
{
	if (!wk_started)
		return;
	rtmond_stop_thread(wk_thread, &wk_lock, &wk_cond, &wk_stop);
	wk_started = 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * privs.c - real time and privileges: the reader's scheduling policy and
 * locked memory, and the capabilities of every thread, dropped in the
 * order explained below.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "rtmond.h"

void rtmond_go_realtime(const struct rtmond_config *c)
{
	struct sched_param sp = { .sched_priority = c->priority };
	int err;

	if (c->policy != SCHED_OTHER) {
		err = pthread_setschedparam(pthread_self(), c->policy, &sp);
		if (err)
			rtmond_log("cannot run as %s priority %d: %s (going on as SCHED_OTHER)",
				   c->policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_RR",
				   c->priority, strerror(err));
		else
			rtmond_log("reader runs %s priority %d", c->policy == SCHED_FIFO ?
				   "SCHED_FIFO" : "SCHED_RR", c->priority);
	}
	if (c->mlockall) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE))
			rtmond_log("mlockall: %s (memory not locked)", strerror(errno));
		else
			rtmond_log("memory locked (mlockall)");
	}
}

/*
 * Capabilities belong to threads (capset() changes the calling thread's
 * only), and a new thread starts with those of the thread that creates it.
 * So rtmond drops them in this order, and no thread ever holds more than
 * it needs:
 * 1. the main thread, still with everything: the bounding set down to the
 *    reader's set, and no_new_privs (both inherited by every later thread);
 * 2. a helper thread, SCHED_OTHER, drops its own capabilities to the other
 *    threads' set and starts them: the snapshot worker, libmicrohttpd's
 *    (network-facing) and liblttng-ust's (loaded there:
 *    rtmond_snap_load_provider()); they inherit its sets and policy;
 * 3. the main thread, the reader, goes real-time (CAP_SYS_NICE and
 *    CAP_IPC_LOCK still held) and drops its own.
 * libcap's libpsx (every thread calls capset from a signal handler) does
 * not do it: it knows only the threads created through its wrapped
 * pthread_create in rtmond's own objects, not libmicrohttpd's or
 * liblttng-ust's, and liblttng-ust's threads block every signal.
 *
 * Kept: the reader, CAP_SYS_ADMIN with keep_admin (a SIGHUP adds and
 * removes module targets) and CAP_IPC_LOCK with mlockall (memory any
 * thread maps later is locked too, by MCL_FUTURE, and past RLIMIT_MEMLOCK
 * that needs CAP_IPC_LOCK in the thread that maps it); the other threads,
 * CAP_IPC_LOCK with mlockall, nothing else.
 */
static int caps_of(const struct rtmond_config *c, int reader, cap_value_t keep[2])
{
	int n = 0;

	if (reader && c->keep_admin)
		keep[n++] = CAP_SYS_ADMIN;
	if (c->mlockall)
		keep[n++] = CAP_IPC_LOCK;
	return n;
}

/* The calling thread's permitted and effective sets become keep[]. */
static int set_thread_caps(const cap_value_t *keep, int n)
{
	cap_t caps = cap_init();
	int err = 0;

	if (!caps)
		return -errno;
	/* inheritable empty: the ambient set goes with it */
	if (n && (cap_set_flag(caps, CAP_PERMITTED, n, keep, CAP_SET) ||
		  cap_set_flag(caps, CAP_EFFECTIVE, n, keep, CAP_SET)))
		err = -errno;
	else if (cap_set_proc(caps))
		err = -errno;
	cap_free(caps);
	return err;
}

/* Step 1: the bounding set (needs CAP_SETPCAP) and no_new_privs. */
void rtmond_drop_bound(const struct rtmond_config *c)
{
	cap_value_t keep[2], v, max = cap_max_bits();
	cap_flag_value_t setpcap = CAP_CLEAR;
	int n = caps_of(c, 1, keep), i;
	cap_t cur = cap_get_proc();

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		rtmond_log("capabilities: no_new_privs: %s", strerror(errno));
	if (cur) {
		cap_get_flag(cur, CAP_SETPCAP, CAP_EFFECTIVE, &setpcap);
		cap_free(cur);
	}
	if (setpcap != CAP_SET) {
		/* e.g. under rtmon.service: its CapabilityBoundingSet= did it */
		rtmond_log("capabilities: no CAP_SETPCAP: the bounding set stays as given");
		return;
	}
	for (v = 0; v < max; v++) {
		for (i = 0; i < n && keep[i] != v; i++)
			;
		if (i < n || cap_get_bound(v) <= 0)
			continue;
		if (cap_drop_bound(v)) {
			rtmond_log("capabilities: bounding set: cannot drop %d: %s", v,
				   strerror(errno));
			return;
		}
	}
}

struct aux_job {
	const struct rtmond_config *c;
	int (*fn)(const struct rtmond_config *c);
	int ret;
};

static void *aux_main(void *arg)
{
	struct aux_job *j = arg;
	cap_value_t keep[2];
	int n = caps_of(j->c, 0, keep), err;

	err = set_thread_caps(keep, n);
	if (err)
		rtmond_log("capabilities: the other threads cannot drop theirs: %s", strerror(-err));
	j->ret = j->fn(j->c);
	return NULL;
}

/*
 * Step 2: run fn in a new thread that is SCHED_OTHER and holds the other
 * threads' capabilities, so that every thread fn starts has just those
 * (never the reader's CAP_SYS_ADMIN or real-time priority): at start, and
 * when a reload restarts the HTTP server.
 */
int rtmond_run_aux(const struct rtmond_config *c, int (*fn)(const struct rtmond_config *c))
{
	struct aux_job j = { .c = c, .fn = fn };
	struct sched_param sp = { .sched_priority = 0 };
	pthread_attr_t a;
	pthread_t t;
	int err;

	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	pthread_attr_setstacksize(&a, 256 * 1024);	/* resident under mlockall */
	err = pthread_create(&t, &a, aux_main, &j);
	pthread_attr_destroy(&a);
	if (err) {
		rtmond_log("cannot start a thread: %s", strerror(err));
		return -err;
	}
	pthread_join(t, NULL);
	return j.ret;
}

/* Step 3, the reader's own. */
void rtmond_drop_caps(const struct rtmond_config *c)
{
	cap_value_t keep[2];
	int n = caps_of(c, 1, keep), err = set_thread_caps(keep, n);

	if (err)
		rtmond_log("capabilities: cannot drop: %s", strerror(-err));
	else
		rtmond_log("capabilities: kept %s%s%s in the reader, %s in the other threads; "
			   "dropped the rest",
			   c->keep_admin ? "CAP_SYS_ADMIN (targets are re-synced on SIGHUP)" : "",
			   c->keep_admin && c->mlockall ? ", " : "",
			   c->mlockall ? "CAP_IPC_LOCK (mlockall of later allocations)" :
			   c->keep_admin ? "" : "none",
			   c->mlockall ? "CAP_IPC_LOCK" : "none");
}

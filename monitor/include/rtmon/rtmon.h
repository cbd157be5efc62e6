/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * rtmon/rtmon.h - librtmon: talk to the rtmon kernel module.
 *
 * Two uses:
 *
 * 1. Marking end-of-processing in an application (the common case):
 *
 *	#include <rtmon/rtmon.h>
 *	...
 *	rtmon_work_begin(cookie);	// where a work item is taken up
 *	...				// possibly on another thread:
 *	rtmon_work_end(cookie);		// where its processing is done
 *
 *    The markers open /dev/rtmon once per process (thread-safe), then cost
 *    one ioctl each and never allocate. They return 0, or -errno (e.g.
 *    -ENOENT when the module is not loaded); an application may ignore the
 *    result: monitoring must never break the monitored program.
 *
 *    LTTng: each marker also hits an lttng-ust tracepoint, provider
 *    "rtmon", events "work_begin" and "work_end" with a field "cookie"
 *    (each before its ioctl: an end's event is in a snapshot its miss
 *    triggers), so the markers show in
 *    user-space traces on CLOCK_MONOTONIC, the clock of rtmon's records.
 *    Enable them with 'lttng enable-event -u "rtmon:*"' (rtmond's snapshot
 *    session does). The provider is librtmon-ust.so.0, loaded on the first
 *    marker (or rtmon_init()) when lttng-ust is installed; set
 *    RTMON_UST_PROVIDER=/path/librtmon-ust.so to load it from elsewhere,
 *    RTMON_LTTNG=0 to never load it (both ignored in setuid and
 *    file-capability programs). Without it the tracepoints are a
 *    not-taken branch. Link: pkg-config --libs librtmon (libc only).
 *
 *    Call rtmon_init() at start-up (optional) to do the one-time work
 *    (open the device, load the provider, which registers with a running
 *    lttng-sessiond) before the first real-time work item instead of in it.
 *
 * 2. Controlling the module and reading its records (rtmond, rtmonctl):
 *    rtmon_open(), the target functions, rtmon_read_records().
 *
 * All functions return 0 or a positive count on success and -errno on
 * failure; none prints anything. The kernel ABI (record layout, ioctls)
 * is <rtmon/uapi/rtmon.h>.
 */
#ifndef RTMON_RTMON_H
#define RTMON_RTMON_H

#include <stdint.h>
#include <stddef.h>

#include "uapi/rtmon.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- markers ---- */

/* Open the device and load the tracepoint provider now (see above). */
int rtmon_init(void);
/* A chain's work item is taken up (by the thread that was woken). */
int rtmon_work_begin(uint64_t cookie);
/* The work item with this cookie is done (any thread of the process). */
int rtmon_work_end(uint64_t cookie);

/* ---- control ---- */

struct rtmon;

/*
 * Open the device (NULL: RTMON_DEVICE). On failure returns NULL with errno
 * set: ENOENT (module not loaded), EACCES (not in the device's group).
 * Checks the module's ABI version: EPROTO when it differs from this
 * library's.
 */
struct rtmon *rtmon_open(const char *path);
void rtmon_close(struct rtmon *r);
/* For poll(): readable when records wait. */
int rtmon_fd(const struct rtmon *r);

int rtmon_version(struct rtmon *r, struct rtmon_version *v);
int rtmon_counters(struct rtmon *r, struct rtmon_counters *c);
int rtmon_start(struct rtmon *r);
int rtmon_stop(struct rtmon *r);

/* Initialise t with "match anything" filters (irq -1, sizes set). */
void rtmon_target_init(struct rtmon_target *t);
/* Add t (needs CAP_SYS_ADMIN); on success t->id is its id. */
int rtmon_target_add(struct rtmon *r, struct rtmon_target *t);
int rtmon_target_del(struct rtmon *r, uint32_t id);
/* 0 and *t filled, or -ENOENT if no target has this id. */
int rtmon_target_get(struct rtmon *r, uint32_t id, struct rtmon_target *t);

/*
 * Read up to max records into recs. Blocks until at least one is there
 * unless the device was opened non-blocking (then -EAGAIN when none).
 * Returns the number read. The first reader of a device owns the record
 * stream; a second gets -EBUSY.
 */
int rtmon_read_records(struct rtmon *r, struct rtm_record *recs, size_t max);
/* Make reads non-blocking (1) or blocking (0). */
int rtmon_set_nonblock(struct rtmon *r, int nonblock);
/*
 * Acknowledged reads (acked = 1): a record read stays in the module until
 * rtmon_ack_records(); if this process dies first, the next reader reads
 * it again (skip what you had stored by its seq). Use it when losing a
 * record matters more than reading one twice (rtmond). Makes r the reader;
 * -ENOTTY from a module older than this library's header.
 */
int rtmon_set_read_acked(struct rtmon *r, int acked);
/* Every record read so far is stored: the module may free it. */
int rtmon_ack_records(struct rtmon *r);

/* Names for the ABI's numbers ("switch_in", "waking", "hardirq", ...). */
const char *rtmon_end_name(uint32_t end);
int rtmon_end_parse(const char *s, uint32_t *end);
const char *rtmon_hop_name(uint32_t type);
const char *rtmon_ctx_name(uint32_t ctx);
/* Blame categories (RTM_BLAME_*): "source", "handler", ..., "unknown". */
const char *rtmon_blame_name(uint32_t cat);
/*
 * A kernel priority as users read it: "rt 80" (0-99: real-time priority
 * 99 - prio), "nice -5" (100-139), "" (RTM_PRIO_UNKNOWN). Returns buf.
 */
const char *rtmon_prio_str(uint32_t prio, char *buf, size_t len);
/* Timer kinds (RTM_TIMER_*): "sleeper", "timerfd", "posix", "timerlat", "other". */
const char *rtmon_timer_name(uint32_t kind);
/*
 * "timerfd,posix" -> RTMON_TIMER_BIT() mask in *mask; "" or "any" -> 0
 * (every kind). -EINVAL on an unknown name (*mask untouched).
 */
int rtmon_timers_parse(const char *s, uint32_t *mask);
/* mask -> "timerfd,posix" ("any" for 0) in buf; returns buf */
char *rtmon_timers_format(char *buf, size_t len, uint32_t mask);

#ifdef __cplusplus
}
#endif

#endif /* RTMON_RTMON_H */

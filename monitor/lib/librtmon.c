// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * librtmon.c - the user-space side of /dev/rtmon (see rtmon/rtmon.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "rtmon/rtmon.h"

/*
 * lttng-ust call sites with dynamic linkage: the provider lives in
 * librtmon-ust.so, loaded below; without it (or without lttng-ust) the
 * tracepoints cost one load and a not-taken branch.
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "rtmon_tp.h"

struct rtmon {
	int fd;
};

/* ---- markers: one process-wide descriptor, opened on first use ---- */

static int rtmon_marker_fd = -1;
static int rtmon_marker_err;
static pthread_once_t rtmon_marker_once = PTHREAD_ONCE_INIT;

/*
 * Load the tracepoint provider: $RTMON_UST_PROVIDER (a path), else
 * librtmon-ust.so.0 from the library path; RTMON_LTTNG=0 turns it off.
 * Quietly nothing when it (or liblttng-ust) is not installed. In a setuid
 * or file-capability program (a real-time application given CAP_SYS_NICE)
 * both are ignored: secure_getenv(), or its caller would pick the library
 * the privileged program loads.
 */
static void rtmon_ust_load(void)
{
	const char *off = secure_getenv("RTMON_LTTNG");
	const char *path = secure_getenv("RTMON_UST_PROVIDER");

	if (off && !strcmp(off, "0"))
		return;
	if (!dlopen(path && *path ? path : "librtmon-ust.so.0", RTLD_NOW | RTLD_GLOBAL))
		(void)dlerror();
}

static void rtmon_marker_open(void)
{
	rtmon_ust_load();
	rtmon_marker_fd = open(RTMON_DEVICE, O_RDONLY | O_CLOEXEC);
	if (rtmon_marker_fd < 0)
		rtmon_marker_err = -errno;
}

int rtmon_init(void)
{
	pthread_once(&rtmon_marker_once, rtmon_marker_open);
	return rtmon_marker_fd < 0 ? rtmon_marker_err : 0;
}

static int rtmon_mark(unsigned long cmd, uint64_t cookie)
{
	struct rtmon_work w = { .cookie = cookie };

	pthread_once(&rtmon_marker_once, rtmon_marker_open);
	if (rtmon_marker_fd < 0)
		return rtmon_marker_err;
	return ioctl(rtmon_marker_fd, cmd, &w) ? -errno : 0;
}

/*
 * Both lttng-ust markers come before their ioctl: the work_end ioctl ends
 * the chain, and the snapshot a miss triggers must already hold its marker.
 */
int rtmon_work_begin(uint64_t cookie)
{
	lttng_ust_tracepoint(rtmon, work_begin, cookie);
	return rtmon_mark(RTMON_IOC_WORK_BEGIN, cookie);
}

int rtmon_work_end(uint64_t cookie)
{
	lttng_ust_tracepoint(rtmon, work_end, cookie);
	return rtmon_mark(RTMON_IOC_WORK_END, cookie);
}

/* ---- control ---- */

static int rtmon_ioctl(struct rtmon *r, unsigned long cmd, void *arg)
{
	return ioctl(r->fd, cmd, arg) ? -errno : 0;
}

struct rtmon *rtmon_open(const char *path)
{
	struct rtmon_version v;
	struct rtmon *r;
	int err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = open(path ? path : RTMON_DEVICE, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		err = errno;
		free(r);
		errno = err;
		return NULL;
	}
	err = rtmon_version(r, &v);
	if (!err && (v.abi_version != RTMON_ABI_VERSION ||
		     v.record_size != sizeof(struct rtm_record)))
		err = -EPROTO;
	if (err) {
		rtmon_close(r);
		errno = -err;
		return NULL;
	}
	return r;
}

void rtmon_close(struct rtmon *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r);
}

int rtmon_fd(const struct rtmon *r)
{
	return r->fd;
}

int rtmon_version(struct rtmon *r, struct rtmon_version *v)
{
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
	return rtmon_ioctl(r, RTMON_IOC_VERSION, v);
}

int rtmon_counters(struct rtmon *r, struct rtmon_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	return rtmon_ioctl(r, RTMON_IOC_COUNTERS, c);
}

int rtmon_start(struct rtmon *r)
{
	return rtmon_ioctl(r, RTMON_IOC_START, NULL);
}

int rtmon_stop(struct rtmon *r)
{
	return rtmon_ioctl(r, RTMON_IOC_STOP, NULL);
}

void rtmon_target_init(struct rtmon_target *t)
{
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	t->irq = -1;
}

int rtmon_target_add(struct rtmon *r, struct rtmon_target *t)
{
	t->size = sizeof(*t);
	return rtmon_ioctl(r, RTMON_IOC_TARGET_ADD, t);
}

int rtmon_target_del(struct rtmon *r, uint32_t id)
{
	return rtmon_ioctl(r, RTMON_IOC_TARGET_DEL, &id);
}

int rtmon_target_get(struct rtmon *r, uint32_t id, struct rtmon_target *t)
{
	rtmon_target_init(t);
	t->id = id;
	return rtmon_ioctl(r, RTMON_IOC_TARGET_GET, t);
}

int rtmon_read_records(struct rtmon *r, struct rtm_record *recs, size_t max)
{
	ssize_t n;

	if (!max)
		return -EINVAL;
	n = read(r->fd, recs, max * sizeof(*recs));
	if (n < 0)
		return -errno;
	if (n % sizeof(*recs))
		return -EPROTO;
	return (int)(n / sizeof(*recs));
}

int rtmon_set_nonblock(struct rtmon *r, int nonblock)
{
	int fl = fcntl(r->fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = nonblock ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	return fcntl(r->fd, F_SETFL, fl) ? -errno : 0;
}

int rtmon_set_read_acked(struct rtmon *r, int acked)
{
	__u32 mode = acked ? RTMON_READ_ACKED : RTMON_READ_CONSUME;

	return rtmon_ioctl(r, RTMON_IOC_READ_MODE, &mode);
}

int rtmon_ack_records(struct rtmon *r)
{
	return rtmon_ioctl(r, RTMON_IOC_ACK, NULL);
}

/* ---- names ---- */

static const char *const rtmon_end_names[] = {
	[RTMON_END_SWITCH_IN] = "switch_in",
	[RTMON_END_BLOCK] = "block",
	[RTMON_END_WORK_END] = "work_end",
};

const char *rtmon_end_name(uint32_t end)
{
	return end < sizeof(rtmon_end_names) / sizeof(rtmon_end_names[0]) ?
		rtmon_end_names[end] : "?";
}

int rtmon_end_parse(const char *s, uint32_t *end)
{
	uint32_t i;

	for (i = 0; i < sizeof(rtmon_end_names) / sizeof(rtmon_end_names[0]); i++)
		if (!strcmp(s, rtmon_end_names[i])) {
			*end = i;
			return 0;
		}
	return -EINVAL;
}

static const char *const rtmon_timer_names[RTM_TIMER_NR] = RTM_TIMER_NAMES_INIT;

const char *rtmon_timer_name(uint32_t kind)
{
	return kind && kind < RTM_TIMER_NR ? rtmon_timer_names[kind] : "?";
}

int rtmon_timers_parse(const char *s, uint32_t *mask)
{
	uint32_t m = 0, k;
	const char *p = s, *e;
	size_t n;

	if (!*s || !strcmp(s, "any")) {
		*mask = 0;
		return 0;
	}
	for (;;) {
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		for (k = 1; k < RTM_TIMER_NR; k++)
			if (strlen(rtmon_timer_names[k]) == n &&
			    !strncmp(p, rtmon_timer_names[k], n))
				break;
		if (k == RTM_TIMER_NR)
			return -EINVAL;
		m |= RTMON_TIMER_BIT(k);
		if (!e)
			break;
		p = e + 1;
	}
	*mask = m;
	return 0;
}

char *rtmon_timers_format(char *buf, size_t len, uint32_t mask)
{
	size_t off = 0;
	uint32_t k;
	int n;

	if (!len)
		return buf;
	buf[0] = 0;
	if (!mask) {
		snprintf(buf, len, "any");
		return buf;
	}
	for (k = 1; k < RTM_TIMER_NR; k++) {
		if (!(mask & RTMON_TIMER_BIT(k)))
			continue;
		n = snprintf(buf + off, len - off, "%s%s", off ? "," : "",
			     rtmon_timer_names[k]);
		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
	}
	return buf;
}

const char *rtmon_hop_name(uint32_t type)
{
	static const char *const names[] = {
		[RTM_HOP_IRQ] = "irq",
		[RTM_HOP_TIMER] = "timer",
		[RTM_HOP_TIMER_RUN] = "timer_run",
		[RTM_HOP_SOFTIRQ_RAISE] = "softirq_raise",
		[RTM_HOP_SOFTIRQ_ENTRY] = "softirq",
		[RTM_HOP_WAKING] = "waking",
		[RTM_HOP_SWITCH_IN] = "switch_in",
		[RTM_HOP_BLOCK] = "block",
		[RTM_HOP_WORK_BEGIN] = "work_begin",
		[RTM_HOP_WORK_END] = "work_end",
		[RTM_HOP_IRQ_EXIT] = "irq_exit",
		[RTM_HOP_RERUN] = "rerun",
		[RTM_HOP_HANDOFF] = "handoff",
		[RTM_HOP_WAIT] = "wait",
		[RTM_HOP_PREEMPT] = "preempt",
		[RTM_HOP_QUEUED] = "queued",
		[RTM_HOP_QUEUE_WORK] = "queue_work",
	};

	return type < sizeof(names) / sizeof(names[0]) && names[type] ?
		names[type] : "?";
}

const char *rtmon_blame_name(uint32_t cat)
{
	static const char *const names[RTM_BLAME_NR] = RTM_BLAME_NAMES_INIT;

	return cat < RTM_BLAME_NR ? names[cat] : "?";
}

const char *rtmon_prio_str(uint32_t prio, char *buf, size_t len)
{
	if (prio < 100)
		snprintf(buf, len, "rt %u", 99 - prio);
	else if (prio < 140)
		snprintf(buf, len, "nice %d", (int)prio - 120);
	else if (len)
		buf[0] = 0;
	return buf;
}

const char *rtmon_ctx_name(uint32_t ctx)
{
	switch (ctx) {
	case RTM_CTX_TASK:
		return "task";
	case RTM_CTX_SOFTIRQ:
		return "softirq";
	case RTM_CTX_HARDIRQ:
		return "hardirq";
	default:
		return "?";
	}
}

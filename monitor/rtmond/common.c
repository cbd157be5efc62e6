// SPDX-License-Identifier: GPL-2.0
/*
 * common.c - what every part of rtmond shares (rtmond.h): the state the
 * reader publishes, the daemon-wide counters, the log, the monotonic
 * clock and helper threads. It calls no other part.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtmond.h"

struct rtmond_live *rtmond_live;
char rtmond_load_tag[24];
char rtmond_load_key[64];
int rtmond_load_id_known;
struct rtmond_slot rtmond_slots[RTMOND_MAX_SLOTS];
struct rtmon *rtmond_dev;
struct rtmond_counters rtmond_cnt;

void rtmond_log(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "rtmond: ");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	strcat(buf, "\n");
	/* one write per line: lines from threads do not mix */
	if (write(STDERR_FILENO, buf, strlen(buf)) < 0)
		return;
}

uint64_t rtmond_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A mutex the real-time reader shares with other threads: no inversion. */
void rtmond_pi_mutex_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

/* A helper thread with a small stack (mlockall makes every page resident). */
int rtmond_start_thread(pthread_t *t, void *(*fn)(void *))
{
	pthread_attr_t a;
	int err;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 256 * 1024);
	err = pthread_create(t, &a, fn, NULL);
	pthread_attr_destroy(&a);
	return -err;
}

/* Set *stop under m, wake the thread waiting on c for it, and join it. */
void rtmond_stop_thread(pthread_t t, pthread_mutex_t *m, pthread_cond_t *c, int *stop)
{
	pthread_mutex_lock(m);
	*stop = 1;
	pthread_cond_broadcast(c);
	pthread_mutex_unlock(m);
	pthread_join(t, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * write_retry.c - the writer's failed writes (a full disk, an I/O error):
 * when to try again, what to say and what to show.
 *
 * A line that cannot be written is not dropped: the writer stops at it and
 * tries again from there, 100 ms after the first failure, then twice as
 * long each time up to 5 s, while the reader fills its bounded queue and
 * then leaves records in the module (nothing is acknowledged until stored).
 * One log line when writes start failing and one when everything waiting
 * is stored again, never one per try; between the two, the lines waiting
 * are a gauge (metrics, systemd status) and every failed try is counted
 * (rtmond_write_errors_total, counted where the write fails).
 *
 * Called by the writer thread only; rtmond_writer_waiting() by any (the
 * metrics thread, the reader's status): the fields it reads are atomic.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rtmond.h"

#define RETRY_FIRST_NS	100000000ull	/* 100 ms */
#define RETRY_MAX_NS	5000000000ull	/* 5 s */

static uint64_t delay_ns;		/* the wait before the next try */
static uint64_t since_ns;		/* the episode's first failure (0: none; atomic) */
static uint64_t stored_at;		/* lines stored when it began */
static uint64_t tries;			/* failed tries in it */

/* what the others read */
static uint64_t waiting;		/* lines read and not stored */
static const char *fail_file;		/* a string literal */
static int fail_err;

static void set_waiting(uint64_t lines)
{
	__atomic_store_n(&waiting, lines, __ATOMIC_RELAXED);
}

uint64_t rtmond_retry_failed(const char *dir, const char *file, int err, uint64_t lines,
			     uint64_t stored, uint64_t now)
{
	tries++;
	__atomic_store_n(&fail_file, file, __ATOMIC_RELAXED);
	__atomic_store_n(&fail_err, err, __ATOMIC_RELAXED);
	set_waiting(lines);
	if (!since_ns) {
		__atomic_store_n(&since_ns, now, __ATOMIC_RELEASE);
		stored_at = stored;
		tries = 1;
		delay_ns = RETRY_FIRST_NS;
		rtmond_log("writing %s/%s failed: %s: %" PRIu64 " lines wait for storage, tried "
			   "again after 0.1 s and twice as long each time up to 5 s; no record "
			   "is acknowledged to the module until they are stored", dir, file,
			   strerror(err), lines);
	} else if (delay_ns < RETRY_MAX_NS) {
		delay_ns = delay_ns * 2 > RETRY_MAX_NS ? RETRY_MAX_NS : delay_ns * 2;
	}
	return now + delay_ns;
}

uint64_t rtmond_retry_soon(uint64_t now)
{
	delay_ns = RETRY_FIRST_NS / 2;	/* doubled at the next failure */
	return now;
}

void rtmond_retry_waiting(uint64_t lines)
{
	set_waiting(lines);
}

int rtmond_retry_failing(void)
{
	return __atomic_load_n(&since_ns, __ATOMIC_ACQUIRE) != 0;
}

void rtmond_retry_ok(uint64_t stored, uint64_t now)
{
	if (!since_ns)
		return;
	rtmond_log("%s stored again after %.1f s: %" PRIu64 " lines waited for storage "
		   "(%" PRIu64 " failed tries)", __atomic_load_n(&fail_file, __ATOMIC_RELAXED),
		   (double)(now - since_ns) / 1e9, stored - stored_at, tries);
	__atomic_store_n(&since_ns, 0, __ATOMIC_RELEASE);
	set_waiting(0);
	__atomic_store_n(&fail_file, NULL, __ATOMIC_RELAXED);
}

uint64_t rtmond_writer_waiting(char *what, size_t len)
{
	const char *f = __atomic_load_n(&fail_file, __ATOMIC_RELAXED);

	what[0] = 0;
	if (!f)
		return 0;
	snprintf(what, len, "%s: %s", f, strerror(__atomic_load_n(&fail_err, __ATOMIC_RELAXED)));
	return __atomic_load_n(&waiting, __ATOMIC_RELAXED);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pi_test - a periodic real-time loop that needs a priority-inheritance
 * mutex held by a lower-priority task, as the explanation of a miss must
 * see it (issue 13: "blocked, woken by the owner, the boost visible"):
 *
 *   pi-waiter  SCHED_FIFO (-p), wakes at absolute times (clock_nanosleep,
 *              a sleeper hrtimer: rtmon's timer chain), marks
 *              rtmon_work_begin(loop), takes the mutex, releases it,
 *              marks rtmon_work_end(loop);
 *   pi-owner   SCHED_OTHER, same cpu: takes the mutex HOLD_US / 2 before
 *              the waiter's wakeup and keeps it, spinning, HOLD_US in all. The
 *              waiter preempts it, blocks on the mutex (the owner runs on,
 *              boosted to the waiter's priority) and is woken by the
 *              owner's unlock.
 *
 * Both threads are pinned to one cpu (-c). A first loop warms up unmeasured;
 * every loop after it prints one JSON line
 * (cookie, the thread ids, the waiter's CLOCK_MONOTONIC reads around each
 * marker and the mutex, whether the mutex was held when the waiter came:
 * "contended") for the test to join with rtmon's records.
 *
 *   pi_test [-n LOOPS] [-i PERIOD_US] [-H HOLD_US] [-p PRIO] [-c CPU]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rtmon/rtmon.h"

static long loops = 20, period_us = 20000, hold_us = 3000, cpu = 1;
static int prio = 50;
static pthread_mutex_t pi_lock;
static pthread_barrier_t start;
static struct timespec t0;	/* the first expiry */
static pid_t owner_tid;

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ts_ns(&t);
}

static struct timespec at(long k, long minus_us)
{
	uint64_t ns = ts_ns(&t0) + (uint64_t)k * period_us * 1000 -
		      (uint64_t)minus_us * 1000;
	struct timespec t = { .tv_sec = (time_t)(ns / 1000000000ull),
			      .tv_nsec = (long)(ns % 1000000000ull) };
	return t;
}

static int pin(const char *name, int policy, int p)
{
	struct sched_param sp = { .sched_priority = p };
	cpu_set_t set;
	int err;

	prctl(PR_SET_NAME, name);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (!err)
		err = pthread_setschedparam(pthread_self(), policy, &sp);
	if (err)
		fprintf(stderr, "pi_test: %s: cpu %ld, policy %d priority %d: %s\n",
			name, cpu, policy, p, strerror(err));
	return err;
}

static void *owner(void *arg)
{
	long k;
	int err = pin("pi-owner", SCHED_OTHER, 0);

	owner_tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&start);
	if (err)
		return (void *)1;
	for (k = 0; k <= loops; k++) {
		struct timespec t = at(k, hold_us / 2);
		uint64_t until;

		/* take it half the hold before the waiter wakes (its own
		 * wakeup, a soft timer of a SCHED_OTHER task, comes late) */
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		pthread_mutex_lock(&pi_lock);
		until = now_ns() + (uint64_t)hold_us * 1000;
		while (now_ns() < until)
			;
		pthread_mutex_unlock(&pi_lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_mutexattr_t ma;
	pthread_t ot;
	void *orc;
	long k;
	int c, err;

	while ((c = getopt(argc, argv, "n:i:H:p:c:")) != -1) {
		switch (c) {
		case 'n': loops = atol(optarg); break;
		case 'i': period_us = atol(optarg); break;
		case 'H': hold_us = atol(optarg); break;
		case 'p': prio = atoi(optarg); break;
		case 'c': cpu = atol(optarg); break;
		default:
			fprintf(stderr, "usage: pi_test [-n LOOPS] [-i PERIOD_US] [-H HOLD_US] [-p PRIO] [-c CPU]\n");
			return 2;
		}
	}
	if (loops < 1 || period_us < 1000 || hold_us < 100 || hold_us >= period_us / 2 ||
	    prio < 1 || prio > 99 || cpu < 0 || cpu >= CPU_SETSIZE || optind != argc) {
		fprintf(stderr, "pi_test: need LOOPS >= 1, PERIOD_US >= 1000, 100 <= HOLD_US < PERIOD_US / 2, PRIO 1..99, a cpu\n");
		return 2;
	}
	pthread_mutexattr_init(&ma);
	err = pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	if (!err)
		err = pthread_mutex_init(&pi_lock, &ma);
	if (err) {
		fprintf(stderr, "pi_test: priority-inheritance mutex: %s\n", strerror(err));
		return 1;
	}
	rtmon_init();
	/* as rt-tests do: no page fault and no first-call binding in the
	 * loop (the first loop ran 2 ms of those) */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		fprintf(stderr, "pi_test: mlockall: %s (going on)\n", strerror(errno));
	pthread_mutex_lock(&pi_lock);
	pthread_mutex_unlock(&pi_lock);
	(void)now_ns();
	pthread_barrier_init(&start, NULL, 2);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t0 = at(25, 0);		/* 25 periods from now: both threads set up */
	if (pthread_create(&ot, NULL, owner, NULL)) {
		fprintf(stderr, "pi_test: cannot start the owner thread\n");
		return 1;
	}
	err = pin("pi-waiter", SCHED_FIFO, prio);
	pthread_barrier_wait(&start);
	if (err) {
		pthread_join(ot, NULL);
		return 1;
	}
	/* loop 0 warms up (cookie 0, not printed): the first contended lock
	 * of the mutex and the first markers of the thread ran 1-2 ms more */
	for (k = 0; k <= loops; k++) {
		struct timespec t = at(k, 0);
		uint64_t woke, begin, locked, end;
		int contended;

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		woke = now_ns();
		begin = now_ns();
		rtmon_work_begin((uint64_t)k);
		/* the trylock tells a contended lock from a wait the waiter
		 * did not have (under emulation a vCPU can stand still for
		 * milliseconds between begin and locked, the mutex free) */
		contended = pthread_mutex_trylock(&pi_lock) == EBUSY;
		if (contended)
			pthread_mutex_lock(&pi_lock);
		locked = now_ns();
		pthread_mutex_unlock(&pi_lock);
		end = now_ns();
		rtmon_work_end((uint64_t)k);
		if (!k)
			continue;
		printf("{\"cookie\": %ld, \"waiter\": %ld, \"owner\": %d, \"expiry_ns\": %" PRIu64
		       ", \"woke_ns\": %" PRIu64 ", \"begin_ns\": %" PRIu64 ", \"locked_ns\": %" PRIu64
		       ", \"end_ns\": %" PRIu64 ", \"end_after_ns\": %" PRIu64
		       ", \"contended\": %d}\n",
		       k, (long)syscall(SYS_gettid), owner_tid, ts_ns(&t), woke, begin,
		       locked, end, now_ns(), contended);
		fflush(stdout);
	}
	pthread_join(ot, &orc);
	return orc ? 1 : 0;
}

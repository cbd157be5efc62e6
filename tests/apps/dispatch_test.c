// SPDX-License-Identifier: GPL-2.0
/*
 * dispatch_test - an application shaped like the ones rtmon watches:
 *
 *   feeder thread      blocks in pread() on a file served by a device
 *                      (a virtio-9p share in the test VM: every read is a
 *                      request answered by that device's interrupt), then
 *                      writes the item number to an eventfd;
 *   dispatcher thread  blocks on the eventfd, marks rtmon_work_begin(item)
 *                      and hands the item to the worker through a queue;
 *   worker thread      takes the item, works (spins) and marks
 *                      rtmon_work_end(item).
 *
 * So a chain runs IRQ -> (IRQ thread on PREEMPT_RT) -> feeder -> dispatcher
 * -> worker, ending at the worker's work_end. For every item it prints one
 * JSON line with the item's cookie, the thread ids, and CLOCK_MONOTONIC
 * times taken right before each marker, for the test to join with rtmon's
 * records.
 *
 *   dispatch_test -f FILE [-n ITEMS] [-p PERIOD_US] [-w WORK_US]
 *                 [-s SLOW_EVERY] [-S SLOW_WORK_US] [-q DEPTH] [-P PRIO]
 *
 * Every SLOW_EVERY-th item the worker spins SLOW_WORK_US instead of
 * WORK_US (to provoke deadline misses). Up to DEPTH items are in flight
 * (default 1: the feeder waits for each item's end, so chains stay
 * apart); with more, items queue behind a slow one while the worker is
 * busy with it (no wakeup hands them over: the worker never sleeps).
 * Each item's line has the time the worker took it (t_taken).
 * With -P the feeder and the dispatcher run SCHED_FIFO at PRIO and the
 * worker stays SCHED_OTHER, as I/O threads above their workers are set
 * up: items then begin on time while the worker spins on a slow one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rtmon/rtmon.h"

static const char *file;
static long items = 100, period_us = 5000, work_us = 50;
static long slow_every, slow_us = 3000;
static long depth = 1;
static long fifo_prio;
static int efd;

struct item {
	uint64_t cookie;
	uint64_t t_read_done, t_begin, t_taken, t_end;
	pid_t feeder, dispatcher, worker;
};
static struct item *log_items;

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
/* the queue: items q_head + 1 .. q_tail are waiting (in order) */
static uint64_t q_head, q_tail;
static uint64_t done_upto;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static pid_t tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void spin_us(long us)
{
	uint64_t end = now_ns() + (uint64_t)us * 1000;

	while (now_ns() < end)
		;
}

static void *feeder(void *arg)
{
	char buf[64];
	uint64_t i, one = 1;
	int fd = open(file, O_RDONLY);

	if (fd < 0) {
		perror(file);
		exit(1);
	}
	for (i = 1; i <= (uint64_t)items; i++) {
		struct timespec p = { 0, period_us * 1000 };

		nanosleep(&p, NULL);
		if (pread(fd, buf, sizeof(buf), 0) < 0) {
			perror("pread");
			exit(1);
		}
		log_items[i].feeder = tid();
		log_items[i].t_read_done = now_ns();
		if (write(efd, &one, sizeof(one)) != sizeof(one)) {
			perror("eventfd write");
			exit(1);
		}
		/* at most depth items in flight (1: chains stay apart) */
		pthread_mutex_lock(&q_lock);
		while (i - done_upto >= (uint64_t)depth)
			pthread_cond_wait(&done_cond, &q_lock);
		pthread_mutex_unlock(&q_lock);
	}
	close(fd);
	return NULL;
}

static void *dispatcher(void *arg)
{
	uint64_t n, i;

	for (i = 1; i <= (uint64_t)items; i++) {
		if (read(efd, &n, sizeof(n)) != sizeof(n)) {
			perror("eventfd read");
			exit(1);
		}
		log_items[i].dispatcher = tid();
		rtmon_work_begin(i);
		/*
		 * read once the module has the item begun: a preemption
		 * between a read before the call and the call is the
		 * dispatcher's own wait, not the item's in the queue
		 */
		log_items[i].t_begin = now_ns();
		pthread_mutex_lock(&q_lock);
		q_tail = i;
		pthread_cond_signal(&q_cond);
		pthread_mutex_unlock(&q_lock);
	}
	return NULL;
}

static void *worker(void *arg)
{
	uint64_t i;

	for (;;) {
		pthread_mutex_lock(&q_lock);
		while (q_head == q_tail)
			pthread_cond_wait(&q_cond, &q_lock);
		i = ++q_head;
		pthread_mutex_unlock(&q_lock);
		log_items[i].t_taken = now_ns();

		spin_us(slow_every && i % slow_every == 0 ? slow_us : work_us);
		log_items[i].worker = tid();
		log_items[i].t_end = now_ns();
		rtmon_work_end(i);

		pthread_mutex_lock(&q_lock);
		done_upto = i;
		pthread_cond_broadcast(&done_cond);
		pthread_mutex_unlock(&q_lock);
		if (i == (uint64_t)items)
			return NULL;
	}
}

static long num(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || end == s || v < 0) {
		fprintf(stderr, "dispatch_test: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

/* a thread at SCHED_FIFO fifo_prio, or inheriting ours without -P */
static int start(pthread_t *t, void *(*fn)(void *))
{
	struct sched_param sp = { .sched_priority = (int)fifo_prio };
	pthread_attr_t a;
	int err;

	pthread_attr_init(&a);
	if (fifo_prio) {
		pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&a, SCHED_FIFO);
		pthread_attr_setschedparam(&a, &sp);
	}
	err = pthread_create(t, &a, fn, NULL);
	pthread_attr_destroy(&a);
	if (err)
		fprintf(stderr, "dispatch_test: thread at SCHED_FIFO %ld: %s\n", fifo_prio, strerror(err));
	return err;
}

int main(int argc, char **argv)
{
	pthread_t f, d, w;
	long i;
	int c;

	while ((c = getopt(argc, argv, "f:n:p:w:s:S:q:P:")) != -1) {
		switch (c) {
		case 'f': file = optarg; break;
		case 'n': items = num(optarg, "item count"); break;
		case 'p': period_us = num(optarg, "period"); break;
		case 'w': work_us = num(optarg, "work time"); break;
		case 's': slow_every = num(optarg, "slow interval"); break;
		case 'S': slow_us = num(optarg, "slow work time"); break;
		case 'q': depth = num(optarg, "queue depth"); break;
		case 'P': fifo_prio = num(optarg, "priority"); break;
		default:
			fprintf(stderr, "usage: dispatch_test -f FILE [-n N] [-p US] [-w US] [-s K] [-S US] [-q DEPTH] [-P PRIO]\n");
			return 2;
		}
	}
	if (!file || items < 1 || depth < 1 || fifo_prio > 99) {
		fprintf(stderr, "dispatch_test: -f FILE, -n >= 1, -q >= 1 and -P 1..99 needed\n");
		return 2;
	}
	log_items = calloc(items + 1, sizeof(*log_items));
	/* a semaphore: one read per item, however many are written first */
	efd = eventfd(0, EFD_SEMAPHORE);
	if (!log_items || efd < 0) {
		perror("setup");
		return 1;
	}
	/* open the marker device before the first item */
	c = rtmon_work_end(0);
	if (c && c != -ENOENT)
		fprintf(stderr, "dispatch_test: rtmon markers: %s\n", strerror(-c));
	pthread_create(&w, NULL, worker, NULL);
	if (start(&d, dispatcher) || start(&f, feeder))
		return 1;
	pthread_join(f, NULL);
	pthread_join(d, NULL);
	pthread_join(w, NULL);
	for (i = 1; i <= items; i++) {
		struct item *it = &log_items[i];

		printf("{\"cookie\":%ld,\"feeder\":%d,\"dispatcher\":%d,\"worker\":%d,"
		       "\"t_read_done\":%" PRIu64 ",\"t_begin\":%" PRIu64 ",\"t_taken\":%" PRIu64
		       ",\"t_end\":%" PRIu64 ",\"slow\":%s}\n", i, it->feeder, it->dispatcher,
		       it->worker, it->t_read_done, it->t_begin, it->t_taken, it->t_end,
		       slow_every && i % slow_every == 0 ? "true" : "false");
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * shared_reader - the reader role of /dev/rtmon under threads that share
 * one file (issue 22, item 12). The first file to read (or poll) becomes
 * the reader; another file gets EBUSY, but a thread reading the reader's
 * own file never may. Before the fix the module took the role with a
 * compare-and-exchange and marked the file as the reader only afterwards:
 * a second thread of the same file reading in between got EBUSY.
 *
 *   shared_reader [-D SECONDS] [-n MAX_FILES] [-a CPU_A,CPU_B] [-p FIFO_PRIO]
 *
 * Part 1, for SECONDS (default 10) or MAX_FILES files: thread A opens a
 * fresh file, publishes it and reads it (non-blocking); thread B, woken by
 * a timer every 20-220 us (pseudo-random), reads whatever file is
 * published at that moment. B's reads land at random points of A's read,
 * also between A's claim of the role and its file being marked. A closes
 * the file once B is not reading it (a file still open when the next is
 * read would rightly make that one EBUSY). Any EBUSY is a failure.
 * Part 2: two files: the first to read is the reader, the second gets
 * EBUSY on read and POLLERR on poll, and takes the role once the first is
 * closed.
 *
 * A runs on CPU_A, B on CPU_B (default 0,1); -p: B runs SCHED_FIFO at
 * that priority. On one cpu with B above A (PREEMPT_RT: the kernel is
 * preemptible there) B's timer preempts A anywhere in its read; on two
 * cpus under QEMU's single-threaded TCG, B runs when QEMU switches vCPUs,
 * with A stopped wherever it was. Output: one line of counts
 * (files, reads by each thread, records read, EBUSY), then "FAIL: ..."
 * lines; exit status 0 when no EBUSY came in part 1 and part 2 held,
 * 1 otherwise, 2 on bad usage or a failed setup call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtmon/rtmon.h"

#define NREC	8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int cur_fd = -1;		/* the published file, under lock */
static volatile int done;
static long b_wakeups;
static int cpu_a, cpu_b = 1, prio_b;

struct counts {
	long reads, records, ebusy, other;
	int other_errno;
};
static struct counts ca, cb;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "shared_reader: cpu %d: %s\n", cpu, strerror(errno));
		exit(2);
	}
}

/* one non-blocking read of up to NREC records, counted in *c */
static void read_once(int fd, struct counts *c)
{
	static __thread struct rtm_record recs[NREC];
	ssize_t n = read(fd, recs, sizeof(recs));

	c->reads++;
	if (n >= 0) {
		c->records += n / (ssize_t)sizeof(recs[0]);
	} else if (errno == EBUSY) {
		c->ebusy++;
	} else if (errno != EAGAIN) {
		c->other++;
		c->other_errno = errno;
	}
}

static void *thread_b(void *arg)
{
	uint64_t rng = 88172645463325252ull;
	struct timespec ts = { 0 };

	pin(cpu_b);
	if (prio_b) {
		struct sched_param sp = { .sched_priority = prio_b };
		int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

		if (err) {
			fprintf(stderr, "shared_reader: SCHED_FIFO %d: %s\n", prio_b,
				strerror(err));
			exit(2);
		}
	}
	while (!done) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		ts.tv_nsec = 20000 + (long)(rng % 200000);
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		b_wakeups++;
		pthread_mutex_lock(&lock);
		if (cur_fd >= 0)
			read_once(cur_fd, &cb);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static int open_dev(void)
{
	int fd = open(RTMON_DEVICE, O_RDONLY | O_NONBLOCK);

	if (fd < 0) {
		fprintf(stderr, "shared_reader: %s: %s\n", RTMON_DEVICE, strerror(errno));
		exit(2);
	}
	return fd;
}

/* part 2: two files; returns the number of failed checks */
static int two_files(void)
{
	struct rtm_record rec;
	struct pollfd p;
	int f1 = open_dev(), f2 = open_dev(), bad = 0;

	if (read(f1, &rec, sizeof(rec)) < 0 && errno != EAGAIN) {
		printf("FAIL: first file's read: %s\n", strerror(errno));
		bad++;
	}
	if (read(f2, &rec, sizeof(rec)) >= 0 || errno != EBUSY) {
		printf("FAIL: second file's read while the first is the reader: %s, not EBUSY\n",
		       strerror(errno));
		bad++;
	}
	p.fd = f2;
	p.events = POLLIN;
	if (poll(&p, 1, 0) != 1 || !(p.revents & POLLERR)) {
		printf("FAIL: second file's poll: revents %#x, not POLLERR\n", p.revents);
		bad++;
	}
	close(f1);
	if (read(f2, &rec, sizeof(rec)) < 0 && errno != EAGAIN) {
		printf("FAIL: second file's read after the first was closed: %s\n",
		       strerror(errno));
		bad++;
	}
	close(f2);
	return bad;
}

int main(int argc, char **argv)
{
	long seconds = 10, max_files = 1000000, files = 0;
	pthread_t tb;
	uint64_t end;
	int c, fd, bad;

	while ((c = getopt(argc, argv, "D:n:a:p:")) != -1) {
		switch (c) {
		case 'D':
			seconds = atol(optarg);
			break;
		case 'n':
			max_files = atol(optarg);
			break;
		case 'a':
			if (sscanf(optarg, "%d,%d", &cpu_a, &cpu_b) != 2) {
				fprintf(stderr, "shared_reader: -a CPU_A,CPU_B\n");
				return 2;
			}
			break;
		case 'p':
			prio_b = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: shared_reader [-D SECONDS] [-n MAX_FILES] [-a CPU_A,CPU_B] [-p FIFO_PRIO]\n");
			return 2;
		}
	}
	if (seconds <= 0 || max_files <= 0 || prio_b < 0 || prio_b > 99) {
		fprintf(stderr, "shared_reader: -D and -n must be positive, -p in [1, 99]\n");
		return 2;
	}
	pin(cpu_a);
	if (pthread_create(&tb, NULL, thread_b, NULL)) {
		fprintf(stderr, "shared_reader: pthread_create failed\n");
		return 2;
	}
	end = now_ns() + (uint64_t)seconds * 1000000000ull;
	while (files < max_files && now_ns() < end) {
		fd = open_dev();
		pthread_mutex_lock(&lock);
		cur_fd = fd;
		pthread_mutex_unlock(&lock);
		read_once(fd, &ca);
		pthread_mutex_lock(&lock);	/* B is not reading it now */
		cur_fd = -1;
		pthread_mutex_unlock(&lock);
		close(fd);
		files++;
	}
	done = 1;
	pthread_join(tb, NULL);
	printf("files %ld reads A %ld B %ld (of %ld wakeups) records %ld ebusy A %ld B %ld other errors %ld\n",
	       files, ca.reads, cb.reads, b_wakeups, ca.records + cb.records,
	       ca.ebusy, cb.ebusy, ca.other + cb.other);
	bad = two_files();
	if (ca.ebusy + cb.ebusy) {
		printf("FAIL: %ld EBUSY on the reader's own file (threads sharing it)\n",
		       ca.ebusy + cb.ebusy);
		bad++;
	}
	if (ca.other + cb.other) {
		printf("FAIL: %ld reads failed otherwise (last: %s)\n", ca.other + cb.other,
		       strerror(ca.other ? ca.other_errno : cb.other_errno));
		bad++;
	}
	if (!cb.reads) {
		printf("FAIL: thread B never read a published file\n");
		bad++;
	}
	return bad ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * markbench: the cost of one rtmon_work_begin + rtmon_work_end pair.
 *
 *   markbench [-n N] [-s SLEEP_US] [-c CPU] markers|noop|tight-markers|tight-noop
 *
 * markers: N rounds of: sleep SLEEP_US (a timer wakeup: with a target
 *   `--comm markbench --timer --end work_end` each round is a chain that
 *   work_begin forks and work_end completes), then time one
 *   rtmon_work_begin(i) + rtmon_work_end(i) pair with CLOCK_MONOTONIC.
 * noop: the same rounds with two ioctls of an unknown number on /dev/rtmon
 *   (ENOTTY: the syscall and the driver's switch, nothing else).
 * tight-*: N pairs back to back, no sleep (no chain is open: the markers'
 *   fast path), one mean.
 * Prints: MODE median_ns mean_ns p90_ns clock_ns (clock_ns: the median of two
 * back-to-back clock_gettime calls, included in the pair times).
 *
 * On a host without /dev/rtmon: MARKBENCH_DEV=/dev/null makes librtmon's
 * open("/dev/rtmon") open that file instead (ioctl fails fast with ENOTTY),
 * for counting the library's instructions under callgrind; the measured
 * loop is the function run_pairs().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rtmon/rtmon.h"

/* librtmon's open() of /dev/rtmon lands here (a static link) */
int open(const char *path, int flags, ...)
{
	const char *dev = getenv("MARKBENCH_DEV");
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (dev && *dev && !strcmp(path, RTMON_DEVICE))
		path = dev;
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

#define NOOP_IOC _IO(RTMON_IOC_MAGIC, 0x7f)

static int noop_fd = -1;

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void pair(int noop, uint64_t cookie)
{
	if (noop) {
		ioctl(noop_fd, NOOP_IOC, &cookie);
		ioctl(noop_fd, NOOP_IOC, &cookie);
	} else {
		rtmon_work_begin(cookie);
		rtmon_work_end(cookie);
	}
}

/* the loop callgrind measures (--toggle-collect=run_pairs) */
__attribute__((noinline)) void run_pairs(int noop, long n)
{
	long i;

	for (i = 0; i < n; i++)
		pair(noop, (uint64_t)i + 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = 10000, sleep_us = 500, i;
	int opt, cpu = -1, noop, tight, err;
	const char *mode;
	uint64_t *t, t0, t1, sum = 0, clk;
	struct timespec ts;

	while ((opt = getopt(argc, argv, "n:s:c:")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 's': sleep_us = atol(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || n < 1)
		goto usage;
	mode = argv[optind];
	tight = !strncmp(mode, "tight-", 6);
	noop = !strcmp(mode + (tight ? 6 : 0), "noop");
	if (!noop && strcmp(mode + (tight ? 6 : 0), "markers"))
		goto usage;
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			perror("sched_setaffinity");
	}
	if (noop) {
		noop_fd = open(RTMON_DEVICE, O_RDONLY | O_CLOEXEC);
		if (noop_fd < 0) {
			perror(RTMON_DEVICE);
			return 1;
		}
		errno = 0;
		if (ioctl(noop_fd, NOOP_IOC, &n) != -1 || errno != ENOTTY)
			fprintf(stderr, "markbench: warning: no-op ioctl did not fail with ENOTTY\n");
	} else {
		/* open the device (and load the tracepoint provider) first */
		err = rtmon_init();
		if (err && !getenv("MARKBENCH_DEV"))
			fprintf(stderr, "markbench: rtmon_init: %s\n", strerror(-err));
	}
	/* warm up */
	run_pairs(noop, 100);
	if (tight) {
		t0 = now_ns();
		run_pairs(noop, n);
		t1 = now_ns();
		printf("%s %.1f\n", mode, (double)(t1 - t0) / n);
		return 0;
	}
	t = calloc(n, sizeof(*t));
	if (!t)
		return 1;
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		t[i] = now_ns() - t0;
	}
	qsort(t, n, sizeof(*t), cmp_u64);
	clk = t[n / 2];
	ts.tv_sec = sleep_us / 1000000;
	ts.tv_nsec = sleep_us % 1000000 * 1000;
	for (i = 0; i < n; i++) {
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		t0 = now_ns();
		pair(noop, (uint64_t)i + 1);
		t1 = now_ns();
		t[i] = t1 - t0;
		sum += t[i];
	}
	qsort(t, n, sizeof(*t), cmp_u64);
	printf("%s %llu %.1f %llu %llu\n", mode, (unsigned long long)t[n / 2],
	       (double)sum / n, (unsigned long long)t[n * 9 / 10],
	       (unsigned long long)clk);
	return 0;
usage:
	fprintf(stderr, "usage: markbench [-n N] [-s SLEEP_US] [-c CPU] markers|noop|tight-markers|tight-noop\n");
	return 2;
}

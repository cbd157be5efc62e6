// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_hog - a real-time task that takes a cpu away from lower priorities
 * in bursts: the competing task of the GPIO miss tests on boards whose
 * image has no chrt or python (tests/vm/guest/arm/gpio-miss.sh).
 *
 *   cpu_hog -p FIFO_PRIO -a CPU [-b BURST_US] [-i INTERVAL_US] [-t SECONDS] [-h]
 *
 * Runs SCHED_FIFO at FIFO_PRIO pinned to CPU and, every INTERVAL_US, spins
 * BURST_US on CLOCK_MONOTONIC, for SECONDS in all. Defaults: -b 15000
 * -i 60000 -t 60. Exit status 0 when done, 2 on a bad argument, 1 when
 * the priority or the cpu cannot be set.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* a whole number in [min, max] from OPT's argument, or exit 2 */
static long arg_long(char opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "cpu_hog: -%c '%s': a whole number from %ld to %ld expected\n",
			opt, s, min, max);
		exit(2);
	}
	return v;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: cpu_hog -p FIFO_PRIO -a CPU [-b BURST_US] [-i INTERVAL_US] [-t SECONDS] [-h]\n");
}

int main(int argc, char **argv)
{
	long prio = -1, cpu = -1, burst_us = 15000, interval_us = 60000, seconds = 60;
	struct sched_param sp = { 0 };
	uint64_t end, next;
	cpu_set_t set;
	int opt;

	while ((opt = getopt(argc, argv, "p:a:b:i:t:h")) != -1) {
		switch (opt) {
		case 'p': prio = arg_long(opt, optarg, 1, 99); break;
		case 'a': cpu = arg_long(opt, optarg, 0, CPU_SETSIZE - 1); break;
		case 'b': burst_us = arg_long(opt, optarg, 1, 10000000); break;
		case 'i': interval_us = arg_long(opt, optarg, 1, 100000000); break;
		case 't': seconds = arg_long(opt, optarg, 1, 86400); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || prio < 0 || cpu < 0 || burst_us > interval_us) {
		if (burst_us > interval_us)
			fprintf(stderr, "cpu_hog: the burst (-b %ld) is longer than the interval (-i %ld)\n",
				burst_us, interval_us);
		usage(stderr);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "cpu_hog: cpu %ld: %s\n", cpu, strerror(errno));
		return 1;
	}
	sp.sched_priority = (int)prio;
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "cpu_hog: SCHED_FIFO %ld: %s\n", prio, strerror(errno));
		return 1;
	}
	next = now_ns();
	end = next + (uint64_t)seconds * 1000000000ull;
	while (next < end) {
		uint64_t stop = next + (uint64_t)burst_us * 1000;
		struct timespec ts;

		while (now_ns() < stop)
			;
		next += (uint64_t)interval_us * 1000;
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	return 0;
}

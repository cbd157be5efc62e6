// SPDX-License-Identifier: GPL-2.0
/*
 * edge_flood - interrupt floods on a simulated GPIO line: toggles a
 * gpio-sim line's pull attribute (sysfs, "pull-up"/"pull-down") as fast as
 * it can for DURATION ms, NUM times with GAP ms between the floods. Each
 * toggle is an edge, so an interrupt of the line's consumer (raised by
 * irq_sim's irq_work on the cpu that writes). The guest test
 * tests/vm/guest/explain-irq.sh uses it to delay a task with interrupts.
 *
 *   edge_flood -f PULL_FILE [-d DURATION_MS] [-n NUM] [-g GAP_MS] [-a CPU]
 *              [-p FIFO_PRIO] [-o WINDOWS_FILE] [-r READY_FILE]
 *
 * -a: pinned to that cpu (the hard interrupts come there); -p: SCHED_FIFO
 * at that priority (default: the policy it was started with). -r: a file
 * created once it is set up, before the first flood (after GAP ms).
 * Defaults: -d 300 -n 5 -g 300.
 *
 * Output (-o, or stdout), written after the last flood (no I/O during
 * one): a line per flood "START_NS END_NS EDGES" (CLOCK_MONOTONIC, as
 * rtmon's records). Exit status 1 on a failed call, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_FLOODS 1000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long num(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "edge_flood: %s: '%s' is not a number in [%ld, %ld]\n",
			opt, s, lo, hi);
		exit(2);
	}
	return v;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

int main(int argc, char **argv)
{
	static uint64_t start[MAX_FLOODS], end[MAX_FLOODS], edges[MAX_FLOODS];
	const char *file = NULL, *out = NULL, *ready = NULL;
	long dur = 300, n = 5, gap = 300, cpu = -1, prio = 0, i;
	static const char up[] = "pull-up", down[] = "pull-down";
	FILE *o = stdout;
	int opt, fd;

	while ((opt = getopt(argc, argv, "f:d:n:g:a:p:o:r:")) != -1) {
		switch (opt) {
		case 'f': file = optarg; break;
		case 'd': dur = num("-d", optarg, 1, 60000); break;
		case 'n': n = num("-n", optarg, 1, MAX_FLOODS); break;
		case 'g': gap = num("-g", optarg, 0, 60000); break;
		case 'a': cpu = num("-a", optarg, 0, CPU_SETSIZE - 1); break;
		case 'p': prio = num("-p", optarg, 1, 99); break;
		case 'o': out = optarg; break;
		case 'r': ready = optarg; break;
		default:
			fprintf(stderr, "usage: edge_flood -f PULL_FILE [-d DURATION_MS] [-n NUM] "
				"[-g GAP_MS] [-a CPU] [-p FIFO_PRIO] [-o WINDOWS_FILE] [-r READY_FILE]\n");
			return 2;
		}
	}
	if (!file || optind != argc) {
		fprintf(stderr, "edge_flood: -f PULL_FILE is needed (no other arguments)\n");
		return 2;
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("edge_flood: sched_setaffinity");
			return 1;
		}
	}
	if (prio) {
		struct sched_param sp = { .sched_priority = (int)prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("edge_flood: sched_setscheduler");
			return 1;
		}
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("edge_flood: mlockall (going on)");
	fd = open(file, O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "edge_flood: %s: %s\n", file, strerror(errno));
		return 1;
	}
	if (pwrite(fd, down, sizeof(down) - 1, 0) < 0) {
		fprintf(stderr, "edge_flood: write %s: %s\n", file, strerror(errno));
		return 1;
	}
	if (ready) {
		int r = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (r < 0) {
			fprintf(stderr, "edge_flood: %s: %s\n", ready, strerror(errno));
			return 1;
		}
		close(r);
	}
	for (i = 0; i < n; i++) {
		uint64_t stop, k = 0;

		sleep_ms(gap);
		start[i] = now_ns();
		stop = start[i] + (uint64_t)dur * 1000000ull;
		do {
			const char *s = k & 1 ? down : up;
			size_t len = k & 1 ? sizeof(down) - 1 : sizeof(up) - 1;

			if (pwrite(fd, s, len, 0) != (ssize_t)len) {
				fprintf(stderr, "edge_flood: write %s: %s\n", file, strerror(errno));
				return 1;
			}
			k++;
		} while (now_ns() < stop);
		/* the line ends low, as it started */
		if (k & 1 && pwrite(fd, down, sizeof(down) - 1, 0) < 0) {
			fprintf(stderr, "edge_flood: write %s: %s\n", file, strerror(errno));
			return 1;
		}
		end[i] = now_ns();
		edges[i] = k;
	}
	close(fd);
	if (out && !(o = fopen(out, "w"))) {
		fprintf(stderr, "edge_flood: %s: %s\n", out, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++)
		fprintf(o, "%llu %llu %llu\n", (unsigned long long)start[i],
			(unsigned long long)end[i], (unsigned long long)edges[i]);
	if (fclose(o)) {
		perror("edge_flood: output");
		return 1;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gpio_common.c - shared helpers of the GPIO loopback tools.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "gpio_common.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void spin_until(uint64_t t)
{
	while (now_ns() < t)
		;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	return 0;
}

uint64_t opt_u64(const char *prog, const char *opt, const char *s,
		 uint64_t min, uint64_t max)
{
	uint64_t v;

	if (parse_u64(s, &v)) {
		fprintf(stderr, "%s: %s: '%s' is not a number\n", prog, opt, s);
		exit(EXIT_USAGE);
	}
	if (v < min || v > max) {
		fprintf(stderr, "%s: %s: %" PRIu64 " out of range [%" PRIu64
			", %" PRIu64 "]\n", prog, opt, v, min, max);
		exit(EXIT_USAGE);
	}
	return v;
}

void opt_range(const char *prog, const char *opt, const char *s,
	       uint64_t min, uint64_t max, uint64_t *lo, uint64_t *hi)
{
	const char *colon = strchr(s, ':');
	char a[32];

	if (!colon || (size_t)(colon - s) >= sizeof(a)) {
		fprintf(stderr, "%s: %s: expected MIN:MAX, got '%s'\n", prog,
			opt, s);
		exit(EXIT_USAGE);
	}
	memcpy(a, s, colon - s);
	a[colon - s] = 0;
	*lo = opt_u64(prog, opt, a, min, max);
	*hi = opt_u64(prog, opt, colon + 1, min, max);
	if (*lo > *hi) {
		fprintf(stderr, "%s: %s: MIN %" PRIu64 " > MAX %" PRIu64 "\n",
			prog, opt, *lo, *hi);
		exit(EXIT_USAGE);
	}
}

static void board_copy(char *dst, size_t len, const char *v)
{
	size_t n = strlen(v);

	/* BOARD_KEY="value" or 'value' or value */
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v++;
		n -= 2;
	}
	if (n >= len)
		n = len - 1;
	memcpy(dst, v, n);
	dst[n] = 0;
}

void board_read(const char *prog, const char *path, struct gpio_board *b)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "BOARD_GPIO_CHIP", offsetof(struct gpio_board, chip) },
		{ "BOARD_GPIO_STIM_OUT", offsetof(struct gpio_board, stim_out) },
		{ "BOARD_GPIO_STIM_IN", offsetof(struct gpio_board, stim_in) },
		{ "BOARD_GPIO_RESP_OUT", offsetof(struct gpio_board, resp_out) },
		{ "BOARD_GPIO_RESP_IN", offsetof(struct gpio_board, resp_in) },
	};
	char line[512], *eq, *nl;
	const char *base;
	FILE *f;
	size_t i;

	memset(b, 0, sizeof(*b));
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: --board %s: %s\n", prog, path, strerror(errno));
		exit(EXIT_USAGE);
	}
	base = strrchr(path, '/');
	board_copy(b->name, sizeof(b->name), base ? base + 1 : path);
	eq = strstr(b->name, ".board");
	if (eq)
		*eq = 0;
	while (fgets(line, sizeof(line), f)) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		eq = strchr(line, '=');
		if (line[0] == '#' || !eq)
			continue;
		*eq = 0;
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(line, keys[i].key))
				board_copy((char *)b + keys[i].off, 64, eq + 1);
	}
	fclose(f);
	if (!b->chip[0] || !b->stim_out[0] || !b->stim_in[0] ||
	    !b->resp_out[0] || !b->resp_in[0]) {
		fprintf(stderr,
			"%s: --board %s: no GPIO loopback wiring in this board file (BOARD_GPIO_CHIP, BOARD_GPIO_STIM_OUT, BOARD_GPIO_STIM_IN, BOARD_GPIO_RESP_OUT and BOARD_GPIO_RESP_IN must all be set: see boards/README.md)\n",
			prog, path);
		exit(EXIT_USAGE);
	}
}

int rt_setup(const char *prog, int prio, int cpu)
{
	struct sched_param sp = { .sched_priority = prio };

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "%s: cannot run on cpu %d: %s\n", prog,
				cpu, strerror(errno));
			return -1;
		}
	}
	if (prio > 0 && sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "%s: SCHED_FIFO %d: %s (needs root or CAP_SYS_NICE)\n",
			prog, prio, strerror(errno));
		return -1;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		fprintf(stderr, "%s: mlockall: %s\n", prog, strerror(errno));
		return -1;
	}
	return 0;
}

int irq_by_name(const char *name)
{
	char line[1024], *tok, *save, *colon;
	int irq = -1, n;
	FILE *f;

	f = fopen("/proc/interrupts", "r");
	if (!f)
		return -1;
	while (irq < 0 && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		if (sscanf(line, "%d", &n) != 1)
			continue;
		/* the action names are the last field(s): compare each word */
		for (tok = strtok_r(colon + 1, " \t\n,", &save); tok;
		     tok = strtok_r(NULL, " \t\n,", &save))
			if (!strcmp(tok, name))
				irq = n;
	}
	fclose(f);
	return irq;
}

int write_file_atomic(const char *path, const char *s)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fputs(s, f);
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * unit.h - the harness of the core's unit tests (test_core.c,
 * test_handoff.c). CHECK keeps the first failed condition of a case;
 * begin() and end() frame a case and print one "PASS: PREFIXname" or
 * "FAIL: PREFIXname: line N: condition" line (failed is set); mk() makes
 * a core in 64-byte aligned memory, freed by the next mk(); unit_drain()
 * reads every record, unit_blame_sum() adds a record's blame up.
 * Define UNIT_PREFIX, the test names' prefix, before including it.
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <stdlib.h>

#include "rtm_core.h"

#ifndef UNIT_PREFIX
#error "define UNIT_PREFIX (the prefix of the test names) first"
#endif

static int failed;
static const char *cur;
static char why[256];

#define CHECK(cond) do {						\
	if (!(cond) && !why[0])						\
		snprintf(why, sizeof(why), "line %d: %s", __LINE__, #cond); \
} while (0)

static void begin(const char *name)
{
	cur = name;
	why[0] = 0;
}

static void end(void)
{
	if (why[0]) {
		printf("FAIL: " UNIT_PREFIX "%s: %s\n", cur, why);
		failed = 1;
	} else {
		printf("PASS: " UNIT_PREFIX "%s\n", cur);
	}
}

static void *mem;

static struct rtm_core *mk(struct rtm_params *p)
{
	size_t sz = rtm_core_memsize(p);

	free(mem);
	mem = aligned_alloc(64, (sz + 63) & ~(size_t)63);
	return rtm_core_init(mem, sz, p);
}

/* the records of cpus 0..ncpus-1 read, how many; the last one in *last */
static inline int unit_drain(struct rtm_core *c, unsigned int ncpus,
			     struct rtm_record *last)
{
	struct rtm_record r;
	unsigned int k;
	int n = 0;

	for (k = 0; k < ncpus; k++)
		while (rtm_core_read(c, k, &r)) {
			if (last)
				*last = r;
			n++;
		}
	return n;
}

/* a record's blame parts added up (the latency, if they add up) */
static inline unsigned long long unit_blame_sum(const struct rtm_record *r)
{
	unsigned long long s = 0;
	unsigned int i;

	for (i = 0; i < RTM_BLAME_NR; i++)
		s += r->blame.ns[i];
	return s;
}

#endif /* UNIT_H */

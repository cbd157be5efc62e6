// SPDX-License-Identifier: GPL-2.0
/*
 * explainbench - what explaining a miss costs rtmond's snapshot worker or
 * 'rtmonctl explain': reading the ftrace snapshot (fts_load: file read,
 * parse, sort) and explaining the record with it (rtx_explain), N times.
 *
 *   explainbench RECORD.json SNAPSHOT.txt [N]
 *
 * Prints the snapshot's events and, per miss, the wall time of each step
 * (CLOCK_MONOTONIC, best and median of N) on this machine. Under callgrind
 * (--toggle-collect=explain_once) it counts the instructions of one
 * load + explain.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "explain.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct rtx_result res;

/* one miss: the snapshot read and the chain explained; noinline for callgrind */
__attribute__((noinline)) static size_t explain_once(const struct rtx_chain *c,
						     const char *snap, double *t_load,
						     double *t_explain)
{
	struct fts_trace t;
	double a = now_ms(), b;
	size_t n;

	if (fts_load(&t, snap)) {
		fprintf(stderr, "explainbench: cannot read %s\n", snap);
		exit(1);
	}
	b = now_ms();
	rtx_explain(c, &t, &res);
	*t_load = b - a;
	*t_explain = now_ms() - b;
	n = t.n;
	fts_free(&t);
	return n;
}

int main(int argc, char **argv)
{
	struct rtx_chain c;
	json_error_t je;
	json_t *rec;
	char err[128];
	double *load, *ex;
	int n = argc > 3 ? atoi(argv[3]) : 200, i;
	size_t events = 0;

	if (argc < 3 || n < 1) {
		fprintf(stderr, "usage: explainbench RECORD.json SNAPSHOT.txt [N]\n");
		return 2;
	}
	rec = json_load_file(argv[1], 0, &je);
	if (!rec || rtx_chain_from_json(&c, rec, err, sizeof(err))) {
		fprintf(stderr, "explainbench: %s: %s\n", argv[1], rec ? err : je.text);
		return 1;
	}
	load = calloc((size_t)n, sizeof(*load));
	ex = calloc((size_t)n, sizeof(*ex));
	if (!load || !ex)
		return 1;
	for (i = 0; i < n; i++)
		events = explain_once(&c, argv[2], &load[i], &ex[i]);
	qsort(load, (size_t)n, sizeof(*load), cmp);
	qsort(ex, (size_t)n, sizeof(*ex), cmp);
	printf("events %zu parts %d sum_ok %d load_best_ms %.4f load_median_ms %.4f "
	       "explain_best_ms %.4f explain_median_ms %.4f\n", events, res.nparts,
	       res.sum == res.latency, load[0], load[n / 2], ex[0], ex[n / 2]);
	json_decref(rec);
	free(load);
	free(ex);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * explain.h - where a chain's time went, and who took it.
 *
 * Input: a chain record (its hops, as rtmon-replay, rtmonctl and rtmond
 * see them) and the kernel events around it (an ftrace snapshot,
 * ftrace_snap.h). Output: the chain's latency split into parts, each
 * with a category, who (a task, an IRQ, a softirq) and the time; the
 * parts cover the chain from start to end exactly, so they add up to the
 * latency. The culprit is the largest part.
 *
 * Between two hops, the time belongs to the context that had to act:
 * - the root (a timer's programmed expiry) to its handler: source_delay,
 *   with the task running on that cpu meanwhile (interrupts or preemption
 *   off there);
 * - a hard IRQ or timer handler up to its wakeup: handler; a softirq: its
 *   handler;
 * - a woken task until it runs: runnable, split by who ran on its cpu
 *   instead (each task with its priority and time), and the hard-IRQ and
 *   softirq interference on that cpu;
 * - a task of the chain until its next hop: running, preempted (by
 *   whom), blocked (in what state, woken by whom);
 * - an item handed through a queue to a worker still busy with earlier
 *   items (work_end or handoff by another task than the previous hop's):
 *   the worker's running time up to its last librtmon marker of another
 *   cookie is queued, behind that worker;
 * - what the snapshot does not cover: unknown (the explanation is then
 *   partial, and says which part is missing).
 */
#ifndef EXPLAIN_H
#define EXPLAIN_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "ftrace_snap.h"

#define RTX_MAX_HOPS	16
#define RTX_MAX_PARTS	128

enum rtx_cat {
	RTX_SOURCE_DELAY,	/* timer expiry -> handler */
	RTX_HANDLER,		/* hard IRQ / timer handler */
	RTX_SOFTIRQ,		/* softirq handler of the chain */
	RTX_RUNNABLE,		/* woken, waiting: who ran instead */
	RTX_IRQ,		/* hard IRQ interference */
	RTX_SOFTIRQ_INTF,	/* softirq interference */
	RTX_RUNNING,		/* a task of the chain at work */
	RTX_PREEMPTED,		/* ... preempted: who ran instead */
	RTX_BLOCKED,		/* ... blocked mid-chain */
	RTX_QUEUED,		/* item waits: its worker on earlier work */
	RTX_UNKNOWN,		/* not in the snapshot */
	RTX_NCAT
};

struct rtx_hop {
	uint64_t ts;
	int cpu;
	int type;		/* RTM_HOP_* */
	int ctx;		/* RTM_CTX_* */
	uint32_t pid;		/* task, or irq number */
	char comm[FTS_COMM_LEN];
};

struct rtx_chain {
	uint64_t seq, start, end;
	int kind;		/* RTM_KIND_* */
	uint64_t source;
	uint64_t cookie;	/* of the work_end that completed it */
	int has_cookie;
	int nhops;
	int truncated;		/* the record kept the root + last hops */
	struct rtx_hop hops[RTX_MAX_HOPS];
};

struct rtx_part {
	enum rtx_cat cat;
	char who[128];		/* "hog[412] rt 80", "irq 28 virtio1", ... */
	int cpu;
	int hop;		/* the first hop this part leads to */
	uint64_t ns;
	/* ns by the hop it leads to (1..nhops): one who may take time
	 * before several hops (an IRQ interrupting two tasks of the chain) */
	uint64_t hop_ns[RTX_MAX_HOPS + 1];
};

struct rtx_result {
	uint64_t latency;
	uint64_t sum;			/* of the parts: == latency */
	int nparts;
	struct rtx_part parts[RTX_MAX_PARTS];	/* aggregated, largest first */
	int culprit;			/* index in parts, -1: none */
	int partial;
	char missing[160];		/* what the snapshot lacks */
};

struct rtm_record;

const char *rtx_cat_name(enum rtx_cat c);
/* The chain of a record as the module emits it (rtm_record.h). */
void rtx_chain_from_record(struct rtx_chain *c, const struct rtm_record *r);
/*
 * The chain from one record as JSON (rtmon_record_json()'s form: the
 * lines of misses.jsonl, records.jsonl, 'rtmonctl records --json').
 * 0, or -1 with why in err.
 */
int rtx_chain_from_json(struct rtx_chain *c, json_t *rec, char *err, size_t len);
/* Explain chain c with the events of t into r (never fails: partial). */
void rtx_explain(const struct rtx_chain *c, const struct fts_trace *t,
		 struct rtx_result *r);
/* "65% (590.000 us) runnable behind hog[412] rt 80 on cpu 1" */
void rtx_culprit_line(const struct rtx_result *r, char *buf, size_t len);
/*
 * JSON: {"latency_ns", "partial", "missing", "culprit", "parts": [...]};
 * a part: {"category", "who", "cpu", "hop" (the first), "ns", "share",
 * "by_hop": [{"hop", "ns"}, ...]}
 */
json_t *rtx_json(const struct rtx_result *r);
/*
 * As text (explain_text.c): "#SEQ latency ...: culprit line", the parts'
 * table, the sum, how many events of t (events_of: "snapshot", "trace")
 * and lines not understood, and what is missing.
 */
void rtx_print(FILE *f, uint64_t seq, const struct rtx_result *r,
	       const struct fts_trace *t, const char *events_of);

#endif /* EXPLAIN_H */

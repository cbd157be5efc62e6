/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtmon.h - internal declarations shared by the module's files.
 */
#ifndef RTMON_H
#define RTMON_H

#include <linux/percpu.h>
#include <asm/local64.h>
#include <linux/seq_file.h>
#include <linux/mutex.h>
#include <linux/wait.h>

#include "core/rtm_core.h"
#include "uapi/rtmon.h"

#define RTMON_VERSION	"0.3.0"

/* One entry per kernel tracepoint rtmon hooks; order of registration. */
enum rtmon_probe_id {
	RTMON_P_IRQ_ENTRY,
	RTMON_P_IRQ_EXIT,
	RTMON_P_SOFTIRQ_RAISE,
	RTMON_P_SOFTIRQ_ENTRY,
	RTMON_P_SOFTIRQ_EXIT,
	RTMON_P_HRTIMER_ENTRY,
	RTMON_P_HRTIMER_EXIT,
	RTMON_P_SCHED_WAKING,
	RTMON_P_SCHED_SWITCH,
	RTMON_P_WQ_QUEUE,
	RTMON_P_WQ_START,
	RTMON_P_WQ_END,
	RTMON_NR_PROBES
};

/* local64_t: one word on 64-bit, never torn for a reader on 32-bit */
struct rtmon_probe_counts {
	local64_t hits[RTMON_NR_PROBES];
};
DECLARE_PER_CPU(struct rtmon_probe_counts, rtmon_probe_counts);

/* rtmon_probes.c */
int rtmon_probes_register(void);
void rtmon_probes_unregister(void);
struct rtm_core;
void rtmon_probes_publish(struct rtm_core *c);
void rtmon_probes_unpublish(void);
const char *rtmon_probe_name(enum rtmon_probe_id id);
bool rtmon_probe_registered(enum rtmon_probe_id id);
u64 rtmon_probe_hits(enum rtmon_probe_id id);
int rtmon_timer_kinds_known(char *buf, size_t len);

/* rtmon_tracker.c: the core instance and what surrounds it */
#define RTMON_HIST_BUCKETS	32	/* log2 of latency in us: [0,1) [1,2) [2,4) ... */

struct rtmon_tgt_stats {
	u64 chains;		/* completed chains */
	u64 misses;		/* completed past the deadline */
	u64 overdue;		/* reported open past the deadline */
	u64 min_ns, max_ns, sum_ns;
	u64 hist[RTMON_HIST_BUCKETS];
	u64 blame_ns[RTM_BLAME_NR];	/* completed chains' record.blame */
};

/* The running core; NULL while stopped. Probes read it once per event. */
extern struct rtm_core *rtmon_core;

int rtmon_tracker_init(struct rtm_params *p);
void rtmon_tracker_exit(void);
void rtmon_tracker_params(struct rtm_params *p);
int rtmon_tracker_start(void);
void rtmon_tracker_stop(void);
bool rtmon_tracker_running(void);
int rtmon_target_add(struct rtmon_target *t);
int rtmon_target_del(u32 id);
int rtmon_target_get(u32 id, struct rtmon_target *t);
void rtmon_target_stats(u32 id, struct rtmon_tgt_stats *out);
void rtmon_counters(struct rtmon_counters *out);
/* pop up to one record; 1 if *out holds one */
int rtmon_record_pop(struct rtm_record *out);
int rtmon_record_peek(struct rtm_record *out);
void rtmon_record_unpeek(unsigned int cpu);
unsigned int rtmon_records_ack(void);
void rtmon_records_rewind(void);
bool rtmon_records_pending(void);
/* wake a sleeping reader if records wait (process context) */
void rtmon_wake_readers_pending(bool tick);
/* records pending, said by a reader that sleeps if there are none */
bool rtmon_reader_idle_check(void);
/* how often the reader was woken: for misses, batches, by the tick */
void rtmon_reader_wakes(unsigned long *miss, unsigned long *batch,
			unsigned long *tick);
extern wait_queue_head_t rtmon_readers_wq;
extern struct mutex rtmon_ctl_lock;	/* targets, start/stop */

/* rtmon_tick.c: the housekeeping tick, preemptible between batches */
struct rtmon_tick_info {
	unsigned int period_ms, batch;
	unsigned long count;		/* ticks done */
	unsigned long last_ns, worst_ns;	/* whole tick */
	unsigned long worst_batch_ns;	/* longest step with preemption off */
	unsigned long yields;		/* a task waited at a step's end */
};
int rtmon_tick_start(void);
void rtmon_tick_stop(void);
void rtmon_tick_info(struct rtmon_tick_info *t);

/* rtmon_irq.c */
int rtmon_irq_by_name(const char *name);

/* rtmon_dev.c */
int rtmon_dev_init(void);
void rtmon_dev_exit(void);

/* rtmon_status.c */
int rtmon_status_init(void);
void rtmon_status_exit(void);

/* module parameters (rtmon_main.c) */
extern unsigned int rtmon_param_tick_ms;
extern unsigned int rtmon_param_wake_batch;

#endif /* RTMON_H */

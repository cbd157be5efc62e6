/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtmon.h - internal declarations shared by the module's files.
 */
#ifndef RTMON_H
#define RTMON_H

#include <linux/percpu.h>
#include <linux/seq_file.h>

#define RTMON_VERSION	"0.1.0"

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
	RTMON_NR_PROBES
};

struct rtmon_probe_counts {
	u64 hits[RTMON_NR_PROBES];
};
DECLARE_PER_CPU(struct rtmon_probe_counts, rtmon_probe_counts);

/* rtmon_probes.c */
int rtmon_probes_register(void);
void rtmon_probes_unregister(void);
const char *rtmon_probe_name(enum rtmon_probe_id id);
bool rtmon_probe_registered(enum rtmon_probe_id id);
u64 rtmon_probe_hits(enum rtmon_probe_id id);

/* rtmon_status.c */
int rtmon_status_init(void);
void rtmon_status_exit(void);

#endif /* RTMON_H */

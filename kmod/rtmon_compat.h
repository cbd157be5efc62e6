/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtmon_compat.h - every kernel-version difference rtmon depends on.
 *
 * The rest of the module is written against one API; what changed between
 * kernel releases is mapped here, each with the version that changed it.
 * Probe prototypes are checked at compile time with
 * check_trace_callback_type_<tracepoint>() in rtmon_probes.c, so a
 * prototype change breaks the build instead of the running kernel.
 */
#ifndef RTMON_COMPAT_H
#define RTMON_COMPAT_H

#include <linux/version.h>
#include <linux/sched.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 15, 0)
#error "rtmon needs Linux 5.15 or later"
#endif

/*
 * sched_switch gained the prev_state argument in v5.18 (commit fa2c3254d7cf
 * "sched/tracing: Don't re-read p->state when emitting sched_switch event").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
#define RTMON_SCHED_SWITCH_ARGS						\
	void *data, bool preempt, struct task_struct *prev,		\
	struct task_struct *next, unsigned int prev_state
#define rtmon_prev_state(prev)	(prev_state)
#else
#define RTMON_SCHED_SWITCH_ARGS						\
	void *data, bool preempt, struct task_struct *prev,		\
	struct task_struct *next
#define rtmon_prev_state(prev)	READ_ONCE((prev)->__state)
#endif

/*
 * PREEMPT_RT: CONFIG_PREEMPT_RT since v5.3 (was CONFIG_PREEMPT_RT_FULL in
 * the out-of-tree patch set); in mainline from v6.12.
 */
#ifdef CONFIG_PREEMPT_RT
#define RTMON_PREEMPT_RT	1
#else
#define RTMON_PREEMPT_RT	0
#endif

#endif /* RTMON_COMPAT_H */

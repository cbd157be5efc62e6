/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtmon_trace.h - rtmon's own tracepoints, recorded by ftrace, perf and
 * trace-cmd next to the kernel's sched/irq/timer events:
 *
 *   rtmon:rtmon_chain          every record (completed or overdue chain)
 *   rtmon:rtmon_deadline_miss  misses and timeouts, with the per-hop
 *                              breakdown (type, pid, time since the
 *                              previous hop, cpu) in arrays
 *   rtmon:rtmon_work           the markers (work_begin/work_end and the
 *                              cookie), so a recorded trace carries the
 *                              whole input of the chain tracker:
 *                              rtmon-replay --format=ftrace reads them
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rtmon

#if !defined(_RTMON_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RTMON_TRACE_H

#include <linux/tracepoint.h>
#include "core/rtm_record.h"

TRACE_EVENT(rtmon_chain,

	TP_PROTO(const struct rtm_record *r),

	TP_ARGS(r),

	TP_STRUCT__entry(
		__field(u64, seq)
		__field(u64, source)
		__field(u64, start_ns)
		__field(u64, latency_ns)
		__field(u64, deadline_ns)
		__field(u32, flags)
		__field(u32, target_pid)
		__field(u16, target_id)
		__field(u8, kind)
		__field(u8, nhops)
		__array(char, comm, RTM_COMM_LEN)
	),

	TP_fast_assign(
		__entry->seq = r->seq;
		__entry->source = r->source;
		__entry->start_ns = r->start_ns;
		__entry->latency_ns = r->latency_ns;
		__entry->deadline_ns = r->deadline_ns;
		__entry->flags = r->flags;
		__entry->target_pid = r->target_pid;
		__entry->target_id = r->target_id;
		__entry->kind = r->kind;
		__entry->nhops = r->nhops;
		memcpy(__entry->comm, r->target_comm, RTM_COMM_LEN);
		__entry->comm[RTM_COMM_LEN - 1] = 0;
	),

	TP_printk("seq=%llu target=%u comm=%s pid=%u kind=%s source=%llu latency_ns=%llu deadline_ns=%llu flags=0x%x hops=%u",
		  __entry->seq, __entry->target_id, __entry->comm,
		  __entry->target_pid,
		  __entry->kind == RTM_KIND_TIMER ? "timer" : "irq",
		  __entry->source, __entry->latency_ns, __entry->deadline_ns,
		  __entry->flags, __entry->nhops)
);

TRACE_EVENT(rtmon_work,

	TP_PROTO(bool begin, u64 cookie),

	TP_ARGS(begin, cookie),

	TP_STRUCT__entry(
		__field(u64, cookie)
		__field(u8, begin)
	),

	TP_fast_assign(
		__entry->cookie = cookie;
		__entry->begin = begin;
	),

	TP_printk("%s cookie=%llu", __entry->begin ? "begin" : "end",
		  __entry->cookie)
);

TRACE_EVENT(rtmon_deadline_miss,

	TP_PROTO(const struct rtm_record *r),

	TP_ARGS(r),

	TP_STRUCT__entry(
		__field(u64, seq)
		__field(u64, source)
		__field(u64, latency_ns)
		__field(u64, deadline_ns)
		__field(u32, flags)
		__field(u32, target_pid)
		__field(u16, target_id)
		__field(u8, kind)
		__field(u8, nhops)
		__array(char, comm, RTM_COMM_LEN)
		__array(u8, hop_type, RTM_REC_MAX_HOPS)
		__array(u16, hop_cpu, RTM_REC_MAX_HOPS)
		__array(u32, hop_pid, RTM_REC_MAX_HOPS)
		__array(u32, hop_delta_ns, RTM_REC_MAX_HOPS)
	),

	TP_fast_assign(
		unsigned int i;
		u64 prev = r->start_ns, d;

		__entry->seq = r->seq;
		__entry->source = r->source;
		__entry->latency_ns = r->latency_ns;
		__entry->deadline_ns = r->deadline_ns;
		__entry->flags = r->flags;
		__entry->target_pid = r->target_pid;
		__entry->target_id = r->target_id;
		__entry->kind = r->kind;
		__entry->nhops = min_t(u8, r->nhops, RTM_REC_MAX_HOPS);
		memcpy(__entry->comm, r->target_comm, RTM_COMM_LEN);
		__entry->comm[RTM_COMM_LEN - 1] = 0;
		for (i = 0; i < RTM_REC_MAX_HOPS; i++) {
			const struct rtm_rec_hop *h = &r->hops[i];

			d = i < __entry->nhops && h->ts_ns > prev ? h->ts_ns - prev : 0;
			__entry->hop_type[i] = i < __entry->nhops ? h->type : 0;
			__entry->hop_cpu[i] = i < __entry->nhops ? h->cpu : 0;
			__entry->hop_pid[i] = i < __entry->nhops ? h->pid : 0;
			__entry->hop_delta_ns[i] = min_t(u64, d, U32_MAX);
			if (i < __entry->nhops && h->ts_ns > prev)
				prev = h->ts_ns;
		}
	),

	TP_printk("seq=%llu target=%u comm=%s pid=%u kind=%s source=%llu latency_ns=%llu deadline_ns=%llu flags=0x%x hops=%u type=%s pid=%s delta_ns=%s",
		  __entry->seq, __entry->target_id, __entry->comm,
		  __entry->target_pid,
		  __entry->kind == RTM_KIND_TIMER ? "timer" : "irq",
		  __entry->source, __entry->latency_ns, __entry->deadline_ns,
		  __entry->flags, __entry->nhops,
		  __print_array(__entry->hop_type, __entry->nhops, 1),
		  __print_array(__entry->hop_pid, __entry->nhops, 4),
		  __print_array(__entry->hop_delta_ns, __entry->nhops, 4))
);

#endif /* _RTMON_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rtmon_trace
#include <trace/define_trace.h>

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtmond_tp.h - rtmond's own lttng-ust provider: rtmond:miss, emitted for
 * every deadline miss or timeout record rtmond reads, into the same
 * flight-recorder session as the application's rtmon:work_begin/end.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER rtmond

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./rtmond_tp.h"

#if !defined(RTMOND_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define RTMOND_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(rtmond, miss,
	LTTNG_UST_TP_ARGS(uint64_t, seq, const char *, target, uint64_t, start_ns,
			  uint64_t, end_ns, uint64_t, latency_ns, uint64_t, deadline_ns,
			  uint32_t, pid, int, timeout),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, seq, seq)
		lttng_ust_field_string(target, target)
		lttng_ust_field_integer(uint64_t, start_ns, start_ns)
		lttng_ust_field_integer(uint64_t, end_ns, end_ns)
		lttng_ust_field_integer(uint64_t, latency_ns, latency_ns)
		lttng_ust_field_integer(uint64_t, deadline_ns, deadline_ns)
		lttng_ust_field_integer(uint32_t, pid, pid)
		lttng_ust_field_integer(int, timeout, timeout)))

#endif /* RTMOND_TP_H */

#include <lttng/tracepoint-event.h>

/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * rtmon_tp.h - librtmon's lttng-ust tracepoint provider "rtmon":
 * rtmon:work_begin and rtmon:work_end, each with the work item's cookie,
 * emitted by rtmon_work_begin()/rtmon_work_end() just before the ioctl, so the
 * markers appear in LTTng user-space traces on the same clock
 * (CLOCK_MONOTONIC) as rtmon's records.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER rtmon

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./rtmon_tp.h"

#if !defined(RTMON_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define RTMON_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(rtmon, work_begin,
	LTTNG_UST_TP_ARGS(uint64_t, cookie),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, cookie, cookie)))

LTTNG_UST_TRACEPOINT_EVENT(rtmon, work_end,
	LTTNG_UST_TP_ARGS(uint64_t, cookie),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, cookie, cookie)))

#endif /* RTMON_TP_H */

#include <lttng/tracepoint-event.h>

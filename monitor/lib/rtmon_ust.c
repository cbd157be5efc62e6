// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * rtmon_ust.c - the "rtmon" lttng-ust tracepoint provider, built as
 * librtmon-ust.so (linked with liblttng-ust). librtmon's markers are call
 * sites with dynamic linkage: librtmon loads this provider on first use
 * (or it is LD_PRELOADed), so applications that do not trace never load
 * liblttng-ust and link librtmon with nothing but libc.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "rtmon_tp.h"

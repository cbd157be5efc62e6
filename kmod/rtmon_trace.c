// SPDX-License-Identifier: GPL-2.0
/* rtmon_trace.c - instantiates rtmon's tracepoints (rtmon_trace.h). */
#define CREATE_TRACE_POINTS
#include "rtmon_trace.h"

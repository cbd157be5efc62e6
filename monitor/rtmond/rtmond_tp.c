// SPDX-License-Identifier: GPL-2.0
/*
 * rtmond_tp.c - rtmond's tracepoint call sites (rtmond:miss). The probes
 * (rtmond_tp_probe.c) are a shared object of their own, built into rtmond
 * (rtmond_ust_so.S) and loaded at run time by rtmond_snap_load_provider():
 * dynamic linkage, so rtmond does not link liblttng-ust, whose constructor
 * would start its threads with all of rtmond's capabilities.
 */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "rtmond_tp.h"

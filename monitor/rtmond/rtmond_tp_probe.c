// SPDX-License-Identifier: GPL-2.0
/*
 * rtmond_tp_probe.c - the rtmond lttng-ust provider's probes, built as
 * rtmond-ust.so (linked with liblttng-ust) and embedded in rtmond
 * (rtmond_ust_so.S); see rtmond_tp.c.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "rtmond_tp.h"

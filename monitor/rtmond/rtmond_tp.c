// SPDX-License-Identifier: GPL-2.0
/* rtmond_tp.c - the rtmond lttng-ust provider, linked into rtmond. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "rtmond_tp.h"

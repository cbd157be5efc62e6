/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - rtmond's configuration (config/rtmon.conf), parsed with
 * libconfig. One immutable struct per loaded file: SIGHUP builds a new one
 * and publishes it with RCU; nothing in a published config changes.
 */
#ifndef RTMOND_CONFIG_H
#define RTMOND_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "rtmon/rtmon.h"

#define RTMOND_MAX_TARGETS	64
#define RTMOND_MAX_LE		32
#define RTMOND_GATHER_MAX_NS	100000000ull	/* snapshot.gather: 100 ms */
#define RTMOND_MIN_FILE_SIZE	(64ull << 10)	/* snapshot.max_file_size: a few long lines */
#define RTMOND_MAX_KEEP_FILES	1000

struct rtmond_target_conf {
	char name[RTMON_NAME_LEN];
	struct rtmon_target t;		/* what goes to the module (id unset) */
};

struct rtmond_config {
	char path[512];
	unsigned int ntargets;
	struct rtmond_target_conf targets[RTMOND_MAX_TARGETS];

	/* snapshot: where misses go and what is saved with each */
	char dir[256];			/* misses.jsonl, per-miss files */
	int records_file;		/* also every record to records.jsonl */
	int ftrace;
	char ftrace_instance[64];
	unsigned int ftrace_buffer_kb;
	int lttng;
	char lttng_output[256];		/* "" = <dir>/lttng, or net://HOST[:P:P] */
	char lttng_session[64];
	int lttng_kernel;		/* kernel channel when lttng-modules are there */
	unsigned int lttng_kernel_buffer_kb;	/* per cpu, a power of two */
	int on_timeout;			/* snapshots for timeouts too */
	int defer;			/* misses that find the worker busy: a
					 * deferred snapshot (else "busy"); off
					 * by default */
	unsigned int rate_burst;	/* token bucket: burst */
	uint64_t rate_interval_ns;	/* then one per interval */
	uint64_t gather_ns;		/* reading on after a miss before its snapshot */
	uint64_t max_disk;		/* bytes of snapshots kept (0: no limit) */
	uint64_t max_age_ns;		/* snapshots older are removed (0: kept) */
	uint64_t max_file_size;		/* a line file rotated before it passes (0: never) */
	unsigned int keep_files;	/* rotated line files kept (NAME.1 newest) */

	/* metrics */
	char listen[128];		/* "" = no HTTP endpoint; ADDR:PORT */
	char textfile[256];		/* "" = none; node_exporter textfile */
	uint64_t textfile_interval_ns;
	unsigned int nle;
	uint64_t le_ns[RTMOND_MAX_LE];	/* histogram bucket bounds, ascending */

	/* real time */
	int policy;			/* SCHED_FIFO / SCHED_RR / SCHED_OTHER */
	int priority;
	int mlockall;
	int keep_admin;			/* keep CAP_SYS_ADMIN for reloads */
};

/*
 * Parse path into *c. On error returns -1 and writes into err a line
 * "FILE:LINE: KEY: MESSAGE" for the first error of each target and group,
 * joined by newlines (none after the last).
 */
int rtmond_config_load(const char *path, struct rtmond_config *c,
		       char *err, size_t errlen);
/* Same, from a string (the fuzz harness and unit tests); name for errors. */
int rtmond_config_parse(const char *text, const char *name,
			struct rtmond_config *c, char *err, size_t errlen);
/* Two targets ask the module for the same thing (ids aside). */
int rtmond_target_same(const struct rtmon_target *a, const struct rtmon_target *b);

#endif /* RTMOND_CONFIG_H */

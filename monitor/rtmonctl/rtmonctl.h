/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtmonctl.h - what rtmonctl's commands share: the errors, the device and
 * JSON output of cli.c, rtmond's files of saved.c, and each command's entry
 * (int cmd_NAME(argc, argv, json), argv[0] the command) with its --help text.
 * Errors: fail() exits 1 (a failed operation), usage_error() exits 2.
 */
#ifndef RTMONCTL_H
#define RTMONCTL_H

#include <stdio.h>
#include <jansson.h>

struct rtmon;

#define RTMON_STATUS_PATH	"/proc/rtmon/status"

void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...);
/* After getopt's own message: where the help is; exits 2. */
void __attribute__((noreturn)) usage_hint(void);
void __attribute__((noreturn, format(printf, 2, 3))) fail(int err, const char *fmt, ...);
/* The command running, for usage_error's hint (NULL: none yet). */
extern const char *rtmonctl_command;
/* The device, opened or failed with a message a person can act on. */
struct rtmon *open_dev(void);
/* Print j compactly on one line and drop the reference. */
void json_out(json_t *j);
/* rtmond's snapshot.dir: --dir, else $RTMON_DIR, else /var/lib/rtmon */
extern const char *rtmond_dir;
/* rtmond's DIR/stats.json (NULL when unreadable: err says why, may be NULL) */
json_t *rtmond_stats_load(json_error_t *err);
/* A target's object in it (borrowed), or NULL. */
json_t *rtmond_stats_target(json_t *stats, const char *name);

/*
 * The options of the commands that read rtmond's files: --dir DIR always,
 * and those of want (SAVED_*); any other is a usage error (exit 2).
 * optind is left at the first operand.
 */
#define SAVED_COUNT	1u	/* -n/--count COUNT: the last COUNT */
#define SAVED_SINCE	2u	/* --since WHEN: a duration ago or a local time */
#define SAVED_TARGET	4u	/* --target NAME */
#define SAVED_RECORD	8u	/* --record FILE, --snapshot FILE */
struct saved_opts {
	long count;		/* -1: all */
	long long since_ns;	/* wall-clock ns; 0: no --since */
	const char *target, *record, *snapshot;	/* NULL: not given */
};
void saved_opts(int argc, char **argv, unsigned int want, struct saved_opts *o);
/* DIR/misses.jsonl for reading; fails if it cannot be opened. */
FILE *rtmond_misses_open(void);
/* A miss: its seq, and the module load it belongs to ("": any). */
struct rtmond_miss_id {
	long long seq;
	char load[24];		/* hex, misses.jsonl's load_id */
	int no_load_id;		/* "?:SEQ": a line without one (older rtmond) */
};
/* "SEQ", "LOAD:SEQ" or "?:SEQ" into *id; a usage error (exit 2) unless one. */
void rtmond_miss_id_arg(const char *arg, struct rtmond_miss_id *id);
/* The line of misses.jsonl of miss ARG (the last one); fails if none. */
json_t *rtmond_miss_find(const char *arg);
/* misses.jsonl read once: the lines of ids[0..n) by seq and load. */
json_t *rtmond_misses_index(const struct rtmond_miss_id *ids, size_t n);
/*
 * The line of id in such an index (borrowed), or NULL; fails when id has
 * no load and its seq is in more than one (seqs restart at each load).
 */
json_t *rtmond_misses_get(json_t *index, const struct rtmond_miss_id *id);

/* The culprit line of miss m from its ftrace snapshot: 0, or -1 (none). */
int rtmond_miss_culprit(json_t *m, char *buf, size_t len);
/* The targets as a table or a JSON array (targets list, status). */
int cmd_targets_list(struct rtmon *r, int json);

extern const char status_usage[], targets_usage[], records_usage[], hist_usage[],
	misses_usage[], show_usage[], explain_usage[], top_usage[], plot_usage[];
int cmd_status(int argc, char **argv, int json);
int cmd_targets(int argc, char **argv, int json);
int cmd_records(int argc, char **argv, int json);
int cmd_hist(int argc, char **argv, int json);
int cmd_misses(int argc, char **argv, int json);
int cmd_show(int argc, char **argv, int json);
int cmd_explain(int argc, char **argv, int json);
int cmd_top(int argc, char **argv, int json);
int cmd_plot(int argc, char **argv, int json);

#endif /* RTMONCTL_H */

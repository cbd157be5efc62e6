/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rtmon_format.h - how rtmon's tools show a chain record: as JSON (jansson)
 * and as text with an aligned per-hop table. Shared by rtmonctl, rtmond
 * and rtmon-replay so every tool prints records the same way.
 */
#ifndef RTMON_FORMAT_H
#define RTMON_FORMAT_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "rtmon/rtmon.h"

/*
 * This boot's id (/proc/sys/kernel/random/boot_id, 36 characters): the
 * boot CLOCK_MONOTONIC times in records belong to. "" if unreadable.
 */
#define RTMON_BOOT_ID_LEN	37
const char *rtmon_boot_id(void);

/* a task name as text: valid UTF-8, other bytes and controls as \xHH */
#define RTMON_COMM_TEXT	(RTM_COMM_LEN * 4 + 1)
void rtmon_comm(char dst[RTMON_COMM_TEXT], const uint8_t *src);

/*
 * s made safe for a terminal, into buf (cut at len, never inside an
 * escape): control characters (C0, DEL, and C1 encoded as UTF-8) as \xHH.
 * For names read from files or the module, which other users can set.
 */
const char *rtmon_term(char *buf, size_t len, const char *s);
/*
 * Target names are written into JSON lines, metric labels and terminals as
 * they are: rtmon_text_ok() says s is such text (valid UTF-8, no C0, DEL
 * or C1 control); rtmon_text_escape() makes any string one (other bytes
 * as \xHH, cut at a whole character to fit len).
 */
int rtmon_text_ok(const char *s);
void rtmon_text_escape(char *dst, size_t len, const char *src);

/*
 * The record JSON, one schema for rtmonctl records --json, rtmond's
 * records.jsonl and misses.jsonl, and rtmon-replay --json (which puts
 * "type":"record" first): seq, version (the record's), kind ("irq" or
 * "timer"), source, target (-1: none), target_name (null: not known), pid,
 * tgid, comm, start_ns, end_ns, latency_ns, deadline_ns, miss, flags (of
 * deadline_miss, timeout, was_overdue, truncated, dropped_hops, merged,
 * coalesced, repoll), cpu, path_len, chain_hops, hops
 * (each: event, cpu, pid, comm, ctx, what, ts_ns, delta_ns), cookie and
 * timer when they apply, blame (the RTM_BLAME_* names with their ns,
 * culprits, culprit_other_ns); rtmond adds read_ns, wall_ns, boot_id and
 * load_id (rtmon_record_json_line). Integers are signed 64-bit: a
 * cookie past 2^63 reads back negative (cast it to 64-bit unsigned).
 * Returns a new object (the caller json_decref()s it), NULL on no memory.
 */
json_t *rtmon_record_json(const struct rtm_record *r, const char *target_name);
/*
 * The same record as one line of records.jsonl, into buf: byte for byte
 * what json_dumps(JSON_COMPACT) gives for rtmon_record_json(), with
 * "read_ns", "wall_ns" (the record's end on CLOCK_REALTIME: end_ns +
 * wall_off_ns, the two clocks' difference when it was read), "boot_id"
 * (when not "") and "load_id" (when not NULL) added,
 * and a newline; without building jansson's objects (rtmond's writer
 * writes one per record, and those objects cost many times the line).
 * Returns the line's length, or 0 when it does not fit in len or a string
 * is not valid UTF-8 (the caller then takes jansson's path, which refuses
 * such a string as it always did).
 */
size_t rtmon_record_json_line(char *buf, size_t len, const struct rtm_record *r,
			      const char *target_name, uint64_t read_ns, int64_t wall_off_ns,
			      const char *boot_id, const char *load_id);
/* CLOCK_REALTIME - CLOCK_MONOTONIC now, in ns (for "wall_ns"). */
int64_t rtmon_wall_offset_ns(void);
/* One summary line, then one line per hop with the time since the last. */
/*
 * The blame as text: a line of the categories' times, largest first, and
 * a line per culprit (what rtmon_record_print() and 'rtmonctl show' print).
 */
void rtmon_blame_print(FILE *f, const struct rtm_rec_blame *b);
/* record.blame back from rtmon_record_json()'s "blame" (0, or -1: none) */
int rtmon_blame_from_json(json_t *o, struct rtm_rec_blame *b);
void rtmon_record_print(FILE *f, const struct rtm_record *r,
			const char *target_name);
/* "12.345 us" style, into buf. */
const char *rtmon_fmt_ns(char *buf, size_t len, uint64_t ns);
/*
 * Parse a duration with a unit: "250ns", "100us", "1.5ms", "2s".
 * 0 on success, -1 on a missing/unknown unit or a bad number.
 */
int rtmon_parse_duration(const char *s, uint64_t *ns);

#endif /* RTMON_FORMAT_H */

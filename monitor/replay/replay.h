/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * replay.h - the parts of rtmon-replay outside rtmon_replay.c.
 */
#ifndef REPLAY_H
#define REPLAY_H

#include <stdbool.h>

struct rtm_record;

/* --explain (replay_explain.c): keep an input line, a record emitted */
void rx_keep_line(const char *line);
void rx_keep_record(const struct rtm_record *r);
/*
 * Explain every record kept, from the lines kept, on stdout: text, or
 * one {"type":"explain","seq":N,...} object per record. 0, or 1 (out of
 * memory, said on stderr).
 */
int rx_explain_all(bool json);

#endif /* REPLAY_H */

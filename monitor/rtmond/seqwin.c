// SPDX-License-Identifier: GPL-2.0
/*
 * seqwin.c - the records' sequence numbers: which were read and stored,
 * which are lost, and after a restart which the module hands again that
 * the previous run had stored (DIR/rtmond.seq and the files' tails), for
 * the module load they belong to.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <jansson.h>

#include "rtmond.h"
#include "rtmon_format.h"

#define RTMOND_LOAD_ID_FILE	"/sys/module/rtmon/parameters/load_id"

static uint64_t last_seq;
static int have_last, restarted;
/*
 * Sequence tracking. Records come from per-cpu rings, so their global
 * sequence numbers arrive slightly out of order: 'next' is the lowest
 * number not seen yet, 'seen' a window of numbers above it already read.
 * A number missing for SEQ_HOLE_NS after something above it was read (or
 * pushed out of the window) is a loss. DIR/rtmond.seq keeps next and the
 * window across restarts: "NEXT S1 S2 ...".
 */
#define SEQ_WIN		RTMOND_SEQ_WIN
#define SEQ_HOLE_NS	2000000000ull
static uint64_t seq_next, seq_max;
static uint64_t seq_seen[SEQ_WIN / 64];
static uint64_t hole_since;		/* when the current hole was first seen */
static uint64_t rings_empty_ns;		/* when a read last found the rings empty */
/*
 * With no saved window (a first run, a reloaded module) nothing below the
 * first record read was stored: a lower number read later (another cpu's
 * ring drained after) is new, not read again. 'floor' is the lowest number
 * read so far in such a run; 0 after a restart (everything below 'next'
 * was stored by the previous run).
 */
static uint64_t seq_floor;

static void seen_clear_slot(uint64_t s)
{
	uint64_t o = s % SEQ_WIN;

	seq_seen[o / 64] &= ~(1ull << (o % 64));
}

static void seen_set(uint64_t s)
{
	uint64_t o = s % SEQ_WIN;

	seq_seen[o / 64] |= 1ull << (o % 64);
}

static int seen_get(uint64_t s)
{
	uint64_t o = s % SEQ_WIN;

	return !!(seq_seen[o / 64] & (1ull << (o % 64)));
}

/* Move 'next' past what was seen; 'lose' also past holes below 'upto'. */
static void seq_advance(uint64_t upto)
{
	uint64_t lost_from = 0, lost_to = 0, lost = 0;

	for (;;) {
		if (seq_next <= seq_max && seen_get(seq_next)) {
			seen_clear_slot(seq_next);
			seq_next++;
			continue;
		}
		if (seq_next < upto) {
			if (!lost++)
				lost_from = seq_next;
			lost_to = seq_next++;
			continue;
		}
		break;
	}
	if (lost) {
		CNT_ADD(seq_gaps, 1);
		CNT_ADD(records_lost, lost);
		rtmond_log("records lost: %" PRIu64 " missing between seq %" PRIu64 " and %" PRIu64
			   "%s", lost, lost_from, lost_to,
			   restarted ? " (since the previous run)" : "");
	}
	hole_since = seq_next <= seq_max ? (hole_since ? hole_since : rtmond_mono_ns()) : 0;
}

/*
 * 1 if seq is new; 0 if it was stored already: the module hands the
 * records a killed rtmond read but did not acknowledge to the next run,
 * and the saved window says which of them that run had written.
 */
int rtmond_seq_check(uint64_t seq)
{
	if (!have_last) {
		seq_next = seq;
		seq_max = seq;
		seq_floor = seq;
		have_last = 1;
	}
	if (restarted) {
		if (seq == seq_next)
			rtmond_log("resumed at seq %" PRIu64 " where the previous run stopped: "
				   "no record lost in between", seq);
		else if (seq > seq_next)
			rtmond_log("first record read: seq %" PRIu64 ", the previous run stopped "
				   "before seq %" PRIu64, seq, seq_next);
	}
	if (seq < seq_next && seq_next - seq > SEQ_WIN) {
		rtmond_log("sequence went back from %" PRIu64 " to %" PRIu64
			   " (module reloaded?): starting over", seq_next, seq);
		memset(seq_seen, 0, sizeof(seq_seen));
		seq_next = seq_max = seq_floor = seq;
	}
	if (seq < seq_floor) {
		/*
		 * The window slides down to it when it still spans seq_max:
		 * what 'next' had passed (read, or counted lost) is marked
		 * seen again, what lies between is a hole.
		 */
		if (seq_max - seq < SEQ_WIN) {
			uint64_t s;

			for (s = seq_floor; s < seq_next; s++)
				seen_set(s);
			seq_next = seq;
			seen_set(seq);
			seq_advance(0);
		}
		seq_floor = seq;
		return 1;
	}
	if (seq < seq_next)
		return 0;	/* restarted stays: the next one may resume */
	if (seq <= seq_max && seen_get(seq))
		return 0;
	restarted = 0;
	if (seq >= seq_next + SEQ_WIN)
		seq_advance(seq - SEQ_WIN + 1);	/* holes pushed out of the window */
	if (seq > seq_max)
		seq_max = seq;
	seen_set(seq);
	seq_advance(0);
	last_seq = seq_max;
	return 1;
}

/*
 * A hole older than SEQ_HOLE_NS whose records the rings may still hold
 * (not read to their end since: the writer behind, a slow start): the
 * reader should look before calling it a loss.
 */
int rtmond_seq_hole_unread(void)
{
	return hole_since && rtmond_mono_ns() > hole_since + SEQ_HOLE_NS &&
	       rings_empty_ns <= hole_since + SEQ_HOLE_NS;
}

/*
 * A hole is a loss once the rings, read to their end SEQ_HOLE_NS after it
 * opened, still lack its numbers: records waiting behind a slow writer or
 * a slow start are late, not lost (main loop, after a drain).
 */
void rtmond_seq_expire(int now_all)
{
	if (have_last && seq_next <= seq_max &&
	    (now_all || (hole_since && rings_empty_ns > hole_since + SEQ_HOLE_NS)))
		seq_advance(seq_max + 1);
}

/* The window as it is now, for the writer to save after the batch's lines. */
void rtmond_seq_copy(struct rtmond_seqwin *w)
{
	w->valid = have_last;
	w->next = seq_next;
	w->max = seq_max;
	memcpy(w->seen, seq_seen, sizeof(w->seen));
}

/* rtmond_load_tag and _key from the module's load_id and the boot id */
void rtmond_load_key_init(void)
{
	const char *boot = rtmon_boot_id();
	unsigned long id = 0;
	FILE *f = fopen(RTMOND_LOAD_ID_FILE, "r");

	if (f) {
		if (fscanf(f, "%lu", &id) != 1)
			id = 0;
		fclose(f);
	}
	if (id) {
		snprintf(rtmond_load_tag, sizeof(rtmond_load_tag), "%lx", id);
		rtmond_load_id_known = 1;
	} else {
		snprintf(rtmond_load_tag, sizeof(rtmond_load_tag), "%.8s", boot[0] ? boot : "0");
		rtmond_log("the module has no load id (%s: an older module?): snapshots and "
			   "rtmond.seq are keyed by the boot only; reload the module and they "
			   "may be taken for another load's", RTMOND_LOAD_ID_FILE);
	}
	snprintf(rtmond_load_key, sizeof(rtmond_load_key), "%s/%s", boot[0] ? boot : "-",
		 rtmond_load_tag);
}

/*
 * Only a whole line is a stored record: a torn one (killed mid-write, a
 * full disk) counted would have the module's copy skipped, and lost.
 */
static int whole_record_line(const char *line, size_t len, uint64_t seq)
{
	json_t *o = json_loadb(line, len, 0, NULL), *v = json_object_get(o, "seq");
	int ok = json_is_integer(v) && (uint64_t)json_integer_value(v) == seq;

	json_decref(o);
	return ok;
}

/*
 * The writer saves rtmond.seq after a batch's lines: a run killed between
 * the two had stored records its window does not say. They are at the
 * tail of DIR/NAME (one whole line each, starting {"seq":N), so those the module
 * hands again are marked stored, not written twice. The tail may span the
 * files rotated meanwhile (NAME.1, NAME.2, ...): the last SEQ_TAIL_BYTES
 * of them all are read. Returns how many (-1: no such file).
 */
#define SEQ_TAIL_BYTES	(2 << 20)	/* RTMOND_WQ batches of long lines */
static int seq_scan_file(const char *path, off_t *budget)
{
	char *buf, *p, *end;
	off_t size, off;
	ssize_t n;
	int fd, found = 0;
	uint64_t s;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	size = lseek(fd, 0, SEEK_END);
	off = size > *budget ? size - *budget : 0;
	*budget -= size - off;
	buf = size > 0 ? malloc((size_t)(size - off) + 1) : NULL;
	n = buf ? pread(fd, buf, (size_t)(size - off), off) : -1;
	close(fd);
	if (n <= 0) {
		free(buf);
		return 0;
	}
	buf[n] = 0;
	end = buf + n;
	p = buf;
	if (off) {	/* a tail that starts inside a line: from the next one */
		p = memchr(buf, '\n', (size_t)n);
		p = p ? p + 1 : end;
	}
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!strncmp(p, "{\"seq\":", 7)) {
			s = strtoull(p + 7, NULL, 10);
			if (s >= seq_next && s < seq_next + SEQ_WIN && !seen_get(s) &&
			    whole_record_line(p, len, s)) {
				seen_set(s);
				if (s > seq_max)
					seq_max = s;
				found++;
			}
		}
		p = nl ? nl + 1 : end;
	}
	free(buf);
	return found;
}

static int seq_scan_tail(const char *dir, const char *name)
{
	off_t budget = SEQ_TAIL_BYTES;
	char path[512];
	unsigned int k;
	int found = 0, n;

	for (k = 0; budget > 0 && k <= RTMOND_MAX_KEEP_FILES; k++) {
		if (k)
			snprintf(path, sizeof(path), "%s/%s.%u", dir, name, k);
		else
			snprintf(path, sizeof(path), "%s/%s", dir, name);
		n = seq_scan_file(path, &budget);
		if (n < 0 && k)
			break;	/* the oldest rotated file was the one before */
		found += n > 0 ? n : 0;
	}
	return found;
}

void rtmond_seq_load(const char *dir)
{
	static char buf[SEQ_WIN * 21 + 32];
	char *p, *e;
	int seq_fd = rtmond_writer_seq_fd();
	ssize_t n;
	uint64_t s;

	if (seq_fd < 0)
		return;
	n = pread(seq_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = 0;
	p = buf;
	if (!strncmp(p, "load=", 5)) {
		size_t k = strcspn(p + 5, " \n");

		if (k != strlen(rtmond_load_key) || strncmp(p + 5, rtmond_load_key, k)) {
			rtmond_log("%s/rtmond.seq is of another module load (%.*s; this is %s: a "
				   "reboot or a reload): its numbers are not this load's, starting "
				   "afresh", dir, (int)k, p + 5, rtmond_load_key);
			return;
		}
		p += 5 + k;
	}
	e = p;
	seq_next = strtoull(e, &p, 10);
	if (p == e)
		return;
	seq_max = seq_next ? seq_next - 1 : 0;
	while ((s = strtoull(p, &e, 10)), e != p) {
		if (s > seq_next && s < seq_next + SEQ_WIN) {
			seen_set(s);
			if (s > seq_max)
				seq_max = s;
		}
		p = e;
	}
	have_last = restarted = 1;
	rtmond_log("the previous run read every record before seq %" PRIu64 "%s", seq_next,
		   seq_max >= seq_next ? " and some after it" : "");
	n = seq_scan_tail(dir, "records.jsonl") + seq_scan_tail(dir, "misses.jsonl");
	if (n > 0) {
		rtmond_log("%zd records stored after its last rtmond.seq (killed in between): "
			   "not written again", n);
		seq_advance(0);
	}
	last_seq = seq_max;
}

/* A read found the rings empty: a hole older than that is a loss. */
void rtmond_seq_rings_empty(void)
{
	rings_empty_ns = rtmond_mono_ns();
}

/* 1 while numbers are missing below the highest read (poll wakes to expire) */
int rtmond_seq_hole_open(void)
{
	return hole_since != 0;
}

/* the highest number read */
uint64_t rtmond_seq_last(void)
{
	return last_seq;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ftrace_snap.c - read the kernel events of an ftrace text snapshot
 * (ftrace_snap.h). Every field is found by name in the event's text, so
 * the order of fields and the flags column do not matter; numbers are
 * checked for range.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftrace_snap.h"

#define FTS_MAX_CPUS	4096

/* The value of "key=" in [s, e) (space-terminated), or NULL. */
static const char *fts_field(const char *s, const char *e, const char *key,
			     size_t *vlen)
{
	size_t kl = strlen(key);
	const char *p = s, *v;

	while (p + kl < e) {
		if ((p == s || p[-1] == ' ') && !memcmp(p, key, kl) && p[kl] == '=') {
			v = p + kl + 1;
			p = v;
			while (p < e && *p != ' ')
				p++;
			*vlen = (size_t)(p - v);
			return v;
		}
		p++;
	}
	return NULL;
}

/* ev->name from "key=" in [s, e), cut to fit; left empty if absent */
static void fts_name(struct fts_event *ev, const char *s, const char *e,
		     const char *key)
{
	size_t vl;
	const char *v = fts_field(s, e, key, &vl);

	if (!v)
		return;
	if (vl >= sizeof(ev->name))
		vl = sizeof(ev->name) - 1;
	memcpy(ev->name, v, vl);
	ev->name[vl] = 0;
}

static int fts_num(const char *s, const char *e, const char *key, long lo,
		   long hi, long *out)
{
	size_t vl;
	const char *v = fts_field(s, e, key, &vl);
	char buf[24], *end;
	long x;

	if (!v || !vl || vl >= sizeof(buf))
		return -1;
	memcpy(buf, v, vl);
	buf[vl] = 0;
	errno = 0;
	x = strtol(buf, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return -1;
	*out = x;
	return 0;
}

/*
 * A comm field: its value runs to the next " key=" (comms may hold
 * spaces), at most FTS_COMM_LEN - 1 bytes kept.
 */
static int fts_comm(const char *s, const char *e, const char *key,
		    const char *next_key, char *out)
{
	size_t vl, nk = strlen(next_key);
	const char *v = fts_field(s, e, key, &vl), *p;

	if (!v)
		return -1;
	for (p = v; p + nk + 1 < e; p++)
		if (*p == ' ' && !memcmp(p + 1, next_key, nk) && p[1 + nk] == '=')
			break;
	if (p + nk + 1 >= e)
		p = v + vl;
	vl = (size_t)(p - v);
	if (vl >= FTS_COMM_LEN)
		vl = FTS_COMM_LEN - 1;
	memcpy(out, v, vl);
	out[vl] = 0;
	return 0;
}

static int fts_task(const char *s, const char *e, const char *ck,
		    const char *pk, const char *prk, struct fts_task *t)
{
	long pid, prio;

	if (fts_comm(s, e, ck, pk, t->comm) ||
	    fts_num(s, e, pk, 0, 0x7fffffff, &pid) ||
	    fts_num(s, e, prk, -1, 139, &prio))
		return -1;
	t->pid = (uint32_t)pid;
	t->prio = (int)prio;
	return 0;
}

/*
 * trace-cmd report's sched plugin form of a task, "comm:pid [prio]" ending
 * at the last " [" before e (comms may hold ':' and spaces); *end is set
 * past the "]". 0, or -1.
 */
static int fts_plugin_task(const char *s, const char *e, struct fts_task *t,
			   const char **end)
{
	const char *b = NULL, *p, *c;
	char buf[16], *x;
	size_t l;
	long v;

	for (p = s; p + 1 < e; p++)
		if (p[0] == ' ' && p[1] == '[')
			b = p;
	if (!b)
		return -1;
	for (c = b; c > s && c[-1] != ':'; c--)
		;
	if (c == s || c == b || (size_t)(b - c) >= sizeof(buf))
		return -1;
	memcpy(buf, c, (size_t)(b - c));
	buf[b - c] = 0;
	errno = 0;
	v = strtol(buf, &x, 10);
	if (errno || *x || v < 0 || v > 0x7fffffff)
		return -1;
	t->pid = (uint32_t)v;
	p = memchr(b, ']', (size_t)(e - b));
	if (!p || (size_t)(p - b - 2) >= sizeof(buf) || p == b + 2)
		return -1;
	memcpy(buf, b + 2, (size_t)(p - b - 2));
	buf[p - b - 2] = 0;
	v = strtol(buf, &x, 10);
	if (*x || v < -1 || v > 139)
		return -1;
	t->prio = (int)v;
	while (s < c && *s == ' ')
		s++;
	l = (size_t)(c - 1 - s);
	if (l >= FTS_COMM_LEN)
		l = FTS_COMM_LEN - 1;
	memcpy(t->comm, s, l);
	t->comm[l] = 0;
	*end = p + 1;
	return 0;
}

/* trace-cmd's "prev:pid [prio] S ==> next:pid [prio]" */
static int fts_plugin_switch(struct fts_event *ev, const char *f, const char *e)
{
	const char *arrow = NULL, *p, *st, *end;
	size_t vl;

	for (p = f; p + 5 <= e; p++)
		if (!memcmp(p, " ==> ", 5)) {
			arrow = p;
			break;
		}
	if (!arrow)
		return -1;
	/* the state: the word before the arrow, after the prev's "]" */
	for (st = arrow; st > f && st[-1] != ' '; st--)
		;
	vl = (size_t)(arrow - st);
	if (st == f || !vl || vl >= sizeof(ev->prev_state))
		return -1;
	memcpy(ev->prev_state, st, vl);
	ev->prev_state[vl] = 0;
	if (fts_plugin_task(f, st - 1, &ev->a, &end) ||
	    fts_plugin_task(arrow + 5, e, &ev->b, &end))
		return -1;
	return 0;
}

/* The event part "name: fields" in [s, e) into ev; -1 bad, 1 not ours. */
static int fts_event_fields(struct fts_event *ev, const char *s, const char *e)
{
	const char *f = memchr(s, ':', (size_t)(e - s));
	size_t nl;
	long x, y;

	if (!f)
		return -1;
	nl = (size_t)(f - s);
	f++;
	while (f < e && *f == ' ')
		f++;
#define IS(name) (nl == sizeof(name) - 1 && !memcmp(s, name, nl))
	if (IS("sched_switch")) {
		size_t vl;
		const char *st;

		ev->type = FTS_SWITCH;
		if (!fts_field(f, e, "prev_pid", &vl))
			return fts_plugin_switch(ev, f, e);
		if (fts_task(f, e, "prev_comm", "prev_pid", "prev_prio", &ev->a) ||
		    fts_task(f, e, "next_comm", "next_pid", "next_prio", &ev->b))
			return -1;
		st = fts_field(f, e, "prev_state", &vl);
		if (!st || !vl || vl >= sizeof(ev->prev_state))
			return -1;
		memcpy(ev->prev_state, st, vl);
		ev->prev_state[vl] = 0;
		return 0;
	}
	if (IS("sched_waking")) {
		size_t vl;
		const char *end, *c;

		ev->type = FTS_WAKING;
		if (!fts_field(f, e, "pid", &vl)) {
			/* trace-cmd's "comm:pid [prio] ... CPU:NNN" */
			if (fts_plugin_task(f, e, &ev->a, &end))
				return -1;
			for (c = end; c + 4 < e && memcmp(c, "CPU:", 4); c++)
				;
			if (c + 4 < e)
				x = strtol(c + 4, NULL, 10);
			else if (fts_num(end, e, "target_cpu", 0, FTS_MAX_CPUS - 1, &x))
				return -1;
			if (x < 0 || x >= FTS_MAX_CPUS)
				return -1;
		} else if (fts_task(f, e, "comm", "pid", "prio", &ev->a) ||
			   fts_num(f, e, "target_cpu", 0, FTS_MAX_CPUS - 1, &x)) {
			return -1;
		}
		ev->n = (int)x;
		return 0;
	}
	if (IS("sched_migrate_task")) {
		ev->type = FTS_MIGRATE;
		if (fts_task(f, e, "comm", "pid", "prio", &ev->a) ||
		    fts_num(f, e, "orig_cpu", 0, FTS_MAX_CPUS - 1, &x) ||
		    fts_num(f, e, "dest_cpu", 0, FTS_MAX_CPUS - 1, &y))
			return -1;
		ev->orig_cpu = (int)x;
		ev->n = (int)y;
		return 0;
	}
	if (IS("irq_handler_entry") || IS("irq_handler_exit")) {
		ev->type = IS("irq_handler_entry") ? FTS_IRQ_ENTRY : FTS_IRQ_EXIT;
		if (fts_num(f, e, "irq", 0, 0x7fffffff, &x))
			return -1;
		ev->n = (int)x;
		fts_name(ev, f, e, "name");
		return 0;
	}
	if (IS("softirq_entry") || IS("softirq_exit")) {
		ev->type = IS("softirq_entry") ? FTS_SOFTIRQ_ENTRY : FTS_SOFTIRQ_EXIT;
		if (fts_num(f, e, "vec", 0, 31, &x))
			return -1;
		ev->n = (int)x;
		return 0;
	}
	if (IS("hrtimer_expire_entry") || IS("hrtimer_expire_exit")) {
		ev->type = IS("hrtimer_expire_entry") ? FTS_TIMER_ENTRY : FTS_TIMER_EXIT;
		/* the callback (hrtimer_wakeup, it_real_fn, ...): who woke a task */
		if (ev->type == FTS_TIMER_ENTRY)
			fts_name(ev, f, e, "function");
		return 0;
	}
	if (IS("rtmon_work")) {
		/* "begin cookie=N" / "end cookie=N": a u64, more than fts_num's range */
		size_t vl;
		const char *v = fts_field(f, e, "cookie", &vl);
		char buf[24], *end;

		if (e - f >= 6 && !memcmp(f, "begin ", 6))
			ev->type = FTS_WORK_BEGIN;
		else if (e - f >= 4 && !memcmp(f, "end ", 4))
			ev->type = FTS_WORK_END;
		else
			return -1;
		if (!v || !vl || vl >= sizeof(buf) || !isdigit((unsigned char)*v))
			return -1;
		memcpy(buf, v, vl);
		buf[vl] = 0;
		errno = 0;
		ev->cookie = strtoull(buf, &end, 10);
		if (errno || *end)
			return -1;
		return 0;
	}
#undef IS
	return 1;
}

/*
 * One line: "comm-pid [cpu] flags secs.usecs: event: fields". Returns 0
 * (ev filled), 1 (not an event we read: comments, other events), -1 bad.
 */
static int fts_line(struct fts_event *ev, const char *s, const char *e)
{
	const char *br = NULL, *p, *q, *dash, *ts;
	unsigned long long sec = 0, usec = 0;
	long cpu;
	size_t l;
	int nd = 0;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	if (s == e || *s == '#')
		return 1;
	/* the cpu column: " [digits]" */
	for (p = s; p + 2 < e; p++) {
		if (p[0] == ' ' && p[1] == '[' && isdigit((unsigned char)p[2])) {
			for (q = p + 2; q < e && isdigit((unsigned char)*q); q++)
				;
			if (q < e && *q == ']') {
				br = p;
				break;
			}
		}
	}
	if (!br)
		return 1;
	cpu = strtol(br + 2, NULL, 10);
	if (cpu < 0 || cpu >= FTS_MAX_CPUS)
		return -1;
	/* comm-pid before it */
	for (q = br; q > s && q[-1] == ' '; q--)
		;
	for (dash = q; dash > s && dash[-1] != '-'; dash--)
		;
	if (dash == s || dash == q)
		return -1;
	l = (size_t)(dash - 1 - s);
	if (l >= FTS_COMM_LEN)
		l = FTS_COMM_LEN - 1;
	memcpy(ev->cur.comm, s, l);
	ev->cur.comm[l] = 0;
	ev->cur.pid = (uint32_t)strtoul(dash, NULL, 10);
	ev->cur.prio = -1;
	ev->cpu = (int)cpu;
	/* the timestamp: the first "digits.digits:" after the cpu */
	p = memchr(br, ']', (size_t)(e - br)) + 1;
	ts = NULL;
	for (; p < e; p++) {
		if (!isdigit((unsigned char)*p) || (p[-1] != ' ' && p[-1] != ']'))
			continue;
		for (q = p; q < e && isdigit((unsigned char)*q); q++)
			;
		if (q < e && *q == '.') {
			const char *d = q + 1;

			for (q = d; q < e && isdigit((unsigned char)*q); q++)
				;
			if (q < e && *q == ':' && q > d) {
				ts = p;
				nd = (int)(q - d);
				break;
			}
		}
	}
	if (!ts || nd > 9)
		return -1;
	sec = strtoull(ts, (char **)&q, 10);
	usec = strtoull(q + 1, (char **)&q, 10);
	while (nd++ < 9)
		usec *= 10;
	/* up to the end of the 64-bit ns clock, as the replay reads them */
	if (sec > UINT64_MAX / 1000000000ull ||
	    sec * 1000000000ull > UINT64_MAX - usec)
		return -1;
	ev->ts = sec * 1000000000ull + usec;
	q++;		/* the ':' */
	while (q < e && *q == ' ')
		q++;
	return fts_event_fields(ev, q, e);
}

static int fts_cmp(const void *a, const void *b)
{
	const struct fts_event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Does this header line say the buffer lost events (overran)? */
static int fts_overrun_line(const char *s, const char *e)
{
	static const char entries[] = "# entries-in-buffer/entries-written:";
	static const char started[] = "##### CPU ";
	unsigned long long in, written;
	char line[128];
	size_t l = (size_t)(e - s);

	if (l >= sizeof(line))
		return 0;
	memcpy(line, s, l);
	line[l] = 0;
	if (!strncmp(line, started, sizeof(started) - 1))
		return strstr(line, " buffer started") != NULL;
	if (strncmp(line, entries, sizeof(entries) - 1))
		return 0;
	return sscanf(line + sizeof(entries) - 1, " %llu/%llu", &in, &written) == 2 && written > in;
}

int fts_parse(struct fts_trace *t, const char *buf, size_t len)
{
	const char *s = buf, *e = buf + len, *nl;
	unsigned char seen[FTS_MAX_CPUS] = { 0 };
	uint64_t all_cpus = 0;	/* the latest of the cpus' first events */
	struct fts_event ev;
	size_t i;
	int r;

	memset(t, 0, sizeof(*t));
	while (s < e) {
		nl = memchr(s, '\n', (size_t)(e - s));
		if (!nl)
			nl = e;
		t->lines++;
		memset(&ev, 0, sizeof(ev));
		r = fts_line(&ev, s, nl);
		if (r == 1 && !t->overrun && fts_overrun_line(s, nl))
			t->overrun = 1;
		if (r < 0) {
			t->bad_lines++;
			if (!t->first_bad)
				t->first_bad = t->lines;
		} else if (r == 0) {
			ev.line = t->lines;
			if (t->n == t->cap) {
				size_t cap = t->cap ? t->cap * 2 : 1024;
				struct fts_event *ne = realloc(t->ev, cap * sizeof(*ne));

				if (!ne)
					return -1;
				t->ev = ne;
				t->cap = cap;
			}
			t->ev[t->n++] = ev;
			if ((unsigned int)ev.cpu + 1 > t->ncpus)
				t->ncpus = (unsigned int)ev.cpu + 1;
		}
		s = nl + 1;
	}
	/* the file is in time order already; a merged one is sorted here */
	if (t->n > 1)
		qsort(t->ev, t->n, sizeof(*t->ev), fts_cmp);
	for (i = 0; i < t->n; i++) {
		if (!i || t->ev[i].ts < t->first_ts)
			t->first_ts = t->ev[i].ts;
		if (t->ev[i].ts > t->last_ts)
			t->last_ts = t->ev[i].ts;
		/* sorted by time: each cpu's first event is its first seen */
		if (!seen[t->ev[i].cpu]) {
			seen[t->ev[i].cpu] = 1;
			all_cpus = t->ev[i].ts;
		}
	}
	if (t->overrun && t->n)
		t->first_ts = all_cpus;
	return 0;
}

int fts_load(struct fts_trace *t, const char *path)
{
	struct stat st;
	char *buf;
	ssize_t r;
	size_t got = 0;
	int fd, err;

	memset(t, 0, sizeof(*t));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size > (256 << 20)) {
		err = errno ? -errno : -EFBIG;
		close(fd);
		return err;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	err = fts_parse(t, buf, got) ? -ENOMEM : 0;
	free(buf);
	return err;
}

void fts_free(struct fts_trace *t)
{
	free(t->ev);
	memset(t, 0, sizeof(*t));
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtmon_format.c - record output shared by the tools (rtmon_format.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtmon_format.h"

const char *rtmon_boot_id(void)
{
	static char id[RTMON_BOOT_ID_LEN];
	FILE *f;

	if (id[0])
		return id;
	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (f) {
		if (!fgets(id, sizeof(id), f))
			id[0] = 0;
		id[strcspn(id, "\n")] = 0;
		fclose(f);
	}
	return id;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if none. */
static size_t rtmon_utf8_len(const uint8_t *s, size_t n)
{
	uint8_t lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;		/* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f;		/* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;		/* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f;		/* past U+10FFFF */
	if (len > n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/*
 * A task name as text: valid UTF-8 kept, any other byte and control
 * characters written as \xHH. The kernel cuts names at 15 bytes (in the
 * middle of a character) and a task may name itself anything: jansson
 * refuses invalid UTF-8 (the record would be dropped) and a terminal would
 * act on control characters.
 */
void rtmon_comm(char dst[RTMON_COMM_TEXT], const uint8_t *src)
{
	size_t i = 0, o = 0, n;

	while (i < RTM_COMM_LEN && src[i]) {
		if (src[i] >= 0x20 && src[i] < 0x7f) {
			dst[o++] = (char)src[i++];
		} else if ((n = rtmon_utf8_len(src + i, RTM_COMM_LEN - i)) &&
			   !memchr(src + i, 0, n)) {
			memcpy(dst + o, src + i, n);
			o += n;
			i += n;
		} else {
			snprintf(dst + o, 5, "\\x%02x", src[i++]);
			o += 4;
		}
	}
	dst[o] = 0;
}

/* length of the plain character at s (n bytes left), 0: escape it */
static size_t rtmon_text_char(const uint8_t *s, size_t n)
{
	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if (s[0] == 0xc2 && n > 1 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 0;	/* a C1 control */
	return rtmon_utf8_len(s, n);
}

int rtmon_text_ok(const char *str)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t n = strlen(str), i = 0, k;

	while (i < n) {
		k = rtmon_text_char(s + i, n - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

void rtmon_text_escape(char *dst, size_t len, const char *str)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t n = strlen(str), i = 0, o = 0, k;

	if (!len)
		return;
	while (i < n) {
		k = rtmon_text_char(s + i, n - i);
		if (k) {
			if (o + k >= len)
				break;
			memcpy(dst + o, s + i, k);
			o += k;
			i += k;
		} else {
			if (o + 4 >= len)
				break;
			snprintf(dst + o, 5, "\\x%02x", s[i++]);
			o += 4;
		}
	}
	dst[o] = 0;
}

/*
 * Task and target names in rtmond's files are text any local user may have
 * put there (a task names itself; misses.jsonl may be edited or forged, and
 * JSON's \u001b decodes to a raw ESC): printed as they are, an escape
 * sequence would drive the reader's terminal (retitle it, move the cursor,
 * hide lines). C1 controls (U+0080..U+009F, e.g. U+009B, CSI) are written
 * by their code point. Other text, valid UTF-8 included, stays as it is.
 */
const char *rtmon_term(char *buf, size_t len, const char *s)
{
	const uint8_t *p = (const uint8_t *)(s ? s : "");
	size_t o = 0;

	if (!len)
		return buf;
	for (; *p; p++) {
		unsigned int c = *p;

		if (c == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			c = *++p;	/* a C1 control */
		else if (c >= 0x20 && c != 0x7f) {
			if (o + 1 >= len)
				break;
			buf[o++] = (char)c;
			continue;
		}
		if (o + 4 >= len)
			break;
		snprintf(buf + o, 5, "\\x%02x", c);
		o += 4;
	}
	buf[o] = 0;
	return buf;
}

/* What the hop's pid field means depends on its type. */
static void rtmon_hop_who(char *buf, size_t len, const struct rtm_rec_hop *h)
{
	char comm[RTMON_COMM_TEXT];

	rtmon_comm(comm, h->comm);
	switch (h->type) {
	case RTM_HOP_IRQ:
	case RTM_HOP_IRQ_EXIT:
		snprintf(buf, len, "irq %u%s%s", h->pid, comm[0] ? " " : "", comm);
		break;
	case RTM_HOP_SOFTIRQ_RAISE:
	case RTM_HOP_SOFTIRQ_ENTRY:
		snprintf(buf, len, "vec %u", h->pid);
		break;
	case RTM_HOP_TIMER:
	case RTM_HOP_TIMER_RUN:
		snprintf(buf, len, "timer %u", h->pid);
		break;
	case RTM_HOP_QUEUE_WORK:
		snprintf(buf, len, "workqueue item");
		break;
	default:
		snprintf(buf, len, "%s[%u]", comm[0] ? comm : "?", h->pid);
	}
}

/*
 * record.blame: each category's time (all, so that they visibly add up to
 * latency_ns), the culprits named, the rest of their time
 */
static json_t *rtmon_blame_json(const struct rtm_record *r)
{
	json_t *o = json_object(), *cs = json_array();
	char comm[RTMON_COMM_TEXT];
	unsigned int i;

	for (i = 0; i < RTM_BLAME_NR; i++)
		json_object_set_new(o, rtmon_blame_name(i),
				    json_integer((json_int_t)r->blame.ns[i]));
	for (i = 0; i < RTM_REC_CULPRITS; i++) {
		const struct rtm_rec_culprit *k = &r->blame.culprit[i];

		if (!k->pid)
			continue;
		rtmon_comm(comm, k->comm);
		json_array_append_new(cs, json_pack("{s:I, s:s, s:i, s:s, s:I}",
			"pid", (json_int_t)k->pid, "comm", comm,
			"prio", (int)k->prio,
			"category", rtmon_blame_name(k->category),
			"ns", (json_int_t)k->ns));
	}
	json_object_set_new(o, "culprits", cs);
	json_object_set_new(o, "culprit_other_ns",
			    json_integer((json_int_t)r->blame.culprit_other_ns));
	return o;
}

json_t *rtmon_record_json(const struct rtm_record *r, const char *target_name)
{
	char comm[RTMON_COMM_TEXT], who[96];
	json_t *o, *hops, *flags;
	uint64_t prev = r->start_ns;
	unsigned int i;

	rtmon_comm(comm, r->target_comm);
	flags = json_array();
	if (r->flags & RTM_REC_F_DEADLINE_MISS)
		json_array_append_new(flags, json_string("deadline_miss"));
	if (r->flags & RTM_REC_F_TIMEOUT)
		json_array_append_new(flags, json_string("timeout"));
	if (r->flags & RTM_REC_F_WAS_OVERDUE)
		json_array_append_new(flags, json_string("was_overdue"));
	if (r->flags & RTM_REC_F_TRUNCATED)
		json_array_append_new(flags, json_string("truncated"));
	if (r->flags & RTM_REC_F_DROPPED_HOPS)
		json_array_append_new(flags, json_string("dropped_hops"));
	if (r->flags & RTM_REC_F_MERGED)
		json_array_append_new(flags, json_string("merged"));
	if (r->flags & RTM_REC_F_COALESCED)
		json_array_append_new(flags, json_string("coalesced"));
	if (r->flags & RTM_REC_F_REPOLL)
		json_array_append_new(flags, json_string("repoll"));

	hops = json_array();
	for (i = 0; i < r->nhops && i < RTM_REC_MAX_HOPS; i++) {
		const struct rtm_rec_hop *h = &r->hops[i];
		char hc[RTMON_COMM_TEXT];

		rtmon_comm(hc, h->comm);
		rtmon_hop_who(who, sizeof(who), h);
		json_array_append_new(hops, json_pack("{s:s, s:i, s:I, s:s, s:s, s:s, s:I, s:I}",
			"event", rtmon_hop_name(h->type), "cpu", (int)h->cpu,
			"pid", (json_int_t)h->pid, "comm", hc,
			"ctx", rtmon_ctx_name(h->ctx), "what", who,
			"ts_ns", (json_int_t)h->ts_ns,
			"delta_ns", (json_int_t)(h->ts_ns > prev ? h->ts_ns - prev : 0)));
		if (h->ts_ns > prev)
			prev = h->ts_ns;
	}
	o = json_pack("{s:I, s:i, s:s, s:I, s:i, s:s?, s:I, s:I, s:s, s:I, s:I, s:I, s:I, s:b, s:o, s:i, s:i, s:I, s:o}",
		"seq", (json_int_t)r->seq, "version", (int)r->version,
		"kind", r->kind == RTM_KIND_TIMER ? "timer" : "irq",
		"source", (json_int_t)r->source,
		"target", r->target_id == RTM_TARGET_NONE ? -1 : (int)r->target_id,
		"target_name", target_name,
		"pid", (json_int_t)r->target_pid, "tgid", (json_int_t)r->target_tgid,
		"comm", comm,
		"start_ns", (json_int_t)r->start_ns, "end_ns", (json_int_t)r->end_ns,
		"latency_ns", (json_int_t)r->latency_ns,
		"deadline_ns", (json_int_t)r->deadline_ns,
		"miss", !!(r->flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT)),
		"flags", flags, "cpu", (int)r->cpu, "path_len", (int)r->path_len,
		"chain_hops", (json_int_t)r->chain_hops, "hops", hops);
	if (o && (r->flags & RTM_REC_F_COOKIE))
		json_object_set_new(o, "cookie", json_integer((json_int_t)r->cookie));
	/* which timer: records of modules before record version 3 have none */
	if (o && r->kind == RTM_KIND_TIMER && r->timer_kind)
		json_object_set_new(o, "timer",
				    json_string(rtmon_timer_name(r->timer_kind)));
	if (o)
		json_object_set_new(o, "blame", rtmon_blame_json(r));
	return o;
}

/* ---- the record as a JSON line, without jansson's objects ---- */

struct jline {
	char *p;
	size_t len, o;
	int bad;	/* out of room, or a string jansson would refuse */
};

static void jl_raw(struct jline *b, const char *s, size_t n)
{
	if (b->bad || n > b->len - b->o) {
		b->bad = 1;
		return;
	}
	memcpy(b->p + b->o, s, n);
	b->o += n;
}

/* a decimal integer as jansson prints a json_int_t ("%lld") */
static void jl_int(struct jline *b, long long v)
{
	char d[24];
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	size_t i = sizeof(d);

	do {
		d[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		d[--i] = '-';
	jl_raw(b, d + i, sizeof(d) - i);
}

/*
 * A string as jansson dumps it with no flags: '"' and '\' escaped, the
 * controls below 0x20 as \b \f \n \r \t or \u00XX, everything else as it
 * is; invalid UTF-8 is refused (json_string() returns NULL for it).
 */
static void jl_str(struct jline *b, const char *str)
{
	static const char hex[] = "0123456789ABCDEF";
	const uint8_t *s = (const uint8_t *)str;
	size_t n, i = 0, run, k;

	if (!str) {
		b->bad = 1;
		return;
	}
	n = strlen(str);
	jl_raw(b, "\"", 1);
	while (i < n && !b->bad) {
		char e[6] = { '\\', 0, '0', '0', 0, 0 };
		uint8_t c = s[i];

		if (c >= 0x80) {
			k = rtmon_utf8_len(s + i, n - i);
			if (!k) {
				b->bad = 1;
				return;
			}
			jl_raw(b, str + i, k);
			i += k;
			continue;
		}
		for (run = i; run < n && s[run] >= 0x20 && s[run] < 0x80 &&
		     s[run] != '"' && s[run] != '\\'; run++)
			;
		if (run > i) {
			jl_raw(b, str + i, run - i);
			i = run;
			continue;
		}
		switch (c) {
		case '"': case '\\': e[1] = (char)c; jl_raw(b, e, 2); break;
		case '\b': e[1] = 'b'; jl_raw(b, e, 2); break;
		case '\f': e[1] = 'f'; jl_raw(b, e, 2); break;
		case '\n': e[1] = 'n'; jl_raw(b, e, 2); break;
		case '\r': e[1] = 'r'; jl_raw(b, e, 2); break;
		case '\t': e[1] = 't'; jl_raw(b, e, 2); break;
		default:
			e[1] = 'u';
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			jl_raw(b, e, 6);
		}
		i++;
	}
	jl_raw(b, "\"", 1);
}

/* ,"KEY": (KEY is one of ours: nothing to escape) */
static void jl_key(struct jline *b, const char *key)
{
	jl_raw(b, ",\"", 2);
	jl_raw(b, key, strlen(key));
	jl_raw(b, "\":", 2);
}

size_t rtmon_record_json_line(char *buf, size_t len, const struct rtm_record *r,
			      const char *target_name, uint64_t read_ns, int64_t wall_off_ns,
			      const char *boot_id, const char *load_id)
{
	static const struct { uint32_t flag; const char *name; } fl[] = {
		{ RTM_REC_F_DEADLINE_MISS, "deadline_miss" }, { RTM_REC_F_TIMEOUT, "timeout" },
		{ RTM_REC_F_WAS_OVERDUE, "was_overdue" }, { RTM_REC_F_TRUNCATED, "truncated" },
		{ RTM_REC_F_DROPPED_HOPS, "dropped_hops" }, { RTM_REC_F_MERGED, "merged" },
		{ RTM_REC_F_COALESCED, "coalesced" },
		{ RTM_REC_F_REPOLL, "repoll" },
	};
	struct jline b = { .p = buf, .len = len };
	char comm[RTMON_COMM_TEXT], who[96];
	uint64_t prev = r->start_ns;
	unsigned int i, nf = 0;

	rtmon_comm(comm, r->target_comm);
	/* the keys in rtmon_record_json()'s order; casts as its json_pack()'s */
	jl_raw(&b, "{\"seq\":", 7);
	jl_int(&b, (long long)r->seq);
	jl_key(&b, "version");
	jl_int(&b, (int)r->version);
	jl_key(&b, "kind");
	jl_str(&b, r->kind == RTM_KIND_TIMER ? "timer" : "irq");
	jl_key(&b, "source");
	jl_int(&b, (long long)r->source);
	jl_key(&b, "target");
	jl_int(&b, r->target_id == RTM_TARGET_NONE ? -1 : (int)r->target_id);
	jl_key(&b, "target_name");
	if (target_name)
		jl_str(&b, target_name);
	else
		jl_raw(&b, "null", 4);
	jl_key(&b, "pid");
	jl_int(&b, (long long)r->target_pid);
	jl_key(&b, "tgid");
	jl_int(&b, (long long)r->target_tgid);
	jl_key(&b, "comm");
	jl_str(&b, comm);
	jl_key(&b, "start_ns");
	jl_int(&b, (long long)r->start_ns);
	jl_key(&b, "end_ns");
	jl_int(&b, (long long)r->end_ns);
	jl_key(&b, "latency_ns");
	jl_int(&b, (long long)r->latency_ns);
	jl_key(&b, "deadline_ns");
	jl_int(&b, (long long)r->deadline_ns);
	jl_key(&b, "miss");
	if (r->flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT))
		jl_raw(&b, "true", 4);
	else
		jl_raw(&b, "false", 5);
	jl_key(&b, "flags");
	jl_raw(&b, "[", 1);
	for (i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
		if (!(r->flags & fl[i].flag))
			continue;
		if (nf++)
			jl_raw(&b, ",", 1);
		jl_str(&b, fl[i].name);
	}
	jl_raw(&b, "]", 1);
	jl_key(&b, "cpu");
	jl_int(&b, (int)r->cpu);
	jl_key(&b, "path_len");
	jl_int(&b, (int)r->path_len);
	jl_key(&b, "chain_hops");
	jl_int(&b, (long long)r->chain_hops);
	jl_key(&b, "hops");
	jl_raw(&b, "[", 1);
	for (i = 0; i < r->nhops && i < RTM_REC_MAX_HOPS; i++) {
		const struct rtm_rec_hop *h = &r->hops[i];
		char hc[RTMON_COMM_TEXT];

		rtmon_comm(hc, h->comm);
		rtmon_hop_who(who, sizeof(who), h);
		jl_raw(&b, i ? ",{\"event\":" : "{\"event\":", i ? 10 : 9);
		jl_str(&b, rtmon_hop_name(h->type));
		jl_key(&b, "cpu");
		jl_int(&b, (int)h->cpu);
		jl_key(&b, "pid");
		jl_int(&b, (long long)h->pid);
		jl_key(&b, "comm");
		jl_str(&b, hc);
		jl_key(&b, "ctx");
		jl_str(&b, rtmon_ctx_name(h->ctx));
		jl_key(&b, "what");
		jl_str(&b, who);
		jl_key(&b, "ts_ns");
		jl_int(&b, (long long)h->ts_ns);
		jl_key(&b, "delta_ns");
		jl_int(&b, (long long)(h->ts_ns > prev ? h->ts_ns - prev : 0));
		jl_raw(&b, "}", 1);
		if (h->ts_ns > prev)
			prev = h->ts_ns;
	}
	jl_raw(&b, "]", 1);
	if (r->flags & RTM_REC_F_COOKIE) {
		jl_key(&b, "cookie");
		jl_int(&b, (long long)r->cookie);
	}
	if (r->kind == RTM_KIND_TIMER && r->timer_kind) {
		jl_key(&b, "timer");
		jl_str(&b, rtmon_timer_name(r->timer_kind));
	}
	jl_raw(&b, ",\"blame\":{", 10);
	for (i = 0; i < RTM_BLAME_NR; i++) {
		if (i)
			jl_raw(&b, ",", 1);
		jl_str(&b, rtmon_blame_name(i));
		jl_raw(&b, ":", 1);
		jl_int(&b, (long long)r->blame.ns[i]);
	}
	jl_key(&b, "culprits");
	jl_raw(&b, "[", 1);
	for (i = 0, nf = 0; i < RTM_REC_CULPRITS; i++) {
		const struct rtm_rec_culprit *k = &r->blame.culprit[i];

		if (!k->pid)
			continue;
		rtmon_comm(comm, k->comm);
		if (nf++)
			jl_raw(&b, ",", 1);
		jl_raw(&b, "{\"pid\":", 7);
		jl_int(&b, (long long)k->pid);
		jl_key(&b, "comm");
		jl_str(&b, comm);
		jl_key(&b, "prio");
		jl_int(&b, (int)k->prio);
		jl_key(&b, "category");
		jl_str(&b, rtmon_blame_name(k->category));
		jl_key(&b, "ns");
		jl_int(&b, (long long)k->ns);
		jl_raw(&b, "}", 1);
	}
	jl_raw(&b, "]", 1);
	jl_key(&b, "culprit_other_ns");
	jl_int(&b, (long long)r->blame.culprit_other_ns);
	jl_raw(&b, "}", 1);
	jl_key(&b, "read_ns");
	jl_int(&b, (long long)read_ns);
	jl_key(&b, "wall_ns");
	/* modulo 2^64, as the reader adds it: defined for any record */
	jl_int(&b, (long long)(r->end_ns + (uint64_t)wall_off_ns));
	if (boot_id && boot_id[0]) {
		jl_key(&b, "boot_id");
		jl_str(&b, boot_id);
	}
	if (load_id) {
		jl_key(&b, "load_id");
		jl_str(&b, load_id);
	}
	jl_raw(&b, "}\n", 2);
	return b.bad ? 0 : b.o;
}

int64_t rtmon_wall_offset_ns(void)
{
	struct timespec m0, w, m1;

	/* the wall clock read between two monotonic reads: their mean */
	clock_gettime(CLOCK_MONOTONIC, &m0);
	clock_gettime(CLOCK_REALTIME, &w);
	clock_gettime(CLOCK_MONOTONIC, &m1);
	return ((int64_t)w.tv_sec * 1000000000 + w.tv_nsec) -
	       (((int64_t)m0.tv_sec + m1.tv_sec) * 500000000 + (m0.tv_nsec + m1.tv_nsec) / 2);
}

const char *rtmon_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.3f us", ns / 1e3);
	else
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	return buf;
}

void rtmon_blame_print(FILE *f, const struct rtm_rec_blame *b)
{
	char a[32], comm[RTMON_COMM_TEXT], t[RTMON_COMM_TEXT * 4], prio[16];
	unsigned int order[RTM_BLAME_NR], n = 0, i, j, x;

	for (i = 0; i < RTM_BLAME_NR; i++)
		if (b->ns[i])
			order[n++] = i;
	/* largest first (a handful: insertion sort) */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && b->ns[order[j]] > b->ns[order[j - 1]]; j--) {
			x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	fputs("  blame:", f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s %s %s", i ? "," : "", rtmon_blame_name(order[i]),
			rtmon_fmt_ns(a, sizeof(a), b->ns[order[i]]));
	fputs(n ? "\n" : " -\n", f);
	for (i = 0; i < RTM_REC_CULPRITS; i++) {
		const struct rtm_rec_culprit *k = &b->culprit[i];

		if (!k->pid)
			continue;
		/* a task's name is any local user's choice: escaped for the terminal */
		rtmon_comm(comm, k->comm);
		rtmon_term(t, sizeof(t), comm[0] ? comm : "?");
		rtmon_prio_str(k->prio, prio, sizeof(prio));
		fprintf(f, "  %s behind %s[%u]%s%s: %s\n",
			rtmon_blame_name(k->category), t,
			k->pid, prio[0] ? " " : "", prio,
			rtmon_fmt_ns(a, sizeof(a), k->ns));
	}
	if (b->culprit_other_ns)
		fprintf(f, "  behind other tasks: %s\n",
			rtmon_fmt_ns(a, sizeof(a), b->culprit_other_ns));
}

static uint32_t rtmon_blame_cat(const char *name)
{
	uint32_t i;

	for (i = 0; name && i < RTM_BLAME_NR; i++)
		if (!strcmp(name, rtmon_blame_name(i)))
			return i;
	return RTM_BLAME_UNKNOWN;
}

int rtmon_blame_from_json(json_t *o, struct rtm_rec_blame *b)
{
	json_t *cs, *k;
	uint32_t i;
	size_t j, n = 0;

	memset(b, 0, sizeof(*b));
	if (!json_is_object(o))
		return -1;
	for (i = 0; i < RTM_BLAME_NR; i++)
		b->ns[i] = (uint64_t)json_integer_value(json_object_get(o, rtmon_blame_name(i)));
	cs = json_object_get(o, "culprits");
	json_array_foreach(cs, j, k) {
		struct rtm_rec_culprit *c;
		const char *comm = json_string_value(json_object_get(k, "comm"));

		if (n == RTM_REC_CULPRITS)
			break;
		c = &b->culprit[n++];
		c->pid = (uint32_t)json_integer_value(json_object_get(k, "pid"));
		c->prio = json_is_integer(json_object_get(k, "prio")) ?
			  (uint8_t)json_integer_value(json_object_get(k, "prio")) :
			  RTM_PRIO_UNKNOWN;
		c->category = (uint8_t)rtmon_blame_cat(
			json_string_value(json_object_get(k, "category")));
		c->ns = (uint64_t)json_integer_value(json_object_get(k, "ns"));
		/* the file's comm is text already escaped for it: kept as text */
		if (comm)
			strncpy((char *)c->comm, comm, RTM_COMM_LEN - 1);
	}
	b->culprit_other_ns = (uint64_t)json_integer_value(json_object_get(o, "culprit_other_ns"));
	return 0;
}

void rtmon_record_print(FILE *f, const struct rtm_record *r,
			const char *target_name)
{
	char comm[RTMON_COMM_TEXT], who[96], a[32], b[32], tn[RTMON_NAME_LEN * 4];
	uint64_t prev = r->start_ns;
	unsigned int i;

	rtmon_comm(comm, r->target_comm);
	/* the module's target names are set by whoever added the target */
	if (target_name)
		target_name = rtmon_term(tn, sizeof(tn), target_name);
	/* "timer:timerfd 345": the timer's kind, and the task it woke */
	fprintf(f, "#%llu %s%s%s %llu -> %s[%u] target %s latency %s",
		r->seq, r->kind == RTM_KIND_TIMER ? "timer" : "irq",
		r->kind == RTM_KIND_TIMER && r->timer_kind ? ":" : "",
		r->kind == RTM_KIND_TIMER && r->timer_kind ?
		rtmon_timer_name(r->timer_kind) : "", r->source,
		comm[0] ? comm : "?", r->target_pid,
		target_name ? target_name : "-",
		rtmon_fmt_ns(a, sizeof(a), r->latency_ns));
	if (r->deadline_ns)
		fprintf(f, " deadline %s", rtmon_fmt_ns(b, sizeof(b), r->deadline_ns));
	if (r->flags & RTM_REC_F_DEADLINE_MISS)
		fputs(" MISS", f);
	if (r->flags & RTM_REC_F_TIMEOUT)
		fputs(" OVERDUE(open)", f);
	if (r->flags & RTM_REC_F_COOKIE)
		fprintf(f, " cookie %llu", (unsigned long long)r->cookie);
	if (r->flags & RTM_REC_F_TRUNCATED)
		fprintf(f, " (path of %u hops, first and last %u shown)",
			r->path_len, r->nhops);
	fputc('\n', f);
	fprintf(f, "  %-3s %-13s %-4s %-8s %-28s %14s\n", "hop", "event", "cpu",
		"context", "who", "+time");
	for (i = 0; i < r->nhops && i < RTM_REC_MAX_HOPS; i++) {
		const struct rtm_rec_hop *h = &r->hops[i];

		rtmon_hop_who(who, sizeof(who), h);
		fprintf(f, "  %-3u %-13s %-4u %-8s %-28s %14s\n", i,
			rtmon_hop_name(h->type), h->cpu, rtmon_ctx_name(h->ctx),
			who, rtmon_fmt_ns(a, sizeof(a),
					  h->ts_ns > prev ? h->ts_ns - prev : 0));
		if (h->ts_ns > prev)
			prev = h->ts_ns;
	}
	rtmon_blame_print(f, &r->blame);
}

int rtmon_parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "min", 60e9 }, { "h", 3600e9 }, { "d", 86400e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0 || !isfinite(v))
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			v *= units[i].mul;
			if (v > 1e19)
				return -1;
			*ns = (uint64_t)(v + 0.5);
			return 0;
		}
	}
	return -1;
}

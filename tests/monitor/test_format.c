// SPDX-License-Identifier: GPL-2.0
/*
 * test_format.c - unit tests of monitor/common/rtmon_format.c: task names
 * that are not valid UTF-8 or hold control characters (issue 21, item 6:
 * jansson refused the record, the miss was dropped from misses.jsonl);
 * rtmon_record_json_line() against jansson's dump of rtmon_record_json(),
 * byte for byte, over records of every shape.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtmon_format.h"

static int failed;

#define CHECK(name, cond, ...) do {						\
	if (cond) {								\
		printf("PASS: format/%s\n", name);				\
	} else {								\
		printf("FAIL: format/%s: ", name);				\
		printf(__VA_ARGS__);						\
		printf("\n");							\
		failed = 1;							\
	}									\
} while (0)

static void comm_is(const char *name, const char *raw, const char *want)
{
	char out[RTMON_COMM_TEXT];
	uint8_t in[RTM_COMM_LEN] = { 0 };

	memcpy(in, raw, strnlen(raw, RTM_COMM_LEN));
	rtmon_comm(out, in);
	CHECK(name, !strcmp(out, want), "got '%s', want '%s'", out, want);
}

static unsigned long long rnd_state = 88172645463325252ull;

static unsigned long long rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* a field: small, near a type's limit, or anything */
static unsigned long long rnd_val(void)
{
	switch (rnd() % 4) {
	case 0: return rnd() % 100;
	case 1: return 0xffffffffull - rnd() % 3;
	case 2: return ~0ull - rnd() % 3;
	default: return rnd();
	}
}

static void rnd_comm(uint8_t *c)
{
	unsigned int i, n = rnd() % (RTM_COMM_LEN + 1);

	memset(c, 0, RTM_COMM_LEN);
	for (i = 0; i < n; i++)
		c[i] = rnd() % 3 ? 'a' + rnd() % 26 : (uint8_t)rnd();
}

/* what rtmond's writer wrote with jansson: the record, its 3 fields, \n */
static char *jansson_line(const struct rtm_record *r, const char *name, uint64_t read_ns,
			  int64_t wall_off, const char *boot_id, const char *load_id)
{
	json_t *o = rtmon_record_json(r, name);
	char *s, *line = NULL;

	if (!o)
		return NULL;
	json_object_set_new(o, "read_ns", json_integer((json_int_t)read_ns));
	json_object_set_new(o, "wall_ns", json_integer((json_int_t)(r->end_ns + (uint64_t)wall_off)));
	if (boot_id[0])
		json_object_set_new(o, "boot_id", json_string(boot_id));
	if (load_id)
		json_object_set_new(o, "load_id", json_string(load_id));
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (s && asprintf(&line, "%s\n", s) < 0)
		line = NULL;
	free(s);
	return line;
}

/*
 * rtmon_record_json_line() gives jansson's line byte for byte, or 0 where
 * jansson refuses the record (invalid UTF-8 in a name), over random
 * records, names with every byte, and buffers one byte short.
 */
static void json_line_matches_jansson(void)
{
	static const char *const names[] = { NULL, "t", "cyclictest", "a\"b\\c/d", "tab\there\n",
		"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "bad\xff", "cut\xe2\x82", "\x7f\x1b[2J",
		"\xed\xa0\x80", "" };
	static char buf[16384];
	unsigned int i, k, same = 0, refused = 0, bad = 0, shortbad = 0;
	char first[400] = "";
	struct rtm_record r;

	for (i = 0; i < 20000; i++) {
		char name[8], *want;
		const char *nm, *boot = i % 3 ? "4cf758df-1123-4488-b07e-d2577b172562" : "";
		const char *load = i % 5 ? "load-7" : NULL;
		uint64_t read_ns = rnd_val();
		/* the wall clock ahead of the monotonic one, or behind (1970) */
		int64_t wall_off = (int64_t)(rnd_val() >> 2) * (rnd() % 2 ? 1 : -1);
		size_t n;

		memset(&r, 0, sizeof(r));
		r.version = (uint32_t)(rnd() % 5);
		r.seq = rnd_val();
		r.kind = (uint32_t)(rnd() % 3);
		r.source = (uint32_t)rnd_val();
		r.target_id = rnd() % 4 ? (uint32_t)(rnd() % 32) : RTM_TARGET_NONE;
		r.target_pid = (uint32_t)rnd_val();
		r.target_tgid = (uint32_t)rnd_val();
		rnd_comm(r.target_comm);
		r.start_ns = rnd_val();
		r.end_ns = rnd_val();
		r.latency_ns = rnd_val();
		r.deadline_ns = rnd_val();
		r.flags = (uint32_t)rnd();
		r.cpu = (uint32_t)rnd_val();
		r.path_len = (uint32_t)rnd_val();
		r.cookie = rnd_val();
		r.timer_kind = (uint32_t)(rnd() % (RTM_TIMER_NR + 2));
		r.nhops = (uint32_t)(rnd() % (RTM_REC_MAX_HOPS + 4));
		for (k = 0; k < RTM_REC_MAX_HOPS; k++) {
			r.hops[k].type = (uint32_t)(rnd() % 24);
			r.hops[k].ctx = (uint32_t)(rnd() % 5);
			r.hops[k].cpu = (uint32_t)rnd_val();
			r.hops[k].pid = (uint32_t)rnd_val();
			r.hops[k].ts_ns = rnd() % 2 ? r.start_ns + rnd() % 100000 : rnd_val();
			rnd_comm(r.hops[k].comm);
		}
		/* the blame: every category, culprits with any comm */
		for (k = 0; k < RTM_BLAME_NR; k++)
			r.blame.ns[k] = rnd() % 3 ? rnd_val() : 0;
		for (k = 0; k < RTM_REC_CULPRITS; k++) {
			r.blame.culprit[k].pid = rnd() % 3 ? (uint32_t)rnd_val() : 0;
			r.blame.culprit[k].prio = (uint8_t)rnd();
			r.blame.culprit[k].category = (uint8_t)(rnd() % (RTM_BLAME_NR + 2));
			r.blame.culprit[k].ns = rnd_val();
			rnd_comm(r.blame.culprit[k].comm);
		}
		r.blame.culprit_other_ns = rnd_val();
		if (i < 256) {		/* every byte, alone, as the target's name */
			name[0] = (char)(i ? i : 'x');
			name[1] = 0;
			nm = name;
		} else {
			nm = names[i % (sizeof(names) / sizeof(names[0]))];
		}
		want = jansson_line(&r, nm, read_ns, wall_off, boot, load);
		n = rtmon_record_json_line(buf, sizeof(buf), &r, nm, read_ns, wall_off, boot, load);
		if (!want && !n) {
			refused++;
		} else if (want && n == strlen(want) && !memcmp(buf, want, n)) {
			same++;
			/* one byte short: refused, nothing written past the end */
			memset(buf, 0x5a, sizeof(buf));
			if (rtmon_record_json_line(buf, n - 1, &r, nm, read_ns, wall_off, boot, load) ||
			    buf[n - 1] != 0x5a)
				shortbad++;
		} else if (bad++ == 0) {
			snprintf(first, sizeof(first), "record %u: jansson '%.150s', line '%.*s'", i,
				 want ? want : "(refused)", (int)(n < 150 ? n : 150), buf);
		}
		free(want);
	}
	CHECK("json-line-as-jansson", !bad && !shortbad && same > 10000 && refused > 1000,
	      "%u equal, %u refused by both, %u differ, %u overran or took a short buffer; %s",
	      same, refused, bad, shortbad, first);
}

int main(void)
{
	struct rtm_record r;
	char *js = NULL, *txt = NULL;
	size_t len = 0;
	json_t *o;
	FILE *f;

	comm_is("comm-ascii", "cyclictest", "cyclictest");
	comm_is("comm-utf8", "caf\xc3\xa9-\xe2\x82\xac", "caf\xc3\xa9-\xe2\x82\xac");
	/* the kernel cut a name in the middle of a euro sign */
	comm_is("comm-cut", "price-14-euro\xe2\x82", "price-14-euro\\xe2\\x82");
	comm_is("comm-invalid", "\xff\xc0\xafx", "\\xff\\xc0\\xafx");
	comm_is("comm-control", "a\x1b[2Jb\n", "a\\x1b[2Jb\\x0a");
	comm_is("comm-surrogate", "\xed\xa0\x80", "\\xed\\xa0\\x80");
	comm_is("comm-full", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
		"\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff");

	memset(&r, 0, sizeof(r));
	r.version = RTM_REC_VERSION;
	r.size = sizeof(r);
	r.seq = 7;
	r.nhops = 2;
	r.path_len = 2;
	memcpy(r.target_comm, "app\xe2\x82", 5);
	r.hops[0].type = RTM_HOP_IRQ;
	r.hops[1].type = RTM_HOP_WAKING;
	memcpy(r.hops[1].comm, "\xff\x1b", 2);
	o = rtmon_record_json(&r, "t");
	if (o)
		js = json_dumps(o, JSON_COMPACT);
	CHECK("record-json", o && js && strstr(js, "\"comm\":\"app\\\\xe2\\\\x82\"") &&
	      strstr(js, "\\\\xff\\\\x1b"), "%s", js ? js : "no JSON (the record would be dropped)");
	f = open_memstream(&txt, &len);
	rtmon_record_print(f, &r, "t");
	fclose(f);
	CHECK("record-text", txt && strstr(txt, "app\\xe2\\x82") && !strchr(txt, 0x1b) &&
	      !strchr(txt, (char)0xff), "%s", txt ? txt : "");
	json_decref(o);
	free(js);
	free(txt);
	/* a culprit's name with a C1 control (CSI, U+009B): never raw on a terminal */
	txt = NULL;
	r.blame.ns[RTM_BLAME_RUNNABLE] = 5000;
	r.blame.culprit[0].pid = 60;
	r.blame.culprit[0].ns = 5000;
	r.blame.culprit[0].category = RTM_BLAME_RUNNABLE;
	r.blame.culprit[0].prio = 19;
	memcpy(r.blame.culprit[0].comm, "hog\xc2\x9b" "2J", 7);
	f = open_memstream(&txt, &len);
	rtmon_record_print(f, &r, "t");
	fclose(f);
	CHECK("blame-text", txt && strstr(txt, "runnable behind hog") && strstr(txt, "[60] rt 80") &&
	      !strstr(txt, "\xc2\x9b"), "%s", txt ? txt : "");
	free(txt);
	json_line_matches_jansson();
	return failed;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * test_format.c - unit tests of monitor/common/rtmon_format.c: task names
 * that are not valid UTF-8 or hold control characters (issue 21, item 6:
 * jansson refused the record, the miss was dropped from misses.jsonl).
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
	return failed;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon-mark - mark work from a shell script or another language:
 *
 *   rtmon-mark begin COOKIE
 *   rtmon-mark end COOKIE
 *
 * The same librtmon markers an application calls (one ioctl and the
 * rtmon:work_begin/work_end lttng-ust tracepoint). COOKIE: a decimal or
 * 0x-hex 64-bit number. Exit 0, 1 when the marker failed (message on
 * stderr), 2 on bad usage. --help and --version answer with exit 0.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rtmon/rtmon.h"

static const char usage[] =
	"usage: rtmon-mark begin|end COOKIE\n"
	"Mark the start or the end of a work item for rtmon, as librtmon's\n"
	"rtmon_work_begin()/rtmon_work_end() do (COOKIE: a decimal or 0x-hex 64-bit\n"
	"number). The module keys an item by process and cookie: two runs of\n"
	"rtmon-mark are two processes, so from a shell the markers show in traces\n"
	"and a begin takes up a chain that woke this process; an application's\n"
	"items are marked with librtmon.\n";

int main(int argc, char **argv)
{
	unsigned long long cookie;
	const char *num;
	char *end;
	int ret, hex;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("rtmon-mark %s\n", RTMON_PKG_VERSION);
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "begin") && strcmp(argv[1], "end"))) {
		fputs(usage, stderr);
		return 2;
	}
	errno = 0;
	/* decimal, or hex after 0x: never octal (a leading 0 is not a base) */
	hex = !strncasecmp(argv[2], "0x", 2);
	num = argv[2] + (hex ? 2 : 0);
	cookie = strtoull(num, &end, hex ? 16 : 10);
	if (errno || *end || end == num || !isxdigit((unsigned char)num[0])) {
		fprintf(stderr, "rtmon-mark: bad cookie '%s' (a 64-bit number)\n", argv[2]);
		return 2;
	}
	ret = !strcmp(argv[1], "begin") ? rtmon_work_begin(cookie) : rtmon_work_end(cookie);
	if (ret) {
		fprintf(stderr, "rtmon-mark: %s %llu: %s%s\n", argv[1], cookie, strerror(-ret),
			ret == -ENOENT ? " (is the rtmon module loaded?)" : "");
		return 1;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - what every rtmonctl command uses: its errors, the device, JSON out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "rtmon/rtmon.h"
#include "rtmon_format.h"
#include "rtmonctl.h"

static const char *prog = "rtmonctl";
const char *rtmonctl_command;

void usage_hint(void)
{
	fprintf(stderr, "Try '%s%s%s --help'.\n", prog, rtmonctl_command ? " " : "",
		rtmonctl_command ? rtmonctl_command : "");
	exit(2);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage_hint();
}

void fail(int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(1);
}

/* Open the device with a message a person can act on. */
struct rtmon *open_dev(void)
{
	struct rtmon *r = rtmon_open(NULL);

	if (r)
		return r;
	switch (errno) {
	case ENOENT:
		fail(0, "%s not found: is the rtmon module loaded? (modprobe rtmon)",
		     RTMON_DEVICE);
	case EACCES:
	case EPERM:
		fail(0, "no permission to open %s: run as root or join the device's group",
		     RTMON_DEVICE);
	case EPROTO:
		fail(0, "the loaded rtmon module speaks another ABI version than this rtmonctl (%d)",
		     RTMON_ABI_VERSION);
	default:
		fail(errno, "cannot open %s", RTMON_DEVICE);
	}
}

void json_out(json_t *j)
{
	json_dumpf(j, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(j);
}

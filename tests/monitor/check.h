/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check.h - the PASS:/FAIL: lines of tests/monitor's C tests: define
 * CHECK_AREA (the name's prefix, "budget") before including it; fails
 * counts the FAIL lines for the exit status.
 */
#ifndef RTMON_TESTS_CHECK_H
#define RTMON_TESTS_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int fails;

static void __attribute__((format(printf, 3, 4)))
check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s: " CHECK_AREA "/%s", ok ? "PASS" : "FAIL", name);
	if (!ok) {
		printf(": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		fails++;
	}
	putchar('\n');
}

#endif

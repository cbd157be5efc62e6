// SPDX-License-Identifier: GPL-2.0
/*
 * test_lines - rtmond's repair of a line file at its start
 * (monitor/rtmond/lines.c, rtmond_open_lines): a power cut or a full disk
 * may leave misses.jsonl or records.jsonl ending in a torn fragment (no
 * newline); opened again, the file gets a newline so that the next line is
 * whole and on its own, not glued to the fragment. A file that ends in a
 * newline is not changed, an empty one stays empty, a missing one is made.
 *   test_lines WORKDIR              the tests; PASS:/FAIL: lines, exit 1 on a FAIL
 *   test_lines append DIR NAME LINE DIR/NAME opened as rtmond opens it at its
 *                                   start, then LINE and a newline appended
 *                                   (tests/crash/run, on a copy of the file)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtmond.h"

#define CHECK_AREA "lines"
#include "check.h"

/* what lines.c uses of the rest of rtmond (only its line writer, not tested here) */
char rtmond_load_tag[24];
int rtmond_load_id_known;
struct rtmond_counters rtmond_cnt;
static char logbuf[4096];
static int log_stderr;

void rtmond_log(const char *fmt, ...)
{
	size_t n = strlen(logbuf);
	va_list ap;

	va_start(ap, fmt);
	if (log_stderr) {
		fputs("rtmond: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else if (n < sizeof(logbuf) - 2) {
		vsnprintf(logbuf + n, sizeof(logbuf) - n - 1, fmt, ap);
		strcat(logbuf, "\n");
	}
	va_end(ap);
}

const char *rtmond_snap_lttng_state(void)
{
	return "";
}

uint64_t rtmond_snap_ftrace_since(void)
{
	return 0;
}

uint64_t rtmond_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}


/* DIR/NAME opened by rtmond_open_lines, LINE and a newline written to it; 0 or -1 */
static int append(const char *dir, const char *name, const char *line)
{
	size_t n = strlen(line);
	char *s = malloc(n + 1);
	int fd, rc = 0;

	if (!s)
		return -1;
	memcpy(s, line, n);
	s[n] = '\n';
	fd = rtmond_open_lines(dir, name);
	if (fd < 0 || write(fd, s, n + 1) != (ssize_t)(n + 1))
		rc = -1;
	if (fd >= 0 && close(fd))
		rc = -1;
	free(s);
	return rc;
}

/* the whole of DIR/NAME, NUL-ended (static), or NULL */
static const char *slurp(const char *dir, const char *name)
{
	static char buf[4096];
	char p[512];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_RDONLY);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	return buf;
}

/* DIR/NAME as text (NULL: no file) */
static void put(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (unlink(p) && errno != ENOENT) {
		perror(p);
		exit(1);
	}
	if (!text)
		return;
	f = fopen(p, "w");
	if (!f || fputs(text, f) == EOF || fclose(f)) {
		perror(p);
		exit(1);
	}
}

/* the file as given (NULL: none) opened as rtmond opens it, twice; then afresh, a line appended */
static void one(const char *dir, const char *name, const char *before, const char *opened,
		const char *appended, const char *cut_logged)
{
	static const char line[] = "{\"seq\":3,\"target\":\"t\"}";
	const char *s;
	char what[64];
	int fd;

	put(dir, name, before);
	logbuf[0] = 0;
	fd = rtmond_open_lines(dir, name);
	if (fd >= 0)
		close(fd);
	s = slurp(dir, name);
	check(fd >= 0 && s && !strcmp(s, opened), name, "opened: \"%s\", not \"%s\" (fd %d)",
	      s ? s : "(none)", opened, fd);
	snprintf(what, sizeof(what), "%s-log", name);
	check(!!cut_logged == !!strstr(logbuf, "ended in the middle of a line"), what,
	      "the log %s the cut line: \"%s\"", cut_logged ? "does not say" : "says", logbuf);
	/* opened again: nothing more to repair */
	fd = rtmond_open_lines(dir, name);
	if (fd >= 0)
		close(fd);
	s = slurp(dir, name);
	snprintf(what, sizeof(what), "%s-again", name);
	check(fd >= 0 && s && !strcmp(s, opened), what, "opened twice: \"%s\", not \"%s\"",
	      s ? s : "(none)", opened);
	put(dir, name, before);
	s = append(dir, name, line) ? NULL : slurp(dir, name);
	snprintf(what, sizeof(what), "%s-append", name);
	check(s && !strcmp(s, appended), what, "with a line appended: \"%s\", not \"%s\"",
	      s ? s : "(none)", appended);
}

int main(int argc, char **argv)
{
	const char *dir;

	if (argc == 5 && !strcmp(argv[1], "append")) {
		log_stderr = 1;
		return append(argv[2], argv[3], argv[4]) ? 1 : 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: test_lines WORKDIR | test_lines append DIR NAME LINE\n");
		return 2;
	}
	dir = argv[1];
	if (mkdir(dir, 0755) && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	/* a torn last line (a write in flight at a power cut): cut, the next line whole after it */
	one(dir, "torn-tail", "{\"seq\":1}\n{\"seq\":2,\"tar",
	    "{\"seq\":1}\n{\"seq\":2,\"tar\n",
	    "{\"seq\":1}\n{\"seq\":2,\"tar\n{\"seq\":3,\"target\":\"t\"}\n", "cut");
	/* only a fragment */
	one(dir, "torn-only", "{\"se", "{\"se\n", "{\"se\n{\"seq\":3,\"target\":\"t\"}\n", "cut");
	/* whole lines: not changed */
	one(dir, "whole", "{\"seq\":1}\n{\"seq\":2}\n", "{\"seq\":1}\n{\"seq\":2}\n",
	    "{\"seq\":1}\n{\"seq\":2}\n{\"seq\":3,\"target\":\"t\"}\n", NULL);
	/* empty: stays empty (no newline of its own) */
	one(dir, "empty", "", "", "{\"seq\":3,\"target\":\"t\"}\n", NULL);
	/* none: made, empty */
	one(dir, "missing", NULL, "", "{\"seq\":3,\"target\":\"t\"}\n", NULL);
	return fails ? 1 : 0;
}

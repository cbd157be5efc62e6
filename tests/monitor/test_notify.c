// SPDX-License-Identifier: GPL-2.0
/*
 * test_notify - rtmond's systemd notifications (monitor/rtmond/notify.c)
 * against a datagram socket standing in for systemd's NOTIFY_SOCKET:
 * nothing without NOTIFY_SOCKET; READY=1/STATUS= arrive as sent; with
 * WATCHDOG_USEC the ping period is half of it, WATCHDOG=1 is sent when due
 * and not before; WATCHDOG_PID of another process means no watchdog.
 * Prints PASS:/FAIL: lines, exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "rtmond.h"

#define CHECK_AREA "notify"
#include "check.h"

static char logbuf[4096];

/* notify.c logs through rtmond_log: keep the last lines for the checks */
void rtmond_log(const char *fmt, ...)
{
	size_t n = strlen(logbuf);
	va_list ap;

	va_start(ap, fmt);
	if (n < sizeof(logbuf) - 2)
		vsnprintf(logbuf + n, sizeof(logbuf) - n - 1, fmt, ap);
	va_end(ap);
	strcat(logbuf, "\n");
}

/* the next datagram, "" when none waits */
static const char *recv_msg(int fd)
{
	static char buf[1024];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static int listener(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("notify socket");
		exit(1);
	}
	return fd;
}

int main(int argc, char **argv)
{
	char path[108], pid[32], *dir;
	const char *m;
	uint64_t wd, now = 1000000000ull;
	int fd, t;

	/* sd_notify wants an absolute path (or @abstract), at most 107 bytes */
	dir = realpath(argc > 1 ? argv[1] : "/tmp", NULL);
	if (!dir || strlen(dir) > sizeof(path) - 16)
		dir = strdup("/tmp");
	snprintf(path, sizeof(path), "%s/notify.sock", dir);
	free(dir);
	/* notify.c reads the environment at each rtmond_notify_init() */
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	wd = rtmond_notify_init();
	rtmond_notify("READY=1");	/* must be a no-op */
	check(!wd && !rtmond_notify_enabled() && rtmond_watchdog_timeout_ms(now) == -1,
	      "off-without-NOTIFY_SOCKET", "watchdog %llu, enabled %d", (unsigned long long)wd,
	      rtmond_notify_enabled());

	fd = listener(path);
	setenv("NOTIFY_SOCKET", path, 1);
	setenv("WATCHDOG_USEC", "3000000", 1);
	snprintf(pid, sizeof(pid), "%d", getpid());
	setenv("WATCHDOG_PID", pid, 1);
	wd = rtmond_notify_init();
	check(wd == 1500000000ull && rtmond_notify_enabled(), "watchdog-half-interval",
	      "WATCHDOG_USEC=3000000 gave a period of %llu ns (want 1.5 s)",
	      (unsigned long long)wd);
	check(strstr(logbuf, "watchdog of 3.0 s") != NULL, "watchdog-logged", "log: %s", logbuf);
	rtmond_notify("READY=1\nSTATUS=running: %u targets", 2u);
	m = recv_msg(fd);
	check(!strcmp(m, "READY=1\nSTATUS=running: 2 targets"), "ready-status", "got '%s'", m);
	rtmond_watchdog_kick(now);
	m = recv_msg(fd);
	check(!strcmp(m, "WATCHDOG=1"), "watchdog-first-ping", "got '%s'", m);
	rtmond_watchdog_kick(now + 1000000000ull);	/* 1 s later: not due */
	m = recv_msg(fd);
	t = rtmond_watchdog_timeout_ms(now + 1000000000ull);
	check(!m[0] && t == 500, "watchdog-not-early", "got '%s', next in %d ms (want 500)", m, t);
	rtmond_watchdog_kick(now + 1500000000ull);
	m = recv_msg(fd);
	t = rtmond_watchdog_timeout_ms(now + 1500000000ull);
	check(!strcmp(m, "WATCHDOG=1") && t == 1500, "watchdog-when-due",
	      "got '%s', next in %d ms (want 1500)", m, t);

	/* systemd's watchdog is for another pid (a wrapper's child): no pings */
	setenv("WATCHDOG_PID", getpid() == 1 ? "2" : "1", 1);
	wd = rtmond_notify_init();
	rtmond_watchdog_kick(now);
	m = recv_msg(fd);
	check(!wd && !m[0] && rtmond_watchdog_timeout_ms(now) == -1, "watchdog-other-pid",
	      "WATCHDOG_PID of another process still gave a watchdog (%llu ns, '%s')",
	      (unsigned long long)wd, m);
	close(fd);
	unlink(path);
	return fails ? 1 : 0;
}

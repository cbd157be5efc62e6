// SPDX-License-Identifier: GPL-2.0
/*
 * notify.c - rtmond's systemd notifications (sd_notify from libsystemd).
 *
 * Under systemd (Type=notify, NOTIFY_SOCKET set) rtmond says READY=1 once
 * its targets are in the module and the reader runs, RELOADING=1/READY=1
 * around a SIGHUP reload, STOPPING=1 at exit, STATUS= lines on the way, and
 * WATCHDOG=1 from the reader's main loop at half the WatchdogSec interval
 * when systemd asks for it (sd_watchdog_enabled: WATCHDOG_USEC for this
 * pid). Without NOTIFY_SOCKET every call here does nothing.
 *
 * Built with SYSTEMD=0 (RTMOND_NO_SYSTEMD) there is no libsystemd: the
 * calls do nothing, and a NOTIFY_SOCKET in the environment is logged as
 * ignored (a Type=notify unit would time out waiting for READY=1).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtmond.h"

#ifdef RTMOND_NO_SYSTEMD
static int sd_notify(int unset_environment, const char *state)
{
	(void)unset_environment;
	(void)state;
	return 0;
}

static int sd_watchdog_enabled(int unset_environment, uint64_t *usec)
{
	(void)unset_environment;
	(void)usec;
	return 0;
}
#else
#include <systemd/sd-daemon.h>
#endif

static int notify_on;		/* NOTIFY_SOCKET was set at start */
static int notify_failed;	/* one log line for failures */
static uint64_t wd_interval_ns;	/* ping period: WATCHDOG_USEC / 2; 0 = none */
static uint64_t wd_next_ns;	/* when the next ping is due */

uint64_t rtmond_notify_init(void)
{
	uint64_t usec = 0;

	wd_interval_ns = wd_next_ns = 0;
	notify_on = getenv("NOTIFY_SOCKET") != NULL;
#ifdef RTMOND_NO_SYSTEMD
	if (notify_on)
		rtmond_log("systemd: NOTIFY_SOCKET set but rtmond was built without libsystemd "
			   "(SYSTEMD=0): no READY=1 or watchdog pings (use Type=exec)");
	notify_on = 0;
#endif
	if (notify_on && sd_watchdog_enabled(0, &usec) > 0 && usec)
		wd_interval_ns = usec * 1000ull / 2;
	if (wd_interval_ns)
		rtmond_log("systemd: watchdog of %.1f s, pinged every %.1f s from the reader loop",
			   usec / 1e6, wd_interval_ns / 1e9);
	return wd_interval_ns;
}

int rtmond_notify_enabled(void)
{
	return notify_on;
}

void rtmond_notify(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int err;

	if (!notify_on)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	err = sd_notify(0, buf);
	if (err < 0 && !notify_failed++)
		rtmond_log("systemd: sd_notify(\"%.40s\") failed: %s", buf, strerror(-err));
}

int rtmond_watchdog_timeout_ms(uint64_t now_ns)
{
	if (!wd_interval_ns)
		return -1;
	if (now_ns >= wd_next_ns)
		return 0;
	return (int)((wd_next_ns - now_ns + 999999) / 1000000);
}

void rtmond_watchdog_kick(uint64_t now_ns)
{
	if (!wd_interval_ns || now_ns < wd_next_ns)
		return;
	rtmond_notify("WATCHDOG=1");
	wd_next_ns = now_ns + wd_interval_ns;
}

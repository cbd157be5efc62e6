// SPDX-License-Identifier: GPL-2.0
/*
 * rtmonctl - control rtmon and look at what it measured: one file per
 * command (targets.c, status.c, records.c, hist.c, misses.c, explain.c,
 * top.c, plot.c); this one finds the command and answers --help and
 * --version for all of them.
 *
 * Errors go to stderr with a non-zero exit status: 1 for a failed
 * operation, 2 for bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "rtmon/rtmon.h"
#include "rtmonctl.h"

#ifndef RTMON_PKG_VERSION
#error "RTMON_PKG_VERSION is set from VERSION in monitor/Makefile"
#endif

static const char start_usage[] =
	"usage: rtmonctl start | stop\n"
	"Start or stop tracking (targets stay; needs CAP_SYS_ADMIN).\n";

static int cmd_start_stop(int argc, char **argv, int json)
{
	struct rtmon *r;
	int err;

	(void)json;
	if (argc > 1)
		usage_error("unexpected argument '%s'", argv[1]);
	r = open_dev();
	err = !strcmp(argv[0], "start") ? rtmon_start(r) : rtmon_stop(r);
	if (err == -EPERM)
		fail(0, "%s needs CAP_SYS_ADMIN (run as root)", argv[0]);
	if (err)
		fail(-err, "%s failed", argv[0]);
	return 0;
}

static const struct command {
	const char *name;
	const char *usage;	/* --help */
	const char *what;	/* a line of the command list */
	int (*run)(int argc, char **argv, int json);	/* argv[0]: the name */
} commands[] = {
	{ "status", status_usage, "module state, counters and targets", cmd_status },
	{ "targets", targets_usage, "add, del or list the targets chains are followed to",
	  cmd_targets },
	{ "start", start_usage, "start tracking", cmd_start_stop },
	{ "stop", start_usage, "stop tracking", cmd_start_stop },
	{ "records", records_usage, "chain records as they come, a summary at exit",
	  cmd_records },
	{ "hist", hist_usage, "rtmond's latency histogram and percentiles of a target",
	  cmd_hist },
	{ "misses", misses_usage, "the misses rtmond saved, with their snapshot files",
	  cmd_misses },
	{ "show", show_usage, "one miss with its per-hop breakdown", cmd_show },
	{ "explain", explain_usage, "where a miss's time went, and who took it", cmd_explain },
	{ "top", top_usage, "live per-target view", cmd_top },
	{ "plot", plot_usage, "the latency histogram drawn by gnuplot", cmd_plot },
};

static void help(void)
{
	size_t i;

	printf("usage: rtmonctl [--json] COMMAND [ARGS]   (--json, --help, --version: anywhere)\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %-9s %s\n", commands[i].name, commands[i].what);
	printf("'rtmonctl COMMAND --help' tells a command's options.\n"
	       "--json gives one JSON document (records: one per line); --version the version.\n"
	       "rtmond's files are read from --dir DIR, $RTMON_DIR or /var/lib/rtmon.\n");
}

/* Take every FLAG out of argv (before a "--"): 1 when there was one. */
static int take_flag(int *argc, char **argv, const char *flag, const char *alt)
{
	int i, found = 0;

	for (i = 1; i < *argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], flag) || (alt && !strcmp(argv[i], alt))) {
			memmove(&argv[i], &argv[i + 1], (size_t)(*argc - i) * sizeof(char *));
			(*argc)--;
			found = 1;
			i--;
		}
	return found;
}

int main(int argc, char **argv)
{
	int json = take_flag(&argc, argv, "--json", NULL);
	int want_help = take_flag(&argc, argv, "--help", "-h");
	size_t i;

	if (take_flag(&argc, argv, "--version", NULL)) {
		printf("rtmonctl %s (module ABI %d, record version %d)\n", RTMON_PKG_VERSION,
		       RTMON_ABI_VERSION, RTM_REC_VERSION);
		return 0;
	}
	if (argc < 2) {
		if (want_help) {
			help();
			return 0;
		}
		usage_error("no command given");
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		rtmonctl_command = commands[i].name;
		if (want_help) {
			fputs(commands[i].usage, stdout);
			return 0;
		}
		return commands[i].run(argc - 1, argv + 1, json);
	}
	usage_error("unknown command '%s'", argv[1]);
}

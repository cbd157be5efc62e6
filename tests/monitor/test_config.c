// SPDX-License-Identifier: GPL-2.0
/*
 * test_config.c - rtmond's configuration parser: the shipped config file,
 * a full good file, and every bad file in bad/ (first line of each:
 * "# expect: TEXT", the error must contain TEXT and the file's name).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

static int failed;

static void pass(const char *n) { printf("PASS: config/%s\n", n); }

static void __attribute__((format(printf, 2, 3))) bad(const char *n, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: config/%s: ", n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed = 1;
}

static const char good[] =
	"targets = (\n"
	"  { name = \"ct\"; comm = \"cyclictest\"; source = \"timer\"; timers = \"timerfd,posix\"; deadline = \"100us\"; },\n"
	"  { name = \"eth\"; irq = \"eth0\"; end = \"block\"; deadline = \"1.5ms\"; misses_only = true; },\n"
	"  { name = \"n\"; irq = 27; pid = 12; tgid = 11; end = \"work_end\"; }\n"
	");\n"
	"snapshot = { dir = \"/tmp/x\"; ftrace = false; lttng_output = \"net://10.0.0.1\";\n"
	"  rate_burst = 2; rate_interval = \"10s\"; gather = \"2ms\"; records_file = true;\n"
	"  lttng_kernel = false; lttng_kernel_buffer_kb = 4096;\n"
	"  max_disk = \"2G\"; max_age = \"30d\"; max_file_size = \"1G\"; keep_files = 10; };\n"
	"metrics = { listen = \"[::1]:9100\"; buckets = [\"1us\", \"1ms\"]; textfile = \"/tmp/t.prom\"; };\n"
	"realtime = { policy = \"rr\"; priority = 42; mlockall = false; keep_admin = false; };\n";

/* the shipped file with its commented example targets ("#\t" lines) uncommented */
static int shipped_examples(const char *path, struct rtmond_config *c, char *err, size_t len)
{
	char line[512], *text = NULL;
	size_t n = 0, l;
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		snprintf(err, len, "cannot open the shipped configuration");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *s = strncmp(line, "#\t", 2) ? line : line + 1;

		l = strlen(s);
		text = realloc(text, n + l + 1);
		if (!text)
			abort();
		memcpy(text + n, s, l + 1);
		n += l;
	}
	fclose(f);
	rc = text ? rtmond_config_parse(text, path, c, err, len) : -1;
	free(text);
	return rc;
}

int main(int argc, char **argv)
{
	const char *top = argc > 1 ? argv[1] : "../..";
	struct rtmond_config *c = malloc(sizeof(*c));
	char err[600], path[1024];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/config/rtmon.conf", top);
	if (rtmond_config_load(path, c, err, sizeof(err)))
		bad("shipped", "%s", err);
	/* no live example target, no LTTng before lttng-sessiond: honest defaults */
	else if (c->ntargets != 0 || c->lttng || !c->ftrace ||
		 c->policy != SCHED_FIFO || c->priority != 10 || c->nle != 14 ||
		 c->max_disk != 256ull << 20 || c->max_age_ns || c->gather_ns ||
		 c->max_file_size != 64ull << 20 || c->keep_files != 4 ||
		 strcmp(c->listen, "127.0.0.1:9465"))
		bad("shipped", "values not as written in config/rtmon.conf");
	else
		pass("shipped");
	if (shipped_examples(path, c, err, sizeof(err)))
		bad("shipped-examples", "%s", err);
	else if (c->ntargets != 2 || c->targets[0].t.deadline_ns != 100000 ||
		 c->targets[0].t.src != RTMON_SRC_TIMER || c->targets[1].t.end != RTMON_END_WORK_END ||
		 c->targets[0].t.timers != RTMON_TIMER_BIT(RTM_TIMER_SLEEPER))
		bad("shipped-examples", "the commented example targets, uncommented, are not as written");
	else
		pass("shipped-examples (the 2 commented targets, uncommented, parse as written)");

	if (rtmond_config_parse(good, "good.conf", c, err, sizeof(err)))
		bad("good", "%s", err);
	else if (c->ntargets != 3 ||
		 c->targets[0].t.timers != (RTMON_TIMER_BIT(RTM_TIMER_TIMERFD) |
					    RTMON_TIMER_BIT(RTM_TIMER_POSIX)) ||
		 c->targets[1].t.timers ||
		 strcmp(c->targets[1].t.irq_name, "eth0") || c->targets[1].t.src != RTMON_SRC_IRQ ||
		 !(c->targets[1].t.flags & RTMON_TF_MISSES_ONLY) ||
		 c->targets[1].t.deadline_ns != 1500000 || c->targets[1].t.end != RTMON_END_BLOCK ||
		 c->targets[2].t.irq != 27 || c->targets[2].t.pid != 12 || c->targets[2].t.tgid != 11 ||
		 c->targets[2].t.deadline_ns != 0 || strcmp(c->targets[2].t.name, "n") ||
		 c->ftrace || !c->lttng || strcmp(c->lttng_output, "net://10.0.0.1") ||
		 c->lttng_kernel || c->lttng_kernel_buffer_kb != 4096 ||
		 c->rate_burst != 2 || c->rate_interval_ns != 10000000000ull || !c->records_file ||
		 c->gather_ns != 2000000 ||
		 c->max_disk != 2ull << 30 || c->max_age_ns != 30 * 86400000000000ull ||
		 c->max_file_size != 1ull << 30 || c->keep_files != 10 ||
		 c->nle != 2 || c->le_ns[0] != 1000 || c->le_ns[1] != 1000000 ||
		 c->policy != SCHED_RR || c->priority != 42 || c->mlockall || c->keep_admin)
		bad("good", "values not as written");
	else
		pass("good");

	if (rtmond_config_parse("", "empty.conf", c, err, sizeof(err)) || c->ntargets ||
	    strcmp(c->dir, "/var/lib/rtmon") || c->rate_burst != 5 || c->max_disk != 256ull << 20 ||
	    c->max_age_ns || !c->lttng_kernel || c->lttng_kernel_buffer_kb != 1024 || c->gather_ns ||
	    c->max_file_size != 64ull << 20 || c->keep_files != 4)
		bad("empty_defaults", "%s", err);
	else
		pass("empty_defaults");

	if (!rtmond_config_load("/nonexistent/rtmon.conf", c, err, sizeof(err)) ||
	    !strstr(err, "/nonexistent/rtmon.conf"))
		bad("missing_file", "no error naming the file: %s", err);
	else
		pass("missing_file");

	/* the first error of each target and group, one per line */
	if (!rtmond_config_parse("targets = ( { name = \"a\"; comm = \"x\"; deadline = \"5\"; },\n"
				 "  { name = \"b\"; comm = \"y\"; end = \"never\"; } );\n"
				 "snapshot = { max_file_size = \"4K\"; };\n"
				 "realtime = { policy = \"batch\"; };\n", "several.conf", c,
				 err, sizeof(err)))
		bad("several_errors", "accepted");
	else if (strncmp(err, "several.conf:1: targets.a.deadline: ", 36) ||
		 !strstr(err, "\nseveral.conf:2: targets.b.end: ") ||
		 !strstr(err, "\nseveral.conf:3: snapshot.max_file_size: ") ||
		 !strstr(err, "\nseveral.conf:4: realtime.policy: ") || err[strlen(err) - 1] == '\n')
		bad("several_errors", "want 4 lines, one per target and group: '%s'", err);
	else
		pass("several_errors (4 errors, 4 lines)");

	/* more errors than the buffer holds: whole lines, then a note */
	{
		char small[200];

		if (!rtmond_config_parse("targets = ( { name = \"a\"; comm = \"x\"; deadline = \"5\"; },\n"
					 "  { name = \"b\"; comm = \"y\"; end = \"never\"; } );\n"
					 "snapshot = { max_file_size = \"4K\"; };\n"
					 "realtime = { policy = \"batch\"; };\n", "several.conf", c,
					 small, sizeof(small)))
			bad("errors_left_out", "accepted");
		else if (strncmp(small, "several.conf:1: targets.a.deadline: ", 36) ||
			 !strstr(small, "\n(more errors not shown)") ||
			 strlen(small) >= sizeof(small))
			bad("errors_left_out", "want the first errors and a note: '%s'", small);
		else
			pass("errors_left_out (a 200-byte buffer: the first errors, then the note)");
	}

	snprintf(path, sizeof(path), "%s/tests/monitor/bad", top);
	d = opendir(path);
	if (!d) {
		bad("bad_files", "no %s", path);
		return 1;
	}
	while ((de = readdir(d))) {
		char file[1300], expect[256] = "", name[300], *nl;
		FILE *f;

		if (!strstr(de->d_name, ".conf"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		snprintf(name, sizeof(name), "bad/%s", de->d_name);
		f = fopen(file, "r");
		if (!f || !fgets(expect, sizeof(expect), f) || strncmp(expect, "# expect: ", 10)) {
			bad(name, "first line must be '# expect: TEXT'");
			if (f)
				fclose(f);
			continue;
		}
		fclose(f);
		if ((nl = strchr(expect, '\n')))
			*nl = 0;
		n++;
		if (!rtmond_config_load(file, c, err, sizeof(err)))
			bad(name, "accepted");
		else if (!strstr(err, expect + 10) || strncmp(err, file, strlen(file)))
			bad(name, "error '%s' does not start with the file and contain '%s'", err,
			    expect + 10);
		else
			pass(name);
	}
	closedir(d);
	if (n < 10)
		bad("bad_files", "only %d bad files", n);
	free(c);
	return failed;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * config_check.c - rtmond --check: what a configuration that parses still
 * needs from this machine (config_check.h). Each problem is one line, all
 * of them are printed: a user fixing a file wants the whole list at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config_check.h"
#include "rtmond.h"

#define PROC_INTERRUPTS	"/proc/interrupts"

/*
 * Whether an action of /proc/interrupts is called name: the module
 * matches action names alone. On a numbered line they follow the counts,
 * the chip and the trigger, after the line's last run of spaces, joined
 * by ", ".
 */
static int irq_name_known(FILE *f, const char *name)
{
	char line[4096], *p, *act, *tok, *save;

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		for (p = line; *p == ' '; p++)
			;
		if (*p < '0' || *p > '9')	/* the header, NMI:, LOC: ... */
			continue;
		line[strcspn(line, "\n")] = 0;
		act = NULL;
		for (p = line; (p = strstr(p, "  ")); p++)
			act = p;
		if (!act)
			continue;
		for (tok = strtok_r(act, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			while (*tok == ' ')
				tok++;
			if (!strcmp(tok, name))
				return 1;
		}
	}
	return 0;
}

/* rtmond creates snapshot.dir: the nearest directory that exists must be safe. */
static int check_snapshot_dir(const char *dir, FILE *out, const char *conf)
{
	char d[PATH_MAX], why[512], *slash;
	struct stat st;

	snprintf(d, sizeof(d), "%s", dir);	/* absolute: config.c checks */
	while (stat(d, &st)) {
		if (errno != ENOENT) {
			fprintf(out, "rtmond: %s: snapshot.dir: %s: %s\n", conf, d, strerror(errno));
			return 1;
		}
		slash = strrchr(d, '/');
		if (slash == d)
			d[1] = 0;
		else
			*slash = 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(out, "rtmond: %s: snapshot.dir: %s is not a directory\n", conf, d);
		return 1;
	}
	if (strcmp(d, dir)) {
		/* created by rtmond (0750): a directory above may be sticky (/tmp) */
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
			fprintf(out, "rtmond: %s: snapshot.dir: %s, where rtmond would create it, is "
				"writable by others (mode %04o): chmod go-w %s\n", conf, d,
				(unsigned int)(st.st_mode & 07777), d);
			return 1;
		}
		return 0;
	}
	if (rtmond_dir_safe(d, why, sizeof(why))) {
		fprintf(out, "rtmond: %s: snapshot.dir: %s\n", conf, why);
		return 1;
	}
	return 0;
}

static int check_textfile(const char *path, FILE *out, const char *conf)
{
	char dir[PATH_MAX], why[512], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	if (rtmond_dir_safe(dir[0] ? dir : "/", why, sizeof(why))) {
		fprintf(out, "rtmond: %s: metrics.textfile: %s (node_exporter's textfile directory "
			"must exist, owned by root and writable by nobody else)\n", conf, why);
		return 1;
	}
	return 0;
}

unsigned int rtmond_config_check(const struct rtmond_config *c, FILE *out)
{
	const char *conf = c->path, *colon;
	unsigned int i, bad = 0;
	FILE *irqs = NULL;
	long port;

	for (i = 0; i < c->ntargets; i++) {
		const struct rtmon_target *t = &c->targets[i].t;

		if (!t->irq_name[0])
			continue;
		if (!irqs)
			irqs = fopen(PROC_INTERRUPTS, "r");
		if (!irqs) {
			fprintf(out, "rtmond: %s: targets.%s.irq: cannot read " PROC_INTERRUPTS ": %s\n",
				conf, c->targets[i].name, strerror(errno));
			bad++;
			break;
		}
		if (!irq_name_known(irqs, t->irq_name)) {
			fprintf(out, "rtmond: %s: targets.%s.irq: no interrupt handler named \"%s\" in "
				PROC_INTERRUPTS " (its driver not loaded yet?)\n",
				conf, c->targets[i].name, t->irq_name);
			bad++;
		}
	}
	if (irqs)
		fclose(irqs);
	bad += (unsigned int)check_snapshot_dir(c->dir, out, conf);
	if (c->textfile[0])
		bad += (unsigned int)check_textfile(c->textfile, out, conf);
	colon = strrchr(c->listen, ':');
	port = colon ? strtol(colon + 1, NULL, 10) : 0;
	if (c->listen[0] && port > 0 && port < 1024) {
		fprintf(out, "rtmond: %s: metrics.listen: port %ld is below 1024: rtmond would need "
			"CAP_NET_BIND_SERVICE, which rtmon.service does not give it (9465 is "
			"rtmon's port)\n", conf, port);
		bad++;
	}
	return bad;
}

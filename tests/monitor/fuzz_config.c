// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_config.c - libFuzzer harness for rtmond's configuration parser:
 * any input either parses into a configuration that holds the parser's
 * promises or gives an error of the form "NAME:LINE: KEY: MESSAGE".
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rtmond_config c;
	char err[600], *text;
	unsigned int i;

	/* no @include of arbitrary files from fuzz input */
	if (memmem(data, size, "@include", 8))
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (rtmond_config_parse(text, "fuzz.conf", &c, err, sizeof(err))) {
		if (strncmp(err, "fuzz.conf:", 10) || !strchr(err + 10, ':'))
			abort();
	} else {
		if (c.ntargets > RTMOND_MAX_TARGETS || c.nle > RTMOND_MAX_LE || !c.nle)
			abort();
		for (i = 0; i < c.ntargets; i++) {
			const struct rtmon_target *t = &c.targets[i].t;

			if (!c.targets[i].name[0] || t->end > RTMON_END_WORK_END ||
			    t->src > RTMON_SRC_IRQ_ANY || memchr(t->comm, 0, sizeof(t->comm)) == NULL ||
			    memchr(t->irq_name, 0, sizeof(t->irq_name)) == NULL ||
			    (!t->comm[0] && !t->pid && !t->tgid && t->src != RTMON_SRC_IRQ))
				abort();
		}
		for (i = 1; i < c.nle; i++)
			if (c.le_ns[i] <= c.le_ns[i - 1])
				abort();
		if (c.dir[0] != '/' || (c.policy != 0 && (c.priority < 1 || c.priority > 99)))
			abort();
	}
	free(text);
	return 0;
}

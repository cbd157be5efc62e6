// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gpio_line.c - gpio_line.h on libgpiod 1.6 (the v1 GPIO character device
 * uAPI). The only file of the tools that includes <gpiod.h>.
 *
 * libgpiod 1.6 facts the tools rely on:
 * - gpiod_chip_open_lookup() takes a name, number, path or label;
 * - event timestamps are the kernel's, CLOCK_MONOTONIC (Linux 5.7 and
 *   later), taken by gpiolib-cdev in the line IRQ's primary handler; the
 *   v1 uAPI has no per-line sequence number (gl_event.seqno = 0);
 * - a failed request leaves errno (EBUSY: line in use); the current
 *   consumer is read back with gpiod_line_update()/gpiod_line_consumer().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpiod.h>

#include "gpio_line.h"

struct gl_chip {
	struct gpiod_chip *chip;
};

struct gl_line {
	struct gpiod_line *line;
};

const char *gl_backend(void)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "libgpiod %s", gpiod_version_string());
	return buf;
}

struct gl_chip *gl_chip_open(const char *desc, char *err, size_t errlen)
{
	struct gl_chip *c;

	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	errno = 0;
	c->chip = gpiod_chip_open_lookup(desc);
	if (!c->chip) {
		int e = errno ? errno : ENODEV;

		if (e == ENOENT || e == ENODEV || e == ENOTTY)
			snprintf(err, errlen,
				 "no GPIO chip '%s' (give a name like gpiochip0, a number, a /dev path or a chip label; gpiodetect lists them)",
				 desc);
		else
			snprintf(err, errlen, "cannot open GPIO chip '%s': %s",
				 desc, strerror(e));
		free(c);
		errno = e;
		return NULL;
	}
	return c;
}

void gl_chip_close(struct gl_chip *c)
{
	if (!c)
		return;
	gpiod_chip_close(c->chip);
	free(c);
}

const char *gl_chip_name(struct gl_chip *c)
{
	return gpiod_chip_name(c->chip);
}

const char *gl_chip_label(struct gl_chip *c)
{
	return gpiod_chip_label(c->chip);
}

unsigned int gl_chip_num_lines(struct gl_chip *c)
{
	return gpiod_chip_num_lines(c->chip);
}

int gl_line_lookup(struct gl_chip *c, const char *spec, unsigned int *offset,
		   char *err, size_t errlen)
{
	unsigned int n = gl_chip_num_lines(c);
	struct gpiod_line *line;
	unsigned long v;
	char *end;

	if (!spec || !*spec) {
		snprintf(err, errlen, "empty line name");
		errno = EINVAL;
		return -1;
	}
	if (spec[0] >= '0' && spec[0] <= '9') {
		errno = 0;
		v = strtoul(spec, &end, 10);
		if (errno || *end) {
			snprintf(err, errlen, "bad line number '%s'", spec);
			errno = EINVAL;
			return -1;
		}
		if (v >= n) {
			snprintf(err, errlen,
				 "line %lu out of range: %s (%s) has %u lines (0..%u)",
				 v, gl_chip_name(c), gl_chip_label(c), n,
				 n ? n - 1 : 0);
			errno = ERANGE;
			return -1;
		}
		*offset = (unsigned int)v;
		return 0;
	}
	errno = 0;
	line = gpiod_chip_find_line(c->chip, spec);
	if (!line) {
		snprintf(err, errlen, "no line named '%s' on %s (%s)", spec,
			 gl_chip_name(c), gl_chip_label(c));
		errno = ENOENT;
		return -1;
	}
	*offset = gpiod_line_offset(line);
	return 0;
}

/* A failed request: say why, and who holds the line when it is busy. */
static void gl_request_error(struct gl_chip *c, struct gpiod_line *line,
			     unsigned int offset, int e, char *err, size_t errlen)
{
	const char *who;

	if (e == EBUSY) {
		gpiod_line_update(line);
		who = gpiod_line_consumer(line);
		if (who && *who)
			snprintf(err, errlen,
				 "line %u of %s (%s) is in use by \"%s\"", offset,
				 gl_chip_name(c), gl_chip_label(c), who);
		else
			snprintf(err, errlen,
				 "line %u of %s (%s) is in use (by a kernel driver or another program)",
				 offset, gl_chip_name(c), gl_chip_label(c));
	} else {
		snprintf(err, errlen, "cannot request line %u of %s (%s): %s",
			 offset, gl_chip_name(c), gl_chip_label(c), strerror(e));
	}
	errno = e;
}

static struct gl_line *gl_request(struct gl_chip *c, unsigned int offset,
				  const char *consumer, int output, int value,
				  char *err, size_t errlen)
{
	struct gpiod_line *line;
	struct gl_line *l;
	int ret;

	line = gpiod_chip_get_line(c->chip, offset);
	if (!line) {
		snprintf(err, errlen, "line %u out of range on %s (%s)", offset,
			 gl_chip_name(c), gl_chip_label(c));
		errno = ERANGE;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	errno = 0;
	if (output)
		ret = gpiod_line_request_output(line, consumer, value);
	else
		ret = gpiod_line_request_both_edges_events(line, consumer);
	if (ret) {
		gl_request_error(c, line, offset, errno ? errno : EIO, err, errlen);
		free(l);
		return NULL;
	}
	l->line = line;
	return l;
}

struct gl_line *gl_request_output(struct gl_chip *c, unsigned int offset,
				  const char *consumer, int value,
				  char *err, size_t errlen)
{
	return gl_request(c, offset, consumer, 1, value, err, errlen);
}

struct gl_line *gl_request_edges(struct gl_chip *c, unsigned int offset,
				 const char *consumer, char *err, size_t errlen)
{
	return gl_request(c, offset, consumer, 0, 0, err, errlen);
}

void gl_release(struct gl_line *l)
{
	if (!l)
		return;
	gpiod_line_release(l->line);
	free(l);
}

int gl_set(struct gl_line *l, int value)
{
	return gpiod_line_set_value(l->line, value);
}

int gl_event_fd(struct gl_line *l)
{
	return gpiod_line_event_get_fd(l->line);
}

int gl_event_wait(struct gl_line *l, int64_t timeout_ns)
{
	struct timespec ts, *tp = NULL;

	if (timeout_ns >= 0) {
		ts.tv_sec = timeout_ns / 1000000000;
		ts.tv_nsec = timeout_ns % 1000000000;
		tp = &ts;
	}
	if (!tp) {
		/* libgpiod 1.6 needs a timeout: a long one, in a loop */
		int r;

		ts.tv_sec = 3600;
		ts.tv_nsec = 0;
		while ((r = gpiod_line_event_wait(l->line, &ts)) == 0)
			;
		return r;
	}
	return gpiod_line_event_wait(l->line, tp);
}

int gl_event_read(struct gl_line *l, struct gl_event *ev)
{
	struct gpiod_line_event e;

	if (gpiod_line_event_read(l->line, &e))
		return -1;
	ev->ts_ns = (uint64_t)e.ts.tv_sec * 1000000000ull + e.ts.tv_nsec;
	ev->seqno = 0;
	ev->rising = e.event_type == GPIOD_LINE_EVENT_RISING_EDGE;
	return 0;
}

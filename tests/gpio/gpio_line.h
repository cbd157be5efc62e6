/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * gpio_line.h - the one place the GPIO loopback tools touch libgpiod.
 *
 * rtmon-gpio-respond and rtmon-gpio-loop need little from a GPIO library:
 * find a chip (by name, label, number or path) and a line (by offset or
 * name), request it as an output or for edge events, set it, wait for and
 * read edge events with their kernel timestamp. This adapter gives exactly
 * that, so the tools never include <gpiod.h>.
 *
 * Backend: gpio_line.c implements it with libgpiod 1.6 (Debian 12). A
 * libgpiod 2.x backend is a second file, gpio_line_v2.c, implementing the
 * same functions (gpiod_chip_open() on each /dev/gpiochip* for the lookup,
 * gpiod_line_settings/gpiod_request_config/gpiod_chip_request_lines for
 * requests, gpiod_edge_event_buffer for events; its edge events carry the
 * kernel's line sequence number, which fills gl_event.seqno), chosen in the
 * Makefile from `pkg-config --modversion libgpiod`.
 *
 * Errors: functions returning a pointer return NULL, the others -1; both
 * leave errno set and a message for people in the err buffer given (or in
 * gl_strerror() for the per-line calls).
 */
#ifndef GPIO_LINE_H
#define GPIO_LINE_H

#include <stddef.h>
#include <stdint.h>

struct gl_chip;
struct gl_line;

#define GL_ERRLEN	256

struct gl_event {
	uint64_t ts_ns;		/* kernel timestamp, CLOCK_MONOTONIC ns */
	uint64_t seqno;		/* the kernel's per-line sequence number,
				 * 0 when the backend does not have it
				 * (libgpiod 1.6: the v1 uAPI has none) */
	int rising;		/* 1 rising edge, 0 falling */
};

/* The backend's name and version, e.g. "libgpiod 1.6.3". */
const char *gl_backend(void);

/*
 * Open a chip by "gpiochip0", "0", "/dev/gpiochip0" or its label
 * ("pinctrl-bcm2711", "rtmon-loop"). NULL with a message when not found.
 */
struct gl_chip *gl_chip_open(const char *desc, char *err, size_t errlen);
void gl_chip_close(struct gl_chip *c);
const char *gl_chip_name(struct gl_chip *c);
const char *gl_chip_label(struct gl_chip *c);
unsigned int gl_chip_num_lines(struct gl_chip *c);

/*
 * A line's offset from "17" (an offset, checked against the chip's line
 * count) or from a line name ("stim-out", "GPIO17"). 0 or -1 with a
 * message (out of range, no such name).
 */
int gl_line_lookup(struct gl_chip *c, const char *spec, unsigned int *offset,
		   char *err, size_t errlen);

/*
 * Request a line as an output at 'value', or for both edges' events, for
 * 'consumer' (shown by gpioinfo; for event lines also the name of the
 * line's IRQ in /proc/interrupts). A busy line fails with EBUSY and a
 * message naming the current consumer when the kernel tells it.
 */
struct gl_line *gl_request_output(struct gl_chip *c, unsigned int offset,
				  const char *consumer, int value,
				  char *err, size_t errlen);
struct gl_line *gl_request_edges(struct gl_chip *c, unsigned int offset,
				 const char *consumer, char *err, size_t errlen);
void gl_release(struct gl_line *l);

int gl_set(struct gl_line *l, int value);
/* The file descriptor to poll() for events. */
int gl_event_fd(struct gl_line *l);
/*
 * Wait up to timeout_ns for an event (-1: forever): 1 one is there,
 * 0 timed out, -1 error (EINTR when a signal came).
 */
int gl_event_wait(struct gl_line *l, int64_t timeout_ns);
/* Read one event, blocking until there is one: 0 or -1 (EINTR too). */
int gl_event_read(struct gl_line *l, struct gl_event *ev);

#endif /* GPIO_LINE_H */

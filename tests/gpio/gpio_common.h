/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * gpio_common.h - what rtmon-gpio-respond and rtmon-gpio-loop share:
 * clock, option numbers, board files, real-time set-up.
 */
#ifndef GPIO_COMMON_H
#define GPIO_COMMON_H

#include <stdint.h>

/* Exit statuses of both tools. */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* runtime error, or (loop) a check failed */
#define EXIT_USAGE	2	/* bad options */

/* The loopback wiring of a board file (boards/README.md). */
struct gpio_board {
	char name[64];
	char chip[64];
	char stim_out[64];	/* driver drives it ... */
	char stim_in[64];	/* ... wired to the responder's input */
	char resp_out[64];	/* responder drives it ... */
	char resp_in[64];	/* ... wired to the driver's input */
};

uint64_t now_ns(void);
/* Busy-wait until CLOCK_MONOTONIC reaches t. */
void spin_until(uint64_t t);

/*
 * Parse an unsigned decimal number within [min, max] for option 'opt';
 * on error print "PROG: OPT: ..." and exit(EXIT_USAGE).
 */
uint64_t opt_u64(const char *prog, const char *opt, const char *s,
		 uint64_t min, uint64_t max);
/* MIN:MAX, both within [min, max], MIN <= MAX. */
void opt_range(const char *prog, const char *opt, const char *s,
	       uint64_t min, uint64_t max, uint64_t *lo, uint64_t *hi);

/*
 * Read a board file's GPIO keys. A missing file or a board without the
 * loopback wiring (BOARD_GPIO_CHIP empty) prints why and exits
 * EXIT_USAGE.
 */
void board_read(const char *prog, const char *path, struct gpio_board *b);

/*
 * SCHED_FIFO at prio (0: leave the policy), pinned to cpu (-1: anywhere),
 * memory locked. Prints why and returns -1 on failure.
 */
int rt_setup(const char *prog, int prio, int cpu);

/* The IRQ number whose action is named 'name' in /proc/interrupts, or -1. */
int irq_by_name(const char *name);

/* Write s to path atomically (path.tmp, then rename): 0 or -1. */
int write_file_atomic(const char *path, const char *s);

#endif /* GPIO_COMMON_H */

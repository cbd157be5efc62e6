/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config_check.h - rtmond --check's checks of a parsed configuration
 * against this machine: IRQ names in /proc/interrupts, snapshot.dir and the
 * metrics textfile's directory safe for rtmond to write in, a metrics port
 * rtmond may bind.
 */
#ifndef RTMOND_CONFIG_CHECK_H
#define RTMOND_CONFIG_CHECK_H

#include <stdio.h>

#include "config.h"

/* Print each problem of c as a line on out; returns how many there were. */
unsigned int rtmond_config_check(const struct rtmond_config *c, FILE *out);

#endif /* RTMOND_CONFIG_CHECK_H */

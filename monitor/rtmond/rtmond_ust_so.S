/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtmond-ust.so (rtmond_tp_probe.c) inside rtmond: loaded from memory by
 * rtmond_snap_load_provider(), so there is no file to install or to find.
 */
	.section .rodata
	.balign 16
	.globl	rtmond_ust_so
rtmond_ust_so:
	.incbin	RTMOND_UST_SO
	.globl	rtmond_ust_so_end
rtmond_ust_so_end:
	.section .note.GNU-stack,"",%progbits

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_pool.c - lock-free fixed-size index pools.
 *
 * A Treiber stack of 32-bit indices whose head is packed with a 32-bit
 * generation into one 64-bit word, so a CAS on the head cannot succeed on
 * a stale view (ABA-safe). Links live in a separate array of atomics; a
 * racing reader may load the link of a node that was just popped by
 * someone else, but then the head generation changed and its CAS fails.
 */
#include "rtm_internal.h"

/* rtm_pool_get()/rtm_pool_put() are inline in rtm_internal.h (hot path). */

void rtm_pool_init(struct rtm_pool *p, rtm_a32 *next, u32 n)
{
	u32 i;

	p->next = next;
	p->n = n;
	rtm_st32(&next[0], 0);
	for (i = 1; i <= n; i++)
		rtm_st32(&next[i], i < n ? i + 1 : 0);
	rtm_st64(&p->head, n ? 1 : 0);
}

/* Quiescent use only: length of the free list (bounded by n). */
u32 rtm_pool_count_free(struct rtm_pool *p)
{
	u32 idx = (u32)rtm_ld64(&p->head);
	u32 cnt = 0;

	while (idx && cnt <= p->n) {
		cnt++;
		idx = rtm_ld32(&p->next[idx]);
	}
	return cnt;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_ring.c - bounded per-cpu record rings (Vyukov MPMC queue).
 *
 * Every slot carries a sequence number: pos means "free for the writer of
 * position pos", pos + 1 means "holds the record of position pos". Writers
 * (the completing cpu, possibly nested on itself) and readers (any cpu)
 * claim positions with a CAS on head/tail and publish with a release store
 * of the slot sequence. A full ring makes rtm_ring_reserve() fail: the
 * caller counts a drop, nothing is overwritten.
 */
#include "rtm_internal.h"

void rtm_ring_init(struct rtm_ring *r, struct rtm_ring_slot *s, u32 n)
{
	u32 i;

	r->slots = s;
	r->mask = n - 1;
	rtm_st64(&r->head, 0);
	rtm_st64(&r->tail, 0);
	rtm_st64(&r->peek, 0);
	for (i = 0; i < n; i++)
		rtm_st64(&s[i].seq, i);
}

/* rtm_ring_reserve()/rtm_ring_commit() are inline in rtm_internal.h. */

int rtm_ring_pop(struct rtm_ring *r, struct rtm_record *out)
{
	u64 pos = rtm_ld64(&r->tail), seq;
	struct rtm_ring_slot *s;
	s64 dif;

	for (;;) {
		s = &r->slots[pos & r->mask];
		seq = rtm_ld64_acq(&s->seq);
		dif = (s64)(seq - (pos + 1));
		if (dif == 0) {
			if (rtm_cas64(&r->tail, pos, pos + 1)) {
				memcpy(out, &s->rec, sizeof(*out));
				rtm_st64_rel(&s->seq, pos + r->mask + 1);
				return 1;
			}
		} else if (dif < 0) {
			return 0;	/* empty (or next record not committed) */
		}
		pos = rtm_ld64(&r->tail);
	}
}

/*
 * Acknowledged reads: rtm_ring_peek() copies the record at r->peek and
 * moves on without freeing its slot, so writers cannot reuse it; the
 * reader frees everything it copied with rtm_ring_release() once the
 * records are stored, or rtm_ring_rewind() makes them readable again (the
 * reader died). tail only moves in rtm_ring_release(): a consuming
 * rtm_ring_pop() must not run between a peek and its release/rewind.
 */
int rtm_ring_peek(struct rtm_ring *r, struct rtm_record *out)
{
	u64 pos = rtm_ld64(&r->peek), tail = rtm_ld64(&r->tail);
	struct rtm_ring_slot *s;

	if ((s64)(pos - tail) < 0)
		pos = tail;	/* consuming reads moved on meanwhile */
	s = &r->slots[pos & r->mask];
	if (rtm_ld64_acq(&s->seq) != pos + 1)
		return 0;	/* empty (or next record not committed) */
	memcpy(out, &s->rec, sizeof(*out));
	rtm_st64(&r->peek, pos + 1);
	return 1;
}

/* Free every peeked slot; returns how many non-skip records they held. */
u32 rtm_ring_release(struct rtm_ring *r)
{
	u64 pos = rtm_ld64(&r->tail), end = rtm_ld64(&r->peek);
	u32 n = 0;

	for (; (s64)(end - pos) > 0; pos++) {
		struct rtm_ring_slot *s = &r->slots[pos & r->mask];

		n += s->rec.version != 0;
		rtm_st64(&r->tail, pos + 1);
		/* after the copy (peek): the writer of pos + size may take it */
		rtm_st64_rel(&s->seq, pos + r->mask + 1);
	}
	return n;
}

/* Give the last peeked record back (it could not be delivered). */
void rtm_ring_unpeek(struct rtm_ring *r)
{
	u64 pos = rtm_ld64(&r->peek);

	if ((s64)(pos - rtm_ld64(&r->tail)) > 0)
		rtm_st64(&r->peek, pos - 1);
}

void rtm_ring_rewind(struct rtm_ring *r)
{
	rtm_st64(&r->peek, rtm_ld64(&r->tail));
}

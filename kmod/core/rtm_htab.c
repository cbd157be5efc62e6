// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtm_htab.c - lock-free tables of branch tips keyed by a 32-bit key
 * (the task table keyed by pid, the cookie table keyed by a cookie tag).
 *
 * Each bucket is one cache line of 7 slots; a slot is one 64-bit word
 * (key << 32 | branch index) so a key and its branch always change
 * together with a single CAS. occ counts used slots per key fingerprint,
 * four 16-bit counters (incremented before a slot is claimed, decremented
 * after it is freed), so a lookup of a key that is not present costs one
 * multiply and one load when its bucket is empty, and mostly stops at its
 * counter when the bucket is used (with one count for the whole bucket,
 * an untracked task's switch would take the slow path whenever its bucket
 * holds any key).
 */
#include "rtm_internal.h"

/* one of key fingerprint fp's counter (a load: see rtm_htab_fp) */
static const u64 rtm_htab_unit[4] = {
	1ull, 1ull << 16, 1ull << 32, 1ull << 48
};

/* h->live first up, last down: it is never below a bucket's count */
static inline void rtm_occ_get(struct rtm_htab *h, struct rtm_htab_bucket *bk,
			       u32 fp)
{
	rtm_add32(&h->live, 1);
	rtm_add64(&bk->occ, rtm_htab_unit[fp]);
}

static inline void rtm_occ_put(struct rtm_htab *h, struct rtm_htab_bucket *bk,
			       u32 fp)
{
	rtm_add64(&bk->occ, -rtm_htab_unit[fp]);
	rtm_add32(&h->live, -1u);
}

void rtm_htab_init(struct rtm_htab *h, struct rtm_htab_bucket *b, u32 nb)
{
	u32 i, w, bits = 0;

	while ((1u << bits) < nb)
		bits++;
	h->b = b;
	h->mask = nb - 1;
	h->shift = 32 - bits;
	rtm_st32(&h->live, 0);
	for (i = 0; i < nb; i++) {
		for (w = 0; w < RTM_HT_WAYS; w++)
			rtm_st64(&b[i].slot[w], 0);
		rtm_st64(&b[i].occ, 0);
	}
}

/* Remove and return the branch stored under key, 0 if none. */
u32 rtm_htab_take(struct rtm_htab *h, u32 key)
{
	struct rtm_htab_bucket *bk = &h->b[rtm_hash32(key, h->shift)];
	u64 v;
	u32 w;

	/* the bucket's word only: key's counter is rtm_htab_maybe()'s, for
	 * the hot paths (the switch asks it first) */
	if (!rtm_ld64(&bk->occ))
		return 0;
	for (w = 0; w < RTM_HT_WAYS; w++) {
		v = rtm_ld64(&bk->slot[w]);
		if (v && (u32)(v >> 32) == key && rtm_cas64(&bk->slot[w], v, 0)) {
			rtm_occ_put(h, bk, rtm_htab_fp(key));
			return (u32)v;
		}
	}
	return 0;
}

/* Store branch under key (no duplicate check). 0, or -1 if bucket full. */
int rtm_htab_insert(struct rtm_htab *h, u32 key, u32 branch)
{
	struct rtm_htab_bucket *bk = &h->b[rtm_hash32(key, h->shift)];
	u64 nv = ((u64)key << 32) | branch;
	u32 w, fp = rtm_htab_fp(key);

	rtm_occ_get(h, bk, fp);
	for (w = 0; w < RTM_HT_WAYS; w++) {
		if (!rtm_ld64(&bk->slot[w]) && rtm_cas64(&bk->slot[w], 0, nv))
			return 0;
	}
	rtm_occ_put(h, bk, fp);
	return -1;
}

/*
 * One pass: if key is present, remove it and return 1 with its branch in
 * *old (the caller merges and retries); else store (key, branch) and
 * return 0; -1 if the bucket is full.
 */
int rtm_htab_put(struct rtm_htab *h, u32 key, u32 branch, u32 *old)
{
	struct rtm_htab_bucket *bk = &h->b[rtm_hash32(key, h->shift)];
	u64 nv = ((u64)key << 32) | branch, v;
	u32 w, empty = RTM_HT_WAYS;

	/*
	 * rtm_htab_fp(key) where it is used, not once up front: held across
	 * the scan it costs a saved register
	 */
	if (!rtm_ld64(&bk->occ)) {
		empty = 0;		/* empty bucket: nothing to merge */
		goto store;
	}
	for (w = 0; w < RTM_HT_WAYS; w++) {
		v = rtm_ld64(&bk->slot[w]);
		if (!v) {
			if (empty == RTM_HT_WAYS)
				empty = w;
		} else if ((u32)(v >> 32) == key &&
			   rtm_cas64(&bk->slot[w], v, 0)) {
			rtm_occ_put(h, bk, rtm_htab_fp(key));
			*old = (u32)v;
			return 1;
		}
	}
	if (empty < RTM_HT_WAYS) {
store:
		rtm_occ_get(h, bk, rtm_htab_fp(key));
		if (rtm_cas64(&bk->slot[empty], 0, nv))
			return 0;
		rtm_occ_put(h, bk, rtm_htab_fp(key));
	}
	return rtm_htab_insert(h, key, branch);
}

/*
 * Scan helper for tick: peek at slot (bucket, way); returns the raw word
 * (0 if empty). rtm_htab_take_word() removes it if it is still there.
 */
u64 rtm_htab_peek(struct rtm_htab *h, u32 bucket, u32 way)
{
	struct rtm_htab_bucket *bk = &h->b[bucket];

	if (!rtm_ld64(&bk->occ))
		return 0;
	return rtm_ld64(&bk->slot[way]);
}

bool rtm_htab_take_word(struct rtm_htab *h, u32 bucket, u32 way, u64 v)
{
	struct rtm_htab_bucket *bk = &h->b[bucket];

	if (!rtm_cas64(&bk->slot[way], v, 0))
		return false;
	rtm_occ_put(h, bk, rtm_htab_fp((u32)(v >> 32)));
	return true;
}

/* Quiescent use only: used slots plus occupancy-count mismatches. */
u32 rtm_htab_count_used(struct rtm_htab *h)
{
	u32 i, w, leaks = 0, used = 0;
	u64 v, occ;

	for (i = 0; i <= h->mask; i++) {
		occ = 0;
		for (w = 0; w < RTM_HT_WAYS; w++) {
			v = rtm_ld64(&h->b[i].slot[w]);
			if (!v)
				continue;
			leaks++;
			used++;
			occ += rtm_htab_unit[rtm_htab_fp((u32)(v >> 32))];
		}
		if (rtm_ld64(&h->b[i].occ) != occ)
			leaks++;
	}
	return leaks + (rtm_ld32(&h->live) != used);
}

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rtm_platform.h - the only header of the rtmon core that includes system
 * headers. Maps a tiny atomic/memory API onto kernel primitives (under
 * __KERNEL__) or C11 <stdatomic.h> (user space: replay, tests, bench).
 *
 * All read-modify-write operations are fully ordered (like the kernel's
 * xchg()/cmpxchg()/atomic_*_return()); plain loads/stores are relaxed
 * (READ_ONCE/WRITE_ONCE); _acq/_rel variants give acquire/release.
 */
#ifndef RTM_PLATFORM_H
#define RTM_PLATFORM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/string.h>
#include <linux/compiler.h>

typedef atomic_t rtm_a32;
typedef atomic64_t rtm_a64;

#define rtm_ld32(p)		((u32)atomic_read(p))
#define rtm_ld32_acq(p)		((u32)atomic_read_acquire(p))
#define rtm_st32(p, v)		atomic_set((p), (int)(v))
#define rtm_st32_rel(p, v)	atomic_set_release((p), (int)(v))
#define rtm_xchg32(p, v)	((u32)atomic_xchg((p), (int)(v)))
#define rtm_add32(p, v)		((u32)atomic_add_return((int)(v), (p)))
#define rtm_or32(p, v)		atomic_or((int)(v), (p))
#define rtm_ld64(p)		((u64)atomic64_read(p))
#define rtm_ld64_acq(p)		((u64)atomic64_read_acquire(p))
#define rtm_st64(p, v)		atomic64_set((p), (s64)(v))
#define rtm_st64_rel(p, v)	atomic64_set_release((p), (s64)(v))
#define rtm_add64(p, v)		((u64)atomic64_add_return((s64)(v), (p)))
/* unordered variants: statistics, index reservation, reference gets */
#define rtm_add32_rlx(p, v)	((u32)atomic_add_return_relaxed((int)(v), (p)))
#define rtm_inc64_rlx(p)	atomic64_inc(p)
#define rtm_fence_acq()		smp_rmb()
#define rtm_fence_full()	smp_mb()
/*
 * A gate's plain read (rtm_fast.h): read once, nothing ordered after it;
 * a plain load may be folded into the instruction that tests it (an "or"
 * or "cmp" with memory), where a READ_ONCE is a load of its own.
 */
#define rtm_peek32(p)		((u32)data_race((p)->counter))	/* a gate */
#define rtm_peek64(p)		((u64)data_race((p)->counter))	/* a gate */

static inline bool rtm_cas32(rtm_a32 *p, u32 old, u32 new)
{
	return (u32)atomic_cmpxchg(p, (int)old, (int)new) == old;
}

static inline bool rtm_cas64(rtm_a64 *p, u64 old, u64 new)
{
	return (u64)atomic64_cmpxchg(p, (s64)old, (s64)new) == old;
}

#define rtm_likely(x)		likely(x)
#define rtm_unlikely(x)		unlikely(x)
/*
 * A field of an object another cpu may own and rewrite this moment (a
 * branch in another cpu's slot): a hint, validated by a CAS after it.
 */
#define rtm_racy32(p)		data_race(READ_ONCE(*(p)))
#define rtm_racy8(p)		data_race(READ_ONCE(*(p)))
#define rtm_assert(x)		do { } while (0)	/* RTM_DEBUG: tests */
#define rtm_noinline		noinline
#define rtm_always_inline	__always_inline
#define rtm_cacheline_aligned	__aligned(64)

#else /* user space */

#include <linux/types.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

typedef _Atomic u32 rtm_a32;
typedef _Atomic u64 rtm_a64;

#define RTM_RLX			memory_order_relaxed
#define RTM_ACQ			memory_order_acquire
#define RTM_REL			memory_order_release
#define RTM_SC			memory_order_seq_cst

#define rtm_ld32(p)		atomic_load_explicit((p), RTM_RLX)
#define rtm_ld32_acq(p)		atomic_load_explicit((p), RTM_ACQ)
#define rtm_st32(p, v)		atomic_store_explicit((p), (v), RTM_RLX)
#define rtm_st32_rel(p, v)	atomic_store_explicit((p), (v), RTM_REL)
#define rtm_ld64(p)		atomic_load_explicit((p), RTM_RLX)
#define rtm_ld64_acq(p)		atomic_load_explicit((p), RTM_ACQ)
#define rtm_st64(p, v)		atomic_store_explicit((p), (v), RTM_RLX)
#define rtm_st64_rel(p, v)	atomic_store_explicit((p), (v), RTM_REL)
#define rtm_fence_acq()		atomic_thread_fence(RTM_ACQ)
#define rtm_fence_full()	atomic_thread_fence(RTM_SC)
#define rtm_peek32(p)		atomic_load_explicit((p), RTM_RLX)
#define rtm_peek64(p)		atomic_load_explicit((p), RTM_RLX)

static inline u32 rtm_xchg32(rtm_a32 *p, u32 v)
{
	return atomic_exchange_explicit(p, v, RTM_SC);
}

static inline u32 rtm_add32(rtm_a32 *p, u32 v)
{
	return atomic_fetch_add_explicit(p, v, RTM_SC) + v;
}

static inline void rtm_or32(rtm_a32 *p, u32 v)
{
	atomic_fetch_or_explicit(p, v, RTM_SC);
}

static inline u64 rtm_add64(rtm_a64 *p, u64 v)
{
	return atomic_fetch_add_explicit(p, v, RTM_SC) + v;
}

/* unordered variants: statistics, index reservation, reference gets */
static inline u32 rtm_add32_rlx(rtm_a32 *p, u32 v)
{
	return atomic_fetch_add_explicit(p, v, RTM_RLX) + v;
}

static inline void rtm_inc64_rlx(rtm_a64 *p)
{
	atomic_fetch_add_explicit(p, 1, RTM_RLX);
}

static inline bool rtm_cas32(rtm_a32 *p, u32 old, u32 new)
{
	return atomic_compare_exchange_strong_explicit(p, &old, new, RTM_SC,
						       RTM_RLX);
}

static inline bool rtm_cas64(rtm_a64 *p, u64 old, u64 new)
{
	return atomic_compare_exchange_strong_explicit(p, &old, new, RTM_SC,
						       RTM_RLX);
}

/* (see the kernel's rtm_racy32: a racy read on purpose, not for TSan) */
#if defined(__clang__)
__attribute__((__no_sanitize__("thread")))
#else
__attribute__((__no_sanitize_thread__))
#endif
static inline u32 rtm_racy32(const u32 *p)
{
	return *(const volatile u32 *)p;
}

#if defined(__clang__)
__attribute__((__no_sanitize__("thread")))
#else
__attribute__((__no_sanitize_thread__))
#endif
static inline u8 rtm_racy8(const u8 *p)
{
	return *(const volatile u8 *)p;
}

/* invariants, checked in the tests' builds (-DRTM_DEBUG) */
#ifdef RTM_DEBUG
#include <assert.h>
#define rtm_assert(x)		assert(x)
#else
#define rtm_assert(x)		((void)0)
#endif

#define rtm_likely(x)		__builtin_expect(!!(x), 1)
#define rtm_unlikely(x)		__builtin_expect(!!(x), 0)
#define rtm_noinline		__attribute__((__noinline__))
#define rtm_always_inline	inline __attribute__((__always_inline__))
#define rtm_cacheline_aligned	__attribute__((__aligned__(64)))

#endif /* __KERNEL__ */

#define rtm_ctz32(x)		((u32)__builtin_ctz(x))
#define RTM_CACHELINE		64
#define RTM_ALIGN(x, a)		(((x) + ((a) - 1)) & ~((size_t)(a) - 1))

#endif /* RTM_PLATFORM_H */

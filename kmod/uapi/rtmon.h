/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * rtmon.h - rtmon's user-space ABI: the /dev/rtmon character device.
 *
 * One header, shared by the module and by user space (librtmon, rtmond,
 * rtmonctl, tests). Fixed-width types only, explicit padding, no pointers
 * except where marked (__u64 holding a user address), so 32-bit user space
 * on a 64-bit kernel (armhf on arm64) sees the same layout.
 *
 * Versioning: RTMON_ABI_VERSION changes on any incompatible change; check it
 * with RTMON_IOC_VERSION after open(). Structures passed to ioctls start
 * with their size; the module refuses sizes it does not know (-EINVAL).
 *
 * Records: read() on /dev/rtmon returns whole struct rtm_record (see
 * rtm_record.h, included below; RTM_REC_VERSION versions its layout), as
 * many as fit in the buffer; a buffer smaller than one record is -EINVAL.
 * read() blocks until a record is there unless O_NONBLOCK (-EAGAIN); poll()
 * reports POLLIN when records wait. Only one open file may read records at a
 * time (-EBUSY for a second reader): records are consumed by reading, and the
 * one reader (normally rtmond) must see all of them. Reading (read, poll,
 * RTMON_IOC_READ_MODE, RTMON_IOC_ACK) needs CAP_PERFMON or CAP_SYS_ADMIN in
 * the opener's credentials (-EPERM): the device's group may mark work
 * (RTMON_IOC_WORK_BEGIN/END) and read the targets, not take the records.
 * Every record carries a
 * global sequence number: a gap means records were lost (ring overflow,
 * counted in the counters).
 *
 * Acknowledged reads (RTMON_IOC_READ_MODE RTMON_READ_ACKED): a record read
 * keeps its ring slot until the reader says it is stored (RTMON_IOC_ACK,
 * every record read so far on that file); if the reader's file is closed
 * first (the reader crashed or was killed), the next reader gets those
 * records again, in front of the others. A reader that never acknowledges
 * fills the rings (drop_ring_full). records_read counts acknowledged ones.
 *
 * Permissions: the device is 0660 root:<monitor group> (udev rule in
 * config/). Adding, removing and (re)starting targets needs CAP_SYS_ADMIN;
 * the work markers and read-only queries are allowed to anyone who may open
 * the device.
 */
#ifndef _UAPI_RTMON_H
#define _UAPI_RTMON_H

#include <linux/types.h>
#include <linux/ioctl.h>

#include "rtm_record.h"

#define RTMON_DEVICE		"/dev/rtmon"
#define RTMON_ABI_VERSION	1

#define RTMON_NAME_LEN		32	/* target labels, IRQ names */

/* RTMON_IOC_VERSION: what this module is and how big it was made. */
struct rtmon_version {
	__u32 size;		/* in: sizeof(struct rtmon_version) */
	__u32 abi_version;	/* out: RTMON_ABI_VERSION */
	__u32 record_version;	/* out: RTM_REC_VERSION */
	__u32 record_size;	/* out: sizeof(struct rtm_record) */
	__u32 max_targets;	/* out: target ids are < max_targets */
	__u32 max_hops;		/* out: RTM_REC_MAX_HOPS */
	__u32 ncpus;		/* out: rings (possible cpus) */
	__u32 nchains;		/* out: chain pool */
	__u32 nbranches;	/* out: branch pool */
	__u32 ring_slots;	/* out: records per cpu ring */
	__u32 running;		/* out: 1 when tracking */
	__u32 preempt_rt;	/* out: 1 on a PREEMPT_RT kernel */
	char module_version[16];/* out: e.g. "0.3.0" */
};

/* target.end: where a chain ends */
#define RTMON_END_SWITCH_IN	0	/* the target task is switched in */
#define RTMON_END_BLOCK		1	/* the target task blocks again */
#define RTMON_END_WORK_END	2	/* rtmon_work_end() with the chain's cookie */

/* target.src: which events may start a chain for the target */
#define RTMON_SRC_ANY		0	/* any hard IRQ or timer (target.timers) */
#define RTMON_SRC_IRQ		1	/* one IRQ: target.irq or target.irq_name */
#define RTMON_SRC_TIMER		2	/* hrtimers of the kinds in target.timers */
#define RTMON_SRC_IRQ_ANY	3	/* any hard IRQ, no timers */

/* target.flags */
#define RTMON_TF_MISSES_ONLY	0x1	/* records only for deadline misses and
					 * timeouts (counters and histogram see
					 * every chain) */
#define RTMON_TF_RTMOND		0x2	/* added by rtmond from its configuration:
					 * rtmond removes it when the configuration
					 * no longer has it, also across restarts;
					 * targets without it (rtmonctl's) are left
					 * alone. The module only keeps and shows it. */
#define RTMON_TF_ALL		(RTMON_TF_MISSES_ONLY | RTMON_TF_RTMOND)

/*
 * A target: which chains to follow to the end and against which deadline.
 * Task filters (comm, pid, tgid) left empty/zero match any task; a target
 * with no task filter and an IRQ source ends where the IRQ's own handling
 * ends (its thread blocks again, or the hard IRQ returns without a thread).
 */
struct rtmon_target {
	__u32 size;		/* in: sizeof(struct rtmon_target) */
	__u32 id;		/* out of ADD; in for DEL/GET */
	__u32 flags;		/* RTMON_TF_* */
	__u32 end;		/* RTMON_END_* */
	__u32 src;		/* RTMON_SRC_* */
	__s32 irq;		/* RTMON_SRC_IRQ by number, else -1 */
	char irq_name[RTMON_NAME_LEN];	/* RTMON_SRC_IRQ by the handler's
					 * name (as in /proc/interrupts),
					 * resolved when added; "" = by irq */
	char comm[RTM_COMM_LEN];	/* task name, "" = any */
	__u32 pid;		/* task (thread) id, 0 = any */
	__u32 tgid;		/* process id, 0 = any */
	__u64 deadline_ns;	/* 0 = none */
	char name[RTMON_NAME_LEN];	/* label for status and records */
	/*
	 * RTMON_SRC_ANY/TIMER: bit RTMON_TIMER_BIT(RTM_TIMER_*) per kind of
	 * hrtimer (rtm_record.h: sleeper, timerfd, posix, timerlat, other)
	 * whose wakeup of the task may start a chain; 0 = every kind. Must be
	 * 0 for IRQ sources; unknown bits are -EINVAL. Modules whose
	 * record_version is 3 or more know it (older ones refuse a nonzero
	 * value: their reserved field) and fill record.timer_kind.
	 */
	__u32 timers;
	__u32 pad;		/* zero */
	__u64 reserved[3];	/* zero */
};

#define RTMON_TIMER_BIT(kind)	(1u << (kind))

/* RTMON_IOC_WORK_BEGIN / WORK_END: mark a chain's work by cookie. */
struct rtmon_work {
	__u64 cookie;
};

/* RTMON_IOC_COUNTERS: totals since load, summed over cpus. */
struct rtmon_counters {
	__u32 size;		/* in: sizeof(struct rtmon_counters) */
	__u32 pad;
	__u64 chains_started;
	__u64 chains_completed;
	__u64 chains_abandoned;	/* every branch ended before a target */
	__u64 chains_expired;	/* reclaimed after max_age_ms */
	__u64 chains_overdue;	/* reported open past the deadline */
	__u64 deadline_misses;	/* completed past the deadline */
	__u64 branches_opened;
	__u64 branches_pruned;
	__u64 records_emitted;
	__u64 records_read;
	__u64 drop_ring_full;
	__u64 drop_no_chain;
	__u64 drop_no_branch;
	__u64 drop_task_table;
	__u64 drop_cookie_table;
	__u64 drop_hops;
	__u64 probe_hits[16];	/* per probe, in the status file's order */
	__u64 hook_skipped;	/* records dropped on a full ring while a
				 * nested one was being dropped: missing
				 * from statistics and tracepoints */
	/*
	 * Threaded IRQs whose thread got no traced wakeup: irq_rerun found
	 * the thread awake and handed the chain to its next pass (followed);
	 * irq_coalesced: the thread had not handled the previous interrupt
	 * yet, both are handled in one pass and this one has no record (the
	 * previous one's record is flagged coalesced); irq_nowake: the
	 * thread's wakeup never came (chain lost).
	 */
	__u64 irq_rerun;
	__u64 irq_coalesced;
	__u64 irq_nowake;
	/*
	 * work_begin (librtmon) by a task carrying no open chain: the work
	 * reached it without a traced wakeup (it was awake, e.g. busy with
	 * earlier work, when the work was queued): that item has no record.
	 */
	__u64 work_untraced;
	/*
	 * ... of which an IRQ thread's pass was taken up (followed): the
	 * thread handed the task that work with no traced wakeup, and a
	 * work_end target names that IRQ by number (kmod/core/rtm_handoff.c);
	 * work_untraced counts the others (an item that waited for its IRQ
	 * thread's pass in vain is counted when it ages out, max_age_ms)
	 */
	__u64 work_handoff;
	/*
	 * Records of misses-only targets that met their deadline: counted in
	 * the statistics, never emitted, no sequence number (so a gap in the
	 * sequence is always a loss). Zero from older modules (reserved there).
	 */
	__u64 records_skipped;
	/*
	 * Chains started at a softirq's re-raise by its own pass after the
	 * IRQ's chain had completed (record flag REPOLL: a NAPI poll going on
	 * in ksoftirqd). Zero from older modules (reserved there).
	 */
	__u64 softirq_repoll;
};

#define RTMON_IOC_MAGIC		0xb7
#define RTMON_IOC_VERSION	_IOWR(RTMON_IOC_MAGIC, 0x00, struct rtmon_version)
#define RTMON_IOC_TARGET_ADD	_IOWR(RTMON_IOC_MAGIC, 0x01, struct rtmon_target)
#define RTMON_IOC_TARGET_DEL	_IOW(RTMON_IOC_MAGIC, 0x02, __u32)
#define RTMON_IOC_TARGET_GET	_IOWR(RTMON_IOC_MAGIC, 0x03, struct rtmon_target)
#define RTMON_IOC_START		_IO(RTMON_IOC_MAGIC, 0x04)
#define RTMON_IOC_STOP		_IO(RTMON_IOC_MAGIC, 0x05)
#define RTMON_IOC_COUNTERS	_IOWR(RTMON_IOC_MAGIC, 0x06, struct rtmon_counters)
/* RTMON_IOC_READ_MODE argument (__u32); makes the caller the reader */
#define RTMON_READ_CONSUME	0	/* a record read is gone (default) */
#define RTMON_READ_ACKED	1	/* ... once acknowledged (RTMON_IOC_ACK) */
#define RTMON_IOC_READ_MODE	_IOW(RTMON_IOC_MAGIC, 0x07, __u32)
/* Acknowledge every record read so far (acked mode; -EINVAL otherwise) */
#define RTMON_IOC_ACK		_IO(RTMON_IOC_MAGIC, 0x08)
#define RTMON_IOC_WORK_BEGIN	_IOW(RTMON_IOC_MAGIC, 0x10, struct rtmon_work)
#define RTMON_IOC_WORK_END	_IOW(RTMON_IOC_MAGIC, 0x11, struct rtmon_work)

#endif /* _UAPI_RTMON_H */

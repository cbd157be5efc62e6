// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: does one thing a debug kernel must report, chosen by
 * the wrong= parameter, when loaded. The QEMU harness's self-test loads it
 * on the debug board (boards/qemu-x86_64-rt-debug.board) to prove that each
 * kind of report fails a test whose script passed: a finding of the debug
 * suite would otherwise be trusted to a regex never seen to match.
 * Never installed; built only by tests/vm/selftest/run.
 *
 *   sleep     an allocation that may sleep, with preemption disabled
 *             (DEBUG_ATOMIC_SLEEP)
 *   kasan     a read of freed memory (KASAN)
 *   ubsan     a shift past the width of its type (UBSAN_SHIFT)
 *   odebug    an armed timer freed (DEBUG_OBJECTS_TIMERS; ODEBUG's fixup
 *             stops it before the memory goes)
 *   leak      an allocation no pointer keeps (DEBUG_KMEMLEAK: reported by
 *             the next scan, which the script asks for)
 *   lockdep   two mutexes taken in both orders, one after the other
 *             (PROVE_LOCKING; lockdep turns itself off after its first
 *             report, and after KASAN's taint: first in a boot)
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/timer.h>
#include <linux/jiffies.h>

static char *wrong = "";
module_param(wrong, charp, 0444);
MODULE_PARM_DESC(wrong, "sleep, kasan, ubsan, odebug, leak or lockdep");
static int shift = 40;
module_param(shift, int, 0444);
MODULE_PARM_DESC(shift, "the count of wrong=ubsan's shift of an int");

static DEFINE_MUTEX(rtmon_selftest_a);
static DEFINE_MUTEX(rtmon_selftest_b);
static void *rtmon_selftest_kept;

static void rtmon_selftest_timer_fn(struct timer_list *t)
{
}

static int __init rtmon_selftest_debug_init(void)
{
	if (!strcmp(wrong, "sleep")) {
		void *p;

		/*
		 * An allocation that may sleep, made with preemption off. It
		 * does not sleep here (memory is plentiful), so nothing but
		 * the might_sleep() check sees it: a real sleep would also
		 * unbalance the preempt count and turn lockdep off.
		 */
		preempt_disable();
		p = kmalloc(64, GFP_KERNEL);
		preempt_enable();
		kfree(p);
	} else if (!strcmp(wrong, "kasan")) {
		char *p = kmalloc(64, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		kfree(p);
		pr_info("rtmon-selftest: read after free: %d\n", READ_ONCE(p[8]));
	} else if (!strcmp(wrong, "ubsan")) {
		/* a parameter: the compiler cannot see the count */
		pr_info("rtmon-selftest: shifted: %d\n", 1 << shift);
	} else if (!strcmp(wrong, "odebug")) {
		struct timer_list *t = kzalloc(sizeof(*t), GFP_KERNEL);

		if (!t)
			return -ENOMEM;
		timer_setup(t, rtmon_selftest_timer_fn, 0);
		mod_timer(t, jiffies + 100 * HZ);
		kfree(t);
	} else if (!strcmp(wrong, "leak")) {
		/*
		 * Kept, then dropped: the pointer lives in the module's data
		 * only until init returns, so kmemleak's scan finds none.
		 */
		rtmon_selftest_kept = kmalloc(1024, GFP_KERNEL);
		pr_info("rtmon-selftest: leaking %p\n", rtmon_selftest_kept);
		WRITE_ONCE(rtmon_selftest_kept, NULL);
	} else if (!strcmp(wrong, "lockdep")) {
		mutex_lock(&rtmon_selftest_a);
		mutex_lock(&rtmon_selftest_b);
		mutex_unlock(&rtmon_selftest_b);
		mutex_unlock(&rtmon_selftest_a);
		mutex_lock(&rtmon_selftest_b);
		mutex_lock(&rtmon_selftest_a);
		mutex_unlock(&rtmon_selftest_a);
		mutex_unlock(&rtmon_selftest_b);
	} else {
		pr_err("rtmon-selftest: wrong=%s: not one of sleep, kasan, ubsan, odebug, leak, lockdep\n",
		       wrong);
		return -EINVAL;
	}
	return 0;
}

static void __exit rtmon_selftest_debug_exit(void)
{
}

module_init(rtmon_selftest_debug_init);
module_exit(rtmon_selftest_debug_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rtmon test harness self-test: one deliberate debug-kernel report");

// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: a deliberate data race for KCSAN, so the QEMU harness
 * can prove on a KCSAN kernel (qemu-x86_64-rt-kcsan) that a data race report
 * fails a test whose script passed. When loaded, one kthread on CPU 0 and
 * one on CPU 1 increment the same plain variable for RACE_MS, then both
 * are stopped before the load returns: nothing runs after rmmod.
 * On a kernel without KCSAN it races silently. Never installed; built only
 * by tests/vm/selftest/run.
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>

/*
 * Long enough for a KCSAN watchpoint (80 us of delay, one access in 4000
 * watched) on one vCPU to be hit by the other under QEMU TCG, whose
 * single-threaded mode switches vCPUs at most every 100 ms.
 */
#define RACE_MS 1500

/*
 * No "kcsan_" in the names below: KCSAN's report leaves out the stack
 * frames of functions so named (its runtime's), the race would be shown
 * in the kthread() that called it.
 */

/* the racy variable: plain, on purpose (no READ_ONCE, no atomic_t) */
static unsigned long rtmon_selftest_race_shared;

static int rtmon_selftest_race_fn(void *unused)
{
	while (!kthread_should_stop()) {
		rtmon_selftest_race_shared++;
		/*
		 * A compiler barrier only: the increment stays a plain load
		 * and store, but it is done in memory on every iteration
		 * instead of in a register the other CPU cannot see.
		 */
		barrier();
	}
	return 0;
}

static int __init rtmon_selftest_race_init(void)
{
	struct task_struct *t[2];
	unsigned int cpu;

	if (!cpu_online(0) || !cpu_online(1))
		return -ENODEV;
	for (cpu = 0; cpu < 2; cpu++) {
		t[cpu] = kthread_create_on_cpu(rtmon_selftest_race_fn, NULL,
					       cpu, "rtmon_kcsan/%u");
		if (IS_ERR(t[cpu])) {
			if (cpu)
				kthread_stop(t[0]);
			return PTR_ERR(t[cpu]);
		}
	}
	wake_up_process(t[0]);
	wake_up_process(t[1]);
	msleep(RACE_MS);
	kthread_stop(t[0]);
	kthread_stop(t[1]);
	pr_info("rtmon-selftest: kcsan race done, %lu increments\n",
		rtmon_selftest_race_shared);
	return 0;
}

static void __exit rtmon_selftest_race_exit(void)
{
}

module_init(rtmon_selftest_race_init);
module_exit(rtmon_selftest_race_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rtmon test harness self-test: deliberate KCSAN data race");

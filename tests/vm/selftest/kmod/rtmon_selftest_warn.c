// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: raises a WARNING when loaded, so the QEMU harness's
 * self-test can prove that a kernel report fails a test whose script passed.
 * Never installed; built only by tests/vm/selftest/run.
 */
#include <linux/module.h>

static int __init rtmon_selftest_warn_init(void)
{
	WARN(1, "rtmon-selftest: deliberate warning\n");
	return 0;
}

static void __exit rtmon_selftest_warn_exit(void)
{
}

module_init(rtmon_selftest_warn_init);
module_exit(rtmon_selftest_warn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rtmon test harness self-test: deliberate WARN");

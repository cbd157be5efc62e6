// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon_main.c - module load and unload.
 */
#include <linux/module.h>

#include "rtmon.h"

static int __init rtmon_init(void)
{
	int ret;

	ret = rtmon_status_init();
	if (ret)
		return ret;
	ret = rtmon_probes_register();
	if (ret) {
		rtmon_status_exit();
		return ret;
	}
	pr_info("rtmon: %s loaded\n", RTMON_VERSION);
	return 0;
}

static void __exit rtmon_exit(void)
{
	rtmon_probes_unregister();
	rtmon_status_exit();
	pr_info("rtmon: unloaded\n");
}

module_init(rtmon_init);
module_exit(rtmon_exit);

MODULE_LICENSE("GPL");	/* the tracepoint API is GPL-only */
MODULE_DESCRIPTION("rtmon: interrupt-to-task response-time monitor");
MODULE_VERSION(RTMON_VERSION);

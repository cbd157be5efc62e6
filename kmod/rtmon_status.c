// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon_status.c - /proc/rtmon/status, a plain-text view a person can cat.
 *
 * procfs rather than debugfs: it is always mounted, also on field devices
 * where debugfs is off or locked down.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/utsname.h>

#include "rtmon.h"
#include "rtmon_compat.h"

static struct proc_dir_entry *rtmon_proc_dir;

static int rtmon_status_show(struct seq_file *m, void *v)
{
	int i;

	seq_printf(m, "rtmon %s on %s (%s)\n", RTMON_VERSION,
		   init_utsname()->release,
		   RTMON_PREEMPT_RT ? "PREEMPT_RT" : "not PREEMPT_RT");
	seq_puts(m, "probes:\n");
	for (i = 0; i < RTMON_NR_PROBES; i++)
		seq_printf(m, "  %-22s %-12s hits %llu\n", rtmon_probe_name(i),
			   rtmon_probe_registered(i) ? "registered" : "detached",
			   rtmon_probe_hits(i));
	return 0;
}

int rtmon_status_init(void)
{
	rtmon_proc_dir = proc_mkdir("rtmon", NULL);
	if (!rtmon_proc_dir)
		return -ENOMEM;
	if (!proc_create_single("status", 0444, rtmon_proc_dir,
				rtmon_status_show)) {
		proc_remove(rtmon_proc_dir);
		return -ENOMEM;
	}
	return 0;
}

void rtmon_status_exit(void)
{
	proc_remove(rtmon_proc_dir);
}

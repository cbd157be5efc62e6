// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon_main.c - module parameters, load and unload.
 *
 * Sizes are fixed at load: absurd values are refused with a message naming
 * the parameter and its range, before anything is allocated.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/cpumask.h>
#include <linux/log2.h>
#include <linux/random.h>

#include "rtmon.h"

static unsigned int nchains = 1024;
module_param(nchains, uint, 0444);
MODULE_PARM_DESC(nchains, "open chains tracked at once (16..65536)");

static unsigned int nbranches = 4096;
module_param(nbranches, uint, 0444);
MODULE_PARM_DESC(nbranches, "live branch tips (16..262144)");

static unsigned int chain_hops = 32;
module_param(chain_hops, uint, 0444);
MODULE_PARM_DESC(chain_hops, "hops stored per chain (4..1024)");

static unsigned int task_buckets = 1024;
module_param(task_buckets, uint, 0444);
MODULE_PARM_DESC(task_buckets, "task table buckets, 7 tasks each (power of 2, 16..65536)");

static unsigned int cookie_buckets = 256;
module_param(cookie_buckets, uint, 0444);
MODULE_PARM_DESC(cookie_buckets, "work-cookie table buckets (power of 2, 16..65536)");

static unsigned int ring_slots = 1024;
module_param(ring_slots, uint, 0444);
MODULE_PARM_DESC(ring_slots, "records buffered per cpu (power of 2, 16..65536)");

static unsigned int max_age_ms = 10000;
module_param(max_age_ms, uint, 0444);
MODULE_PARM_DESC(max_age_ms, "chains open longer are reclaimed (10..600000 ms)");

unsigned int rtmon_param_tick_ms = 10;
module_param_named(tick_ms, rtmon_param_tick_ms, uint, 0444);
MODULE_PARM_DESC(tick_ms, "housekeeping period: timeouts, reclaim (1..1000 ms)");

unsigned int rtmon_param_wake_batch = 32;
module_param_named(wake_batch, rtmon_param_wake_batch, uint, 0444);
MODULE_PARM_DESC(wake_batch, "wake the reader every N records per cpu, misses at once, the rest at the next tick (1..65536; 1: every record)");

static bool autostart = true;
module_param(autostart, bool, 0444);
MODULE_PARM_DESC(autostart, "start tracking at load (default 1)");

/*
 * A random id of this load (sysfs, read-only; refused as a load option).
 * Sequence numbers restart at 1 on every load: rtmond keys what it names
 * by them (snapshot files, rtmond.seq) by this id as well.
 */
static unsigned long load_id;

static int rtmon_load_id_set(const char *val, const struct kernel_param *kp)
{
	pr_err("rtmon: load_id is chosen by the module at load, not an option\n");
	return -EPERM;
}

static const struct kernel_param_ops rtmon_load_id_ops = {
	.set = rtmon_load_id_set,
	.get = param_get_ulong,
};
module_param_cb(load_id, &rtmon_load_id_ops, &load_id, 0444);
MODULE_PARM_DESC(load_id, "random id of this load, chosen by the module (read-only)");

#define RTMON_MAX_CORE_BYTES	(512UL << 20)

static int __init rtmon_check_param(const char *name, unsigned int v,
				    unsigned int lo, unsigned int hi, bool pow2)
{
	if (v >= lo && v <= hi && (!pow2 || is_power_of_2(v)))
		return 0;
	pr_err("rtmon: %s=%u out of range: %u..%u%s\n", name, v, lo, hi,
	       pow2 ? ", a power of 2" : "");
	return -EINVAL;
}

static int __init rtmon_params_from_module(struct rtm_params *p)
{
	int ret = 0;
	size_t size;

	ret |= rtmon_check_param("nchains", nchains, 16, 65536, false);
	ret |= rtmon_check_param("nbranches", nbranches, 16, 262144, false);
	ret |= rtmon_check_param("chain_hops", chain_hops, 4, 1024, false);
	ret |= rtmon_check_param("task_buckets", task_buckets, 16, 65536, true);
	ret |= rtmon_check_param("cookie_buckets", cookie_buckets, 16, 65536, true);
	ret |= rtmon_check_param("ring_slots", ring_slots, 16, 65536, true);
	ret |= rtmon_check_param("max_age_ms", max_age_ms, 10, 600000, false);
	ret |= rtmon_check_param("tick_ms", rtmon_param_tick_ms, 1, 1000, false);
	ret |= rtmon_check_param("wake_batch", rtmon_param_wake_batch, 1, 65536, false);
	if (ret)
		return -EINVAL;

	rtm_params_default(p, nr_cpu_ids);
	p->nchains = nchains;
	p->nbranches = nbranches;
	p->chain_hops = chain_hops;
	p->task_buckets = task_buckets;
	p->cookie_buckets = cookie_buckets;
	p->ring_slots = ring_slots;
	p->max_age_ns = (u64)max_age_ms * NSEC_PER_MSEC;
	size = rtm_core_memsize(p);
	if (!size) {
		pr_err("rtmon: the core refused these sizes\n");
		return -EINVAL;
	}
	if (size > RTMON_MAX_CORE_BYTES) {
		pr_err("rtmon: these sizes need %zu MiB on %u cpus, more than the %lu MiB allowed\n",
		       size >> 20, nr_cpu_ids, RTMON_MAX_CORE_BYTES >> 20);
		return -EINVAL;
	}
	return 0;
}

static int __init rtmon_init(void)
{
	struct rtm_params p;
	int ret;

	ret = rtmon_params_from_module(&p);
	if (ret)
		return ret;
	get_random_bytes(&load_id, sizeof(load_id));
	load_id = load_id ?: 1;		/* 0: no id (an older module) */
	ret = rtmon_tracker_init(&p);
	if (ret)
		return ret;
	ret = rtmon_status_init();
	if (ret)
		goto err_tracker;
	ret = rtmon_probes_register();
	if (ret)
		goto err_status;
	ret = rtmon_dev_init();
	if (ret)
		goto err_probes;
	if (autostart) {
		mutex_lock(&rtmon_ctl_lock);
		rtmon_tracker_start();
		mutex_unlock(&rtmon_ctl_lock);
	}
	pr_info("rtmon: %s loaded\n", RTMON_VERSION);
	return 0;

err_probes:
	rtmon_probes_unregister();
err_status:
	rtmon_status_exit();
err_tracker:
	rtmon_tracker_exit();
	return ret;
}

static void __exit rtmon_exit(void)
{
	rtmon_dev_exit();
	rtmon_status_exit();
	rtmon_probes_unregister();	/* waits for running probes */
	rtmon_tracker_exit();
	pr_info("rtmon: unloaded\n");
}

module_init(rtmon_init);
module_exit(rtmon_exit);

MODULE_LICENSE("GPL");	/* the tracepoint API is GPL-only */
MODULE_DESCRIPTION("rtmon: interrupt-to-task response-time monitor");
MODULE_VERSION(RTMON_VERSION);

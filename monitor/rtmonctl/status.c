// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - rtmonctl status: the module's state, counters and targets.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "rtmon/rtmon.h"
#include "rtmon_format.h"
#include "rtmonctl.h"

static json_t *counters_json(const struct rtmon_counters *c)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}}",
		"chains_started", (json_int_t)c->chains_started,
		"chains_completed", (json_int_t)c->chains_completed,
		"chains_abandoned", (json_int_t)c->chains_abandoned,
		"chains_expired", (json_int_t)c->chains_expired,
		"chains_overdue", (json_int_t)c->chains_overdue,
		"deadline_misses", (json_int_t)c->deadline_misses,
		"branches_opened", (json_int_t)c->branches_opened,
		"branches_pruned", (json_int_t)c->branches_pruned,
		"records_emitted", (json_int_t)c->records_emitted,
		"records_read", (json_int_t)c->records_read,
		"records_skipped", (json_int_t)c->records_skipped,
		"softirq_repoll", (json_int_t)c->softirq_repoll,
		"drops",
		"ring_full", (json_int_t)c->drop_ring_full,
		"no_chain", (json_int_t)c->drop_no_chain,
		"no_branch", (json_int_t)c->drop_no_branch,
		"task_table", (json_int_t)c->drop_task_table,
		"cookie_table", (json_int_t)c->drop_cookie_table,
		"hops", (json_int_t)c->drop_hops,
		"irq_coalesced", (json_int_t)c->irq_coalesced,
		"irq_nowake", (json_int_t)c->irq_nowake,
		"irq_rerun", (json_int_t)c->irq_rerun,
		"work_untraced", (json_int_t)c->work_untraced,
		"work_handoff", (json_int_t)c->work_handoff);
}

const char status_usage[] =
	"usage: rtmonctl status [--json]\n"
	"The module's version and state, its counters (chains, records, drops) and\n"
	"its targets.\n";

int cmd_status(int argc, char **argv, int json)
{
	struct rtmon *r;
	struct rtmon_counters c;
	struct rtmon_version v;
	int err;

	if (argc > 1)
		usage_error("unexpected argument '%s'", argv[1]);
	r = open_dev();
	err = rtmon_version(r, &v);
	if (!err)
		err = rtmon_counters(r, &c);
	if (err)
		fail(-err, "querying the module failed");
	if (json) {
		json_out(json_pack("{s:s, s:i, s:b, s:b, s:i, s:i, s:i, s:i, s:o}",
			"module_version", v.module_version, "abi", (int)v.abi_version,
			"running", v.running, "preempt_rt", v.preempt_rt,
			"ncpus", (int)v.ncpus, "nchains", (int)v.nchains,
			"nbranches", (int)v.nbranches, "ring_slots", (int)v.ring_slots,
			"counters", counters_json(&c)));
		return 0;
	}
	printf("rtmon %s (ABI %u) %s, %s kernel, %u cpus\n", v.module_version,
	       v.abi_version, v.running ? "tracking" : "stopped",
	       v.preempt_rt ? "PREEMPT_RT" : "non-RT", v.ncpus);
	printf("chains: %llu started, %llu completed, %llu"
	       " abandoned, %llu expired, %llu overdue, %llu misses\n",
	       c.chains_started, c.chains_completed, c.chains_abandoned,
	       c.chains_expired, c.chains_overdue, c.deadline_misses);
	printf("records: %llu emitted, %llu read, %llu skipped (misses-only"
	       " targets' met deadlines)\n",
	       c.records_emitted, c.records_read, c.records_skipped);
	printf("drops: ring full %llu, no chain %llu, no branch %llu"
	       ", task table %llu, cookie table %llu, hops %llu\n",
	       c.drop_ring_full, c.drop_no_chain, c.drop_no_branch,
	       c.drop_task_table, c.drop_cookie_table, c.drop_hops);
	printf("irq threads: %llu interrupts found their thread awake (followed)"
	       ", %llu coalesced into its pass, %llu no wakeup (lost)\n",
	       c.irq_rerun, c.irq_coalesced, c.irq_nowake);
	printf("work: %llu items begun without a traced trigger (no record), "
	       "%llu taken up from their IRQ thread (followed)\n",
	       c.work_untraced, c.work_handoff);
	printf("softirq: %llu passes re-raised after their interrupt's chain woke a target (followed)\n",
	       c.softirq_repoll);
	return cmd_targets_list(r, 0);
}

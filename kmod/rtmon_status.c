// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon_status.c - /proc/rtmon/status, a plain-text view a person can cat:
 * state, targets with their statistics and log2 latency histograms,
 * counters (chains, drops by cause) and per-probe hits.
 *
 * procfs rather than debugfs: it is always mounted, also on field devices
 * where debugfs is off or locked down.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/utsname.h>

#include "rtmon.h"
#include "rtmon_compat.h"

static struct proc_dir_entry *rtmon_proc_dir;

static const char *const rtmon_end_names[] = {
	[RTMON_END_SWITCH_IN] = "switch_in",
	[RTMON_END_BLOCK] = "block",
	[RTMON_END_WORK_END] = "work_end",
};

static const char *const rtmon_timer_names[RTM_TIMER_NR] = RTM_TIMER_NAMES_INIT;

/* " (timerfd,posix)": the timer kinds a target chose */
static void rtmon_show_timer_kinds(struct seq_file *m, u32 timers)
{
	const char *sep = " (";
	int k;

	for (k = 1; k < RTM_TIMER_NR; k++) {
		if (!(timers & RTMON_TIMER_BIT(k)))
			continue;
		seq_printf(m, "%s%s", sep, rtmon_timer_names[k]);
		sep = ",";
	}
	seq_putc(m, ')');
}

static void rtmon_show_source(struct seq_file *m, const struct rtmon_target *t)
{
	switch (t->src) {
	case RTMON_SRC_IRQ:
		if (t->irq_name[0])
			seq_printf(m, "irq %d (%s)", t->irq, t->irq_name);
		else
			seq_printf(m, "irq %d", t->irq);
		break;
	case RTMON_SRC_TIMER:
		seq_puts(m, "timer");
		break;
	case RTMON_SRC_IRQ_ANY:
		seq_puts(m, "any irq");
		break;
	default:
		seq_puts(m, "any irq or timer");
	}
	if (t->timers)
		rtmon_show_timer_kinds(m, t->timers);
}

/* "[lo, hi) us  count  bar" lines for the non-empty range of buckets */
static void rtmon_show_hist(struct seq_file *m, const struct rtmon_tgt_stats *s)
{
	int i, lo = -1, hi = -1;
	u64 peak = 0;

	for (i = 0; i < RTMON_HIST_BUCKETS; i++) {
		if (!s->hist[i])
			continue;
		if (lo < 0)
			lo = i;
		hi = i;
		peak = max(peak, s->hist[i]);
	}
	if (lo < 0)
		return;
	seq_puts(m, "    histogram (us):\n");
	for (i = lo; i <= hi; i++) {
		u64 from = i ? 1ULL << (i - 1) : 0, to = 1ULL << i;
		unsigned int bar = div64_u64(s->hist[i] * 40 + peak - 1, peak);

		seq_printf(m, "      [%7llu, %7llu) %10llu ", from, to, s->hist[i]);
		while (bar--)
			seq_putc(m, '#');
		seq_putc(m, '\n');
	}
}

static void rtmon_show_targets(struct seq_file *m)
{
	static const char *const rtmon_blame_names[RTM_BLAME_NR] =
		RTM_BLAME_NAMES_INIT;
	struct rtmon_tgt_stats *s;
	struct rtmon_target t;
	unsigned int id, n = 0, i;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return;
	seq_puts(m, "targets:\n");
	for (id = 0; id < RTM_MAX_TARGETS; id++) {
		mutex_lock(&rtmon_ctl_lock);
		if (rtmon_target_get(id, &t)) {
			mutex_unlock(&rtmon_ctl_lock);
			continue;
		}
		mutex_unlock(&rtmon_ctl_lock);
		rtmon_target_stats(id, s);
		n++;
		seq_printf(m, "  %u %s: comm=%s pid=%u tgid=%u source=", id,
			   t.name[0] ? t.name : "-", t.comm[0] ? t.comm : "*",
			   t.pid, t.tgid);
		rtmon_show_source(m, &t);
		seq_printf(m, " end=%s deadline_us=%llu%s%s\n",
			   rtmon_end_names[t.end], div_u64(t.deadline_ns, 1000),
			   t.flags & RTMON_TF_MISSES_ONLY ? " misses-only" : "",
			   t.flags & RTMON_TF_RTMOND ? " rtmond" : "");
		seq_printf(m, "    chains %llu misses %llu overdue %llu",
			   s->chains, s->misses, s->overdue);
		if (s->chains)
			seq_printf(m, " min_us %llu avg_us %llu max_us %llu",
				   div_u64(s->min_ns, 1000),
				   div_u64(div64_u64(s->sum_ns, s->chains), 1000),
				   div_u64(s->max_ns, 1000));
		seq_putc(m, '\n');
		if (s->chains) {
			/* where the completed chains' time went (record.blame) */
			seq_puts(m, "    blame_us");
			for (i = 0; i < RTM_BLAME_NR; i++)
				seq_printf(m, " %s %llu", rtmon_blame_names[i],
					   div_u64(s->blame_ns[i], 1000));
			seq_putc(m, '\n');
		}
		rtmon_show_hist(m, s);
	}
	if (!n)
		seq_puts(m, "  (none)\n");
	kfree(s);
}

static int rtmon_status_show(struct seq_file *m, void *v)
{
	struct rtmon_counters *c;
	struct rtmon_tick_info tk;
	unsigned long wm, wb, wk;
	struct rtm_params p;
	char kinds[64];
	int i;

	rtmon_tracker_params(&p);
	seq_printf(m, "rtmon %s on %s (%s)\n", RTMON_VERSION,
		   init_utsname()->release,
		   RTMON_PREEMPT_RT ? "PREEMPT_RT" : "not PREEMPT_RT");
	seq_printf(m, "state: %s\n",
		   rtmon_tracker_running() ? "tracking" : "stopped");
	seq_printf(m, "pools: chains %u branches %u hops/chain %u ring %u records/cpu x %u cpus\n",
		   p.nchains, p.nbranches, p.chain_hops, p.ring_slots, p.ncpus);
	rtmon_timer_kinds_known(kinds, sizeof(kinds));
	seq_printf(m, "timer kinds told apart: %s\n", kinds);
	rtmon_tick_info(&tk);
	seq_printf(m, "tick: every %u ms, %lu done, last_ns %lu worst_ns %lu worst_batch_ns %lu yields %lu (batches of %u, preemptible between)\n",
		   tk.period_ms, tk.count, tk.last_ns, tk.worst_ns,
		   tk.worst_batch_ns, tk.yields, tk.batch);
	rtmon_reader_wakes(&wm, &wb, &wk);
	seq_printf(m, "reader: woken for misses %lu, batches of %u records %lu, by the tick %lu\n",
		   wm, rtmon_param_wake_batch, wb, wk);
	rtmon_show_targets(m);

	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (c) {
		rtmon_counters(c);
		seq_puts(m, "counters:\n");
		seq_printf(m, "  chains started %llu completed %llu abandoned %llu expired %llu overdue %llu misses %llu\n",
			   c->chains_started, c->chains_completed,
			   c->chains_abandoned, c->chains_expired,
			   c->chains_overdue, c->deadline_misses);
		seq_printf(m, "  branches opened %llu pruned %llu\n",
			   c->branches_opened, c->branches_pruned);
		seq_printf(m, "  records emitted %llu read %llu skipped %llu\n",
			   c->records_emitted, c->records_read,
			   c->records_skipped);
		seq_printf(m, "  drops ring_full %llu no_chain %llu no_branch %llu task_table %llu cookie_table %llu hops %llu\n",
			   c->drop_ring_full, c->drop_no_chain,
			   c->drop_no_branch, c->drop_task_table,
			   c->drop_cookie_table, c->drop_hops);
		seq_printf(m, "  irq threads rerun %llu coalesced %llu nowake %llu\n",
			   c->irq_rerun, c->irq_coalesced, c->irq_nowake);
		seq_printf(m, "  work untraced %llu handoff %llu\n",
			   c->work_untraced, c->work_handoff);
		seq_printf(m, "  softirq repoll %llu\n", c->softirq_repoll);
		/* not a drop of chains: only their statistics missed these */
		seq_printf(m, "  unaccounted %llu\n", c->hook_skipped);
		kfree(c);
	}
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
	/*
	 * 0440 root: it names the targets' tasks and their latencies, which
	 * only /dev/rtmon's users (root, group rtmon) may see. The module
	 * cannot know that group's id; the udev rule that gives /dev/rtmon
	 * its group gives it to this file too (chgrp works on procfs).
	 */
	if (!proc_create_single("status", 0440, rtmon_proc_dir,
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

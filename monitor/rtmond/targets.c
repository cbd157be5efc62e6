// SPDX-License-Identifier: GPL-2.0
/*
 * targets.c - the module's targets made to match rtmond's configuration
 * (at start and at each reload), the statistics slot of each target name,
 * and a record's target id to its slot and name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rtmond.h"
#include "rtmon_format.h"

#define MAX_IDS		1024

static int id2slot[MAX_IDS];
static char id2name[MAX_IDS][RTMON_NAME_LEN];
static unsigned int max_targets;

/* the module's number of target slots (its version answer) */
void rtmond_targets_init(unsigned int max)
{
	max_targets = max;
}

/* ---- statistics slots ---- */

static int slot_get(const char *name, int reset)
{
	int i;

	for (i = 0; i < RTMOND_MAX_SLOTS && rtmond_slots[i].name[0]; i++)
		if (!strcmp(rtmond_slots[i].name, name)) {
			if (reset) {
				pthread_mutex_lock(&rtmond_slots[i].lock);
				rtmon_hist_init(&rtmond_slots[i].hist);
				rtmond_slots[i].records = rtmond_slots[i].misses = 0;
				rtmond_slots[i].timeouts = 0;
				memset(rtmond_slots[i].blame_ns, 0,
				       sizeof(rtmond_slots[i].blame_ns));
				pthread_mutex_unlock(&rtmond_slots[i].lock);
			}
			return i;
		}
	if (i == RTMOND_MAX_SLOTS)
		return -ENOSPC;
	rtmond_pi_mutex_init(&rtmond_slots[i].lock);
	rtmon_hist_init(&rtmond_slots[i].hist);
	snprintf(rtmond_slots[i].name, sizeof(rtmond_slots[i].name), "%s", name);
	return i;
}

/* ---- targets: make the module match a configuration ---- */

static const char *target_err(int err, const struct rtmon_target *t)
{
	static char buf[160];

	if (err == -ENOENT && t->irq_name[0])
		snprintf(buf, sizeof(buf), "no interrupt handler named '%s'", t->irq_name);
	else if (err == -EPERM)
		snprintf(buf, sizeof(buf), "not permitted (needs CAP_SYS_ADMIN)");
	else if (err == -ENOSPC)
		snprintf(buf, sizeof(buf), "all module target slots are in use");
	else
		snprintf(buf, sizeof(buf), "%s", strerror(-err));
	return buf;
}

/*
 * rtmond tags the targets it adds (RTMON_TF_RTMOND) so that a later run can
 * tell them from targets others added (rtmonctl targets add): a target
 * renamed or removed in the configuration while rtmond was stopped is found
 * by its tag at the next start and removed, instead of staying in the
 * module for good and, restart after restart, filling every slot. A module
 * from before the tag refuses it (EINVAL): then targets go in untagged, as
 * before, and only configured names are reconciled.
 */
static uint32_t owned_flag = RTMON_TF_RTMOND;

static int add_target(struct rtmon_target *t)
{
	struct rtmon_target u = *t;
	int err;

	t->flags |= owned_flag;
	err = rtmon_target_add(rtmond_dev, t);
	if (err == -EINVAL && owned_flag) {
		u.flags &= ~RTMON_TF_RTMOND;
		if (!rtmon_target_add(rtmond_dev, &u)) {
			rtmond_log("the module does not know the rtmond target tag (an older "
				   "rtmon.ko): targets renamed or removed while rtmond is "
				   "stopped stay in the module");
			owned_flag = 0;
			*t = u;
			return 0;
		}
	}
	return err;
}

/* At start: whether module target kt is configuration target tc, tag included. */
static int module_target_is(const struct rtmon_target *kt, const struct rtmond_target_conf *tc)
{
	struct rtmon_target want = tc->t;

	want.flags |= owned_flag;
	return rtmond_target_same(kt, &want);
}

/*
 * At start: the module's targets that must go before anything is added
 * (so that their slots are free): rtmond's (tagged) ones the configuration
 * no longer has, and any target with a configured name but another
 * definition (or untagged, from an rtmond before the tag: replaced by a
 * tagged one). Identical tagged targets are kept (reuse[]: their ids).
 * Targets with other names and no tag are someone else's: left alone.
 */
static void start_targets(const struct rtmond_config *c, int *reuse)
{
	unsigned int i, j, kept = 0, stale = 0, replaced = 0;
	struct rtmon_target kt;
	int err;

	for (i = 0; i < c->ntargets; i++)
		reuse[i] = -1;
	for (j = 0; j < max_targets && j < MAX_IDS; j++) {
		int named = 0, match = -1;

		if (rtmon_target_get(rtmond_dev, j, &kt))
			continue;
		for (i = 0; i < c->ntargets; i++)
			if (!strncmp(kt.name, c->targets[i].name, sizeof(kt.name))) {
				named = 1;
				if (reuse[i] < 0 && module_target_is(&kt, &c->targets[i]))
					match = (int)i;
			}
		if (match >= 0) {
			reuse[match] = (int)j;
			kept++;
			continue;
		}
		if (!named && !(kt.flags & RTMON_TF_RTMOND))
			continue;	/* someone else's */
		err = rtmon_target_del(rtmond_dev, j);
		if (err && err != -ENOENT) {
			rtmond_log("removing module target %u (%s): %s", j, kt.name, strerror(-err));
			continue;
		}
		if (named) {
			replaced++;
		} else {
			stale++;
			rtmond_log("removed module target %u '%s': added by rtmond, no longer "
				   "in the configuration", j, kt.name);
		}
	}
	if (stale || replaced)
		rtmond_log("targets at start: %u kept, %u no longer configured removed, %u "
			   "redefined replaced", kept, stale, replaced);
}

/*
 * Fill nl (with nl->conf set) from the module: reuse identical targets
 * (from old, or at start from the module), add the others, then remove what
 * the new configuration no longer has. All or nothing: a failed add undoes
 * the adds before it and leaves the module as it was.
 */
int rtmond_sync_targets(struct rtmond_live *old, struct rtmond_live *nl)
{
	const struct rtmond_config *c = &nl->conf;
	uint32_t added[RTMOND_MAX_TARGETS], del[MAX_IDS];
	unsigned int i, j, nadded = 0, ndel = 0, kept = 0;
	int reused[RTMOND_MAX_TARGETS] = { 0 }, reuse[RTMOND_MAX_TARGETS];
	int err;

	if (!old)
		start_targets(c, reuse);
	for (i = 0; i < c->ntargets; i++) {
		const struct rtmond_target_conf *tc = &c->targets[i];
		int found = 0;

		if (old) {
			for (j = 0; j < old->conf.ntargets; j++)
				if (!strcmp(old->conf.targets[j].name, tc->name) &&
				    rtmond_target_same(&old->conf.targets[j].t, &tc->t)) {
					nl->kid[i] = old->kid[j];
					reused[i] = found = 1;
				}
		} else if (reuse[i] >= 0) {
			nl->kid[i] = (uint32_t)reuse[i];
			found = 1;
		}
		if (found) {
			kept++;
			nl->slot[i] = slot_get(tc->name, 0);
			continue;
		}
		{
			struct rtmon_target t = tc->t;

			err = add_target(&t);
			if (err) {
				rtmond_log("target %s: %s", tc->name, target_err(err, &t));
				while (nadded)
					rtmon_target_del(rtmond_dev, added[--nadded]);
				return err;
			}
			nl->kid[i] = t.id;
			added[nadded++] = t.id;
			nl->slot[i] = slot_get(tc->name, 1);
		}
	}
	for (i = 0; i < c->ntargets; i++)
		if (nl->slot[i] < 0) {
			rtmond_log("too many target names over this run's reloads");
			while (nadded)
				rtmon_target_del(rtmond_dev, added[--nadded]);
			return -ENOSPC;
		}
	if (old)
		for (j = 0; j < old->conf.ntargets; j++) {
			int still = 0;

			for (i = 0; i < c->ntargets; i++)
				if (reused[i] && nl->kid[i] == old->kid[j])
					still = 1;
			if (!still)
				del[ndel++] = old->kid[j];
		}
	for (i = 0; i < ndel; i++)
		if ((err = rtmon_target_del(rtmond_dev, del[i])) && err != -ENOENT)
			rtmond_log("removing module target %u: %s", del[i], strerror(-err));
	rtmond_log("targets: %u kept, %u added, %u removed", kept, nadded, ndel);
	return 0;
}

void rtmond_build_id_map(const struct rtmond_live *l)
{
	unsigned int i;

	for (i = 0; i < MAX_IDS; i++) {
		id2slot[i] = -1;
		id2name[i][0] = 0;
	}
	for (i = 0; i < l->conf.ntargets; i++)
		if (l->kid[i] < MAX_IDS) {
			id2slot[l->kid[i]] = l->slot[i];
			snprintf(id2name[l->kid[i]], RTMON_NAME_LEN, "%s", l->conf.targets[i].name);
		}
}

/* Name of a target id; targets not from the configuration asked once. */
const char *rtmond_id_name(uint16_t id)
{
	struct rtmon_target t;

	if (id >= MAX_IDS)
		return NULL;
	if (!id2name[id][0]) {
		/* added by another tool: its name may be any bytes */
		if (!rtmon_target_get(rtmond_dev, id, &t) && t.name[0])
			rtmon_text_escape(id2name[id], RTMON_NAME_LEN, t.name);
		else
			snprintf(id2name[id], RTMON_NAME_LEN, "id%u", id);
	}
	return id2name[id];
}

/* The statistics slot of a target id (-1: not a configured target). */
int rtmond_id_slot(uint16_t id)
{
	return id < MAX_IDS ? id2slot[id] : -1;
}

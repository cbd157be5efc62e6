// SPDX-License-Identifier: GPL-2.0
/*
 * rtmond - rtmon's daemon.
 *
 *   rtmond [-c FILE] [--check] [--device PATH]
 *
 * Opens /dev/rtmon, makes the module's targets match its configuration
 * (config/rtmon.conf, installed as /etc/rtmon/rtmon.conf), reads every chain
 * record with poll(), keeps per-target statistics (1 us histogram, see
 * rtmon_hist.h), and for each deadline miss or timeout writes a JSON line
 * to DIR/misses.jsonl naming the ftrace and LTTng snapshots taken for it
 * (snapshot.c). Metrics: metrics.c. SIGHUP reloads the configuration
 * (refused as a whole if the file is bad or a target cannot be added; the
 * old one stays), SIGTERM/SIGINT exit cleanly. Targets stay in the module
 * when rtmond exits: records emitted while it is down wait in the
 * module's rings and are read at the next start; the last sequence number
 * read is kept in DIR/rtmond.seq so a restart can tell whether anything
 * was lost (logged either way). DIR/stats.json holds the histograms for
 * 'rtmonctl hist'. Logs go to stderr.
 *
 * Exit status: 0 after SIGTERM/SIGINT or a good --check, 1 on a bad
 * configuration or a failed start, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "rtmond.h"
#include "rtmon_format.h"

#define MAX_IDS		1024
#define RTMOND_LOAD_ID_FILE	"/sys/module/rtmon/parameters/load_id"

struct rtmond_live *rtmond_live;
char rtmond_load_tag[24];
char rtmond_load_key[64];
int rtmond_load_id_known;
struct rtmond_slot rtmond_slots[RTMOND_MAX_SLOTS];
struct rtmon *rtmond_dev;
struct rtmond_counters rtmond_cnt;

static const char *conf_path = "/etc/rtmon/rtmon.conf";
static int id2slot[MAX_IDS];
static char id2name[MAX_IDS][RTMON_NAME_LEN];
static uint64_t last_seq;
static int have_last, restarted;
static unsigned int max_targets;
static int stats_dirty;		/* records since DIR/stats.json was written */

void rtmond_log(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "rtmond: ");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	strcat(buf, "\n");
	/* one write per line: lines from threads do not mix */
	if (write(STDERR_FILENO, buf, strlen(buf)) < 0)
		return;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int mkdir_p(const char *dir)
{
	char p[512], *s;

	snprintf(p, sizeof(p), "%s", dir);
	for (s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0755) && errno != EEXIST)
				return -errno;
			*s = '/';
		}
	if (mkdir(p, 0750) && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * Whether rtmond may write in dir. Someone else who can write in it, or in
 * a directory above it, could plant a symlink where rtmond writes (as root:
 * misses.jsonl -> /etc/...), a file of theirs that rtmond then fills (to
 * read or forge misses), or move the directory away and put their own in
 * its place. The rule, like sshd's StrictModes: the directory (symlinks
 * resolved: an administrator may link it elsewhere) is owned by root or
 * rtmond's uid and writable by nobody else (no group or other write bit);
 * so is every directory above it, except that one with the sticky bit
 * (/tmp) may be writable by all: others cannot rename or remove what they
 * do not own in it. 0 or -EPERM, with a log line that says why.
 */
static int dir_safe(const char *dir)
{
	char real[PATH_MAX], *s;
	struct stat st;
	int top = 1, e;

	if (!realpath(dir, real)) {
		e = errno;
		rtmond_log("snapshot.dir %s: %s", dir, strerror(e));
		return -e;
	}
	for (;;) {
		if (stat(real, &st)) {
			e = errno;
			rtmond_log("snapshot.dir %s: %s: %s", dir, real, strerror(e));
			return -e;
		}
		if (st.st_uid != 0 && st.st_uid != geteuid()) {
			rtmond_log("snapshot.dir %s refused: %s is owned by uid %u (want root%s): "
				   "another user could replace rtmond's files", dir, real,
				   (unsigned int)st.st_uid, geteuid() ? " or rtmond's uid" : "");
			return -EPERM;
		}
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (top || !(st.st_mode & S_ISVTX))) {
			rtmond_log("snapshot.dir %s refused: %s is writable by %s (mode %04o%s): "
				   "another user could replace rtmond's files (chmod go-w %s)",
				   dir, real, st.st_mode & S_IWOTH ? "anyone" : "its group",
				   (unsigned int)(st.st_mode & 07777),
				   top ? "" : ", not sticky", real);
			return -EPERM;
		}
		if (!strcmp(real, "/"))
			return 0;
		s = strrchr(real, '/');
		if (s == real)
			s[1] = 0;
		else
			*s = 0;
		top = 0;
	}
}

/* A mutex the real-time reader shares with other threads: no inversion. */
void rtmond_pi_mutex_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

/* A helper thread with a small stack (mlockall makes every page resident). */
int rtmond_start_thread(pthread_t *t, void *(*fn)(void *))
{
	pthread_attr_t a;
	int err;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 256 * 1024);
	err = pthread_create(t, &a, fn, NULL);
	pthread_attr_destroy(&a);
	return -err;
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
static int sync_targets(struct rtmond_live *old, struct rtmond_live *nl)
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

static void build_id_map(const struct rtmond_live *l)
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
static const char *id_name(uint16_t id)
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

/* ---- output files ---- */

/*
 * Open the outputs in c->dir, then put them in place of the old ones: a
 * directory that cannot be used leaves the old files working (a reload is
 * refused) instead of closing them first and writing nothing after.
 */
static int open_files(const struct rtmond_config *c)
{
	char p[512];
	int err = mkdir_p(c->dir), mf, rf = -1, sf;

	if (err) {
		rtmond_log("cannot create %s: %s", c->dir, strerror(-err));
		return err;
	}
	if ((err = dir_safe(c->dir)))
		return err;
	mf = rtmond_open_lines(c->dir, "misses.jsonl");
	if (mf < 0)
		return -EACCES;
	if (c->records_file)
		rf = rtmond_open_lines(c->dir, "records.jsonl");
	snprintf(p, sizeof(p), "%s/rtmond.seq", c->dir);
	sf = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (sf < 0)
		rtmond_log("cannot open %s: %s", p, strerror(errno));
	rtmond_writer_set_files(mf, rf, sf);	/* the writer is idle */
	return 0;
}

/*
 * Sequence tracking. Records come from per-cpu rings, so their global
 * sequence numbers arrive slightly out of order: 'next' is the lowest
 * number not seen yet, 'seen' a window of numbers above it already read.
 * A number missing for SEQ_HOLE_NS after something above it was read (or
 * pushed out of the window) is a loss. DIR/rtmond.seq keeps next and the
 * window across restarts: "NEXT S1 S2 ...".
 */
#define SEQ_WIN		RTMOND_SEQ_WIN
#define SEQ_HOLE_NS	2000000000ull
static uint64_t seq_next, seq_max;
static uint64_t seq_seen[SEQ_WIN / 64];
static uint64_t hole_since;		/* when the current hole was first seen */
/*
 * With no saved window (a first run, a reloaded module) nothing below the
 * first record read was stored: a lower number read later (another cpu's
 * ring drained after) is new, not read again. 'floor' is the lowest number
 * read so far in such a run; 0 after a restart (everything below 'next'
 * was stored by the previous run).
 */
static uint64_t seq_floor;
static int acked_reads;			/* RTMON_READ_ACKED: ack after storing */

static void seen_clear_slot(uint64_t s)
{
	uint64_t o = s % SEQ_WIN;

	seq_seen[o / 64] &= ~(1ull << (o % 64));
}

static void seen_set(uint64_t s)
{
	uint64_t o = s % SEQ_WIN;

	seq_seen[o / 64] |= 1ull << (o % 64);
}

static int seen_get(uint64_t s)
{
	uint64_t o = s % SEQ_WIN;

	return !!(seq_seen[o / 64] & (1ull << (o % 64)));
}

/* Move 'next' past what was seen; 'lose' also past holes below 'upto'. */
static void seq_advance(uint64_t upto)
{
	uint64_t lost_from = 0, lost_to = 0, lost = 0;

	for (;;) {
		if (seq_next <= seq_max && seen_get(seq_next)) {
			seen_clear_slot(seq_next);
			seq_next++;
			continue;
		}
		if (seq_next < upto) {
			if (!lost++)
				lost_from = seq_next;
			lost_to = seq_next++;
			continue;
		}
		break;
	}
	if (lost) {
		CNT_ADD(seq_gaps, 1);
		CNT_ADD(records_lost, lost);
		rtmond_log("records lost: %" PRIu64 " missing between seq %" PRIu64 " and %" PRIu64
			   "%s", lost, lost_from, lost_to,
			   restarted ? " (since the previous run)" : "");
	}
	hole_since = seq_next <= seq_max ? (hole_since ? hole_since : mono_ns()) : 0;
}

/*
 * 1 if seq is new; 0 if it was stored already: the module hands the
 * records a killed rtmond read but did not acknowledge to the next run,
 * and the saved window says which of them that run had written.
 */
static int check_seq(uint64_t seq)
{
	if (!have_last) {
		seq_next = seq;
		seq_max = seq;
		seq_floor = seq;
		have_last = 1;
	}
	if (restarted) {
		if (seq == seq_next)
			rtmond_log("resumed at seq %" PRIu64 " where the previous run stopped: "
				   "no record lost in between", seq);
		else if (seq > seq_next)
			rtmond_log("first record read: seq %" PRIu64 ", the previous run stopped "
				   "before seq %" PRIu64, seq, seq_next);
	}
	if (seq < seq_next && seq_next - seq > SEQ_WIN) {
		rtmond_log("sequence went back from %" PRIu64 " to %" PRIu64
			   " (module reloaded?): starting over", seq_next, seq);
		memset(seq_seen, 0, sizeof(seq_seen));
		seq_next = seq_max = seq_floor = seq;
	}
	if (seq < seq_floor) {
		/*
		 * The window slides down to it when it still spans seq_max:
		 * what 'next' had passed (read, or counted lost) is marked
		 * seen again, what lies between is a hole.
		 */
		if (seq_max - seq < SEQ_WIN) {
			uint64_t s;

			for (s = seq_floor; s < seq_next; s++)
				seen_set(s);
			seq_next = seq;
			seen_set(seq);
			seq_advance(0);
		}
		seq_floor = seq;
		return 1;
	}
	if (seq < seq_next)
		return 0;	/* restarted stays: the next one may resume */
	if (seq <= seq_max && seen_get(seq))
		return 0;
	restarted = 0;
	if (seq >= seq_next + SEQ_WIN)
		seq_advance(seq - SEQ_WIN + 1);	/* holes pushed out of the window */
	if (seq > seq_max)
		seq_max = seq;
	seen_set(seq);
	seq_advance(0);
	last_seq = seq_max;
	return 1;
}

/* Holes older than SEQ_HOLE_NS are losses (main loop, after a drain). */
static void seq_expire(int now_all)
{
	if (have_last && seq_next <= seq_max &&
	    (now_all || (hole_since && mono_ns() - hole_since > SEQ_HOLE_NS)))
		seq_advance(seq_max + 1);
}

/* The window as it is now, for the writer to save after the batch's lines. */
static void seq_copy(struct rtmond_seqwin *w)
{
	w->valid = have_last;
	w->next = seq_next;
	w->max = seq_max;
	memcpy(w->seen, seq_seen, sizeof(w->seen));
}

/* rtmond_load_tag and _key from the module's load_id and the boot id */
static void load_key_init(void)
{
	const char *boot = rtmon_boot_id();
	unsigned long id = 0;
	FILE *f = fopen(RTMOND_LOAD_ID_FILE, "r");

	if (f) {
		if (fscanf(f, "%lu", &id) != 1)
			id = 0;
		fclose(f);
	}
	if (id) {
		snprintf(rtmond_load_tag, sizeof(rtmond_load_tag), "%lx", id);
		rtmond_load_id_known = 1;
	} else {
		snprintf(rtmond_load_tag, sizeof(rtmond_load_tag), "%.8s", boot[0] ? boot : "0");
		rtmond_log("the module has no load id (%s: an older module?): snapshots and "
			   "rtmond.seq are keyed by the boot only; reload the module and they "
			   "may be taken for another load's", RTMOND_LOAD_ID_FILE);
	}
	snprintf(rtmond_load_key, sizeof(rtmond_load_key), "%s/%s", boot[0] ? boot : "-",
		 rtmond_load_tag);
}

/*
 * The writer saves rtmond.seq after a batch's lines: a run killed between
 * the two had stored records its window does not say. They are at the
 * tail of DIR/NAME (one line each, starting {"seq":N), so those the module
 * hands again are marked stored, not written twice. Returns how many.
 */
#define SEQ_TAIL_BYTES	(2 << 20)	/* RTMOND_WQ batches of long lines */
static int seq_scan_tail(const char *dir, const char *name)
{
	char path[512], *buf, *p, *end;
	off_t size, off;
	ssize_t n;
	int fd, found = 0;
	uint64_t s;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	size = lseek(fd, 0, SEEK_END);
	off = size > SEQ_TAIL_BYTES ? size - SEQ_TAIL_BYTES : 0;
	buf = size > 0 ? malloc((size_t)(size - off) + 1) : NULL;
	n = buf ? pread(fd, buf, (size_t)(size - off), off) : -1;
	close(fd);
	if (n <= 0) {
		free(buf);
		return 0;
	}
	buf[n] = 0;
	end = buf + n;
	p = buf;
	if (off) {	/* a tail that starts inside a line: from the next one */
		p = memchr(buf, '\n', (size_t)n);
		p = p ? p + 1 : end;
	}
	while (p < end) {
		if (!strncmp(p, "{\"seq\":", 7)) {
			s = strtoull(p + 7, NULL, 10);
			if (s >= seq_next && s < seq_next + SEQ_WIN && !seen_get(s)) {
				seen_set(s);
				if (s > seq_max)
					seq_max = s;
				found++;
			}
		}
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : end;
	}
	free(buf);
	return found;
}

static void load_seq(const char *dir)
{
	static char buf[SEQ_WIN * 21 + 32];
	char *p, *e;
	int seq_fd = rtmond_writer_seq_fd();
	ssize_t n;
	uint64_t s;

	if (seq_fd < 0)
		return;
	n = pread(seq_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = 0;
	p = buf;
	if (!strncmp(p, "load=", 5)) {
		size_t k = strcspn(p + 5, " \n");

		if (k != strlen(rtmond_load_key) || strncmp(p + 5, rtmond_load_key, k)) {
			rtmond_log("%s/rtmond.seq is of another module load (%.*s; this is %s: a "
				   "reboot or a reload): its numbers are not this load's, starting "
				   "afresh", dir, (int)k, p + 5, rtmond_load_key);
			return;
		}
		p += 5 + k;
	}
	e = p;
	seq_next = strtoull(e, &p, 10);
	if (p == e)
		return;
	seq_max = seq_next ? seq_next - 1 : 0;
	while ((s = strtoull(p, &e, 10)), e != p) {
		if (s > seq_next && s < seq_next + SEQ_WIN) {
			seen_set(s);
			if (s > seq_max)
				seq_max = s;
		}
		p = e;
	}
	have_last = restarted = 1;
	rtmond_log("the previous run read every record before seq %" PRIu64 "%s", seq_next,
		   seq_max >= seq_next ? " and some after it" : "");
	n = seq_scan_tail(dir, "records.jsonl") + seq_scan_tail(dir, "misses.jsonl");
	if (n > 0) {
		rtmond_log("%zd records stored after its last rtmond.seq (killed in between): "
			   "not written again", n);
		seq_advance(0);
	}
	last_seq = seq_max;
}

/* ---- records ---- */

/* A miss that takes a snapshot (snapshot.on_timeout = false: completed misses only) */
static int snap_miss(const struct rtmond_config *c, const struct rtm_record *r)
{
	return (r->flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT)) &&
	       (c->on_timeout || !(r->flags & RTM_REC_F_TIMEOUT));
}

/*
 * The reader's part of a batch: what a previous run stored left out,
 * the statistics, the snapshot of its misses (the ftrace buffer swapped
 * now, copied by the snapshot worker); its lines are the writer's.
 */
static void handle_batch(const struct rtmond_live *l, struct rtmond_batch *b)
{
	const struct rtmond_config *c = &l->conf;
	struct rtm_record *recs = b->recs;
	uint64_t skipped_seq = 0;
	int i, j, k, n = b->n, nmiss = 0, first_miss = -1;

	b->read_ns = mono_ns();
	b->live = l;
	/* read again after a restart and already stored: left out */
	for (i = k = 0; i < n; i++)
		if (check_seq(recs[i].seq))
			recs[k++] = recs[i];
		else
			skipped_seq = recs[i].seq;
	if (k < n) {
		if (!CNT_GET(records_reread))
			rtmond_log("%d records read again: the previous run had stored "
				   "them, skipped (e.g. seq %" PRIu64 "; the metric "
				   "rtmond_records_reread_total counts them)", n - k, skipped_seq);
		CNT_ADD(records_reread, n - k);
	}
	b->n = n = k;
	for (i = 0; i < n; i++) {
		struct rtm_record *r = &recs[i];
		int slot = r->target_id < MAX_IDS ? id2slot[r->target_id] : -1;
		int miss = !!(r->flags & (RTM_REC_F_DEADLINE_MISS | RTM_REC_F_TIMEOUT));

		b->names[i] = id_name(r->target_id);
		CNT_ADD(records, 1);
		if (slot >= 0) {
			struct rtmond_slot *s = &rtmond_slots[slot];

			pthread_mutex_lock(&s->lock);
			if (!(r->flags & RTM_REC_F_TIMEOUT)) {
				rtmon_hist_add(&s->hist, r->latency_ns);
				for (j = 0; j < RTM_BLAME_NR; j++)
					__atomic_add_fetch(&s->blame_ns[j], r->blame.ns[j],
							   __ATOMIC_RELAXED);
			}
			__atomic_add_fetch(&s->records, 1, __ATOMIC_RELAXED);
			/* as the module counts: timeouts apart from completed misses */
			if (r->flags & RTM_REC_F_TIMEOUT)
				__atomic_add_fetch(&s->timeouts, 1, __ATOMIC_RELAXED);
			else if (r->flags & RTM_REC_F_DEADLINE_MISS)
				__atomic_add_fetch(&s->misses, 1, __ATOMIC_RELAXED);
			pthread_mutex_unlock(&s->lock);
		}
		if (miss) {
			CNT_ADD(misses, 1);
			rtmond_snap_miss_event(r, b->names[i] ?: "");
			if (snap_miss(c, r)) {
				if (first_miss < 0)
					first_miss = i;
				nmiss++;
			}
		}
	}
	/* one snapshot for the batch's misses */
	if (nmiss) {
		rtmond_snap_take(c, recs[first_miss].seq, &b->plan);
		for (i = first_miss; i < n; i++) {
			const struct rtm_record *r = &recs[i];

			if (snap_miss(c, r))
				rtmond_snap_add_miss(&b->plan, r, b->names[i] ?: "");
		}
		rtmond_snap_commit(&b->plan);
	}
	seq_copy(&b->win);
}

/*
 * Only one process may read the module's records. When another holds the
 * stream (rtmonctl records, a second rtmond), poll() reports POLLERR at
 * once and reads fail with EBUSY: say so once, leave the device out of the
 * poll set and try again every second, instead of spinning at real-time
 * priority while claiming to be ready.
 */
static int stream_busy;
static uint64_t stream_retry_ns;

static void stream_taken(void)
{
	if (!stream_busy) {
		rtmond_log("another process holds the record stream (rtmonctl records? "
			   "a second rtmond?): no records are read until it closes "
			   "/dev/rtmon; trying again every second");
		rtmond_notify("STATUS=waiting: another process reads the records of /dev/rtmon");
	}
	stream_busy = 1;
	stream_retry_ns = mono_ns() + 1000000000ull;
}

/* Take the stream (in acknowledged mode where the module has it): 1 if ours. */
static int stream_claim(void)
{
	int o = rtmon_set_read_acked(rtmond_dev, 1);

	if (o == -EBUSY) {
		stream_taken();
		return 0;
	}
	acked_reads = !o;
	if (stream_busy)
		rtmond_log("the record stream is ours again");
	stream_busy = 0;
	return 1;
}

/*
 * Batches handed to the writer since the last acknowledgement: at
 * RTMOND_WQ the reader reads no more until the writer has caught up.
 */
static int unacked;

/* Everything handed to the writer is stored: the module may free it. */
static void ack_stored(void)
{
	int err;

	if (!unacked || !rtmond_writer_idle())
		return;
	if (acked_reads && (err = rtmon_ack_records(rtmond_dev)))
		rtmond_log("acknowledging records: %s", strerror(-err));
	unacked = 0;
}

/* Does the batch hold a miss that takes a snapshot? */
static int batch_wants_snapshot(const struct rtmond_config *c, const struct rtm_record *recs, int n)
{
	int i;

	if (!c->ftrace && !c->lttng)
		return 0;
	for (i = 0; i < n; i++)
		if (snap_miss(c, &recs[i]))
			return 1;
	return 0;
}

/*
 * snapshot.gather: a miss seldom comes alone (the items queued behind a
 * slow one end late together, a few microseconds apart). The reader waits
 * that long after reading one, then reads what came meanwhile into the
 * same batch, so that they all share its snapshot; read one by one, all
 * but the first would find the snapshot worker busy ("skipped": "busy").
 */
static int gather_more(const struct rtmond_config *c, struct rtmond_batch *b, int n)
{
	struct timespec ts = {
		.tv_sec = (time_t)(c->gather_ns / 1000000000ull),
		.tv_nsec = (long)(c->gather_ns % 1000000000ull),
	};
	int m;

	if (!c->gather_ns || n >= RTMOND_BATCH || !batch_wants_snapshot(c, b->recs, n))
		return n;
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
	do {
		m = rtmon_read_records(rtmond_dev, b->recs + n, (size_t)(RTMOND_BATCH - n));
		if (m > 0)
			n += m;
	} while ((m > 0 && n < RTMOND_BATCH) || m == -EINTR);
	/* an error here is the next read's to report */
	return n;
}

/*
 * Read what the rings hold, RTMOND_WQ batches at most: a drain is bounded
 * (signals and watchdog pings between two) and goes at the writer's pace.
 */
static int drain(const struct rtmond_live *l)
{
	struct rtmond_batch *b;
	int n, total = 0;

	ack_stored();
	while (unacked < RTMOND_WQ && (b = rtmond_writer_reserve())) {
		n = rtmon_read_records(rtmond_dev, b->recs, RTMOND_BATCH);
		if (n == -EAGAIN || n == 0)
			break;
		if (n == -EINTR)
			continue;
		if (n == -EBUSY) {
			stream_taken();
			return n;
		}
		if (n < 0) {
			rtmond_log("reading records: %s", strerror(-n));
			return n;
		}
		b->n = gather_more(&l->conf, b, n);
		handle_batch(l, b);
		rtmond_writer_publish();
		unacked++;
		stats_dirty = 1;
		total += n;
	}
	return total;
}

/*
 * stats.json (and the window) or the metrics text file, by the writer
 * after what it has; 0: later (the writer is behind).
 */
static int request_files(const struct rtmond_live *l, int stats, int textfile)
{
	struct rtmond_batch *b;

	if (unacked >= RTMOND_WQ || !(b = rtmond_writer_reserve()))
		return 0;
	b->live = l;
	b->stats = stats;
	b->textfile = textfile;
	if (stats)
		seq_copy(&b->win);
	rtmond_writer_publish();
	unacked++;
	if (stats)
		stats_dirty = 0;
	return 1;
}

/* ---- reload ---- */

static int run_aux(const struct rtmond_config *c, int (*fn)(const struct rtmond_config *c));

static int snap_conf_differs(const struct rtmond_config *a, const struct rtmond_config *b)
{
	return strcmp(a->dir, b->dir) || a->ftrace != b->ftrace || a->on_timeout != b->on_timeout ||
	       strcmp(a->ftrace_instance, b->ftrace_instance) ||
	       a->ftrace_buffer_kb != b->ftrace_buffer_kb || a->lttng != b->lttng ||
	       strcmp(a->lttng_output, b->lttng_output) ||
	       strcmp(a->lttng_session, b->lttng_session) ||
	       a->lttng_kernel != b->lttng_kernel ||
	       a->lttng_kernel_buffer_kb != b->lttng_kernel_buffer_kb ||
	       a->rate_burst != b->rate_burst || a->rate_interval_ns != b->rate_interval_ns ||
	       a->max_disk != b->max_disk || a->max_age_ns != b->max_age_ns;
}

/* 0 when the new configuration is active, -1 when refused (old one stays) */
static int reload(void)
{
	struct rtmond_live *old = rtmond_live, *nl = calloc(1, sizeof(*nl));
	char err[600];

	if (!nl)
		return -1;
	rtmond_log("SIGHUP: reloading %s", conf_path);
	/* files, names and the old configuration stay the writer's till then */
	if (rtmond_writer_wait_idle(mono_ns() + RTMOND_FAIL_WAIT_NS)) {
		uint64_t w = rtmond_writer_waiting(err, sizeof(err));

		rtmond_log("reload refused: writes fail (%s), %" PRIu64 " lines wait for storage; "
			   "the previous configuration stays active", err, w);
		free(nl);
		return -1;
	}
	ack_stored();
	if (rtmond_config_load(conf_path, &nl->conf, err, sizeof(err))) {
		rtmond_log("reload refused: %s; the previous configuration stays active", err);
		free(nl);
		return -1;
	}
	/*
	 * The outputs first, reopened at every reload (logrotate's postrotate
	 * sends SIGHUP): a directory that cannot be used refuses the reload.
	 */
	if (open_files(&nl->conf)) {
		rtmond_log("reload refused: no outputs in %s; the previous configuration stays active",
			   nl->conf.dir);
		free(nl);
		return -1;
	}
	if (sync_targets(old, nl)) {
		rtmond_log("reload refused: the module did not take the new targets; "
			   "the previous configuration stays active");
		open_files(&old->conf);
		free(nl);
		return -1;
	}
	if (snap_conf_differs(&old->conf, &nl->conf))
		rtmond_snap_setup(&nl->conf);
	if (strcmp(old->conf.listen, nl->conf.listen)) {
		rtmond_metrics_stop();
		run_aux(&nl->conf, rtmond_metrics_start);	/* not from the reader */
	}
	if (old->conf.policy != nl->conf.policy || old->conf.priority != nl->conf.priority ||
	    old->conf.mlockall != nl->conf.mlockall || old->conf.keep_admin != nl->conf.keep_admin)
		rtmond_log("reload: realtime settings apply at the next start");
	build_id_map(nl);
	rcu_assign_pointer(rtmond_live, nl);
	urcu_memb_synchronize_rcu();
	free(old);
	rtmond_log("reloaded: %u targets active", nl->conf.ntargets);
	return 0;
}

/* SIGHUP under systemd: RELOADING=1, then READY=1 with the outcome */
static void reload_notify(void)
{
	const char *how;

	rtmond_notify("RELOADING=1\nMONOTONIC_USEC=%" PRIu64 "\nSTATUS=reloading %s",
		      mono_ns() / 1000, conf_path);
	how = reload() ? "reload refused, previous configuration active" : "reloaded";
	rtmond_notify("READY=1\nSTATUS=%s: %u targets", how, rtmond_live->conf.ntargets);
}

/* STATUS= for systemctl status: targets, records, misses, failing writes (when changed) */
static void status_notify(void)
{
	static uint64_t last_records = UINT64_MAX;
	static char last_fail[160];
	uint64_t n = CNT_GET(records), w;
	char what[96], fail[160] = "";

	if (!rtmond_notify_enabled())
		return;
	w = rtmond_writer_waiting(what, sizeof(what));
	if (what[0])
		snprintf(fail, sizeof(fail), "; writes failing (%s): %" PRIu64
			 " lines wait for storage", what, w);
	if (n == last_records && !strcmp(fail, last_fail))
		return;
	last_records = n;
	memcpy(last_fail, fail, sizeof(fail));
	rtmond_notify("STATUS=running: %u targets, %" PRIu64 " records read, %" PRIu64
		      " misses, %" PRIu64 " lost%s", rtmond_live->conf.ntargets, n,
		      CNT_GET(misses), CNT_GET(records_lost), fail);
}

/* ---- real time, privileges ---- */

static void go_realtime(const struct rtmond_config *c)
{
	struct sched_param sp = { .sched_priority = c->priority };
	int err;

	if (c->policy != SCHED_OTHER) {
		err = pthread_setschedparam(pthread_self(), c->policy, &sp);
		if (err)
			rtmond_log("cannot run as %s priority %d: %s (going on as SCHED_OTHER)",
				   c->policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_RR",
				   c->priority, strerror(err));
		else
			rtmond_log("reader runs %s priority %d", c->policy == SCHED_FIFO ?
				   "SCHED_FIFO" : "SCHED_RR", c->priority);
	}
	if (c->mlockall) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE))
			rtmond_log("mlockall: %s (memory not locked)", strerror(errno));
		else
			rtmond_log("memory locked (mlockall)");
	}
}

/*
 * Capabilities belong to threads (capset() changes the calling thread's
 * only), and a new thread starts with those of the thread that creates it.
 * So rtmond drops them in this order, and no thread ever holds more than
 * it needs:
 * 1. the main thread, still with everything: the bounding set down to the
 *    reader's set, and no_new_privs (both inherited by every later thread);
 * 2. a helper thread, SCHED_OTHER, drops its own capabilities to the other
 *    threads' set and starts them: the snapshot worker, libmicrohttpd's
 *    (network-facing) and liblttng-ust's (loaded there:
 *    rtmond_snap_load_provider()); they inherit its sets and policy;
 * 3. the main thread, the reader, goes real-time (CAP_SYS_NICE and
 *    CAP_IPC_LOCK still held) and drops its own.
 * libcap's libpsx (every thread calls capset from a signal handler) does
 * not do it: it knows only the threads created through its wrapped
 * pthread_create in rtmond's own objects, not libmicrohttpd's or
 * liblttng-ust's, and liblttng-ust's threads block every signal.
 *
 * Kept: the reader, CAP_SYS_ADMIN with keep_admin (a SIGHUP adds and
 * removes module targets) and CAP_IPC_LOCK with mlockall (memory any
 * thread maps later is locked too, by MCL_FUTURE, and past RLIMIT_MEMLOCK
 * that needs CAP_IPC_LOCK in the thread that maps it); the other threads,
 * CAP_IPC_LOCK with mlockall, nothing else.
 */
static int caps_of(const struct rtmond_config *c, int reader, cap_value_t keep[2])
{
	int n = 0;

	if (reader && c->keep_admin)
		keep[n++] = CAP_SYS_ADMIN;
	if (c->mlockall)
		keep[n++] = CAP_IPC_LOCK;
	return n;
}

/* The calling thread's permitted and effective sets become keep[]. */
static int set_thread_caps(const cap_value_t *keep, int n)
{
	cap_t caps = cap_init();
	int err = 0;

	if (!caps)
		return -errno;
	/* inheritable empty: the ambient set goes with it */
	if (n && (cap_set_flag(caps, CAP_PERMITTED, n, keep, CAP_SET) ||
		  cap_set_flag(caps, CAP_EFFECTIVE, n, keep, CAP_SET)))
		err = -errno;
	else if (cap_set_proc(caps))
		err = -errno;
	cap_free(caps);
	return err;
}

/* Step 1: the bounding set (needs CAP_SETPCAP) and no_new_privs. */
static void drop_bound(const struct rtmond_config *c)
{
	cap_value_t keep[2], v, max = cap_max_bits();
	cap_flag_value_t setpcap = CAP_CLEAR;
	int n = caps_of(c, 1, keep), i;
	cap_t cur = cap_get_proc();

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		rtmond_log("capabilities: no_new_privs: %s", strerror(errno));
	if (cur) {
		cap_get_flag(cur, CAP_SETPCAP, CAP_EFFECTIVE, &setpcap);
		cap_free(cur);
	}
	if (setpcap != CAP_SET) {
		/* e.g. under rtmon.service: its CapabilityBoundingSet= did it */
		rtmond_log("capabilities: no CAP_SETPCAP: the bounding set stays as given");
		return;
	}
	for (v = 0; v < max; v++) {
		for (i = 0; i < n && keep[i] != v; i++)
			;
		if (i < n || cap_get_bound(v) <= 0)
			continue;
		if (cap_drop_bound(v)) {
			rtmond_log("capabilities: bounding set: cannot drop %d: %s", v,
				   strerror(errno));
			return;
		}
	}
}

struct aux_job {
	const struct rtmond_config *c;
	int (*fn)(const struct rtmond_config *c);
	int ret;
};

static void *aux_main(void *arg)
{
	struct aux_job *j = arg;
	cap_value_t keep[2];
	int n = caps_of(j->c, 0, keep), err;

	err = set_thread_caps(keep, n);
	if (err)
		rtmond_log("capabilities: the other threads cannot drop theirs: %s", strerror(-err));
	j->ret = j->fn(j->c);
	return NULL;
}

/*
 * Step 2: run fn in a new thread that is SCHED_OTHER and holds the other
 * threads' capabilities, so that every thread fn starts has just those
 * (never the reader's CAP_SYS_ADMIN or real-time priority): at start, and
 * when a reload restarts the HTTP server.
 */
static int run_aux(const struct rtmond_config *c, int (*fn)(const struct rtmond_config *c))
{
	struct aux_job j = { .c = c, .fn = fn };
	struct sched_param sp = { .sched_priority = 0 };
	pthread_attr_t a;
	pthread_t t;
	int err;

	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	pthread_attr_setstacksize(&a, 256 * 1024);	/* resident under mlockall */
	err = pthread_create(&t, &a, aux_main, &j);
	pthread_attr_destroy(&a);
	if (err) {
		rtmond_log("cannot start a thread: %s", strerror(err));
		return -err;
	}
	pthread_join(t, NULL);
	return j.ret;
}

static int start_others(const struct rtmond_config *c)
{
	rtmond_snap_load_provider();	/* without it no rtmond:miss (logged) */
	if (rtmond_snap_start_worker() || rtmond_writer_start())
		return -1;
	return rtmond_metrics_start(c);
}

/* Step 3, the reader's own. */
static void drop_caps(const struct rtmond_config *c)
{
	cap_value_t keep[2];
	int n = caps_of(c, 1, keep), err = set_thread_caps(keep, n);

	if (err)
		rtmond_log("capabilities: cannot drop: %s", strerror(-err));
	else
		rtmond_log("capabilities: kept %s%s%s in the reader, %s in the other threads; "
			   "dropped the rest",
			   c->keep_admin ? "CAP_SYS_ADMIN (targets are re-synced on SIGHUP)" : "",
			   c->keep_admin && c->mlockall ? ", " : "",
			   c->mlockall ? "CAP_IPC_LOCK (mlockall of later allocations)" :
			   c->keep_admin ? "" : "none",
			   c->mlockall ? "CAP_IPC_LOCK" : "none");
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f, "usage: rtmond [-c FILE] [--check] [--device PATH]\n"
		"  -c, --config FILE   configuration (default /etc/rtmon/rtmon.conf)\n"
		"      --check         check the configuration and exit\n"
		"  -d, --device PATH   the rtmon device (default " RTMON_DEVICE ")\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'C' },
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dev = NULL;
	struct rtmond_live *l;
	struct rtmon_version v;
	struct pollfd pfd[3];
	uint64_t next_textfile = 0, next_stats = 0, stop_by;
	char err[600];
	int check = 0, o, sfd, running = 1, rc = 0;
	sigset_t ss;

	while ((o = getopt_long(argc, argv, "c:d:h", opts, NULL)) != -1) {
		switch (o) {
		case 'c': conf_path = optarg; break;
		case 'C': check = 1; break;
		case 'd': dev = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return 1;
	if (rtmond_config_load(conf_path, &l->conf, err, sizeof(err))) {
		fprintf(stderr, "rtmond: %s\n", err);
		return 1;
	}
	if (check) {
		printf("%s: ok, %u targets\n", conf_path, l->conf.ntargets);
		return 0;
	}
	urcu_memb_register_thread();
	rtmond_rcu_registered = 1;

	/* signals: handled synchronously through a signalfd */
	sigemptyset(&ss);
	sigaddset(&ss, SIGHUP);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);	/* before any thread starts */
	sfd = signalfd(-1, &ss, SFD_CLOEXEC | SFD_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);

	rtmond_notify_init();
	rtmond_dev = rtmon_open(dev);
	if (!rtmond_dev) {
		o = errno;
		fprintf(stderr, "rtmond: cannot open %s: %s%s\n", dev ? dev : RTMON_DEVICE,
			strerror(o), o == ENOENT ? " (is the rtmon module loaded?)" : "");
		rtmond_notify("STATUS=cannot open %s: %s\nERRNO=%d", dev ? dev : RTMON_DEVICE,
			      strerror(o), o);
		return 1;
	}
	rtmon_version(rtmond_dev, &v);
	max_targets = v.max_targets;
	rtmond_log("rtmon %s, ABI %u, %s, %u cpus, %u targets max; configuration %s",
		   v.module_version, v.abi_version, v.preempt_rt ? "PREEMPT_RT" : "non-RT",
		   v.ncpus, v.max_targets, conf_path);
	rtmon_set_nonblock(rtmond_dev, 1);
	/* records read but not stored when rtmond is killed are read again */
	o = rtmon_set_read_acked(rtmond_dev, 1);
	acked_reads = !o;
	if (o == -EBUSY)
		stream_taken();
	else if (o)
		rtmond_log("acknowledged reads unavailable (%s): records read when rtmond "
			   "is killed are lost", strerror(-o));
	if (open_files(&l->conf))
		return 1;
	load_key_init();	/* the boot id read: off the real-time path from here on */
	load_seq(l->conf.dir);
	/* kernel context first, so the first chains of the new targets are in it */
	rtmond_snap_setup(&l->conf);
	rtmond_watchdog_kick(mono_ns());	/* the start can be slow (LTTng) */
	if (sync_targets(NULL, l)) {
		rtmond_snap_teardown();
		fprintf(stderr, "rtmond: the module refused the configured targets\n");
		return 1;
	}
	build_id_map(l);
	rcu_assign_pointer(rtmond_live, l);
	if (!v.running)
		rtmond_log("the module is stopped (rtmonctl start): no records until it runs");
	/* the other threads, started unprivileged and SCHED_OTHER (run_aux) */
	drop_bound(&l->conf);
	if (run_aux(&l->conf, start_others)) {
		rtmond_snap_teardown();
		return 1;
	}
	/* only the reader goes real-time, then drops its own capabilities */
	go_realtime(&l->conf);
	drop_caps(&l->conf);
	rtmond_log("running: %u targets, misses to %s/misses.jsonl", l->conf.ntargets, l->conf.dir);

	pfd[0].fd = rtmon_fd(rtmond_dev);
	pfd[0].events = POLLIN;
	pfd[1].fd = sfd;
	pfd[1].events = POLLIN;
	pfd[2].fd = rtmond_writer_fd();
	pfd[2].events = POLLIN;
	drain(l);	/* what waited in the rings while rtmond was away */
	request_files(l, 1, 0);
	/* targets in the module, reader running: units ordered after us may start */
	rtmond_notify("READY=1\nSTATUS=running: %u targets, misses to %s/misses.jsonl",
		      l->conf.ntargets, l->conf.dir);
	rtmond_watchdog_kick(mono_ns());
	while (running) {
		int timeout = hole_since || stats_dirty ? 500 : -1;
		int wd = rtmond_watchdog_timeout_ms(mono_ns());

		l = rtmond_live;
		if (l->conf.textfile[0]) {
			uint64_t now = mono_ns();

			if (now >= next_textfile && request_files(l, 0, 1))
				next_textfile = now + l->conf.textfile_interval_ns;
			/* (not yet asked: the writer's progress wakes the loop) */
			if (next_textfile > now &&
			    (timeout < 0 || (uint64_t)timeout > (next_textfile - now) / 1000000 + 1))
				timeout = (int)((next_textfile - now) / 1000000) + 1;
		}
		if (wd >= 0 && (timeout < 0 || wd < timeout))
			timeout = wd;
		/* the writer behind: the rings wait (pfd[2] says when it caught up) */
		pfd[0].fd = stream_busy || unacked >= RTMOND_WQ ? -1 : rtmon_fd(rtmond_dev);
		if (stream_busy) {
			uint64_t now = mono_ns();
			int ms = now >= stream_retry_ns ? 0 :
				 (int)((stream_retry_ns - now) / 1000000) + 1;

			if (timeout < 0 || ms < timeout)
				timeout = ms;
		}
		pfd[0].revents = 0;
		if (poll(pfd, 3, timeout) < 0 && errno != EINTR) {
			rtmond_log("poll: %s", strerror(errno));
			rc = 1;
			break;
		}
		/* the loop is alive: a reader stuck anywhere stops the pings */
		rtmond_watchdog_kick(mono_ns());
		if (pfd[2].revents & POLLIN) {
			rtmond_writer_progress_read();
			ack_stored();
			status_notify();
		}
		if (stream_busy) {
			if (mono_ns() >= stream_retry_ns && stream_claim()) {
				drain(rtmond_live);
				status_notify();
			}
		} else if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			stream_taken();
		} else if (pfd[0].revents & POLLIN) {
			drain(rtmond_live);
		}
		seq_expire(0);
		if (stats_dirty && mono_ns() >= next_stats && request_files(rtmond_live, 1, 0)) {
			status_notify();
			next_stats = mono_ns() + 1000000000ull;
		}
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					reload_notify();
				} else {
					rtmond_log("%s: exiting", strsignal((int)si.ssi_signo));
					rtmond_notify("STOPPING=1\nSTATUS=stopping (%s)",
						      strsignal((int)si.ssi_signo));
					running = 0;
				}
			}
		}
	}
	l = rtmond_live;
	/* what the rings still hold, stored and acknowledged; failing writes bound the wait */
	stop_by = mono_ns() + RTMOND_FAIL_WAIT_NS;
	while (!(o = rtmond_writer_wait_idle(stop_by))) {
		ack_stored();
		if (stream_busy || drain(l) <= 0)
			break;
	}
	if (!o) {
		seq_expire(1);
		request_files(l, 1, 0);	/* and the window after the last holes */
	}
	rtmond_writer_stop();	/* says what it could not store */
	ack_stored();
	if (l->conf.textfile[0])
		rtmond_metrics_textfile(l->conf.textfile);
	rtmond_metrics_stop();
	rtmond_snap_stop_worker();
	rtmond_snap_teardown();
	rtmon_close(rtmond_dev);
	rtmond_log("stopped after seq %" PRIu64 "; targets stay in the module", last_seq);
	return rc;
}

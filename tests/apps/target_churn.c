// SPDX-License-Identifier: GPL-2.0
/*
 * target_churn - a target id reused while its task's timer chains are
 * being made (issue 22, item 6). Before the fix the module published a
 * target to the core first and only then zeroed its per-cpu statistics
 * and set its misses-only bit: a chain completed in between was counted
 * into the id's previous statistics and its record went to the ring,
 * although the new target keeps only misses.
 *
 *   target_churn [-D SECONDS] [-a CPU_CTL,CPU_SLEEPER] [-p FIFO_PRIO]
 *
 * A sleeper thread (comm "churn_sleeper", SCHED_FIFO PRIO, default 60,
 * on CPU_SLEEPER) sleeps 150 us at a time (clock_nanosleep: a timer chain
 * per wakeup) while running, and parks on a condition variable when asked.
 * The control thread (CPU_CTL), round after round on the same target id:
 *   parked:  add "prev": the sleeper's timer chains, deadline 1 us (every
 *            record a miss), kept whole; its counters must read 0;
 *   running: 3 wakeups; parked: delete "prev";
 *   running: add "mo" (after a random 0-159 us, so that the sleeper's
 *            timer may come anywhere in the add): the same chains,
 *            deadline 10 s, misses-only (the race); the id must be
 *            prev's; 3 wakeups; parked: its status line must count no
 *            miss, no overdue, and between the wakeups after the add
 *            (less one: QEMU may stop the sleeper's vCPU between a wakeup
 *            from before the add and its count) and all wakeups since
 *            the add began; delete "mo";
 *   read the records (this program is the reader): a record with mo's
 *   deadline that is not a miss is a met deadline of a misses-only
 *   target, which must never reach the ring.
 * Targets are only deleted while the sleeper is parked: a chain that
 * looked its target up just before a delete is not what this tests.
 * With CPU_CTL == CPU_SLEEPER the sleeper's timer preempts the add
 * anywhere on PREEMPT_RT (the target ioctl is preemptible there); on two
 * cpus under QEMU's single-threaded TCG it runs when QEMU switches vCPUs,
 * with the add stopped wherever it was.
 *
 * Output: a line of counts (rounds, wakeups, records of prev, leaked
 * records of mo), "FAIL: ..." lines; exit status 1 on a failed check,
 * 2 on bad usage or a failed setup call. Tracking must be started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtmon/rtmon.h"

#define SLEEPER_COMM	"churn_sleeper"
#define PREV_DL_NS	1000ull			/* every chain misses it */
#define MO_DL_NS	10000000000ull		/* no chain misses it */
#define WAKEUPS		3			/* per phase */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int run_sleeper, parked, done;	/* under lock */
static long wakeups;			/* under lock */
static int cpu_ctl, cpu_sleeper = 1, prio = 60;

static void die(const char *what, int err)
{
	fprintf(stderr, "target_churn: %s: %s\n", what, strerror(err));
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* busy for a pseudo-random 0-159 us: the add's phase against the sleeper's */
static void spin_random(void)
{
	static uint64_t rng = 88172645463325252ull;
	uint64_t until;

	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	until = now_ns() + rng % 160000;
	while (now_ns() < until)
		;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity", errno);
}

static void *sleeper(void *arg)
{
	struct timespec ts = { 0, 150000 };
	struct sched_param sp = { .sched_priority = prio };
	int err;

	pin(cpu_sleeper);
	err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (err)
		die("SCHED_FIFO", err);
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!run_sleeper && !done) {
			parked = 1;
			pthread_cond_broadcast(&cond);
			pthread_cond_wait(&cond, &lock);
		}
		parked = 0;
		if (done)
			break;
		pthread_mutex_unlock(&lock);
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		pthread_mutex_lock(&lock);
		wakeups++;
		pthread_cond_broadcast(&cond);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static long wakeups_now(void)
{
	long n;

	pthread_mutex_lock(&lock);
	n = wakeups;
	pthread_mutex_unlock(&lock);
	return n;
}

static void sleeper_run(void)
{
	pthread_mutex_lock(&lock);
	run_sleeper = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

/* until n more wakeups, then parked (its last chain is complete) */
static void sleeper_park_after(long n)
{
	long until;

	pthread_mutex_lock(&lock);
	until = wakeups + n;
	while (wakeups < until)
		pthread_cond_wait(&cond, &lock);
	run_sleeper = 0;
	while (!parked)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static void target(struct rtmon_target *t, const char *name, uint64_t dl,
		   uint32_t flags)
{
	rtmon_target_init(t);
	snprintf(t->name, sizeof(t->name), "%s", name);
	snprintf(t->comm, sizeof(t->comm), "%s", SLEEPER_COMM);
	t->src = RTMON_SRC_TIMER;
	t->end = RTMON_END_SWITCH_IN;
	t->deadline_ns = dl;
	t->flags = flags;
}

/* the "chains C misses M overdue O" line of target id: 0, or -1 if absent */
static int status_of(unsigned int id, unsigned long long *chains,
		     unsigned long long *misses, unsigned long long *overdue)
{
	char line[512], head[32];
	FILE *f = fopen("/proc/rtmon/status", "r");
	int found = 0;

	if (!f)
		die("/proc/rtmon/status", errno);
	snprintf(head, sizeof(head), "  %u ", id);
	while (fgets(line, sizeof(line), f)) {
		if (!found) {
			found = !strncmp(line, head, strlen(head));
			continue;
		}
		if (sscanf(line, " chains %llu misses %llu overdue %llu",
			   chains, misses, overdue) == 3) {
			fclose(f);
			return 0;
		}
		break;
	}
	fclose(f);
	return -1;
}

int main(int argc, char **argv)
{
	static struct rtm_record recs[64];
	unsigned long long ch, mi, ov;
	long seconds = 10, rounds = 0, prev_recs = 0, leaks = 0, n0, n1, n2;
	long other_recs = 0;
	struct rtmon_target tp, tm;
	struct rtmon *r;
	pthread_t th;
	uint64_t end;
	int c, i, n, err, bad = 0;

	while ((c = getopt(argc, argv, "D:a:p:")) != -1) {
		switch (c) {
		case 'D':
			seconds = atol(optarg);
			break;
		case 'a':
			if (sscanf(optarg, "%d,%d", &cpu_ctl, &cpu_sleeper) != 2) {
				fprintf(stderr, "target_churn: -a CPU_CTL,CPU_SLEEPER\n");
				return 2;
			}
			break;
		case 'p':
			prio = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: target_churn [-D SECONDS] [-a CPU_CTL,CPU_SLEEPER] [-p FIFO_PRIO]\n");
			return 2;
		}
	}
	if (seconds <= 0 || prio < 1 || prio > 99) {
		fprintf(stderr, "target_churn: -D must be positive, -p in [1, 99]\n");
		return 2;
	}
	r = rtmon_open(NULL);
	if (!r)
		die(RTMON_DEVICE, errno);
	err = rtmon_set_nonblock(r, 1);
	if (err)
		die("O_NONBLOCK", -err);
	pin(cpu_ctl);
	err = pthread_create(&th, NULL, sleeper, NULL);
	if (err)
		die("pthread_create", err);
	pthread_setname_np(th, SLEEPER_COMM);

	end = now_ns() + (uint64_t)seconds * 1000000000ull;
	while (now_ns() < end && bad < 10) {
		target(&tp, "prev", PREV_DL_NS, 0);
		err = rtmon_target_add(r, &tp);
		if (err)
			die("add prev", -err);
		if (status_of(tp.id, &ch, &mi, &ov) || ch || mi || ov) {
			printf("FAIL: round %ld: fresh target %u: chains %llu misses %llu overdue %llu, not 0\n",
			       rounds, tp.id, ch, mi, ov);
			bad++;
		}
		sleeper_run();
		sleeper_park_after(WAKEUPS);
		err = rtmon_target_del(r, tp.id);
		if (err)
			die("del prev", -err);

		target(&tm, "mo", MO_DL_NS, RTMON_TF_MISSES_ONLY);
		n0 = wakeups_now();
		sleeper_run();
		spin_random();
		err = rtmon_target_add(r, &tm);	/* chains complete meanwhile */
		if (err)
			die("add mo", -err);
		n1 = wakeups_now();
		if (tm.id != tp.id) {
			printf("FAIL: round %ld: the misses-only target got id %u, not the reused %u\n",
			       rounds, tm.id, tp.id);
			bad++;
		}
		sleeper_park_after(WAKEUPS);
		n2 = wakeups_now();
		if (status_of(tm.id, &ch, &mi, &ov)) {
			printf("FAIL: round %ld: target %u not in /proc/rtmon/status\n",
			       rounds, tm.id);
			bad++;
		} else if (mi || ov || ch + 1 < (unsigned long long)(n2 - n1) ||
			   ch > (unsigned long long)(n2 - n0)) {
			printf("FAIL: round %ld: misses-only target %u: chains %llu misses %llu overdue %llu; wakeups %ld after its add, %ld since it began\n",
			       rounds, tm.id, ch, mi, ov, n2 - n1, n2 - n0);
			bad++;
		}
		err = rtmon_target_del(r, tm.id);
		if (err)
			die("del mo", -err);

		while ((n = rtmon_read_records(r, recs, 64)) > 0) {
			for (i = 0; i < n; i++) {
				if (strncmp((char *)recs[i].target_comm, SLEEPER_COMM,
					    sizeof(recs[i].target_comm)))
					other_recs++;
				else if (recs[i].deadline_ns == PREV_DL_NS)
					prev_recs++;
				else if (recs[i].deadline_ns == MO_DL_NS &&
					 !(recs[i].flags & RTM_REC_F_DEADLINE_MISS)) {
					if (!leaks++)
						printf("# leaked: seq %llu latency %llu ns\n",
						       (unsigned long long)recs[i].seq,
						       (unsigned long long)recs[i].latency_ns);
				}
			}
		}
		if (n < 0 && n != -EAGAIN)
			die("read", -n);
		rounds++;
	}
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(th, NULL);

	printf("rounds %ld wakeups %ld records of prev %ld, of others %ld, met deadlines of the misses-only target %ld\n",
	       rounds, wakeups, prev_recs, other_recs, leaks);
	if (leaks) {
		printf("FAIL: %ld records of met deadlines of a misses-only target reached the ring\n",
		       leaks);
		bad++;
	}
	if (!prev_recs) {
		printf("FAIL: no record of the whole target: no chain was tracked\n");
		bad++;
	}
	rtmon_close(r);
	return bad ? 1 : 0;
}

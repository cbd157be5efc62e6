// SPDX-License-Identifier: GPL-2.0
/*
 * fake_rtmon.so - an rtmon device for rtmond on the host (LD_PRELOAD), for
 * test_rtmond.sh: open() of $FAKE_RTMON_DEV gives an eventfd (pollable,
 * never readable: no records), and ioctl() on it answers VERSION and keeps
 * TARGET_ADD/DEL/GET in $FAKE_RTMON_DB (so targets outlive an rtmond run,
 * as the module's do) with the module's checks of flags and free slots;
 * the other ioctls succeed. What rtmond does around the device (threads,
 * capabilities, directories, target reconciliation) is then the real code.
 *
 * $FAKE_RTMON_RECORDS, when set, names a file of sequence numbers in the
 * order the device hands them out ("/" ends a read(): the next read starts
 * after it), as the module's per-cpu rings hand them out of order: each
 * becomes a record of the lowest target in use, a deadline miss when its
 * number is odd; the eventfd is readable until the last one is read.
 * "N..M" stands for the numbers N to M; "@PATH" holds the rest back until
 * PATH exists (the eventfd readable again then). With $FAKE_RTMON_ACKLOG set, each
 * RTMON_IOC_ACK appends "handed H stored S..." to it: H records handed out so
 * far, S the lines of each file of $FAKE_RTMON_STORED (records.jsonl, or
 * a colon-separated list) at that moment. $FAKE_RTMON_HANDED, when set,
 * names a file that holds H after every read(), acknowledged or not.
 * $FAKE_RTMON_STALL, when set, names a file whose presence holds every
 * fdatasync() back until it is removed: a disk that stopped answering.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "rtmon/rtmon.h"

#define NT	8

static int dev_fd = -1;
static unsigned long long rec_seq[65536];	/* 0: the end of a read() */
static int nrec, rec_next, rec_handed;
static char hold_path[8][300];			/* "@PATH": rec_seq = ~0ull - i */
static int nhold;
#define HOLD(i)		(~0ull - (unsigned long long)(i))
static struct rtmon_target tab[NT];
static int used[NT];

static void db_load(void)
{
	FILE *f = fopen(getenv("FAKE_RTMON_DB"), "r");

	if (!f)
		return;
	if (fread(used, sizeof(used), 1, f) != 1 || fread(tab, sizeof(tab), 1, f) != 1)
		memset(used, 0, sizeof(used));
	fclose(f);
}

static void db_save(void)
{
	FILE *f = fopen(getenv("FAKE_RTMON_DB"), "w");

	if (!f)
		return;
	fwrite(used, sizeof(used), 1, f);
	fwrite(tab, sizeof(tab), 1, f);
	fclose(f);
}

static void records_load(void)
{
	const char *p = getenv("FAKE_RTMON_RECORDS");
	char w[300];
	FILE *f;

	if (!p || !(f = fopen(p, "r")))
		return;
	while (nrec < (int)(sizeof(rec_seq) / sizeof(rec_seq[0])) &&
	       fscanf(f, "%299s", w) == 1) {
		unsigned long long a, b;

		if (w[0] == '@' && nhold < 8) {
			snprintf(hold_path[nhold], sizeof(hold_path[0]), "%s", w + 1);
			rec_seq[nrec++] = HOLD(nhold++);
		} else if (sscanf(w, "%llu..%llu", &a, &b) == 2)
			for (; a <= b && nrec < (int)(sizeof(rec_seq) / sizeof(rec_seq[0])); a++)
				rec_seq[nrec++] = a;
		else
			rec_seq[nrec++] = strcmp(w, "/") ? strtoull(w, NULL, 10) : 0;
	}
	fclose(f);
}

/* The device turns readable again when the held-back path appears. */
static void *hold_watch(void *arg)
{
	const char *path = arg;
	uint64_t one = 1;

	while (access(path, F_OK))
		usleep(10000);
	if (write(dev_fd, &one, sizeof(one)) < 0)
		perror("fake_rtmon: eventfd");
	return NULL;
}

/* $FAKE_RTMON_HANDED: the records handed out so far, rewritten at each read */
static void handed_save(void)
{
	const char *p = getenv("FAKE_RTMON_HANDED");
	FILE *f;

	if (p && (f = fopen(p, "w"))) {
		fprintf(f, "%d\n", rec_handed);
		fclose(f);
	}
}

ssize_t read(int fd, void *buf, size_t count)
{
	static ssize_t (*real)(int, void *, size_t);
	struct rtm_record *r = buf;
	size_t n = 0;
	uint64_t v;
	int id;

	if (!real)
		real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	if (fd < 0 || fd != dev_fd)
		return real(fd, buf, count);
	for (id = 0; id < NT && !used[id]; id++)
		;
	while (rec_next < nrec && !rec_seq[rec_next])
		rec_next++;	/* the reads before ended here */
	if (rec_next < nrec && rec_seq[rec_next] > HOLD(8)) {
		static int watched[8];
		int i = (int)(~0ull - rec_seq[rec_next]);

		if (!access(hold_path[i], F_OK)) {
			rec_next++;
		} else {
			pthread_t t;

			if (real(dev_fd, &v, sizeof(v)) < 0)
				v = 0;	/* not readable until then */
			if (!watched[i]++ && !pthread_create(&t, NULL, hold_watch, hold_path[i]))
				pthread_detach(t);
			errno = EAGAIN;
			return -1;
		}
	}
	while (rec_next < nrec && rec_seq[rec_next] && rec_seq[rec_next] <= HOLD(8) &&
	       (n + 1) * sizeof(*r) <= count) {
		memset(&r[n], 0, sizeof(r[n]));
		r[n].version = RTM_REC_VERSION;
		r[n].size = sizeof(r[n]);
		r[n].seq = rec_seq[rec_next++];
		r[n].kind = RTM_KIND_TIMER;
		r[n].target_id = id < NT ? id : RTM_TARGET_NONE;
		r[n].start_ns = 1000000 * r[n].seq;
		r[n].latency_ns = 1000 + r[n].seq;
		r[n].end_ns = r[n].start_ns + r[n].latency_ns;
		r[n].deadline_ns = 1000000;
		r[n].flags = r[n].seq % 2 ? RTM_REC_F_DEADLINE_MISS : 0;
		r[n].target_pid = r[n].target_tgid = 4242;
		snprintf((char *)r[n].target_comm, sizeof(r[n].target_comm), "task_fake");
		n++;
		rec_handed++;
	}
	if (n)
		handed_save();
	if (rec_next >= nrec && real(dev_fd, &v, sizeof(v)) < 0)
		v = 0;	/* no longer readable */
	if (!n) {
		errno = EAGAIN;
		return -1;
	}
	return (ssize_t)(n * sizeof(*r));
}

int fdatasync(int fd)
{
	static int (*real)(int);
	const char *stall = getenv("FAKE_RTMON_STALL");

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	while (stall && !access(stall, F_OK))
		usleep(10000);
	return real(fd);
}

int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	const char *dev = getenv("FAKE_RTMON_DEV");
	mode_t mode;
	va_list ap;

	va_start(ap, flags);
	mode = va_arg(ap, mode_t);
	va_end(ap);
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	if (dev && !strcmp(path, dev)) {
		db_load();
		records_load();
		dev_fd = eventfd(nrec ? 1 : 0, EFD_CLOEXEC | EFD_NONBLOCK);
		return dev_fd;
	}
	return real(path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

/* The whole lines of a file (0 when there is none). */
static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int lines = 0, c;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		lines += c == '\n';
	fclose(f);
	return lines;
}

/* An acknowledgement: how many records were handed out, how many stored. */
static void ack_log(void)
{
	const char *log = getenv("FAKE_RTMON_ACKLOG"), *st = getenv("FAKE_RTMON_STORED");
	char files[1024], *p, *save = NULL;
	FILE *f;

	if (!log)
		return;
	f = fopen(log, "a");
	if (!f)
		return;
	fprintf(f, "handed %d stored", rec_handed);
	snprintf(files, sizeof(files), "%s", st ? st : "");
	for (p = strtok_r(files, ":", &save); p; p = strtok_r(NULL, ":", &save))
		fprintf(f, " %d", count_lines(p));
	if (!st)
		fprintf(f, " 0");
	fprintf(f, "\n");
	fclose(f);
}

static int target_ioctl(unsigned long req, void *arg)
{
	struct rtmon_target *t = arg;
	unsigned int id;

	switch (req) {
	case RTMON_IOC_ACK:
		ack_log();
		return 0;
	case RTMON_IOC_TARGET_ADD:
		if (t->flags & ~RTMON_TF_ALL)
			return -EINVAL;
		for (id = 0; id < NT && used[id]; id++)
			;
		if (id == NT)
			return -ENOSPC;
		t->id = id;
		tab[id] = *t;
		used[id] = 1;
		db_save();
		return 0;
	case RTMON_IOC_TARGET_DEL:
		id = *(unsigned int *)arg;
		if (id >= NT || !used[id])
			return -ENOENT;
		used[id] = 0;
		db_save();
		return 0;
	case RTMON_IOC_TARGET_GET:
		if (t->id >= NT || !used[t->id])
			return -ENOENT;
		*t = tab[t->id];
		return 0;
	}
	return 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	struct rtmon_version *v;
	va_list ap;
	void *arg;
	int err;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (fd < 0 || fd != dev_fd)
		return real(fd, req, arg);
	if (req == RTMON_IOC_VERSION) {
		v = arg;
		v->abi_version = RTMON_ABI_VERSION;
		v->record_version = RTM_REC_VERSION;
		v->record_size = sizeof(struct rtm_record);
		v->max_targets = NT;
		v->ncpus = 1;
		v->running = 1;
		snprintf(v->module_version, sizeof(v->module_version), "fake");
		return 0;
	}
	err = target_ioctl(req, arg);
	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}

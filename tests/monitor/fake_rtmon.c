// SPDX-License-Identifier: GPL-2.0
/*
 * fake_rtmon.so - an rtmon device for rtmond on the host (LD_PRELOAD), for
 * test_rtmond.sh: open() of $FAKE_RTMON_DEV gives an eventfd (pollable,
 * never readable: no records), and ioctl() on it answers VERSION and keeps
 * TARGET_ADD/DEL/GET in $FAKE_RTMON_DB (so targets outlive an rtmond run,
 * as the module's do) with the module's checks of flags and free slots;
 * the other ioctls succeed. What rtmond does around the device (threads,
 * capabilities, directories, target reconciliation) is then the real code.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "rtmon/rtmon.h"

#define NT	8

static int dev_fd = -1;
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
		dev_fd = eventfd(0, EFD_CLOEXEC);
		return dev_fd;
	}
	return real(path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

static int target_ioctl(unsigned long req, void *arg)
{
	struct rtmon_target *t = arg;
	unsigned int id;

	switch (req) {
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

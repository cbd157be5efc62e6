// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl_fuzz - throw random ioctls at /dev/rtmon: random command numbers
 * (rtmon's magic with random numbers, sizes and directions, and foreign
 * ones), random argument sizes and contents, bad pointers (NULL, unmapped,
 * kernel addresses, the end of a mapping), and reads with odd buffers.
 * Only error codes may come back: the kernel log is checked by the test
 * harness. Prints a summary of the errno values seen.
 *
 *   ioctl_fuzz [-n ITERATIONS] [-s SEED] [-u UID]   (-u: drop to UID first)
 *
 * Exit status 0 unless something other than an errno came back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rtmon/rtmon.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const unsigned long known[] = {
	RTMON_IOC_VERSION, RTMON_IOC_TARGET_ADD, RTMON_IOC_TARGET_DEL,
	RTMON_IOC_TARGET_GET, RTMON_IOC_START, RTMON_IOC_STOP,
	RTMON_IOC_COUNTERS, RTMON_IOC_WORK_BEGIN, RTMON_IOC_WORK_END,
	RTMON_IOC_READ_MODE, RTMON_IOC_ACK,
};

int main(int argc, char **argv)
{
	long iters = 20000, i, ok = 0, errs[256] = { 0 };
	unsigned char *page, *guard;
	int c, fd, uid = -1;

	while ((c = getopt(argc, argv, "n:s:u:")) != -1) {
		switch (c) {
		case 'n': iters = atol(optarg); break;
		case 's': rng = strtoull(optarg, NULL, 0) | 1; break;
		case 'u': uid = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: ioctl_fuzz [-n N] [-s SEED] [-u UID]\n");
			return 2;
		}
	}
	fd = open(RTMON_DEVICE, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		perror(RTMON_DEVICE);
		return 1;
	}
	if (uid >= 0 && (setgid(uid) || setuid(uid))) {
		perror("setuid");
		return 1;
	}
	/* a page followed by an unmapped one: structures that run off the end */
	page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	guard = page + 4096;
	munmap(guard, 4096);

	for (i = 0; i < iters; i++) {
		unsigned long cmd;
		void *arg;
		long ret;
		size_t k;

		switch (rnd() % 4) {
		case 0: /* a known command, argument made of noise */
		case 1:
			cmd = known[rnd() % (sizeof(known) / sizeof(known[0]))];
			break;
		case 2: /* our magic, any number, size and direction */
			cmd = _IOC(rnd() % 4, RTMON_IOC_MAGIC, rnd() % 32, rnd() % 1024);
			break;
		default: /* anything */
			cmd = (unsigned long)rnd();
		}
		for (k = 0; k < 4096; k += 8)
			*(uint64_t *)(page + k) = rnd() % 3 ? rnd() : 0;
		/* sometimes a plausible size field, so deeper checks run */
		if (rnd() % 2)
			*(uint32_t *)page = (uint32_t[]){ sizeof(struct rtmon_target),
				sizeof(struct rtmon_version), sizeof(struct rtmon_counters),
				0, 1, 0xffffffff }[rnd() % 6];
		if (rnd() % 4 == 0) {
			struct rtmon_target *t = (void *)page;

			rtmon_target_init(t);
			t->src = rnd() % 6;
			t->end = rnd() % 5;
			t->irq = (int32_t)(rnd() % 2048) - 1;
			t->flags = rnd() % 3 ? 0 : (uint32_t)rnd();
			t->deadline_ns = rnd() % 2 ? rnd() % 10000000 : rnd();
			if (rnd() % 2)
				memset(t->comm, 'A', sizeof(t->comm));	/* no NUL */
			else
				strcpy(t->comm, "fuzz");
			if (rnd() % 3 == 0)
				memset(t->irq_name, 'B', sizeof(t->irq_name));
		}
		switch (rnd() % 8) {
		case 0: arg = NULL; break;
		case 1: arg = guard - (rnd() % 64); break;	/* runs off the end */
		case 2: arg = (void *)0xffffffff81000000ull; break;	/* kernel */
		case 3: arg = (void *)(uintptr_t)rnd(); break;
		default: arg = page;
		}
		errno = 0;
		ret = ioctl(fd, cmd, arg);
		if (ret == 0)
			ok++;
		else if (ret == -1 && errno > 0 && errno < 256)
			errs[errno]++;
		else {
			fprintf(stderr, "ioctl_fuzz: ioctl 0x%lx returned %ld errno %d\n",
				cmd, ret, errno);
			return 1;
		}
		/* a target that was added is removed again, to keep room */
		if (ret == 0 && cmd == RTMON_IOC_TARGET_ADD && arg == page)
			ioctl(fd, RTMON_IOC_TARGET_DEL, &((struct rtmon_target *)page)->id);
		if (rnd() % 16 == 0) {
			size_t len = rnd() % 2048;

			ret = read(fd, rnd() % 2 ? (void *)page : (void *)guard - (rnd() % 700), len);
			if (ret < 0 && !(errno > 0 && errno < 256)) {
				fprintf(stderr, "ioctl_fuzz: read returned %ld errno %d\n", ret, errno);
				return 1;
			}
		}
	}
	printf("ioctl_fuzz: %ld calls as uid %d: %ld succeeded", iters,
	       (int)getuid(), ok);
	for (c = 1; c < 256; c++)
		if (errs[c])
			printf(", %ld %s", errs[c], strerrorname_np(c));
	printf("\n");
	close(fd);
	return 0;
}

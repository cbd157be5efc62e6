// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * model_reader: the reader of the test device rtmon-model.ko
 * (tests/gpio/model). COUNT times: fires one interrupt of MODE (100 us
 * after the write), then blocks in read() until the device's IRQ thread
 * has handled it and woken it. One interrupt at a time, so that each
 * chain ends before the next begins. Prints the number of events handled.
 *   model_reader MODE COUNT
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long want, i;
	uint32_t now = 0;
	char cmd[32];
	int fd, len;
	ssize_t n;

	if (argc != 3 || !(want = strtoul(argv[2], NULL, 10))) {
		fprintf(stderr, "usage: model_reader MODE COUNT\n");
		return 2;
	}
	fd = open("/dev/rtmon-model", O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "model_reader: /dev/rtmon-model: %s\n", strerror(errno));
		return 2;
	}
	len = snprintf(cmd, sizeof(cmd), "%s 1 100", argv[1]);
	if (len < 0 || (size_t)len >= sizeof(cmd)) {
		fprintf(stderr, "model_reader: mode '%s' too long\n", argv[1]);
		return 2;
	}
	for (i = 0; i < want; i++) {
		if (write(fd, cmd, (size_t)len) != len) {
			fprintf(stderr, "model_reader: write '%s': %s\n", cmd, strerror(errno));
			return 1;
		}
		n = read(fd, &now, sizeof(now));
		if (n != sizeof(now)) {
			fprintf(stderr, "model_reader: read: %s\n",
				n < 0 ? strerror(errno) : "short read");
			return 1;
		}
	}
	printf("model_reader: %s: %lu interrupts handled (device count %u)\n", argv[1], i, now);
	return 0;
}

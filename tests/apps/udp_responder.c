// SPDX-License-Identifier: GPL-2.0
/*
 * udp_responder PORT COUNT TIMEOUT_MS: receives COUNT UDP datagrams on
 * PORT (each carrying a 32-bit big-endian sequence number first) and
 * prints one line per datagram:
 *   SEQ WAITED RX_NS AFTER_NS
 * WAITED: 1 when the responder slept in recvmsg() for it (its voluntary
 * context switches went up: a wakeup brought it), 0 when it was queued
 * already, or came while the responder was on its way into the sleep;
 * RX_NS: the kernel's software receive timestamp (SO_TIMESTAMPING), on
 * CLOCK_MONOTONIC; AFTER_NS: CLOCK_MONOTONIC read right after recvmsg()
 * returned. Exit status 0 when COUNT arrived, 1 when TIMEOUT_MS passed
 * without a datagram (the lines so far are printed), 2 on errors.
 */
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#include <errno.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#ifndef SCM_TIMESTAMPING
#define SCM_TIMESTAMPING SO_TIMESTAMPING
#endif

static int64_t ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, from the closest of a few reads */
static int64_t realtime_offset(void)
{
	int64_t best = INT64_MAX, off = 0;

	for (int i = 0; i < 20; i++) {
		int64_t a = ns(CLOCK_MONOTONIC), r = ns(CLOCK_REALTIME);
		int64_t b = ns(CLOCK_MONOTONIC);

		if (b - a < best) {
			best = b - a;
			off = r - a - (b - a) / 2;
		}
	}
	return off;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	unsigned char buf[2048], ctl[512];
	long count, got = 0;
	struct timeval tv;
	int64_t off;
	int fd;

	if (argc != 4 || atoi(argv[1]) <= 0 || atoi(argv[1]) > 65535 ||
	    (count = atol(argv[2])) <= 0 || atoi(argv[3]) <= 0) {
		fprintf(stderr, "usage: udp_responder PORT COUNT TIMEOUT_MS\n");
		return 2;
	}
	a.sin_port = htons((uint16_t)atoi(argv[1]));
	tv.tv_sec = atoi(argv[3]) / 1000;
	tv.tv_usec = atoi(argv[3]) % 1000 * 1000;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		perror("udp_responder: socket");
		return 2;
	}
	off = realtime_offset();
	printf("# ready: port %s, realtime - monotonic %lld ns\n", argv[1], (long long)off);
	fflush(stdout);
	while (got < count) {
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
		struct cmsghdr *c;
		int64_t rx = -1, after;
		int waited = 0;
		ssize_t n;

		n = recvmsg(fd, &m, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct rusage r0, r1;

			getrusage(RUSAGE_THREAD, &r0);
			n = recvmsg(fd, &m, 0);
			getrusage(RUSAGE_THREAD, &r1);
			waited = r1.ru_nvcsw > r0.ru_nvcsw;
		}
		after = ns(CLOCK_MONOTONIC);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				printf("# timeout after %ld datagrams\n", got);
				return 1;
			}
			if (errno == EINTR)
				continue;
			perror("udp_responder: recvmsg");
			return 2;
		}
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING) {
				struct timespec ts[3];

				memcpy(ts, CMSG_DATA(c), sizeof(ts));
				rx = (int64_t)ts[0].tv_sec * 1000000000 + ts[0].tv_nsec - off;
			}
		if (n < 4 || rx < 0) {
			fprintf(stderr, "udp_responder: a datagram of %zd bytes%s\n", n,
				rx < 0 ? " without a receive timestamp" : "");
			return 2;
		}
		printf("%u %d %lld %lld\n", (unsigned)buf[0] << 24 | buf[1] << 16 | buf[2] << 8 | buf[3],
		       waited, (long long)rx, (long long)after);
		got++;
	}
	return 0;
}

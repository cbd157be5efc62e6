// SPDX-License-Identifier: GPL-2.0
/*
 * timer_loop - a periodic real-time loop paced by one kind of timer, which
 * prints the latency of every wakeup (like cyclictest -v -N): the time from
 * the expiry it waited for to the clock read right after its wait returned.
 * The test of rtmon's timer chains for each kind of timer an application
 * uses (tests/vm/guest/chain-timers.sh joins its lines with rtmon's records).
 *
 *   timer_loop -k KIND [-i INTERVAL_US] [-l LOOPS] [-p FIFO_PRIO] [-a CPU]
 *
 * KIND:
 *   sleeper       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)
 *   timerfd       timerfd_create(CLOCK_MONOTONIC), absolute periodic, read()
 *   posix-signal  timer_create(SIGEV_SIGNAL, SIGRTMIN), sigwaitinfo()
 *   posix-thread  timer_create(SIGEV_THREAD_ID to the loop), sigwaitinfo()
 *   itimer        setitimer(ITIMER_REAL) periodic, SIGALRM by sigwaitinfo()
 *                 (relative: its expiry is known to the microsecond, early)
 *
 * Output: "T: 0 (TID) kind KIND interval US us loops N" (TID: the thread
 * that waits), then per wakeup "0: LOOP: LATENCY_NS EXPIRY_NS" (CLOCK_MONOTONIC
 * ns), with " overrun N" when N expiries were missed before it (their
 * wakeups never came), and a last "# min avg max" line. Exit status 1 on
 * a failed call, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum kind { K_SLEEPER, K_TIMERFD, K_POSIX_SIGNAL, K_POSIX_THREAD, K_ITIMER };

static const char *const kind_names[] = {
	"sleeper", "timerfd", "posix-signal", "posix-thread", "itimer"
};

static enum kind kind;
static uint64_t interval_ns = 5000000;
static unsigned long loops = 100;
static int prio, cpu = -1;

static void die(const char *what)
{
	fprintf(stderr, "timer_loop: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(const char *msg)
{
	fprintf(stderr, "timer_loop: %s\n"
		"usage: timer_loop -k sleeper|timerfd|posix-signal|posix-thread|itimer\n"
		"                  [-i INTERVAL_US] [-l LOOPS] [-p FIFO_PRIO] [-a CPU]\n", msg);
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static struct timespec ts_of(uint64_t ns)
{
	struct timespec t = { .tv_sec = (time_t)(ns / 1000000000ull),
			      .tv_nsec = (long)(ns % 1000000000ull) };
	return t;
}

static uint64_t lat_min = UINT64_MAX, lat_max, lat_sum, nlat;

static void report(unsigned long k, uint64_t expiry, uint64_t wake,
		   uint64_t missed)
{
	uint64_t lat = wake > expiry ? wake - expiry : 0;

	if (missed)
		printf("0: %lu: %llu %llu overrun %llu\n", k,
		       (unsigned long long)lat, (unsigned long long)expiry,
		       (unsigned long long)missed);
	else
		printf("0: %lu: %llu %llu\n", k, (unsigned long long)lat,
		       (unsigned long long)expiry);
	lat_min = lat < lat_min ? lat : lat_min;
	lat_max = lat > lat_max ? lat : lat_max;
	lat_sum += lat;
	nlat++;
}

/* the first expiry: two periods ahead, on a multiple of the period */
static uint64_t first_expiry(void)
{
	return (now_ns() / interval_ns + 2) * interval_ns;
}

static void loop_sleeper(void)
{
	uint64_t next = first_expiry();
	struct timespec t;
	unsigned long k;
	int err;

	for (k = 0; k < loops; k++) {
		t = ts_of(next);
		do {
			err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		} while (err == EINTR);
		if (err) {
			errno = err;
			die("clock_nanosleep");
		}
		report(k, next, now_ns(), 0);
		next += interval_ns;
	}
}

static void loop_timerfd(void)
{
	uint64_t next = first_expiry(), n, wake;
	struct itimerspec its = { .it_interval = ts_of(interval_ns),
				  .it_value = ts_of(next) };
	unsigned long k;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

	if (fd < 0)
		die("timerfd_create");
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL))
		die("timerfd_settime");
	for (k = 0; k < loops; k++) {
		if (read(fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
			die("read timerfd");
		wake = now_ns();
		/* n expiries since the last read: the last one woke us */
		next += (n - 1) * interval_ns;
		report(k, next, wake, n - 1);
		next += interval_ns;
	}
	close(fd);
}

/*
 * POSIX timers and the itimer signal the process; the loop waits for the
 * signal, blocked in every thread (the main thread blocked it before the
 * loop's thread was created), with sigwaitinfo().
 */
static void loop_signal(int sig, timer_t *timer)
{
	uint64_t next, wake;
	siginfo_t si;
	sigset_t set;
	unsigned long k;
	int over;

	sigemptyset(&set);
	sigaddset(&set, sig);
	if (kind == K_ITIMER) {
		/*
		 * setitimer() is relative, and its expiry is not returned: ask
		 * getitimer() for the time left (whole microseconds, rounded
		 * down) and add it to a clock read before that call, which is
		 * before the kernel's own. The expiry counted here is then no
		 * later than the real one, so the latency printed is never
		 * smaller than the true latency (larger by at most getitimer's
		 * duration and 1 us). The kernel keeps the grid of that first
		 * expiry when it rearms.
		 */
		struct itimerval iv = {
			.it_interval = { .tv_usec = (suseconds_t)(interval_ns / 1000) },
			.it_value = { .tv_usec = (suseconds_t)(interval_ns / 1000) },
		}, left;
		uint64_t before;

		if (interval_ns >= 1000000000ull)
			usage("itimer: the interval must be under 1 s");
		if (setitimer(ITIMER_REAL, &iv, NULL))
			die("setitimer");
		before = now_ns();
		if (getitimer(ITIMER_REAL, &left))
			die("getitimer");
		next = before + (uint64_t)left.it_value.tv_sec * 1000000000ull +
		       (uint64_t)left.it_value.tv_usec * 1000;
	} else {
		struct itimerspec its;

		next = first_expiry();
		its.it_interval = ts_of(interval_ns);
		its.it_value = ts_of(next);
		if (timer_settime(*timer, TIMER_ABSTIME, &its, NULL))
			die("timer_settime");
	}
	for (k = 0; k < loops; k++) {
		if (sigwaitinfo(&set, &si) < 0) {
			if (errno == EINTR) {
				k--;
				continue;
			}
			die("sigwaitinfo");
		}
		wake = now_ns();
		over = kind == K_ITIMER ? 0 : timer_getoverrun(*timer);
		if (over < 0)
			die("timer_getoverrun");
		next += (uint64_t)over * interval_ns;
		report(k, next, wake, (uint64_t)over);
		next += interval_ns;
	}
	if (kind == K_ITIMER) {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };

		setitimer(ITIMER_REAL, &off, NULL);
	}
}

static void *loop_thread(void *arg)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct sched_param sp = { .sched_priority = prio };
	struct sigevent sev;
	timer_t timer;

	(void)arg;
	if (prio && sched_setscheduler(0, SCHED_FIFO, &sp))
		die("sched_setscheduler");
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
	}
	printf("T: 0 (%6d) kind %s interval %llu us loops %lu\n", (int)tid,
	       kind_names[kind], (unsigned long long)(interval_ns / 1000), loops);
	fflush(stdout);
	switch (kind) {
	case K_SLEEPER:
		loop_sleeper();
		break;
	case K_TIMERFD:
		loop_timerfd();
		break;
	case K_POSIX_SIGNAL:
	case K_POSIX_THREAD:
		memset(&sev, 0, sizeof(sev));
		sev.sigev_signo = SIGRTMIN;
		if (kind == K_POSIX_SIGNAL) {
			sev.sigev_notify = SIGEV_SIGNAL;
		} else {
			sev.sigev_notify = SIGEV_THREAD_ID;
			sev._sigev_un._tid = tid;
		}
		if (timer_create(CLOCK_MONOTONIC, &sev, &timer))
			die("timer_create");
		loop_signal(SIGRTMIN, &timer);
		timer_delete(timer);
		break;
	case K_ITIMER:
		loop_signal(SIGALRM, NULL);
		break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	sigset_t set;
	char *end;
	unsigned long v;
	int c, k, found = 0;

	while ((c = getopt(argc, argv, "k:i:l:p:a:h")) != -1) {
		switch (c) {
		case 'k':
			for (k = 0; k < (int)(sizeof(kind_names) / sizeof(kind_names[0])); k++)
				if (!strcmp(optarg, kind_names[k])) {
					kind = (enum kind)k;
					found = 1;
				}
			if (!found)
				usage("unknown kind");
			break;
		case 'i':
		case 'l':
		case 'p':
		case 'a':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || optarg[0] == '-')
				usage("bad number");
			if (c == 'i') {
				if (!v || v > 10000000)
					usage("interval: 1 us to 10 s");
				interval_ns = (uint64_t)v * 1000;
			} else if (c == 'l') {
				if (!v)
					usage("loops: at least 1");
				loops = v;
			} else if (c == 'p') {
				if (v > 99)
					usage("priority: 1 to 99");
				prio = (int)v;
			} else {
				cpu = (int)v;
			}
			break;
		default:
			usage("bad option");
		}
	}
	if (!found)
		usage("-k KIND is required");
	if (optind < argc)
		usage("unexpected argument");
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall");
	/* the timers' signals: blocked in every thread, taken by sigwaitinfo */
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigaddset(&set, SIGALRM);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		die("pthread_sigmask");
	errno = pthread_create(&th, NULL, loop_thread, NULL);
	if (errno)
		die("pthread_create");
	pthread_join(th, NULL);
	if (nlat)
		printf("# min %llu avg %llu max %llu\n", (unsigned long long)lat_min,
		       (unsigned long long)(lat_sum / nlat),
		       (unsigned long long)lat_max);
	return 0;
}

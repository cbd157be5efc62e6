// SPDX-License-Identifier: GPL-2.0
/*
 * timer_loop - a periodic real-time loop paced by one kind of timer, which
 * prints the latency of every wakeup (like cyclictest -v -N): the time from
 * the expiry it waited for to the clock read right after its wait returned.
 * The test of rtmon's timer chains for each kind of timer an application
 * uses (tests/vm/guest/chain-timers.sh joins its lines with rtmon's records).
 *
 *   timer_loop -k KIND [-i INTERVAL_US] [-l LOOPS] [-p FIFO_PRIO] [-a CPU] [-q]
 *
 * KIND:
 *   sleeper       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)
 *   timerfd       timerfd_create(CLOCK_MONOTONIC), absolute periodic, read()
 *   posix-signal  timer_create(SIGEV_SIGNAL, SIGRTMIN), absolute periodic,
 *                 sigwaitinfo() (the signal goes to the process)
 *   posix-thread  timer_create(SIGEV_THREAD_ID to the loop's thread),
 *                 absolute periodic, sigwaitinfo()
 *   itimer        setitimer(ITIMER_REAL) periodic, SIGALRM by sigwaitinfo()
 *                 (relative: the expiry printed is a lower bound, early
 *                 by at most a system call, the same on every loop: see
 *                 loop_signal)
 * The timers' signals are blocked in every thread; one thread (printed as
 * "T: 0 (TID)", as cyclictest does) sets up its timer and loops. -p: that
 * thread runs SCHED_FIFO at that priority; -a: pinned to that CPU; -q: no
 * line per wakeup, only the summary. Defaults: -i 5000 -l 100.
 *
 * Output: "T: 0 (TID) kind KIND interval US us loops N" before the loop,
 * then, once it is done (no output during the loop: writing to a slow
 * file could delay the next wait past its expiry), per wakeup
 * "0: LOOP: LATENCY_NS EXPIRY_NS" (EXPIRY_NS: CLOCK_MONOTONIC), with
 * " overrun N" when the wakeup came so late that the N periods after
 * EXPIRY_NS passed before the loop waited again: the kernel rearms a
 * periodic timer only when its expiry is consumed (read() of a timerfd,
 * the dequeue of the timer's signal), so those N expiries never fire and
 * the next line's expiry is EXPIRY_NS + (N + 1) * INTERVAL (a timerfd's
 * count and timer_getoverrun() say N, for the itimer the time left to
 * its next expiry does; the sleeper skips the periods already past, as
 * cyclictest does), and " nosleep" when the wait returned without
 * sleeping (the thread's count of voluntary context switches, getrusage
 * RUSAGE_THREAD, did not move): its expiry had passed before the loop
 * waited, so no wakeup ended that wait and a monitor of wakeups has
 * nothing to report for it, and " unsure" when the expiry printed is a
 * guess (the itimer only: see itimer_next). Last a summary line
 * "# min MIN avg AVG max MAX overruns N" (ns). Exit status 1 on a failed
 * call, 2 on bad usage.
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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum kind { K_SLEEPER, K_TIMERFD, K_POSIX_SIGNAL, K_POSIX_THREAD, K_ITIMER, K_NONE };

static const char *const kind_names[] = {
	"sleeper", "timerfd", "posix-signal", "posix-thread", "itimer"
};

static enum kind kind = K_NONE;
static uint64_t interval_ns = 5000000;
static unsigned long loops = 100;
static int prio, cpu = -1, quiet;

static void die(const char *what)
{
	fprintf(stderr, "timer_loop: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(const char *msg)
{
	fprintf(stderr, "timer_loop: %s\n"
		"usage: timer_loop -k sleeper|timerfd|posix-signal|posix-thread|itimer\n"
		"                  [-i INTERVAL_US] [-l LOOPS] [-p FIFO_PRIO] [-a CPU] [-q]\n", msg);
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

static struct timeval tv_of(uint64_t ns)
{
	struct timeval t = { .tv_sec = (time_t)(ns / 1000000000ull),
			     .tv_usec = (suseconds_t)(ns % 1000000000ull / 1000) };
	return t;
}

static uint64_t lat_min = UINT64_MAX, lat_max, lat_sum, nlat, noverruns;

/*
 * The wakeups, printed after the loop: no output (a write to a slow file
 * can take longer than a period) between a wakeup and the next wait
 */
struct wakeup {
	uint64_t lat, expiry, skipped;
	int slept, sure;
};
static struct wakeup *wakeups;

/* the loop thread's voluntary context switches at the last look */
static long nvcsw_seen;

/*
 * Whether the thread slept since the last call: a wait that sleeps is a
 * voluntary switch; one that finds its expiry already past returns at
 * once. Called right before the loop (to start the count) and right
 * after each wait's clock read.
 */
static int slept_since_last(void)
{
	struct rusage ru;
	long before = nvcsw_seen;

	if (getrusage(RUSAGE_THREAD, &ru))
		die("getrusage");
	nvcsw_seen = ru.ru_nvcsw;
	return nvcsw_seen != before;
}

/*
 * one wakeup: loop k, the expiry it waited for, the clock read after it,
 * the periods skipped, whether the wait slept, whether the expiry is known
 */
static void report(unsigned long k, uint64_t expiry, uint64_t wake,
		   uint64_t skipped, int slept, int sure)
{
	uint64_t lat = wake > expiry ? wake - expiry : 0;

	if (wakeups)
		wakeups[k] = (struct wakeup){ lat, expiry, skipped, slept, sure };
	lat_min = lat < lat_min ? lat : lat_min;
	lat_max = lat > lat_max ? lat : lat_max;
	lat_sum += lat;
	nlat++;
	noverruns += skipped;
}

static void print_wakeups(void)
{
	unsigned long k;

	for (k = 0; wakeups && k < nlat; k++) {
		printf("0: %lu: %llu %llu", k,
		       (unsigned long long)wakeups[k].lat,
		       (unsigned long long)wakeups[k].expiry);
		if (wakeups[k].skipped)
			printf(" overrun %llu",
			       (unsigned long long)wakeups[k].skipped);
		printf("%s%s\n", wakeups[k].slept ? "" : " nosleep",
		       wakeups[k].sure ? "" : " unsure");
	}
}

/* the first expiry: two periods ahead, on a multiple of the period */
static uint64_t first_expiry(void)
{
	return (now_ns() / interval_ns + 2) * interval_ns;
}

/* the periods after expiry that have passed by wake */
static uint64_t passed(uint64_t expiry, uint64_t wake)
{
	return wake > expiry ? (wake - expiry) / interval_ns : 0;
}

static void loop_sleeper(void)
{
	uint64_t next = first_expiry(), wake, skip;
	struct timespec t;
	unsigned long k;
	int err, slept;

	slept_since_last();
	for (k = 0; k < loops; k++) {
		t = ts_of(next);
		do {
			err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		} while (err == EINTR);
		if (err) {
			errno = err;
			die("clock_nanosleep");
		}
		wake = now_ns();
		slept = slept_since_last();
		/* as cyclictest: sleep to the next period not yet past */
		skip = passed(next, wake);
		report(k, next, wake, skip, slept, 1);
		next += (skip + 1) * interval_ns;
	}
}

static void loop_timerfd(void)
{
	uint64_t next = first_expiry(), n, wake;
	struct itimerspec its = { .it_interval = ts_of(interval_ns),
				  .it_value = ts_of(next) };
	unsigned long k;
	ssize_t got;
	int slept;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

	if (fd < 0)
		die("timerfd_create");
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL))
		die("timerfd_settime");
	slept_since_last();
	for (k = 0; k < loops; k++) {
		do {
			got = read(fd, &n, sizeof(n));
		} while (got < 0 && errno == EINTR);
		if (got != (ssize_t)sizeof(n))
			die("read timerfd");
		wake = now_ns();
		slept = slept_since_last();
		/*
		 * The timer fired at next and woke us; read() rearmed it past
		 * now, counting the n - 1 periods it skipped (they never fired)
		 */
		report(k, next, wake, n - 1, slept, 1);
		next += n * interval_ns;
	}
	close(fd);
}

/* the itimer's first expiry: its grid is grid0 + N * interval_ns */
static uint64_t grid0;

/* the first point of the itimer's grid after t */
static uint64_t grid_after(uint64_t t)
{
	return t < grid0 ? grid0 : grid0 + ((t - grid0) / interval_ns + 1) * interval_ns;
}

/*
 * The itimer is rearmed when SIGALRM is dequeued (inside sigwaitinfo) to
 * the first point of its grid after that moment, and no count of the
 * periods skipped is kept. The expiry after the one consumed (next):
 * - queued and not yet due: the time left (getitimer, whole microseconds)
 *   read between two clock reads, to the nearest point of the grid; sure
 *   when those reads are less than half a period apart;
 * - fired again already (its signal pending), or due (1 us left): the
 *   dequeue came between next and wake, so the rearmed expiry is the first
 *   point after some moment of that span, and it has fired by the first
 *   clock read here: known when that leaves one point (and next was
 *   known); otherwise the earliest, so that the latency printed is still
 *   never below the true one, and *sure says no. (Under emulation a vCPU
 *   that stalls after the dequeue makes this happen.)
 * Read on the grid itself, not counted from next: an unsure expiry does
 * not shift the loops after it.
 */
static uint64_t itimer_next(uint64_t next, int next_sure, uint64_t wake,
			    int *sure)
{
	struct itimerval left;
	uint64_t before = now_ns(), after, rem, hi;

	if (getitimer(ITIMER_REAL, &left))
		die("getitimer");
	after = now_ns();
	rem = (uint64_t)left.it_value.tv_sec * 1000000000ull +
	      (uint64_t)left.it_value.tv_usec * 1000;
	if (rem > 1000) {
		*sure = after - before < interval_ns / 2;
		return grid_after(before + rem + interval_ns / 2) - interval_ns;
	}
	/* it fired by before: the last point at or before it at the latest */
	hi = grid_after(before) - interval_ns;
	if (grid_after(wake) < hi)
		hi = grid_after(wake);
	*sure = next_sure && grid_after(next) >= hi;
	return grid_after(next);
}

/*
 * POSIX timers and the itimer signal the process (posix-thread: the loop's
 * thread); the loop waits for the signal, blocked in every thread (the main
 * thread blocked it before the loop's thread was created), with
 * sigwaitinfo(). The kernel rearms the timer when its signal is dequeued.
 */
static void loop_signal(int sig, timer_t *timer)
{
	uint64_t next, wake, skip;
	siginfo_t si;
	sigset_t set;
	unsigned long k;
	/* sure: this loop's expiry is known (see itimer_next) */
	int over, slept, sure = 1, sure_after = 1;
	uint64_t after = 0;

	sigemptyset(&set);
	sigaddset(&set, sig);
	if (kind == K_ITIMER) {
		/*
		 * setitimer() is relative (and in microseconds) and tells no
		 * expiry: the kernel sets it to its own clock read inside the
		 * call plus the value. Counted here from a clock read just
		 * BEFORE the call, the expiry is never later than the real one
		 * (early by the time the call takes to read the clock), so the
		 * latency printed is never smaller than the true latency: a
		 * monitor that measures from the real expiry must never report
		 * more than this program does. A clock read before getitimer()
		 * plus the time left (rounded down to the microsecond) is such
		 * a lower bound too, often a closer one: the later of the two
		 * is taken. The interval is a whole number of microseconds
		 * (-i), so the kernel keeps this grid exactly when it rearms
		 * (hrtimer_forward by the interval).
		 */
		struct itimerval iv = {
			.it_interval = tv_of(interval_ns),
			.it_value = tv_of(interval_ns),
		}, left;
		uint64_t before, rem;

		next = now_ns() + interval_ns;
		if (setitimer(ITIMER_REAL, &iv, NULL))
			die("setitimer");
		before = now_ns();
		if (getitimer(ITIMER_REAL, &left))
			die("getitimer");
		rem = (uint64_t)left.it_value.tv_sec * 1000000000ull +
		      (uint64_t)left.it_value.tv_usec * 1000;
		/*
		 * 1 us left is what an expired timer whose interrupt has not
		 * run yet reports (a stalled vCPU): no bound, keep the first
		 */
		if (rem > 1000 && before + rem > next)
			next = before + rem;
		grid0 = next;
	} else {
		struct itimerspec its;

		next = first_expiry();
		its.it_interval = ts_of(interval_ns);
		its.it_value = ts_of(next);
		if (timer_settime(*timer, TIMER_ABSTIME, &its, NULL))
			die("timer_settime");
	}
	slept_since_last();
	for (k = 0; k < loops; k++) {
		while (sigwaitinfo(&set, &si) < 0)
			if (errno != EINTR)
				die("sigwaitinfo");
		wake = now_ns();
		slept = slept_since_last();
		if (kind == K_ITIMER) {
			after = itimer_next(next, sure, wake, &sure_after);
			/* (after an unsure expiry, after may be next) */
			skip = after > next ? (after - next) / interval_ns - 1 : 0;
		} else {
			/* the periods skipped when the dequeue rearmed it */
			over = timer_getoverrun(*timer);
			if (over < 0)
				die("timer_getoverrun");
			skip = (uint64_t)over;
		}
		report(k, next, wake, skip, slept, sure);
		if (kind == K_ITIMER) {
			next = after;
			sure = sure_after;
		} else
			next += (skip + 1) * interval_ns;
	}
	if (kind == K_ITIMER) {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };

		if (setitimer(ITIMER_REAL, &off, NULL))
			die("setitimer (off)");
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
		if (timer_delete(timer))
			die("timer_delete");
		break;
	case K_ITIMER:
		loop_signal(SIGALRM, NULL);
		break;
	case K_NONE:
		break;
	}
	return NULL;
}

static unsigned long number(const char *s, const char *what)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || s[0] == '-' || s[0] == '+' || s[0] == ' ') {
		fprintf(stderr, "timer_loop: %s: not a number: '%s'\n", what, s);
		usage("bad number");
	}
	return v;
}

int main(int argc, char **argv)
{
	pthread_t th;
	sigset_t set;
	unsigned long v;
	int c, k;

	while ((c = getopt(argc, argv, "k:i:l:p:a:qh")) != -1) {
		switch (c) {
		case 'k':
			kind = K_NONE;
			for (k = 0; k < K_NONE; k++)
				if (!strcmp(optarg, kind_names[k]))
					kind = (enum kind)k;
			if (kind == K_NONE) {
				fprintf(stderr, "timer_loop: unknown kind '%s'\n", optarg);
				usage("bad kind");
			}
			break;
		case 'i':
			v = number(optarg, "-i");
			if (!v || v > 10000000)
				usage("-i: the interval is 1 to 10000000 us");
			interval_ns = (uint64_t)v * 1000;
			break;
		case 'l':
			v = number(optarg, "-l");
			if (!v)
				usage("-l: at least 1 loop");
			loops = v;
			break;
		case 'p':
			v = number(optarg, "-p");
			if (v < 1 || v > 99)
				usage("-p: the SCHED_FIFO priority is 1 to 99");
			prio = (int)v;
			break;
		case 'a':
			v = number(optarg, "-a");
			if (v >= CPU_SETSIZE)
				usage("-a: no such CPU number");
			cpu = (int)v;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage("a periodic loop on one kind of timer, the latency of each wakeup");
			break;
		default:
			usage("bad option");
		}
	}
	if (kind == K_NONE)
		usage("-k KIND is required");
	if (optind < argc)
		usage("unexpected argument");
	if (!quiet) {
		wakeups = calloc(loops, sizeof(*wakeups));
		if (!wakeups)
			die("memory for the wakeups");
	}
	/* also faults the wakeups' memory in before the loop */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall");
	/* the timers' signals: blocked in every thread, taken by sigwaitinfo */
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigaddset(&set, SIGALRM);
	errno = pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (errno)
		die("pthread_sigmask");
	errno = pthread_create(&th, NULL, loop_thread, NULL);
	if (errno)
		die("pthread_create");
	errno = pthread_join(th, NULL);
	if (errno)
		die("pthread_join");
	print_wakeups();
	if (nlat)
		printf("# min %llu avg %llu max %llu overruns %llu\n",
		       (unsigned long long)lat_min,
		       (unsigned long long)(lat_sum / nlat),
		       (unsigned long long)lat_max, (unsigned long long)noverruns);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "timer_loop: writing the output failed\n");
		return 1;
	}
	return 0;
}

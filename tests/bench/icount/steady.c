// SPDX-License-Identifier: GPL-2.0
/*
 * steady: workloads for the icount bench whose path does not depend on
 * scheduling order, so that under -icount their guest time changes only by
 * the instructions a mode adds (tests/bench/icount/README.md).
 *
 *   steady pingpong ROUNDS
 *	two SCHED_FIFO processes of the same priority hand a byte back and
 *	forth through two pipes: per round two wakeups and two switches, in
 *	the same order every time (a woken task of the same priority never
 *	preempts). Prints "ns TOTAL" for the ROUNDS.
 *   steady timer LOOPS PERIOD_US
 *	a SCHED_FIFO task sleeps to absolute deadlines every PERIOD_US (the
 *	cyclictest loop) while a SCHED_IDLE soaker counts loop iterations:
 *	every instruction the wakeups take (interrupt, timer expiry, wakeup,
 *	two switches, the task's own loop) is taken from the soaker. Prints
 *	"ns TOTAL" for what the LOOPS took from it, and "latency_ns SUM" (the
 *	sum of wake-up times after each deadline).
 *   steady soak COMMAND [ARG...]
 *	the same soaker around any command (cyclictest): prints "ns TOTAL",
 *	what the command and everything it caused took from the soaker.
 *
 * Under -icount shift=0 a guest nanosecond is a guest instruction. The
 * soaker's rate is calibrated in the same boot, over a long sleep that
 * has the same periodic ticks as the measurement, so the ticks cancel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct soak {
	volatile unsigned long count;
};

static void die(const char *what)
{
	fprintf(stderr, "steady: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		die("sched_setscheduler SCHED_FIFO");
}

static unsigned long parse(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || !v) {
		fprintf(stderr, "steady: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static int pingpong(unsigned long rounds)
{
	int ab[2], ba[2], status;
	unsigned long i;
	long long t0, t1;
	pid_t pid;
	char c = 0;

	if (pipe(ab) || pipe(ba))
		die("pipe");
	set_fifo(50);
	prctl(PR_SET_NAME, "pingpong");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(ab[1]);	/* so that the parent's close ends the child */
		close(ba[0]);
		for (;;) {
			if (read(ab[0], &c, 1) != 1)
				_exit(0);
			if (write(ba[1], &c, 1) != 1)
				_exit(1);
		}
	}
	close(ab[0]);
	close(ba[1]);
	/* one round to fault everything in, then the measured ones */
	if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
		die("pipe warm-up");
	t0 = now_ns();
	for (i = 0; i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			die("pipe round");
	t1 = now_ns();
	close(ab[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("pingpong child");
	printf("ns %lld\n", t1 - t0);
	return 0;
}

/* the soaker: a SCHED_IDLE child counting as fast as it can */
static pid_t soak_start(struct soak **s)
{
	struct sched_param sp = { 0 };
	pid_t pid;

	*s = mmap(NULL, sizeof(**s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (*s == MAP_FAILED)
		die("mmap");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		prctl(PR_SET_NAME, "soaker");
		if (sched_setscheduler(0, SCHED_IDLE, &sp))
			die("sched_setscheduler SCHED_IDLE");
		for (;;)
			(*s)->count++;
	}
	return pid;
}

static void soak_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void sleep_until(long long t)
{
	struct timespec ts = { .tv_sec = t / 1000000000LL, .tv_nsec = t % 1000000000LL };
	int err;

	while ((err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
		;
	if (err) {
		errno = err;
		die("clock_nanosleep");
	}
}

/*
 * The soaker's nanoseconds per iteration, over a sleep of 200 ms: the
 * one wakeup at its end is 1e-5 of it.
 */
static double soak_rate(struct soak *s)
{
	long long t0, t1;
	unsigned long c0, c1;

	sleep_until(now_ns() + 10000000);	/* let the soaker start */
	t0 = now_ns();
	c0 = s->count;
	sleep_until(t0 + 200000000);
	c1 = s->count;
	t1 = now_ns();
	if (c1 == c0) {
		fprintf(stderr, "steady: the soaker did not run\n");
		exit(1);
	}
	return (double)(t1 - t0) / (double)(c1 - c0);
}

static int timer_loop(unsigned long loops, unsigned long period_us)
{
	long long t0, t1, next, lat = 0;
	unsigned long i, c0, c1;
	struct soak *s;
	double rate;
	pid_t pid;

	set_fifo(80);
	pid = soak_start(&s);
	rate = soak_rate(s);
	prctl(PR_SET_NAME, "tloop");
	next = now_ns() + 1000000;
	sleep_until(next);	/* the first wakeup faults the loop in */
	t0 = now_ns();
	c0 = s->count;
	for (i = 0; i < loops; i++) {
		next += period_us * 1000;
		sleep_until(next);
		lat += now_ns() - next;
	}
	c1 = s->count;
	t1 = now_ns();
	soak_stop(pid);
	printf("ns %.0f\nlatency_ns %lld\n", (double)(t1 - t0) - (double)(c1 - c0) * rate, lat);
	return 0;
}

static int soak_command(char **argv)
{
	long long t0, t1;
	unsigned long c0, c1;
	struct soak *s;
	int status;
	double rate;
	pid_t pid, cmd;

	set_fifo(90);	/* above the command, so that the count is read on time */
	pid = soak_start(&s);
	rate = soak_rate(s);
	t0 = now_ns();
	c0 = s->count;
	cmd = fork();
	if (cmd < 0)
		die("fork");
	if (!cmd) {
		struct sched_param sp = { 0 };

		sched_setscheduler(0, SCHED_OTHER, &sp);
		execvp(argv[0], argv);
		die(argv[0]);
	}
	if (waitpid(cmd, &status, 0) != cmd)
		die("waitpid");
	c1 = s->count;
	t1 = now_ns();
	soak_stop(pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "steady: %s failed\n", argv[0]);
		return 1;
	}
	printf("ns %.0f\n", (double)(t1 - t0) - (double)(c1 - c0) * rate);
	return 0;
}

int main(int argc, char **argv)
{
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall");
	if (argc == 3 && !strcmp(argv[1], "pingpong"))
		return pingpong(parse(argv[2], "ROUNDS"));
	if (argc == 4 && !strcmp(argv[1], "timer"))
		return timer_loop(parse(argv[2], "LOOPS"), parse(argv[3], "PERIOD_US"));
	if (argc >= 3 && !strcmp(argv[1], "soak"))
		return soak_command(argv + 2);
	fprintf(stderr, "usage: steady pingpong ROUNDS | timer LOOPS PERIOD_US | soak COMMAND [ARG...]\n");
	return 2;
}

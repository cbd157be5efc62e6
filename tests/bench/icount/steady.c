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
 *   steady pingpong-cpus ROUNDS
 *	one pingpong pair pinned to each online cpu, all started together
 *	(the cpu-scaling curve): with N vCPUs under -icount the guest clock
 *	counts the instructions of all of them, so the total is N pairs'
 *	work. Prints "ns TOTAL" from the start to the last pair's end.
 *   steady timer LOOPS PERIOD_US
 *	a SCHED_FIFO task sleeps to absolute deadlines every PERIOD_US (the
 *	cyclictest loop) while a SCHED_IDLE soaker counts loop iterations:
 *	every instruction the wakeups take (interrupt, timer expiry, wakeup,
 *	two switches, the task's own loop) is taken from the soaker. Prints
 *	"ns TOTAL" for what the LOOPS took from it, and "latency_ns SUM" (the
 *	sum of wake-up times after each deadline).
 *   steady gpio EDGES CHIP LINE PULL
 *	interrupts, one after the other: a SCHED_FIFO 40 consumer
 *	("gpioresp") waits for both edges of LINE of the simulated chip
 *	/dev/CHIP (GPIO v2 uAPI); a SCHED_FIFO 30 driver toggles the line
 *	through gpio-sim's PULL attribute, then waits for the consumer's byte
 *	on a pipe. Per edge: the write, the simulated interrupt (a hard
 *	irq_work: self-IPI, then the line's hard handler), its IRQ thread
 *	(FIFO 50) woken by the hard handler, the consumer woken by the thread
 *	once it blocks, the byte back. Prints "ns TOTAL" for the EDGES.
 *   steady seed
 *	credits the kernel's random pool with fixed bytes (RNDADDENTROPY):
 *	without RDRAND and with a clock that counts instructions, the pool
 *	is not ready for a long time, and the first reader of /dev/urandom
 *	(jansson's hash seed, in rtmond) spins in try_to_generate_entropy()
 *	in the middle of a measurement. A benchmark guest only: the bytes
 *	are the same every boot, as the runs must be.
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
#include <fcntl.h>
#include <linux/gpio.h>
#include <linux/random.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

static unsigned long parse_min(const char *s, const char *what, unsigned long min)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v < min) {
		fprintf(stderr, "steady: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static unsigned long parse(const char *s, const char *what)
{
	return parse_min(s, what, 1);
}

static void sleep_until(long long t);

/*
 * A pair's rounds: two processes, a byte through two pipes and back, after
 * one round to fault everything in; pinned to CPU (>= 0), a byte on READY
 * then started when GO is closed (both >= 0); the rounds are timed into T0
 * and T1 (when not NULL).
 */
static void pair_run(unsigned long rounds, int cpu, int ready, int go, long long *t0,
		     long long *t1)
{
	int ab[2], ba[2], status;
	unsigned long i;
	pid_t pid;
	char c = 0;

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
	}
	if (pipe(ab) || pipe(ba))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(ab[1]);
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
	if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
		die("pipe warm-up");
	/* the start: all pairs at once */
	if (go >= 0 && (write(ready, &c, 1) != 1 || read(go, &c, 1) != 0))
		die("start");
	if (t0)
		*t0 = now_ns();
	for (i = 0; i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			die("pipe round");
	if (t1)
		*t1 = now_ns();
	close(ab[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		die("pingpong child");
}

static int pingpong_cpus(unsigned long rounds)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN), i;
	int go[2], ready[2], status, bad = 0;
	long long t0, t1;
	pid_t pid;
	char c;

	if (n < 1 || pipe(go) || pipe(ready))
		die("cpus");
	set_fifo(60);	/* above the pairs: the start and the end are read on time */
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			close(go[1]);
			close(ready[0]);
			set_fifo(50);
			prctl(PR_SET_NAME, "pingpong");
			pair_run(rounds, (int)i, ready[1], go[0], NULL, NULL);
			_exit(0);
		}
	}
	close(go[0]);
	close(ready[1]);
	/*
	 * every pair faulted in and waiting at the start: told by a pipe, not
	 * a sleep, since with a timer target a sleeper's expiry starts a chain
	 * that the parent's close would hand to every pair, which would then
	 * carry it for the whole run (tests/bench/icount/README.md)
	 */
	for (i = 0; i < n; i++)
		if (read(ready[0], &c, 1) != 1)
			die("a pair did not start");
	t0 = now_ns();
	close(go[1]);
	while ((pid = wait(&status)) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	t1 = now_ns();
	if (bad) {
		fprintf(stderr, "steady: a pingpong pair failed\n");
		return 1;
	}
	printf("ns %lld\n", t1 - t0);
	return 0;
}

static int pingpong(unsigned long rounds)
{
	long long t0, t1;

	set_fifo(50);
	prctl(PR_SET_NAME, "pingpong");
	pair_run(rounds, -1, -1, -1, &t0, &t1);
	printf("ns %lld\n", t1 - t0);
	return 0;
}

static int seed(void)
{
	struct {
		struct rand_pool_info info;
		unsigned char bytes[64];
	} s;
	int fd = open("/dev/urandom", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		die("/dev/urandom");
	s.info.entropy_count = 8 * sizeof(s.bytes);
	s.info.buf_size = sizeof(s.bytes);
	for (unsigned int i = 0; i < sizeof(s.bytes); i++)
		s.bytes[i] = (unsigned char)(i * 151 + 7);
	if (ioctl(fd, RNDADDENTROPY, &s))
		die("RNDADDENTROPY");
	close(fd);
	return 0;
}

/* the consumer's side of "gpio": LINE's edges, a byte on ACK for each */
static void gpio_consume(const char *chip, unsigned long line, int ack)
{
	struct gpio_v2_line_request req = { 0 };
	struct gpio_v2_line_event ev;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", chip);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	req.offsets[0] = line;
	req.num_lines = 1;
	req.config.flags = GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING |
			   GPIO_V2_LINE_FLAG_EDGE_FALLING;
	/* the line's interrupt and its thread are named after the consumer */
	strcpy(req.consumer, "gpioresp");
	if (ioctl(fd, GPIO_V2_GET_LINE_IOCTL, &req))
		die("GPIO_V2_GET_LINE_IOCTL");
	close(fd);
	if (write(ack, "r", 1) != 1)	/* requested: the driver may start */
		die("gpio ready");
	for (;;) {
		ssize_t n = read(req.fd, &ev, sizeof(ev));

		if (n != sizeof(ev))
			die("gpio event read");
		if (write(ack, "e", 1) != 1)
			_exit(0);	/* the driver is done */
	}
}

/* one edge: the line to LEVEL, then the consumer's byte */
static void gpio_edge(int pull, const char *level, int ack)
{
	char c;

	if (pwrite(pull, level, strlen(level), 0) < 0)
		die("gpio pull");
	if (read(ack, &c, 1) != 1)
		die("gpio edge not seen");
}

static int gpio_edges(unsigned long edges, const char *chip, unsigned long line, const char *pull)
{
	static const char *const level[2] = { "pull-up", "pull-down" };
	int ack[2], fd, status;
	unsigned long i;
	long long t0, t1;
	pid_t pid;
	char c;

	if (pipe(ack))
		die("pipe");
	fd = open(pull, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die(pull);
	if (pwrite(fd, level[1], strlen(level[1]), 0) < 0)	/* from low */
		die("gpio pull-down");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(ack[0]);
		prctl(PR_SET_NAME, "gpioresp");
		set_fifo(40);
		gpio_consume(chip, line, ack[1]);
	}
	close(ack[1]);
	set_fifo(30);
	prctl(PR_SET_NAME, "gpiodrv");
	if (read(ack[0], &c, 1) != 1)
		die("gpio consumer did not start");
	/* one edge up and one down to fault everything in, then the measured */
	for (i = 0; i < 2; i++)
		gpio_edge(fd, level[i & 1], ack[0]);
	t0 = now_ns();
	for (i = 0; i < edges; i++)
		gpio_edge(fd, level[i & 1], ack[0]);
	t1 = now_ns();
	close(ack[0]);
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		die("gpio consumer");
	close(fd);
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
		/*
		 * gone with its parent, whatever way it ends: an orphaned
		 * soaker would keep the output pipe of the init's $(...) open
		 */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
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
	if (argc == 3 && !strcmp(argv[1], "pingpong-cpus"))
		return pingpong_cpus(parse(argv[2], "ROUNDS"));
	if (argc == 4 && !strcmp(argv[1], "timer"))
		return timer_loop(parse(argv[2], "LOOPS"), parse(argv[3], "PERIOD_US"));
	if (argc == 6 && !strcmp(argv[1], "gpio"))
		return gpio_edges(parse(argv[2], "EDGES"), argv[3], parse_min(argv[4], "LINE", 0), argv[5]);
	if (argc == 2 && !strcmp(argv[1], "seed"))
		return seed();
	if (argc >= 3 && !strcmp(argv[1], "soak"))
		return soak_command(argv + 2);
	fprintf(stderr, "usage: steady pingpong ROUNDS | pingpong-cpus ROUNDS | timer LOOPS PERIOD_US |\n"
		"              gpio EDGES CHIP LINE PULL | seed | soak COMMAND [ARG...]\n");
	return 2;
}

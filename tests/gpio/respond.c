// SPDX-License-Identifier: GPL-2.0
/*
 * rtmon-gpio-respond - the device side of a GPIO loopback test.
 *
 * Waits for edges (both) on an input line; for each edge: marks
 * rtmon_work_begin(seq), works (spins) for --work-us, marks
 * rtmon_work_end(seq) and toggles the response line. seq is the edge's
 * number, from 1 (libgpiod 1.6 has no kernel sequence number: counted
 * here). rtmon follows each chain IRQ -> IRQ thread(s) -> this program and
 * ends it at the work_end marker with the cookie seq, so rtmon's record of
 * an edge carries the edge's number.
 *
 * With --log FILE it writes one JSON line per edge when it exits (never
 * while it runs: no I/O on the real-time path), for rtmon-gpio-loop to
 * join with its own stimulus times and with rtmon's records:
 *   {"seq":1,"rising":true,"edge_ns":...,"wake_ns":...,"begin_ns":...,
 *    "end_ns":...,"end_after_ns":...,"resp_ns":...,"work_ns":...,
 *    "provoked":false,"cpu":1}
 * edge_ns is the kernel's timestamp of the input edge (gpiolib-cdev,
 * CLOCK_MONOTONIC); wake_ns when the read returned here; begin_ns right
 * before rtmon_work_begin; end_ns/end_after_ns right before and after
 * rtmon_work_end (rtmon's record ends between the two); resp_ns right
 * after the response line was set. All CLOCK_MONOTONIC ns.
 *
 * The log is written to FILE.tmp and renamed, so a reader that sees FILE
 * sees all of it. The program exits after --count edges, or on SIGINT or
 * SIGTERM (status 0 either way; the log is written in both cases).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtmon/rtmon.h"
#include "gpio_common.h"
#include "gpio_line.h"

static const char *prog = "rtmon-gpio-respond";

struct edge {
	uint64_t seq, kseq;
	uint64_t edge_ns, wake_ns, begin_ns, end_ns, end_after_ns, resp_ns;
	uint64_t work_ns;
	int rising, provoked, cpu;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s [--board FILE | --chip CHIP --in LINE --out LINE] [options]\n"
"  --board FILE       chip and lines from a board file (BOARD_GPIO_CHIP,\n"
"                     input BOARD_GPIO_STIM_IN, output BOARD_GPIO_RESP_OUT)\n"
"  --chip CHIP        gpiochipN, N, /dev/gpiochipN or the chip's label\n"
"  --in LINE          input line (offset or name): edges to answer\n"
"  --out LINE         response line (offset or name), toggled per edge\n"
"  --consumer NAME    consumer label of the input line, also its IRQ's name\n"
"                     in /proc/interrupts (default rtmon-respond)\n"
"  --work-us N        busy work per edge, CLOCK_MONOTONIC (default 50)\n"
"  --prio P           SCHED_FIFO priority, 0 = leave the policy (default 40:\n"
"                     below the input line's IRQ thread, 50 by default)\n"
"  --cpu C            run on cpu C (default: any)\n"
"  --count N          exit after N edges (default 0: until SIGINT/SIGTERM)\n"
"  --miss-every K     every K-th edge works --miss-us longer (provoke a miss)\n"
"  --miss-us M        extra work on those edges (default 20000)\n"
"  --ready-file FILE  written (JSON: pid, comm, chip, lines, consumer, irq)\n"
"                     once the lines are requested\n"
"  --log FILE         per-edge JSON lines, written at exit\n"
"  --quiet            no summary on stderr\n"
"Exit status: 0 done, 1 runtime error, 2 bad options.\n", prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' },
		{ "chip", required_argument, NULL, 'c' },
		{ "in", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'o' },
		{ "consumer", required_argument, NULL, 'C' },
		{ "work-us", required_argument, NULL, 'w' },
		{ "prio", required_argument, NULL, 'p' },
		{ "cpu", required_argument, NULL, 'u' },
		{ "count", required_argument, NULL, 'n' },
		{ "miss-every", required_argument, NULL, 'k' },
		{ "miss-us", required_argument, NULL, 'm' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "log", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *chip_s = NULL, *in_s = NULL, *out_s = NULL;
	const char *consumer = "rtmon-respond", *ready = NULL, *logf = NULL;
	uint64_t work_us = 50, count = 0, miss_every = 0, miss_us = 20000;
	uint64_t seq = 0, nlog = 0, cap = 0, dropped = 0, provoked = 0;
	int prio = 40, cpu = -1, quiet = 0, opt, level = 0, ret = EXIT_OK;
	unsigned int in_off, out_off;
	struct gl_line *in = NULL, *out = NULL;
	struct gpio_board board;
	struct gl_chip *chip;
	struct edge *log = NULL;
	struct sigaction sa;
	char err[GL_ERRLEN], comm[32] = "", buf[1024];
	FILE *f;
	int irq;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			board_read(prog, optarg, &board);
			chip_s = strdup(board.chip);
			in_s = strdup(board.stim_in);
			out_s = strdup(board.resp_out);
			break;
		case 'c': chip_s = optarg; break;
		case 'i': in_s = optarg; break;
		case 'o': out_s = optarg; break;
		case 'C':
			if (!*optarg || strlen(optarg) >= RTMON_NAME_LEN) {
				fprintf(stderr, "%s: --consumer: 1 to %d characters\n",
					prog, RTMON_NAME_LEN - 1);
				return EXIT_USAGE;
			}
			consumer = optarg;
			break;
		case 'w': work_us = opt_u64(prog, "--work-us", optarg, 0, 10000000); break;
		case 'p': prio = (int)opt_u64(prog, "--prio", optarg, 0, 99); break;
		case 'u': cpu = (int)opt_u64(prog, "--cpu", optarg, 0, CPU_SETSIZE - 1); break;
		case 'n': count = opt_u64(prog, "--count", optarg, 0, 100000000); break;
		case 'k': miss_every = opt_u64(prog, "--miss-every", optarg, 1, UINT32_MAX); break;
		case 'm': miss_us = opt_u64(prog, "--miss-us", optarg, 0, 10000000); break;
		case 'r': ready = optarg; break;
		case 'l': logf = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!chip_s || !in_s || !out_s) {
		fprintf(stderr, "%s: give --board FILE, or --chip, --in and --out\n", prog);
		usage(stderr);
		return EXIT_USAGE;
	}

	chip = gl_chip_open(chip_s, err, sizeof(err));
	if (!chip) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	if (gl_line_lookup(chip, in_s, &in_off, err, sizeof(err)) ||
	    gl_line_lookup(chip, out_s, &out_off, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return EXIT_USAGE;
	}
	if (in_off == out_off) {
		fprintf(stderr, "%s: --in and --out are the same line (%u)\n",
			prog, in_off);
		return EXIT_USAGE;
	}

	if (logf) {
		cap = count ? count : 100000;
		log = calloc(cap, sizeof(*log));
		if (!log) {
			fprintf(stderr, "%s: no memory for %" PRIu64 " log entries\n",
				prog, cap);
			return EXIT_FAIL;
		}
	}
	if (rt_setup(prog, prio, cpu))
		return EXIT_FAIL;
	/* open /dev/rtmon now, not on the first edge (absent module: fine) */
	rtmon_init();

	out = gl_request_output(chip, out_off, consumer, 0, err, sizeof(err));
	if (out)
		in = gl_request_edges(chip, in_off, consumer, err, sizeof(err));
	if (!out || !in) {
		fprintf(stderr, "%s: %s\n", prog, err);
		gl_release(out);
		return EXIT_FAIL;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: interrupt the read */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	irq = irq_by_name(consumer);
	if (ready) {
		snprintf(buf, sizeof(buf),
			 "{\"pid\": %d, \"comm\": \"%s\", \"chip\": \"%s\", \"label\": \"%s\", \"in\": %u, \"out\": %u, \"consumer\": \"%s\", \"irq\": %d, \"work_us\": %" PRIu64 ", \"prio\": %d, \"cpu\": %d}\n",
			 getpid(), comm, gl_chip_name(chip), gl_chip_label(chip),
			 in_off, out_off, consumer, irq, work_us, prio, cpu);
		if (write_file_atomic(ready, buf)) {
			fprintf(stderr, "%s: --ready-file %s: %s\n", prog, ready,
				strerror(errno));
			ret = EXIT_FAIL;
			goto out;
		}
	}
	if (!quiet)
		fprintf(stderr, "%s: answering edges on %s line %u with line %u (irq %d \"%s\"), work %" PRIu64 " us\n",
			prog, gl_chip_name(chip), in_off, out_off, irq, consumer,
			work_us);

	while (!stop && (!count || seq < count)) {
		struct gl_event ev;
		struct edge e;
		uint64_t work;

		if (gl_event_read(in, &ev)) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "%s: reading events: %s\n", prog,
				strerror(errno));
			ret = EXIT_FAIL;
			break;
		}
		e.wake_ns = now_ns();
		seq++;
		e.seq = seq;
		e.kseq = ev.seqno;
		e.edge_ns = ev.ts_ns;
		e.rising = ev.rising;
		e.provoked = miss_every && seq % miss_every == 0;
		work = work_us * 1000;
		if (e.provoked) {
			work += miss_us * 1000;
			provoked++;
		}
		e.work_ns = work;
		e.begin_ns = now_ns();
		rtmon_work_begin(seq);
		spin_until(e.begin_ns + work);
		e.end_ns = now_ns();
		rtmon_work_end(seq);
		e.end_after_ns = now_ns();
		level ^= 1;
		if (gl_set(out, level)) {
			fprintf(stderr, "%s: setting line %u: %s\n", prog,
				out_off, strerror(errno));
			ret = EXIT_FAIL;
			break;
		}
		e.resp_ns = now_ns();
		e.cpu = sched_getcpu();
		if (log) {
			if (nlog < cap)
				log[nlog++] = e;
			else
				dropped++;
		}
	}

	if (logf) {
		char tmp[4096];
		uint64_t i;

		snprintf(tmp, sizeof(tmp), "%s.tmp", logf);
		f = fopen(tmp, "w");
		if (!f) {
			fprintf(stderr, "%s: --log %s: %s\n", prog, tmp, strerror(errno));
			ret = EXIT_FAIL;
			goto out;
		}
		for (i = 0; i < nlog; i++) {
			const struct edge *e = &log[i];

			fprintf(f, "{\"seq\": %" PRIu64 ", \"kseq\": %" PRIu64
				", \"rising\": %s, \"edge_ns\": %" PRIu64
				", \"wake_ns\": %" PRIu64 ", \"begin_ns\": %" PRIu64
				", \"end_ns\": %" PRIu64 ", \"end_after_ns\": %" PRIu64
				", \"resp_ns\": %" PRIu64 ", \"work_ns\": %" PRIu64
				", \"provoked\": %s, \"cpu\": %d}\n",
				e->seq, e->kseq, e->rising ? "true" : "false",
				e->edge_ns, e->wake_ns, e->begin_ns, e->end_ns,
				e->end_after_ns, e->resp_ns, e->work_ns,
				e->provoked ? "true" : "false", e->cpu);
		}
		if (fclose(f) || rename(tmp, logf)) {
			fprintf(stderr, "%s: --log %s: %s\n", prog, logf, strerror(errno));
			ret = EXIT_FAIL;
		}
		if (dropped)
			fprintf(stderr, "%s: log full: the last %" PRIu64 " edges are not in %s\n",
				prog, dropped, logf);
	}
	if (!quiet)
		fprintf(stderr, "%s: %" PRIu64 " edges answered, %" PRIu64 " with provoked extra work\n",
			prog, seq, provoked);
out:
	gl_release(in);
	gl_release(out);
	gl_chip_close(chip);
	free(log);
	return ret;
}

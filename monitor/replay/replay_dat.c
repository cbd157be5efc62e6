// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * replay_dat.c - trace-cmd .dat files, read with libtracecmd (the
 * library trace-cmd itself reads them with) and libtraceevent (event
 * formats, fields by name): every record of the top-level buffer, in
 * time order across cpus, parsed into a struct rx_kev from the fields
 * the recording's own event formats describe, and replayed by
 * replay_kev.c exactly as the text of `trace-cmd report` would be. The
 * recording's cpu count and trace clock come from its headers: on the
 * mono clock (trace-cmd record -C mono) a timer chain starts at the
 * timer's programmed expiry, as in the module.
 *
 * Bad input (a file libtracecmd cannot open: cut or corrupt headers, cpu
 * data that does not fit in the file; an event
 * format without a field the replay needs, a record shorter than its
 * format, timestamps going backwards) is an input error naming the
 * file, cpu and record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "rtm_core.h"
#include "replay.h"

/*
 * Exported by libtracecmd.so.1 (trace-cmd 3.1's library: Debian 12's
 * libtracecmd1), declared only in trace-cmd's private header there.
 */
int tracecmd_cpus(struct tracecmd_input *handle);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
struct tep_record *tracecmd_read_next_data(struct tracecmd_input *handle,
					   int *rec_cpu);
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle,
					  int cpu);

/* the kernel's trace flags (common_flags), as the text's flags column */
#define TF_HARDIRQ	0x08
#define TF_SOFTIRQ	0x10
#define TF_NMI		0x40

#define NFIELD		7
#define MAX_EVENT_ID	65536

/* what the replay makes of one event format, found at its first record */
struct dat_ev {
	enum rx_kev_type type;
	struct tep_event *event;
	struct tep_format_field *f[NFIELD];	/* by event type, below */
};

static struct tracecmd_input *handle;
static struct tep_handle *tep;
static struct dat_ev **evs;
static int cur_cpu = -1;
static unsigned long long nrec, cur_rec, lost;
static __u64 cur_ts;

static void where_dat(FILE *f)
{
	if (cur_cpu < 0)
		fprintf(f, "%s: ", fname);
	else
		fprintf(f, "%s: cpu %d record %llu (ts %llu.%09llu): ", fname,
			cur_cpu, cur_rec, (unsigned long long)(cur_ts / 1000000000ull),
			(unsigned long long)(cur_ts % 1000000000ull));
}

/* a task's kernel priority as the core takes it */
static __u32 prio(unsigned long long v)
{
	return v < RTM_PRIO_UNKNOWN ? (__u32)v : RTM_PRIO_UNKNOWN;
}

static struct tep_format_field *need(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = tep_find_field(ev, name);

	if (!f)
		input_error("unknown event format: %s:%s has no field '%s'",
			    ev->system, ev->name, name);
	if (f->size <= 0 || f->offset < 0)
		input_error("bad event format: %s:%s field '%s' (offset %d size %d)",
			    ev->system, ev->name, name, f->offset, f->size);
	return f;
}

/* the replay's use of an event format: its type and fields */
static struct dat_ev *dat_event(struct tep_record *rec)
{
	struct tep_event *ev = tep_find_event_by_record(tep, rec);
	struct dat_ev *d;
	int id;

	if (!ev)
		input_error("record of an event id the file does not describe (corrupt data?)");
	id = ev->id;
	if (id < 0 || id >= MAX_EVENT_ID)
		input_error("event id %d out of range", id);
	if (evs[id])
		return evs[id];
	d = calloc(1, sizeof(*d));
	if (!d) {
		perror("rtmon-replay");
		exit(2);
	}
	d->event = ev;
	d->type = RX_KEV_OTHER;
	if (!strcmp(ev->system, "irq")) {
		if (!strcmp(ev->name, "irq_handler_entry")) {
			d->type = RX_KEV_IRQ_ENTRY;
			d->f[0] = need(ev, "irq");
		} else if (!strcmp(ev->name, "irq_handler_exit")) {
			d->type = RX_KEV_IRQ_EXIT;
			d->f[0] = need(ev, "irq");
			d->f[1] = need(ev, "ret");
		} else if (!strcmp(ev->name, "softirq_raise")) {
			d->type = RX_KEV_SOFTIRQ_RAISE;
		} else if (!strcmp(ev->name, "softirq_entry")) {
			d->type = RX_KEV_SOFTIRQ_ENTRY;
		} else if (!strcmp(ev->name, "softirq_exit")) {
			d->type = RX_KEV_SOFTIRQ_EXIT;
		}
		if (d->type >= RX_KEV_SOFTIRQ_RAISE)
			d->f[0] = need(ev, "vec");
	} else if (!strcmp(ev->system, "lock") &&
		   !strcmp(ev->name, "contention_begin")) {
		d->type = RX_KEV_LOCK_BEGIN;
		d->f[0] = need(ev, "flags");
	} else if (!strcmp(ev->system, "lock") &&
		   !strcmp(ev->name, "contention_end")) {
		d->type = RX_KEV_LOCK_END;
	} else if (!strcmp(ev->system, "timer")) {
		if (!strcmp(ev->name, "hrtimer_start")) {
			/* as the text: only with the timer and its expiry */
			d->f[0] = tep_find_field(ev, "hrtimer");
			d->f[1] = tep_find_field(ev, "softexpires");
			if (!d->f[1])
				d->f[1] = tep_find_field(ev, "expires");
			if (d->f[0] && d->f[1])
				d->type = RX_KEV_HRTIMER_START;
		} else if (!strcmp(ev->name, "hrtimer_expire_entry")) {
			d->type = RX_KEV_HRTIMER_ENTRY;
			d->f[0] = need(ev, "hrtimer");
			d->f[1] = need(ev, "now");
			d->f[2] = tep_find_field(ev, "function");
		} else if (!strcmp(ev->name, "hrtimer_expire_exit")) {
			d->type = RX_KEV_HRTIMER_EXIT;
			d->f[0] = need(ev, "hrtimer");
		}
	} else if (!strcmp(ev->system, "sched")) {
		if (!strcmp(ev->name, "sched_waking")) {
			d->type = RX_KEV_WAKING;
			d->f[0] = need(ev, "pid");
			d->f[1] = need(ev, "comm");
		} else if (!strcmp(ev->name, "sched_switch")) {
			d->type = RX_KEV_SWITCH;
			d->f[0] = need(ev, "prev_pid");
			d->f[1] = need(ev, "prev_state");
			d->f[2] = need(ev, "next_pid");
			d->f[3] = need(ev, "next_comm");
			/* who ran around the switch, for the blame: optional */
			d->f[4] = tep_find_field(ev, "prev_comm");
			d->f[5] = tep_find_field(ev, "prev_prio");
			d->f[6] = tep_find_field(ev, "next_prio");
		}
	} else if (!strcmp(ev->system, "rtmon")) {
		if (!strcmp(ev->name, "rtmon_work")) {
			d->type = RX_KEV_WORK_BEGIN;	/* or end: the begin field */
			d->f[0] = need(ev, "cookie");
			d->f[1] = need(ev, "begin");
		}
	} else if (!strcmp(ev->system, "workqueue")) {
		if (!strcmp(ev->name, "workqueue_queue_work"))
			d->type = RX_KEV_KWORK_QUEUE;
		else if (!strcmp(ev->name, "workqueue_execute_start"))
			d->type = RX_KEV_KWORK_START;
		else if (!strcmp(ev->name, "workqueue_execute_end"))
			d->type = RX_KEV_KWORK_END;
		if (d->type != RX_KEV_OTHER)
			d->f[0] = need(ev, "work");
	}
	evs[id] = d;
	return d;
}

static __u64 num(struct tep_record *rec, struct tep_format_field *f)
{
	unsigned long long v;

	if (f->offset + f->size > rec->size)
		input_error("record of %d bytes too short for %s:%s field '%s' (offset %d size %d)",
			    rec->size, f->event->system, f->event->name, f->name,
			    f->offset, f->size);
	if (tep_read_number_field(f, rec->data, &v))
		input_error("%s:%s field '%s' is not a number",
			    f->event->system, f->event->name, f->name);
	return v;
}

static void str(struct tep_record *rec, struct tep_format_field *f, char *dst)
{
	int n = f->size < RTM_COMM_LEN - 1 ? f->size : RTM_COMM_LEN - 1;

	if (f->offset + f->size > rec->size)
		input_error("record of %d bytes too short for %s:%s field '%s'",
			    rec->size, f->event->system, f->event->name, f->name);
	memset(dst, 0, RTM_COMM_LEN);
	strncpy(dst, (const char *)rec->data + f->offset, (size_t)n);
}

/* the hardirq/softirq context, as the text's flags column shows it */
static char dat_flag(struct tep_event *ev, struct tep_record *rec)
{
	int fl;

	if (!tep_find_common_field(ev, "common_flags"))
		return 0;	/* no flags: inferred from the sequence */
	fl = tep_data_flags(tep, rec);
	if (fl & (TF_HARDIRQ | TF_NMI))
		return 'h';
	if (fl & TF_SOFTIRQ)
		return 's';
	return '.';
}

/* replay one record; its event (for --explain's line) */
static struct tep_event *dat_record(struct tep_record *rec)
{
	struct dat_ev *d;
	struct rx_kev e;
	const char *fn;
	__u64 v;

	if (rec->size <= 0 || !rec->data)
		input_error("empty record (corrupt data?)");
	d = dat_event(rec);
	memset(&e, 0, sizeof(e));
	e.type = d->type;
	e.cpu = (__u32)rec->cpu;
	e.ts = rec->ts;
	e.flag = dat_flag(d->event, rec);
	e.pid = (__u32)tep_data_pid(tep, rec);
	switch (d->type) {
	case RX_KEV_OTHER:
		break;
	case RX_KEV_IRQ_ENTRY:
		e.irq = (__u32)num(rec, d->f[0]);
		break;
	case RX_KEV_IRQ_EXIT:
		e.irq = (__u32)num(rec, d->f[0]);
		/* the text's ret=handled|unhandled is ret != 0 */
		e.handled = num(rec, d->f[1]) != 0;
		break;
	case RX_KEV_SOFTIRQ_RAISE:
	case RX_KEV_SOFTIRQ_ENTRY:
	case RX_KEV_SOFTIRQ_EXIT:
		v = num(rec, d->f[0]);
		if (v >= RTM_NR_SOFTIRQ)
			input_error("%s with softirq vector %llu", d->event->name,
				    (unsigned long long)v);
		e.vec = (__u32)v;
		break;
	case RX_KEV_HRTIMER_START:
		e.timer = num(rec, d->f[0]);
		e.expires = num(rec, d->f[1]);
		break;
	case RX_KEV_HRTIMER_ENTRY:
		e.timer = num(rec, d->f[0]);
		e.now = num(rec, d->f[1]);
		fn = d->f[2] ? tep_find_function(tep, num(rec, d->f[2])) : NULL;
		e.timer_kind = timer_kind_of_fn(fn);
		break;
	case RX_KEV_HRTIMER_EXIT:
		e.timer = num(rec, d->f[0]);
		break;
	case RX_KEV_WAKING:
		e.next = (__u32)num(rec, d->f[0]);
		str(rec, d->f[1], e.next_comm);
		break;
	case RX_KEV_SWITCH:
		e.prev = (__u32)num(rec, d->f[0]);
		/*
		 * R (0) or R+ (preempted: TASK_REPORT_MAX, 0x100): still
		 * runnable; any state bit below it: blocked (as the text),
		 * D (0x2) or I (TASK_REPORT_IDLE, 0x80): blocked in D
		 */
		v = num(rec, d->f[1]) & 0xff;
		e.prev_state = !v ? 0 : v & 0x82 ? RTM_SWITCH_BLOCKED_D : 1;
		e.next = (__u32)num(rec, d->f[2]);
		str(rec, d->f[3], e.next_comm);
		if (d->f[4])
			str(rec, d->f[4], e.prev_comm);
		e.prev_prio = d->f[5] ? prio(num(rec, d->f[5])) : RTM_PRIO_UNKNOWN;
		e.next_prio = d->f[6] ? prio(num(rec, d->f[6])) : RTM_PRIO_UNKNOWN;
		break;
	case RX_KEV_LOCK_BEGIN:
		e.lock_rt = num(rec, d->f[0]) & 8;	/* LCB_F_RT */
		break;
	case RX_KEV_LOCK_END:
		break;
	case RX_KEV_KWORK_START:
		comm_copy(e.comm, tep_data_comm_from_pid(tep, (int)e.pid));
		/* fall through */
	case RX_KEV_KWORK_QUEUE:
	case RX_KEV_KWORK_END:
		e.cookie = num(rec, d->f[0]);
		break;
	case RX_KEV_WORK_BEGIN:
	case RX_KEV_WORK_END:
		e.cookie = num(rec, d->f[0]);
		if (d->f[1] && !num(rec, d->f[1]))
			e.type = RX_KEV_WORK_END;	/* rtmon_work end */
		if (e.type == RX_KEV_WORK_BEGIN || d->f[1]) {
			comm_copy(e.comm, tep_data_comm_from_pid(tep, (int)e.pid));
			e.work_comm = true;
		}
		break;
	}
	rx_kevent(&e);
	return d->event;
}

/*
 * --explain: the event as the text line the snapshot reader of
 * monitor/explain reads ("comm-pid [cpu] secs.nsecs: event: fields", the
 * fields printed by libtraceevent from the event's recorded print
 * format), so a .dat is explained by the same code as its report text.
 */
static void dat_keep_line(struct tep_record *rec, struct tep_event *ev)
{
	static struct trace_seq s;
	static bool ready;
	int pid = tep_data_pid(tep, rec);
	const char *comm = tep_data_comm_from_pid(tep, pid);

	if (!ready) {
		trace_seq_init(&s);
		ready = true;
	}
	trace_seq_reset(&s);
	trace_seq_printf(&s, "%s-%d [%03d] %llu.%09llu: %s: ", comm ? comm : "<...>",
			 pid, rec->cpu, rec->ts / 1000000000ull,
			 rec->ts % 1000000000ull, ev->name);
	tep_print_event(tep, &s, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	if (s.state != TRACE_SEQ__GOOD)
		input_error("out of memory printing the event");
	rx_keep_line(s.buffer);
}

static void dat_open(const char *path)
{
	const char *clk, *b;
	int ncpus, fd = -1;

	if (path) {
		handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	} else {
		/* stdin: libtracecmd seeks, so only a file will do */
		if (lseek(0, 0, SEEK_SET) != 0)
			input_error("a .dat on stdin must be a file, not a pipe: give its name");
		fd = dup(0);
		handle = fd < 0 ? NULL :
			 tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS);
	}
	if (!handle) {
		char why[256];

		/* libtracecmd says why on stdout: "File possibly truncated..." */
		spool_text(why, sizeof(why));
		input_error("not a trace-cmd .dat file libtracecmd can read: %s",
			    why[0] ? why : "truncated or corrupt headers?");
	}
	tep = tracecmd_get_tep(handle);
	ncpus = tracecmd_cpus(handle);
	if (!tep || ncpus <= 0)
		input_error("no cpu data in this .dat file");
	if (ncpus > NCPU_FT)
		input_error("the recording has %d cpus, at most %d are supported",
			    ncpus, NCPU_FT);
	if (!params_set) {
		rtm_params_default(&params, (__u32)ncpus);
		params_set = true;
	}
	/* "mono", or the trace_clock file's "local [mono] ..." form */
	clk = tracecmd_get_trace_clock(handle);
	if (clk && (b = strchr(clk, '[')))
		clk = b + 1;
	rx_trace_clock = clk && !strncmp(clk, "mono", 4) &&
			 (!clk[4] || clk[4] == ']' || clk[4] == ' ') ?
			 RX_CLOCK_MONO : RX_CLOCK_OTHER;
	fprintf(stderr, "rtmon-replay: %s: %d cpus, trace clock %.*s: timer chains start %s\n",
		fname, ncpus, clk ? (int)strcspn(clk, "] ") : 5, clk ? clk : "local",
		rx_trace_clock == RX_CLOCK_MONO ? "at the programmed expiry" :
		"at the expiry as far before the event as it was before the handler's clock read");
}

/* little-endian numbers of a file (x86, ARM) */
static __u64 le(const unsigned char *p, int n)
{
	__u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/*
 * The section at off (its 16-byte header, then size bytes) must lie
 * within the file's fsize bytes. off and size are the file's own 64-bit
 * numbers: compared by differences, never summed, so a crafted one
 * cannot wrap past the end into range.
 */
static void dat_fits(FILE *f, __u64 off, __u64 size, bool have_size, __u64 fsize)
{
	if (off <= fsize && fsize - off >= 16 && (!have_size || size <= fsize - off - 16))
		return;
	fclose(f);
	if (!have_size)
		input_error("a section header at byte %llu runs past the end of the file "
			    "(%llu bytes): truncated", (unsigned long long)off,
			    (unsigned long long)fsize);
	input_error("the section at byte %llu (%llu bytes) runs past the end of the file "
		    "(%llu bytes): truncated, or a corrupt section size",
		    (unsigned long long)off, (unsigned long long)size,
		    (unsigned long long)fsize);
}

/*
 * A version 7 file ends with sections libtracecmd reads lazily or not at
 * all (the last options, the section names): a cut there goes unnoticed
 * by it. Walk the chain of options sections (uncompressed ones) from the
 * header, then the sections after the last one to the end of the file:
 * a section running past the end is a truncated or corrupt file. Every
 * step moves forward by at least a section header, so the walk ends.
 * Anything this walk does not understand ends it without a verdict.
 */
static void dat_check_tail(const char *path)
{
	unsigned char h[64], s[16], o[6];
	__u64 off, size = 0, end = 0, pos, fsize;
	FILE *f = path ? fopen(path, "rb") : NULL;
	size_t n, i = 10;
	long at;
	int hops;

	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) || (at = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	fsize = (__u64)at;
	n = fread(h, 1, sizeof(h), f);
	/* magic, "7", endian (0: little), long size, page size, compression */
	if (n < 20 || h[10] != '7' || h[11] || h[12])
		goto out;
	for (i = 18; i < n && h[i]; i++)	/* compression name */
		;
	for (i++; i < n && h[i]; i++)		/* its version */
		;
	if (++i + 8 > n)
		goto out;
	off = le(h + i, 8);
	for (hops = 0; off && hops < 64; hops++) {
		dat_fits(f, off, 0, false, fsize);
		if (fseek(f, (long)off, SEEK_SET) || fread(s, 1, 16, f) != 16)
			goto out;
		size = le(s + 8, 8);
		dat_fits(f, off, size, true, fsize);
		if (off + 16 + size > end)
			end = off + 16 + size;
		if (le(s + 2, 2) & TRACECMD_SEC_FL_COMPRESS)
			break;
		/* options (id, size, data), the last one DONE: the next section */
		for (pos = off + 16, off = 0; pos + 6 <= end; pos += 6 + le(o + 2, 4)) {
			if (fseek(f, (long)pos, SEEK_SET) || fread(o, 1, 6, f) != 6)
				goto out;
			if (!le(o, 2)) {
				if (fread(s, 1, 8, f) != 8)
					goto out;
				off = le(s, 8);
				break;
			}
		}
	}
	/* the sections after the last options section, to the end */
	for (pos = end; pos && pos < fsize; pos += 16 + size) {
		dat_fits(f, pos, 0, false, fsize);
		if (fseek(f, (long)pos, SEEK_SET) || fread(s, 1, 16, f) != 16 ||
		    le(s, 2) > 64)
			goto out;
		size = le(s + 8, 8);
		dat_fits(f, pos, size, true, fsize);
	}
out:
	fclose(f);
}

/*
 * libtracecmd 3.1 (Debian 12) crashes on some corrupt files (a SIGSEGV
 * in tracecmd_close() on tracecmd_open_fd()'s error path, seen with a
 * page of random bytes in zstd-compressed cpu data). The whole replay of
 * a .dat therefore runs in a child process, its output spooled: the
 * parent exits with the child's status, or reports a crash as an input
 * error (the spool, with any partial result, is dropped).
 */
/* libtracecmd 3.1 also blocks for good opening some corrupt files */
#define DAT_OPEN_S	8

static void dat_isolate(void)
{
	pid_t pid;
	int st;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("rtmon-replay: fork");
		exit(2);
	}
	if (!pid)
		return;		/* the child replays */
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			perror("rtmon-replay: waitpid");
			exit(2);
		}
	if (WIFEXITED(st))
		exit(WEXITSTATUS(st));
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) {
		/* the reader of our output went away (| head): not the file's fault */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
		exit(1);
	}
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
		input_error("libtracecmd did not finish opening this file in %d s: corrupt data?",
			    DAT_OPEN_S);
	input_error("libtracecmd crashed reading this file (signal %d): corrupt data?",
		    WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/*
 * libtracecmd ends a cpu's records quietly where its data cannot be read
 * (a corrupt compressed chunk or page): the last record read must be the
 * last one of the cpu's data.
 */
static void dat_check_ends(const unsigned long long *per_cpu,
			   const __u64 *last_ts_cpu)
{
	struct tep_record *last;
	int cpu, n = tracecmd_cpus(handle);

	for (cpu = 0; cpu < n; cpu++) {
		last = tracecmd_read_cpu_last(handle, cpu);
		cur_cpu = cpu;
		cur_rec = per_cpu[cpu];
		cur_ts = last_ts_cpu[cpu];
		if (!last && per_cpu[cpu])
			input_error("the end of the cpu's data cannot be read: corrupt data?");
		if (last && (!per_cpu[cpu] || last->ts != last_ts_cpu[cpu]))
			input_error("the cpu's records stop here, its data goes on to ts %llu.%09llu: corrupt data?",
				    last->ts / 1000000000ull, last->ts % 1000000000ull);
		if (last)
			tracecmd_free_record(last);
	}
}

static void dat_file(const char *path)
{
	struct tep_record *rec;
	struct tep_event *ev;
	unsigned long long *per_cpu;
	__u64 *last_cpu_ts;
	int cpu;

	rx_where = where_dat;
	dat_isolate();
	dat_check_tail(path);
	alarm(DAT_OPEN_S);	/* the parent reports the child's SIGALRM */
	dat_open(path);
	alarm(0);
	evs = calloc(MAX_EVENT_ID, sizeof(*evs));
	per_cpu = calloc((size_t)tracecmd_cpus(handle), sizeof(*per_cpu));
	last_cpu_ts = calloc((size_t)tracecmd_cpus(handle), sizeof(*last_cpu_ts));
	if (!evs || !per_cpu || !last_cpu_ts) {
		perror("rtmon-replay");
		exit(2);
	}
	core_setup();
	while ((rec = tracecmd_read_next_data(handle, &cpu))) {
		nrec++;
		cur_cpu = cpu;
		cur_rec = per_cpu[cpu]++;
		cur_ts = rec->ts;
		last_cpu_ts[cpu] = rec->ts;
		if (rec->missed_events)
			lost += rec->missed_events > 0 ?
				(unsigned long long)rec->missed_events : 1;
		check_cpu((__u64)cpu);
		if (rec->ts < last_ts)
			input_error("timestamp goes backwards (%llu < %llu)",
				    (unsigned long long)rec->ts,
				    (unsigned long long)last_ts);
		ev = dat_record(rec);
		if (opt.explain)
			dat_keep_line(rec, ev);
		tracecmd_free_record(rec);
	}
	dat_check_ends(per_cpu, last_cpu_ts);
	cur_cpu = -1;
	if (lost)
		fprintf(stderr, "rtmon-replay: %s: the recording lost %llu events (ring buffer overruns): chains across them may be wrong\n",
			fname, lost);
	free(per_cpu);
	free(last_cpu_ts);
}

static void dat_end(void)
{
	int i;

	rx_kev_end();
	for (i = 0; evs && i < MAX_EVENT_ID; i++)
		free(evs[i]);
	free(evs);
	evs = NULL;
	if (handle)
		tracecmd_close(handle);
	handle = NULL;
}

const struct rx_input rx_dat_input = {
	.name = "dat",
	.file = dat_file,
	.end = dat_end,
};

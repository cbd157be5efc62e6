// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtmon-replay - run recorded events through the rtmon chain-tracking
 * core and print the records it emits.
 *
 * Input formats (see README.md in this directory):
 *   rtm     native, one event per line: "<ts> <cpu> <event> key=value..."
 *           plus "target ...", "param ..." and "option ..." directives.
 *   ftrace  text from /sys/kernel/tracing/trace or `trace-cmd report`.
 * Auto-detected unless --format is given.
 *
 * Exit status: 0 ok, 1 malformed input, 2 bad usage, 3 leak detected
 * after the final flush (quiescent invariant violated).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtm_core.h"
#include "rtmon/rtmon.h"
#include "replay.h"

#define MAX_LINE	4096
#define MAX_TOK		64

enum fmt { FMT_AUTO, FMT_RTM, FMT_FTRACE };

static const char *vec_names[RTM_NR_SOFTIRQ] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU"
};

struct opts {
	enum fmt fmt;
	bool json;
	bool drain_at_end;
	bool flush;
	bool explain;		/* explain every record from the trace */
	__u64 tick_ns;		/* ftrace: synthesized tick period */
};

static struct opts opt = { FMT_AUTO, false, false, true, false, 10000000ull };
static struct rtm_params params;
static bool params_set;
static struct rtm_core *core;
static void *core_mem;
static struct rtm_target_spec pending_tg[RTM_MAX_TARGETS];
static bool pending_used[RTM_MAX_TARGETS];
static __u32 next_tid;
static const char *fname = "-";
static unsigned long lineno;
static __u64 last_ts;
static __u64 next_tick;
static unsigned long nrecords;

static void __attribute__((noreturn, format(printf, 1, 2)))
input_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%lu: ", fname, lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rtmon-replay: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'rtmon-replay --help'.\n");
	exit(2);
}

/* ---- number parsing ---- */

static bool parse_u64(const char *s, __u64 *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* "123", "1.5us", "100us", "2ms", "1s", "10ns" -> ns */
static bool parse_dur(const char *s, __u64 *out)
{
	__u64 ip = 0, frac = 0, fdiv = 1, mul = 1;
	const char *p = s;
	int nd = 0;

	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p)) {
		ip = ip * 10 + (unsigned long long)(*p++ - '0');
		if (++nd > 18)
			return false;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			if (fdiv < 1000000000ull) {
				frac = frac * 10 + (unsigned long long)(*p - '0');
				fdiv *= 10;
			}
			p++;
		}
	}
	if (!*p || !strcmp(p, "ns"))
		mul = 1;
	else if (!strcmp(p, "us"))
		mul = 1000;
	else if (!strcmp(p, "ms"))
		mul = 1000000;
	else if (!strcmp(p, "s"))
		mul = 1000000000;
	else
		return false;
	if (fdiv > 1 && mul == 1)
		return false;
	*out = ip * mul + frac * mul / fdiv;
	return true;
}

/* ---- key=value tokens ---- */

struct kv {
	char *k, *v;
};

static int split_kv(char **tok, int n, struct kv *kv)
{
	int i;
	char *eq;

	for (i = 0; i < n; i++) {
		eq = strchr(tok[i], '=');
		if (!eq || eq == tok[i])
			input_error("expected key=value, got '%s'", tok[i]);
		*eq = 0;
		kv[i].k = tok[i];
		kv[i].v = eq + 1;
	}
	return n;
}

static const char *kv_get(struct kv *kv, int n, const char *k, bool req)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(kv[i].k, k))
			return kv[i].v;
	if (req)
		input_error("missing %s=", k);
	return NULL;
}

static void kv_check(struct kv *kv, int n, const char *const *allowed)
{
	int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; allowed[j]; j++)
			if (!strcmp(kv[i].k, allowed[j]))
				break;
		if (!allowed[j])
			input_error("unknown key '%s'", kv[i].k);
	}
}

static __u64 kv_u64(struct kv *kv, int n, const char *k, bool req,
		       __u64 def)
{
	const char *v = kv_get(kv, n, k, req);
	__u64 x;

	if (!v)
		return def;
	if (!parse_u64(v, &x))
		input_error("bad number for %s: '%s'", k, v);
	return x;
}

static __u32 kv_u32(struct kv *kv, int n, const char *k, bool req,
		       __u32 def)
{
	__u64 x = kv_u64(kv, n, k, req, def);

	if (x > UINT32_MAX)
		input_error("%s out of range", k);
	return (__u32)x;
}

/* a cpu number for thread_run= (the core ignores cpus >= ncpus) */
#define NCPU_MAX_RUN	4096

static __u32 parse_ctx(const char *v)
{
	if (!strcmp(v, "task"))
		return RTM_CTX_TASK;
	if (!strcmp(v, "softirq"))
		return RTM_CTX_SOFTIRQ;
	if (!strcmp(v, "hardirq"))
		return RTM_CTX_HARDIRQ;
	input_error("bad ctx '%s' (task|softirq|hardirq)", v);
}

/* irq_exit thread_run=: runnable (-1) or the cpu it runs on */
static int parse_thread_run(const char *v)
{
	__u64 x;

	if (!strcmp(v, "runnable"))
		return -1;
	if (parse_u64(v, &x) && x < NCPU_MAX_RUN)
		return (int)x;
	input_error("bad thread_run '%s' (asleep|runnable|CPU)", v);
}

static __u32 parse_vec(const char *v)
{
	__u64 x;
	int i;

	for (i = 0; i < RTM_NR_SOFTIRQ; i++)
		if (!strcasecmp(v, vec_names[i]))
			return (__u32)i;
	if (!parse_u64(v, &x) || x >= RTM_NR_SOFTIRQ)
		input_error("bad softirq vector '%s'", v);
	return (__u32)x;
}

static void comm_copy(char *dst, const char *src)
{
	memset(dst, 0, RTM_COMM_LEN);
	if (src)
		strncpy(dst, src, RTM_COMM_LEN - 1);
}

/* ---- targets (shared by "target" lines and --target) ---- */

/* One timer kind (RTM_TIMER_*) by name (librtmon's names); 0: unknown. */
static unsigned int timer_kind_parse(const char *s)
{
	uint32_t m;

	if (rtmon_timers_parse(s, &m) || !m || (m & (m - 1)))
		return 0;
	return (unsigned int)__builtin_ctz(m);
}

/* what the module finds by address (kmod/rtmon_probes.c), here by name */
static unsigned int timer_kind_of_fn(const char *fn)
{
	static const struct { const char *fn; unsigned int kind; } fns[] = {
		{ "hrtimer_wakeup", RTM_TIMER_SLEEPER },
		{ "timerfd_tmrproc", RTM_TIMER_TIMERFD },
		{ "posix_timer_fn", RTM_TIMER_POSIX },
		{ "it_real_fn", RTM_TIMER_POSIX },
		{ "timerlat_irq", RTM_TIMER_TIMERLAT },
	};
	size_t i, n;

	if (!fn)
		return RTM_TIMER_OTHER;
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		n = strlen(fns[i].fn);
		/* "name", "name now=...", "name/0x0", "name+0x0/0x30" */
		if (!strncmp(fn, fns[i].fn, n) &&
		    (!fn[n] || strchr(" \t+/,", fn[n])))
			return fns[i].kind;
	}
	return RTM_TIMER_OTHER;
}

/* Parses "name=x,end=block,deadline=50us" (sep ',') or kv tokens. */
static int parse_target(struct kv *kv, int n, __u32 *id, char *err,
			size_t errlen)
{
	struct rtm_target_spec t;
	bool have_id = false;
	__u64 x;
	int i;

	memset(&t, 0, sizeof(t));
	t.end = RTM_END_SWITCH_IN;
	for (i = 0; i < n; i++) {
		const char *k = kv[i].k, *v = kv[i].v;

		if (!strcmp(k, "id")) {
			if (!parse_u64(v, &x) || x >= RTM_MAX_TARGETS)
				goto bad;
			*id = (__u32)x;
			have_id = true;
		} else if (!strcmp(k, "name") || !strcmp(k, "comm")) {
			if (strlen(v) >= RTM_COMM_LEN || !*v)
				goto bad;
			comm_copy(t.comm, v);
		} else if (!strcmp(k, "pid") || !strcmp(k, "tgid")) {
			if (!parse_u64(v, &x) || !x || x > UINT32_MAX)
				goto bad;
			if (k[0] == 'p')
				t.pid = (__u32)x;
			else
				t.tgid = (__u32)x;
		} else if (!strcmp(k, "source") || !strcmp(k, "src")) {
			if (!strcmp(v, "any")) {
				t.src = RTM_SRC_ANY;
			} else if (!strcmp(v, "timer")) {
				t.src = RTM_SRC_TIMER;
			} else if (!strcmp(v, "irq")) {
				t.src = RTM_SRC_IRQ_ANY;
			} else if (!strncmp(v, "irq:", 4)) {
				if (!parse_u64(v + 4, &x) || x >= RTM_MAX_IRQ)
					goto bad;
				t.src = RTM_SRC_IRQ;
				t.irq = (__u32)x;
			} else {
				goto bad;
			}
		} else if (!strcmp(k, "timers")) {
			/* kinds joined by '+': ',' separates --target's keys */
			const char *q = v;
			char kind[16];
			size_t n;

			t.timers = 0;
			while (*q) {
				n = strcspn(q, "+");
				if (!n || n >= sizeof(kind))
					goto bad;
				memcpy(kind, q, n);
				kind[n] = 0;
				x = timer_kind_parse(kind);
				if (!x)
					goto bad;
				t.timers |= 1u << x;
				q += n + (q[n] == '+');
			}
		} else if (!strcmp(k, "end")) {
			if (!strcmp(v, "switch_in"))
				t.end = RTM_END_SWITCH_IN;
			else if (!strcmp(v, "block"))
				t.end = RTM_END_BLOCK;
			else if (!strcmp(v, "work_end"))
				t.end = RTM_END_WORK_END;
			else
				goto bad;
		} else if (!strcmp(k, "deadline")) {
			if (!parse_dur(v, &t.deadline_ns))
				goto bad;
		} else {
			snprintf(err, errlen, "unknown target key '%s'", k);
			return -1;
		}
		continue;
bad:
		snprintf(err, errlen, "bad target value %s='%s'", k, v);
		return -1;
	}
	if (!t.comm[0] && !t.pid && !t.tgid && t.src != RTM_SRC_IRQ &&
	    t.src != RTM_SRC_IRQ_ANY) {
		snprintf(err, errlen,
			 "target needs a task filter (name/pid/tgid) or source=irq[:N]");
		return -1;
	}
	if (!have_id) {
		if (next_tid >= RTM_MAX_TARGETS) {
			snprintf(err, errlen, "too many targets");
			return -1;
		}
		*id = next_tid;
	}
	if (*id >= next_tid)
		next_tid = *id + 1;
	pending_tg[*id] = t;
	pending_used[*id] = true;
	return 0;
}

static void core_setup(void)
{
	size_t sz;
	__u32 i;

	if (core)
		return;
	if (!params_set)
		rtm_params_default(&params, 4);
	sz = rtm_core_memsize(&params);
	if (!sz) {
		fprintf(stderr, "rtmon-replay: invalid core parameters\n");
		exit(2);
	}
	core_mem = aligned_alloc(64, (sz + 63) & ~(size_t)63);
	if (!core_mem) {
		perror("rtmon-replay");
		exit(2);
	}
	core = rtm_core_init(core_mem, sz, &params);
	if (!core) {
		fprintf(stderr, "rtmon-replay: core init failed\n");
		exit(2);
	}
	for (i = 0; i < RTM_MAX_TARGETS; i++)
		if (pending_used[i] &&
		    rtm_core_set_target(core, i, &pending_tg[i]))
			input_error("target %u rejected by the core", i);
}

/* ---- output ---- */

static const char *hop_name(unsigned int t)
{
	static const char *const n[] = {
		"?", "irq", "timer", "timer_run", "softirq_raise",
		"softirq_entry", "waking", "switch_in", "block", "work_begin",
		"work_end", "irq_exit", "rerun", "handoff"
	};

	return t < sizeof(n) / sizeof(n[0]) ? n[t] : "?";
}

static const char *ctx_name(unsigned int c)
{
	return c == RTM_CTX_HARDIRQ ? "hardirq" :
	       c == RTM_CTX_SOFTIRQ ? "softirq" : "task";
}

static void comm_str(char *dst, const __u8 *comm)
{
	memcpy(dst, comm, RTM_COMM_LEN);
	dst[RTM_COMM_LEN] = 0;
}

static void flags_str(char *buf, size_t len, __u32 f)
{
	static const struct { __u32 bit; const char *n; } fl[] = {
		{ RTM_REC_F_DEADLINE_MISS, "DEADLINE_MISS" },
		{ RTM_REC_F_TIMEOUT, "TIMEOUT" },
		{ RTM_REC_F_WAS_OVERDUE, "WAS_OVERDUE" },
		{ RTM_REC_F_TRUNCATED, "TRUNCATED" },
		{ RTM_REC_F_DROPPED_HOPS, "DROPPED_HOPS" },
		{ RTM_REC_F_MERGED, "MERGED" },
		{ RTM_REC_F_COOKIE, "COOKIE" },
		{ RTM_REC_F_COALESCED, "COALESCED" },
	};
	size_t i;

	buf[0] = 0;
	for (i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
		if (!(f & fl[i].bit))
			continue;
		if (buf[0])
			strncat(buf, "|", len - strlen(buf) - 1);
		strncat(buf, fl[i].n, len - strlen(buf) - 1);
	}
	if (!buf[0])
		snprintf(buf, len, "-");
}

static void hop_desc(char *buf, size_t len, const struct rtm_rec_hop *h)
{
	char comm[RTM_COMM_LEN + 1];

	comm_str(comm, h->comm);
	switch (h->type) {
	case RTM_HOP_IRQ:
	case RTM_HOP_IRQ_EXIT:
		snprintf(buf, len, "irq %u", h->pid);
		break;
	case RTM_HOP_TIMER:
	case RTM_HOP_TIMER_RUN:
		snprintf(buf, len, "-");
		break;
	case RTM_HOP_SOFTIRQ_RAISE:
	case RTM_HOP_SOFTIRQ_ENTRY:
		snprintf(buf, len, "%s", h->pid < RTM_NR_SOFTIRQ ?
			 vec_names[h->pid] : "?");
		break;
	default:
		snprintf(buf, len, "%s[%u]", comm[0] ? comm : "?", h->pid);
	}
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void print_record(const struct rtm_record *r)
{
	char comm[RTM_COMM_LEN + 1], fl[128], desc[64];
	const struct rtm_rec_hop *h;
	unsigned int i;

	nrecords++;
	if (opt.explain)
		rx_keep_record(r);
	comm_str(comm, r->target_comm);
	flags_str(fl, sizeof(fl), r->flags);
	if (opt.json) {
		printf("{\"type\":\"record\",\"version\":%u,\"seq\":%llu"
		       ",\"kind\":\"%s\",\"source\":%llu"
		       ",\"cpu\":%u,\"target\":", r->version, (unsigned long long)r->seq,
		       r->kind == RTM_KIND_IRQ ? "irq" : "timer",
		       (unsigned long long)r->source, r->cpu);
		if (r->target_id == RTM_TARGET_NONE)
			printf("null");
		else
			printf("%u", r->target_id);
		printf(",\"pid\":%u,\"tgid\":%u,\"comm\":", r->target_pid,
		       r->target_tgid);
		json_str(comm);
		printf(",\"start_ns\":%llu,\"end_ns\":%llu"
		       ",\"latency_ns\":%llu,\"deadline_ns\":%llu"
		       ",\"flags\":\"%s\",\"path_len\":%u,\"chain_hops\":%u",
		       (unsigned long long)r->start_ns, (unsigned long long)r->end_ns,
		       (unsigned long long)r->latency_ns, (unsigned long long)r->deadline_ns, fl,
		       r->path_len, r->chain_hops);
		if (r->flags & RTM_REC_F_COOKIE)
			printf(",\"cookie\":%llu", (unsigned long long)r->cookie);
		if (r->kind == RTM_KIND_TIMER)
			printf(",\"timer\":\"%s\"", rtmon_timer_name(r->timer_kind));
		printf(",\"hops\":[");
		for (i = 0; i < r->nhops && i < RTM_REC_MAX_HOPS; i++) {
			h = &r->hops[i];
			comm_str(comm, h->comm);
			printf("%s{\"type\":\"%s\",\"cpu\":%u,\"pid\":%u,\"ctx\":\"%s\",\"comm\":",
			       i ? "," : "", hop_name(h->type), h->cpu, h->pid,
			       ctx_name(h->ctx));
			json_str(comm);
			printf(",\"ts_ns\":%llu,\"delta_ns\":%llu}",
			       (unsigned long long)h->ts_ns, i && h->ts_ns >= r->hops[i - 1].ts_ns ?
			       (unsigned long long)(h->ts_ns - r->hops[i - 1].ts_ns) : 0);
		}
		printf("]}\n");
		return;
	}
	printf(r->kind == RTM_KIND_IRQ ? "record #%llu %s%s %llu -> " :
	       "record #%llu %s:%s 0x%llx -> ", (unsigned long long)r->seq,
	       r->kind == RTM_KIND_IRQ ? "irq" : "timer",
	       r->kind == RTM_KIND_IRQ ? "" : rtmon_timer_name(r->timer_kind),
	       (unsigned long long)r->source);
	if (r->target_id == RTM_TARGET_NONE)
		printf("target - ");
	else
		printf("target %u ", r->target_id);
	printf("%s[%u/%u] latency=%lluns deadline=%llu"
	       "ns flags=%s cpu=%u hops=%u/%u chain_hops=%u",
	       comm[0] ? comm : "-", r->target_pid, r->target_tgid,
	       (unsigned long long)r->latency_ns, (unsigned long long)r->deadline_ns, fl, r->cpu,
	       r->nhops, r->path_len, r->chain_hops);
	if (r->flags & RTM_REC_F_COOKIE)
		printf(" cookie=%llu", (unsigned long long)r->cookie);
	putchar('\n');
	for (i = 0; i < r->nhops && i < RTM_REC_MAX_HOPS; i++) {
		h = &r->hops[i];
		hop_desc(desc, sizeof(desc), h);
		printf("  %2u %-13s cpu%-2u %-7s %-24s t=%llu +%llu\n",
		       i, hop_name(h->type), h->cpu, ctx_name(h->ctx), desc,
		       (unsigned long long)h->ts_ns,
		       i && h->ts_ns >= r->hops[i - 1].ts_ns ?
		       (unsigned long long)(h->ts_ns - r->hops[i - 1].ts_ns) : 0);
	}
}

static void drain(void)
{
	struct rtm_record r;
	__u32 k;

	for (k = 0; k < params.ncpus; k++)
		while (rtm_core_read(core, k, &r))
			print_record(&r);
}

static void after_event(void)
{
	if (!opt.drain_at_end)
		drain();
}

/*
 * The task each cpu runs, from the switch events. A wakeup of a task that
 * is current on a cpu finds it running (rtm_ev_waking's run_cpu), as the
 * module reads from the task itself.
 */
#define NCPU_TRACK	1024
static __u32 cur_pid[NCPU_TRACK];

static void track_switch(__u64 cpu, __u32 next)
{
	if (cpu < NCPU_TRACK)
		cur_pid[cpu] = next;
}

static int running_cpu(__u32 pid)
{
	__u32 k;

	for (k = 0; pid && k < params.ncpus && k < NCPU_TRACK; k++)
		if (cur_pid[k] == pid)
			return (int)k;
	return -1;
}

static void check_cpu(__u64 cpu)
{
	if (cpu >= params.ncpus)
		input_error("cpu %llu out of range (ncpus=%u)", cpu,
			    params.ncpus);
}

static void set_ts(__u64 ts)
{
	if (ts < last_ts)
		input_error("timestamp goes backwards (%llu < %llu)",
			    ts, last_ts);
	last_ts = ts;
}

/* ---- native format ---- */

static int tokenize(char *s, char **tok)
{
	int n = 0;
	char *p;

	for (p = strtok(s, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) {
		if (*p == '#')
			break;
		if (n == MAX_TOK)
			input_error("too many fields");
		tok[n++] = p;
	}
	return n;
}

static void rtm_param_line(struct kv *kv, int n)
{
	static const char *const ok[] = {
		"ncpus", "nchains", "nbranches", "chain_hops", "task_buckets",
		"cookie_buckets", "ring_slots", "max_age", NULL
	};
	const char *v;

	if (core)
		input_error("param after the first event");
	kv_check(kv, n, ok);
	if (!params_set)
		rtm_params_default(&params, 4);
	params_set = true;
	params.ncpus = kv_u32(kv, n, "ncpus", false, params.ncpus);
	params.nchains = kv_u32(kv, n, "nchains", false, params.nchains);
	params.nbranches = kv_u32(kv, n, "nbranches", false, params.nbranches);
	params.chain_hops = kv_u32(kv, n, "chain_hops", false, params.chain_hops);
	params.task_buckets = kv_u32(kv, n, "task_buckets", false,
				     params.task_buckets);
	params.cookie_buckets = kv_u32(kv, n, "cookie_buckets", false,
				       params.cookie_buckets);
	params.ring_slots = kv_u32(kv, n, "ring_slots", false, params.ring_slots);
	v = kv_get(kv, n, "max_age", false);
	if (v && !parse_dur(v, &params.max_age_ns))
		input_error("bad max_age '%s'", v);
	if (!rtm_core_memsize(&params))
		input_error("invalid parameters (pool sizes, powers of 2)");
}

static void rtm_line(char *line)
{
	char *tok[MAX_TOK], comm[RTM_COMM_LEN];
	struct kv kv[MAX_TOK];
	__u64 ts, cpu;
	__u32 c, id, x;
	const char *ev, *v;
	char err[160];
	int n, m;

	n = tokenize(line, tok);
	if (!n)
		return;
	if (!strcmp(tok[0], "param")) {
		m = split_kv(tok + 1, n - 1, kv);
		rtm_param_line(kv, m);
		return;
	}
	if (!strcmp(tok[0], "option")) {
		m = split_kv(tok + 1, n - 1, kv);
		v = kv_get(kv, m, "drain", false);
		if (v) {
			if (strcmp(v, "end") && strcmp(v, "event"))
				input_error("option drain=end|event");
			opt.drain_at_end = !strcmp(v, "end");
		}
		return;
	}
	if (!strcmp(tok[0], "target") || !strcmp(tok[0], "untarget")) {
		m = split_kv(tok + 1, n - 1, kv);
		if (tok[0][0] == 'u') {
			id = kv_u32(kv, m, "id", true, 0);
			if (id >= RTM_MAX_TARGETS)
				input_error("bad target id");
			pending_used[id] = false;
			if (core)
				rtm_core_clear_target(core, id);
			return;
		}
		if (parse_target(kv, m, &id, err, sizeof(err)))
			input_error("%s", err);
		if (core && rtm_core_set_target(core, id, &pending_tg[id]))
			input_error("target %u rejected by the core", id);
		return;
	}
	if (n < 3)
		input_error("expected '<ts> <cpu> <event> key=value...'");
	if (!parse_dur(tok[0], &ts))
		input_error("bad timestamp '%s'", tok[0]);
	if (!parse_u64(tok[1], &cpu))
		input_error("bad cpu '%s'", tok[1]);
	core_setup();
	check_cpu(cpu);
	set_ts(ts);
	c = (__u32)cpu;
	ev = tok[2];
	m = split_kv(tok + 3, n - 3, kv);
	if (!strcmp(ev, "irq_entry")) {
		static const char *const ok[] = { "irq", NULL };

		kv_check(kv, m, ok);
		rtm_ev_irq_entry(core, c, ts, kv_u32(kv, m, "irq", true, 0));
	} else if (!strcmp(ev, "irq_exit")) {
		static const char *const ok[] = { "irq", "wake", "thread",
						  "thread_comm", "thread_run",
						  NULL };

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "thread_run", false);
		if (!v || !strcmp(v, "asleep"))
			rtm_ev_irq_exit(core, c, ts,
					kv_u32(kv, m, "irq", true, 0),
					kv_u32(kv, m, "wake", false, 0) != 0,
					kv_u32(kv, m, "thread", false, 0));
		else
			rtm_ev_irq_exit_rerun(core, c, ts,
					      kv_u32(kv, m, "irq", true, 0),
					      kv_u32(kv, m, "thread", true, 0),
					      kv_get(kv, m, "thread_comm", false),
					      parse_thread_run(v));
	} else if (!strcmp(ev, "softirq_raise")) {
		static const char *const ok[] = { "vec", "ctx", NULL };

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "ctx", false);
		rtm_ev_softirq_raise(core, c, ts,
				     parse_vec(kv_get(kv, m, "vec", true)),
				     v ? parse_ctx(v) : RTM_CTX_HARDIRQ);
	} else if (!strcmp(ev, "softirq_entry") || !strcmp(ev, "softirq_exit")) {
		static const char *const ok[] = { "vec", NULL };

		kv_check(kv, m, ok);
		if (ev[8] == 'e' && ev[9] == 'n')
			rtm_ev_softirq_entry(core, c, ts,
					     parse_vec(kv_get(kv, m, "vec", true)));
		else
			rtm_ev_softirq_exit(core, c, ts,
					    parse_vec(kv_get(kv, m, "vec", true)));
	} else if (!strcmp(ev, "timer_entry")) {
		static const char *const ok[] = {
			"id", "expires", "sleeper", "timer", "ctx", NULL
		};
		__u64 exp;
		__u32 tctx, tkind;

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "ctx", false);
		tctx = v ? parse_ctx(v) : RTM_CTX_HARDIRQ;
		v = kv_get(kv, m, "expires", true);
		if (!parse_dur(v, &exp))
			input_error("bad expires '%s'", v);
		/* timer=KIND; the older sleeper=0 is any other timer */
		v = kv_get(kv, m, "timer", false);
		if (v) {
			tkind = timer_kind_parse(v);
			if (!tkind)
				input_error("unknown timer kind '%s' (sleeper, timerfd, posix, timerlat, other)",
					    v);
		} else {
			tkind = kv_u32(kv, m, "sleeper", false, 1) ?
				RTM_TIMER_SLEEPER : RTM_TIMER_OTHER;
		}
		rtm_ev_timer_entry(core, c, ts, kv_u64(kv, m, "id", true, 0), exp,
				   tkind, tctx);
	} else if (!strcmp(ev, "timer_exit")) {
		static const char *const ok[] = { "id", "ctx", NULL };

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "ctx", false);
		rtm_ev_timer_exit(core, c, ts, kv_u64(kv, m, "id", true, 0),
				  v ? parse_ctx(v) : RTM_CTX_HARDIRQ);
	} else if (!strcmp(ev, "waking")) {
		static const char *const ok[] = {
			"pid", "tgid", "comm", "ctx", "waker", NULL
		};

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "ctx", false);
		comm_copy(comm, kv_get(kv, m, "comm", false));
		x = kv_u32(kv, m, "pid", true, 0);
		rtm_ev_waking_running(core, c, ts, v ? parse_ctx(v) : RTM_CTX_TASK,
			      kv_u32(kv, m, "waker", false, 0), x,
			      kv_u32(kv, m, "tgid", false, 0), comm,
			      running_cpu(x));
	} else if (!strcmp(ev, "switch")) {
		static const char *const ok[] = {
			"prev", "state", "next", "tgid", "comm", NULL
		};
		long st = 1;

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "state", false);
		if (v) {
			if (!strcmp(v, "R") || !strcmp(v, "R+") || !strcmp(v, "0"))
				st = 0;
			else if (strcmp(v, "S") && strcmp(v, "D") && strcmp(v, "1"))
				input_error("bad state '%s' (0|1|R|S|D)", v);
		}
		comm_copy(comm, kv_get(kv, m, "comm", false));
		x = kv_u32(kv, m, "next", true, 0);
		track_switch(c, x);
		rtm_ev_switch(core, c, ts, kv_u32(kv, m, "prev", true, 0), st,
			      x, kv_u32(kv, m, "tgid", false, 0), comm);
	} else if (!strcmp(ev, "work_begin") || !strcmp(ev, "work_end")) {
		static const char *const ok[] = {
			"pid", "tgid", "cookie", "comm", NULL
		};

		kv_check(kv, m, ok);
		v = kv_get(kv, m, "comm", false);
		comm_copy(comm, v);
		if (ev[5] == 'b')
			rtm_ev_work_begin(core, c, ts, kv_u32(kv, m, "pid", true, 0),
					  kv_u32(kv, m, "tgid", true, 0),
					  kv_u64(kv, m, "cookie", true, 0),
					  v ? comm : NULL);
		else
			rtm_ev_work_end(core, c, ts, kv_u32(kv, m, "pid", true, 0),
					kv_u32(kv, m, "tgid", true, 0),
					kv_u64(kv, m, "cookie", true, 0),
					v ? comm : NULL);
	} else if (!strcmp(ev, "tick")) {
		if (m)
			input_error("tick takes no arguments");
		rtm_ev_tick(core, c, ts);
	} else {
		input_error("unknown event '%s'", ev);
	}
	after_event();
}

/* ---- ftrace text ---- */

#define NCPU_FT		64
#define TIMER_HASH	4096

struct ft_cpu {
	int hard;		/* hard IRQ nesting (no flags field) */
	int soft;
	__u32 tsoft;		/* running hrtimer handlers: bit set = soft */
	int tdepth;		/* (stack, innermost in bit 0) */
	bool after_exit;	/* last event was an irq exit (hardirq) */
	bool exit_pending;	/* irq_handler_exit ret=handled waiting */
	__u32 exit_irq;
	__u64 exit_ts;
};

static struct ft_cpu ftc[NCPU_FT];
static struct { __u64 id, expires; } timers[TIMER_HASH];

static void timer_remember(__u64 id, __u64 expires)
{
	__u32 h = (__u32)((id * 0x9e3779b97f4a7c15ull) >> 52), i;

	for (i = 0; i < TIMER_HASH; i++, h = (h + 1) % TIMER_HASH) {
		if (!timers[h].id || timers[h].id == id) {
			timers[h].id = id;
			timers[h].expires = expires;
			return;
		}
	}
	timers[h].id = id;	/* table full: overwrite */
	timers[h].expires = expires;
}

static bool timer_lookup(__u64 id, __u64 *expires)
{
	__u32 h = (__u32)((id * 0x9e3779b97f4a7c15ull) >> 52), i;

	for (i = 0; i < TIMER_HASH && timers[h].id; i++, h = (h + 1) % TIMER_HASH)
		if (timers[h].id == id) {
			*expires = timers[h].expires;
			return true;
		}
	return false;
}

/* find "key=" as a whole word in s; returns pointer to the value */
static const char *ft_field(const char *s, const char *key)
{
	size_t kl = strlen(key);
	const char *p = s;

	while ((p = strstr(p, key))) {
		if ((p == s || p[-1] == ' ' || p[-1] == ',') && p[kl] == '=')
			return p + kl + 1;
		p += kl;
	}
	return NULL;
}

static bool ft_num(const char *s, const char *key, int base, __u64 *out)
{
	const char *v = ft_field(s, key);
	char *end;

	if (!v || !isxdigit((unsigned char)*v))
		return false;
	errno = 0;
	*out = strtoull(v, &end, base);
	return !errno && (!*end || *end == ' ' || *end == ',' || *end == ']');
}

/* comm value up to " <next_key>=" */
static void ft_comm(const char *s, const char *key, const char *next,
		    char *dst)
{
	const char *v = ft_field(s, key), *e;
	char pat[32];
	size_t l;

	memset(dst, 0, RTM_COMM_LEN);
	if (!v)
		return;
	snprintf(pat, sizeof(pat), " %s=", next);
	e = strstr(v, pat);
	l = e ? (size_t)(e - v) : strcspn(v, " ");
	if (l > RTM_COMM_LEN - 1)
		l = RTM_COMM_LEN - 1;
	memcpy(dst, v, l);
}

/*
 * trace-cmd report's sched plugin prints tasks as "comm:pid [prio]"
 * (sched_waking: "comm:pid [prio] CPU:001", sched_switch: "prev:pid
 * [prio] S ==> next:pid [prio]"), not the event's fields. A task from
 * s..end (exclusive): the pid after the last ':' before " [". False if
 * that is not there.
 */
static bool ft_plugin_task(const char *s, const char *end, __u64 *pid,
			   char *comm)
{
	const char *br = s, *b, *colon = NULL, *p;
	char *e;
	size_t l;

	while ((b = strstr(br, " [")) && b < end) {
		br = b + 1;
		colon = b;	/* last " [" before end */
	}
	if (!colon)
		return false;
	b = colon;
	for (p = b; p > s && p[-1] != ':'; p--)
		;
	if (p == s || !isdigit((unsigned char)*p))
		return false;
	errno = 0;
	*pid = strtoull(p, &e, 10);
	if (errno || e != b)
		return false;
	while (*s == ' ')
		s++;
	l = (size_t)(p - 1 - s);
	memset(comm, 0, RTM_COMM_LEN);
	memcpy(comm, s, l < RTM_COMM_LEN - 1 ? l : RTM_COMM_LEN - 1);
	return true;
}

/* sched_waking's task: "comm=... pid=..." or trace-cmd's "comm:pid [prio]" */
static bool ft_waking_task(const char *q, __u64 *pid, char *comm)
{
	if (ft_num(q, "pid", 10, pid)) {
		ft_comm(q, "comm", "pid", comm);
		return true;
	}
	return ft_plugin_task(q, q + strlen(q), pid, comm);
}

static __u32 ft_ctx(struct ft_cpu *fc, char flag)
{
	if (flag == 'h' || flag == 'H' || flag == 'z' || flag == 'Z')
		return RTM_CTX_HARDIRQ;
	if (flag == 's')
		return RTM_CTX_SOFTIRQ;
	if (flag == '.')
		return RTM_CTX_TASK;
	/* no flags column: infer from the event sequence */
	if (fc->hard > 0 || fc->after_exit)
		return RTM_CTX_HARDIRQ;
	if (fc->soft > 0)
		return RTM_CTX_SOFTIRQ;
	return RTM_CTX_TASK;
}

static void ft_flush_exit(__u32 cpu, bool woke)
{
	struct ft_cpu *fc = &ftc[cpu];

	if (!fc->exit_pending)
		return;
	fc->exit_pending = false;
	rtm_ev_irq_exit(core, cpu, fc->exit_ts, fc->exit_irq, woke, 0);
	after_event();
}

static void ft_ticks(__u64 ts)
{
	if (!opt.tick_ns)
		return;
	if (!next_tick)
		next_tick = ts + opt.tick_ns;
	if (ts >= next_tick && ts - next_tick > 64 * opt.tick_ns)
		next_tick = ts - ts % opt.tick_ns;	/* long gap: skip ahead */
	while (ts >= next_tick) {
		rtm_ev_tick(core, 0, next_tick);
		after_event();
		if (next_tick > UINT64_MAX - opt.tick_ns) {
			next_tick = UINT64_MAX;	/* the clock's end: no wrap */
			break;
		}
		next_tick += opt.tick_ns;
	}
}

static void ftrace_line(char *line)
{
	char *p, *q, *ev, *f, flag = 0, comm[RTM_COMM_LEN];
	char tcomm[RTM_COMM_LEN] = "";
	__u64 cpu, secs, frac = 0, ts, pid = 0, x, y;
	__u32 c, ctx;
	struct ft_cpu *fc;
	int nd = 0;
	bool was_after_exit, soft;

	line[strcspn(line, "\r\n")] = 0;
	for (p = line; isspace((unsigned char)*p); p++)
		;
	if (!strncmp(p, "cpus=", 5)) {
		/* trace-cmd report header: size the core for this trace */
		if (!core && !params_set) {
			rtm_params_default(&params, 4);
			params.ncpus = (__u32)strtoul(p + 5, NULL, 10);
			if (!params.ncpus || params.ncpus > NCPU_FT)
				input_error("bad cpus= header");
			params_set = true;
		}
		return;
	}
	if (!*p || *p == '#' || !strncmp(p, "CPU ", 4))
		return;
	if (!core && !params_set) {
		/* ftrace without --param ncpus: room for NCPU_FT cpus */
		rtm_params_default(&params, NCPU_FT);
		params_set = true;
	}
	/* task-pid: the last '-' before the cpu column "[nnn]" */
	q = p;
	while ((q = strchr(q, '[')) &&
	       !(isdigit((unsigned char)q[1]) && strchr(q, ']') &&
		 strspn(q + 1, "0123456789") == (size_t)(strchr(q, ']') - q - 1)))
		q++;
	if (!q)
		input_error("not an ftrace event line (no [cpu] column)");
	{
		char *d = q;

		while (d > p && *d != '-')
			d--;
		if (*d == '-') {
			pid = strtoull(d + 1, NULL, 10);
			/* the task's comm: what precedes "-pid" */
			f = p;
			while (f < d && isspace((unsigned char)*f))
				f++;
			memset(tcomm, 0, sizeof(tcomm));
			memcpy(tcomm, f, (size_t)(d - f) < sizeof(tcomm) - 1 ?
			       (size_t)(d - f) : sizeof(tcomm) - 1);
		}
	}
	cpu = strtoull(q + 1, &q, 10);
	q++;			/* ']' */
	while (isspace((unsigned char)*q))
		q++;
	/* optional flags column (irqs-off, need-resched, hardirq/softirq, ...) */
	f = q;
	while (*q && !isspace((unsigned char)*q))
		q++;
	if (q[-1] != ':' || !isdigit((unsigned char)*f)) {
		/* the hardirq/softirq column moves (RT adds lazy columns) */
		if (strspn(f, ".bBdDXNnpLlZzHhs0123456789") < (size_t)(q - f))
			input_error("bad ftrace flags column");
		flag = '.';
		if (memchr(f, 'h', q - f) || memchr(f, 'H', q - f) ||
		    memchr(f, 'z', q - f) || memchr(f, 'Z', q - f))
			flag = 'h';
		else if (memchr(f, 's', q - f))
			flag = 's';
		while (isspace((unsigned char)*q))
			q++;
		f = q;
		while (*q && !isspace((unsigned char)*q))
			q++;
	}
	/* timestamp "secs.frac:" */
	if (q[-1] != ':' || !isdigit((unsigned char)*f))
		input_error("bad ftrace timestamp");
	secs = strtoull(f, &f, 10);
	if (*f == '.') {
		for (f++; isdigit((unsigned char)*f); f++) {
			if (nd < 9) {
				frac = frac * 10 + (unsigned long long)(*f - '0');
				nd++;
			}
		}
	}
	if (*f != ':')
		input_error("bad ftrace timestamp");
	for (; nd < 9; nd++)
		frac *= 10;
	ts = secs * 1000000000ull + frac;
	while (isspace((unsigned char)*q))
		q++;
	ev = q;
	q = strchr(ev, ':');
	if (!q)
		input_error("missing event name");
	*q++ = 0;
	while (isspace((unsigned char)*q))
		q++;
	core_setup();
	if (cpu >= params.ncpus || cpu >= NCPU_FT)
		input_error("cpu %llu out of range (use --param ncpus=N)", cpu);
	if (ts < last_ts)
		ts = last_ts;	/* merged per-cpu buffers may jitter */
	set_ts(ts);
	ft_ticks(ts);
	c = (__u32)cpu;
	fc = &ftc[c];
	ctx = ft_ctx(fc, flag);
	was_after_exit = fc->after_exit;
	fc->after_exit = false;

	/* resolve a pending irq exit: did the handler wake its thread? */
	if (fc->exit_pending) {
		if (!strcmp(ev, "sched_waking") && ctx == RTM_CTX_HARDIRQ) {
			ft_flush_exit(c, ft_waking_task(q, &x, comm) &&
				      !strncmp(comm, "irq/", 4));
		} else {
			ft_flush_exit(c, false);
		}
	}
	if (!strcmp(ev, "irq_handler_entry")) {
		if (!ft_num(q, "irq", 10, &x))
			input_error("irq_handler_entry without irq=");
		fc->hard++;
		rtm_ev_irq_entry(core, c, ts, (__u32)x);
	} else if (!strcmp(ev, "irq_handler_exit")) {
		if (!ft_num(q, "irq", 10, &x))
			input_error("irq_handler_exit without irq=");
		if (fc->hard > 0)
			fc->hard--;
		fc->after_exit = true;
		if (strstr(q, "ret=handled")) {
			fc->exit_pending = true;
			fc->exit_irq = (__u32)x;
			fc->exit_ts = ts;
			return;
		}
		rtm_ev_irq_exit(core, c, ts, (__u32)x, 0, 0);
	} else if (!strcmp(ev, "softirq_raise") || !strcmp(ev, "softirq_entry") ||
		   !strcmp(ev, "softirq_exit")) {
		if (!ft_num(q, "vec", 10, &x) || x >= RTM_NR_SOFTIRQ)
			input_error("%s without valid vec=", ev);
		if (ev[8] == 'r') {
			if (!flag && was_after_exit)
				ctx = RTM_CTX_HARDIRQ;
			rtm_ev_softirq_raise(core, c, ts, (__u32)x, ctx);
		} else if (ev[9] == 'n') {
			fc->soft++;
			rtm_ev_softirq_entry(core, c, ts, (__u32)x);
		} else {
			if (fc->soft > 0)
				fc->soft--;
			rtm_ev_softirq_exit(core, c, ts, (__u32)x);
		}
	} else if (!strcmp(ev, "hrtimer_start")) {
		/* the soft expiry, what the sleeper asked for (as the module) */
		if (ft_num(q, "hrtimer", 16, &x) &&
		    (ft_num(q, "softexpires", 10, &y) || ft_num(q, "expires", 10, &y)))
			timer_remember(x, y);
		return;
	} else if (!strcmp(ev, "hrtimer_expire_entry")) {
		const char *fn = ft_field(q, "function");
		__u64 now, exp, late = 0, start;
		bool known;

		if (!ft_num(q, "hrtimer", 16, &x) || !ft_num(q, "now", 10, &now))
			input_error("hrtimer_expire_entry without hrtimer=/now=");
		known = timer_lookup(x, &exp);
		if (known && now > exp)
			late = now - exp;
		if (late > ts)
			late = ts;
		/*
		 * The trace on the timer's own clock (trace_clock mono,
		 * trace-cmd record -C mono; a MONOTONIC timer): the programmed
		 * expiry is the start, as in the module. Else (another trace
		 * clock or timer base) the expiry as far before the event as
		 * it was before the handler's clock read, which misses the time
		 * from that read to the event.
		 */
		if (known && exp <= ts && now <= ts && ts - now < 1000000000ull)
			start = exp;
		else
			start = ts - late;
		/*
		 * Soft timer (HRTIMER softirq; on RT ktimers/N): flags 's'
		 * (or '.'), 'h'/'H' = hard. No flags column: soft only inside
		 * softirq_entry/exit, else hard (hrtimer_interrupt is not an
		 * irq_handler_entry).
		 */
		soft = flag ? ctx != RTM_CTX_HARDIRQ : ctx == RTM_CTX_SOFTIRQ;
		if (soft)
			fc->soft++;
		else
			fc->hard++;
		fc->tsoft = fc->tsoft << 1 | soft;
		fc->tdepth++;
		rtm_ev_timer_entry(core, c, ts, x, start, timer_kind_of_fn(fn),
				   soft ? RTM_CTX_SOFTIRQ : RTM_CTX_HARDIRQ);
	} else if (!strcmp(ev, "hrtimer_expire_exit")) {
		if (!ft_num(q, "hrtimer", 16, &x))
			input_error("hrtimer_expire_exit without hrtimer=");
		if (fc->tdepth > 0) {
			soft = fc->tsoft & 1;
			fc->tsoft >>= 1;
			fc->tdepth--;
		} else {
			soft = flag ? ctx != RTM_CTX_HARDIRQ :
				      ctx == RTM_CTX_SOFTIRQ;
		}
		if (soft && fc->soft > 0)
			fc->soft--;
		else if (!soft && fc->hard > 0)
			fc->hard--;
		rtm_ev_timer_exit(core, c, ts, x,
				  soft ? RTM_CTX_SOFTIRQ : RTM_CTX_HARDIRQ);
	} else if (!strcmp(ev, "sched_waking")) {
		if (!ft_waking_task(q, &x, comm))
			input_error("sched_waking without pid= (or trace-cmd's comm:pid [prio])");
		if (!flag && was_after_exit)
			ctx = RTM_CTX_HARDIRQ;
		rtm_ev_waking_running(core, c, ts, ctx, (__u32)pid, (__u32)x, 0,
			      comm, running_cpu((__u32)x));
	} else if (!strcmp(ev, "sched_switch")) {
		const char *st = ft_field(q, "prev_state"), *arrow;
		char pcomm[RTM_COMM_LEN];
		long state;

		if (ft_num(q, "prev_pid", 10, &x) && ft_num(q, "next_pid", 10, &y)
		    && st) {
			ft_comm(q, "next_comm", "next_pid", comm);
		} else if ((arrow = strstr(q, " ==> ")) &&
			   ft_plugin_task(q, arrow, &x, pcomm) &&
			   ft_plugin_task(arrow + 5, arrow + 5 + strlen(arrow + 5),
					  &y, comm)) {
			/* "prev:pid [prio] S ==> ...": the state before the arrow */
			for (st = arrow; st > q && st[-1] != ']'; st--)
				;
			while (*st == ' ')
				st++;
		} else {
			input_error("sched_switch without prev_pid/prev_state/next_pid (or trace-cmd's prev:pid [prio] S ==> next:pid [prio])");
		}
		/* R (or R+): preempted, still runnable */
		state = (*st == 'R') ? 0 : 1;
		fc->hard = 0;
		fc->soft = 0;
		fc->tsoft = 0;
		fc->tdepth = 0;
		track_switch(c, (__u32)y);
		rtm_ev_switch(core, c, ts, (__u32)x, state, (__u32)y, 0,
			      comm);
	} else if (!strcmp(ev, "rtmon_work")) {
		/* the markers, from rtmon's tracepoint: "begin|end cookie=N";
		 * tgid is not in the line: 0 on both sides
		 */
		if (!ft_num(q, "cookie", 10, &x))
			input_error("rtmon_work without cookie=");
		while (isspace((unsigned char)*q))
			q++;
		if (!strncmp(q, "begin", 5))
			rtm_ev_work_begin(core, c, ts, (__u32)pid, 0, x, tcomm);
		else
			rtm_ev_work_end(core, c, ts, (__u32)pid, 0, x, tcomm);
	} else if (!strcmp(ev, "workqueue_queue_work")) {
		if (!ft_num(q, "work struct", 16, &x))
			return;
		rtm_ev_work_begin(core, c, ts, (__u32)pid, 0, x, tcomm);
	} else if (!strcmp(ev, "workqueue_execute_end")) {
		const char *w = strstr(q, "work struct ");

		if (!w)
			return;
		x = strtoull(w + 12, NULL, 16);
		rtm_ev_work_end(core, c, ts, (__u32)pid, 0, x, NULL);
	} else {
		return;		/* other events are ignored */
	}
	after_event();
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: rtmon-replay [options] [FILE]   (FILE '-' or none: stdin)\n"
"  --format=auto|rtm|ftrace   input format (default: auto-detect)\n"
"  --json                     one JSON object per record + final counters\n"
"  --target SPEC              e.g. name=foo,end=block,deadline=50us,source=irq:42\n"
"                             keys: id name pid tgid source(any|timer|irq|irq:N)\n"
"                             end(switch_in|block|work_end) deadline\n"
"  --param KEY=VAL            core sizing: ncpus nchains nbranches chain_hops\n"
"                             task_buckets cookie_buckets ring_slots max_age\n"
"  --tick=DUR                 ftrace: synthesized tick period (default 10ms, 0=off)\n"
"  --drain-at-end             read records only at the end (rings may overflow)\n"
"  --no-flush                 skip the final tick past max_age and leak check\n"
"  --explain                  ftrace input: explain every record (where its time\n"
"                             went, who took it: rtmonctl explain's parts) from\n"
"                             the trace itself, after the records\n");
}

static void opt_param(char *s)
{
	struct kv kv[1];
	char *eq = strchr(s, '=');
	char copy[256];

	if (!eq)
		usage_error("--param needs KEY=VAL");
	snprintf(copy, sizeof(copy), "%s", s);
	fname = "--param";
	lineno = 0;
	eq = strchr(copy, '=');
	*eq = 0;
	kv[0].k = copy;
	kv[0].v = eq + 1;
	rtm_param_line(kv, 1);
}

static void opt_target(char *s)
{
	struct kv kv[16];
	char err[160], *p, *save = NULL, *eq;
	__u32 id;
	int n = 0;

	for (p = strtok_r(s, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		eq = strchr(p, '=');
		if (!eq || n == 16)
			usage_error("bad --target '%s' (key=value,...)", p);
		*eq = 0;
		kv[n].k = p;
		kv[n].v = eq + 1;
		n++;
	}
	if (parse_target(kv, n, &id, err, sizeof(err)))
		usage_error("--target: %s", err);
}

static void print_counters(__u32 leaks)
{
	struct rtm_stats s;
	const struct { const char *n; __u64 v; } *e;
	size_t i;

	rtm_core_stats(core, &s);
	{
		const struct { const char *n; __u64 v; } c[] = {
			{ "chains_started", s.chains_started },
			{ "chains_completed", s.chains_completed },
			{ "chains_abandoned", s.chains_abandoned },
			{ "chains_expired", s.chains_expired },
			{ "chains_overdue", s.chains_overdue },
			{ "branches_opened", s.branches_opened },
			{ "branches_completed", s.branches_completed },
			{ "branches_closed", s.branches_closed },
			{ "branches_pruned", s.branches_pruned },
			{ "branches_merged", s.branches_merged },
			{ "branches_stale", s.branches_stale },
			{ "branches_dropped", s.branches_dropped },
			{ "records_emitted", s.records_emitted },
			{ "records_written", s.records_written },
			{ "records_filtered", s.records_filtered },
			{ "records_read", s.records_read },
			{ "drop_ring_full", s.drop_ring_full },
			{ "drop_no_chain", s.drop_no_chain },
			{ "drop_no_branch", s.drop_no_branch },
			{ "drop_task_bucket", s.drop_task_bucket },
			{ "drop_cookie_bucket", s.drop_cookie_bucket },
			{ "drop_hops", s.drop_hops },
			{ "truncated", s.truncated },
			{ "irq_rerun", s.irq_rerun },
			{ "irq_coalesced", s.irq_coalesced },
			{ "irq_nowake", s.irq_nowake },
			{ "work_untraced", s.work_untraced },
			{ "work_handoff", s.work_handoff },
		};

		if (opt.json)
			printf("{\"type\":\"counters\"");
		else
			printf("counters:\n");
		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			e = (const void *)&c[i];
			if (opt.json)
				printf(",\"%s\":%llu", e->n, e->v);
			else
				printf("  %s=%llu\n", e->n, e->v);
		}
		if (opt.json)
			printf(",\"records\":%lu,\"leaks\":%u}\n", nrecords, leaks);
		else
			printf("records=%lu leaks=%u\n", nrecords, leaks);
	}
}

int main(int argc, char **argv)
{
	char line[MAX_LINE];
	FILE *in = stdin;
	const char *path = NULL;
	bool first = true;
	__u32 leaks = 0;
	int i;

	for (i = 1; i < argc; i++) {
		char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--json")) {
			opt.json = true;
		} else if (!strcmp(a, "--drain-at-end")) {
			opt.drain_at_end = true;
		} else if (!strcmp(a, "--no-flush")) {
			opt.flush = false;
		} else if (!strcmp(a, "--explain")) {
			opt.explain = true;
		} else if (!strncmp(a, "--format=", 9)) {
			if (!strcmp(a + 9, "auto"))
				opt.fmt = FMT_AUTO;
			else if (!strcmp(a + 9, "rtm"))
				opt.fmt = FMT_RTM;
			else if (!strcmp(a + 9, "ftrace"))
				opt.fmt = FMT_FTRACE;
			else
				usage_error("bad --format '%s'", a + 9);
		} else if (!strncmp(a, "--tick=", 7)) {
			if (!parse_dur(a + 7, &opt.tick_ns))
				usage_error("bad --tick '%s'", a + 7);
		} else if (!strcmp(a, "--target") || !strcmp(a, "--param")) {
			if (i + 1 >= argc)
				usage_error("%s needs an argument", a);
			if (a[2] == 't')
				opt_target(argv[++i]);
			else
				opt_param(argv[++i]);
		} else if (!strncmp(a, "--target=", 9)) {
			opt_target(a + 9);
		} else if (!strncmp(a, "--param=", 8)) {
			opt_param(a + 8);
		} else if (a[0] == '-' && a[1]) {
			usage_error("unknown option '%s'", a);
		} else if (path) {
			usage_error("only one input file");
		} else {
			path = a;
		}
	}
	if (path && strcmp(path, "-")) {
		in = fopen(path, "r");
		if (!in) {
			fprintf(stderr, "rtmon-replay: %s: %s\n", path,
				strerror(errno));
			return 2;
		}
		fname = path;
	} else {
		fname = "<stdin>";
	}
	lineno = 0;
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(in))
			input_error("line too long");
		if (first && opt.fmt == FMT_AUTO) {
			char *p = line;

			while (isspace((unsigned char)*p))
				p++;
			if (!*p)
				continue;
			if (*p == '#') {
				if (strstr(p, "tracer:"))
					opt.fmt = FMT_FTRACE;
				continue;
			}
			first = false;
			opt.fmt = FMT_RTM;
			if (!strncmp(p, "cpus=", 5) ||
			    (strstr(p, "] ") && strstr(p, ": ") &&
			     !isdigit((unsigned char)*p)))
				opt.fmt = FMT_FTRACE;
		}
		if (opt.fmt == FMT_FTRACE) {
			if (opt.explain)
				rx_keep_line(line);	/* ftrace_line() cuts it */
			ftrace_line(line);
		} else {
			if (opt.explain)
				input_error("--explain needs a kernel trace (ftrace text, trace-cmd report), not the rtm format");
			rtm_line(line);
		}
	}
	if (ferror(in)) {
		fprintf(stderr, "rtmon-replay: read error\n");
		return 1;
	}
	lineno++;
	core_setup();
	for (i = 0; i < (int)params.ncpus && i < NCPU_FT; i++)
		ft_flush_exit((__u32)i, false);
	drain();
	if (opt.flush) {
		/* past max_age, or the clock's end (no wrap) */
		rtm_ev_tick(core, 0, last_ts > UINT64_MAX - params.max_age_ns - 1 ?
			    UINT64_MAX : last_ts + params.max_age_ns + 1);
		drain();
		leaks = rtm_core_check_quiescent(core);
	}
	if (opt.explain && rx_explain_all(opt.json))
		return 1;
	print_counters(leaks);
	free(core_mem);
	return leaks ? 3 : 0;
}

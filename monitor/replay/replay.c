// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rtmon-replay - run recorded events through the rtmon chain-tracking
 * core and print the records it emits.
 *
 * Input formats (see README.md in this directory), each in its own file
 * behind struct rx_input (replay.h):
 *   rtm     native, one event per line: "<ts> <cpu> <event> key=value..."
 *           plus "target ...", "param ..." and "option ..." directives
 *           (replay_rtm.c).
 *   ftrace  text from /sys/kernel/tracing/trace or `trace-cmd report`
 *           (replay_ftrace.c, events replayed by replay_kev.c).
 *   dat     trace-cmd .dat files, with libtracecmd (replay_dat.c, the
 *           same replay_kev.c).
 * Auto-detected unless --format is given. This file: options, the main
 * loop, the core, records and counters.
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
#include <unistd.h>

#include "rtm_core.h"
#include "rtmon/rtmon.h"
#include "rtmon_format.h"
#include "rtmon_summary.h"
#include "replay.h"

#define MAX_LINE	4096
#define MAX_TOK		64

const char *vec_names[RTM_NR_SOFTIRQ] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU"
};

struct opts opt = { .fmt = FMT_AUTO, .flush = true, .tick_ns = 10000000ull };
struct rtm_params params;
bool params_set;
struct rtm_core *core;
static void *core_mem;
struct rtm_target_spec pending_tg[RTM_MAX_TARGETS];
bool pending_used[RTM_MAX_TARGETS];
static __u32 next_tid;
const char *fname = "-";
unsigned long lineno;
__u64 last_ts;
static unsigned long nrecords;

static void where_line(FILE *f)
{
	fprintf(f, "%s:%lu: ", fname, lineno);
}

void (*rx_where)(FILE *f) = where_line;

void input_error(const char *fmt, ...)
{
	va_list ap;

	rx_where(stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

unsigned long rx_not_understood;
static unsigned long first_not_understood;

void not_understood(const char *fmt, ...)
{
	va_list ap;

	if (!rx_not_understood++)
		first_not_understood = lineno;
	if (rx_not_understood > 3)
		return;
	rx_where(stderr);
	fprintf(stderr, "line not understood, skipped: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void usage_error(const char *fmt, ...)
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

bool parse_u64(const char *s, __u64 *out)
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

/*
 * A duration given by a person (--target, --param, --tick): with a unit, as
 * everywhere in rtmon ("0" aside), so that "deadline=100" is not 100 ns.
 */
static bool parse_dur_unit(const char *s, __u64 *out);

/* "123", "1.5us", "100us", "2ms", "1s", "10ns" -> ns */
bool parse_dur(const char *s, __u64 *out)
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
	/* past the 64-bit ns clock: no wrap */
	if (ip > (UINT64_MAX - frac * mul / fdiv) / mul)
		return false;
	*out = ip * mul + frac * mul / fdiv;
	return true;
}

static bool parse_dur_unit(const char *s, __u64 *out)
{
	size_t n = strlen(s);

	if (strcmp(s, "0") && (!n || !isalpha((unsigned char)s[n - 1])))
		return false;
	return parse_dur(s, out);
}

/* ---- key=value tokens ---- */

int split_kv(char **tok, int n, struct kv *kv)
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

const char *kv_get(struct kv *kv, int n, const char *k, bool req)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(kv[i].k, k))
			return kv[i].v;
	if (req)
		input_error("missing %s=", k);
	return NULL;
}

void kv_check(struct kv *kv, int n, const char *const *allowed)
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

__u64 kv_u64(struct kv *kv, int n, const char *k, bool req,
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

__u32 kv_u32(struct kv *kv, int n, const char *k, bool req,
		       __u32 def)
{
	__u64 x = kv_u64(kv, n, k, req, def);

	if (x > UINT32_MAX)
		input_error("%s out of range", k);
	return (__u32)x;
}

/* a cpu number for thread_run= (the core ignores cpus >= ncpus) */
void comm_copy(char *dst, const char *src)
{
	memset(dst, 0, RTM_COMM_LEN);
	if (src)
		strncpy(dst, src, RTM_COMM_LEN - 1);
}

/* ---- targets (shared by "target" lines and --target) ---- */

/* One timer kind (RTM_TIMER_*) by name (librtmon's names); 0: unknown. */
unsigned int timer_kind_parse(const char *s)
{
	uint32_t m;

	if (rtmon_timers_parse(s, &m) || !m || (m & (m - 1)))
		return 0;
	return (unsigned int)__builtin_ctz(m);
}

/* what the module finds by address (kmod/rtmon_probes.c), here by name */
unsigned int timer_kind_of_fn(const char *fn)
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
int parse_target(struct kv *kv, int n, __u32 *id, char *err,
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
			if (!parse_dur_unit(v, &t.deadline_ns))
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

void core_setup(void)
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

/* hop names: librtmon's, as in the module's records */
static const char *hop_name(unsigned int t)
{
	return rtmon_hop_name(t);
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
		{ RTM_REC_F_REPOLL, "REPOLL" },
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

/*
 * The blame's parts add up to the latency (rtm_blame.c builds them so):
 * a record where they do not is a bug of the core, not of the input.
 */
static void blame_check(const struct rtm_record *r)
{
	unsigned long long sum = 0;
	unsigned int i;

	for (i = 0; i < RTM_BLAME_NR; i++)
		sum += r->blame.ns[i];
	if (sum != r->latency_ns) {
		fprintf(stderr, "rtmon-replay: record #%llu: blame adds up to %llu ns, latency %llu ns\n",
			(unsigned long long)r->seq, sum,
			(unsigned long long)r->latency_ns);
		exit(3);
	}
}

static void blame_text(const struct rtm_record *r)
{
	const struct rtm_rec_culprit *k;
	char comm[RTM_COMM_LEN + 1], prio[16];
	unsigned int i;

	printf("  blame:");
	for (i = 0; i < RTM_BLAME_NR; i++)
		if (r->blame.ns[i])
			printf(" %s=%llu", rtmon_blame_name(i),
			       (unsigned long long)r->blame.ns[i]);
	for (i = 0; i < RTM_REC_CULPRITS; i++) {
		k = &r->blame.culprit[i];
		if (!k->pid)
			continue;
		comm_str(comm, k->comm);
		rtmon_prio_str(k->prio, prio, sizeof(prio));
		printf(" | %s behind %s[%u]%s%s %llu", rtmon_blame_name(k->category),
		       comm[0] ? comm : "?", k->pid, prio[0] ? " " : "", prio,
		       (unsigned long long)k->ns);
	}
	if (r->blame.culprit_other_ns)
		printf(" | other %llu", (unsigned long long)r->blame.culprit_other_ns);
	putchar('\n');
}

/*
 * The record JSON schema's integers are signed 64-bit (jansson's, and so
 * every reader's): a time past 2^63 ns (292 years of uptime; only a made-up
 * trace gets there) cannot be written, and is refused rather than wrapped.
 */
static void json_range_check(const struct rtm_record *r)
{
	unsigned long long m = r->start_ns | r->end_ns | r->latency_ns | r->deadline_ns;
	unsigned int i;

	for (i = 0; i < r->nhops && i < RTM_REC_MAX_HOPS; i++)
		m |= r->hops[i].ts_ns;
	if (m >> 63)
		input_error("record #%llu: a time past 2^63 ns, which the record JSON "
			    "(signed 64-bit integers) cannot hold: replay without --json",
			    (unsigned long long)r->seq);
}

/* o as one line of the JSON stream, "type" first; o's reference is dropped */
static void json_stream_line(const char *type, json_t *o, const char *what)
{
	json_t *line = json_pack("{s:s}", "type", type);

	if (!o || !line || json_object_update(line, o) ||
	    json_dumpf(line, stdout, JSON_COMPACT)) {
		fprintf(stderr, "rtmon-replay: no memory for %s\n", what);
		exit(3);
	}
	putchar('\n');
	json_decref(o);
	json_decref(line);
}

/* --summary: every record read, and their span in trace time */
static struct rtmon_summary summary;
static __u64 summary_first_ns = UINT64_MAX, summary_last_ns;

/* a target by its task name (--target name= or comm=), made text */
static const char *target_label(uint32_t id)
{
	static char buf[RTMON_COMM_TEXT];

	if (id >= RTM_MAX_TARGETS || !pending_tg[id].comm[0])
		return NULL;
	rtmon_comm(buf, (const uint8_t *)pending_tg[id].comm);
	return buf;
}

static void summary_print(void)
{
	double s = summary_last_ns > summary_first_ns ?
		   (double)(summary_last_ns - summary_first_ns) / 1e9 : 0;

	if (opt.json)
		json_stream_line("summary", rtmon_summary_json(&summary, s, target_label),
				 "the summary");
	else
		rtmon_summary_text(stdout, &summary, s, target_label);
	rtmon_summary_free(&summary);
}

static void print_record(const struct rtm_record *r)
{
	char comm[RTM_COMM_LEN + 1], fl[128], desc[64];
	const struct rtm_rec_hop *h;
	unsigned int i;

	nrecords++;
	blame_check(r);
	if (opt.explain)
		rx_keep_record(r);
	if (opt.summary) {
		if (rtmon_summary_add(&summary, r)) {
			fprintf(stderr, "rtmon-replay: no memory for the summary\n");
			exit(3);
		}
		if (r->start_ns < summary_first_ns)
			summary_first_ns = r->start_ns;
		if (r->end_ns > summary_last_ns)
			summary_last_ns = r->end_ns;
	}
	if (opt.json) {
		/* rtmonctl's and rtmond's schema */
		json_range_check(r);
		json_stream_line("record", rtmon_record_json(r, NULL), "a record's JSON");
		return;
	}
	comm_str(comm, r->target_comm);
	flags_str(fl, sizeof(fl), r->flags);
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
	blame_text(r);
}

void drain(void)
{
	struct rtm_record r;
	__u32 k;

	for (k = 0; k < params.ncpus; k++)
		while (rtm_core_read(core, k, &r))
			print_record(&r);
}

void after_event(void)
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

void track_switch(__u64 cpu, __u32 next)
{
	if (cpu < NCPU_TRACK)
		cur_pid[cpu] = next;
}

int running_cpu(__u32 pid)
{
	__u32 k;

	for (k = 0; pid && k < params.ncpus && k < NCPU_TRACK; k++)
		if (cur_pid[k] == pid)
			return (int)k;
	return -1;
}

void check_cpu(__u64 cpu)
{
	if (cpu >= params.ncpus)
		input_error("cpu %llu out of range (ncpus=%u)", cpu,
			    params.ncpus);
}

void set_ts(__u64 ts)
{
	if (ts < last_ts)
		input_error("timestamp goes backwards (%llu < %llu)",
			    ts, last_ts);
	last_ts = ts;
}

void rtm_param_line(struct kv *kv, int n)
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
	if (v && !parse_dur_unit(v, &params.max_age_ns))
		input_error("bad max_age '%s' (a number with a unit: 10ms)", v);
	if (!rtm_core_memsize(&params))
		input_error("invalid parameters (pool sizes, powers of 2)");
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: rtmon-replay [options] [FILE]   (FILE '-' or none: stdin)\n"
"  --format=auto|rtm|ftrace|dat  input format (default: auto-detect; dat:\n"
"                             a trace-cmd .dat file, read with libtracecmd)\n"
"  --json                     one JSON object per record + final counters\n"
"  --target SPEC              e.g. name=foo,end=block,deadline=50us,source=irq:42\n"
"                             keys: id name pid tgid source(any|timer|irq|irq:N)\n"
"                             end(switch_in|block|work_end) deadline\n"
"  --param KEY=VAL            core sizing: ncpus nchains nbranches chain_hops\n"
"                             task_buckets cookie_buckets ring_slots max_age\n"
"  --tick=DUR                 ftrace, dat: synthesized tick period (default 10ms, 0=off)\n"
"  --drain-at-end             read records only at the end (rings may overflow)\n"
"  --no-flush                 skip the final tick past max_age and leak check\n"
"  --explain                  ftrace, dat: explain every record (where its time\n"
"                             went, who took it: rtmonctl explain's parts) from\n"
"                             the trace itself, after the records\n"
"  --summary                  after the records, rtmonctl records' summary: per\n"
"                             target count, misses, timeouts, latency min/avg/\n"
"                             max/p99/p99.9 (us), over the records' span\n"
"  -h, --help                 this text\n"
"  --version                  rtmon-replay's version\n");
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
			{ "softirq_repoll", s.softirq_repoll },
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
			printf(",\"records\":%lu,\"leaks\":%u,\"lines_not_understood\":%lu}\n",
			       nrecords, leaks, rx_not_understood);
		else if (rx_not_understood)
			printf("records=%lu leaks=%u lines_not_understood=%lu\n",
			       nrecords, leaks, rx_not_understood);
		else
			printf("records=%lu leaks=%u\n", nrecords, leaks);
	}
}

/* a trace-cmd .dat? (its magic; the stream is left at its start) */
static bool is_dat(FILE *in)
{
	char magic[RX_DAT_MAGIC_LEN];
	size_t n;
	int c = getc(in);

	if (c == EOF)
		return false;
	if (c != RX_DAT_MAGIC[0] || fseek(in, 0, SEEK_SET)) {
		/* text never starts with 0x17; a pipe cannot seek back */
		ungetc(c, in);
		return c == RX_DAT_MAGIC[0];
	}
	n = fread(magic, 1, sizeof(magic), in);
	if (fseek(in, 0, SEEK_SET))
		return true;
	return n == sizeof(magic) && !memcmp(magic, RX_DAT_MAGIC, sizeof(magic));
}

/*
 * Binary input is read whole before anything is printed: stdout goes to
 * a temporary file until the end, so an input error (exit 1) leaves
 * nothing half-printed as if it were a result.
 */
static int spool_out = -1;

static void spool_begin(void)
{
	FILE *t = tmpfile();

	fflush(stdout);
	spool_out = dup(1);
	if (!t || spool_out < 0 || dup2(fileno(t), 1) < 0) {
		perror("rtmon-replay: output");
		exit(2);
	}
}

/*
 * What went to the spool so far, as one line (at most len - 1 bytes):
 * libraries that print their diagnostics on stdout (libtracecmd's
 * "File possibly truncated") before anything else was written.
 */
void spool_text(char *buf, size_t len)
{
	ssize_t n;
	char *p;

	buf[0] = 0;
	if (spool_out < 0 || !len)
		return;
	fflush(stdout);
	n = pread(1, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	for (p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	while (p > buf && p[-1] == ' ')
		*--p = 0;
}

static void spool_end(void)
{
	char buf[65536];
	ssize_t n, w, off;

	if (spool_out < 0)
		return;
	if (fflush(stdout) || lseek(1, 0, SEEK_SET) < 0)
		goto err;
	while ((n = read(1, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; off += w) {
			w = write(spool_out, buf + off, (size_t)(n - off));
			if (w < 0)
				goto err;
		}
	}
	if (n < 0 || dup2(spool_out, 1) < 0)
		goto err;
	close(spool_out);
	spool_out = -1;
	return;
err:
	perror("rtmon-replay: output");
	exit(2);
}

int main(int argc, char **argv)
{
	char line[MAX_LINE];
	FILE *in = stdin;
	const char *path = NULL;
	const struct rx_input *input = NULL;
	bool first = true;
	__u32 leaks = 0;
	int i;

	for (i = 1; i < argc; i++) {
		char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("rtmon-replay %s (record version %d)\n", RTMON_PKG_VERSION,
			       RTM_REC_VERSION);
			return 0;
		} else if (!strcmp(a, "--json")) {
			opt.json = true;
		} else if (!strcmp(a, "--drain-at-end")) {
			opt.drain_at_end = true;
		} else if (!strcmp(a, "--no-flush")) {
			opt.flush = false;
		} else if (!strcmp(a, "--explain")) {
			opt.explain = true;
		} else if (!strcmp(a, "--summary")) {
			opt.summary = true;
		} else if (!strncmp(a, "--format=", 9)) {
			if (!strcmp(a + 9, "auto"))
				opt.fmt = FMT_AUTO;
			else if (!strcmp(a + 9, "rtm"))
				opt.fmt = FMT_RTM;
			else if (!strcmp(a + 9, "ftrace"))
				opt.fmt = FMT_FTRACE;
			else if (!strcmp(a + 9, "dat"))
				opt.fmt = FMT_DAT;
			else
				usage_error("bad --format '%s'", a + 9);
		} else if (!strncmp(a, "--tick=", 7)) {
			if (!parse_dur_unit(a + 7, &opt.tick_ns))
				usage_error("bad --tick '%s' (a number with a unit: 10ms; 0: off)", a + 7);
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
		path = NULL;
		fname = "<stdin>";
	}
	if (opt.fmt == FMT_AUTO && is_dat(in))
		opt.fmt = FMT_DAT;
	if (opt.fmt == FMT_DAT) {
		/* records reach stdout only once the whole file is read */
		spool_begin();
		input = &rx_dat_input;
		input->file(path);
	}
	lineno = 0;
	while (opt.fmt != FMT_DAT && fgets(line, sizeof(line), in)) {
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
		input = opt.fmt == FMT_FTRACE ? &rx_ftrace_input : &rx_rtm_input;
		input->line(line);
	}
	if (ferror(in)) {
		fprintf(stderr, "rtmon-replay: read error\n");
		return 1;
	}
	lineno++;
	core_setup();
	if (input)
		input->end();
	drain();
	if (opt.flush) {
		/* no time is past max_age: last_ts + max_age + 1 wraps */
		bool clock_end = params.max_age_ns >= UINT64_MAX - last_ts;

		/* past max_age, or the clock's end (no wrap) */
		rtm_ev_tick(core, 0, clock_end ? UINT64_MAX :
			    last_ts + params.max_age_ns + 1);
		/*
		 * At the clock's end, a chain (or a waiting work item) from
		 * within max_age of it is not aged by that tick: no later
		 * time exists. It is expired as the module does when
		 * tracking stops (its overdue report, if due, was made).
		 */
		if (clock_end)
			rtm_core_expire_all(core, 0);
		drain();
		leaks = rtm_core_check_quiescent(core);
	}
	if (opt.explain && rx_explain_all(opt.json))
		return 1;
	if (opt.summary)
		summary_print();
	print_counters(leaks);
	if (rx_lock_waits || rx_lock_handovers)
		fprintf(stderr, "rtmon-replay: %s: %lu PREEMPT_RT lock waits followed through (D inside lock:contention_begin RT .. contention_end), %lu lock hand-overs\n",
			fname, rx_lock_waits, rx_lock_handovers);
	if (rx_wakeups_asleep)
		fprintf(stderr, "rtmon-replay: %s: %lu wakeups of a task still current elsewhere but on its way to sleep (its switch-out a block) taken as plain wakeups\n",
			fname, rx_wakeups_asleep);
	if (rx_irq_reruns)
		fprintf(stderr, "rtmon-replay: %s: %lu handled IRQ exits with no waking while the IRQ's thread was awake taken as reruns of the thread\n",
			fname, rx_irq_reruns);
	if (rx_not_understood)
		fprintf(stderr, "rtmon-replay: %s: %lu lines not understood and skipped (first: line %lu)\n",
			fname, rx_not_understood, first_not_understood);
	spool_end();
	free(core_mem);
	return leaks ? 3 : 0;
}


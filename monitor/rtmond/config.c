// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - parse rtmond's configuration with libconfig (config.h).
 *
 * Every error names the file, the line and the key: "FILE:LINE: KEY: MSG".
 * Unknown keys are errors too (a typo must not silently drop a setting).
 * Parsing goes on after an error in a target or a group, so that one run
 * reports the first error of each (one per line of err).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <libconfig.h>

#include "config.h"
#include "rtmon_format.h"

struct pctx {
	const char *name;	/* file name for errors */
	char *err;
	size_t errlen;
	unsigned int nerr;	/* errors in err so far */
	int full;		/* err full: the rest said to be left out */
};

/* err's end kept for the note that errors were left out */
#define PERR_NOTE	"\n(more errors not shown)"

static int __attribute__((format(printf, 4, 5)))
perr(struct pctx *p, const config_setting_t *s, const char *key, const char *fmt, ...)
{
	const char *file = s ? config_setting_source_file(s) : NULL;
	int line = s ? (int)config_setting_source_line(s) : 0;
	size_t n = p->nerr++ ? strlen(p->err) : 0;
	size_t room = p->errlen > sizeof(PERR_NOTE) ? p->errlen - sizeof(PERR_NOTE) : 0;
	va_list ap;

	if (p->full)
		return -1;
	if (n + 1 >= room) {
		if (n && n + sizeof(PERR_NOTE) <= p->errlen)
			memcpy(p->err + n, PERR_NOTE, sizeof(PERR_NOTE));
		p->full = 1;
		return -1;
	}
	n += (size_t)snprintf(p->err + n, room - n, "%s%s:%d: %s: ", n ? "\n" : "",
			      file ? file : p->name, line, key);
	if (n < room) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, room - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Refuse keys a group does not know. */
static int check_keys(struct pctx *p, const config_setting_t *g, const char *gname,
		      const char *const *known)
{
	int i, n = config_setting_length(g);

	for (i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned int)i);
		const char *k = config_setting_name(s);
		const char *const *kk;
		char key[128];

		if (!k)
			continue;
		for (kk = known; *kk; kk++)
			if (!strcmp(*kk, k))
				break;
		if (!*kk) {
			snprintf(key, sizeof(key), "%s%s%s", gname, *gname ? "." : "", k);
			return perr(p, s, key, "unknown setting");
		}
	}
	return 0;
}

static int get_str(struct pctx *p, const config_setting_t *g, const char *gname,
		   const char *k, char *dst, size_t len, int *found)
{
	const config_setting_t *s = config_setting_get_member(g, k);
	char key[128];
	const char *v;

	if (found)
		*found = !!s;
	if (!s)
		return 0;
	snprintf(key, sizeof(key), "%s.%s", gname, k);
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return perr(p, s, key, "must be a string");
	v = config_setting_get_string(s);
	if (strlen(v) >= len)
		return perr(p, s, key, "too long (at most %zu characters)", len - 1);
	strcpy(dst, v);
	return 0;
}

static int get_bool(struct pctx *p, const config_setting_t *g, const char *gname,
		    const char *k, int *dst)
{
	const config_setting_t *s = config_setting_get_member(g, k);
	char key[128];

	if (!s)
		return 0;
	snprintf(key, sizeof(key), "%s.%s", gname, k);
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return perr(p, s, key, "must be true or false");
	*dst = config_setting_get_bool(s);
	return 0;
}

static int get_int(struct pctx *p, const config_setting_t *g, const char *gname,
		   const char *k, long long lo, long long hi, long long *dst, int *found)
{
	const config_setting_t *s = config_setting_get_member(g, k);
	char key[128];
	long long v;

	if (found)
		*found = !!s;
	if (!s)
		return 0;
	snprintf(key, sizeof(key), "%s.%s", gname, k);
	if (config_setting_type(s) != CONFIG_TYPE_INT &&
	    config_setting_type(s) != CONFIG_TYPE_INT64)
		return perr(p, s, key, "must be an integer");
	v = config_setting_get_int64(s);
	if (v < lo || v > hi)
		return perr(p, s, key, "%lld out of range [%lld, %lld]", v, lo, hi);
	*dst = v;
	return 0;
}

/* A duration: a string with a unit ("100us", "1.5ms", "10s"). */
static int get_dur(struct pctx *p, const config_setting_t *s, const char *key,
		   uint64_t *dst)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return perr(p, s, key, "must be a duration string with a unit (\"100us\", \"5ms\")");
	if (rtmon_parse_duration(config_setting_get_string(s), dst))
		return perr(p, s, key, "bad duration \"%s\" (a number and ns, us, ms, s, min, h or d)",
			    config_setting_get_string(s));
	return 0;
}

static int get_dur_member(struct pctx *p, const config_setting_t *g, const char *gname,
			  const char *k, uint64_t *dst, int *found)
{
	const config_setting_t *s = config_setting_get_member(g, k);
	char key[128];

	if (found)
		*found = !!s;
	if (!s)
		return 0;
	snprintf(key, sizeof(key), "%s.%s", gname, k);
	return get_dur(p, s, key, dst);
}

/* A size: bytes, or a number with K, M, G or T (powers of 1024). */
static int get_size_member(struct pctx *p, const config_setting_t *g, const char *gname,
			   const char *k, uint64_t *dst)
{
	const config_setting_t *s = config_setting_get_member(g, k);
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *str, *u;
	char key[128], *end;
	int shift = 0;

	if (!s)
		return 0;
	snprintf(key, sizeof(key), "%s.%s", gname, k);
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return perr(p, s, key, "must be a size string (\"512M\", \"2G\", \"0\" for no limit)");
	str = config_setting_get_string(s);
	errno = 0;
	v = strtoull(str, &end, 10);
	if (errno || end == str || *str == '-')
		return perr(p, s, key, "bad size \"%s\" (a number of bytes, or with K, M, G or T)", str);
	if (*end) {
		u = end[1] ? NULL : strchr(units, *end);
		if (!u)
			return perr(p, s, key, "bad size \"%s\" (a number of bytes, or with K, M, G or T)", str);
		shift = 10 * (int)(u - units + 1);
	}
	if (v > (UINT64_MAX >> shift))
		return perr(p, s, key, "\"%s\" is too large", str);
	*dst = (uint64_t)v << shift;
	return 0;
}

static const char *const target_keys[] = {
	"name", "comm", "pid", "tgid", "source", "irq", "timers", "end",
	"deadline", "misses_only", NULL
};

static int parse_target(struct pctx *p, struct rtmond_config *c,
			const config_setting_t *g, unsigned int idx)
{
	struct rtmond_target_conf *tc = &c->targets[c->ntargets];
	struct rtmon_target *t = &tc->t;
	const config_setting_t *s;
	char gname[32], key[64], src[16] = "", end[16] = "switch_in";
	char timers[64] = "";
	long long v;
	uint64_t dl = 0;
	int found, has_src, has_irq = 0, mo = 0;
	unsigned int i;

	snprintf(gname, sizeof(gname), "targets.[%u]", idx);
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return perr(p, g, gname, "a target must be a group { name = ...; ... }");
	rtmon_target_init(t);
	if (get_str(p, g, gname, "name", tc->name, sizeof(tc->name), &found))
		return -1;
	/* its records and metrics carry it as it is */
	if (found && !rtmon_text_ok(tc->name))
		return perr(p, config_setting_get_member(g, "name"), gname,
			    "a target name must be UTF-8 text without control characters");
	if (found && tc->name[0])	/* errors name the target from here on */
		snprintf(gname, sizeof(gname), "targets.%s", tc->name);
	if (check_keys(p, g, gname, target_keys))
		return -1;
	if (!found || !tc->name[0])
		return perr(p, g, gname, "a target needs a name");
	for (i = 0; i < c->ntargets; i++)
		if (!strcmp(c->targets[i].name, tc->name))
			return perr(p, config_setting_get_member(g, "name"),
				    gname, "a target with this name is already defined");
	memcpy(t->name, tc->name, sizeof(t->name));
	if (get_str(p, g, gname, "comm", t->comm, sizeof(t->comm), NULL))
		return -1;
	if (get_int(p, g, gname, "pid", 0, INT32_MAX, &v, &found))
		return -1;
	if (found)
		t->pid = (uint32_t)v;
	if (get_int(p, g, gname, "tgid", 0, INT32_MAX, &v, &found))
		return -1;
	if (found)
		t->tgid = (uint32_t)v;
	if (get_str(p, g, gname, "source", src, sizeof(src), &has_src))
		return -1;
	s = config_setting_get_member(g, "irq");
	snprintf(key, sizeof(key), "%s.irq", gname);
	if (s) {
		has_irq = 1;
		if (config_setting_type(s) == CONFIG_TYPE_INT) {
			v = config_setting_get_int(s);
			if (v < 0 || v > 65535)
				return perr(p, s, key, "%lld out of range [0, 65535]", v);
			t->irq = (int32_t)v;
		} else if (config_setting_type(s) == CONFIG_TYPE_STRING) {
			const char *n = config_setting_get_string(s);

			if (!n[0] || strlen(n) >= sizeof(t->irq_name))
				return perr(p, s, key, "an IRQ name of 1 to %zu characters",
					    sizeof(t->irq_name) - 1);
			strcpy(t->irq_name, n);
		} else {
			return perr(p, s, key, "an IRQ number or a name as in /proc/interrupts");
		}
	}
	snprintf(key, sizeof(key), "%s.source", gname);
	s = config_setting_get_member(g, "source");
	if (!has_src)
		t->src = has_irq ? RTMON_SRC_IRQ : RTMON_SRC_ANY;
	else if (!strcmp(src, "any"))
		t->src = RTMON_SRC_ANY;
	else if (!strcmp(src, "irq"))
		t->src = RTMON_SRC_IRQ;
	else if (!strcmp(src, "timer"))
		t->src = RTMON_SRC_TIMER;
	else if (!strcmp(src, "any_irq"))
		t->src = RTMON_SRC_IRQ_ANY;
	else
		return perr(p, s, key, "\"%s\": one of any, irq, timer, any_irq", src);
	if (t->src == RTMON_SRC_IRQ && !has_irq)
		return perr(p, s, key, "source irq needs irq = NUMBER or \"NAME\"");
	if (t->src != RTMON_SRC_IRQ && has_irq)
		return perr(p, config_setting_get_member(g, "irq"), key,
			    "irq is only for source = \"irq\"");
	if (get_str(p, g, gname, "timers", timers, sizeof(timers), &found))
		return -1;
	snprintf(key, sizeof(key), "%s.timers", gname);
	if (found && t->src != RTMON_SRC_ANY && t->src != RTMON_SRC_TIMER)
		return perr(p, config_setting_get_member(g, "timers"), key,
			    "timers is only for source = \"timer\" or \"any\"");
	if (found && rtmon_timers_parse(timers, &t->timers))
		return perr(p, config_setting_get_member(g, "timers"), key,
			    "\"%s\": comma-separated kinds of sleeper, timerfd, posix, timerlat, other",
			    timers);
	if (get_str(p, g, gname, "end", end, sizeof(end), NULL))
		return -1;
	if (rtmon_end_parse(end, &t->end)) {
		snprintf(key, sizeof(key), "%s.end", gname);
		return perr(p, config_setting_get_member(g, "end"), key,
			    "\"%s\": one of switch_in, block, work_end", end);
	}
	snprintf(key, sizeof(key), "%s.deadline", gname);
	if (get_dur_member(p, g, gname, "deadline", &dl, &found))
		return -1;
	if (found && !dl)
		return perr(p, config_setting_get_member(g, "deadline"), key,
			    "must be more than 0 (leave it out for none)");
	t->deadline_ns = dl;
	if (get_bool(p, g, gname, "misses_only", &mo))
		return -1;
	if (mo)
		t->flags |= RTMON_TF_MISSES_ONLY;
	if (!t->comm[0] && !t->pid && !t->tgid && t->src != RTMON_SRC_IRQ)
		return perr(p, g, gname, "a target needs a task (comm, pid, tgid) or an irq");
	c->ntargets++;
	return 0;
}

static const char *const snapshot_keys[] = {
	"dir", "records_file", "ftrace", "ftrace_instance", "ftrace_buffer_kb",
	"lttng", "lttng_output", "lttng_session", "lttng_kernel", "lttng_kernel_buffer_kb",
	"on_timeout", "defer", "rate_burst", "rate_interval", "gather",
	"max_disk", "max_age", "max_file_size", "keep_files", NULL
};

static int parse_snapshot(struct pctx *p, struct rtmond_config *c, const config_setting_t *g)
{
	const char *gn = "snapshot";
	long long v;
	int found;
	char *q;

	if (check_keys(p, g, gn, snapshot_keys) ||
	    get_str(p, g, gn, "dir", c->dir, sizeof(c->dir), NULL) ||
	    get_bool(p, g, gn, "records_file", &c->records_file) ||
	    get_bool(p, g, gn, "ftrace", &c->ftrace) ||
	    get_str(p, g, gn, "ftrace_instance", c->ftrace_instance,
		    sizeof(c->ftrace_instance), &found))
		return -1;
	if (found && (!c->ftrace_instance[0] || strchr(c->ftrace_instance, '/') ||
		      !strcmp(c->ftrace_instance, ".") || !strcmp(c->ftrace_instance, "..")))
		return perr(p, config_setting_get_member(g, "ftrace_instance"),
			    "snapshot.ftrace_instance", "a plain directory name");
	if (get_int(p, g, gn, "ftrace_buffer_kb", 64, 1 << 20, &v, &found))
		return -1;
	if (found)
		c->ftrace_buffer_kb = (unsigned int)v;
	if (get_bool(p, g, gn, "lttng", &c->lttng) ||
	    get_str(p, g, gn, "lttng_output", c->lttng_output, sizeof(c->lttng_output), &found))
		return -1;
	q = c->lttng_output;
	if (found && q[0] && strncmp(q, "net://", 6) && strncmp(q, "net6://", 7) &&
	    strncmp(q, "file://", 7) && q[0] != '/')
		return perr(p, config_setting_get_member(g, "lttng_output"),
			    "snapshot.lttng_output", "\"%s\": an absolute path, file://PATH or net://HOST[:CTRL:DATA]", q);
	if (get_str(p, g, gn, "lttng_session", c->lttng_session, sizeof(c->lttng_session), &found))
		return -1;
	if (found && !c->lttng_session[0])
		return perr(p, config_setting_get_member(g, "lttng_session"),
			    "snapshot.lttng_session", "must not be empty");
	if (get_bool(p, g, gn, "lttng_kernel", &c->lttng_kernel) ||
	    get_int(p, g, gn, "lttng_kernel_buffer_kb", 64, 1 << 20, &v, &found))
		return -1;
	/* LTTng's sub-buffers (4 per cpu) are a power of two in size */
	if (found && (v & (v - 1)))
		return perr(p, config_setting_get_member(g, "lttng_kernel_buffer_kb"),
			    "snapshot.lttng_kernel_buffer_kb",
			    "%lld: a power of two (64 to 1048576)", v);
	if (found)
		c->lttng_kernel_buffer_kb = (unsigned int)v;
	if (get_bool(p, g, gn, "on_timeout", &c->on_timeout))
		return -1;
	if (get_bool(p, g, gn, "defer", &c->defer))
		return -1;
	if (get_int(p, g, gn, "rate_burst", 0, 1000000, &v, &found))
		return -1;
	if (found)
		c->rate_burst = (unsigned int)v;
	if (get_dur_member(p, g, gn, "rate_interval", &c->rate_interval_ns, &found))
		return -1;
	if (found && !c->rate_interval_ns)
		return perr(p, config_setting_get_member(g, "rate_interval"),
			    "snapshot.rate_interval", "must be more than 0");
	if (get_dur_member(p, g, gn, "gather", &c->gather_ns, &found))
		return -1;
	/* the reader reads nothing meanwhile: the rings fill */
	if (found && c->gather_ns > RTMOND_GATHER_MAX_NS)
		return perr(p, config_setting_get_member(g, "gather"), "snapshot.gather",
			    "at most 100ms (rtmond reads no records meanwhile)");
	if (get_size_member(p, g, gn, "max_disk", &c->max_disk) ||
	    get_dur_member(p, g, gn, "max_age", &c->max_age_ns, NULL) ||
	    get_size_member(p, g, gn, "max_file_size", &c->max_file_size))
		return -1;
	/* a file holds whole lines: a bound below a few of them rotates at every line */
	if (c->max_file_size && c->max_file_size < RTMOND_MIN_FILE_SIZE)
		return perr(p, config_setting_get_member(g, "max_file_size"),
			    "snapshot.max_file_size", "at least 64K (or \"0\": never rotated)");
	/* at least one: a line moved by rotation is stored, never dropped */
	if (get_int(p, g, gn, "keep_files", 1, RTMOND_MAX_KEEP_FILES, &v, &found))
		return -1;
	if (found)
		c->keep_files = (unsigned int)v;
	if (!c->dir[0] || c->dir[0] != '/')
		return perr(p, config_setting_get_member(g, "dir"), "snapshot.dir",
			    "an absolute directory is needed");
	return 0;
}

static int check_listen(const char *l)
{
	char host[128];
	const char *colon;
	unsigned char buf[16];
	long port;
	char *end;

	if (!l[0])
		return 0;
	colon = strrchr(l, ':');
	if (!colon || colon == l || (size_t)(colon - l) >= sizeof(host))
		return -1;
	memcpy(host, l, (size_t)(colon - l));
	host[colon - l] = 0;
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || port < 1 || port > 65535)
		return -1;
	if (host[0] == '[') {
		size_t n = strlen(host);

		if (n < 3 || host[n - 1] != ']')
			return -1;
		host[n - 1] = 0;
		return inet_pton(AF_INET6, host + 1, buf) == 1 ? 0 : -1;
	}
	return inet_pton(AF_INET, host, buf) == 1 ? 0 : -1;
}

static const char *const metrics_keys[] = {
	"listen", "textfile", "textfile_interval", "buckets", NULL
};

static int parse_metrics(struct pctx *p, struct rtmond_config *c, const config_setting_t *g)
{
	const char *gn = "metrics";
	const config_setting_t *s;
	int found, i, n;

	if (check_keys(p, g, gn, metrics_keys) ||
	    get_str(p, g, gn, "listen", c->listen, sizeof(c->listen), NULL))
		return -1;
	if (check_listen(c->listen))
		return perr(p, config_setting_get_member(g, "listen"), "metrics.listen",
			    "\"%s\": ADDRESS:PORT (127.0.0.1:9465, [::1]:9465) or \"\" for none",
			    c->listen);
	if (get_str(p, g, gn, "textfile", c->textfile, sizeof(c->textfile), NULL))
		return -1;
	if (c->textfile[0] && c->textfile[0] != '/')
		return perr(p, config_setting_get_member(g, "textfile"), "metrics.textfile",
			    "an absolute path (node_exporter's textfile directory)");
	if (get_dur_member(p, g, gn, "textfile_interval", &c->textfile_interval_ns, &found))
		return -1;
	if (found && c->textfile_interval_ns < 100000000ull)
		return perr(p, config_setting_get_member(g, "textfile_interval"),
			    "metrics.textfile_interval", "at least 100ms");
	s = config_setting_get_member(g, "buckets");
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY && config_setting_type(s) != CONFIG_TYPE_LIST)
		return perr(p, s, "metrics.buckets", "a list of durations [\"10us\", \"1ms\", ...]");
	n = config_setting_length(s);
	if (n < 1 || n > RTMOND_MAX_LE)
		return perr(p, s, "metrics.buckets", "1 to %d bucket bounds", RTMOND_MAX_LE);
	for (i = 0; i < n; i++) {
		char key[48];

		snprintf(key, sizeof(key), "metrics.buckets.[%d]", i);
		if (get_dur(p, config_setting_get_elem(s, (unsigned int)i), key, &c->le_ns[i]))
			return -1;
		if (i && c->le_ns[i] <= c->le_ns[i - 1])
			return perr(p, config_setting_get_elem(s, (unsigned int)i), key,
				    "bucket bounds must increase");
	}
	c->nle = (unsigned int)n;
	return 0;
}

static const char *const rt_keys[] = { "policy", "priority", "mlockall", "keep_admin", NULL };

static int parse_realtime(struct pctx *p, struct rtmond_config *c, const config_setting_t *g)
{
	const char *gn = "realtime";
	char pol[16] = "";
	long long v;
	int found;

	if (check_keys(p, g, gn, rt_keys) ||
	    get_str(p, g, gn, "policy", pol, sizeof(pol), &found))
		return -1;
	if (found) {
		if (!strcmp(pol, "fifo"))
			c->policy = SCHED_FIFO;
		else if (!strcmp(pol, "rr"))
			c->policy = SCHED_RR;
		else if (!strcmp(pol, "other"))
			c->policy = SCHED_OTHER;
		else
			return perr(p, config_setting_get_member(g, "policy"), "realtime.policy",
				    "\"%s\": one of fifo, rr, other", pol);
	}
	if (get_int(p, g, gn, "priority", 0, 99, &v, &found))
		return -1;
	if (found)
		c->priority = (int)v;
	if (c->policy == SCHED_OTHER)
		c->priority = 0;
	else if (c->priority < 1)
		return perr(p, config_setting_get_member(g, "priority"), "realtime.priority",
			    "1 to 99 for fifo and rr");
	return get_bool(p, g, gn, "mlockall", &c->mlockall) ||
	       get_bool(p, g, gn, "keep_admin", &c->keep_admin);
}

static void defaults(struct rtmond_config *c)
{
	static const uint64_t le_us[] = {
		10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000,
		100000, 1000000
	};
	unsigned int i;

	memset(c, 0, sizeof(*c));
	strcpy(c->dir, "/var/lib/rtmon");
	c->ftrace = 1;
	strcpy(c->ftrace_instance, "rtmon");
	c->ftrace_buffer_kb = 4096;
	c->lttng = 1;
	strcpy(c->lttng_session, "rtmond");
	c->lttng_kernel = 1;
	c->lttng_kernel_buffer_kb = 1024;
	c->on_timeout = 1;
	c->defer = 0;
	c->rate_burst = 5;
	c->rate_interval_ns = 60000000000ull;
	c->max_disk = 256ull << 20;
	c->max_file_size = 64ull << 20;
	c->keep_files = 4;
	strcpy(c->listen, "127.0.0.1:9465");
	c->textfile_interval_ns = 15000000000ull;
	for (i = 0; i < sizeof(le_us) / sizeof(le_us[0]); i++)
		c->le_ns[i] = le_us[i] * 1000;
	c->nle = i;
	c->policy = SCHED_FIFO;
	c->priority = 10;
	c->mlockall = 1;
	c->keep_admin = 1;
}

static const char *const top_keys[] = { "targets", "snapshot", "metrics", "realtime", NULL };

static int parse(config_t *cfg, struct pctx *p, struct rtmond_config *c)
{
	const config_setting_t *root = config_root_setting(cfg), *s;
	int i, n, bad;

	bad = check_keys(p, root, "", top_keys);
	s = config_setting_get_member(root, "targets");
	if (s && config_setting_type(s) != CONFIG_TYPE_LIST) {
		bad = perr(p, s, "targets", "a list of groups: ( { name = ...; }, ... )");
	} else if (s) {
		n = config_setting_length(s);
		if (n > RTMOND_MAX_TARGETS)
			return perr(p, s, "targets", "at most %d targets", RTMOND_MAX_TARGETS);
		for (i = 0; i < n; i++)
			bad |= parse_target(p, c, config_setting_get_elem(s, (unsigned int)i),
					    (unsigned int)i);
	}
	s = config_setting_get_member(root, "snapshot");
	if (s && (config_setting_type(s) != CONFIG_TYPE_GROUP))
		bad = perr(p, s, "snapshot", "a group { ... }");
	else if (s)
		bad |= parse_snapshot(p, c, s);
	s = config_setting_get_member(root, "metrics");
	if (s && (config_setting_type(s) != CONFIG_TYPE_GROUP))
		bad = perr(p, s, "metrics", "a group { ... }");
	else if (s)
		bad |= parse_metrics(p, c, s);
	s = config_setting_get_member(root, "realtime");
	if (s && (config_setting_type(s) != CONFIG_TYPE_GROUP))
		bad = perr(p, s, "realtime", "a group { ... }");
	else if (s)
		bad |= parse_realtime(p, c, s);
	return bad ? -1 : 0;
}

static int finish(config_t *cfg, int ok, struct pctx *p, struct rtmond_config *c)
{
	int rc;

	if (!ok) {
		snprintf(p->err, p->errlen, "%s:%d: syntax: %s",
			 config_error_file(cfg) ? config_error_file(cfg) : p->name,
			 config_error_line(cfg), config_error_text(cfg));
		config_destroy(cfg);
		return -1;
	}
	rc = parse(cfg, p, c);
	config_destroy(cfg);
	return rc;
}

static void init_cfg(config_t *cfg)
{
	config_init(cfg);
}

int rtmond_config_load(const char *path, struct rtmond_config *c, char *err, size_t errlen)
{
	struct pctx p = { path, err, errlen, 0, 0 };
	config_t cfg;
	FILE *f;
	int ok;

	defaults(c);
	snprintf(c->path, sizeof(c->path), "%s", path);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s:0: (file): %s", path, strerror(errno));
		return -1;
	}
	init_cfg(&cfg);
	/* config_read() leaves the error file unset: config_read_file() names it */
	fclose(f);
	ok = config_read_file(&cfg, path) == CONFIG_TRUE;
	return finish(&cfg, ok, &p, c);
}

int rtmond_config_parse(const char *text, const char *name, struct rtmond_config *c,
			char *err, size_t errlen)
{
	struct pctx p = { name, err, errlen, 0, 0 };
	config_t cfg;
	int ok;

	defaults(c);
	snprintf(c->path, sizeof(c->path), "%s", name);
	init_cfg(&cfg);
	ok = config_read_string(&cfg, text) == CONFIG_TRUE;
	return finish(&cfg, ok, &p, c);
}

int rtmond_target_same(const struct rtmon_target *a, const struct rtmon_target *b)
{
	return a->flags == b->flags && a->end == b->end && a->src == b->src &&
	       (a->irq_name[0] || b->irq_name[0] ?
		!strncmp(a->irq_name, b->irq_name, sizeof(a->irq_name)) : a->irq == b->irq) &&
	       !strncmp(a->comm, b->comm, sizeof(a->comm)) && a->pid == b->pid &&
	       a->tgid == b->tgid && a->deadline_ns == b->deadline_ns &&
	       !strncmp(a->name, b->name, sizeof(a->name));
}

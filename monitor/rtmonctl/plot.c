// SPDX-License-Identifier: GPL-2.0
/*
 * rtmonctl plot - a target's latency histogram as an SVG or PNG, by gnuplot.
 *
 *   rtmonctl plot TARGET -o FILE.svg|FILE.png [--dir DIR] [--json]
 *   rtmonctl plot [TARGET] -o FILE.svg|FILE.png --from SAVED.json
 *
 * The histogram is rtmond's (DIR/stats.json, as 'rtmonctl hist' shows it),
 * or, offline, a saved 'rtmonctl hist TARGET --json' (or a copy of
 * stats.json, then TARGET picks the target). Bars per histogram bucket
 * (1 us below 4.096 ms, 1.6% wide above), count axis log-scaled, latency
 * axis in us (log-scaled when the data spans more than two decades), the
 * deadline as a vertical line when the target has one. The format comes
 * from the file name's extension. gnuplot (Debian: gnuplot-nox) is run
 * with the script on its standard input; $RTMON_GNUPLOT names another
 * binary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>

#include "rtmon_format.h"
#include "rtmon_hist.h"
#include "rtmonctl.h"

struct plot_data {
	const char *title;		/* target name or file */
	uint64_t count, misses, timeouts, min_ns, p99_ns, max_ns, deadline_ns;
	size_t nb;
	double *lo, *hi;		/* bucket edges, us */
	uint64_t *n;
};

const char plot_usage[] =
	"usage: rtmonctl plot TARGET -o FILE.svg|FILE.png [-d|--dir DIR] [--json]\n"
	"       rtmonctl plot [TARGET] -o FILE.svg|FILE.png --from SAVED.json\n"
	"TARGET's latency histogram drawn by gnuplot, from rtmond's stats.json in DIR\n"
	"(--dir, $RTMON_DIR or /var/lib/rtmon) or from a saved 'hist TARGET --json'.\n";

/* "svg" or "png" from the file name; usage error for anything else */
static const char *plot_format(const char *out)
{
	const char *dot = strrchr(out, '.');

	if (dot && strchr(dot, '/'))
		dot = NULL;
	if (dot && !strcasecmp(dot, ".svg"))
		return "svg";
	if (dot && !strcasecmp(dot, ".png"))
		return "png";
	usage_error("plot: unknown output format '%s': the file name must end in .svg or .png",
		    dot ? dot : out);
}

static uint64_t jint(json_t *o, const char *k)
{
	json_int_t v = json_integer_value(json_object_get(o, k));

	return v > 0 ? (uint64_t)v : 0;
}

/* "a, b, c" (or "no targets"): the targets of a stats.json, for errors */
static const char *target_names(json_t *stats)
{
	static char buf[512];
	const char *k;
	json_t *v;
	size_t n = 0;

	buf[0] = 0;
	json_object_foreach(json_object_get(stats, "targets"), k, v)
		if (n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? ", " : "", k);
	return buf[0] ? buf : "no targets";
}

/* The target object: from --from FILE or rtmond's stats.json; *root to free. */
static json_t *plot_source(const char *from, const char *name, json_t **root)
{
	json_error_t jerr;
	json_t *t;

	*root = from ? json_load_file(from, 0, &jerr) : rtmond_stats_load(&jerr);
	if (!*root && from)
		fail(0, "cannot read %s: %s (a saved 'rtmonctl hist TARGET --json')", from,
		     jerr.text);
	if (!*root)
		fail(0, "cannot read %s/stats.json: %s (is rtmond running with snapshot.dir = \"%s\"? "
		     "--dir DIR, or --from a saved 'rtmonctl hist TARGET --json')",
		     rtmond_dir, jerr.text, rtmond_dir);
	if (json_object_get(*root, "targets")) {	/* a stats.json */
		if (!name)
			usage_error("plot: %s holds several targets: name one", from);
		t = rtmond_stats_target(*root, name);
		if (!t) {
			char n1[256], n2[1024];

			/* the names come from a file: none reaches the terminal raw */
			fail(0, "unknown target '%s': %s%s has %s", rtmon_term(n1, sizeof(n1), name),
			     from ? from : rtmond_dir, from ? "" : "/stats.json",
			     rtmon_term(n2, sizeof(n2), target_names(*root)));
		}
		return t;
	}
	if (!json_is_array(json_object_get(*root, "buckets")))
		fail(0, "%s is not a histogram (want 'rtmonctl hist TARGET --json' output)", from);
	return *root;
}

static void plot_load(json_t *t, struct plot_data *d)
{
	json_t *bk = json_object_get(t, "buckets"), *b;
	size_t i;

	d->count = jint(t, "count");
	d->misses = jint(t, "misses");
	d->timeouts = jint(t, "timeouts");
	d->min_ns = jint(t, "min_ns");
	d->p99_ns = jint(t, "p99_ns");
	d->max_ns = jint(t, "max_ns");
	d->deadline_ns = jint(t, "deadline_ns");
	d->lo = calloc(json_array_size(bk) + 1, sizeof(*d->lo));
	d->hi = calloc(json_array_size(bk) + 1, sizeof(*d->hi));
	d->n = calloc(json_array_size(bk) + 1, sizeof(*d->n));
	if (!d->lo || !d->hi || !d->n)
		fail(ENOMEM, "plot");
	json_array_foreach(bk, i, b) {
		json_int_t idx = json_integer_value(json_array_get(b, 0));
		json_int_t cnt = json_integer_value(json_array_get(b, 1));
		uint64_t hi;

		if (idx < 0 || idx >= RTMON_HIST_NBUCKETS || cnt <= 0)
			continue;
		d->lo[d->nb] = rtmon_hist_bucket_lo((unsigned int)idx) / 1e3;
		hi = rtmon_hist_bucket_hi((unsigned int)idx);
		d->hi[d->nb] = hi == UINT64_MAX ? d->lo[d->nb] * 2 : hi / 1e3;
		d->n[d->nb++] = (uint64_t)cnt;
	}
	if (!d->nb)
		fail(0, "%s: the histogram is empty (no chains yet)", d->title);
}

/*
 * A gnuplot string that gnuplot never evaluates: single quotes, inside
 * which it substitutes no `command` (it does inside double quotes: a file
 * name with backquotes ran a shell command) and no @macro; a single quote
 * is doubled; a newline, which single quotes cannot hold, is joined as
 * 'a' . "\n" . 'b'.
 */
static void gp_str(FILE *s, const char *v)
{
	fputc('\'', s);
	for (; *v; v++) {
		if (*v == '\n')
			fputs("' . \"\\n\" . '", s);
		else if (*v == '\'')
			fputs("''", s);
		else
			fputc(*v, s);
	}
	fputc('\'', s);
}

static void gp_axes(FILE *s, const struct plot_data *d)
{
	double dl = d->deadline_ns / 1e3, lo = d->lo[0], hi = d->hi[d->nb - 1];
	double top = dl > hi ? dl : hi;

	/* more than two decades: a log latency axis keeps the bulk readable */
	if (top / (lo > 1 ? lo : 1) > 100) {
		fprintf(s, "set logscale x\nset xrange [%g:%g]\n", (lo > 0.5 ? lo : 0.5) / 1.3,
			top * 1.3);
	} else {
		double pad = (top - lo) * 0.05 + 1;

		fprintf(s, "set xrange [%g:%g]\n", lo - pad > 0 ? lo - pad : 0, top + pad);
	}
	if (d->deadline_ns) {
		fprintf(s, "set arrow from %g, graph 0 to %g, graph 1 nohead lw 2 dt 2 lc rgb \"#d02020\" front\n",
			dl, dl);
		fprintf(s, "set label \"deadline %g µs\" at %g, graph 0.96 left offset 0.6,0 tc rgb \"#d02020\" front\n",
			dl, dl);
	}
}

static char *plot_script(const struct plot_data *d, const char *fmt, const char *out)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *s = open_memstream(&buf, &len);

	if (!s)
		fail(errno, "plot");
	fputs("set encoding utf8\nset termoption noenhanced\n", s);
	if (!strcmp(fmt, "svg"))
		fputs("set terminal svg size 960,540 dynamic font \"sans,11\" background rgb \"white\"\n", s);
	else
		fputs("set terminal pngcairo size 960,540 font \"sans,10\" background rgb \"white\"\n", s);
	/* gnuplot takes a name that starts with '|' for a pipe: never a relative one */
	fputs("set output ", s);
	if (out[0] == '/') {
		gp_str(s, out);
	} else {
		char *rel;

		if (asprintf(&rel, "./%s", out) < 0)
			fail(errno, "plot");
		gp_str(s, rel);
		free(rel);
	}
	fputs("\nset title ", s);
	{
		char t[512];

		snprintf(t, sizeof(t), "rtmon: latency of %s\n%" PRIu64 " chains, %" PRIu64
			 " misses, %" PRIu64 " timeouts; min %.1f µs, p99 %.1f µs, max %.1f µs",
			 d->title, d->count, d->misses, d->timeouts, d->min_ns / 1e3,
			 d->p99_ns / 1e3, d->max_ns / 1e3);
		gp_str(s, t);
	}
	fputs("\nset xlabel \"latency (µs)\"\nset ylabel \"chains per bucket (log)\"\n"
	      "set logscale y\nset yrange [0.8:*]\nset grid xtics ytics\nset key top right\n"
	      "set style fill solid 0.85 border lc rgb \"#1f4e79\"\n", s);
	gp_axes(s, d);
	fputs("$hist << EOD\n", s);
	for (i = 0; i < d->nb; i++)
		fprintf(s, "%.3f %.3f %" PRIu64 "\n", d->lo[i] > 0 ? d->lo[i] : 0.5, d->hi[i], d->n[i]);
	fputs("EOD\nplot $hist using (($1+$2)/2):3:1:2:(0.8):3 with boxxyerror lc rgb \"#3a7dc9\" "
	      "title \"chains\"\n", s);
	fclose(s);
	return buf;
}

/* The gnuplot to run: $RTMON_GNUPLOT or gnuplot in PATH; NULL if none. */
static const char *find_gnuplot(char *buf, size_t len)
{
	const char *gp = getenv("RTMON_GNUPLOT") ?: "gnuplot", *path = getenv("PATH");
	char *dirs, *dir, *save = NULL;

	if (strchr(gp, '/'))
		return access(gp, X_OK) ? NULL : gp;
	dirs = strdup(path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, len, "%s/%s", dir, gp);
		if (!access(buf, X_OK)) {
			free(dirs);
			return buf;
		}
	}
	free(dirs);
	return NULL;
}

/* Run gnuplot with the script on stdin; its exit status (-1: not run). */
static int run_gnuplot(const char *gp, const char *script)
{
	int p[2], st;
	size_t n = strlen(script);
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(p[0], STDIN_FILENO);
		close(p[0]);
		close(p[1]);
		/* the script is UTF-8 (µs): in the C locale (a service, a
		 * minimal board) gnuplot warns that it cannot convert it
		 */
		if (!getenv("LC_ALL") && !getenv("LC_CTYPE") && !getenv("LANG"))
			setenv("LC_CTYPE", "C.UTF-8", 1);
		execl(gp, gp, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	while (n) {
		ssize_t w = write(p[1], script, n);

		if (w <= 0)
			break;
		script += w;
		n -= (size_t)w;
	}
	close(p[1]);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int cmd_plot(int argc, char **argv, int json)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "from", required_argument, NULL, 'f' },
		{ "dir", required_argument, NULL, 'd' },
		{ 0 }
	};
	const char *out = NULL, *from = NULL, *name = NULL, *fmt, *gp;
	struct plot_data d = { 0 };
	char gpbuf[4096], *script;
	json_t *root, *t;
	int c, fd, rc;

	if (getenv("RTMON_DIR"))
		rtmond_dir = getenv("RTMON_DIR");
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:d:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'f':
			from = optarg;
			break;
		case 'd':
			rtmond_dir = optarg;
			break;
		default:
			usage_hint();
		}
	}
	if (optind < argc)
		name = argv[optind++];
	if (optind < argc)
		usage_error("plot: unexpected argument '%s'", argv[optind]);
	if (!name && !from)
		usage_error("plot: which target?");
	if (!out)
		usage_error("plot: no output file (-o FILE.svg or FILE.png)");
	fmt = plot_format(out);
	gp = find_gnuplot(gpbuf, sizeof(gpbuf));
	if (!gp)
		fail(0, "%s not found: install gnuplot (Debian: apt-get install gnuplot-nox)",
		     getenv("RTMON_GNUPLOT") ?: "gnuplot");
	t = plot_source(from, name, &root);
	d.title = name ? name : strrchr(from, '/') ? strrchr(from, '/') + 1 : from;
	plot_load(t, &d);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fail(errno, "cannot write %s", out);
	close(fd);
	script = plot_script(&d, fmt, out);
	rc = run_gnuplot(gp, script);
	free(script);
	if (rc) {
		unlink(out);
		fail(rc < 0 ? errno : 0, "%s failed (exit status %d); %s not written", gp, rc, out);
	}
	if (json)
		json_out(json_pack("{s:s, s:s, s:s, s:I, s:I, s:I}", "output", out, "format", fmt,
				   "target", d.title, "count", (json_int_t)d.count,
				   "buckets", (json_int_t)d.nb, "deadline_ns", (json_int_t)d.deadline_ns));
	else
		printf("%s: %s histogram of %s (%" PRIu64 " chains, %zu buckets)\n", out, fmt,
		       d.title, d.count, d.nb);
	free(d.lo);
	free(d.hi);
	free(d.n);
	json_decref(root);
	return 0;
}

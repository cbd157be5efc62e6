// SPDX-License-Identifier: GPL-2.0
/*
 * rtmond - rtmon's daemon.
 *
 *   rtmond [-c FILE] [--check] [--device PATH]
 *
 * Opens /dev/rtmon, makes the module's targets match its configuration
 * (config/rtmon.conf, installed as /etc/rtmon/rtmon.conf), reads every chain
 * record with poll(), keeps per-target statistics (1 us histogram, see
 * rtmon_hist.h), and for each deadline miss or timeout writes a JSON line
 * to DIR/misses.jsonl naming the ftrace and LTTng snapshots taken for it
 * (snapshot.c). Metrics: metrics.c. SIGHUP reloads the configuration
 * (refused as a whole if the file is bad or a target cannot be added; the
 * old one stays), SIGTERM/SIGINT exit cleanly. Targets stay in the module
 * when rtmond exits: records emitted while it is down wait in the
 * module's rings and are read at the next start; the last sequence number
 * read is kept in DIR/rtmond.seq so a restart can tell whether anything
 * was lost (logged either way). DIR/stats.json holds the histograms for
 * 'rtmonctl hist'. Logs go to stderr.
 *
 * This file: main (the start, in the order privileges need) and reload.
 * The other parts, which never call back here: README.md, "Files".
 *
 * Exit status: 0 after SIGTERM/SIGINT or a good --check, 1 on a bad
 * configuration or a failed start, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config_check.h"
#include "rtmond.h"

static const char *conf_path = "/etc/rtmon/rtmon.conf";

static int mkdir_p(const char *dir)
{
	char p[512], *s;

	snprintf(p, sizeof(p), "%s", dir);
	for (s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0755) && errno != EEXIST)
				return -errno;
			*s = '/';
		}
	if (mkdir(p, 0750) && errno != EEXIST)
		return -errno;
	return 0;
}

/* ---- output files ---- */

/*
 * Open the outputs in c->dir, then put them in place of the old ones: a
 * directory that cannot be used leaves the old files working (a reload is
 * refused) instead of closing them first and writing nothing after.
 */
static int open_files(const struct rtmond_config *c)
{
	char p[512], why[PATH_MAX + 600];
	int err = mkdir_p(c->dir), mf, rf = -1, sf;

	if (err) {
		rtmond_log("cannot create %s: %s", c->dir, strerror(-err));
		return err;
	}
	if ((err = rtmond_dir_safe(c->dir, why, sizeof(why)))) {
		rtmond_log("snapshot.dir %s", why);
		return err;
	}
	mf = rtmond_open_lines(c->dir, "misses.jsonl");
	if (mf < 0)
		return -EACCES;
	if (c->records_file)
		rf = rtmond_open_lines(c->dir, "records.jsonl");
	snprintf(p, sizeof(p), "%s/rtmond.seq", c->dir);
	sf = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (sf < 0)
		rtmond_log("cannot open %s: %s", p, strerror(errno));
	rtmond_writer_set_files(mf, rf, sf);	/* the writer is idle */
	return 0;
}
/* ---- reload ---- */

static int snap_conf_differs(const struct rtmond_config *a, const struct rtmond_config *b)
{
	return strcmp(a->dir, b->dir) || a->ftrace != b->ftrace || a->on_timeout != b->on_timeout ||
	       strcmp(a->ftrace_instance, b->ftrace_instance) ||
	       a->ftrace_buffer_kb != b->ftrace_buffer_kb || a->lttng != b->lttng ||
	       strcmp(a->lttng_output, b->lttng_output) ||
	       strcmp(a->lttng_session, b->lttng_session) ||
	       a->lttng_kernel != b->lttng_kernel ||
	       a->lttng_kernel_buffer_kb != b->lttng_kernel_buffer_kb ||
	       a->rate_burst != b->rate_burst || a->rate_interval_ns != b->rate_interval_ns ||
	       a->max_disk != b->max_disk || a->max_age_ns != b->max_age_ns;
}

/* the configuration's errors (newline-joined), a log line each */
static void log_config_errors(const char *what, char *err)
{
	char *line, *save;

	for (line = strtok_r(err, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		rtmond_log("%s%s", what, line);
}

/* 0 when the new configuration is active, -1 when refused (old one stays) */
static int reload(void)
{
	struct rtmond_live *old = rtmond_live, *nl = calloc(1, sizeof(*nl));
	char err[4096];

	if (!nl)
		return -1;
	rtmond_log("SIGHUP: reloading %s", conf_path);
	/* files, names and the old configuration stay the writer's till then */
	if (rtmond_writer_wait_idle(rtmond_mono_ns() + RTMOND_FAIL_WAIT_NS)) {
		uint64_t w = rtmond_writer_waiting(err, sizeof(err));

		rtmond_log("reload refused: writes fail (%s), %" PRIu64 " lines wait for storage; "
			   "the previous configuration stays active", err, w);
		free(nl);
		return -1;
	}
	rtmond_reader_ack();
	if (rtmond_config_load(conf_path, &nl->conf, err, sizeof(err))) {
		log_config_errors("reload: ", err);
		rtmond_log("reload refused; the previous configuration stays active");
		free(nl);
		return -1;
	}
	/*
	 * The outputs first, reopened at every reload (logrotate's postrotate
	 * sends SIGHUP): a directory that cannot be used refuses the reload.
	 */
	if (open_files(&nl->conf)) {
		rtmond_log("reload refused: no outputs in %s; the previous configuration stays active",
			   nl->conf.dir);
		free(nl);
		return -1;
	}
	if (rtmond_sync_targets(old, nl)) {
		rtmond_log("reload refused: the module did not take the new targets; "
			   "the previous configuration stays active");
		open_files(&old->conf);
		free(nl);
		return -1;
	}
	if (snap_conf_differs(&old->conf, &nl->conf))
		rtmond_snap_setup(&nl->conf);
	if (strcmp(old->conf.listen, nl->conf.listen)) {
		rtmond_metrics_stop();
		rtmond_run_aux(&nl->conf, rtmond_metrics_start);	/* not from the reader */
	}
	if (old->conf.policy != nl->conf.policy || old->conf.priority != nl->conf.priority ||
	    old->conf.mlockall != nl->conf.mlockall || old->conf.keep_admin != nl->conf.keep_admin)
		rtmond_log("reload: realtime settings apply at the next start");
	rtmond_build_id_map(nl);
	rcu_assign_pointer(rtmond_live, nl);
	urcu_memb_synchronize_rcu();
	free(old);
	rtmond_log("reloaded: %u targets active", nl->conf.ntargets);
	return 0;
}

/* SIGHUP under systemd: RELOADING=1, then READY=1 with the outcome */
static void reload_notify(void)
{
	const char *how;

	rtmond_notify("RELOADING=1\nMONOTONIC_USEC=%" PRIu64 "\nSTATUS=reloading %s",
		      rtmond_mono_ns() / 1000, conf_path);
	how = reload() ? "reload refused, previous configuration active" : "reloaded";
	rtmond_notify("READY=1\nSTATUS=%s: %u targets", how, rtmond_live->conf.ntargets);
}
static int start_others(const struct rtmond_config *c)
{
	rtmond_snap_load_provider();	/* without it no rtmond:miss (logged) */
	if (rtmond_snap_start_worker() || rtmond_writer_start())
		return -1;
	return rtmond_metrics_start(c);
}
/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f, "usage: rtmond [-c FILE] [--check] [--device PATH]\n"
		"  -c, --config FILE   configuration (default /etc/rtmon/rtmon.conf)\n"
		"      --check         check the configuration and exit\n"
		"  -d, --device PATH   the rtmon device (default " RTMON_DEVICE ")\n"
		"  -h, --help          this text\n"
		"      --version       rtmond's version\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'C' },
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dev = NULL;
	struct rtmond_live *l;
	struct rtmon_version v;
	char err[4096];
	int check = 0, o, sfd, rc;
	sigset_t ss;

	while ((o = getopt_long(argc, argv, "c:d:h", opts, NULL)) != -1) {
		switch (o) {
		case 'c': conf_path = optarg; break;
		case 'C': check = 1; break;
		case 'd': dev = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("rtmond %s\n", RTMON_PKG_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return 1;
	if (rtmond_config_load(conf_path, &l->conf, err, sizeof(err))) {
		log_config_errors("", err);
		return 1;
	}
	if (check) {	/* and what the configuration needs from this machine */
		unsigned int bad = rtmond_config_check(&l->conf, stderr);

		if (bad) {
			fprintf(stderr, "rtmond: %s: %u problem%s\n", conf_path, bad,
				bad == 1 ? "" : "s");
			return 1;
		}
		printf("%s: ok, %u targets\n", conf_path, l->conf.ntargets);
		return 0;
	}
	/*
	 * liblttng-ust (loaded later with rtmond's probes) answers sessiond's
	 * START only after opening every object rtmond has loaded: slower than
	 * sessiond's 5 s socket timeout on a slow board, which then drops rtmond
	 * and its rtmond:miss events until it registers again. Set before any
	 * thread starts: setenv is not thread-safe.
	 */
	setenv("LTTNG_UST_WITHOUT_BADDR_STATEDUMP", "1", 0);
	urcu_memb_register_thread();
	rtmond_rcu_registered = 1;

	/* signals: handled synchronously through a signalfd */
	sigemptyset(&ss);
	sigaddset(&ss, SIGHUP);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);	/* before any thread starts */
	sfd = signalfd(-1, &ss, SFD_CLOEXEC | SFD_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);

	rtmond_reader_set_watchdog(rtmond_notify_init());
	rtmond_dev = rtmon_open(dev);
	if (!rtmond_dev) {
		o = errno;
		fprintf(stderr, "rtmond: cannot open %s: %s%s\n", dev ? dev : RTMON_DEVICE,
			strerror(o), o == ENOENT ? " (is the rtmon module loaded?)" : "");
		rtmond_notify("STATUS=cannot open %s: %s\nERRNO=%d", dev ? dev : RTMON_DEVICE,
			      strerror(o), o);
		return 1;
	}
	rtmon_version(rtmond_dev, &v);
	rtmond_targets_init(v.max_targets);
	rtmond_log("rtmon %s, ABI %u, %s, %u cpus, %u targets max; configuration %s",
		   v.module_version, v.abi_version, v.preempt_rt ? "PREEMPT_RT" : "non-RT",
		   v.ncpus, v.max_targets, conf_path);
	rtmon_set_nonblock(rtmond_dev, 1);
	rtmond_reader_open();
	if (open_files(&l->conf))
		return 1;
	rtmond_load_key_init();	/* the boot id read: off the real-time path from here on */
	rtmond_seq_load(l->conf.dir);
	/* kernel context first, so the first chains of the new targets are in it */
	rtmond_snap_setup(&l->conf);
	rtmond_reader_watchdog_kick();	/* the start can be slow (LTTng) */
	if (rtmond_sync_targets(NULL, l)) {
		rtmond_snap_teardown();
		fprintf(stderr, "rtmond: the module refused the configured targets\n");
		return 1;
	}
	rtmond_build_id_map(l);
	rcu_assign_pointer(rtmond_live, l);
	if (!v.running)
		rtmond_log("the module is stopped (rtmonctl start): no records until it runs");
	/* the other threads, started unprivileged and SCHED_OTHER (rtmond_run_aux) */
	rtmond_drop_bound(&l->conf);
	if (rtmond_run_aux(&l->conf, start_others)) {
		rtmond_snap_teardown();
		return 1;
	}
	/* only the reader goes real-time, then drops its own capabilities */
	rtmond_go_realtime(&l->conf);
	rtmond_drop_caps(&l->conf);
	rtmond_log("running: %u targets, misses to %s/misses.jsonl", l->conf.ntargets, l->conf.dir);
	rc = rtmond_reader_run(sfd, reload_notify);
	l = rtmond_live;
	if (l->conf.textfile[0])
		rtmond_metrics_textfile(l->conf.textfile);
	rtmond_metrics_stop();
	rtmond_snap_stop_worker();
	rtmond_snap_teardown();
	rtmon_close(rtmond_dev);
	rtmond_log("stopped after seq %" PRIu64 "; targets stay in the module", rtmond_seq_last());
	return rc;
}

# shellcheck shell=bash
# Helpers of the explain guest tests (explain-hog, explain-pi; sourced
# after lib.sh; tests/crash's guest starts its rtmond here too): rtmond
# following one target with an ftrace snapshot per miss, stopped, then
# every miss that has a snapshot explained by
# 'rtmonctl explain SEQ --json'. A test's own background tasks are
# stopped on exit by its explain_stop_extra, if it defines one.
RTMOND=$RTMON_TOP/build/monitor/rtmond
[ -x "$RTMOND" ] || fail "rtmond not built"
out=
pid=
explain_cleanup() {
	set +e
	declare -F explain_stop_extra >/dev/null && explain_stop_extra
	[ -n "$pid" ] && kill $pid 2>/dev/null && wait $pid 2>/dev/null
	mkdir -p $T/out && cp $out/misses.jsonl $T/out/ 2>/dev/null
	rtmon_cleanup
}
trap explain_cleanup EXIT

# explain_rtmond_start OUT TARGET [KB [SNAPSHOT]]: rtmond following
# TARGET (one libconfig target entry), its misses and their snapshots in
# OUT (emptied first); KB: its ftrace buffer per cpu (default 1024;
# smaller buffers are copied sooner, so misses that follow each other find
# the worker free); KB 0: no ftrace snapshot, only the misses' lines;
# SNAPSHOT: more snapshot settings (gather = "5ms";); records.jsonl too
# when EXPLAIN_RECORDS_FILE=true; deferred snapshots when EXPLAIN_DEFER=true
# (under emulation their copies and explanations take seconds each, and
# a guest that misses by itself keeps the worker busy with them)
explain_rtmond_start() {
	local i ftrace="ftrace = true; ftrace_buffer_kb = ${3:-1024};"
	[ "${3:-}" != 0 ] || ftrace="ftrace = false;"
	out=$1
	rm -rf $out
	cat >$T/rtmon.conf <<CONF
targets = ( $2 );
snapshot = { dir = "$out"; records_file = ${EXPLAIN_RECORDS_FILE:-false}; $ftrace defer = ${EXPLAIN_DEFER:-false};
	     lttng = false; on_timeout = false; rate_burst = 100; rate_interval = "100ms"; ${4:-} };
metrics = { listen = ""; textfile = "$T/rtmon.prom"; textfile_interval = "1s"; };
realtime = { policy = "fifo"; priority = 10; mlockall = true; keep_admin = true; };
CONF
	# rtmond on cpu 0, the measured work on cpu 1, as a real-time system
	# is set up (rtmon.service: CPUAffinity= to the housekeeping cpus): its
	# writer formatting lines on cpu 1 makes misses of its own under
	# emulation on a loaded host (the vCPU busy when the timer is due:
	# 232 instead of about 20 in one make check, explain-irq past 300 s)
	taskset -c 0 "$RTMOND" -c $T/rtmon.conf 2>$T/rtmond.log &
	pid=$!
	for ((i = 0; i < 100; i++)); do grep -q "running" $T/rtmond.log && break; sleep 0.1; done
	grep -q "running" $T/rtmond.log || fail "rtmond did not start: $(tail -n 5 $T/rtmond.log)"
}

# explain_rtmond_stop: a second for the last snapshots, then SIGTERM
explain_rtmond_stop() {
	sleep 1
	kill $pid
	wait $pid || fail "rtmond exit status $?"
	pid=
}

# explain_misses WHY [WANTED]: the misses with an ftrace snapshot explained
# into $T/explained.jsonl (at least one; WHY names the misses expected):
# those rtmond explained itself (snapshot.explain), and those whose seqs
# the file WANTED lists. (A guest that misses every cycle leaves thousands
# in rtmond's deferred snapshots, past the 64 it explains each: explaining
# them all here took longer than the test's time.) A deferred snapshot
# (rtmond's worker was busy when the miss came) whose buffer wrapped before
# it was taken lacks the chain's start: such explanations go to
# $T/wrapped.jsonl, counted, not judged.
explain_misses() {
	local n seqs rc=0
	[ -s $out/misses.jsonl ] || fail "no misses $1"
	seqs=$(python3 -c '
import json, sys
want = {int(x) for x in open(sys.argv[2]).read().split()} if sys.argv[2] else set()
for l in open(sys.argv[1]):
    m = json.loads(l)
    s = m.get("snapshot") or {}
    if s.get("ftrace") and (s.get("explain") or m["seq"] in want):
        print(m["seq"])' $out/misses.jsonl "${2:-}")
	[ -n "$seqs" ] || fail "no miss $1 has an ftrace snapshot"
	# in one run: a snapshot that several misses share is loaded once
	# (one run per miss took 4 minutes for 186 misses on 6.1-rt). Exit 1:
	# some could not be explained (said in explain.err), the others were
	$RTMONCTL explain $seqs --dir $out --json >$T/explained.jsonl 2>$T/explain.err || rc=$?
	[ $rc -le 1 ] || fail "rtmonctl explain: exit status $rc: $(tail -n 3 $T/explain.err)"
	n=$(grep -c . $T/explained.jsonl || true)
	if [ -s $T/explain.err ]; then
		note "not explained: $(wc -l <$T/explain.err) misses: $(head -n 2 $T/explain.err)"
	fi
	[ $n -gt 0 ] || fail "no miss with an ftrace snapshot was explained: $(cat $T/explain.err)"
	n=$(python3 -c '
import json, sys
deferred = {m["seq"] for m in map(json.loads, open(sys.argv[1])) if (m.get("snapshot") or {}).get("deferred")}
keep, wrapped = [], []
for l in open(sys.argv[2]):
    e = json.loads(l)
    lost = e["seq"] in deferred and "starts after" in e.get("missing", "")
    (wrapped if lost else keep).append(l)
open(sys.argv[2], "w").writelines(keep)
open(sys.argv[3], "w").writelines(wrapped)
print(len(wrapped))' $out/misses.jsonl $T/explained.jsonl $T/wrapped.jsonl)
	[ "$n" = 0 ] || note "$n misses' deferred snapshots start after their chains (the buffer wrapped): not judged"
	[ -s $T/explained.jsonl ] || fail "every miss explained has a deferred snapshot that starts after it"
}

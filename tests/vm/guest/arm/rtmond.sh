# rtmond on an ARM board: the cross-built daemon (dynamic, against the
# board's Debian libconfig, libmicrohttpd, lttng-ctl, lttng-ust, urcu,
# jansson, libcap, libsystemd, which the test image carries as a Debian
# board would have them installed) runs from the checkout:
#  - every library it needs resolves in the image (no "not found");
#  - rtmond --check accepts a good file ("ok, 1 targets") and refuses a bad
#    one naming FILE:LINE: key;
#  - started with one timer target on cyclictest (deadline 10 us: under
#    emulation most wakeups miss), it puts the target into the module, reads
#    every record the module emitted (records.jsonl), writes one
#    misses.jsonl line per record flagged deadline_miss or timeout, takes
#    ftrace snapshots, keeps stats.json for rtmonctl hist;
#  - the metrics endpoint on loopback (busybox wget) agrees with the files;
#  - SIGTERM: exit 0, "exiting" and "stopped after seq" logged, its ftrace
#    instance removed, the target left in the module.
# LTTng is off (no lttng-sessiond in the test image).
# timeout: 180
. "$RTMON_TOP/tests/vm/guest/arm/lib.sh"

RTMOND=$RTMON_BIN/rtmond
[ -x "$RTMOND" ] || fail "rtmond not built ($RTMOND: cross/build-user)"
loops=${LOOPS:-300}
out=/tmp/rtmond-arm
rm -rf "$out" "${T:?}"/*
pid=
cleanup() {
	set +e
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	cp -r "$out" "$T/out" 2>/dev/null
	rtmon_cleanup
}
trap cleanup EXIT

# the loader finds every library (LD_TRACE_LOADED_OBJECTS: what ldd does)
LD_TRACE_LOADED_OBJECTS=1 "$RTMOND" >"$T/ldd" 2>&1 || fail "rtmond does not load: $(cat "$T/ldd")"
! grep -q 'not found' "$T/ldd" || fail "libraries missing in the image: $(grep 'not found' "$T/ldd" | tr '\n' ' ')"
note "rtmond loads $(grep -c '=>' "$T/ldd") shared libraries"

# metrics on loopback when the guest has it
listen=127.0.0.1:9465
if ! ip link set lo up 2>"$T/lo.err"; then
	note "no loopback ($(cat "$T/lo.err")): metrics listen = \"\""
	listen=
fi
cat >"$T/rtmon.conf" <<CONF
targets = ( { name = "ct"; comm = "cyclictest"; source = "timer"; end = "switch_in";
	      deadline = "10us"; } );
snapshot = { dir = "$out"; records_file = true; ftrace = true; ftrace_buffer_kb = 256;
	     lttng = false; rate_burst = 3; rate_interval = "30s"; };
metrics = { listen = "$listen"; };
realtime = { policy = "fifo"; priority = 10; mlockall = true; keep_admin = true; };
CONF
"$RTMOND" --check -c "$T/rtmon.conf" >"$T/check.out" 2>&1 ||
	fail "rtmond --check refused the test configuration: $(cat "$T/check.out")"
grep -q "ok, 1 targets" "$T/check.out" || fail "rtmond --check said: $(cat "$T/check.out")"
sed 's/deadline = "10us"/dedline = "10us"/' "$T/rtmon.conf" >"$T/bad.conf"
"$RTMOND" --check -c "$T/bad.conf" >"$T/bad.out" 2>&1 && fail "rtmond --check accepted an unknown key"
grep -q "$T/bad.conf:2: targets.ct.dedline: unknown setting" "$T/bad.out" ||
	fail "no FILE:LINE: key message for a bad file: $(cat "$T/bad.out")"

rtmon_load
"$RTMOND" -c "$T/rtmon.conf" 2>"$T/rtmond.log" &
pid=$!
for ((i = 0; i < 150; i++)); do
	grep -q "running: 1 targets" "$T/rtmond.log" && break
	kill -0 $pid 2>/dev/null || fail "rtmond exited at start: $(cat "$T/rtmond.log")"
	sleep 0.2
done
grep -q "running: 1 targets" "$T/rtmond.log" || fail "rtmond not running after 30 s: $(cat "$T/rtmond.log")"
$RTMONCTL targets list >"$T/targets" || fail "rtmonctl targets list failed"
grep -q 'ct' "$T/targets" || fail "rtmond's target is not in the module: $(cat "$T/targets")"
grep -Eq '^  [0-9]+ ct: comm=cyclictest .*source=timer end=switch_in deadline_us=10( |$)' /proc/rtmon/status ||
	fail "target ct not in /proc/rtmon/status as configured: $(sed -n '/^targets/,/^counters/p' /proc/rtmon/status | head -n 5)"

cyclictest -q -m -p 80 -t 1 -i 5000 -l "$loops" >"$T/ct.out" 2>&1 ||
	fail "cyclictest failed: $(tail -n 3 "$T/ct.out")"
# rtmond catches up with the module: every record emitted is in
# records.jsonl (chains still open when cyclictest ends come later)
emitted() { awk '/^  records emitted/ { print $3 }' /proc/rtmon/status; }
sleep 1.5	# stats.json: rewritten every second while records come
for ((i = 0; i < 60; i++)); do
	emitted=$(emitted)
	nrec=$(wc -l <"$out/records.jsonl")
	[ "$nrec" = "$emitted" ] && break
	sleep 0.5
done
kill -0 $pid 2>/dev/null || fail "rtmond died: $(tail -n 5 "$T/rtmond.log")"
nmiss=$(wc -l <"$out/misses.jsonl")
flagged=$(with_flag '(deadline_miss|timeout)' <"$out/records.jsonl" | wc -l)
# the measuring thread's records (the main thread sleeps on timers too)
tid=$(sed -n 's/.*T: 0 ( *\([0-9][0-9]*\)).*/\1/p' "$T/ct.out" | head -n1)
mine=$(json_field pid <"$out/records.jsonl" | grep -cx "$tid" || true)
note "$loops cyclictest wakeups: module emitted $emitted records, rtmond wrote $nrec ($mine of the measuring thread $tid), $nmiss misses ($flagged records flagged)"
[ "$nrec" = "$emitted" ] || fail "rtmond wrote $nrec records, the module emitted $emitted"
# under emulation a wakeup after the next period leaves that loop without
# a chain (chain-cyclictest): only a sanity bound here
[ "$mine" -ge $((loops / 2)) ] && [ "$mine" -le "$loops" ] ||
	fail "$mine records of the measuring thread for $loops cyclictest wakeups"
[ "$nmiss" -ge 1 ] || fail "no miss written against a 10 us deadline"
[ "$nmiss" = "$flagged" ] || fail "$nmiss lines in misses.jsonl for $flagged records flagged deadline_miss/timeout"
grep -q '"snapshot"' "$out/misses.jsonl" || fail "miss lines without their snapshot"
ls "$out"/ftrace/miss-*.txt >/dev/null 2>&1 || fail "no ftrace snapshot in $out/ftrace"
f=$(ls "$out"/ftrace/miss-*.txt | head -n1)
grep -q 'sched_switch' "$f" || fail "ftrace snapshot $f without sched_switch events"
[ -f "$out/stats.json" ] || fail "no stats.json"
$RTMONCTL hist ct --dir "$out" >"$T/hist" 2>&1 || fail "rtmonctl hist ct failed: $(cat "$T/hist")"
head -n 3 "$T/hist"

if [ -n "$listen" ]; then
	wget -q -O "$T/metrics" "http://$listen/metrics" || fail "no metrics from http://$listen/metrics"
	m_rec=$(sed -n 's/^rtmon_target_records_total{target="ct"} //p' "$T/metrics")
	m_miss=$(sed -n 's/^rtmon_target_misses_total{target="ct"} //p' "$T/metrics")
	note "metrics: records $m_rec, misses $m_miss"
	now=$(emitted)
	[ "$now" = "$emitted" ] || note "records came meanwhile: $emitted then $now"
	[ -n "$m_rec" ] && [ "$m_rec" -ge "$nrec" ] && [ "$m_rec" -le "$now" ] ||
		fail "metrics say $m_rec records; records.jsonl had $nrec, the module emitted $emitted then $now"
	[ -n "$m_miss" ] && [ "$m_miss" -ge 1 ] && [ "$m_miss" -le "$nmiss" ] ||
		fail "metrics say $m_miss misses, misses.jsonl has $nmiss lines"
	grep -q '^rtmon_latency_seconds_bucket{target="ct",le="' "$T/metrics" ||
		fail "no latency histogram in the metrics"
fi

# clean stop
kill -TERM $pid
rc=0
for ((i = 0; i < 100; i++)); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && fail "rtmond still running 10 s after SIGTERM"
wait $pid || rc=$?
pid=
[ $rc = 0 ] || fail "rtmond exited $rc on SIGTERM: $(tail -n 3 "$T/rtmond.log")"
grep -q "exiting" "$T/rtmond.log" && grep -q "stopped after seq" "$T/rtmond.log" ||
	fail "no clean-exit lines in the log: $(tail -n 3 "$T/rtmond.log")"
[ ! -d /sys/kernel/tracing/instances/rtmon ] || fail "rtmond left its ftrace instance"
grep -q '^  [0-9]* ct: ' /proc/rtmon/status || fail "the target left the module with rtmond"
tail -n 4 "$T/rtmond.log"
rtmon_unload
echo "rtmond: ok ($nrec records, $nmiss misses)"

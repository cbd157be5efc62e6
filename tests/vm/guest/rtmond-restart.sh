# rtmond across a crash, a remote LTTng relay, and a bad configuration:
# - 'rtmond -c BAD' exits 1 with "FILE:LINE: KEY: message";
# - LTTng snapshots go over net:// to an lttng-relayd on loopback, and
#   babeltrace2 reads the relayed snapshot with its rtmond:miss event;
# - rtmond is killed with SIGKILL while tests/apps/dispatch_test provokes
#   misses, and started again while the app goes on: every record emitted
#   meanwhile waited in the module's rings, and the records written by both
#   runs have consecutive sequence numbers (none lost, none twice).
# timeout: 300
. "$RTMON_TOP/tests/vm/guest/lib.sh"

RTMOND=$RTMON_TOP/build/monitor/rtmond
[ -x "$RTMOND" ] || fail "rtmond not built"
rm -rf "$T"/*
out=/tmp/rtmond-restart
rm -rf $out
mkdir -p $out
pid= app=
cleanup() {
	set +e
	[ -n "$pid" ] && kill -9 $pid 2>/dev/null && wait $pid 2>/dev/null
	[ -n "$app" ] && kill -9 $app 2>/dev/null && wait $app 2>/dev/null
	for d in lttng-sessiond lttng-relayd; do
		pidof $d >/dev/null && kill $(pidof $d) 2>/dev/null
	done
	sleep 1
	cp -r $out $T/out 2>/dev/null
	rtmon_cleanup
}
trap cleanup EXIT

# a bad configuration: line-numbered error, exit 1
printf 'targets = (\n  { name = "d"; comm = "dispatch_test";\n    end = "done"; }\n);\n' >$T/bad.conf
rc=0; "$RTMOND" -c $T/bad.conf 2>$T/bad.err || rc=$?
cat $T/bad.err
[ $rc = 1 ] || fail "rtmond with a bad configuration exited $rc, not 1"
grep -q "^rtmond: $T/bad.conf:3: targets.d.end: \"done\": one of" $T/bad.err ||
	fail "error does not name file:line: key"

rtmon_load
ip link set lo up
lttng-relayd -d -o $out/relay -C tcp://127.0.0.1:5342 -D tcp://127.0.0.1:5343 \
	>$T/relayd.log 2>&1 || fail "lttng-relayd did not start"
lttng-sessiond --daemonize --no-kernel >$T/sessiond.log 2>&1 || fail "lttng-sessiond did not start"
cat >$T/rtmon.conf <<CONF
targets = ( { name = "dispatch"; comm = "dispatch_test"; source = "any_irq";
	      end = "work_end"; deadline = "5ms"; } );
snapshot = { dir = "$out"; records_file = true; ftrace = true; lttng = true;
	     lttng_output = "net://127.0.0.1"; rate_burst = 2; rate_interval = "1s"; };
metrics = { listen = "127.0.0.1:9466"; };
CONF

start_rtmond() { # LOG
	"$RTMOND" -c $T/rtmon.conf 2>$1 &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q "rtmond: running" $1 && return 0
		kill -0 $pid 2>/dev/null || fail "rtmond died: $(tail -n 5 $1)"
		sleep 0.1
	done
	fail "rtmond did not start: $(tail -n 5 $1)"
}
start_rtmond $T/rtmond1.log
echo "some data for the feeder" >/rtmon-share/feed
LD_PRELOAD=$RTMON_TOP/build/monitor/librtmon-ust.so \
	"$APPS/dispatch_test" -f /rtmon-share/feed -n 1000 -p 4000 -w 50 -s 10 -S 20000 \
	>$T/items.json &
app=$!
sleep 1.5
kill -9 $pid
wait $pid 2>/dev/null || true
pid=
note "rtmond killed at $(cat /proc/uptime)"
sleep 1.5
kill -0 $app 2>/dev/null || fail "the app ended before rtmond was restarted: make it run longer"
start_rtmond $T/rtmond2.log
wait $app || fail "dispatch_test failed"
app=
sleep 2
kill -TERM $pid
rc=0; wait $pid || rc=$?
pid=
[ $rc = 0 ] || fail "rtmond exited $rc on SIGTERM"
for f in rtmond1 rtmond2; do note "$f:"; grep -v "^rtmond: \(ftrace\|metrics\|capab\|memory\|reader\)" $T/$f.log | sed 's/^/#   /' | head -20; done

python3 - "$out" <<'PY'
import json, os, sys, glob, subprocess, collections
out = sys.argv[1]
T = os.environ["T"]
recs = [json.loads(l) for l in open(out + "/records.jsonl")]
seqs = [r["seq"] for r in recs]
dup = [s for s, n in collections.Counter(seqs).items() if n > 1]
lo, hi = min(seqs), max(seqs)
missing = sorted(set(range(lo, hi + 1)) - set(seqs))
print(f"{len(recs)} records, seq {lo}..{hi}, {len(missing)} missing, {len(dup)} twice")
assert not dup, f"records written twice: {dup[:10]}"
assert not missing, f"records lost: {missing[:20]}"
log2 = open(T + "/rtmond2.log").read()
assert "records lost" not in log2, "the second run reports lost records"
assert "the previous run read every record before seq" in log2
# records the second run read had waited in the rings while rtmond was down
waited = [r for r in recs if r["read_ns"] - r["end_ns"] > 1e9]
print(f"{len(waited)} records read more than 1 s after they completed (rtmond was down)")
assert waited, "no record waited in the module while rtmond was down"
misses = [json.loads(l) for l in open(out + "/misses.jsonl")]
relayed = [m for m in misses if m["snapshot"].get("lttng")]
print(f"{len(misses)} misses, {len(relayed)} with an LTTng snapshot over net://")
assert relayed and all(m["snapshot"]["lttng"]["output"] == "net://127.0.0.1" for m in relayed)
dirs = sorted(d for d in glob.glob(out + "/relay/**/miss-*", recursive=True) if os.path.isdir(d))
print("relayed snapshots:", [os.path.relpath(d, out) for d in dirs])
assert dirs, "nothing arrived at lttng-relayd"
txt = subprocess.run(["babeltrace2", dirs[-1]], capture_output=True, text=True, check=True).stdout
n = txt.count("rtmond:miss:")
print(f"babeltrace2 {os.path.basename(dirs[-1])}: {n} rtmond:miss events, "
      f"{txt.count('rtmon:work_end:')} rtmon:work_end")
assert n >= 1
PY
echo "rtmond-restart: ok"

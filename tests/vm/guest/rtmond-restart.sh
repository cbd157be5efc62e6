# rtmond across a crash, a remote LTTng relay, and a bad configuration:
# - 'rtmond -c BAD' exits 1 with "FILE:LINE: KEY: message";
# - LTTng snapshots go over net:// to an lttng-relayd on loopback, and
#   babeltrace2 reads the relayed snapshot with its rtmond:miss event;
# - rtmond is killed with SIGKILL while tests/apps/dispatch_test provokes
#   misses, and started again while the app goes on: every record emitted
#   meanwhile waited in the module's rings, and the records written by both
#   runs have consecutive sequence numbers (none lost, none twice);
# - the module reloaded (its numbers start again at 1; issue 21 item 8): a
#   new load_id (and 'insmod rtmon.ko load_id=N' refused), rtmond started
#   on the same directory takes rtmond.seq for another load's ("starting
#   afresh", nothing "read again"), names its snapshots miss-NEWID-SEQ,
#   leaves the first load's snapshot files as they were, and every miss
#   line points at a file of its own load.
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
lttng-sessiond --background --no-kernel >$T/sessiond.log 2>&1 || fail "lttng-sessiond did not start"
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
	wait_rtmond_log $1 "rtmond: running" 20
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

# ---- the module reloaded: new numbers, new names, old files kept
id1=$(cat /sys/module/rtmon/parameters/load_id)
md5sum $out/ftrace/miss-*.txt >$T/ftrace1.md5 || fail "no ftrace snapshot from the first load"
rtmon_unload
insmod "$RTMON_KO" load_id=5 2>$T/insmod-id.err && fail "insmod took load_id=5 as an option"
note "insmod rtmon.ko load_id=5 refused: $(head -c 120 $T/insmod-id.err)"
rtmon_load
id2=$(cat /sys/module/rtmon/parameters/load_id)
[ -n "$id1" ] && [ "$id1" != 0 ] && [ "$id2" != 0 ] && [ "$id1" != "$id2" ] ||
	fail "load_id $id1, after the reload $id2: want two different, non-zero"
tag2=$(printf '%x' "$id2")
start_rtmond $T/rtmond3.log
LD_PRELOAD=$RTMON_TOP/build/monitor/librtmon-ust.so \
	"$APPS/dispatch_test" -f /rtmon-share/feed -n 300 -p 4000 -w 50 -s 10 -S 20000 \
	>$T/items3.json || fail "dispatch_test failed after the reload"
sleep 2
kill -TERM $pid
rc=0; wait $pid || rc=$?
pid=
[ $rc = 0 ] || fail "rtmond exited $rc on SIGTERM after the reload"
grep -q "rtmond.seq is of another module load" $T/rtmond3.log ||
	fail "rtmond took the first load's rtmond.seq for this one's: $(grep -i seq $T/rtmond3.log | head -n 3)"
! grep -q "read again" $T/rtmond3.log || fail "after the reload: $(grep 'read again' $T/rtmond3.log)"
md5sum -c --quiet $T/ftrace1.md5 || fail "a snapshot file of the first load changed after the reload"
python3 - "$out" "$tag2" "$T/rtmond2.log" <<'PY'
import json, os, re, sys
out, tag2 = sys.argv[1], sys.argv[2]
misses = [json.loads(l) for l in open(out + "/misses.jsonl")]
# each line says its module load
assert all(m.get("load_id") for m in misses), "a miss line without load_id"
second = [m for m in misses if m["load_id"] == tag2]
first = [m for m in misses if m["load_id"] != tag2]
assert len({m["load_id"] for m in first}) == 1, {m["load_id"] for m in first}
files = lambda ms: [m["snapshot"]["ftrace"] for m in ms if m["snapshot"].get("ftrace")]
f1, f2 = files(first), files(second)
print(f"first load: {len(first)} misses, {len(set(f1))} ftrace snapshots; after the reload: "
      f"{len(second)} misses (seq {min(m['seq'] for m in second)}..), {len(set(f2))} snapshots "
      f"({os.path.basename(f2[0]) if f2 else '-'})")
assert f2, "no ftrace snapshot after the reload"
assert all(os.path.basename(f).startswith(f"miss-{tag2}-") for f in f2), f2[:3]
assert not set(f1) & set(f2), f"a snapshot name of the first load used again: {sorted(set(f1) & set(f2))[:3]}"
# the kill may cut a snapshot's copy short: the restarted rtmond removes
# the part and names it (CI once: miss-LOAD-82.txt.tmp left, its line
# pointing at no file); any other missing file is an error
cut = set(re.findall(r"snapshot: (\S+) was cut short", open(sys.argv[3]).read()))
gone = sorted({f for f in f1 + f2 if not os.path.exists(f)})
print(f"snapshot files missing: {len(gone)}, cut short by the kill and named by the restarted rtmond: "
      f"{sorted(cut)}")
assert all(os.path.basename(f) in cut for f in gone), f"a miss line points at no file: {gone[:3]}"
assert len(cut) <= 2, f"more than the kill can cut short: {sorted(cut)}"
PY
echo "rtmond-restart: ok"

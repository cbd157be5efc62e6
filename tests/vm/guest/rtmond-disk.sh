# rtmond's files on a full disk, and a reload to a directory it cannot use
# (issue 21, items 9 and 7):
# - its output directory on a 512 KiB tmpfs, filled but for 20 KiB, while
#   cyclictest makes a miss per wakeup (1 us deadline): writes fail, one
#   short; rtmond logs the lost lines, cuts the half line back, and once
#   there is room again every line of misses.jsonl and records.jsonl is
#   whole JSON (a half line used to glue the next miss onto it);
# - SIGHUP with a directory that cannot be created: the reload is refused
#   and the misses after it still go to the old files (they used to be
#   closed first, and nothing was written any more).
# timeout: 180
. "$RTMON_TOP/tests/vm/guest/lib.sh"

RTMOND=$RTMON_TOP/build/monitor/rtmond
[ -x "$RTMOND" ] || fail "rtmond not built"
d=/tmp/rtmond-small
mkdir -p $d
mount -t tmpfs -o size=512k tmpfs $d || fail "cannot mount a tmpfs"
pid=
cleanup() {
	set +e
	[ -n "$pid" ] && kill -9 $pid 2>/dev/null && wait $pid 2>/dev/null
	cp -r $d/out $T/ 2>/dev/null
	umount $d
	rtmon_cleanup
}
trap cleanup EXIT
rtmon_load
conf() { # DIR
	cat >$T/rtmon.conf <<CONF
targets = ( { name = "ct"; comm = "cyclictest"; source = "timer"; deadline = "1us"; } );
snapshot = { dir = "$1"; records_file = true; ftrace = false; lttng = false; };
metrics = { listen = ""; };
CONF
}
conf $d/out
"$RTMOND" -c $T/rtmon.conf 2>$T/rtmond.log &
pid=$!
for ((i = 0; i < 100; i++)); do grep -q "rtmond: running" $T/rtmond.log && break; sleep 0.1; done
grep -q "rtmond: running" $T/rtmond.log || fail "rtmond did not start: $(tail -n 3 $T/rtmond.log)"
mono() { awk '{ printf "%.0f\n", $1 * 1e9 }' /proc/uptime; }

avail=$(df --output=avail -k $d | tail -n 1)
dd if=/dev/zero of=$d/filler bs=1k count=$((avail - 20)) 2>/dev/null || true
cyclictest -q -m -p 80 -t 1 -i 1000 -l 300 >/dev/null
sleep 1
grep "write:" $T/rtmond.log | sed 's/^/# /'
grep -q "write: .*lines lost so far" $T/rtmond.log || fail "no lost lines logged on a full disk"
rm $d/filler
t_room=$(mono)
cyclictest -q -m -p 80 -t 1 -i 1000 -l 50 >/dev/null
sleep 1

conf /proc/rtmond-nope
kill -HUP $pid
for ((i = 0; i < 50; i++)); do grep -q "reload refused\|reloaded" $T/rtmond.log && break; sleep 0.1; done
grep "reload" $T/rtmond.log | sed 's/^/# /'
grep -q "reload refused: no outputs in /proc/rtmond-nope" $T/rtmond.log || fail "the reload to an unusable directory was not refused"
t_reload=$(mono)
cyclictest -q -m -p 80 -t 1 -i 1000 -l 30 >/dev/null
sleep 1
kill -TERM $pid
rc=0; wait $pid || rc=$?
pid=
[ $rc = 0 ] || fail "rtmond exited $rc on SIGTERM"

python3 - $d/out "$t_room" "$t_reload" <<'PY'
import json, sys
out, t_room, t_reload = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for name in ("misses.jsonl", "records.jsonl"):
    lines = open(f"{out}/{name}", "rb").read().split(b"\n")
    assert lines[-1] == b"", f"{name} ends in the middle of a line"
    bad = []
    ok = []
    for l in lines[:-1]:
        try:
            ok.append(json.loads(l))
        except ValueError:
            bad.append(l[:80])
    after = [m for m in ok if m["read_ns"] > t_room]
    late = [m for m in ok if m["read_ns"] > t_reload]
    print(f"# {name}: {len(ok)} whole lines, {len(bad)} cut; {len(after)} after the room came back, "
          f"{len(late)} after the refused reload")
    # at most the one line cut when the disk filled up, ended by the reopen
    assert not bad, f"{name}: lines that are not JSON: {bad[:2]}"
    assert len(after) >= 80, f"{name}: only {len(after)} lines after the room came back (50 + 30 misses)"
    assert len(late) >= 30, f"{name}: only {len(late)} lines after the refused reload"
PY
echo "rtmond-disk: ok"

# rtmond's files on a full disk, and a reload to a directory it cannot use
# (issue 21, items 9 and 7):
# - its output directory on a 4 MiB tmpfs (room for every line of the
#   run), filled but for 20 KiB, while cyclictest makes a miss per wakeup
#   (1 us deadline): writes fail, one short; rtmond says so once, cuts the
#   half line back, acknowledges nothing it has not stored and retries;
#   once there is room again it says how many lines waited, every record
#   read is in records.jsonl once, with no hole in the sequence but the
#   module's own drops (a failed line used to be dropped and acknowledged
#   all the same), every miss in misses.jsonl once, and every line is
#   whole JSON;
# - SIGHUP with a directory that cannot be created: the reload is refused
#   and the misses after it still go to the old files (they used to be
#   closed first, and nothing was written any more);
# - (item 5) directories another user could write in are refused with a
#   message and exit 1 (world- or group-writable, owned by another user,
#   under a world-writable directory that is not sticky), and so is a
#   reload to one; a symlink planted as misses.jsonl is not followed.
# timeout: 180
. "$RTMON_TOP/tests/vm/guest/lib.sh"

RTMOND=$RTMON_TOP/build/monitor/rtmond
[ -x "$RTMOND" ] || fail "rtmond not built"
d=/tmp/rtmond-small
mkdir -p $d
mount -t tmpfs -o size=4m tmpfs $d || fail "cannot mount a tmpfs"
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
ring0=$(status_count "  drops" ring_full)
"$RTMOND" -c $T/rtmon.conf 2>$T/rtmond.log &
pid=$!
wait_rtmond_log $T/rtmond.log "rtmond: running" 10
mono() { awk '{ printf "%.0f\n", $1 * 1e9 }' /proc/uptime; }

avail=$(df --output=avail -k $d | tail -n 1)
dd if=/dev/zero of=$d/filler bs=1k count=$((avail - 20)) 2>/dev/null || true
cyclictest -q -m -p 80 -t 1 -i 1000 -l 300 >/dev/null
sleep 1
grep "writing " $T/rtmond.log | sed 's/^/# /'
grep -q "writing $d/out/.* failed" $T/rtmond.log || fail "no failed write logged on a full disk: $(tail -n 3 $T/rtmond.log)"
rm $d/filler
t_room=$(mono)
cyclictest -q -m -p 80 -t 1 -i 1000 -l 50 >/dev/null
# every file that failed is stored again within 5 s (the backoff's
# longest wait): as many recoveries logged as failures
recovered() {
	[ "$(grep -c "stored again after .* lines waited for storage" $T/rtmond.log)" -ge \
		"$(grep -c "writing $d/out/.* failed" $T/rtmond.log)" ]
}
for ((i = 0; i < 80; i++)); do recovered && break; sleep 0.1; done
grep "stored again" $T/rtmond.log | sed 's/^/# /'
recovered || fail "not every failed file stored again once there was room: $(tail -n 3 $T/rtmond.log)"

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
# while rtmond held back its acknowledgements the module's ring filled:
# those records were dropped there, their sequence numbers gaps
ring=$(($(status_count "  drops" ring_full) - ring0))

python3 - $d/out "$t_room" "$t_reload" "$ring" <<'PY'
import json, sys
out, t_room, t_reload, ring = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
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
    # (the module hands the cpus' rings out in turn: not in seq order)
    seqs = sorted(m["seq"] for m in ok)
    assert len(set(seqs)) == len(seqs), f"{name}: a line twice"
    if name == "records.jsonl":
        holes = [(a, b) for a, b in zip(seqs, seqs[1:]) if b != a + 1]
        missing = sum(b - a - 1 for a, b in holes)
        print(f"# {name}: seq {seqs[0]}..{seqs[-1]}, {missing} missing, {ring} dropped on the module's full ring")
        assert missing == ring, f"{name}: {missing} records missing (between {holes[:3]}), the module dropped {ring}"
    after = [m for m in ok if m["read_ns"] > t_room]
    late = [m for m in ok if m["read_ns"] > t_reload]
    print(f"# {name}: {len(ok)} whole lines, {len(bad)} cut; {len(after)} after the room came back, "
          f"{len(late)} after the refused reload")
    # at most the one line cut when the disk filled up, ended by the reopen
    assert not bad, f"{name}: lines that are not JSON: {bad[:2]}"
    assert len(after) >= 80, f"{name}: only {len(after)} lines after the room came back (50 + 30 misses)"
    assert len(late) >= 30, f"{name}: only {len(late)} lines after the refused reload"
PY

# unsafe directories and symlinks (issue 21, item 5): rtmond runs as root
# and writes where snapshot.dir says; nobody else may be able to put files
# or symlinks there
refused() { # WHAT MESSAGE: rtmond with $T/rtmon.conf must exit 1 saying MESSAGE
	local rc=0
	timeout 20 "$RTMOND" -c $T/rtmon.conf 2>$T/refused.log || rc=$?
	[ $rc = 1 ] || fail "$1: rtmond exited $rc, want 1: $(tail -n 2 $T/refused.log)"
	grep -q "$2" $T/refused.log || fail "$1: no '$2' in: $(tail -n 2 $T/refused.log)"
	note "$1: exit 1: $(grep -m1 "$2" $T/refused.log)"
}
u=/tmp/rtmond-unsafe
rm -rf $u; mkdir -p $u/ww $u/gw $u/nobody $u/open/sub $u/link
chmod 0777 $u/ww; chmod 0770 $u/gw; chown nobody $u/nobody
conf $u/ww; refused "world-writable dir" "snapshot.dir $u/ww refused: $u/ww is writable by anyone (mode 0777)"
conf $u/gw; refused "group-writable dir" "is writable by its group (mode 0770)"
conf $u/nobody; refused "dir owned by nobody" "$u/nobody is owned by uid $(id -u nobody)"
chmod 0777 $u/open
conf $u/open/sub; refused "dir under a world-writable, not sticky one" "$u/open is writable by anyone (mode 0777, not sticky)"
# a symlink planted as misses.jsonl: not followed, the target untouched
echo "do not touch" >$u/victim
ln -s $u/victim $u/link/misses.jsonl
conf $u/link; refused "symlinked misses.jsonl" "cannot open $u/link/misses.jsonl: Too many levels of symbolic links"
[ "$(cat $u/victim)" = "do not touch" ] || fail "rtmond wrote through the misses.jsonl symlink"
# a sticky world-writable parent (/tmp, a tmpfs root) is fine: the run above used one
# a reload to a world-writable directory is refused, the old one goes on
conf $u/ok
"$RTMOND" -c $T/rtmon.conf 2>$T/rtmond2.log &
pid=$!
wait_rtmond_log $T/rtmond2.log "rtmond: running" 10
conf $u/ww
kill -HUP $pid
for ((i = 0; i < 50; i++)); do grep -q "reload refused\|reloaded" $T/rtmond2.log && break; sleep 0.1; done
grep -q "reload refused: no outputs in $u/ww" $T/rtmond2.log ||
	fail "the reload to a world-writable directory was not refused: $(tail -n 3 $T/rtmond2.log)"
note "reload: $(grep -m1 "refused:" $T/rtmond2.log)"
cyclictest -q -m -p 80 -t 1 -i 1000 -l 20 >/dev/null
sleep 1
kill -TERM $pid
rc=0; wait $pid || rc=$?
pid=
[ $rc = 0 ] || fail "rtmond exited $rc on SIGTERM"
[ "$(wc -l <$u/ok/misses.jsonl)" -ge 20 ] || fail "misses after the refused reload did not go on in $u/ok"
[ ! -e $u/ww/misses.jsonl ] || fail "rtmond wrote in the world-writable directory"
echo "rtmond-disk: ok"

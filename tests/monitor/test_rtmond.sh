#!/usr/bin/env bash
# test_rtmond.sh RTMOND RTMONCTL FAKE.so WORKDIR: rtmond on the host, its
# device played by fake_rtmon.so (LD_PRELOAD; targets kept in a file across
# runs, as the module keeps them), for what rtmond does around the device
# (issue 21):
# - item 2: the capability sets of every thread (/proc/PID/task/*/status):
#   the reader CAP_SYS_ADMIN + CAP_IPC_LOCK, the snapshot worker,
#   libmicrohttpd's and liblttng-ust's threads CAP_IPC_LOCK only, the
#   bounding set the reader's, only the reader SCHED_FIFO (as root only);
# - item 5: snapshot directories another user could write in are refused
#   with exit 1 and a message (world- and group-writable, owned by nobody,
#   under a world-writable directory that is not sticky); one under a
#   sticky one is fine; a symlink planted as misses.jsonl is not followed;
# - item 14: targets A, B, then X added by rtmonctl, then A, C: B removed,
#   A kept with its id, C added, X left alone; more restarts with a new
#   name each do not fill the slots;
# - records handed out of order (order/*, below);
# - items 9 and 15: 3000 records through the writer thread: every one
#   stored once, the module acknowledged only what records.jsonl holds
#   (the fake device counts its lines at each ack), acknowledgements at
#   least every RTMOND_WQ (4) batches; under strace, the reader thread
#   writes nothing but its log (no line, no rtmond.seq, no stats.json, no
#   fdatasync) and the writer fdatasyncs misses.jsonl;
# - item 10: snapshot.max_disk removes the oldest snapshots at start (the
#   newest kept, files not named miss-* left), and a misses.jsonl moved
#   away (logrotate) is reopened: the next misses go to the new one;
# - misses.jsonl and records.jsonl rotated by rtmond (max_file_size,
#   keep_files): bad bounds refused by --check; no file past the bound,
#   every seq once and in order across the files; records stored in files
#   rotated since the last rtmond.seq are not written again; the oldest
#   beyond keep_files removed; a rotation refused leaves the lines in the
#   file past the bound, none lost;
# - a full disk (a small tmpfs, as root): lines that cannot be written
#   wait and are retried, no acknowledgement while a line read is not
#   stored, the reader stops at its 4 batches, one log line when writes
#   fail and one when they work again, the metrics and the systemd status
#   say so; once there is room every record is stored once, in order; a
#   SIGTERM while the disk stays full exits within its bounded wait and
#   says how many records were not stored and not acknowledged;
# - the metrics textfile: a FIFO, a directory or a symlink at its .tmp
#   name, or a directory anyone can write in, refused (one log line each,
#   rtmond_textfile_errors_total), every record stored meanwhile, written
#   again once removed, SIGTERM at once;
# - the systemd watchdog (WATCHDOG_USEC 1 s): no pings while the writer is
#   stuck in fdatasync (fake_rtmon.so's FAKE_RTMON_STALL), again after;
# - the metrics port taken by another process: rtmond starts, stores every
#   record, says it once (log, systemd status), listens once the port is
#   free.
# Prints PASS:/FAIL:/SKIP: lines.
set -uo pipefail
RTMOND=$1
RTMONCTL=$2
FAKE=$3
W=$4
fails=0
TOP=$(cd "$(dirname "$0")/../.." && pwd)
pass() { echo "PASS: rtmond/$1"; }
fail() { echo "FAIL: rtmond/$1: $2"; fails=$((fails + 1)); }
rm -rf "$W"
mkdir -p "$W"
chmod 0755 "$W"
cd "$W" || exit 1
export FAKE_RTMON_DEV=$W/dev FAKE_RTMON_DB=$W/targets.db
# (below the ephemeral ports, 32768 and up: no outgoing connection holds it)
port=$((10000 + $$ % 20000))

conf() { # DIR TARGET-NAME...
	local dir=$1 sep="" n
	shift
	{
		echo "targets = ("
		for n in "$@"; do
			echo "$sep { name = \"$n\"; comm = \"task_$n\"; source = \"timer\"; deadline = \"1ms\"; }"
			sep=","
		done
		echo ");"
		echo "snapshot = { dir = \"$dir\"; ftrace = false; lttng = false; };"
		echo "metrics = { listen = \"127.0.0.1:$port\"; };"
		echo "realtime = { policy = \"fifo\"; priority = 1; mlockall = true; keep_admin = true; };"
	} >rtmon.conf
}
# start rtmond, wait for "running" (or its exit), run CHECK, then SIGTERM
pid=
start() {
	: >rtmond.log	# not the last run's "running"
	LD_PRELOAD=$FAKE "$RTMOND" -c rtmon.conf -d "$FAKE_RTMON_DEV" 2>rtmond.log &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		grep -q "rtmond: running" rtmond.log && return 0
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	return 1
}
stop() {
	local rc=0
	kill -TERM $pid 2>/dev/null
	wait $pid || rc=$?
	pid=
	return $rc
}
mnt= npid=
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; [ -n "$npid" ] && kill $npid; [ -n "$mnt" ] && umount "$mnt"' EXIT

# ---- item 2: capabilities and policy of every thread
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: rtmond/caps-per-thread (needs root)"
else
	mkdir -m 0750 out
	conf "$W/out" A
	if start && python3 - $pid "$(grep -c 'reader runs SCHED_FIFO' rtmond.log)" >caps.txt 2>&1 <<'PY'
import os, sys
pid, fifo = int(sys.argv[1]), sys.argv[2] != "0"
ADMIN, IPC_LOCK = 1 << 21, 1 << 14
tids = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task"))
bad = []
for tid in tids:
    st = dict(l.split(":", 1) for l in open(f"/proc/{pid}/task/{tid}/status") if ":" in l)
    c = {k: int(st[k], 16) for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")}
    reader = tid == pid
    want = ADMIN | IPC_LOCK if reader else IPC_LOCK
    pol = os.sched_getscheduler(tid)
    print(f"{tid} {st['Name'].strip()} Prm {c['CapPrm']:#x} Eff {c['CapEff']:#x} Bnd {c['CapBnd']:#x} "
          f"Inh {c['CapInh']:#x} Amb {c['CapAmb']:#x} policy {pol}")
    if (c["CapPrm"], c["CapEff"], c["CapBnd"], c["CapInh"], c["CapAmb"]) != (want, want, ADMIN | IPC_LOCK, 0, 0):
        bad.append(tid)
    if fifo and (pol == os.SCHED_FIFO) != reader:
        bad.append(tid)
# the reader, the writer, the snapshot worker, libmicrohttpd's and
# liblttng-ust's two
print(f"{len(tids)} threads, wrong: {bad}")
assert len(tids) >= 6 and not bad
PY
	then
		pass "caps-per-thread ($(tail -n 1 caps.txt); reader 0x204000, the others 0x4000, bounding 0x204000)"
	else
		fail caps-per-thread "$(cat caps.txt rtmond.log | head -c 1500)"
	fi
	stop >/dev/null
fi

# ---- item 5: unsafe snapshot directories, a planted symlink
refused() { # NAME MESSAGE
	local rc=0
	LD_PRELOAD=$FAKE timeout 20 "$RTMOND" -c rtmon.conf -d "$FAKE_RTMON_DEV" 2>refused.log || rc=$?
	if [ $rc != 1 ]; then
		fail "dir/$1" "exit $rc, want 1: $(head -c 300 refused.log)"
	elif ! grep -qF -- "$2" refused.log; then
		fail "dir/$1" "no '$2' in: $(head -c 300 refused.log)"
	else
		pass "dir/$1 (exit 1: $(grep -F -m1 -- "$2" refused.log | sed "s|$W/||g; s/^rtmond: //" | cut -c1-150))"
	fi
}
mkdir -p u/ww u/gw u/nobody u/open/sub u/sticky/sub u/link
chmod 0755 u u/gw u/nobody u/open/sub u/sticky/sub u/link
chmod 0777 u/ww u/open
chmod 0770 u/gw
chmod 1777 u/sticky
conf "$W/u/ww" A
refused world-writable "snapshot.dir $W/u/ww refused: $W/u/ww is writable by anyone (mode 0777)"
conf "$W/u/gw" A
refused group-writable "is writable by its group (mode 0770)"
conf "$W/u/open/sub" A
refused under-world-writable "$W/u/open is writable by anyone (mode 0777, not sticky)"
if [ "$(id -u)" = 0 ]; then
	chown nobody u/nobody
	conf "$W/u/nobody" A
	refused other-owner "$W/u/nobody is owned by uid $(id -u nobody)"
fi
echo "not rtmond's" >u/victim
ln -s "$W/u/victim" u/link/misses.jsonl
conf "$W/u/link" A
refused symlink "cannot open $W/u/link/misses.jsonl: Too many levels of symbolic links"
[ "$(cat u/victim)" = "not rtmond's" ] || fail dir/symlink "rtmond wrote through the symlink"
conf "$W/u/sticky/sub" A
if start && stop; then
	pass "dir/under-sticky (a directory in a sticky world-writable one is used)"
else
	fail dir/under-sticky "$(head -c 300 rtmond.log)"
fi

# ---- rtmonctl status --json: every counter, the followed ones outside drops
if LD_PRELOAD=$FAKE FAKE_RTMON_DEV=/dev/rtmon "$RTMONCTL" --json status >status.json 2>err.txt &&
	python3 - status.json <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
assert c["softirq_repoll"] == 0 and "softirq_repoll" not in c["drops"], c
assert len(c["drops"]) == 11 and c["records_skipped"] == 0, c
PY
then
	pass status-json
else
	fail status-json "$(head -c 300 status.json err.txt)"
fi

# ---- item 14: rtmond's targets across restarts, rtmonctl's left alone
rm -f "$FAKE_RTMON_DB"
ids() { LD_PRELOAD=$FAKE FAKE_RTMON_DEV=/dev/rtmon "$RTMONCTL" --json targets list |
	python3 -c 'import json,sys; print(" ".join("%s=%d%s" % (t["name"], t["id"], "r" if t["rtmond"] else "") for t in json.load(sys.stdin)))'; }
run_once() { start && stop; }
conf "$W/out" A B
run_once || fail targets "first run: $(head -c 300 rtmond.log)"
LD_PRELOAD=$FAKE FAKE_RTMON_DEV=/dev/rtmon "$RTMONCTL" targets add --name X --comm task_X --deadline 1ms >/dev/null ||
	fail targets "rtmonctl targets add"
before=$(ids)
conf "$W/out" A C
run_once || fail targets "second run: $(head -c 300 rtmond.log)"
after=$(ids)
for k in 1 2 3 4 5 6 7 8; do
	conf "$W/out" A "R$k"
	run_once || fail targets "run R$k: $(head -c 300 rtmond.log)"
done
last=$(ids)
if [ "$before" = "A=0r B=1r X=2" ] && [ "$after" = "A=0r C=1r X=2" ] && [ "$last" = "A=0r R8=1r X=2" ] &&
   grep -q "removed module target 1 'R7': added by rtmond, no longer in the configuration" rtmond.log; then
	pass "targets (A, B + rtmonctl's X: $before; with A, C: $after; 8 more runs, a new name each: $last)"
else
	fail targets "before '$before' after '$after' last '$last': $(grep target rtmond.log | head -c 400)"
fi
# ---- records out of cpu order: the module's per-cpu rings hand out a lower
# number after a higher one (a writer preempted between taking its number
# and committing the record); a first run had stored nothing, so none of
# them is "read again" (seen as 410 of 411 records on arm64); after a
# restart the records the module hands back are, and are left out once
seqs() { python3 -c '
import json, sys
def seq(l):
    try:
        return str(json.loads(l)["seq"])
    except ValueError:
        return "torn"	# not a whole line
print(" ".join(seq(l) for l in open(sys.argv[1])))' "$1"; }
order() { # NAME DIR "SEQ ..." WANT-RECORDS WANT-MISSES LOG-PATTERN...
	local name=$1 dir=$2 handed=$3 want=$4 wantm=$5 got gotm p
	echo "$handed" >records.in
	shift 5
	conf "$dir" A
	sed -i 's/snapshot = { /snapshot = { records_file = true; /' rtmon.conf
	FAKE_RTMON_RECORDS=$W/records.in run_once || { fail "order/$name" "run: $(head -c 300 rtmond.log)"; return; }
	got=$(seqs "$dir/records.jsonl")
	gotm=$(seqs "$dir/misses.jsonl")
	[ "$got" = "$want" ] && [ "$gotm" = "$wantm" ] ||
		{ fail "order/$name" "records $got (want $want), misses $gotm (want $wantm): $(grep -v targets rtmond.log | head -c 400)"; return; }
	for p in "$@"; do
		case $p in
		!*) ! grep -q -- "${p#!}" rtmond.log || { fail "order/$name" "log says ${p#!}: $(grep -- "${p#!}" rtmond.log)"; return; } ;;
		*) grep -q -- "$p" rtmond.log || { fail "order/$name" "log lacks '$p': $(grep -v targets rtmond.log | head -c 400)"; return; } ;;
		esac
	done
	pass "order/$name (handed out $handed; stored $got)"
}
rm -f "$FAKE_RTMON_DB"
order first-run "$W/ord1" "2 3 / 1 5 / 4" "2 3 1 5 4" "3 1 5" '!read again' '!records lost'
order restart "$W/ord1" "3 4 5 6 / 7" "2 3 1 5 4 6 7" "3 1 5 7" \
	'3 records read again' 'resumed at seq 6' '!records lost'
order hole "$W/ord2" "5 / 2 3" "5 2 3" "5 3" '!read again' \
	'records lost: 1 missing between seq 4 and 4$'
order reread-after-hole "$W/ord2" "5 6" "5 2 3 6" "5 3" '1 records read again' '!records lost'
# killed after a batch's lines but before rtmond.seq was saved (its
# window says "before 3", the files hold 3 and 4): the module hands 3 and
# 4 again, the tail of the files says they are stored (check25, 6.12-rt:
# rtmond-restart found 42 and 43 written twice)
order killed-first "$W/ord4" "1 2 3 4" "1 2 3 4" "1 3" '!read again'
sed -i -E 's/^(load=[^ ]+) .*/\1 3/' "$W/ord4/rtmond.seq"
order killed-before-window "$W/ord4" "3 4 5" "1 2 3 4 5" "1 3 5" \
	'2 records stored after its last rtmond.seq' '2 records read again' '!records lost'
# killed (or the disk full) in the middle of record 3's lines: the files end
# in a fragment of it (cut at the next start), the window says "before 3";
# the module hands 3 again, stored whole (before, the fragment counted as
# stored and 3 was skipped: lost)
order torn-first "$W/ord5" "1 2" "1 2" "1"
printf '{"seq":3,"tar' | tee -a "$W/ord5/records.jsonl" >>"$W/ord5/misses.jsonl"
order torn-tail "$W/ord5" "3 4 5" "1 2 torn 3 4 5" "1 torn 3 5" \
	'ended in the middle of a line' '!stored after its last rtmond.seq' '!read again' '!records lost'
# killed after storing the records of one cpu's ring but not the other's
# (the files hold 1..40 but the multiples of 5, the window says "before
# 3"), restarted with the writer stuck for 3 s: the reader stops at the
# writer's queue with 10..40 still in the rings. They are late, not lost:
# stored once read (6.1-rt's rtmond-restart once counted 57 such records
# lost 2 s after the start, then skipped them as read again)
order slow-first "$W/ord6" "$(seq 1 40 | grep -v '[05]$' | tr '\n' ' ')" \
	"$(seq 1 40 | grep -v '[05]$' | tr '\n' ' ' | sed 's/ $//')" \
	"$(seq 1 2 40 | grep -v '5$' | tr '\n' ' ' | sed 's/ $//')" '!read again'
sed -i -E 's/^(load=[^ ]+) .*/\1 3/' "$W/ord6/rtmond.seq"
slow_restart() {
	local dir=$W/ord6 want got
	seq 3 41 | sed 's/$/ \//' >records.in
	conf "$dir" A
	sed -i 's/snapshot = { /snapshot = { records_file = true; /' rtmon.conf
	touch "$W/stall6"
	FAKE_RTMON_RECORDS=$W/records.in FAKE_RTMON_STALL=$W/stall6 start ||
		{ fail order/slow-writer-restart "start: $(head -c 300 rtmond.log)"; return; }
	sleep 3
	rm -f "$W/stall6"
	stop
	want="$(seq 1 40 | grep -v '[05]$' | tr '\n' ' ')$(seq 5 5 40 | tr '\n' ' ')41"
	got=$(seqs "$dir/records.jsonl")
	if [ "$got" != "$want" ] || grep -q "records lost" rtmond.log; then
		fail order/slow-writer-restart "records $got (want $want): $(grep -v targets rtmond.log | head -c 400)"
	else
		pass "order/slow-writer-restart (10..40 behind a writer stuck 3 s: stored, none counted lost)"
	fi
}
slow_restart
# item 8: the window of another module load (a reboot, a reload) is not used
mkdir -p "$W/ord3" && chmod 0755 "$W/ord3" && echo "load=another-boot/1 8" >"$W/ord3/rtmond.seq"
order other-load "$W/ord3" "3 4" "3 4" "3" 'rtmond.seq is of another module load (another-boot/1' \
	'!read again' '!the previous run read'

# ---- a module target whose name is not text (another tool added it, or
# an older rtmonctl): its records are all stored, the name escaped; before,
# every line of it was dropped and still acknowledged
cp "$FAKE_RTMON_DB" targets.db.keep
rm -f "$FAKE_RTMON_DB"
LD_PRELOAD=$FAKE FAKE_RTMON_DEV=/dev/rtmon "$RTMONCTL" targets add --name BADNAME00 --comm task_X \
	--deadline 1ms >/dev/null || fail name-not-text "rtmonctl targets add"
python3 - "$FAKE_RTMON_DB" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
assert b.count(b"BADNAME00") == 1
open(sys.argv[1], "wb").write(b.replace(b"BADNAME00", b"BA\xff\x1b]0;x\x07"))
PY
# rtmonctl lists it, escaped (it printed an empty line for it)
if tl=$(LD_PRELOAD=$FAKE FAKE_RTMON_DEV=/dev/rtmon "$RTMONCTL" --json targets list |
	python3 -c 'import json, sys; print(*[t["name"] for t in json.load(sys.stdin)])') &&
   [ "$tl" = 'BA\xff\x1b]0;x\x07' ]; then
	pass "name-not-text/rtmonctl-list (listed as 'BA\\xff\\x1b]0;x\\x07')"
else
	fail name-not-text/rtmonctl-list "listed: '$tl'"
fi
echo "1..20" >records.in
conf "$W/bn" A
sed -i 's/snapshot = { /snapshot = { records_file = true; /' rtmon.conf
if ! FAKE_RTMON_RECORDS=$W/records.in run_once; then
	fail name-not-text "run: $(head -c 300 rtmond.log)"
elif got=$(python3 -c '
import json, sys
d = sys.argv[1]
r = [json.loads(l) for l in open(d + "/records.jsonl")]
m = [json.loads(l) for l in open(d + "/misses.jsonl")]
names = {x["target_name"] for x in r + m}
print(len(r), len(m), *names)
' "$W/bn") && [ "$got" = '20 10 BA\xff\x1b]0;x\x07' ]; then
	pass "name-not-text (20 records, 10 misses of target 'BA\\xff\\x1b]0;x\\x07')"
else
	fail name-not-text "records, misses, names: '$got' (want 20 10 and the escaped name)"
fi
mv targets.db.keep "$FAKE_RTMON_DB"

# ---- wall-clock time (issue 36): every line's wall_ns is its end_ns on
# CLOCK_REALTIME (one offset per batch, the clocks' difference when read);
# rtmonctl shows it, filters by it and by target, and names a miss LOAD:SEQ
# when seqs of two module loads meet in one file (a copy of these lines with
# another load_id: what a reload of the module gives)
if python3 - "$W/bn" <<'PY'
import json, sys, time
d = sys.argv[1]
now_off = time.time_ns() - time.monotonic_ns()
for f in ("records.jsonl", "misses.jsonl"):
    for l in open(d + "/" + f):
        x = json.loads(l)
        off = x["wall_ns"] - x["end_ns"]
        assert abs(off - now_off) < 10**9, (f, x["seq"], off, now_off)
PY
then
	pass "wall-clock (records.jsonl, misses.jsonl: wall_ns = end_ns + the clocks' offset, within 1 s)"
else
	fail wall-clock "wall_ns missing or off"
fi
mkdir -p "$W/loads"
python3 - "$W/bn/misses.jsonl" "$W/loads/misses.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
with open(sys.argv[2], "w") as o:
    for load in ("a1", "b2"):
        for x in lines:
            x["load_id"] = load
            o.write(json.dumps(x, separators=(",", ":")) + "\n")
PY
lrc=0
"$RTMONCTL" show 3 --dir "$W/loads" >show.txt 2>show.err || lrc=$?
if [ $lrc -eq 1 ] && grep -q "miss 3 is in 2 module loads (a1:3, b2:3): give LOAD:SEQ" show.err &&
   "$RTMONCTL" show b2:3 --dir "$W/loads" >show.txt 2>show.err &&
   grep -Eq '^  at [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}\.[0-9]{3} .*, module load b2$' show.txt &&
   "$RTMONCTL" misses --dir "$W/loads" >misses.txt 2>show.err &&
   [ "$(grep -Ec '^(a1|b2):[0-9]+ +[0-9]{2}-[0-9]{2} [0-9:]{8}\.[0-9]{3} ' misses.txt)" = 20 ] &&
   [ "$("$RTMONCTL" misses --dir "$W/loads" --target nobody | wc -l)" = 1 ] &&
   [ "$("$RTMONCTL" misses --dir "$W/loads" --since 1min | wc -l)" = 1 ] &&
   [ "$("$RTMONCTL" --json misses --dir "$W/loads" --since "2000-01-01 00:00" | wc -l)" = 20 ] &&
   [ "$("$RTMONCTL" --json misses --dir "$W/loads" --since 100000d | wc -l)" = 20 ]; then
	pass "miss-ids (seq 3 of 2 loads refused, b2:3 shown with its time; 20 LOAD:SEQ rows; --target, --since, --since longer ago than the epoch)"
else
	fail miss-ids "exit $lrc: $(head -c 300 show.err) $(head -c 300 show.txt) $(head -n 3 misses.txt)"
fi

# a filter that leaves one load's lines still names them LOAD:SEQ ('show'
# looks at the whole file); a line without a load_id (an older rtmond's)
# is "?:SEQ"
mkdir -p "$W/loads2"
python3 - "$W/bn/misses.jsonl" "$W/loads2/misses.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
with open(sys.argv[2], "w") as o:
    for x in lines:
        y = dict(x)
        y.pop("load_id", None)
        y["wall_ns"] = 946684800 * 10**9 + x["seq"]	# 2000-01-01
        o.write(json.dumps(y, separators=(",", ":")) + "\n")
    for x in lines:
        x["load_id"] = "a1"
        o.write(json.dumps(x, separators=(",", ":")) + "\n")
PY
if "$RTMONCTL" misses --dir "$W/loads2" --since "2001-01-01 00:00" >misses.txt 2>show.err &&
   [ "$(grep -Ec '^a1:[0-9]+ ' misses.txt)" = 10 ] && ! grep -Eq '^[?0-9]' misses.txt &&
   "$RTMONCTL" misses --dir "$W/loads2" >misses.txt 2>show.err &&
   [ "$(grep -Ec '^\?:[0-9]+ ' misses.txt)" = 10 ] &&
   "$RTMONCTL" show "?:3" --dir "$W/loads2" >show.txt 2>show.err &&
   ! grep -q "module load" show.txt; then
	pass "miss-ids-filtered (a filter leaving one load: still LOAD:SEQ; ?:SEQ for lines without a load_id)"
else
	fail miss-ids-filtered "$(head -c 300 show.err) $(head -n 3 misses.txt)"
fi

# ---- items 9 and 15: the writer thread
writer_test() {
	local dir=$W/wr tr=$W/strace.out rpid got acks bad st
	echo "1..3000" >records.in
	: >acks
	conf "$dir" A
	sed -i 's/snapshot = { /snapshot = { records_file = true; /' rtmon.conf
	: >rtmond.log
	export FAKE_RTMON_RECORDS=$W/records.in FAKE_RTMON_ACKLOG=$W/acks FAKE_RTMON_STORED=$dir/records.jsonl
	if [ -n "$STRACE" ]; then
		"$STRACE" -f -qq -o "$tr" -e trace=write,pwrite64,fdatasync,fsync,ftruncate,rename \
			-E LD_PRELOAD="$FAKE" "$RTMOND" -c rtmon.conf -d "$FAKE_RTMON_DEV" 2>rtmond.log &
	else
		LD_PRELOAD=$FAKE "$RTMOND" -c rtmon.conf -d "$FAKE_RTMON_DEV" 2>rtmond.log &
	fi
	pid=$!
	for ((i = 0; i < 300; i++)); do
		[ "$({ wc -l <"$dir/records.jsonl"; } 2>/dev/null)" = 3000 ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	rpid=$pid
	[ -n "$STRACE" ] && rpid=$(pgrep -P $pid -x rtmond)
	kill -TERM "$rpid" 2>/dev/null
	wait $pid
	pid=
	unset FAKE_RTMON_RECORDS FAKE_RTMON_ACKLOG FAKE_RTMON_STORED
	got=$(python3 -c 'import json,sys; s=[json.loads(l)["seq"] for l in open(sys.argv[1])]; print(len(s), len(set(s)), min(s), max(s))' "$dir/records.jsonl" 2>&1)
	[ "$got" = "3000 3000 1 3000" ] && [ "$(wc -l <"$dir/misses.jsonl")" = 1500 ] ||
		{ fail writer "records.jsonl: $got (want 3000 3000 1 3000), misses $(wc -l <"$dir/misses.jsonl"): $(tail -n 3 rtmond.log)"; return; }
	acks=$(wc -l <acks)
	bad=$(awk '$4 < $2' acks | head -n 3 | tr '\n' ';')
	[ "$acks" -ge 11 ] && [ -z "$bad" ] ||
		{ fail writer "$acks acknowledgements (want >= 11), acknowledged before stored: ${bad:-none}"; return; }
	if [ -z "$STRACE" ]; then
		pass "writer (3000 records stored once, 1500 misses; $acks acknowledgements, each after its records were in records.jsonl)"
		echo "SKIP: rtmond/writer-reader-io: no strace on this machine: the reader's system calls are not checked"
		return
	fi
	pass "writer (3000 records stored once, 1500 misses; $acks acknowledgements, each after its records were in records.jsonl)"
	# the reader is rtmond's first thread: its tid is rtmond's pid
	# (the fake device's own ack log is written in the reader's ioctl)
	# ("<... write resumed>" ends a call begun on an earlier line)
	st=$(awk -v r="$rpid" '$1 == r && $2 !~ /^write\(2,/ && $2 !~ /^\+\+\+|^---|^<\.\.\./ &&
		$0 !~ /"handed [0-9]+ stored [0-9]+\\n"/ { print; n++ } n == 3 { exit }' "$tr")
	if [ -n "$st" ]; then
		fail writer-reader-io "the real-time reader writes files: $st"
	elif ! awk -v r="$rpid" '$1 != r && $2 ~ /^fdatasync\(/ { f = 1 } END { exit !f }' "$tr"; then
		fail writer-reader-io "no fdatasync of misses.jsonl by the writer: $(grep -c . "$tr") system calls traced"
	else
		pass "writer-reader-io (reader $rpid: log lines only; the writer: $(awk -v r="$rpid" '$1 != r && $2 ~ /^write\(/' "$tr" | wc -l) writes, $(grep -c 'fdatasync(' "$tr") fdatasync)"
	fi
}
STRACE=$(command -v strace || true)
writer_test

# ---- item 10: the disk budget, a line file moved by logrotate
budget_test() {
	local dir=$W/bud f i kept
	rm -rf "$dir"
	mkdir -p "$dir/ftrace" "$dir/lttng/miss-a-1-20260101-000000-0/ust"
	chmod 0755 "$dir" "$dir/ftrace" "$dir/lttng"
	# ten ftrace copies of 100 KiB, a minute apart (copy i 59.5 - i minutes
	# old: 30 s from max_age's 55 min either way, where copy 5, exactly 55
	# min old, became older while rtmond started on a slow host), and one
	# LTTng snapshot directory of 100 KiB older than all; max_disk 350K
	# keeps the 3 newest
	for ((i = 1; i <= 10; i++)); do
		f=$dir/ftrace/miss-a-$i.txt
		head -c 102400 /dev/zero >"$f"
		touch -d "@$(( $(date +%s) - 3570 + i * 60 ))" "$f"
	done
	head -c 102400 /dev/zero >"$dir/lttng/miss-a-1-20260101-000000-0/ust/data"
	touch -d "@$(( $(date +%s) - 7200 ))" "$dir/lttng/miss-a-1-20260101-000000-0"
	: >"$dir/ftrace/notours.txt"
	# a copy a killed run cut short, and a .tmp not ours
	head -c 1000 /dev/zero >"$dir/ftrace/miss-a-11.txt.tmp"
	: >"$dir/ftrace/notours.tmp"
	# max_age alone first: 55 min takes the 4 copies older and the LTTng one
	conf "$dir" A
	sed -i 's/snapshot = { /snapshot = { max_disk = "0"; max_age = "55min"; /' rtmon.conf
	if start && sleep 0.5 && stop && grep -q "disk budget: removed the 5 oldest" rtmond.log &&
	   [ "$(cd "$dir" && ls ftrace lttng | grep -c '^miss-')" = 6 ] && [ ! -e "$dir/ftrace/miss-a-4.txt" ] &&
	   [ -e "$dir/ftrace/miss-a-5.txt" ]; then
		pass "budget-age (max_age 55min: the 5 snapshots older removed, 6 kept)"
	else
		fail budget-age "$(cd "$dir" && ls ftrace lttng | tr '\n' ' '); $(grep budget rtmond.log)"
	fi
	if [ ! -e "$dir/ftrace/miss-a-11.txt.tmp" ] && [ -e "$dir/ftrace/notours.tmp" ] &&
	   grep -q "snapshot: miss-a-11.txt was cut short when rtmond stopped" rtmond.log; then
		pass "cut-short (a snapshot copy a killed run left half done: removed at start, named in the log)"
	else
		fail cut-short "$(ls "$dir/ftrace" | tr '\n' ' '); $(grep -i "cut short" rtmond.log)"
	fi
	for ((i = 1; i <= 4; i++)); do	# back for the size budget
		f=$dir/ftrace/miss-a-$i.txt
		head -c 102400 /dev/zero >"$f"
		touch -d "@$(( $(date +%s) - 3570 + i * 60 ))" "$f"
	done
	mkdir -p "$dir/lttng/miss-a-1-20260101-000000-0/ust"
	head -c 102400 /dev/zero >"$dir/lttng/miss-a-1-20260101-000000-0/ust/data"
	touch -d "@$(( $(date +%s) - 7200 ))" "$dir/lttng/miss-a-1-20260101-000000-0"
	echo "1..10 @$W/go 11..20" >records.in
	conf "$dir" A
	sed -i 's/snapshot = { /snapshot = { records_file = true; max_disk = "350K"; /' rtmon.conf
	rm -f "$W/go"
	export FAKE_RTMON_RECORDS=$W/records.in
	start || { fail budget "start: $(head -c 300 rtmond.log)"; unset FAKE_RTMON_RECORDS; return; }
	unset FAKE_RTMON_RECORDS
	for ((i = 0; i < 50; i++)); do
		grep -q "disk budget" rtmond.log && [ "$(wc -l <"$dir/records.jsonl")" = 10 ] && break
		sleep 0.1
	done
	kept=$(cd "$dir" && ls ftrace lttng | grep '^miss-' | tr '\n' ' ')
	if [ "$kept" = "miss-a-10.txt miss-a-8.txt miss-a-9.txt " ] && [ -e "$dir/ftrace/notours.txt" ] &&
	   grep -q "disk budget: removed the 8 oldest snapshot files (0.8 MiB); 0.3 MiB kept" rtmond.log; then
		pass "budget (11 snapshots of 100 KiB, max_disk 350K: the 3 newest kept, other files left: $(grep -o 'disk budget.*' rtmond.log))"
	else
		fail budget "kept: $kept; $(grep 'budget' rtmond.log)"
	fi
	# logrotate: the file moved away, the next lines go to a new one
	mv "$dir/misses.jsonl" "$dir/misses.jsonl.1"
	# the writer looks for a moved file at most every 100 ms (writer.c):
	# the lines of a batch within 100 ms of its last look, before the
	# move, would rightly go to the moved file
	sleep 0.2
	touch "$W/go"
	for ((i = 0; i < 50; i++)); do
		[ "$(wc -l <"$dir/records.jsonl")" = 20 ] && [ -s "$dir/misses.jsonl" ] && break
		sleep 0.1
	done
	stop
	if [ "$(seqs "$dir/misses.jsonl.1")" = "1 3 5 7 9" ] && [ "$(seqs "$dir/misses.jsonl")" = "11 13 15 17 19" ] &&
	   grep -q "misses.jsonl was moved or removed (logrotate?): reopened" rtmond.log; then
		pass "logrotate (misses.jsonl moved after 5 misses: the next 5 in a new misses.jsonl, reopened)"
	else
		fail logrotate "moved: $(seqs "$dir/misses.jsonl.1" 2>&1); new: $(seqs "$dir/misses.jsonl" 2>&1); $(tail -n 3 rtmond.log)"
	fi
}
budget_test

# ---- rtmond rotates its own line files (snapshot.max_file_size, keep_files)
# FILES: the rotated ones oldest first, then the current one
rot_files() { # DIR NAME
	local k
	for k in $(cd "$1" && ls | sed -n "s/^$2\.\([0-9]*\)\$/\1/p" | sort -rn); do
		echo "$1/$2.$k"
	done
	echo "$1/$2"
}
# "LINES UNIQUE MIN MAX ORDERED BIGGEST FILES" of the seqs across the files
rot_check() { # DIR NAME
	python3 - $(rot_files "$1" "$2") <<'PY'
import json, os, sys
s = [json.loads(l)["seq"] for f in sys.argv[1:] for l in open(f)]
big = max(os.path.getsize(f) for f in sys.argv[1:])
print(len(s), len(set(s)), min(s), max(s), s == sorted(s), big, len(sys.argv) - 1)
PY
}
rotate_test() {
	local dir=$W/rot got gotm n first rc=0
	rm -rf "$dir"
	conf "$dir" A
	# a bound rtmond --check refuses, with the key and the reason
	for bad in 'max_file_size = "4K";=snapshot.max_file_size: at least 64K' \
		   'keep_files = 0;=snapshot.keep_files: 0 out of range [1, 1000]' \
		   'max_file_size = "64Q";=snapshot.max_file_size: bad size "64Q"'; do
		sed "s/snapshot = { /snapshot = { ${bad%%=snapshot*} /" rtmon.conf >bad.conf
		rc=0
		"$RTMOND" --check -c bad.conf >check.out 2>&1 || rc=$?
		if [ $rc != 1 ] || ! grep -qF "snapshot${bad#*=snapshot}" check.out; then
			fail "rotate/check" "'${bad%%=snapshot*}': exit $rc, want 1 and 'snapshot${bad#*=snapshot}': $(head -c 300 check.out)"
			return
		fi
	done
	pass "rotate/check (max_file_size \"4K\", keep_files 0, \"64Q\": exit 1, e.g. $(sed "s|$W/||g" check.out | head -n 1 | cut -c1-100))"
	# 3000 records (1500 misses) in files of 64 KiB at most, 40 kept: all there
	echo "1..3000" >records.in
	sed -i 's/snapshot = { /snapshot = { records_file = true; max_file_size = "64K"; keep_files = 40; /' rtmon.conf
	export FAKE_RTMON_RECORDS=$W/records.in
	start || { fail rotate "start: $(head -c 300 rtmond.log)"; unset FAKE_RTMON_RECORDS; return; }
	unset FAKE_RTMON_RECORDS
	for ((i = 0; i < 300; i++)); do
		[ "$(cat $(rot_files "$dir" records.jsonl) | wc -l)" = 3000 ] &&
			[ "$(cat $(rot_files "$dir" misses.jsonl) | wc -l)" = 1500 ] && break
		sleep 0.1
	done
	stop
	got=$(rot_check "$dir" records.jsonl 2>&1)
	gotm=$(rot_check "$dir" misses.jsonl 2>&1)
	if [[ "$got" == "3000 3000 1 3000 True "* ]] && [[ "$gotm" == "1500 1500 1 2999 True "* ]] &&
	   [ "$(echo "$got" | awk '$6 <= 65536 && $7 > 10')" ] && [ "$(echo "$gotm" | awk '$6 <= 65536 && $7 > 10')" ] &&
	   ! grep -q "cannot rotate\|moved or removed" rtmond.log; then
		pass "rotate (3000 records, max_file_size 64K: records.jsonl in $(echo "$got" | awk '{ print $7 }') files, misses.jsonl in $(echo "$gotm" | awk '{ print $7 }'), none over 64 KiB, every seq once and in order)"
	else
		fail rotate "records: $got (want 3000 3000 1 3000 True <=65536 >10); misses: $gotm; $(grep -i rotat rtmond.log | head -n 3)"
		return
	fi
	# killed after lines went to a file rotated since, before rtmond.seq said
	# them: the module hands them again, they are found in NAME.1 and NAME.2
	first=$(head -n 1 "$dir/records.jsonl.2" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["seq"])')
	sed -i -E "s/^(load=[^ ]+) .*/\1 $first/" "$dir/rtmond.seq"
	echo "$first..3000" >records.in
	FAKE_RTMON_RECORDS=$W/records.in run_once || { fail rotate/killed "run: $(head -c 300 rtmond.log)"; return; }
	n=$((3001 - first))
	got=$(rot_check "$dir" records.jsonl 2>&1)
	gotm=$(rot_check "$dir" misses.jsonl 2>&1)
	if [[ "$got" == "3000 3000 1 3000 True "* ]] && [[ "$gotm" == "1500 1500 1 2999 True "* ]] &&
	   grep -q "$n records stored after its last rtmond.seq" rtmond.log; then
		pass "rotate/killed (seq $first on, in records.jsonl.2 to records.jsonl, handed again: stored once)"
	else
		fail rotate/killed "records: $got; misses: $gotm; $(grep -i 'stored after\|read again' rtmond.log)"
		return
	fi
	# keep_files 2 (a reload of a smaller one): the oldest beyond it removed
	echo "3001..4000" >records.in
	sed -i 's/keep_files = 40;/keep_files = 2;/' rtmon.conf
	FAKE_RTMON_RECORDS=$W/records.in run_once || { fail rotate/keep "run: $(head -c 300 rtmond.log)"; return; }
	got=$(rot_check "$dir" records.jsonl 2>&1)
	gotm=$(rot_check "$dir" misses.jsonl 2>&1)
	if [ "$(cd "$dir" && ls | grep jsonl | tr '\n' ' ')" = "misses.jsonl misses.jsonl.1 misses.jsonl.2 records.jsonl records.jsonl.1 records.jsonl.2 " ] &&
	   echo "$got" | awk '$1 == $2 && $4 == 4000 && $4 - $3 + 1 == $1 && $5 == "True" && $6 <= 65536 { ok = 1 } END { exit !ok }' &&
	   echo "$gotm" | awk '$1 == $2 && $4 == 3999 && ($4 - $3) / 2 + 1 == $1 && $5 == "True" && $6 <= 65536 { ok = 1 } END { exit !ok }'; then
		pass "rotate/keep (keep_files 2: 3 files of each left, the newest seqs $(echo "$got" | awk '{ print $3 "-" $4 }') once each)"
	else
		fail rotate/keep "files: $(cd "$dir" && ls | grep jsonl | tr '\n' ' '); records $got; misses $gotm"
	fi
}
rotate_test
# a rotation refused (records.jsonl.1 is a directory): the lines go on in
# records.jsonl past the bound, none lost, said once (tried again in 10 s);
# misses.jsonl rotates as ever
rotate_refused_test() {
	local dir=$W/rotno got
	rm -rf "$dir"
	mkdir -p "$dir/records.jsonl.1/x"
	chmod 0755 "$dir"
	conf "$dir" A
	sed -i 's/snapshot = { /snapshot = { records_file = true; max_file_size = "64K"; keep_files = 1; /' rtmon.conf
	echo "1..1000" >records.in
	FAKE_RTMON_RECORDS=$W/records.in run_once || { fail rotate/refused "run: $(head -c 300 rtmond.log)"; return; }
	got=$(python3 - "$dir" <<'PY' 2>&1
import json, os, sys
d = sys.argv[1]
r = [json.loads(l)["seq"] for l in open(d + "/records.jsonl")]
m = [json.loads(l)["seq"] for f in ("misses.jsonl.1", "misses.jsonl") for l in open(f"{d}/{f}")]
print(r == list(range(1, 1001)), os.path.getsize(d + "/records.jsonl") > 65536,
      len(m) == len(set(m)) and m == sorted(m) and m[-1] == 999,
      max(os.path.getsize(f"{d}/{f}") for f in ("misses.jsonl.1", "misses.jsonl")) <= 65536,
      sorted(os.listdir(d)).count("misses.jsonl.2"))
PY
)
	if [ "$got" = "True True True True 0" ] &&
	   [ "$(grep -c "cannot rotate $dir/records.jsonl (rename: Is a directory)" rtmond.log)" = 1 ]; then
		pass "rotate/refused (records.jsonl.1 a directory: 1000 records on in records.jsonl past 64 KiB, $(grep -o 'cannot rotate.*' rtmond.log | sed "s|$W/||" | cut -c1-80)...; misses.jsonl rotated, keep_files 1)"
	else
		fail rotate/refused "$got (want True True True True 0); $(grep -i rotat rtmond.log | head -n 3)"
	fi
}
rotate_refused_test
# the packaged logrotate file rotates nothing while the shipped rtmon.conf
# has rtmond rotate: two tools renaming misses.jsonl.N would mix them
if grep -q '^[[:space:]]*max_file_size = "[1-9]' "$TOP/config/rtmon.conf" &&
   ! grep -v '^[[:space:]]*#' "$TOP/config/rtmon.logrotate" | grep -q '[^[:space:]]'; then
	pass "rotate/logrotate-config (config/rtmon.logrotate: comments only, rtmon.conf: $(grep -o 'max_file_size = "[^"]*"' "$TOP/config/rtmon.conf"))"
else
	fail rotate/logrotate-config "config/rtmon.logrotate rotates what rtmond rotates: $(grep -v '^[[:space:]]*#' "$TOP/config/rtmon.logrotate" | head -n 3)"
fi

# ---- a full disk: a line not stored is never acknowledged
metric() { # NAME: its value from the metrics endpoint
	python3 - "$port" "$1" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode()
print(*[l.split()[1] for l in text.splitlines() if l.split(" ")[0] == sys.argv[2]] or ["none"])
PY
}
# the tmpfs filled but for about KIB KiB (KIB)
fill() {
	local avail
	rm -f "$mnt/filler"
	avail=$(df --output=avail -k "$mnt" | tail -n 1)
	head -c $(((avail - $1) * 1024)) /dev/zero >"$mnt/filler" 2>/dev/null
}
# FILES: the records stored whole (every line they have: misses.jsonl too
# for odd numbers), and whether each file holds 1..N (odd ones) once, in order
stored_check() { # DIR N
	python3 - "$1" "$2" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
def seqs(name):
    try:
        raw = open(f"{d}/{name}", "rb").read()
    except FileNotFoundError:
        return []
    assert not raw or raw.endswith(b"\n"), f"{name} ends in the middle of a line"
    return [json.loads(l)["seq"] for l in raw.splitlines()]
r, m = seqs("records.jsonl"), seqs("misses.jsonl")
ms = set(m)
whole = sum(1 for s in r if s % 2 == 0 or s in ms)
ok = r == list(range(1, len(r) + 1)) and m == [s for s in r if s % 2][:len(m)] and len(r) <= n
print(whole, len(r), len(m), "in-order" if ok else f"disorder: records {r[:8]}... misses {m[:8]}...")
PY
}
# acknowledgements of records not in both files yet ("handed H stored R M")
acks_bad() {
	awk '$4 < $2 || $5 < int(($2 + 1) / 2)' "$W/acks" | head -n 3 | tr '\n' ';'
}
# systemd's notification socket: a datagram each line of OUT, npid its listener
notify_listen() { # SOCK OUT
	rm -f "$1"
	# python3 itself in the background (not a { } group): $! is its pid, for
	# the kill that ends the listener
	python3 - "$1" "$2" <<'PY' >/dev/null 2>&1 &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    m = s.recv(4096).decode(errors="replace")
    with open(sys.argv[2], "a") as f:
        f.write("%.3f " % time.monotonic() + m.replace("\n", " | ") + "\n")
PY
	npid=$!
	for ((i = 0; i < 50; i++)); do [ -S "$1" ] && break; sleep 0.1; done
}
full_test() {
	local dir=$mnt/out nsock=$W/notify.sock h0 s0 w0 e0 got t0 t1 lw n
	mkdir -p "$mnt"
	if ! mount -t tmpfs -o size=512k,mode=0755 tmpfs "$mnt" 2>/dev/null; then
		echo "SKIP: rtmond/full-disk: cannot mount a tmpfs"
		mnt=
		return
	fi
	mkdir -m 0750 "$dir"
	# systemd's notification socket, for the STATUS= lines
	notify_listen "$nsock" "$W/notify.txt"
	# about 24 KiB left: some 20 records of 500 fit (a records.jsonl line is
	# ~480 bytes, a misses.jsonl one ~570); every batch read after waits
	fill 24
	echo "1..500" >records.in
	: >acks
	: >notify.txt
	conf "$dir" A
	sed -i 's/snapshot = { /snapshot = { records_file = true; /' rtmon.conf
	export FAKE_RTMON_RECORDS=$W/records.in FAKE_RTMON_ACKLOG=$W/acks \
		FAKE_RTMON_STORED=$dir/records.jsonl:$dir/misses.jsonl FAKE_RTMON_HANDED=$W/handed
	NOTIFY_SOCKET=$nsock start || fail full-disk "start: $(head -c 300 rtmond.log)"
	for ((i = 0; i < 100; i++)); do
		grep -q "writing .* failed" rtmond.log && break
		sleep 0.1
	done
	sleep 2.5	# retries at 0.1, 0.3, 0.7 and 1.5 s
	h0=$(cat handed 2>/dev/null || echo 0)
	s0=$(stored_check "$dir" 500)
	w0=$(metric rtmond_lines_waiting)
	e0=$(metric rtmond_write_errors_total)
	# lines of the records handed out (a miss has two) less those stored
	n=$(echo "$s0" | awk -v h="$h0" '{ print h + int((h + 1) / 2) - $2 - $3 }')
	if [ "$(grep -c "writing .* failed: No space left on device" rtmond.log)" != 1 ]; then
		fail full-disk/failing "want one log line for the failing writes: $(grep -v targets rtmond.log | tail -n 5)"
	elif [ -n "$(acks_bad)" ]; then
		fail full-disk/failing "acknowledged while not stored: $(acks_bad); stored: $s0"
	elif [ "$h0" -gt $((256 + $(echo "$s0" | awk '{ print $1 }'))) ]; then
		fail full-disk/failing "$h0 records read with $s0 stored: the reader went on past its 4 batches"
	elif [ "$w0" != "$n" ] || ! [[ $e0 =~ ^[0-9]+$ ]] || [ "$e0" -lt 3 ]; then
		fail full-disk/failing "metrics: rtmond_lines_waiting $w0 (want $n), rtmond_write_errors_total $e0 (want >= 3)"
	elif ! grep -q "STATUS=.*writes failing (.*: No space left on device): $n lines wait for storage" notify.txt; then
		fail full-disk/failing "systemd status: $(grep STATUS notify.txt | tail -n 2)"
	else
		pass "full-disk/failing ($h0 records read, whole stored/lines: $s0, none acknowledged past them; rtmond_lines_waiting $w0, rtmond_write_errors_total $e0; $(grep -o "writing .* failed.*" rtmond.log | cut -c1-120))"
	fi
	t0=$(date +%s%N)
	rm "$mnt/filler"
	for ((i = 0; i < 150; i++)); do
		[ "$({ wc -l <"$dir/records.jsonl"; } 2>/dev/null)" = 500 ] && grep -q "stored again" rtmond.log && break
		sleep 0.1
	done
	t1=$(date +%s%N)
	lw=$(metric rtmond_lines_waiting)
	stop || fail full-disk "exit status $?"
	got=$(stored_check "$dir" 500)
	n=$w0	# the lines waiting when room came back
	if [ "$got" != "500 500 250 in-order" ]; then
		fail full-disk/room "stored: $got (want 500 500 250 in-order): $(grep -v targets rtmond.log | tail -n 4)"
	elif [ -n "$(acks_bad)" ] || [ "$(tail -n 1 acks | awk '{ print $2 }')" != 500 ]; then
		fail full-disk/room "acknowledgements: $(acks_bad) last: $(tail -n 1 acks)"
	elif ! grep -q "stored again after [0-9.]* s: $n lines waited for storage" rtmond.log; then
		fail full-disk/room "want 'stored again after S s: $n lines waited': $(grep -v targets rtmond.log | tail -n 4)"
	elif [ "$lw" != 0 ] || grep -q "STATUS=.*writes failing" <(tail -n 2 notify.txt); then
		fail full-disk/room "rtmond_lines_waiting $lw, status $(grep STATUS notify.txt | tail -n 1)"
	else
		pass "full-disk/room (every record stored once, in order, after $(((t1 - t0) / 1000000)) ms; $(wc -l <acks) acknowledgements, none before its lines; $(grep -o "[^ ]* stored again.*" rtmond.log))"
	fi

	# SIGTERM while the disk stays full: a bounded wait, then what was not stored is said
	rm -rf "$dir" "$W/handed"
	mkdir -m 0750 "$dir"
	fill 24
	: >acks
	start || fail full-disk/stop "start: $(head -c 300 rtmond.log)"
	for ((i = 0; i < 100; i++)); do
		grep -q "writing .* failed" rtmond.log && break
		sleep 0.1
	done
	sleep 0.5
	t0=$(date +%s%N)
	stop || fail full-disk/stop "exit status $?"
	t1=$(date +%s%N)
	unset FAKE_RTMON_RECORDS FAKE_RTMON_ACKLOG FAKE_RTMON_STORED FAKE_RTMON_HANDED
	h0=$(cat handed 2>/dev/null || echo 0)
	got=$(stored_check "$dir" 500)
	# not stored: records with a line missing; not acknowledged: read since the last ack
	n="$((h0 - $(echo "$got" | awk '{ print $1 }'))) records read were not stored and $((h0 - $(awk 'END { print $2 + 0 }' acks))) not acknowledged"
	if ! grep -q -- "$n" rtmond.log; then
		fail full-disk/stop "want '$n' in: $(grep -v targets rtmond.log | tail -n 4)"
	elif [ -n "$(acks_bad)" ]; then
		fail full-disk/stop "acknowledged while not stored: $(acks_bad)"
	elif [ $(((t1 - t0) / 1000000)) -gt 9000 ]; then
		fail full-disk/stop "SIGTERM took $(((t1 - t0) / 1000000)) ms"
	else
		pass "full-disk/stop (SIGTERM with the disk full: exit 0 after $(((t1 - t0) / 1000000)) ms; $(grep -o "[0-9]* records read were not stored.*" rtmond.log | cut -c1-150))"
	fi
	kill $npid 2>/dev/null
	wait $npid 2>/dev/null
	npid=
	umount "$mnt" && mnt=
}
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: rtmond/full-disk (needs root to mount a tmpfs)"
else
	mnt=$W/full
	full_test
fi

# ---- the metrics textfile: a FIFO, a directory or a symlink at its .tmp
# name, or a directory others can write in, is refused (said once per
# reason, counted) and never blocks the writer: every record is stored
# and a SIGTERM exits at once
# wait until the log has PATTERN (N times; 5 s at most)
log_wait() { # PATTERN [N]
	for ((i = 0; i < 50; i++)); do
		[ "$(grep -cF -- "$1" rtmond.log)" -ge "${2:-1}" ] && return 0
		sleep 0.1
	done
	return 1
}
textfile_test() {
	local dir=$W/tf prom=$W/prom got e t0 t1 rc=0 n kind
	rm -rf "$dir" "$prom"
	mkdir -m 0755 "$prom"
	mkfifo "$prom/rtmon.prom.tmp"
	echo "not rtmond's" >"$W/tf-victim"
	conf "$dir" A
	sed -i "s|snapshot = { |snapshot = { records_file = true; |; s|metrics = { |metrics = { textfile = \"$prom/rtmon.prom\"; textfile_interval = \"100ms\"; |" rtmon.conf
	echo "1..600" >records.in
	FAKE_RTMON_RECORDS=$W/records.in start || { fail textfile "start: $(head -c 300 rtmond.log)"; return; }
	for ((i = 0; i < 100; i++)); do
		[ "$({ wc -l <"$dir/records.jsonl"; } 2>/dev/null)" = 600 ] && break
		sleep 0.1
	done
	sleep 0.5
	e=$(metric rtmond_textfile_errors_total)
	got=$({ wc -l <"$dir/records.jsonl"; } 2>/dev/null)
	if [ "$got" != 600 ]; then
		fail textfile/fifo "$got of 600 records stored with a FIFO at rtmon.prom.tmp: $(grep -v targets rtmond.log | tail -n 3)"
	elif [ "$(grep -c "metrics.textfile: $prom/rtmon.prom.tmp is a FIFO, not a regular file" rtmond.log)" != 1 ] ||
	     ! [[ $e =~ ^[0-9]+$ ]] || [ "$e" -lt 2 ]; then
		fail textfile/fifo "want one log line and rtmond_textfile_errors_total >= 2 (got $e): $(grep textfile rtmond.log | head -n 3)"
	else
		pass "textfile/fifo (600 records stored, $e writes refused, one line: $(grep -o 'metrics.textfile: .*' rtmond.log | sed "s|$W/||" | head -n 1))"
	fi
	# the FIFO removed: written again; then a directory, a symlink, an unsafe directory
	rm "$prom/rtmon.prom.tmp"
	if log_wait "metrics.textfile: written again" && grep -q '^rtmond_records_total 600$' "$prom/rtmon.prom"; then
		pass "textfile/again (the FIFO removed: written again, rtmon.prom holds rtmond_records_total 600)"
	else
		fail textfile/again "$(grep textfile rtmond.log | tail -n 2); $(grep rtmond_records_total "$prom/rtmon.prom" 2>&1)"
	fi
	n=1
	for kind in directory symlink unsafe; do
		case $kind in
		directory) mkdir "$prom/rtmon.prom.tmp"; e="$prom/rtmon.prom.tmp is a directory, not a regular file" ;;
		symlink) ln -s "$W/tf-victim" "$prom/rtmon.prom.tmp"; e="$prom/rtmon.prom.tmp is a symlink, not a regular file" ;;
		unsafe) chmod 0777 "$prom"; e="metrics.textfile: $prom refused: $prom is writable by anyone (mode 0777)" ;;
		esac
		if log_wait "$e"; then
			pass "textfile/$kind ($(grep -oF -- "${e#metrics.textfile: }" rtmond.log | sed "s|$W/||g" | head -n 1))"
		else
			fail "textfile/$kind" "no '$e': $(grep textfile rtmond.log | tail -n 2)"
		fi
		rm -rf "$prom/rtmon.prom.tmp"
		chmod 0755 "$prom"
		n=$((n + 1))
		log_wait "metrics.textfile: written again" $n
	done
	[ "$(cat "$W/tf-victim")" = "not rtmond's" ] || fail textfile/symlink "written through the symlink"
	t0=$(date +%s%N)
	kill -TERM $pid
	for ((i = 0; i < 100; i++)); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	kill -9 $pid 2>/dev/null && rc=1
	wait $pid
	pid=
	t1=$(date +%s%N)
	if [ $rc = 0 ]; then
		pass "textfile/stop (SIGTERM: exit after $(((t1 - t0) / 1000000)) ms)"
	else
		fail textfile/stop "SIGTERM did not end rtmond in 10 s: killed"
	fi
}
textfile_test

# ---- the systemd watchdog pings only while records go on to storage: a
# writer stuck in fdatasync (a disk that stopped answering) stops them
# while the reader's loop runs on; they start again when it moves on
watchdog_test() {
	local dir=$W/wd nsock=$W/wd.sock n0 n1 n2 got
	rm -rf "$dir" "$W/stall"
	conf "$dir" A
	sed -i 's/snapshot = { /snapshot = { records_file = true; /' rtmon.conf
	: >wd-notify.txt
	notify_listen "$nsock" "$W/wd-notify.txt"
	echo "1..10 @$W/go 11..600" >records.in
	rm -f "$W/go"
	export FAKE_RTMON_RECORDS=$W/records.in FAKE_RTMON_STALL=$W/stall
	NOTIFY_SOCKET=$nsock WATCHDOG_USEC=1000000 start || fail watchdog "start: $(head -c 300 rtmond.log)"
	unset FAKE_RTMON_RECORDS
	# idle: a ping every 0.5 s
	sleep 1.6
	n0=$(grep -c WATCHDOG=1 wd-notify.txt)
	touch "$W/stall" "$W/go"
	sleep 1	# the writer in fdatasync for a whole ping period
	n1=$(grep -c WATCHDOG=1 wd-notify.txt)
	sleep 2
	n2=$(grep -c WATCHDOG=1 wd-notify.txt)
	rm "$W/stall"
	unset FAKE_RTMON_STALL
	for ((i = 0; i < 100; i++)); do
		[ "$({ wc -l <"$dir/records.jsonl"; } 2>/dev/null)" = 600 ] && break
		sleep 0.1
	done
	sleep 1.2
	got=$(grep -c WATCHDOG=1 wd-notify.txt)
	stop || fail watchdog "exit status $?"
	kill $npid 2>/dev/null
	wait $npid 2>/dev/null
	npid=
	if [ "$n0" -lt 2 ] || [ "$n2" != "$n1" ] || [ $((got - n2)) -lt 2 ]; then
		fail watchdog "pings: $n0 idle, $n1 then $n2 with the writer stuck 2 s later (want none), $got after (want 2 more): $(grep writer rtmond.log | head -n 2)"
	elif ! grep -q "the writer has been stuck in one round of writes for [0-9.]* s: no watchdog pings until it moves on" rtmond.log ||
	     ! grep -q "the writer moves on: watchdog pings again" rtmond.log ||
	     [ "$(wc -l <"$dir/records.jsonl")" != 600 ]; then
		fail watchdog "log or records: $(grep writer rtmond.log | head -n 2); $(wc -l <"$dir/records.jsonl") records"
	else
		pass "watchdog (WatchdogSec 1 s: $n0 pings idle, none in 2 s with the writer stuck in fdatasync, $((got - n2)) after; 600 records stored)"
	fi
}
watchdog_test

# ---- the metrics port taken by another process: rtmond starts and stores
# every record, says it once, tries again every 5 s and listens once the
# port is free
port_test() {
	local dir=$W/port sq got f w n
	rm -rf "$dir"
	conf "$dir" A
	sed -i 's/snapshot = { /snapshot = { records_file = true; /' rtmon.conf
	python3 -c 'import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen()
open(sys.argv[2], "w").close()
time.sleep(60)' "$port" "$W/squatting" &
	sq=$!
	for ((i = 0; i < 50; i++)); do [ -e "$W/squatting" ] && break; sleep 0.1; done
	echo "1..300" >records.in
	: >port-notify.txt
	notify_listen "$W/port.sock" "$W/port-notify.txt"
	if ! FAKE_RTMON_RECORDS=$W/records.in NOTIFY_SOCKET=$W/port.sock start; then
		fail port "rtmond did not start with its port taken: $(grep -v targets rtmond.log | tail -n 3)"
		kill $sq $npid
		wait $sq $npid 2>/dev/null
		npid=
		[ -n "$pid" ] && stop
		return
	fi
	sleep 6	# one more try
	got=$({ wc -l <"$dir/records.jsonl"; } 2>/dev/null)
	f=$(grep -c "metrics: cannot listen on 127.0.0.1:$port: .*Address already in use" rtmond.log)
	kill $sq
	wait $sq 2>/dev/null
	rm -f "$W/squatting"
	for ((i = 0; i < 80; i++)); do
		grep -q "metrics: http://127.0.0.1:$port/metrics (listening after" rtmond.log && break
		sleep 0.1
	done
	w=$(metric rtmond_metrics_listen_failing 2>&1)
	n=$(metric rtmond_records_total 2>&1)
	stop || fail port "exit status $?"
	kill $npid 2>/dev/null
	wait $npid 2>/dev/null
	npid=
	if [ "$got" != 300 ] || [ "$f" != 1 ]; then
		fail port "with the port taken: $got of 300 records stored, $f 'cannot listen' lines (want 1): $(grep metrics: rtmond.log | head -n 3)"
	elif [ "$w" != 0 ] || [ "$n" != 300 ]; then
		fail port "the port free again: rtmond_metrics_listen_failing '$w' (want 0), rtmond_records_total '$n' (want 300): $(grep metrics: rtmond.log | tail -n 2)"
	elif ! grep -q "STATUS=running: .*; metrics cannot listen (Failed to bind to port $port: Address already in use)" port-notify.txt; then
		fail port "systemd status: $(grep STATUS port-notify.txt | tail -n 2)"
	else
		pass "port (taken: started, 300 records stored, said once: $(grep -o 'cannot listen on [^;]*' rtmond.log | cut -c1-90), in the systemd status; free: $(grep -o 'listening after [0-9]* tries' rtmond.log), scraped)"
	fi
}
port_test

[ $fails -eq 0 ]

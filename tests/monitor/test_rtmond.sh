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
# - a full disk (a small tmpfs, as root): lines that cannot be written
#   wait and are retried, no acknowledgement while a line read is not
#   stored, the reader stops at its 4 batches, one log line when writes
#   fail and one when they work again, the metrics and the systemd status
#   say so; once there is room every record is stored once, in order; a
#   SIGTERM while the disk stays full exits within its bounded wait and
#   says how many records were not stored and not acknowledged.
# Prints PASS:/FAIL:/SKIP: lines.
set -uo pipefail
RTMOND=$1
RTMONCTL=$2
FAKE=$3
W=$4
fails=0
pass() { echo "PASS: rtmond/$1"; }
fail() { echo "FAIL: rtmond/$1: $2"; fails=$((fails + 1)); }
rm -rf "$W"
mkdir -p "$W"
chmod 0755 "$W"
cd "$W" || exit 1
export FAKE_RTMON_DEV=$W/dev FAKE_RTMON_DB=$W/targets.db
port=$((20000 + $$ % 20000))

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
seqs() { python3 -c 'import json,sys; print(" ".join(str(json.loads(l)["seq"]) for l in open(sys.argv[1])))' "$1"; }
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
	{ python3 - "$nsock" "$W/notify.txt" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    m = s.recv(4096).decode(errors="replace")
    with open(sys.argv[2], "a") as f:
        f.write(m.replace("\n", " | ") + "\n")
PY
	} >/dev/null 2>&1 &
	npid=$!
	for ((i = 0; i < 50; i++)); do [ -S "$nsock" ] && break; sleep 0.1; done
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

[ $fails -eq 0 ]

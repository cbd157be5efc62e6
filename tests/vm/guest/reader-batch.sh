# The reader is woken in batches, misses at once (kmod/rtmon_tracker.c):
# a wakeup per record cost more than tracking the chain (tests/bench/
# icount). Two phases, each with the counts of the status file's reader
# line before and after:
# 1. 96 records that are no miss, on one cpu, 1 ms apart (several under
#    emulation), with tick_ms=1000 so that 32 come before the timer: the
#    reader is woken for batches of 32 (at least 2 of them: the tick,
#    every second, may take some records first), never for a miss, and
#    reads all 96. (With the default 10 ms, an emulated guest makes
#    records too slowly to fill a batch: the tick takes them.)
# 2. 6 misses (a 1 us deadline), 100 ms apart: each wakes the reader at
#    once, ahead of any batch or tick. So does a timeout record: a chain
#    still open when the tick runs (a wakeup emulation delays by ms) is
#    reported overdue first (make check on 6.1-rt: 7 wakes for 6 misses,
#    the 7th a timeout record).
# timeout: 120
. "$RTMON_TOP/tests/vm/guest/lib.sh"

# wakes: "MISSES BATCHES LATER" of /proc/rtmon/status's reader line
# (LATER: by the tick)
wakes() {
	local line
	line=$(grep '^reader:' /proc/rtmon/status) || fail "no reader line in /proc/rtmon/status"
	set -- $(echo "$line" | tr -cs '0-9' ' ')
	echo "$1 $3 $4"
}
# phase FILE COUNT COMMAND...: a reader takes COUNT records into FILE while
# COMMAND makes them; sets dm db dl, the reader line's counts in between
phase() {
	local file=$1 count=$2 m0 b0 l0
	shift 2
	$RTMONCTL records --json -n "$count" -t 5 >"$file" &
	reader=$!
	sleep 0.3
	read -r m0 b0 l0 <<<"$(wakes)"
	"$@"
	wait $reader || fail "rtmonctl records failed ($file)"
	reader=
	read -r dm db dl <<<"$(wakes)"
	dm=$((dm - m0)) db=$((db - b0)) dl=$((dl - l0))
}
# python3 -c "$sleeps" N SECONDS: N timer chains of python3
sleeps='
import sys, time
for _ in range(int(sys.argv[1])):
    time.sleep(float(sys.argv[2]))
'
reader=
trap '[ -z "$reader" ] || kill $reader 2>/dev/null || true; rtmon_cleanup' EXIT
rtmon_load tick_ms=1000
grep -q '^reader: .* batches of 32 records ' /proc/rtmon/status || fail "wake_batch is not 32: $(grep '^reader:' /proc/rtmon/status)"
grep -q '^tick: every 1000 ms' /proc/rtmon/status || fail "tick_ms is not 1000: $(grep '^tick:' /proc/rtmon/status)"

# phase 1: 96 records, no deadline, all on cpu 0
$RTMONCTL targets add --name batch --comm python3 --timer >/dev/null
$RTMONCTL start
phase $T/batch.json 96 taskset -c 0 python3 -c "$sleeps" 96 0.001
n=$(grep -c . $T/batch.json || true)
echo "# phase 1: $n records read; woken for misses $dm, batches $db, later $dl"
[ "$n" -eq 96 ] || fail "read $n records of 96"
[ $dm -eq 0 ] || fail "woken for $dm misses, none made"
[ $db -ge 2 ] && [ $db -le 3 ] || fail "woken for $db batches of 32 for 96 records (2 or 3)"
$RTMONCTL stop
$RTMONCTL targets del 0 >/dev/null

# phase 2: 6 misses, 100 ms apart
$RTMONCTL targets add --name miss --comm python3 --timer --deadline 1us >/dev/null
$RTMONCTL start
overdue() { sed -n 's/^  chains started .* overdue \([0-9]*\) .*/\1/p' /proc/rtmon/status; }
o0=$(overdue)
phase $T/miss.json 6 python3 -c "$sleeps" 6 0.1
over=$(($(overdue) - o0))
n=$(python3 -c '
import json, sys
print(sum(1 for l in open(sys.argv[1]) if l.strip() and json.loads(l)["miss"]))' $T/miss.json) ||
	fail "unreadable records: $(head -c 600 $T/miss.json)"
echo "# phase 2: $n misses read; woken for misses $dm, batches $db, later $dl; $over chains reported overdue"
[ "$n" -eq 6 ] || fail "read $n misses of 6: $(head -c 600 $T/miss.json)"
[ $dm -eq $((6 + over)) ] || fail "woken for $dm misses of 6 (and $over timeouts)"
[ $db -eq 0 ] || fail "woken for $db batches, 6 records made"
$RTMONCTL stop
echo "reader-batch: ok"

# The reader is woken in batches, misses at once (kmod/rtmon_tracker.c):
# a wakeup per record cost more than tracking the chain (tests/bench/
# icount). Two phases, each with the counts of the status file's reader
# line before and after:
# 1. 96 records that are no miss, on one cpu, 1 ms apart (several under
#    emulation), with tick_ms=1000 so that 32 come before the timer: the
#    reader is woken for batches of 32 (at least 2 of them: the timer, a
#    second after a record, may take some records first), never for a
#    miss, and reads all 96. (With the default 10 ms, an emulated guest
#    makes records too slowly to fill a batch: the timer takes them.)
# 2. 6 misses (a 1 us deadline), 100 ms apart: each wakes the reader at
#    once, ahead of any batch or tick.
# timeout: 120
. "$RTMON_TOP/tests/vm/guest/lib.sh"

# wakes: "MISSES BATCHES LATER" of /proc/rtmon/status's reader line
# (LATER: by the timer tick_ms after a record, or by the tick)
wakes() {
	local line
	line=$(grep '^reader:' /proc/rtmon/status) || fail "no reader line in /proc/rtmon/status"
	set -- $(echo "$line" | tr -cs '0-9' ' ')
	echo "$1 $3 $(($5 + $6))"
}
reader=
trap '[ -z "$reader" ] || kill $reader 2>/dev/null || true; rtmon_cleanup' EXIT
rtmon_load tick_ms=1000
grep -q '^reader: .* batches of 32 records [0-9]*, 1000 ms after' /proc/rtmon/status || fail "wake_batch is not 32 or tick_ms not 1000: $(grep '^reader:' /proc/rtmon/status)"

# phase 1: 96 records, no deadline, all on cpu 0
$RTMONCTL targets add --name batch --comm python3 --timer >/dev/null
$RTMONCTL start
$RTMONCTL records --json -n 96 -t 5 >$T/batch.json &
reader=$!
sleep 0.3
set -- $(wakes)
m0=$1 b0=$2 t0=$3
taskset -c 0 python3 -c '
import time
for _ in range(96):
    time.sleep(0.001)
'
wait $reader || fail "rtmonctl records failed (phase 1)"
reader=
set -- $(wakes)
m1=$1 b1=$2 t1=$3
n=$(grep -c . $T/batch.json || true)
echo "# phase 1: $n records read; woken for misses $((m1 - m0)), batches $((b1 - b0)), later $((t1 - t0))"
[ "$n" -eq 96 ] || fail "read $n records of 96"
[ $((m1 - m0)) -eq 0 ] || fail "woken for $((m1 - m0)) misses, none made"
[ $((b1 - b0)) -ge 2 ] && [ $((b1 - b0)) -le 3 ] || fail "woken for $((b1 - b0)) batches of 32 for 96 records (2 or 3)"
$RTMONCTL stop
$RTMONCTL targets del 0 >/dev/null

# phase 2: 6 misses, 100 ms apart
$RTMONCTL targets add --name miss --comm python3 --timer --deadline 1us >/dev/null
$RTMONCTL start
$RTMONCTL records --json -n 6 -t 5 >$T/miss.json &
reader=$!
sleep 0.3
set -- $(wakes)
m0=$1 b0=$2 t0=$3
python3 -c '
import time
for _ in range(6):
    time.sleep(0.1)
'
wait $reader || fail "rtmonctl records failed (phase 2)"
reader=
set -- $(wakes)
m1=$1 b1=$2 t1=$3
n=$(python3 -c '
import json, sys
print(sum(1 for l in open(sys.argv[1]) if l.strip() and json.loads(l)["miss"]))' $T/miss.json) ||
	fail "unreadable records: $(head -c 600 $T/miss.json)"
echo "# phase 2: $n misses read; woken for misses $((m1 - m0)), batches $((b1 - b0)), later $((t1 - t0))"
[ "$n" -eq 6 ] || fail "read $n misses of 6: $(head -c 600 $T/miss.json)"
[ $((m1 - m0)) -eq 6 ] || fail "woken for $((m1 - m0)) misses of 6"
[ $((b1 - b0)) -eq 0 ] || fail "woken for $((b1 - b0)) batches, 6 records made"
$RTMONCTL stop
echo "reader-batch: ok"

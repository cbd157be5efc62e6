# Timer chains against cyclictest on an ARM board: every wakeup of
# cyclictest's measuring thread yields exactly one record, a timer chain of
# that thread ending at its switch-in, and rtmon's latency of each wakeup
# never exceeds cyclictest's own (cyclictest reads the clock after it runs).
# Under emulation a wakeup can come later than the next period: the next
# sleep's timer then expires before the thread blocks, so it never switches
# in and that loop has no chain. Only loops after such an overrun may lack
# their record (INTERVAL_US 5000 keeps them rare).
# timeout: 180
. "$RTMON_TOP/tests/vm/guest/arm/lib.sh"

loops=${LOOPS:-600}
interval_us=${INTERVAL_US:-5000}
rtmon_load
$RTMONCTL targets add --name cyclictest --comm cyclictest --timer --end switch_in --deadline 10ms
$RTMONCTL targets list
# the reader runs throughout: rings hold 1024 records a cpu
$RTMONCTL records --json -t 5 >"$T/records.json" &
reader=$!
cyclictest -q -m -p 80 -t 1 -i "$interval_us" -l "$loops" -v -N >"$T/ct.out" 2>&1 ||
	fail "cyclictest failed: $(tail -n 3 "$T/ct.out")"
wait $reader || fail "the record reader failed"
sed -n '1,/^counters/p' /proc/rtmon/status

tid=$(sed -n 's/.*T: 0 ( *\([0-9][0-9]*\)).*/\1/p' "$T/ct.out" | head -n1)
[ -n "$tid" ] || fail "no measuring thread id in cyclictest's output: $(tail -n 2 "$T/ct.out")"
# -v: "0: LOOP: LATENCY" a wakeup (ns with -N); the columns may touch
awk '/^ *0: *[0-9]+: *[0-9]+$/ { sub(/^ *0: */, ""); split($0, a, /: */); print a[2] }' \
	"$T/ct.out" >"$T/ct.lat"
n_ct=$(wc -l <"$T/ct.lat")
[ "$n_ct" -eq "$loops" ] || fail "cyclictest printed $n_ct latencies, expected $loops"

# per record: pid kind source last-hop timeout? start latency
json_field pid <"$T/records.json" >"$T/pid"
json_field kind <"$T/records.json" >"$T/kind"
json_field source <"$T/records.json" >"$T/source"
json_field start_ns <"$T/records.json" >"$T/start"
json_field latency_ns <"$T/records.json" >"$T/lat"
last_hop_event <"$T/records.json" >"$T/last"
paste -d' ' "$T/pid" "$T/kind" "$T/source" "$T/last" "$T/start" "$T/lat" >"$T/recs"
total=$(wc -l <"$T/recs")
mine=$(awk -v t="$tid" '$1 == t' "$T/recs" | wc -l)
note "measuring thread $tid: $mine records for $loops loops; $((total - mine)) records for other cyclictest threads"
overruns=$(awk -v i="$interval_us" '{ if (prev > i * 1000) n++; prev = $1 } END { print n + 0 }' "$T/ct.lat")
[ "$overruns" -eq 0 ] || note "$overruns loops came after a wakeup later than the period"
[ "$mine" -le "$loops" ] || fail "$mine records for $loops cyclictest wakeups"
[ "$mine" -ge $((loops - overruns)) ] ||
	fail "$mine records for $loops cyclictest wakeups ($overruns after an overrun)"
# at its switch-in, or at the wakeup itself when that finds cyclictest
# still running (an expiry already past when it went to sleep)
bad=$(awk -v t="$tid" '$1 == t && ($2 != "timer" || $3 != t || ($4 != "switch_in" && $4 != "waking"))' \
	"$T/recs" | head -n 3)
[ -z "$bad" ] || fail "records of $tid that are not timer chains ending at its switch-in (or wakeup): $bad"
dups=$(json_field seq <"$T/records.json" | sort | uniq -d | head -n 3)
[ -z "$dups" ] || fail "duplicate record sequence numbers: $dups"
# wakeup by wakeup, in time order: rtmon <= cyclictest (when every loop
# has its record; else the maxima)
awk -v t="$tid" '$1 == t { print $5, $6 }' "$T/recs" | sort -n | awk '{ print $2 }' >"$T/rt.lat"
if [ "$mine" -ne "$loops" ]; then
	ctmax=$(sort -n "$T/ct.lat" | tail -n1) rtmax=$(sort -n "$T/rt.lat" | tail -n1)
	note "latency ns: cyclictest max $ctmax, rtmon max $rtmax"
	[ "$rtmax" -le "$ctmax" ] || fail "rtmon's maximum $rtmax ns above cyclictest's $ctmax ns"
else paste -d' ' "$T/ct.lat" "$T/rt.lat" | awk '
	{ n++; if ($2 > $1) { bad++; if (bad <= 3) ex = ex sprintf(" #%d rtmon %d > cyclictest %d;", n, $2, $1) }
	  if ($1 > ctmax) ctmax = $1; if ($2 > rtmax) rtmax = $2 }
	END { printf "latency ns: cyclictest max %d, rtmon max %d\n", ctmax, rtmax
	      if (bad) { printf "%d wakeups where rtmon > cyclictest:%s\n", bad, ex; exit 1 } }' ||
	fail "rtmon measured more than cyclictest"
fi
drops=$(awk '/^  drops/ { s = 0; for (i = 3; i <= NF; i += 2) s += $i; print s }' /proc/rtmon/status)
[ "$drops" = 0 ] || fail "drops during a plain cyclictest run: $(grep '^  drops' /proc/rtmon/status)"
rtmon_unload
echo "chain-cyclictest: ok"

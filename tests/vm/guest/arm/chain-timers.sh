# Timer chains of each kind on an ARM board (issue 14; the x86 test is
# tests/vm/guest/chain-timers.sh): tests/apps/timer_loop runs a SCHED_FIFO
# 80 loop on a clock_nanosleep (sleeper), timerfd or POSIX timer
# (SIGEV_THREAD_ID) and prints each wakeup's latency and expiry. With a
# target of that kind, every wakeup has exactly one record of that kind
# starting at its expiry (loops right after a wakeup later than the period
# may lack theirs), and rtmon's latency never exceeds the program's.
# timeout: 180
. "$RTMON_TOP/tests/vm/guest/arm/lib.sh"

loops=${LOOPS:-150}
interval_us=${INTERVAL_US:-5000}
[ -x "$RTMON_BIN/timer_loop" ] || fail "timer_loop not built ($RTMON_BIN: cross/build-user)"
rtmon_load
for k in sleeper:sleeper timerfd:timerfd posix-thread:posix; do
	kind=${k%%:*} tk=${k#*:}
	id=$($RTMONCTL targets add --name "loop-$kind" --comm timer_loop --timer="$tk" \
		--end switch_in --deadline 10ms | sed -n 's/^target \([0-9]*\) added$/\1/p')
	[ -n "$id" ] || fail "adding the $tk target failed"
	$RTMONCTL records --json -t 3 >"$T/$kind.json" &
	reader=$!
	"$RTMON_BIN/timer_loop" -k "$kind" -p 80 -i "$interval_us" -l "$loops" >"$T/$kind.out" 2>&1 ||
		fail "timer_loop -k $kind failed: $(tail -n 3 "$T/$kind.out")"
	wait $reader || fail "the record reader failed"
	$RTMONCTL targets del "$id"

	tid=$(sed -n 's/^T: 0 ( *\([0-9][0-9]*\)).*/\1/p' "$T/$kind.out")
	[ -n "$tid" ] || fail "$kind: no thread id in timer_loop's output"
	# per wakeup: LOOP LATENCY EXPIRY OVERRUN(0/1)
	awk '/^0: [0-9]+: [0-9]+ [0-9]+/ { sub(/:$/, "", $2); print $2, $3, $4, ($5 == "overrun") }' \
		"$T/$kind.out" >"$T/$kind.wk"
	n=$(wc -l <"$T/$kind.wk")
	[ "$n" -eq "$loops" ] || fail "$kind: timer_loop printed $n wakeups, expected $loops"
	# per record of the loop's thread: START LATENCY TIMER-KIND SOURCE LAST-HOP
	json_field pid <"$T/$kind.json" >"$T/pid"
	json_field start_ns <"$T/$kind.json" >"$T/start"
	json_field latency_ns <"$T/$kind.json" >"$T/lat"
	json_field source <"$T/$kind.json" >"$T/src"
	awk '{ v = ""; if (match($0, /"timer":"[a-z]+"/)) { v = substr($0, RSTART + 9, RLENGTH - 10) } print v }' \
		"$T/$kind.json" >"$T/tk"
	last_hop_event <"$T/$kind.json" >"$T/last"
	paste -d' ' "$T/pid" "$T/start" "$T/lat" "$T/tk" "$T/src" "$T/last" |
		awk -v t="$tid" '$1 == t { print $2, $3, $4, $5, $6 }' >"$T/$kind.rec"
	bad=$(awk -v t="$tid" -v k="$tk" '$3 != k || $4 != t || ($5 != "switch_in" && $5 != "waking")' \
		"$T/$kind.rec" | head -n 3)
	[ -z "$bad" ] || fail "$kind: records that are not $tk chains of $tid ending at its switch-in: $bad"
	# join by expiry: every wakeup not right after an overrun has its record
	awk -v i="$interval_us" -v kind="$kind" '
		NR == FNR { rec[$1] = $2; nrec++; next }
		{ k = $1; lat = $2; ex_ns = $3
		  if (lat >= i * 500 || $4) { near[k] = 1; near[k + 1] = 1; near[k + 2] = 1 }
		  if (ex_ns in rec) { joined++; r = rec[ex_ns]; delete rec[ex_ns]
			if (r > lat) { over++; if (over <= 3) ex = ex sprintf(" loop %d rtmon %d > %d;", k, r, lat) }
			if (lat > pmax) pmax = lat; if (r > rmax) rmax = r }
		  else if (!(k in near)) { miss++; if (miss <= 5) mex = mex " " k } }
		END { strays = 0; for (s in rec) strays++
		      printf "%s: %d of %d wakeups joined, %d records left over; max ns: timer_loop %d rtmon %d\n",
			     kind, joined, FNR, strays, pmax, rmax
		      if (miss) { printf "%s: wakeups without a record:%s\n", kind, mex; exit 1 }
		      if (over) { printf "%s: %d wakeups where rtmon > timer_loop:%s\n", kind, over, ex; exit 1 }
		      if (joined < FNR / 2) { print kind ": too few wakeups joined"; exit 1 } }' \
		"$T/$kind.rec" "$T/$kind.wk" || fail "$kind: rtmon's timer chains and timer_loop disagree"
done
rtmon_unload
echo "chain-timers: ok"

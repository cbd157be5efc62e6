# The housekeeping tick must not add the latency rtmon measures (issue 22,
# item 7). It scans every chain and table bucket: at the largest pool sizes
# the module accepts that is milliseconds of work, which used to run with
# preemption off in a timer callback every tick_ms. Now it runs in a
# kworker, in batches with preemption off and a preemption point between.
#
# At the default and at the largest sizes: cyclictest (FIFO 80, a thread
# per cpu, 1 ms) while tracking; the status file's tick line is printed
# (ticks done, last and worst tick, worst batch, yields). At the largest
# sizes a tick spans many cyclictest periods, so cyclictest must have been
# waiting at the end of some batches and run then, mid-tick ("yields"):
# behaviour, not timing, which the emulated guest's host inflates.
# timeout: 300
. "$RTMON_TOP/tests/vm/guest/lib.sh"

# field NAME LINE: the number after NAME
field() { echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

# run LABEL PARAMS...: load with PARAMS, 4 s of cyclictest, check the tick
run() {
	local label=$1 line count last worst batch yields ctmax
	shift
	rtmon_load "$@"
	$RTMONCTL targets add --name ct --comm cyclictest --timer >/dev/null
	$RTMONCTL start
	cyclictest -q -m -a -p 80 -t 2 -i 1000 -D 4 >$T/ct-$label.txt 2>&1 ||
		fail "cyclictest failed: $(tail -n 2 $T/ct-$label.txt)"
	$RTMONCTL stop
	line=$(grep '^tick:' /proc/rtmon/status) || fail "no tick line in /proc/rtmon/status"
	grep '^pools:' /proc/rtmon/status | sed "s/^/# $label: /"
	echo "# $label: $line"
	count=$(echo "$line" | awk '{ print $5 }')
	last=$(field last_ns "$line")
	worst=$(field worst_ns "$line")
	batch=$(field worst_batch_ns "$line")
	yields=$(field yields "$line")
	ctmax=$(awk '/Max:/ { v = $NF + 0; if (v > m) m = v } END { print m + 0 }' $T/ct-$label.txt)
	echo "# $label: last tick $((last / 1000)) us, worst $((worst / 1000)) us, worst batch $((batch / 1000)) us, $yields yields; cyclictest max ${ctmax} us"
	[ "$count" -ge 40 ] || fail "$label: only $count ticks in 4 s (tick_ms 10)"
	[ "$batch" -le "$worst" ] || fail "$label: worst batch $batch ns > worst tick $worst ns"
	rtmon_unload
	if [ "$label" = largest ]; then
		[ "$yields" -gt 0 ] ||
			fail "largest: cyclictest never got the cpu in the middle of a tick ($count ticks of about $((last / 1000)) us)"
	fi
}

run default
run largest nchains=65536 nbranches=262144 task_buckets=65536 cookie_buckets=65536
echo "tick-cost: ok"

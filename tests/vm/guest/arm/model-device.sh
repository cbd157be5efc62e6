# Chains through an IRQ thread that blocks before it wakes its reader, on an
# ARM board: the test device rtmon-model.ko (tests/gpio/model, cross-built
# by scripts/build-gpio-sim) and model_reader (tests/apps), as on the x86
# boards (tests/vm/guest/model-device.sh, whose header says what each mode
# does and why a record may end at a wakeup): direct, bus (the IRQ thread
# sleeps in D until the bus interrupt completes a 200 us transfer), lock
# (spinlock_t held by a helper: an rtlock wait on PREEMPT_RT), mutex, work
# (deferred to a workqueue) and workbusy (queued behind a busy kworker).
# Target: the device's IRQ to model_reader's switch-in. Checks, per mode:
# every record of the device's IRQ and ends at model_reader; a thread's wait
# hop is followed by its switch-in; every interrupt whose wakeup woke the
# waiting reader (the device's reader_woken) has its record; bus: every record
# but the device's xfer_nosleep ones has the wait, and lasts at least the
# transfer; lock on PREEMPT_RT: some record waited; workbusy: every record
# through a kworker, some queued behind the busy one. The x86 boards replay
# trace-cmd recordings of these runs too (no trace-cmd in the ARM image).
# timeout: 300
. "$RTMON_TOP/tests/vm/guest/arm/lib.sh"
. "$RTMON_TOP/tests/vm/guest/model-lib.sh"

MODEL_MODES=${MODEL_MODES:-direct bus lock mutex work workbusy}
model_setup "$RTMON_BIN/model_reader"
model_runs

# model_stats MODE IRQ: from the records (JSON lines) of MODE, one line:
# records running waits merged bad lat_min lat_med lat_max gap_med queue_work queued kworker
# (bad: records of another source, ending elsewhere, or with a wait not
# followed by its thread's switch-in; the first one's reason on stderr)
model_stats() {
	awk -v irq="$2" '
	function field(s, k,   i, v) {
		i = index(s, "\"" k "\":"); if (!i) return ""
		v = substr(s, i + length(k) + 3); sub(/[,}].*/, "", v); gsub(/"/, "", v); return v
	}
	index($0, "\"target_name\":\"model\"") {
		h = index($0, "\"hops\":[")
		top = substr($0, 1, h - 1)
		fl = substr(top, index(top, "\"flags\":["))
		fl = substr(fl, 1, index(fl, "]"))
		if (index(fl, "\"timeout\"")) next
		nrec++
		merged += index(fl, "\"merged\"") > 0
		lat[nrec] = field(top, "latency_ns") + 0
		body = substr($0, h + 8)
		body = substr(body, 1, index(body, "}]"))
		nh = split(body, hop, /\},\{/)
		why = ""
		if (field(top, "kind") != "irq" || field(top, "source") != irq)
			why = "a record of another source: " field(top, "source")
		last = field(hop[nh], "event")
		if (!why && (last != "switch_in" && last != "waking" || field(hop[nh], "comm") != "model_reader"))
			why = "a record ending at " last " of " field(hop[nh], "comm")
		running += last == "waking"
		w = qw = qd = kw = 0
		for (i = 1; i <= nh; i++) {
			ev = field(hop[i], "event")
			if (ev == "wait") {
				w = 1
				if (i == nh || field(hop[i + 1], "event") != "switch_in" ||
				    field(hop[i + 1], "pid") != field(hop[i], "pid"))
					why = why ? why : "a wait not followed by its thread switch-in"
				else
					gap[++ngap] = field(hop[i + 1], "ts_ns") - field(hop[i], "ts_ns")
			}
			if (ev == "queue_work") qw = 1
			if (ev == "queued") qd = 1
			if ((ev == "waking" || ev == "switch_in") && index(field(hop[i], "comm"), "kworker/") == 1) kw = 1
		}
		waits += w; queue_work += qw; queued += qd; kworker += (qw || kw)
		if (why) { bad++; if (!said++) print why > "/dev/stderr" }
	}
	function sort(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j > 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	}
	END {
		sort(lat, nrec); sort(gap, ngap)
		printf "%d %d %d %d %d %d %d %d %d %d %d %d\n", nrec, running + 0, waits + 0, merged + 0, bad + 0,
			nrec ? lat[1] : 0, nrec ? lat[int(nrec / 2) + 1] : 0, nrec ? lat[nrec] : 0,
			ngap ? gap[int(ngap / 2) + 1] : -1, queue_work + 0, queued + 0, kworker + 0
	}' "$1"
}

printf '%-8s %7s %6s %7s %9s %6s %14s %20s\n' mode records woken running "with wait" merged "wait->run us" "latency us med/max"
failures=
for mode in $modes; do
	read -r nrec running waits merged bad lmin lmed lmax gmed qw qd kw < <(model_stats "$T/$mode.jsonl" "$irq") ||
		fail "$mode: no figures from its records ($T/$mode.jsonl)"
	woken=$(cat "$T/$mode.woken")
	nosleep=$(cat "$T/$mode.nosleep")
	printf '%-8s %7d %6d %7d %9d %6d %14s %9d / %d\n' "$mode" "$nrec" "$woken" "$running" "$waits" "$merged" \
		"$([ "$gmed" -ge 0 ] && echo $((gmed / 1000)) || echo -)" $((lmed / 1000)) $((lmax / 1000))
	[ "$bad" = 0 ] || failures="$failures; $mode: $bad records of another source, end or wait (above)"
	# (more records than woken readers: a lock's wakeup of the reader carried the chain)
	lost=$((woken - nrec - merged))
	[ $lost -gt 0 ] || lost=0
	# (most events find the reader waiting; workbusy's queued items run back
	# to back and one wakeup often serves several: 141 of 300 on arm64 6.1)
	least=$((n / 2))
	[ "$mode" != workbusy ] || least=$((n / 4))
	if [ "$nrec" -gt "$n" ] || [ $lost -gt 0 ] || [ "$woken" -lt $least ]; then
		failures="$failures; $mode: $nrec records for $n interrupts, $woken that woke the reader (at least $least): $lost lost"
	fi
	case $mode in
	bus)
		[ "$nosleep" = 0 ] || echo "bus: $nosleep transfers done before the thread waited"
		[ "$waits" -ge $((nrec - nosleep)) ] ||
			failures="$failures; bus: $((nrec - waits)) records without the thread's wait, $nosleep transfers done before it waited"
		[ "$lmin" -ge $((xfer_us * 1000)) ] ||
			failures="$failures; bus: a latency of $lmin ns, shorter than the $xfer_us us transfer"
		;;
	lock)
		[ $rt = 0 ] || [ "$waits" -gt 0 ] || failures="$failures; lock (PREEMPT_RT): no record waited for the lock"
		;;
	workbusy)
		echo "workbusy: $qw of $nrec records through the queued item ($qd queued behind the busy kworker), $((kw - qw)) through a kworker woken for it"
		[ "$kw" -ge "$nrec" ] && [ "$qd" -gt 0 ] ||
			failures="$failures; workbusy: $((nrec - kw)) records through no kworker, $qd queued"
		;;
	esac
done
[ -z "$failures" ] || fail "model-device: the records disagree with the device${failures}"
[ "$(cat $P/xfer_lost)" = 0 ] || fail "the device lost $(cat $P/xfer_lost) bus transfers' interrupts"
echo "model-device: ok"

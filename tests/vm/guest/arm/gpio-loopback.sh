# GPIO loopback on the board's simulated chip (tests/gpio/sim, cross-built
# by scripts/build-gpio-sim; wired line 0 -> 1, 2 -> 3), as on the x86
# boards (tests/vm/guest/gpio-loopback.sh): rtmon-gpio-loop toggles the
# stimulus line 1,000 times every 5 ms; rtmon-gpio-respond (SCHED_FIFO, cpu
# 1) answers each edge between rtmon_work_begin/end(edge number) and
# toggles the response line; the driver joins its measurements with
# rtmon's records by cookie. The responder runs below its IRQ thread
# (priority 40) and above it (80: the thread's next edge finds it still
# runnable). The driver fails (exit status) on an edge lost, missing,
# duplicate or extra, without cookie, timestamped outside rtmon's hard IRQ,
# ended outside the marker window or the stimulus..response window, and on
# the agreement bound (gpio-lib.sh); here also: every edge sent, answered
# and joined. Then 200 edges at a random period joined against
# 'rtmonctl records --json' (--records). No python in the ARM image: the
# driver's JSON is read with json_get.
# timeout: 300
. "$RTMON_TOP/tests/vm/guest/arm/lib.sh"
. "$RTMON_TOP/tests/vm/guest/gpio-lib.sh"

edges=${EDGES:-1000}
period_us=${PERIOD_US:-5000}
deadline_us=5000

rtmon_load
gpio_sim_up

# expect FILE PATH VALUE: the driver's JSON FILE has VALUE at PATH
expect() {
	local v
	v=$(json_get "$1" "$2")
	[ "$v" = "$3" ] || fail "$(basename "$1" .json): $2 is '$v', expected $3"
}

# summary FILE: one line of the driver's figures
summary() {
	local f=$1 k line=
	for k in edges.sent edges.lost join.joined join.missing join.duplicate join.extra \
		join.edge_minus_start_ns.min join.edge_minus_start_ns.max join.start_outside_bound \
		stats.p50_ns stats.p99_ns stats.max_ns join.rtmon_latency.p50_ns join.rtmon_latency.max_ns; do
		line="$line ${k#*.}=$(json_get "$f" "$k")"
	done
	echo "$(basename "$f" .json):$line"
}

# fixed_run NAME PRIO: the responder at SCHED_FIFO PRIO (its IRQ thread: 50)
fixed_run() {
	local name=$1 prio=$2 rc=0
	respond_start "$name" --count "$edges" --work-us 50 --prio "$prio" --cpu 1
	"$LOOP" --board "$BOARD_FILE" --count "$edges" --period-us "$period_us" \
		--deadline-us $deadline_us --prio 70 --cpu 0 "${BOUND[@]}" \
		--ready "$W/$name.ready" --log "$W/$name.jsonl" --rtmon \
		--json --edges >"$W/$name.json" 2>"$W/$name.loop.err" || rc=$?
	respond_wait
	summary "$W/$name.json"
	echo "$name: module counters:$(grep -E '^  (irq threads|work|drops|chains|branches)' /proc/rtmon/status | tr -s ' \n' ' ')"
	[ $rc -eq 0 ] || fail "rtmon-gpio-loop ($name, responder priority $prio) exit $rc: $(head -c 300 "$W/$name.loop.err" | tr '\n' ' ')"
	expect "$W/$name.json" edges.sent "$edges"
	expect "$W/$name.json" edges.lost 0
	expect "$W/$name.json" join.responder_edges "$edges"
	expect "$W/$name.json" join.joined "$edges"
	expect "$W/$name.json" join.missing 0
	expect "$W/$name.json" join.ok true
}
fixed_run fixed "${RESP_PRIO:-40}"
fixed_run fixed80 80

# ---- random period, joined against rtmonctl's records file ----
records_run
summary "$W/random.json"
expect "$W/random.json" join.joined 200
expect "$W/random.json" join.ok true
echo "gpio-loopback: ok"

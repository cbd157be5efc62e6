# shellcheck shell=bash
# Helpers of the GPIO loopback guest tests (gpio-loopback, gpio-miss,
# gpio-bad-options, and arm/gpio-*; sourced after lib.sh or arm/lib.sh): the
# simulated chip (tests/gpio/sim), the tools built on the host (make -C
# tests/gpio; a cross board's: RTMON_GPIO_BIN, from cross/build-user), the
# responder started in the background and stopped on exit.
GPIO_BIN=${RTMON_GPIO_BIN:-$RTMON_TOP/build/gpio}
RESPOND=$GPIO_BIN/rtmon-gpio-respond
LOOP=$GPIO_BIN/rtmon-gpio-loop
{ [ -x "$RESPOND" ] && [ -x "$LOOP" ]; } || fail "GPIO tools not built ($GPIO_BIN: make -C tests/gpio, or cross/build-user BOARD)"
BOARD_FILE=$RTMON_TOP/boards/$RTMON_BOARD.board
# The agreement bound under emulation (tests/gpio/README.md): QEMU's
# single-threaded TCG runs one vCPU at a time, so a vCPU can stand still
# for milliseconds between rtmon's IRQ entry and gpiolib's timestamp; 99%
# of the edges within 2 ms (typical: under 10 us). Every edge's timestamp
# must still lie inside rtmon's hard IRQ (checked by the driver).
# shellcheck disable=SC2034 # used by the sourcing tests
BOUND=(--bound-us 2000 --bound-pct 99)
# the guest's own files go to /tmp (tmpfs): writing to the 9p share raises
# the share's virtio interrupt, which would start chains of its own
W=/tmp/gpio
mkdir -p "$W"

gpio_pids=()
gpio_cleanup() {
	local p
	for p in "${gpio_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${gpio_pids[@]}"; do wait "$p" 2>/dev/null || true; done
	if [ -n "${GPIO_SIM_UP:-}" ]; then
		bash "$RTMON_TOP/tests/gpio/sim/sim-setup.sh" --teardown >/dev/null 2>&1 || true
	fi
	cp -r "$W"/. "$T"/ 2>/dev/null || true
	rtmon_cleanup
}
trap gpio_cleanup EXIT

# gpio_sim_up: the simulated chip (label rtmon-loop, lines 0 -> 1, 2 -> 3)
gpio_sim_up() {
	local chip
	chip=$(bash "$RTMON_TOP/tests/gpio/sim/sim-setup.sh") || fail "sim-setup.sh failed"
	GPIO_SIM_UP=1
	note "simulated GPIO chip: $chip"
}

# respond_start NAME ARGS...: the responder in the background, waiting for
# its ready file ($W/NAME.ready); its log is $W/NAME.jsonl
respond_start() {
	local name=$1
	shift
	rm -f "$W/$name.ready" "$W/$name.jsonl"
	"$RESPOND" --board "$BOARD_FILE" --ready-file "$W/$name.ready" \
		--log "$W/$name.jsonl" "$@" 2>"$W/$name.err" &
	RESP_PID=$!
	gpio_pids+=("$RESP_PID")
	local _
	for _ in $(seq 100); do
		[ -f "$W/$name.ready" ] && return 0
		kill -0 "$RESP_PID" 2>/dev/null || fail "responder exited: $(cat "$W/$name.err")"
		sleep 0.1
	done
	fail "responder not ready after 10 s: $(cat "$W/$name.err")"
}

# respond_wait: the responder's exit (it stops after --count edges)
respond_wait() {
	wait "$RESP_PID" || fail "responder failed: $(cat "$W"/*.err)"
}

# miss_run NAME RESPONDER_ARGS -- DRIVER_ARGS: one loopback run of the miss
# tests joined through /dev/rtmon against a deadline of $deadline_us; the
# driver's exit status in $rc, its JSON in $W/NAME.json
miss_run() {
	local name=$1 rargs=()
	shift
	while [ "$1" != -- ]; do rargs+=("$1"); shift; done
	shift
	respond_start "$name" --work-us 50 --prio "${RESP_PRIO:-40}" --cpu 1 "${rargs[@]}"
	rc=0
	"$LOOP" --board "$BOARD_FILE" --deadline-us "$deadline_us" --prio 70 --cpu 0 "${BOUND[@]}" \
		--ready "$W/$name.ready" --log "$W/$name.jsonl" --rtmon --json --edges \
		"$@" >"$W/$name.json" 2>"$W/$name.loop.err" || rc=$?
	respond_wait
	note "$name: rtmon-gpio-loop exit status $rc; module:$(grep -E '^  (irq threads|work)' /proc/rtmon/status | tr -s ' \n' ' ')"
}

# records_run: 200 edges at a random period (seed 7) joined against the
# records file of 'rtmonctl records --json' (--records, as with rtmond),
# target gpio with a deadline of $deadline_us; the driver's JSON in
# $W/random.json
records_run() {
	local reader rc=0
	respond_start random --count 200 --work-us 50 --prio "${RESP_PRIO:-40}" --cpu 1
	# (the IRQ by its name exists once the responder has requested its line)
	$RTMONCTL targets add --name gpio --comm rtmon-gpio-resp --irq rtmon-respond \
		--end work_end --deadline "${deadline_us}us" >/dev/null
	# the reader stops 3 s after the last record (its output is written then)
	$RTMONCTL records --json -t 3 >"$W/records.jsonl" &
	reader=$!
	gpio_pids+=("$reader")
	"$LOOP" --board "$BOARD_FILE" --count 200 --random 1000:6000 --seed 7 \
		--deadline-us "$deadline_us" --prio 70 --cpu 0 "${BOUND[@]}" \
		--ready "$W/random.ready" --log "$W/random.jsonl" \
		--records "$W/records.jsonl" --wait 20 --json >"$W/random.json" 2>"$W/random.loop.err" || rc=$?
	respond_wait
	wait "$reader" || fail "rtmonctl records failed"
	[ $rc -eq 0 ] || fail "rtmon-gpio-loop --records exit $rc: $(cat "$W/random.loop.err")"
}

# load_run: the miss tests' run "load", 300 edges with hackbench (rt-tests)
# in the background; exit 0, or 1 for misses under the load (the join is
# the caller's to check)
load_run() {
	local hb
	command -v hackbench >/dev/null || fail "hackbench (rt-tests) not installed"
	hackbench -g 2 -l 1000000 >/dev/null 2>&1 &
	hb=$!
	gpio_pids+=("$hb")
	sleep 1
	miss_run load --count 300 -- --count 300 --period-us 10000 --timeout-us 2000000
	kill "$hb" 2>/dev/null || true
	wait "$hb" 2>/dev/null || true
	[ $rc -le 1 ] || fail "load: exit $rc: $(cat "$W/load.loop.err")"
}

# shellcheck shell=bash
# Helpers of the GPIO loopback guest tests (gpio-loopback, gpio-miss,
# gpio-bad-options; sourced after lib.sh): the simulated chip
# (tests/gpio/sim), the tools built on the host (make -C tests/gpio), the
# responder started in the background and stopped on exit.
GPIO_BIN=$RTMON_TOP/build/gpio
RESPOND=$GPIO_BIN/rtmon-gpio-respond
LOOP=$GPIO_BIN/rtmon-gpio-loop
{ [ -x "$RESPOND" ] && [ -x "$LOOP" ]; } || fail "GPIO tools not built ($GPIO_BIN: make -C tests/gpio)"
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
		"$RTMON_TOP/tests/gpio/sim/sim-setup.sh" --teardown >/dev/null 2>&1 || true
	fi
	cp -r "$W"/. "$T"/ 2>/dev/null || true
	rtmon_cleanup
}
trap gpio_cleanup EXIT

# gpio_sim_up: the simulated chip (label rtmon-loop, lines 0 -> 1, 2 -> 3)
gpio_sim_up() {
	local chip
	chip=$("$RTMON_TOP/tests/gpio/sim/sim-setup.sh") || fail "sim-setup.sh failed"
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

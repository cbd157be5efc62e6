# shellcheck shell=bash
# The runs of the model device's guest tests (model-device.sh on the x86
# boards, arm/model-device.sh on the ARM ones; sourced after lib.sh or
# arm/lib.sh): rtmon-model.ko (tests/gpio/model) on irq-sim, the target of
# its IRQ to model_reader's switch-in, and MODEL_EVENTS interrupts (300) in
# each of MODEL_MODES, one at a time by model_reader. Per mode in $T:
# MODE.jsonl (rtmonctl records), MODE.out, MODE.woken and MODE.nosleep (the
# device's reader_woken and xfer_nosleep over the run). A test may define
# model_before MODE / model_after MODE (run before the record reader starts
# / after the interrupts), as model-device.sh records with trace-cmd.
# Sets irq, xfer_us, rt (1 on PREEMPT_RT), n, modes and P (the device's
# parameters).

# model_setup READER: load irq-sim (unloaded again at the end when loaded
# here: gpio-sim's sim-setup.sh, in a test after this one, loads it
# itself), the device and rtmon; add the target
model_setup() {
	READER=$1
	dir=${RTMON_GPIO_SIM_DIR:-$RTMON_TOP/build/gpio-sim/${RTMON_BOARD:?}}
	[ -x "$READER" ] || fail "model_reader not built ($READER: make -C tests/apps, or cross/build-user)"
	[ -f "$dir/rtmon-model.ko" ] || fail "no $dir/rtmon-model.ko (scripts/build-gpio-sim $RTMON_BOARD)"
	rmmod rtmon_model 2>/dev/null || true
	sim_loaded=
	if ! grep -q '^irq_sim ' /proc/modules; then
		insmod "$dir/irq-sim.ko" || fail "insmod irq-sim.ko failed"
		sim_loaded=1
	fi
	reader='' firer=''
	trap model_cleanup EXIT
	insmod "$dir/rtmon-model.ko" || fail "insmod rtmon-model.ko failed: $(dmesg | tail -n 2)"
	P=/sys/module/rtmon_model/parameters
	irq=$(cat $P/irq_dev)
	xfer_us=$(cat $P/xfer_us)
	rt=0
	grep -q 'PREEMPT_RT' /proc/version && rt=1
	note "device irq $irq, bus irq $(cat $P/irq_bus); PREEMPT_RT $rt"
	rtmon_load
	$RTMONCTL targets add --name model --irq "$irq" --comm model_reader --end switch_in --deadline 50ms >/dev/null
	n=${MODEL_EVENTS:-300}
	modes=${MODEL_MODES:-direct bus lock mutex work}
}

model_cleanup() {
	# shellcheck disable=SC2086 # (the pids, when set)
	[ -z "$reader$firer" ] || kill $reader $firer 2>/dev/null || true
	wait || true
	rmmod rtmon_model 2>/dev/null || true
	[ -z "$sim_loaded" ] || rmmod irq_sim 2>/dev/null || true
	rtmon_cleanup
}

# model_runs: each mode's interrupts, with the records of each
model_runs() {
	local mode w0 s0
	for mode in $modes; do
		# (before the record reader: it stops after 2 s without a record)
		if declare -F model_before >/dev/null; then model_before "$mode"; fi
		$RTMONCTL records --json -t 2 >"$T/$mode.jsonl" &
		reader=$!
		sleep 0.3
		w0=$(cat $P/reader_woken)
		s0=$(cat $P/xfer_nosleep)
		timeout 120 "$READER" "$mode" "$n" >"$T/$mode.out" 2>&1 &
		firer=$!
		wait $firer || fail "model_reader $mode (exit $?): $(cat "$T/$mode.out")"
		firer=
		if declare -F model_after >/dev/null; then model_after "$mode"; fi
		wait $reader || fail "rtmonctl records failed"
		reader=
		cat "$T/$mode.out"
		echo $(($(cat $P/reader_woken) - w0)) >"$T/$mode.woken"
		echo $(($(cat $P/xfer_nosleep) - s0)) >"$T/$mode.nosleep"
	done
	grep -E '^  (irq threads|work untraced|drops)' /proc/rtmon/status || true
}

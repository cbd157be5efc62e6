# Bad options of the GPIO loopback tools give a clear message and the
# documented exit status (2: usage, 1: runtime): unknown chip, line out of
# range, unknown line name, bad numbers, line in use (naming the consumer
# that holds it), --rtmon without the module and with another record
# reader. Lines by name (stim-out, resp-in ...) work.
# timeout: 180
. "$RTMON_TOP/tests/vm/guest/lib.sh"
. "$RTMON_TOP/tests/vm/guest/gpio-lib.sh"

gpio_sim_up
chip=rtmon-loop

# expect STATUS PATTERN CMD...: CMD exits STATUS and says PATTERN (stderr)
expect() {
	local want=$1 pat=$2 rc=0
	shift 2
	"$@" >"$W/out" 2>"$W/err" </dev/null || rc=$?
	[ "$rc" -eq "$want" ] || fail "$*: exit $rc, expected $want: $(cat "$W/err")"
	grep -q -- "$pat" "$W/err" || fail "$*: no '$pat' in: $(cat "$W/err")"
	echo "ok ($rc): ${*##*/}: $(head -n1 "$W/err")"
}

L=("$LOOP" --prio 0 --count 3 --period-us 1000)
R=("$RESPOND" --prio 0 --count 1)
expect 2 "no GPIO chip 'nosuch'" "${L[@]}" --chip nosuch --out 0 --in 3
expect 2 "no GPIO chip 'nosuch'" "${R[@]}" --chip nosuch --in 1 --out 2
expect 2 "line 1000 out of range" "${L[@]}" --chip $chip --out 1000 --in 3
expect 2 "line 4096 out of range" "${R[@]}" --chip $chip --in 4096 --out 2
expect 2 "no line named 'no-such-line'" "${L[@]}" --chip $chip --out no-such-line --in 3
expect 2 "same line" "${L[@]}" --chip $chip --out 3 --in 3
expect 2 "'10x' is not a number" "${L[@]}" --chip $chip --out 0 --in 3 --count 10x
expect 2 "'-5' is not a number" "${L[@]}" --chip $chip --out 0 --in 3 --period-us -5
expect 2 "--period-us: 0 out of range" "${L[@]}" --chip $chip --out 0 --in 3 --period-us 0
expect 2 "MIN 5 > MAX 2" "${L[@]}" --chip $chip --out 0 --in 3 --random 5:2
expect 2 "expected MIN:MAX" "${L[@]}" --chip $chip --out 0 --in 3 --random 5
expect 2 "--prio: 100 out of range" "${R[@]}" --chip $chip --in 1 --out 2 --prio 100
expect 2 "--work-us: '' is not a number" "${R[@]}" --chip $chip --in 1 --out 2 --work-us ''
expect 2 "unrecognized option" "${L[@]}" --chip $chip --out 0 --in 3 --bogus
expect 2 "needs the responder's --log" "${L[@]}" --chip $chip --out 0 --in 3 --rtmon
# (every emulated board is wired to the simulated chip: a copy without it)
grep -v '^BOARD_GPIO_' "$BOARD_FILE" >"$W/nowire.board"
expect 2 "no GPIO loopback wiring" "${L[@]}" --board "$W/nowire.board"

# lines in use: a responder holds stim-in (1) and resp-out (2)
respond_start busy --chip $chip --in stim-in --out resp-out --count 10 --prio 0
expect 1 'line 2 of .* (rtmon-loop) is in use by "rtmon-respond"' "${L[@]}" --chip $chip --out 2 --in 3
expect 1 'line 1 of .* (rtmon-loop) is in use by "rtmon-respond"' "${R[@]}" --chip $chip --in 1 --out 0 --consumer other
# lines by name: 10 edges answered by that responder
rc=0
"$LOOP" --prio 0 --chip $chip --out stim-out --in resp-in --count 10 --period-us 2000 \
	>"$W/names.txt" 2>"$W/names.err" || rc=$?
respond_wait
[ $rc -eq 0 ] || fail "lines by name: exit $rc: $(cat "$W/names.err" "$W/names.txt")"
grep -q "10 sent, 10 answered, 0 lost" "$W/names.txt" || fail "lines by name: $(cat "$W/names.txt")"
echo "ok: lines by name, 10 edges answered"

# --rtmon: the module not loaded, then another record reader
respond_start nomod --count 3 --prio 0
expect 1 "is rtmon.ko loaded" "${L[@]}" --board "$BOARD_FILE" --rtmon --log "$W/nomod.jsonl" \
	--ready "$W/nomod.ready"
kill "$RESP_PID"; wait "$RESP_PID" || true
rtmon_load
$RTMONCTL records -t 30 >/dev/null &
reader=$!
gpio_pids+=("$reader")
sleep 0.5
respond_start reader --count 3 --prio 0
expect 1 "another program (rtmond?) reads the records" "${L[@]}" --board "$BOARD_FILE" --rtmon \
	--log "$W/reader.jsonl" --ready "$W/reader.ready"
kill "$RESP_PID" "$reader"; wait "$RESP_PID" || true; wait "$reader" || true
echo "gpio-bad-options: ok"

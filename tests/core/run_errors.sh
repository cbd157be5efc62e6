#!/bin/sh
# Malformed input and bad options: exact "file:line: message" errors and
# non-zero exit codes (1 = malformed input, 2 = usage).
#   run_errors.sh REPLAY TMPDIR
REPLAY=$1
T=$2
mkdir -p "$T"
fail=0

# expect NAME RC PATTERN -- command...
expect() {
	name=$1; want=$2; pat=$3; shift 3
	"$@" > "$T/$name.out" 2> "$T/$name.err"
	rc=$?
	if [ $rc -ne "$want" ]; then
		echo "FAIL: err_$name: exit $rc, want $want"
		fail=1
	elif ! grep -q -- "$pat" "$T/$name.err"; then
		echo "FAIL: err_$name: stderr '$(head -c 160 "$T/$name.err")' lacks '$pat'"
		fail=1
	else
		echo "PASS: err_$name"
	fi
}

printf '# ok\nparam ncpus=2\n100 0 irq_entry irq=1\n200 0 bogus_event x=1\n' > "$T/e1.events"
expect unknown_event 1 "e1.events:4: unknown event 'bogus_event'" "$REPLAY" "$T/e1.events"

printf '100 0 irq_entry irq\n' > "$T/e2.events"
expect bad_kv 1 "e2.events:1: expected key=value" "$REPLAY" "$T/e2.events"

printf '100 0 irq_entry irq=1\n\n50 0 irq_exit irq=1\n' > "$T/e3.events"
expect ts_backwards 1 "e3.events:3: timestamp goes backwards" "$REPLAY" "$T/e3.events"

printf 'param ncpus=2\n100 5 tick\n' > "$T/e4.events"
expect cpu_range 1 "e4.events:2: cpu 5 out of range" "$REPLAY" "$T/e4.events"

printf '100 0 waking pid=abc\n' > "$T/e5.events"
expect bad_number 1 "e5.events:1: bad number for pid" "$REPLAY" "$T/e5.events"

printf '100 0 irq_entry irq=1\nparam nchains=4\n' > "$T/e6.events"
expect late_param 1 "e6.events:2: param after the first event" "$REPLAY" "$T/e6.events"

printf 'target name=x end=sometimes\n' > "$T/e7.events"
expect bad_target 1 "e7.events:1: bad target value end='sometimes'" "$REPLAY" "$T/e7.events"

printf 'param task_buckets=3\n' > "$T/e8.events"
expect bad_param 1 "e8.events:1: invalid parameters" "$REPLAY" "$T/e8.events"

printf '100 0 switch prev=1 next=2 colour=red\n' > "$T/e9.events"
expect unknown_key 1 "e9.events:1: unknown key 'colour'" "$REPLAY" "$T/e9.events"

printf '100 0 timer_entry id=1 expires=90 ctx=nmi\n' > "$T/e10.events"
expect bad_timer_ctx 1 "e10.events:1: bad ctx 'nmi'" "$REPLAY" "$T/e10.events"

printf '# tracer: nop\n  <idle>-0 [000] d.h1. 1.000001: irq_handler_entry: irq=1 name=x\n  garbage line here\n' > "$T/f1.trace"
# a line that is no event line at all is counted and shown, not an error
# (exit 0, the count in the counters and a last stderr line)
expect ftrace_garbage 0 "f1.trace:3: line not understood, skipped: no .cpu. column" "$REPLAY" "$T/f1.trace"
expect ftrace_garbage_count 0 "1 lines not understood and skipped (first: line 3)" "$REPLAY" "$T/f1.trace"
"$REPLAY" --json "$T/f1.trace" 2>/dev/null | grep -q '"lines_not_understood":1}' &&
	echo "PASS: err_ftrace_garbage_json" || { echo "FAIL: err_ftrace_garbage_json: no lines_not_understood count"; fail=1; }

printf '# tracer: nop\n  <idle>-0 [000] d.h1. 1.000001: irq_handler_entry: name=x\n' > "$T/f2.trace"
expect explain_rtm 1 "e2.events:1: --explain needs a kernel trace" "$REPLAY" --explain "$T/e2.events"
expect ftrace_field 1 "f2.trace:2: irq_handler_entry without irq=" "$REPLAY" "$T/f2.trace"

# timestamps at the clock's end: the synthesized tick used to wrap and loop
# forever (issue 21, item 16); it must end, the open chains expired by the
# final flush, nothing leaked (exit 0: its tick at the clock's end could
# not age the chain started within max_age of it, exit 3)
printf '  <idle>-0 [000] d.h1. 100.000001: irq_handler_entry: irq=1 name=x\n  <idle>-0 [000] d.h1. 18446744073.709000: irq_handler_entry: irq=1 name=x\n' > "$T/f3.trace"
timeout 20 "$REPLAY" --target name=w,deadline=1ms "$T/f3.trace" > "$T/f3.out" 2>&1
rc=$?
if [ $rc -eq 124 ]; then
	echo "FAIL: err_ftrace_clock_end: still running after 20 s (the tick wrapped)"
	fail=1
elif [ $rc -ne 0 ] || ! grep -q '^records=0 leaks=0$' "$T/f3.out" ||
     ! grep -q '^  chains_expired=2$' "$T/f3.out"; then
	echo "FAIL: err_ftrace_clock_end: exit $rc: $(tail -n 2 "$T/f3.out")"
	fail=1
else
	echo "PASS: err_ftrace_clock_end (ends, exit $rc: $(tail -n 1 "$T/f3.out"))"
fi

# a timestamp past the 64-bit ns clock is an input error, not a time
# wrapped into range (fuzz_replay: seconds of 2^63 wrapped into the clock's
# last second)
printf '100 0 irq_entry irq=1\n18446744074s 0 irq_exit irq=1\n' > "$T/e11.events"
expect ts_range 1 "e11.events:2: bad timestamp '18446744074s'" "$REPLAY" "$T/e11.events"
printf '  <idle>-0 [000] d.h1. 100.000001: irq_handler_entry: irq=1 name=x\n  <idle>-0 [000] d.h1. 9223372036854775807.000043: irq_handler_exit: irq=1 ret=handled\n' > "$T/f4.trace"
expect ftrace_ts_range 1 "f4.trace:2: timestamp past the 64-bit ns clock" "$REPLAY" "$T/f4.trace"
printf '  <idle>-0 [000] d.h1. 18446744073.709551616: irq_handler_entry: irq=1 name=x\n' > "$T/f5.trace"
expect ftrace_ts_range_ns 1 "f5.trace:1: timestamp past the 64-bit ns clock" "$REPLAY" "$T/f5.trace"

expect bad_option 2 "unknown option '--frobnicate'" "$REPLAY" --frobnicate
expect bad_format 2 "bad --format 'xml'" "$REPLAY" --format=xml
expect bad_target_opt 2 "target needs a task filter" "$REPLAY" --target end=block
expect bad_target_dl 2 "bad target value deadline='soon'" "$REPLAY" --target name=x,deadline=soon
expect missing_file 2 "No such file" "$REPLAY" "$T/does-not-exist"
exit $fail

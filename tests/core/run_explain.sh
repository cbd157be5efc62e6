#!/bin/sh
# rtmon-replay --explain on a real recording: the ftrace snapshot rtmond
# kept for a miss in the guest test explain-hog (6.1 PREEMPT_RT:
# cyclictest SCHED_FIFO 50 on cpu 1 behind a SCHED_FIFO 80 busy loop,
# python3[173]; tests/monitor/data/explain). Replayed with a target of
# cyclictest's timer chains, every record gets an explanation whose parts
# add up to its latency, and the one chain that overlaps the hog's burst
# names the hog, as 'rtmonctl explain' does for rtmond's record of it.
# Then chains at the end of the 64-bit ns clock: their windows stop there.
#   run_explain.sh REPLAY TMPDIR
REPLAY=$1
T=$2
DATA=$(dirname "$0")/../monitor/data/explain
mkdir -p "$T"
target="name=ct,comm=cyclictest,source=timer,end=switch_in,deadline=2ms"
if "$REPLAY" --json --explain --target "$target" "$DATA/snapshot.txt" >"$T/explain.json" 2>"$T/explain.err" &&
	python3 - "$T/explain.json" >"$T/explain.out" 2>>"$T/explain.err" <<'PY'
import json, sys
recs, ex = {}, {}
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("type") == "record":
        recs[o["seq"]] = o
    elif o.get("type") == "explain":
        ex[o["seq"]] = o
assert len(recs) > 50 and set(recs) == set(ex), (len(recs), len(ex))
for s, e in ex.items():
    assert e["sum_ns"] == e["latency_ns"] == recs[s]["latency_ns"], (s, e)
    assert not e["partial"], e
late = [e for e in ex.values() if e["latency_ns"] > 3000000]
assert len(late) == 1, [e["culprit"] for e in late]
top = late[0]["parts"][0]
assert top["category"] == "runnable" and top["who"] == "python3[173] rt 80" and top["share"] > 0.95, top
print(f"{len(ex)} records explained, the hog's: {late[0]['culprit']}")
PY
then
	echo "PASS: replay_explain/real ($(cat "$T/explain.out"))"
else
	echo "FAIL: replay_explain/real: $(head -c 400 "$T/explain.err")"
	exit 1
fi
# the text form: one block per record, after the records
if "$REPLAY" --explain --target "$target" "$DATA/snapshot.txt" >"$T/explain.txt" 2>"$T/explain.err" &&
	grep -q "^explanations: 62 records, [0-9]* kernel events read, 0 lines not understood" "$T/explain.txt" &&
	grep -q "runnable behind python3\[173\] rt 80 on cpu 1" "$T/explain.txt"; then
	echo "PASS: replay_explain/text"
else
	echo "FAIL: replay_explain/text: $(grep -m2 'explanations\|python3' "$T/explain.txt") $(head -c 200 "$T/explain.err")"
	exit 1
fi
# chains at the end of the 64-bit ns clock (18446744073.709551615 s): one
# ending within 1 ms of it, one ending on its last ns, after one at 100 s.
# Their windows (200 ms before to 1 ms after) stop at the clock's end,
# never wrap: every event read, each explained in full by its own events
fin=18446744073
cat >"$T/clock-end.trace" <<TRACE
          <idle>-0       [001] d..h1..   100.000010: irq_handler_entry: irq=50 name=pca953x
          <idle>-0       [001] d..h1..   100.000012: irq_handler_exit: irq=50 ret=handled
          <idle>-0       [001] d..h2..   100.000013: sched_waking: comm=irq/50-pca953x pid=150 prio=49 target_cpu=001
          <idle>-0       [001] d...2..   100.000020: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=irq/50-pca953x next_pid=150 next_prio=49
  irq/50-pca953x-150     [001] d...2..   100.000030: sched_switch: prev_comm=irq/50-pca953x prev_pid=150 prev_prio=49 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          <idle>-0       [001] d..h1..   $fin.708010000: irq_handler_entry: irq=50 name=pca953x
          <idle>-0       [001] d..h1..   $fin.708012000: irq_handler_exit: irq=50 ret=handled
          <idle>-0       [001] d..h2..   $fin.708013000: sched_waking: comm=irq/50-pca953x pid=150 prio=49 target_cpu=001
          <idle>-0       [001] d...2..   $fin.709000000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=irq/50-pca953x next_pid=150 next_prio=49
  irq/50-pca953x-150     [001] d...2..   $fin.709030000: sched_switch: prev_comm=irq/50-pca953x prev_pid=150 prev_prio=49 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          <idle>-0       [001] d..h1..   $fin.709551000: irq_handler_entry: irq=50 name=pca953x
          <idle>-0       [001] d..h1..   $fin.709551002: irq_handler_exit: irq=50 ret=handled
          <idle>-0       [001] d..h2..   $fin.709551003: sched_waking: comm=irq/50-pca953x pid=150 prio=49 target_cpu=001
          <idle>-0       [001] d...2..   $fin.709551615: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=irq/50-pca953x next_pid=150 next_prio=49
TRACE
target="name=irqt,comm=irq/50-pca953x,end=switch_in,deadline=200us,source=irq"
# (text: the record JSON's integers are signed 64-bit, which times past
# 2^63 ns do not fit: --json refuses them, at the first such record)
timeout 20 "$REPLAY" --json --explain --param ncpus=2 --target "$target" "$T/clock-end.trace" \
	>"$T/clock-end.json" 2>"$T/clock-end.err"
rc1=$?
timeout 20 "$REPLAY" --explain --param ncpus=2 --target "$target" "$T/clock-end.trace" \
	>"$T/clock-end.txt" 2>>"$T/clock-end.err"
rc2=$?
if [ $rc1 -eq 1 ] && [ $rc2 -eq 0 ] &&
	grep -q "record #2: a time past 2^63 ns, which the record JSON (signed 64-bit integers) cannot hold" "$T/clock-end.err" &&
	[ "$(grep -c '"type":"record"' "$T/clock-end.json")" = 1 ] &&
	grep -q "^explanations: 3 records, 14 kernel events read, 0 lines not understood" "$T/clock-end.txt" &&
	! grep -q "^  partial:" "$T/clock-end.txt" &&
	! grep -E "trace: [0-9]+ events" "$T/clock-end.txt" | grep -vqE "trace: ([0-9]|1[0-4]) events" &&
	python3 - "$T/clock-end.txt" >"$T/clock-end.out" 2>>"$T/clock-end.err" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# the records: #3's end on the clock's last ns
rec3 = text[text.index("record #3 "):text.index("#1 latency")]
assert re.search(r"^ +2 switch_in .* t=18446744073709551615 ", rec3, re.M), rec3
# each explained in full by its own events: the parts sum to the latency
ex = re.findall(r"^#(\d+) latency (.*?): .*? (\w+) behind (idle \(swapper/1\)) on cpu 1$", text, re.M)
sums = re.findall(r"^  sum (.*) of (.*); trace: \d+ events$", text, re.M)
assert [e[0] for e in ex] == ["1", "2", "3"] and all(e[2] == "runnable" for e in ex), ex
assert len(sums) == 3 and all(a == b for a, b in sums), sums
print(", ".join(f"#{e[0]} {e[1]}: {e[2]} behind {e[3]}" for e in ex) + "; --json refused at #2")
PY
then
	echo "PASS: replay_explain/clock_end (within 1 ms of the clock's end and on its last ns: $(cat "$T/clock-end.out"))"
else
	echo "FAIL: replay_explain/clock_end: exit $rc1/$rc2 (124: timeout): $(grep -E '^explanations|^#' "$T/clock-end.txt" | head -n 4 | tr '\n' ' ') $(head -c 400 "$T/clock-end.err")"
	exit 1
fi

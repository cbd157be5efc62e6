#!/bin/sh
# rtmon-replay --explain on a real recording: the ftrace snapshot rtmond
# kept for a miss in the guest test explain-hog (6.1 PREEMPT_RT:
# cyclictest SCHED_FIFO 50 on cpu 1 behind a SCHED_FIFO 80 busy loop,
# python3[173]; tests/monitor/data/explain). Replayed with a target of
# cyclictest's timer chains, every record gets an explanation whose parts
# add up to its latency, and the one chain that overlaps the hog's burst
# names the hog, as 'rtmonctl explain' does for rtmond's record of it.
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

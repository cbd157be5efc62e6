#!/bin/sh
# Golden tests: run each golden/NAME.events through rtmon-replay (extra
# arguments from NAME.args) and compare the text output with NAME.expected.
# The --json output of the same input must be valid JSON lines whose
# counters agree with the text output, or, with NAME.json-refused, an
# input error with that message. Exit 3 of the tool (leak after
# flush) fails the test.
#   run_golden.sh REPLAY GOLDEN_DIR OUT_DIR [--update]
REPLAY=$1
GDIR=$2
OUT=$3
UPDATE=$4
mkdir -p "$OUT"
fail=0
for ev in "$GDIR"/*.events; do
	name=$(basename "$ev" .events)
	args=""
	[ -f "$GDIR/$name.args" ] && args=$(cat "$GDIR/$name.args")
	# shellcheck disable=SC2086
	"$REPLAY" $args "$ev" > "$OUT/$name.out" 2> "$OUT/$name.err"
	rc=$?
	if [ "$UPDATE" = "--update" ]; then
		cp "$OUT/$name.out" "$GDIR/$name.expected"
		echo "UPDATED: golden_$name (review the diff!)"
		continue
	fi
	if [ $rc -ne 0 ]; then
		echo "FAIL: golden_$name: rtmon-replay exit $rc: $(head -c 200 "$OUT/$name.err")"
		fail=1
		continue
	fi
	if [ ! -f "$GDIR/$name.expected" ]; then
		echo "FAIL: golden_$name: missing $name.expected"
		fail=1
		continue
	fi
	if ! diff -u "$GDIR/$name.expected" "$OUT/$name.out" > "$OUT/$name.diff"; then
		echo "FAIL: golden_$name: output differs (see $OUT/$name.diff)"
		fail=1
		continue
	fi
	echo "PASS: golden_$name"
	# same input as JSON
	# shellcheck disable=SC2086
	"$REPLAY" --json $args "$ev" > "$OUT/$name.json" 2> "$OUT/$name.json.err"
	rc=$?
	# NAME.json-refused: the JSON run's input error (its message's end)
	if [ -f "$GDIR/$name.json-refused" ]; then
		if [ $rc -eq 1 ] && grep -qF -- "$(cat "$GDIR/$name.json-refused")" "$OUT/$name.json.err"; then
			echo "PASS: golden_json_$name (refused: $(cat "$GDIR/$name.json-refused"))"
		else
			echo "FAIL: golden_json_$name: exit $rc, want 1 and '$(cat "$GDIR/$name.json-refused")': $(head -c 200 "$OUT/$name.json.err")"
			fail=1
		fi
		continue
	fi
	if ! command -v python3 >/dev/null 2>&1; then
		echo "SKIP: golden_json_$name: python3 not available"
		continue
	fi
	if [ $rc -eq 0 ] && python3 - "$OUT/$name.json" "$OUT/$name.out" <<'PY'
import json, re, sys
recs = []
ctr = None
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o["type"] == "record":
        assert ctr is None, "record after counters"
        assert len(o["hops"]) >= 1 and o["latency_ns"] == max(0, o["end_ns"] - o["start_ns"])
        recs.append(o)
    else:
        ctr = o
assert ctr is not None, "no counters"
assert ctr["records"] == len(recs), "record count"
seqs = [r["seq"] for r in recs]
assert len(set(seqs)) == len(seqs), "duplicate seq"
text = {}
for line in open(sys.argv[2]):
    m = re.match(r"^  ([a-z_]+)=([0-9]+)$", line)
    if m:
        text[m.group(1)] = int(m.group(2))
for k, v in text.items():
    assert ctr[k] == v, "counter %s json %s text %s" % (k, ctr[k], v)
assert ctr["records_read"] == ctr["records_written"]
assert ctr["records_written"] + ctr["drop_ring_full"] + ctr["records_filtered"] == ctr["records_emitted"]
PY
	then
		echo "PASS: golden_json_$name"
	else
		echo "FAIL: golden_json_$name: JSON output invalid or inconsistent"
		fail=1
	fi
done
exit $fail

# Timer chains against cyclictest: every wakeup of cyclictest's measuring
# thread yields exactly one record ending at its switch-in; rtmon's latency
# of a wakeup never exceeds cyclictest's own for it, and the maxima agree
# within the time cyclictest needs to read the clock after it runs.
# timeout: 180
. "$RTMON_TOP/tests/vm/guest/lib.sh"

loops=${LOOPS:-2000}
rtmon_load
$RTMONCTL targets add --name cyclictest --comm cyclictest --timer --end switch_in --deadline 10ms
$RTMONCTL targets list
# the reader runs throughout, as rtmond would: rings hold 1024 records a cpu
$RTMONCTL records --json -t 5 >$T/records.json &
reader=$!
cyclictest -q -m -p 80 -t 1 -i 1000 -l $loops -v -N >$T/ct.out 2>&1 ||
	fail "cyclictest failed: $(tail -n 3 $T/ct.out)"
wait $reader || fail "the record reader failed"
cat /proc/rtmon/status | sed -n '1,/^counters/p'
python3 - "$loops" <<'PY'
import os
T = os.environ["T"]
import json, re, sys, statistics
loops = int(sys.argv[1])
ct = open(T + "/ct.out").read()
tid = int(re.search(r"T: 0 \(\s*(\d+)\)", ct).group(1))
ct_lat = [int(m.group(2)) for m in re.finditer(r"^\s*0:\s*(\d+):\s*(\d+)$", ct, re.M)]
assert len(ct_lat) == loops, f"cyclictest printed {len(ct_lat)} latencies, expected {loops}"
recs = [json.loads(l) for l in open(T + "/records.json")]
seqs = [r["seq"] for r in recs]
assert len(seqs) == len(set(seqs)), "duplicate record sequence numbers"
mine = sorted((r for r in recs if r["pid"] == tid), key=lambda r: r["start_ns"])
other = [r for r in recs if r["pid"] != tid]
print(f"measuring thread {tid}: {len(mine)} records for {loops} loops; "
      f"{len(other)} records for other cyclictest threads")
assert len(mine) == loops, f"{len(mine)} records for {loops} cyclictest wakeups"
for r in mine:
    assert r["kind"] == "timer" and r["source"] == tid, f"not a timer chain of {tid}: {r}"
    assert r["hops"][-1]["event"] == "switch_in", f"record does not end at switch-in: {r}"
    assert "timeout" not in r["flags"]
rt_lat = [r["latency_ns"] for r in mine]
gaps = [c - r for c, r in zip(ct_lat, rt_lat)]
bad = [(i, c, r) for i, (c, r) in enumerate(zip(ct_lat, rt_lat)) if r > c]
assert not bad, f"{len(bad)} wakeups where rtmon > cyclictest, first {bad[:3]}"
gaps_sorted = sorted(gaps)
p99 = gaps_sorted[int(len(gaps) * 0.99)]
d = max(ct_lat) - max(rt_lat)
print(f"latency ns: cyclictest max {max(ct_lat)} median {statistics.median(ct_lat)}; "
      f"rtmon max {max(rt_lat)} median {statistics.median(rt_lat)}")
print(f"clock-read gap (cyclictest - rtmon) ns: median {statistics.median(gaps)} p99 {p99} max {max(gaps)}; "
      f"maxima differ by {d}")
assert 0 <= d <= p99 + 20000, f"maxima differ by {d} ns, more than the p99 clock-read gap {p99} + 20 us"
PY
misses=$(status_count "  chains started" misses)
drops=$(awk '/^  drops/ { s = 0; for (i = 3; i <= NF; i += 2) s += $i; print s }' /proc/rtmon/status)
[ "$drops" = 0 ] || fail "drops during a plain cyclictest run: $(grep '^  drops' /proc/rtmon/status)"
echo "chain-cyclictest: ok (misses $misses)"

# Interrupt -> dispatcher -> worker through work cookies, and a provoked
# deadline miss. tests/apps/dispatch_test: a feeder thread sleeps for the
# period (a sleeper hrtimer), then blocks on a device (reads of the 9p
# share, answered by its virtio interrupt), wakes a dispatcher through an
# eventfd, which marks work_begin and hands the item to a worker that marks
# work_end. Every 10th item the worker spins past the deadline.
# Records are joined with the items by their cookie (record version 2).
# Checks: every item has exactly one record, ending at its worker's
# work_end; the breakdown names the feeder and the dispatcher's work_begin;
# an IRQ-started chain names the IRQ thread (PREEMPT_RT). Where the
# device's answer comes before the feeder sleeps on it (the interrupt
# arrives while the feeder still runs, so no wakeup links it: seen on 6.1
# and 6.12 alike, 0-26 of 150 items depending on timing), the item
# continues the feeder's own chain from its sleeper timer: such items must
# carry that timer chain; their number is printed. An item without a
# record must be a loss the module counted (printed). Slow items are
# deadline misses;
# rtmon_deadline_miss tracepoints are in the trace buffer; poll() woke the
# reader within a fraction of its timeout.
# timeout: 240
. "$RTMON_TOP/tests/vm/guest/lib.sh"

items=${ITEMS:-150}
# (on a slow debug kernel, the board's timeout scale: the fast items'
# latency grows with it, and the slow items spin four times the deadline)
deadline_us=$((5000 * ${RTMON_TIMEOUT_SCALE:-1}))
rtmon_load
$RTMONCTL targets add --name dispatch --comm dispatch_test --end work_end \
	--deadline ${deadline_us}us
tr=/sys/kernel/tracing
echo 1 >$tr/events/rtmon/rtmon_deadline_miss/enable
echo 1 >$tr/tracing_on
echo "some data for the feeder" >/rtmon-share/feed

# the reader writes to the guest's memory, not to the 9p share: writes
# there would raise the very interrupt the feeder waits on, and every record
# written would start more chains into the program
$RTMONCTL status --json >/tmp/c0.json
$RTMONCTL records --json --stamp -t $((8 * ${RTMON_TIMEOUT_SCALE:-1})) >/tmp/records.json &
reader=$!
"$APPS/dispatch_test" -f /rtmon-share/feed -n $items -p $((4000 * ${RTMON_TIMEOUT_SCALE:-1})) -w 50 -s 10 -S $((deadline_us * 4)) \
	>/tmp/items.json || fail "dispatch_test failed"
wait $reader || fail "the record reader failed"
$RTMONCTL status --json >/tmp/c1.json
cp /tmp/records.json /tmp/items.json /tmp/c0.json /tmp/c1.json "$T/"
echo 0 >$tr/events/rtmon/rtmon_deadline_miss/enable
grep -c rtmon_deadline_miss $tr/trace >$T/tp.count || true

python3 - "$items" "$RTMON_PREEMPT_RT" "$deadline_us" <<'PY'
import os
T = os.environ["T"]
import json, sys
items, rt, dl_us = int(sys.argv[1]), sys.argv[2] == "y", int(sys.argv[3])
its = [json.loads(l) for l in open(T + "/items.json")]
recs = [json.loads(l) for l in open(T + "/records.json")]
assert len(its) == items
overdue = [r for r in recs if "timeout" in r["flags"]]
done = [r for r in recs if "timeout" not in r["flags"]]
by_cookie = {}
for r in done:
    assert "cookie" in r, f"a work_end record without its cookie: {r['flags']}"
    by_cookie.setdefault(r["cookie"], []).append(r)
print(f"{items} items, {len(done)} completion records, {len(overdue)} overdue reports")
extra = [c for c in by_cookie if c not in {it["cookie"] for it in its}]
assert not extra, f"records for cookies no item had: {extra[:10]}"
# the tick reports an open chain once it is past its deadline: timing under
# emulation decides how many slow items are caught open, but some must be
slow = [it for it in its if it["slow"]]
in_slow = [r for r in overdue
           if any(it["t_read_done"] - 5e7 <= r["start_ns"] <= it["t_end"] for it in slow)]
print(f"overdue reports: {len(in_slow)} during slow items, {len(overdue) - len(in_slow)} others")
assert in_slow, f"no overdue report for any of the {len(slow)} slow items"
matched, kinds, misses, slow_missed, fast_missed, missing = 0, {"irq": 0, "timer": 0}, 0, 0, 0, []
for it in its:
    rs = by_cookie.get(it["cookie"], [])
    assert len(rs) <= 1, f"item {it['cookie']}: {len(rs)} records"
    if not rs:
        missing.append(it["cookie"])
        continue
    r = rs[0]
    matched += 1
    kinds[r["kind"]] += 1
    ev = [(h["event"], h["pid"], h["comm"]) for h in r["hops"]]
    assert ev[0][0] in ("irq", "timer"), f"item {it['cookie']}: chain starts at {ev[0]}"
    assert it["t_end"] <= r["end_ns"], f"item {it['cookie']}: record ends before the item's work_end"
    if "dropped_hops" not in r["flags"]:
        assert ev[-1][:2] == ("work_end", it["worker"]), \
            f"item {it['cookie']}: ends at {ev[-1]}, worker is {it['worker']}"
        assert ("work_begin", it["dispatcher"]) in [(e, p) for e, p, _ in ev], \
            f"item {it['cookie']}: no work_begin by the dispatcher {it['dispatcher']}: {ev}"
        pids = [p for e, p, _ in ev if e in ("waking", "switch_in")]
        assert it["feeder"] in pids, f"item {it['cookie']}: feeder {it['feeder']} not on the path {ev}"
        if rt and r["kind"] == "irq" and "truncated" not in r["flags"]:
            # the IRQ thread is woken, or, still runnable from the last
            # interrupt, runs it again ("rerun"): either is its hop (not
            # in a truncated record: it keeps the root and the last 15
            # hops; a task preempted often fills them with preempt and
            # switch_in hops: 6.12-rt-debug)
            assert any(c.startswith("irq/") for e, p, c in ev if e in ("waking", "rerun")), \
                f"item {it['cookie']}: no IRQ thread on a PREEMPT_RT chain: {ev}"
    miss = "deadline_miss" in r["flags"]
    lat_ok = r["latency_ns"] <= dl_us * 1000
    assert miss != lat_ok, f"miss flag {miss} but latency {r['latency_ns']} vs deadline"
    if it["slow"]:
        assert miss, f"slow item {it['cookie']} (20 ms of work) not a miss: {r['latency_ns']} ns"
        slow_missed += 1
        # the reader was woken by poll() well before its 8 s timeout
        assert r["read_ns"] - r["end_ns"] < 2e9, f"miss read {(r['read_ns'] - r['end_ns']) / 1e9:.2f} s late"
    elif miss and r["kind"] == "irq":
        fast_missed += 1
    if matched == 1:
        print("first record's path:", " -> ".join(f"{e}:{c or p}" for e, p, c in ev))
print(f"matched {matched}/{items} by cookie: {kinds['irq']} started by the device's IRQ, "
      f"{kinds['timer']} by the feeder's sleeper timer (answer before it slept); "
      f"slow items missed {slow_missed}, other IRQ-started items missed {fast_missed}")
if missing:
    print(f"items without a record: {missing}")
# An item without a chain must be a loss the module counted (issue 20):
# an interrupt coalesced into its IRQ thread's pass, an IRQ thread wakeup
# that never came, work begun by a task that was awake when its item came
# (no wakeup traced: work_untraced), or a drop for lack of room.
c0 = json.load(open(T + "/c0.json"))["counters"]["drops"]
c1 = json.load(open(T + "/c1.json"))["counters"]["drops"]
counted = {k: c1[k] - c0[k] for k in c1 if c1[k] != c0[k]}
print(f"module's counted losses during the run: {counted or 'none'}; "
      f"followed: interrupts to their thread's next pass {counted.get('irq_rerun', 0)}, "
      f"work taken up from its IRQ thread {counted.get('work_handoff', 0)}")
# (irq_rerun, work_handoff: followed; hops: hops a record lacks, not chains)
lost = sum(v for k, v in counted.items() if k not in ("irq_rerun", "work_handoff", "hops"))
assert len(missing) <= lost, \
    f"{len(missing)} items without a record, only {lost} losses counted: {missing[:20]}"
assert kinds["irq"] >= items * 0.5, f"only {kinds['irq']} IRQ-started chains"
assert slow_missed >= len([it for it in slow if it["cookie"] not in missing]), "slow items without a miss record"
assert fast_missed <= items * 0.1, f"{fast_missed} fast items missed a {dl_us} us deadline"
tp = int(open(T + "/tp.count").read() or 0)
print(f"rtmon_deadline_miss events in the trace buffer: {tp}")
assert tp >= slow_missed, f"{tp} tracepoint events for {slow_missed} misses"
PY
grep -m1 rtmon_deadline_miss /sys/kernel/tracing/trace
echo "chain-dispatch: ok"

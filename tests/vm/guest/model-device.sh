# Chains through an IRQ thread that blocks before it wakes its reader
# (issue 43): the test device rtmon-model.ko (tests/gpio/model, on irq_sim
# as gpio-sim is) has model_reader (tests/apps) fire its interrupt and
# block in read() until the device's IRQ thread has handled it, one
# interrupt at a time, in each mode: direct (the thread wakes the reader
# at once), bus (the thread sleeps in D until a second, bus controller
# interrupt completes a 200 us transfer, as an I2C GPIO expander's does),
# lock (a spinlock_t a helper holds for 300 us when the interrupt comes:
# an rtlock wait on PREEMPT_RT, spinning on mainline) and mutex (the same
# with a mutex: D). Target: the device's IRQ to model_reader's switch-in.
# Every interrupt whose wakeup woke model_reader waiting in read() has its
# record (one interrupt at a time: none merged); the device counts those,
# reader_woken. The others found it running (between its write and its
# read, or back from its wait having seen the event itself): no wakeup of
# theirs is traced, and they may have no record. A reader
# woken while still current on its cpu, on its way into the sleep, has
# nothing left to switch in: its record ends at that wakeup (column
# running; 1 of 300 in CI on 6.1-rt and 6.12-rt). In bus mode
# every record has the IRQ thread's hop wait followed by its switch-in
# (but for a thread preempted until its transfer was done: it never
# slept, the device counts them, xfer_nosleep; a CI run on 6.1-rt had 1 of
# 300 records without the wait before the device counted them), and
# a latency of at least the transfer's time (before the fix, the D ended
# the thread's pass and bus mode had no record at all; mutex mode lost 47
# of 300 on 6.1-rt); on PREEMPT_RT the lock mode's records have the wait
# too (not all: the thread may run only after the holder let go).
# A chain merged into another's (record flag merged) is counted there.
# timeout: 240
. "$RTMON_TOP/tests/vm/guest/lib.sh"
. "$RTMON_TOP/tests/vm/guest/model-lib.sh"

# MODEL_RECORD: each mode recorded by trace-cmd too, and replayed
if [ -n "${MODEL_RECORD:-}" ]; then
	model_before() {
		trace-cmd start -C mono -b 4096 -e sched:sched_switch \
			-e sched:sched_waking -e irq -e lock:contention_begin \
			-e lock:contention_end -e workqueue:workqueue_queue_work \
			-e workqueue:workqueue_execute_start \
			-e workqueue:workqueue_execute_end >"$T/$1.rec" 2>&1 ||
			fail "trace-cmd start failed: $(tail -n 5 "$T/$1.rec")"
	}
	model_after() {
		trace-cmd stop
		trace-cmd extract -o "$T/$1.dat" >>"$T/$1.rec" 2>&1 ||
			fail "trace-cmd extract failed: $(tail -n 3 "$T/$1.rec")"
		trace-cmd reset >/dev/null 2>&1 || true
		"$RTMON_TOP/build/core/rtmon-replay" --json \
			--target name=model_reader,source=irq:"$irq",end=switch_in,deadline=50ms \
			"$T/$1.dat" >"$T/$1.replay" 2>"$T/$1.replay.err" ||
			fail "rtmon-replay failed on the recording: $(tail -n 3 "$T/$1.replay.err")"
	}
fi
model_setup "$APPS/model_reader"
model_runs

python3 - "$T" "$n" "$irq" "$xfer_us" "$rt" $modes <<'PY' || fail "model-device: the records disagree with the device (above)"
import json, os, sys
T, n, irq, xfer_us, rt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
modes = sys.argv[6:]
print(f"{'mode':7} {'records':>8} {'woken':>6} {'running':>7} {'with wait':>9} {'merged':>7} {'wait->run us med/min':>22} {'latency us med/max':>20}")
bad = []
for mode in modes:
    recs = [json.loads(l) for l in open(f"{T}/{mode}.jsonl")]
    recs = [r for r in recs if r["target_name"] == "model" and "timeout" not in r["flags"]]
    waits, gaps, running = 0, [], 0
    for r in recs:
        assert r["kind"] == "irq" and r["source"] == irq, f"{mode}: a record of another source: {r['source']}"
        ev = [h["event"] for h in r["hops"]]
        # the end: the reader's switch-in, or its wakeup when it was still
        # current on its cpu, on its way into the sleep (nothing to switch in)
        assert ev[-1] in ("switch_in", "waking") and r["hops"][-1]["comm"] == "model_reader", \
            f"{mode}: {ev}"
        running += ev[-1] == "waking"
        for i, h in enumerate(r["hops"]):
            if h["event"] == "wait":
                nxt = r["hops"][i + 1]
                assert nxt["event"] == "switch_in" and nxt["pid"] == h["pid"], \
                    f"{mode}: the thread's wait is not followed by its switch-in: {ev}"
                gaps.append(nxt["ts_ns"] - h["ts_ns"])
        waits += "wait" in ev
    merged = sum("merged" in r["flags"] for r in recs)
    woken = int(open(f"{T}/{mode}.woken").read())
    lat = sorted(r["latency_ns"] for r in recs) or [0]
    gaps.sort()
    g = f"{gaps[len(gaps) // 2] / 1000:.0f} / {gaps[0] / 1000:.0f}" if gaps else "-"
    print(f"{mode:7} {len(recs):>8} {woken:>6} {running:>7} {waits:>9} {merged:>7} {g:>22} "
          f"{lat[len(lat) // 2] / 1000:>9.0f} / {lat[-1] / 1000:.0f}")
    # (more records than woken readers: a lock's wakeup of the reader,
    # queueing on the wait queue's rtlock, carried the chain)
    lost = max(0, woken - len(recs) - merged)
    if lost:
        print(f"{mode}: {lost} chains lost, their wakeup woke the reader")
    # (most events find the reader waiting: 2961 of 3000 at least on
    # 6.12-rt under host load, 273 of 300 on armhf; workbusy's items queued
    # behind the busy kworker run back to back and one wakeup often serves
    # several: 141 of 300 on arm64 6.1)
    least = n // 4 if mode == "workbusy" else n // 2
    if len(recs) > n or lost or woken < least:
        bad.append(f"{mode}: {len(recs)} records for {n} interrupts, {woken} that woke the reader "
                   f"(at least {least})")
    if mode == "bus":
        # a thread preempted past the transfer's end finds it done: no wait
        nosleep = int(open(f"{T}/{mode}.nosleep").read())
        if nosleep:
            print(f"bus: {nosleep} transfers done before the thread waited")
        if waits < len(recs) - nosleep:
            bad.append(f"bus: {len(recs) - waits} records without the thread's wait, "
                       f"{nosleep} transfers done before it waited")
        if lat[0] < xfer_us * 1000:
            bad.append(f"bus: a latency of {lat[0]} ns, shorter than the {xfer_us} us transfer")
    if mode == "workbusy":
        # the item queued while the kworker runs a long one: the chain
        # goes through it (hop queue_work), queued behind the kworker;
        # a kworker done with the long item first is woken for it
        kw = lambda h: h["event"] in ("waking", "switch_in") and h["comm"].startswith("kworker/")
        qw = sum(any(h["event"] == "queue_work" for h in r["hops"]) for r in recs)
        kw_woken = sum(not any(h["event"] == "queue_work" for h in r["hops"]) and
                    any(kw(h) for h in r["hops"]) for r in recs)
        qd = sum(any(h["event"] == "queued" for h in r["hops"]) for r in recs)
        print(f"workbusy: {qw} of {len(recs)} records through the queued item ({qd} queued behind "
              f"the busy kworker), {kw_woken} through a kworker woken for it")
        if qw + kw_woken < len(recs) or not qd:
            bad.append(f"workbusy: {len(recs) - qw - kw_woken} records through no kworker, {qd} queued")
    if os.path.exists(f"{T}/{mode}.replay"):
        # the same run recorded by trace-cmd and replayed: the same chains
        # (joined by start, within 200 us: two clock reads of one
        # tracepoint under emulation), the same hops for >= 98%
        rep = [json.loads(l) for l in open(f"{T}/{mode}.replay")]
        rep = sorted((q for q in rep if q.get("type") == "record" and "timeout" not in q["flags"]),
                     key=lambda q: q["start_ns"])
        hops = lambda r: [(h["event"], h["pid"], h["cpu"]) for h in r["hops"]]
        lo = min((q["start_ns"] for q in rep), default=0)
        hi = max((q["end_ns"] for q in rep), default=0)
        m_in = [r for r in recs if lo - 1000000 <= r["start_ns"] and r["end_ns"] <= hi + 1000000]
        used, pairs = set(), []
        for r in m_in:
            best = min(((abs(q["start_ns"] - r["start_ns"]), i) for i, q in enumerate(rep)
                        if i not in used and q["pid"] == r["pid"] and
                        abs(q["start_ns"] - r["start_ns"]) <= 200000), default=None)
            if best:
                used.add(best[1])
                pairs.append((r, rep[best[1]]))
        same = sum(hops(r) == hops(q) for r, q in pairs)
        print(f"{mode} replayed: module {len(m_in)}, replay {len(rep)}, joined {len(pairs)}, same hops {same}")
        for r, q in [(r, q) for r, q in pairs if hops(r) != hops(q)][:2]:
            print(f"  hops differ: module {hops(r)} replay {hops(q)}")
        if len(pairs) * 100 < 98 * max(len(m_in), len(rep)) or same * 100 < 98 * len(pairs):
            bad.append(f"{mode}: replay and module disagree")
    if mode == "lock" and rt and not waits:
        bad.append(f"lock (PREEMPT_RT): no record waited for the lock")
assert not bad, "; ".join(bad)
PY
[ "$(cat /sys/module/rtmon_model/parameters/xfer_lost)" = 0 ] ||
	fail "the device lost $(cat /sys/module/rtmon_model/parameters/xfer_lost) bus transfers' interrupts"
echo "model-device: ok"

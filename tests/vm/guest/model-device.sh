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
# Every interrupt's chain is a record (one interrupt at a time: none
# merged), except those the device handled while model_reader was not yet
# blocked in read() (preempted between its write and its read: no wakeup
# hands the event on; the device counts them, reader_awake). A reader
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
# Known, left open (issue 43): a chain lost now and then with no cause
# counted, the device having seen the reader waiting (6.12-rt: 1 of 300
# in direct mode, in one of three runs of 1,200 interrupts; 6.1-rt and 6.1:
# none in three): up to 1% of a mode's interrupts pass as such, printed.
# A chain merged into another's (record flag merged) is counted there.
# timeout: 240
. "$RTMON_TOP/tests/vm/guest/lib.sh"

dir=${RTMON_GPIO_SIM_DIR:-$RTMON_TOP/build/gpio-sim/${RTMON_BOARD:?}}
READER=$APPS/model_reader
[ -x "$READER" ] || fail "model_reader not built (make -C tests/apps)"
[ -f "$dir/rtmon-model.ko" ] || fail "no $dir/rtmon-model.ko (scripts/build-gpio-sim $RTMON_BOARD)"
# irq-sim unloaded again at the end, when loaded here: gpio-sim's
# sim-setup.sh, in the tests after this one, loads it itself
rmmod rtmon_model 2>/dev/null || true
sim_loaded=
if ! grep -q '^irq_sim ' /proc/modules; then
	insmod "$dir/irq-sim.ko" || fail "insmod irq-sim.ko failed"
	sim_loaded=1
fi
reader= firer=
model_cleanup() {
	[ -z "$reader$firer" ] || kill $reader $firer 2>/dev/null || true
	wait || true
	rmmod rtmon_model 2>/dev/null || true
	[ -z "$sim_loaded" ] || rmmod irq_sim 2>/dev/null || true
	rtmon_cleanup
}
trap model_cleanup EXIT
insmod "$dir/rtmon-model.ko" || fail "insmod rtmon-model.ko failed: $(dmesg | tail -n 2)"
irq=$(cat /sys/module/rtmon_model/parameters/irq_dev)
xfer_us=$(cat /sys/module/rtmon_model/parameters/xfer_us)
rt=0
grep -q 'PREEMPT_RT' /proc/version && rt=1
note "device irq $irq, bus irq $(cat /sys/module/rtmon_model/parameters/irq_bus); PREEMPT_RT $rt"

rtmon_load
$RTMONCTL targets add --name model --irq "$irq" --comm model_reader --end switch_in --deadline 50ms >/dev/null
n=${MODEL_EVENTS:-300}
modes=${MODEL_MODES:-direct bus lock mutex work}
for mode in $modes; do
	# (before the record reader: it stops after 2 s without a record)
	if [ -n "${MODEL_RECORD:-}" ]; then
		trace-cmd start -C mono -b 4096 -e sched:sched_switch \
			-e sched:sched_waking -e irq -e lock:contention_begin \
			-e lock:contention_end -e workqueue:workqueue_queue_work \
			-e workqueue:workqueue_execute_start \
			-e workqueue:workqueue_execute_end >"$T/$mode.rec" 2>&1 ||
			fail "trace-cmd start failed: $(tail -n 5 "$T/$mode.rec")"
	fi
	$RTMONCTL records --json -t 2 >"$T/$mode.jsonl" &
	reader=$!
	sleep 0.3
	a0=$(cat /sys/module/rtmon_model/parameters/reader_awake)
	s0=$(cat /sys/module/rtmon_model/parameters/xfer_nosleep)
	timeout 120 "$READER" $mode "$n" >"$T/$mode.out" 2>&1 &
	firer=$!
	wait $firer || fail "model_reader $mode (exit $?): $(cat "$T/$mode.out")"
	firer=
	if [ -n "${MODEL_RECORD:-}" ]; then
		trace-cmd stop
		trace-cmd extract -o "$T/$mode.dat" >>"$T/$mode.rec" 2>&1 ||
			fail "trace-cmd extract failed: $(tail -n 3 "$T/$mode.rec")"
		trace-cmd reset >/dev/null 2>&1 || true
		"$RTMON_TOP/build/core/rtmon-replay" --json \
			--target name=model_reader,source=irq:"$irq",end=switch_in,deadline=50ms \
			"$T/$mode.dat" >"$T/$mode.replay" 2>"$T/$mode.replay.err" ||
			fail "rtmon-replay failed on the recording: $(tail -n 3 "$T/$mode.replay.err")"
	fi
	wait $reader || fail "rtmonctl records failed"
	reader=
	cat "$T/$mode.out"
	echo $(($(cat /sys/module/rtmon_model/parameters/reader_awake) - a0)) >"$T/$mode.awake"
	echo $(($(cat /sys/module/rtmon_model/parameters/xfer_nosleep) - s0)) >"$T/$mode.nosleep"
done
grep -E '^  (irq threads|work untraced|drops)' /proc/rtmon/status || true

python3 - "$T" "$n" "$irq" "$xfer_us" "$rt" $modes <<'PY' || fail "model-device: the records disagree with the device (above)"
import json, os, sys
T, n, irq, xfer_us, rt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
modes = sys.argv[6:]
print(f"{'mode':7} {'records':>8} {'awake':>6} {'running':>7} {'with wait':>9} {'merged':>7} {'wait->run us med/min':>22} {'latency us med/max':>20}")
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
    awake = int(open(f"{T}/{mode}.awake").read())
    lat = sorted(r["latency_ns"] for r in recs) or [0]
    gaps.sort()
    g = f"{gaps[len(gaps) // 2] / 1000:.0f} / {gaps[0] / 1000:.0f}" if gaps else "-"
    print(f"{mode:7} {len(recs):>8} {awake:>6} {running:>7} {waits:>9} {merged:>7} {g:>22} "
          f"{lat[len(lat) // 2] / 1000:>9.0f} / {lat[-1] / 1000:.0f}")
    # a reader found awake may still have gone to sleep before the wakeup
    lost = max(0, n - awake - len(recs) - merged)
    if lost:
        print(f"{mode}: {lost} chains lost with no cause counted (known, left open)")
    if len(recs) > n or lost * 100 > n:
        bad.append(f"{mode}: {len(recs)} records for {n} interrupts, {awake} with the reader awake")
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
        woken = sum(not any(h["event"] == "queue_work" for h in r["hops"]) and
                    any(kw(h) for h in r["hops"]) for r in recs)
        qd = sum(any(h["event"] == "queued" for h in r["hops"]) for r in recs)
        print(f"workbusy: {qw} of {len(recs)} records through the queued item ({qd} queued behind "
              f"the busy kworker), {woken} through a kworker woken for it")
        if qw + woken < len(recs) or not qd:
            bad.append(f"workbusy: {len(recs) - qw - woken} records through no kworker, {qd} queued")
    if os.path.exists(f"{T}/{mode}.replay"):
        # the same run recorded by trace-cmd and replayed: the same chains
        # (joined by start, within 200 us: two clock reads of one
        # tracepoint under emulation), the same hops for >= 98%
        rep = [json.loads(l) for l in open(f"{T}/{mode}.replay")]
        rep = sorted((q for q in rep if q.get("type") == "record" and "timeout" not in q["flags"]),
                     key=lambda q: q["start_ns"])
        # (the replay's hops name their event "type")
        hops = lambda r: [(h.get("event", h.get("type")), h["pid"], h["cpu"]) for h in r["hops"]]
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

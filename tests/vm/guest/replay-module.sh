# Replay equals module (issue 15): while rtmon.ko follows two targets,
# trace-cmd records the kernel's own events of the same run on the
# monotonic clock (-C mono, the module's clock); rtmon-replay then runs
# the recorded .dat through the same core, and the two record streams
# must be the same chains:
# - cyclictest (SCHED_FIFO 80, 1 ms): timer chains ending at the switch-in;
# - dispatch_test: IRQ (virtio, 9p) -> IRQ thread -> feeder -> dispatcher
#   (work_begin) -> worker (work_end), marker-ended: the markers reach the
#   recording through rtmon's own rtmon:rtmon_work tracepoint;
# - then GPIO edges on the simulated chip (gpio-sim IRQ -> IRQ thread ->
#   rtmon-gpio-respond, marker-ended), 300 edges at random periods: the
#   IRQ thread and the task toggling the line share the chip's lock, a
#   spinlock_t (an rtlock on PREEMPT_RT, seen by the recording as D): the
#   lock events are recorded (lock:contention_begin/end) so the replay
#   follows those waits as the module does (the lock waits it followed
#   are printed).
# Records are joined by target, task and start (the module's record and
# the replay's of one chain start at the same event: a timer's programmed
# soft expiry, to the nanosecond, or an IRQ's entry, read by the module's
# probe and by the tracer's on the same tracepoint, so a few us apart).
# Overdue reports are counted apart (they depend on when each side's tick
# ran). Asserts, per target: the completed chains joined one to one
# (>= 98% of both sides; 95% for dispatch_test, below), the same hops
# (event, pid, cpu) for >= 98% of the joined, timer starts equal, and the
# latencies:
# - on a plain boot, within 100 us for 95%: the tracer's probe and rtmon's
#   read the clock at different instructions of one tracepoint (rtmon's
#   after the tracer's: rtmon_probes.c), and under emulation a vCPU may
#   stall for tens of us between them;
# - under instruction counting (run-vm --icount, replay-module-icount.sh:
#   the guest's clock is its instruction count, one vCPU), within 1 us for
#   >= 99% of the joined chains of every target: what is left between the
#   two clock reads is the tracer's own work, the same at a chain's start
#   and at its end (an interrupt taken between the marker's trace event and
#   rtmon's clock read, preemption off but interrupts on, is the 1%; one
#   chain a target is always allowed: seen in 1 of 60 dispatch chains);
#   there also the blame (record.blame) of the chains with the same hops:
#   each category within 1 us and the same first culprit (two culprits
#   within 1 us of each other: a tie, either order), as often.
# Prints the agreement table and the replay's counts of lock waits and of
# wakeups of a task on its way to sleep.
# timeout: 400
# shellcheck shell=bash source-path=SCRIPTDIR
# shellcheck source=lib.sh disable=SC2153 # RTMON_TOP: set by run-vm
. "$RTMON_TOP/tests/vm/guest/lib.sh"
. "$RTMON_TOP/tests/vm/guest/gpio-lib.sh"

REPLAY=$RTMON_TOP/build/core/rtmon-replay
[ -x "$REPLAY" ] || fail "rtmon-replay not built (make -C monitor/replay)"
command -v trace-cmd >/dev/null || fail "trace-cmd not installed"
command -v cyclictest >/dev/null || fail "cyclictest (rt-tests) not installed"
"$REPLAY" --help >/dev/null 2>&1 || fail "rtmon-replay does not run here: $("$REPLAY" --help 2>&1 | tail -n 2)"

loops=${LOOPS:-300}
items=${ITEMS:-60}
edges=${EDGES:-200}
rtmon_load
gpio_sim_up
$RTMONCTL targets add --name ct --comm cyclictest --timer --end switch_in --deadline 10ms >/dev/null
$RTMONCTL targets add --name dispatch --comm dispatch_test --end work_end --deadline 5ms >/dev/null
echo "some data for the feeder" >/rtmon-share/feed

# everything the run writes stays in the guest's memory (gpio-lib's $W,
# copied to the share at the end): writes to the 9p share raise the very
# interrupt dispatch_test waits on
$RTMONCTL status --json >$W/c0.json
$RTMONCTL records --json -t 8 >$W/module.json &
reader=$!
gpio_pids+=("$reader")
trace-cmd start -C mono -b 4096 \
	-e sched:sched_switch -e sched:sched_waking -e irq \
	-e timer:hrtimer_start -e timer:hrtimer_expire_entry \
	-e timer:hrtimer_expire_exit -e rtmon:rtmon_work \
	-e lock:contention_begin -e lock:contention_end >$W/record.out 2>&1 ||
	fail "trace-cmd start failed: $(tail -n 5 $W/record.out)"
note "recording ($(date +%T))"
cpu1=$(($(nproc) - 1))
cyclictest -q -m -p 80 -a $cpu1 -t 1 -i 1000 -l "$loops" >$W/ct.out 2>&1 &
ct=$!
"$APPS/dispatch_test" -f /rtmon-share/feed -n "$items" -p 4000 -w 50 -s 10 -S 8000 \
	>$W/items.json 2>$W/dispatch.err || fail "dispatch_test failed: $(tail -n 3 $W/dispatch.err)"
wait $ct || fail "cyclictest failed: $(tail -n 3 $W/ct.out)"

note "cyclictest and dispatch_test done ($(date +%T))"
respond_start resp --count "$edges" --work-us 50 --prio 40 --cpu $cpu1
irq=$(awk '/rtmon-respond/ { sub(":", "", $1); print $1; exit }' /proc/interrupts)
[ -n "$irq" ] || fail "no rtmon-respond line in /proc/interrupts"
$RTMONCTL targets add --name gpio --comm rtmon-gpio-resp --irq "$irq" --end work_end \
	--deadline 5ms >/dev/null
rc=0
"$LOOP" --board "$BOARD_FILE" --count "$edges" --random 1000:4000 --seed 11 \
	--deadline-us 5000 --prio 70 --cpu 0 "${BOUND[@]}" --ready "$W/resp.ready" \
	--log "$W/resp.jsonl" --json >"$W/loop.json" 2>"$W/loop.err" || rc=$?
# (a failed driver leaves the responder waiting for edges: fail first)
[ $rc -eq 0 ] || fail "rtmon-gpio-loop failed: $(tail -n 3 "$W/loop.err")"
respond_wait
trace-cmd stop
note "gpio edges done, recording stopped ($(date +%T))"
wait $reader || fail "the record reader failed"
trace-cmd extract -o $W/run.dat >>$W/record.out 2>&1 || fail "trace-cmd extract failed: $(tail -n 3 $W/record.out)"
trace-cmd reset >/dev/null 2>&1 || true
$RTMONCTL status --json >$W/c1.json
note "extracted $(stat -c %s $W/run.dat) bytes ($(date +%T)); replaying"
"$REPLAY" --json --target name=cyclictest,source=timer,end=switch_in,deadline=10ms \
	--target name=dispatch_test,end=work_end,deadline=5ms \
	--target name=rtmon-gpio-resp,source=irq:"$irq",end=work_end,deadline=5ms \
	$W/run.dat >$W/replay.json 2>$W/replay.err ||
	fail "rtmon-replay failed on the recording: $(tail -n 3 $W/replay.err)"
while read -r l; do note "$l"; done <$W/replay.err
note "run.dat: $(stat -c %s $W/run.dat) bytes; gpio irq $irq"

note "replayed ($(date +%T))"
python3 - "$W" "$loops" "${REPLAY_EXACT:-}" <<'PY' || fail "replay and module disagree (above)"
import json, sys, statistics
W, loops, exact = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
print("latencies compared " + ("under instruction counting: within 1 us for >= 99% (one chain a target allowed)" if exact
      else "on a plain boot: within 100 us for 95%"))
mod = [json.loads(l) for l in open(W + "/module.json")]
rep = [json.loads(l) for l in open(W + "/replay.json")]
counters = [r for r in rep if r.get("type") == "counters"]
rep = [r for r in rep if r.get("type") == "record"]
if not rep:
    sys.exit("the replay gave no record")
# the module's target ids (in the order added) are the replay's --target order
names = {0: "cyclictest", 1: "dispatch", 2: "gpio"}
lo = min(r["start_ns"] for r in rep)
hi = max(r["end_ns"] for r in rep)
hops = lambda r: [(h["event"], h["pid"], h["cpu"]) for h in r["hops"]]
ok = True
table = []
CATS = ("source", "handler", "softirq", "runnable", "running", "preempted", "blocked", "unknown", "queued",
        "irq_interference", "softirq_interference")
def same_culprit(r, q):
    """the same first culprit; two culprits within 1 us of each other (the
    two clocks' tolerance) are a tie either side may order its own way
    (mainline under -icount: 5667/5653 ns in the module, 5610/5612 replayed)"""
    a, b = r["blame"]["culprits"], q["blame"]["culprits"]
    if not a or not b:
        return not a and not b
    if a[0]["pid"] == b[0]["pid"]:
        return True
    na = {c["pid"]: c["ns"] for c in a}
    nb = {c["pid"]: c["ns"] for c in b}
    return (b[0]["pid"] in na and a[0]["ns"] - na[b[0]["pid"]] <= 1000 and
            a[0]["pid"] in nb and b[0]["ns"] - nb[a[0]["pid"]] <= 1000)
blame_close = lambda r, q: same_culprit(r, q) and all(
    abs(r["blame"][k] - q["blame"][k]) <= 1000 for k in CATS)
for tid, name in names.items():
    # overdue reports (a chain still open at a tick past max_age) depend on
    # when each side's tick ran: the module's real one, the replay's
    # synthesized one; counted apart, the completed chains compared
    tmo = lambda r: "timeout" in r["flags"]
    m = sorted((r for r in mod if r["target"] == tid and not tmo(r)), key=lambda r: r["start_ns"])
    p = sorted((r for r in rep if r["target"] == tid and not tmo(r)), key=lambda r: r["start_ns"])
    overdue = (sum(1 for r in mod if r["target"] == tid and tmo(r)),
               sum(1 for r in rep if r["target"] == tid and tmo(r)))
    # the module's chains inside the recording (it starts before and stops
    # after the workload, the module's reader ran throughout)
    m_in = [r for r in m if lo - 1000000 <= r["start_ns"] and r["end_ns"] <= hi + 1000000]
    used, pairs, lone_m = set(), [], []
    for r in m_in:
        best = None
        for i, q in enumerate(p):
            if i in used or q["pid"] != r["pid"]:
                continue
            d = abs(q["start_ns"] - r["start_ns"])
            if d <= 200000 and (best is None or d < best[0]):
                best = (d, i)
        if best is None:
            lone_m.append(r)
            continue
        used.add(best[1])
        pairs.append((r, p[best[1]]))
    lone_p = [q for i, q in enumerate(p) if i not in used]
    if not pairs:
        print(f"{name}: module {len(m_in)}, replay {len(p)}, none joined")
        ok = False
        continue
    same = [(r, q) for r, q in pairs if hops(r) == hops(q)]
    dl = sorted(q["latency_ns"] - r["latency_ns"] for r, q in pairs)
    adl = sorted(abs(d) for d in dl)
    ds = sorted(abs(q["start_ns"] - r["start_ns"]) for r, q in pairs)
    within1 = sum(1 for d in adl if d <= 1000)
    # the blame of the chains with the same hops: each category within
    # 1 us and the same first culprit (the same core on the same events)
    bsame = sum(1 for r, q in same if blame_close(r, q))
    p95 = adl[int(len(adl) * 0.95)]
    table.append((name, len(m_in), len(p), len(pairs), len(same), ds[len(ds) // 2], ds[-1],
                  statistics.median(dl), p95, adl[-1], within1, overdue, bsame))
    for r, q in [(r, q) for r, q in same if not blame_close(r, q)][:2]:
        print(f"  {name}: blame differs: module {r['blame']} replay {q['blame']}")
    if exact and len(same) - bsame > max(1, len(same) // 100):
        print(f"  {name}: {len(same) - bsame} of {len(same)} blames differ")
        ok = False
    for r in lone_m[:2]:
        print(f"  {name}: module only: start {r['start_ns']} lat {r['latency_ns']} flags {r['flags']} hops {[h['event'] for h in r['hops']]}")
    for q in lone_p[:2]:
        print(f"  {name}: replay only: start {q['start_ns']} lat {q['latency_ns']} flags {q['flags']} hops {[h['event'] for h in q['hops']]}")
    for r, q in [(r, q) for r, q in pairs if hops(r) != hops(q)][:2]:
        print(f"  {name}: hops differ: module {hops(r)} replay {hops(q)}")
    if name == "cyclictest" and any(r["start_ns"] != q["start_ns"] for r, q in pairs):
        print("  cyclictest: a timer chain starts elsewhere in the replay")
        ok = False
    # dispatch_test's chains: 95% (the module loses one now and then on
    # 6.12-rt, 58 of 60 joined in 2 of 5 make check runs; the replay lost
    # up to 4 of 60 on 6.1 mainline, a feeder woken on its way to sleep
    # (8f8d02b), and on PREEMPT_RT the IRQs that found their thread awake
    # (a rerun, no waking traced: now inferred), all 60 of 60 now)
    need = (0.95 if name == "dispatch" else 0.98) * max(len(m_in), len(p))
    if len(pairs) < need or len(same) < 0.98 * len(pairs) or p95 > 100000:
        ok = False
    # an interrupt taken between the marker's trace event and rtmon's
    # clock read: seen once in 60 dispatch chains, once in 200 GPIO ones
    if exact and len(pairs) - within1 > max(1, len(pairs) // 100):
        print(f"  {name}: {len(pairs) - within1} of {len(pairs)} latencies more than 1 us apart")
        ok = False
    if name == "cyclictest" and len(pairs) < 0.9 * loops:
        print("  too few cyclictest chains joined")
        ok = False
print(f"{'target':<11}{'module':>7}{'replay':>7}{'joined':>7}{'same hops':>10}{'start diff med/max ns':>23}"
      f"{'latency diff (replay-module) med / |p95| / |max| ns':>52}{'within 1 us':>12}{'overdue m/r':>12}"
      f"{'same blame':>11}")
for t in table:
    print(f"{t[0]:<11}{t[1]:>7}{t[2]:>7}{t[3]:>7}{t[4]:>10}{t[5]:>12.0f} /{t[6]:>9}{t[7]:>26.0f} /{t[8]:>10} /{t[9]:>10}{t[10]:>12}"
          f"{t[11][0]:>6}/{t[11][1]}{t[12]:>11}")
print("module counters: " + ", ".join(f"{k} {v}" for k, v in sorted(json.load(open(W + "/c1.json")).get("counters", {}).items())
      if isinstance(v, int) and v)[:500])
# IRQs that found their thread awake (no waking traced): the module sees
# the thread's state, the replay infers it from the trace
drops = lambda f: json.load(open(W + f))["counters"]["drops"]
d0, d1 = drops("/c0.json"), drops("/c1.json")
rc = counters[-1] if counters else {}
print(f"irq threads found awake (rerun / coalesced): module {d1['irq_rerun'] - d0['irq_rerun']} / "
      f"{d1['irq_coalesced'] - d0['irq_coalesced']}, replay {rc.get('irq_rerun')} / {rc.get('irq_coalesced')}")
sys.exit(0 if ok else 1)
PY
echo "replay-module: ok"

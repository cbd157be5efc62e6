# rtmon against the kernel's own timer latency tool (issue 14). The
# timerlat tracer (kernel/trace/trace_osnoise.c) arms a per-cpu hard
# hrtimer (timerlat_irq) at abs_period; the callback wakes the timerlat/N
# kernel thread, which reads the hrtimer's clock (CLOCK_MONOTONIC) and
# traces "#SEQ context thread timer_latency L ns" with L = that read -
# abs_period, then sleeps until the next period. rtmon follows the thread
# with a timerlat target: its chain starts at the same programmed expiry
# and ends at the thread's switch-in, before the thread's clock read.
# 1. The tracer through tracefs (trace_clock mono, so trace timestamps are
#    rtmon's clock): every thread activation joined to exactly one record
#    (its start = the trace line's time - L, within the time between the
#    thread's clock read and the trace write, timestamps printed in us),
#    rtmon's latency <= timerlat's for each, the gap small, and per cpu
#    the maxima agree within the worst activation's gap; a table per cpu.
# 2. rtla timerlat hist (Debian's rtla) while rtmon follows its threads:
#    per cpu, rtla's count of thread samples = rtmon's records (within 2%:
#    the edges of the run), rtmon's max <= rtla's, and the difference
#    within twice the worst gap of part 1 (different activations).
# 3. Without a target of timerlat's kind, a timerlat run starts no chain.
# timeout: 240
. "$RTMON_TOP/tests/vm/guest/lib.sh"

TR=/sys/kernel/tracing
period_us=5000
grep -qw timerlat $TR/available_tracers ||
	fail "this kernel has no timerlat tracer (CONFIG_TIMERLAT_TRACER): leave the board out in suite.list"
ncpu=$(nproc)
rtmon_load

# timerlat_run SECONDS OUT: the tracer in the top-level instance
timerlat_run() {
	echo 0 >$TR/tracing_on
	echo nop >$TR/current_tracer
	echo mono >$TR/trace_clock
	echo $period_us >$TR/osnoise/timerlat_period_us
	echo 0 >$TR/osnoise/stop_tracing_us
	echo 0 >$TR/osnoise/stop_tracing_total_us
	echo 2048 >$TR/buffer_size_kb
	echo >$TR/trace
	echo timerlat >$TR/current_tracer
	echo 1 >$TR/tracing_on
	sleep "$1"
	echo 0 >$TR/tracing_on
	cat $TR/trace >"$2"
	echo nop >$TR/current_tracer
	echo local >$TR/trace_clock
}

# ---- 3: no timerlat target, no chain (a target of the thread for the other
# lazy kinds; sleepers' chains start at every sleeper's expiry, the sleep's)
$RTMONCTL targets add --name tl-other --comm timerlat/0 --timer=timerfd,posix,other >/dev/null
before=$(status_count "  chains started" started)
timerlat_run 1 "$T/none.txt"
after=$(status_count "  chains started" started)
n=$(grep -c 'context thread' "$T/none.txt" || true)
note "timerlat without a timerlat target: $n thread activations, chains started $before -> $after"
[ "$n" -gt 0 ] || fail "no timerlat activation traced: $(tail -n 3 "$T/none.txt")"
[ "$after" = "$before" ] || fail "chains started without a target of timerlat's kind: $before -> $after"
$RTMONCTL targets del 0

# ---- 1: per activation, through tracefs
for c in $(seq 0 $((ncpu - 1))); do
	$RTMONCTL targets add --name "tlat$c" --comm "timerlat/$c" --timer=timerlat \
		--end switch_in >/dev/null
done
$RTMONCTL targets list
$RTMONCTL records --json -t 3 >"$T/recs.json" &
reader=$!
timerlat_run 3 "$T/trace.txt"
wait $reader || fail "the record reader failed"
python3 - "$period_us" >"$T/part1.txt" <<'PY' || { cat "$T/part1.txt"; fail "rtmon and the timerlat tracer disagree"; }
import json, os, re, statistics, sys
T = os.environ["T"]
period = int(sys.argv[1]) * 1000
samples = {}
for m in re.finditer(r"\[(\d+)\][^\n]*?\s(\d+)\.(\d{6}): #(\d+)\s+context\s+thread\s+timer_latency\s+(\d+) ns",
                     open(T + "/trace.txt").read()):
    cpu = int(m.group(1))
    t = int(m.group(2)) * 10**9 + int(m.group(3)) * 1000
    samples.setdefault(cpu, []).append((t, int(m.group(4)), int(m.group(5))))
recs = [json.loads(l) for l in open(T + "/recs.json")]
by_cpu = {}
for r in recs:
    m = re.fullmatch(r"timerlat/(\d+)", r["comm"])
    assert m, f"a record of another task: {r['comm']}"
    assert r["kind"] == "timer" and r.get("timer") == "timerlat", f"not a timerlat chain: {r}"
    assert r["source"] == r["pid"], f"source is not the woken thread: {r}"
    assert r["hops"][-1]["event"] in ("switch_in", "waking"), f"ends at {r['hops'][-1]['event']}"
    by_cpu.setdefault(int(m.group(1)), []).append(r)
bad = []
rows, all_gaps = [], []
for cpu in sorted(samples):
    ss, rs = samples[cpu], sorted(by_cpu.get(cpu, []), key=lambda r: r["start_ns"])
    starts = [r["start_ns"] for r in rs]
    used, pairs, deltas = set(), [], []
    import bisect
    for t, seq, lat in ss:
        exp = t - lat
        i = bisect.bisect_left(starts, exp)
        best = min((j for j in (i - 1, i) if 0 <= j < len(rs)),
                   key=lambda j: abs(starts[j] - exp), default=None)
        if best is None or abs(starts[best] - exp) > period // 4:
            bad.append(f"cpu {cpu}: activation #{seq} (expiry ~{exp}, {lat} ns) has no record")
            continue
        if best in used:
            bad.append(f"cpu {cpu}: record {rs[best]['seq']} joined twice")
        used.add(best)
        pairs.append((seq, lat, rs[best]["latency_ns"]))
        deltas.append(exp - starts[best])
    # records outside the traced span: activations before tracing_on or after
    inside = [j for j, s in enumerate(starts) if ss[0][0] - ss[0][2] - period // 2 <= s <= ss[-1][0]]
    strays = [j for j in inside if j not in used]
    if strays:
        bad.append(f"cpu {cpu}: {len(strays)} records inside the trace joined to no activation")
    over = [p for p in pairs if p[2] > p[1]]
    if over:
        bad.append(f"cpu {cpu}: rtmon > timerlat for {len(over)} activations, e.g. {over[:3]}")
    # the trace's time is taken after the thread's clock read, printed in us
    early = [d for d in deltas if d < -1000]
    if early:
        bad.append(f"cpu {cpu}: {len(early)} records start after timerlat's expiry, e.g. {early[:3]} ns")
    gaps = sorted(lat - rl for s, lat, rl in pairs)
    all_gaps += gaps
    tmax = max(lat for s, lat, rl in pairs)
    rmax = max(rl for s, lat, rl in pairs)
    worst = max(pairs, key=lambda p: p[1])
    if not 0 <= tmax - rmax <= worst[1] - worst[2]:
        bad.append(f"cpu {cpu}: maxima differ by {tmax - rmax} ns, more than the worst activation's gap")
    if statistics.median(gaps) > 200000:
        bad.append(f"cpu {cpu}: median gap {statistics.median(gaps)} ns")
    rows.append((cpu, len(ss), len(pairs), tmax, rmax, statistics.median(gaps), gaps[-1],
                 statistics.median(deltas), pairs[:6]))
print(f"{'cpu':>3} {'activations':>11} {'joined':>6} {'timerlat max':>12} {'rtmon max':>10} "
      f"{'gap med':>8} {'gap max':>8} {'trace-start':>11}  (ns)")
for cpu, n, j, tmax, rmax, gmed, gmax, dmed, first in rows:
    print(f"{cpu:>3} {n:>11} {j:>6} {tmax:>12} {rmax:>10} {gmed:>8.0f} {gmax:>8} {dmed:>11.0f}")
for cpu, n, j, tmax, rmax, gmed, gmax, dmed, first in rows:
    print(f"cpu {cpu} first activations (#seq timerlat rtmon): " +
          ", ".join(f"#{s} {l} {r}" for s, l, r in first))
print(f"gapmax {max(all_gaps)}")
for b in bad[:20]:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
cat "$T/part1.txt"
gapmax=$(sed -n 's/^gapmax //p' "$T/part1.txt")

# ---- 2: rtla timerlat hist, the same targets
if ! command -v rtla >/dev/null; then
	fail "rtla is not installed (scripts/deps.sh installs it)"
fi
note "$(rtla timerlat hist --help 2>&1 | head -n 1) on $(uname -r)"
$RTMONCTL records --json -t 3 >"$T/rtla-recs.json" &
reader=$!
rtla timerlat hist -d 5 -p $period_us -n --no-irq >"$T/rtla.txt" 2>&1 ||
	fail "rtla timerlat hist failed: $(tail -n 5 "$T/rtla.txt")"
wait $reader || fail "the record reader failed"
python3 - "$gapmax" <<'PY' || fail "rtmon and rtla timerlat disagree"
import json, os, re, sys
T = os.environ["T"]
gapmax = int(sys.argv[1])
txt = open(T + "/rtla.txt").read()
print("rtla timerlat hist -d 5 -p 5000 -n --no-irq (its summary):")
print("\n".join(l for l in txt.splitlines() if re.match(r"(count|min|avg|max|over|Index|#)", l)))
head = next(l for l in txt.splitlines() if "Thr-" in l).split()
cols = [int(h.split("-")[1]) for h in head if h.startswith("Thr-")]
row = {}
for l in txt.splitlines():
    m = re.match(r"(count|max):\s+(.*)", l)
    if m:
        row[m.group(1)] = [int(v) for v in m.group(2).split()]
recs = [json.loads(l) for l in open(T + "/rtla-recs.json")]
bad = []
print(f"{'cpu':>3} {'rtla count':>10} {'rtmon recs':>10} {'rtla max':>10} {'rtmon max':>10} {'diff':>8}  (ns)")
for i, cpu in enumerate(cols):
    mine = [r["latency_ns"] for r in recs if r["comm"] == f"timerlat/{cpu}" and r.get("timer") == "timerlat"]
    n, mx = row["count"][i], row["max"][i]
    rmax = max(mine) if mine else 0
    print(f"{cpu:>3} {n:>10} {len(mine):>10} {mx:>10} {rmax:>10} {mx - rmax:>8}")
    if abs(len(mine) - n) > max(2, n // 50):
        bad.append(f"cpu {cpu}: rtla counted {n} thread samples, rtmon has {len(mine)} records")
    if rmax > mx:
        bad.append(f"cpu {cpu}: rtmon's max {rmax} above rtla's {mx}")
    elif mx - rmax > 2 * gapmax:
        bad.append(f"cpu {cpu}: maxima differ by {mx - rmax} ns, more than twice part 1's worst gap {gapmax}")
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
sed -n '/^counters/,/^probes/p' /proc/rtmon/status | head -6
echo "chain-timerlat: ok"

# rtmon against the kernel's own timer latency tool (issue 14).
#
# What timerlat measures (kernel/trace/trace_osnoise.c, the same in 6.1 and
# 6.12 for the kernel threads): timerlat/N, a SCHED_FIFO 95 kernel thread
# bound to cpu N, arms a per-cpu hard hrtimer on CLOCK_MONOTONIC
# (HRTIMER_MODE_ABS_PINNED_HARD) at abs_period, the previous one plus
# timerlat_period_us (periods already past are skipped), and sleeps. The
# callback timerlat_irq reads the timer's clock (hrtimer_cb_get_time:
# ktime_get), traces "#SEQ context irq timer_latency now-abs_period ns" and
# wakes the thread; back from schedule() the thread reads the clock again
# and traces "#SEQ context thread timer_latency L ns", L = now - abs_period,
# before it sleeps until the next period. Each sample goes to every trace
# instance with the timerlat tracer (several may run at once and share the
# threads), stamped by the instance's trace clock when written.
# rtmon follows the threads with timerlat targets: a chain starts at the
# same programmed expiry (abs_period) and ends at the thread's switch-in,
# before its clock read; timerlat's L - rtmon's latency is the time from the
# switch-in to that read (the clock-read gap: tens of us here, but under
# emulation some activations get milliseconds of it, likely because
# single-threaded TCG runs the vCPUs in turn: one stands still while the
# other runs, and the guest clock goes on).
# 1. The tracer through tracefs (trace_clock mono: trace times are rtmon's
#    clock, printed in us): every thread activation joined to exactly one
#    record, the one starting at the latest expiry before the activation's
#    bound, min(thread sample's time - L, irq sample's time - its latency)
#    + 1 us (a sample is written after its clock read; the thread's write
#    can come milliseconds later, the irq's comes right after), and less
#    than a period before it; no record inside the traced span left over;
#    rtmon <= timerlat for each, the median gap small, per cpu the maxima
#    within the worst activation's gap; a table.
# 2. rtla timerlat hist (Debian 12's rtla 6.1) while rtmon follows its
#    threads and the top-level instance traces the same activations: rtla's
#    window is taken from its instance's tracing_on (polled, times on
#    CLOCK_MONOTONIC). Every activation joined as in 1; per cpu rtla's count
#    of thread samples lies between the activations certainly and possibly
#    in its window; rtla's max is a traced activation's L (the same samples)
#    and no activation certainly in its window is above it; rtmon's max over
#    rtla's activations is <= rtla's max, the difference within the clock-read
#    gap of rtla's worst activation (its own, not another run's).
# 3. Without a target of timerlat's kind, a timerlat run starts no chain.
# timeout: 240
. "$RTMON_TOP/tests/vm/guest/lib.sh"

TR=/sys/kernel/tracing
period_us=5000
grep -qw timerlat $TR/available_tracers ||
	fail "this kernel has no timerlat tracer (CONFIG_TIMERLAT_TRACER): leave the board out in suite.list"
# rings of 8192 records per cpu, not 1024: under a loaded host the guest
# stalls for seconds and this test's reader (rtmonctl, JSON per record)
# fell behind: records lost from a full ring (counted), activations without
# a record (6.12-rt: ring_full 1047 and 5494 in two runs beside other guests)
rtmon_load ring_slots=8192
# a failure leaves nothing running: the reader holds the module
stop_all() {
	local j
	for j in $(jobs -p); do kill "$j" 2>/dev/null || true; done
	wait 2>/dev/null || true
	echo 0 >$TR/tracing_on 2>/dev/null || true
	echo nop >$TR/current_tracer 2>/dev/null || true
	rtmon_cleanup
}
trap stop_all EXIT

# timerlat_start / timerlat_stop OUT: the tracer in the top-level instance
timerlat_start() {
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
}
timerlat_stop() {
	echo 0 >$TR/tracing_on
	cat $TR/trace >"$1"
	echo nop >$TR/current_tracer
	echo local >$TR/trace_clock
}

# the join of the trace with rtmon's records, used by parts 1 and 2
cat >"$T/tl.py" <<'PY'
import bisect, json, re, statistics, sys

def trace(path):
    """{cpu: [(trace time ns, seq, thread latency ns, expiry bound ns, next ns)]}
    of the thread samples. A sample's trace time comes after its clock read
    (under emulation up to milliseconds for the thread, writing to two
    instances), so time - latency is an upper bound on the expiry, to the us
    the times are printed in; the irq sample of the same activation (same
    seq) gives a tighter one, written from the timer's callback. next: the
    time of the cpu's next sample, before which the thread has written this
    one to every instance."""
    irq, thr, times = {}, {}, {}
    for m in re.finditer(r"\[(\d+)\][^\n]*?\s(\d+)\.(\d{6}): #(\d+)\s+context\s+(thread|irq)\s+timer_latency\s+(\d+) ns",
                         open(path).read()):
        cpu, seq, lat = int(m.group(1)), int(m.group(4)), int(m.group(6))
        t = int(m.group(2)) * 10**9 + int(m.group(3)) * 1000
        times.setdefault(cpu, []).append(t)
        if m.group(5) == "irq":
            irq[(cpu, seq)] = t - lat
        else:
            thr.setdefault(cpu, []).append((t, seq, lat))
    out = {}
    for cpu, ss in thr.items():
        ts = sorted(times[cpu])
        out[cpu] = []
        for t, seq, lat in ss:
            k = bisect.bisect_right(ts, t)
            nxt = ts[k] + 1000 if k < len(ts) else float("inf")
            out[cpu].append((t, seq, lat, min(t - lat, irq.get((cpu, seq), t - lat)) + 1000, nxt))
    return out

def records(path, bad):
    by_cpu = {}
    for l in open(path):
        r = json.loads(l)
        m = re.fullmatch(r"timerlat/(\d+)", r["comm"])
        if not m:
            bad.append(f"a record of another task: {r['comm']}")
            continue
        if r["kind"] != "timer" or r.get("timer") != "timerlat":
            bad.append(f"not a timerlat chain: {r}")
        if r["source"] != r["pid"]:
            bad.append(f"source is not the woken thread: {r}")
        if r["hops"][-1]["event"] not in ("switch_in", "waking"):
            bad.append(f"record {r['seq']} ends at {r['hops'][-1]['event']}")
        by_cpu.setdefault(int(m.group(1)), []).append(r)
    # the stream's sequence numbers: a gap is records lost (a full ring)
    seqs = sorted(r["seq"] for rs in by_cpu.values() for r in rs)
    gaps = [(a, b) for a, b in zip(seqs, seqs[1:]) if b != a + 1]
    if gaps:
        print(f"{path}: {len(gaps)} gaps in the record sequence (records lost): {gaps[:5]}")
    return by_cpu

def join(samples, by_cpu, period, bad):
    """{cpu: [(t, seq, timerlat L, rtmon latency, bound - record start, next)]}:
    every thread activation to exactly one record, the one starting at the
    latest expiry before the sample's bound, less than a period before it
    (the thread's expiries are a period apart or more: one fits)"""
    out = {}
    for cpu in sorted(samples):
        ss = samples[cpu]
        rs = sorted(by_cpu.get(cpu, []), key=lambda r: r["start_ns"])
        starts = [r["start_ns"] for r in rs]
        used, pairs = set(), []
        for t, seq, lat, bound, nxt in ss:
            j = bisect.bisect_right(starts, bound) - 1
            if j < 0 or bound - starts[j] >= period:
                bad.append(f"cpu {cpu}: activation #{seq} (expiry before {bound}, {lat} ns) has no record")
                continue
            if j in used:
                bad.append(f"cpu {cpu}: record {rs[j]['seq']} joined twice")
            used.add(j)
            pairs.append((t, seq, lat, rs[j]["latency_ns"], bound - starts[j], nxt))
        # records outside the traced span: activations before tracing_on or after
        inside = [j for j, s in enumerate(starts) if ss[0][3] - period <= s <= ss[-1][0]]
        strays = [j for j in inside if j not in used]
        if strays:
            bad.append(f"cpu {cpu}: {len(strays)} records inside the trace joined to no activation, "
                       f"starting at {[starts[j] for j in strays[:3]]}")
        over = [p[1:4] for p in pairs if p[3] > p[2]]
        if over:
            bad.append(f"cpu {cpu}: rtmon > timerlat for {len(over)} activations, (#seq, timerlat, rtmon) {over[:3]}")
        if pairs and statistics.median(p[2] - p[3] for p in pairs) > 200000:
            bad.append(f"cpu {cpu}: median clock-read gap {statistics.median(p[2] - p[3] for p in pairs)} ns: "
                       "rtmon misses part of the latency")
        out[cpu] = pairs
    return out

def part1(period, bad):
    samples = trace(T + "/trace.txt")
    if not samples:
        bad.append("no thread activation in the trace")
    joined = join(samples, records(T + "/recs.json", bad), period, bad)
    print("part 1: the timerlat tracer through tracefs, per activation")
    print(f"{'cpu':>3} {'activations':>11} {'joined':>6} {'timerlat max':>12} {'rtmon max':>10} "
          f"{'gap med':>8} {'gap max':>8} {'worst gap':>9} {'bound-start':>11}  (ns)")
    for cpu, pairs in joined.items():
        if not pairs:
            continue
        gaps = sorted(p[2] - p[3] for p in pairs)
        tmax = max(p[2] for p in pairs)
        rmax = max(p[3] for p in pairs)
        worst = max(pairs, key=lambda p: p[2])
        wgap = worst[2] - worst[3]
        print(f"{cpu:>3} {len(samples[cpu]):>11} {len(pairs):>6} {tmax:>12} {rmax:>10} "
              f"{statistics.median(gaps):>8.0f} {gaps[-1]:>8} {wgap:>9} {statistics.median(p[4] for p in pairs):>11.0f}")
        if not 0 <= tmax - rmax <= wgap:
            bad.append(f"cpu {cpu}: maxima differ by {tmax - rmax} ns, more than the worst activation's gap {wgap}")
    for cpu, pairs in joined.items():
        print(f"cpu {cpu} first activations (#seq timerlat rtmon): " +
              ", ".join(f"#{p[1]} {p[2]} {p[3]}" for p in pairs[:8]))

def part2(period, bad):
    samples = trace(T + "/rtla-trace.txt")
    if not samples:
        bad.append("no thread activation in the trace")
    joined = join(samples, records(T + "/rtla-recs.json", bad), period, bad)
    on_lo, on_hi, off_lo, off_hi = map(int, open(T + "/rtla-window").read().split())
    txt = open(T + "/rtla.txt").read()
    print("rtla's summary:")
    print("\n".join(l for l in txt.splitlines() if re.match(r"(count|min|avg|max|Index|#)", l)))
    head = next(l for l in txt.splitlines() if "Thr-" in l).split()
    cols = [int(h.split("-")[1]) for h in head if h.startswith("Thr-")]
    row = {}
    for l in txt.splitlines():
        m = re.match(r"(count|max):\s+(.*)", l)
        if m:
            row[m.group(1)] = [int(v) for v in m.group(2).split()]
    print(f"rtla's instance traced from {on_lo / 1e9:.6f}..{on_hi / 1e9:.6f} s to "
          f"{off_lo / 1e9:.6f}..{off_hi / 1e9:.6f} s (CLOCK_MONOTONIC)")
    # activations certainly..possibly in rtla's window, each joined to its record
    print(f"{'cpu':>3} {'rtla count':>10} {'activations (recs)':>18} {'rtla max':>10} "
          f"{'traced max':>10} {'rtmon max':>10} {'diff':>8} {'its gap':>8}  (ns)")
    for i, cpu in enumerate(cols):
        n, R = row["count"][i], row["max"][i]
        pairs = joined.get(cpu, [])
        # rtla's instance got the sample between its time and the next one's
        sure = [p for p in pairs if on_hi <= p[0] and p[5] <= off_lo]
        maybe = [p for p in pairs if on_lo <= p[5] and p[0] <= off_hi]
        worst = [p for p in maybe if p[2] == R]
        above = [p for p in sure if p[2] > R]
        # rtmon's max over the activations rtla counted: those certainly in
        # its window and its worst one
        rmax = max(p[3] for p in sure + worst[:1]) if sure + worst else 0
        gap = worst[0][2] - worst[0][3] if worst else None
        tmax = max((p[2] for p in maybe), default=0)
        print(f"{cpu:>3} {n:>10} {f'{len(sure)}..{len(maybe)}':>18} {R:>10} {tmax:>10} "
              f"{rmax:>10} {R - rmax:>8} {gap if gap is not None else '-':>8}")
        if not len(sure) <= n <= len(maybe):
            bad.append(f"cpu {cpu}: rtla counted {n} thread samples, the trace has "
                       f"{len(sure)}..{len(maybe)} activations in its window (rtmon records for each)")
        if not worst:
            bad.append(f"cpu {cpu}: rtla's max {R} ns is no traced activation's latency in its window")
            continue
        if above:
            bad.append(f"cpu {cpu}: activations certainly in rtla's window above its max {R}: "
                       f"{[p[1:3] for p in above[:3]]}")
        if rmax > R:
            bad.append(f"cpu {cpu}: rtmon's max {rmax} above rtla's {R}")
        elif R - rmax > gap:
            bad.append(f"cpu {cpu}: maxima differ by {R - rmax} ns, more than the clock-read gap {gap} "
                       f"of rtla's worst activation #{worst[0][1]}")
    for cpu, pairs in joined.items():
        big = sorted(pairs, key=lambda p: p[2] - p[3])[-3:]
        d = sorted(p[4] for p in pairs)
        print(f"cpu {cpu}: {len(pairs)} activations joined (expiry bound - record start: median "
              f"{statistics.median(d):.0f} max {d[-1]} ns); largest gaps (#seq timerlat rtmon): " +
              ", ".join(f"#{p[1]} {p[2]} {p[3]}" for p in big))

import os
T = os.environ["T"]
bad = []
{"part1": part1, "part2": part2}[sys.argv[1]](int(sys.argv[2]) * 1000, bad)
for b in bad[:20]:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY

# ---- 3: no timerlat target, no chain (a target of the thread for the other
# lazy kinds; sleepers' chains start at every sleeper's expiry, the sleep's)
$RTMONCTL targets add --name tl-other --comm timerlat/0 --timer=timerfd,posix,other >/dev/null
before=$(status_count "  chains started" started)
timerlat_start
sleep 1
timerlat_stop "$T/none.txt"
after=$(status_count "  chains started" started)
n=$(grep -c 'context thread' "$T/none.txt" || true)
note "part 3: timerlat without a timerlat target: $n thread activations, chains started $before -> $after"
[ "$n" -gt 0 ] || fail "no timerlat activation traced: $(tail -n 3 "$T/none.txt")"
[ "$after" = "$before" ] || fail "chains started without a target of timerlat's kind: $before -> $after"
$RTMONCTL targets del 0

RTMONCTL_RT="chrt -f 20 $RTMONCTL"
# ---- 1: per activation, through tracefs
for c in $(seq 0 $(($(nproc) - 1))); do
	$RTMONCTL targets add --name "tlat$c" --comm "timerlat/$c" --timer=timerlat \
		--end switch_in >/dev/null
done
$RTMONCTL targets list
# the reader above the tracing_on poller (SCHED_FIFO 10) of part 2, as
# rtmond's reader runs: at SCHED_OTHER it was starved there under load
# (records emitted, then lost from a full ring: seq gaps of 3 in 20 cases)
$RTMONCTL_RT records --json -t 3 >"$T/recs.json" &
reader=$!
timerlat_start
sleep 3
timerlat_stop "$T/trace.txt"
wait $reader || fail "the record reader failed"
python3 "$T/tl.py" part1 $period_us ||
	fail "rtmon and the timerlat tracer disagree; $(grep -E '^  (drops|chains)' /proc/rtmon/status | tr -s ' \n' ' ')"

# ---- 2: rtla timerlat hist, with the top-level instance tracing throughout
command -v rtla >/dev/null || fail "rtla is not installed (scripts/deps.sh installs it)"
note "part 2: $(rtla timerlat hist --help 2>&1 | head -n 1) on $(uname -r)"
rm -f "$T/poller-ready" "$T/rtla-window"
$RTMONCTL_RT records --json -t 3 >"$T/rtla-recs.json" &
reader=$!
timerlat_start
# when rtla's instance traces: tracefs makes it tracing, rtla turns it off,
# sets it up (the timerlat tracer among others), turns it on for the run
# and off at the end. The run is the interval with tracing_on 1 and the
# timerlat tracer, polled from before rtla starts (SCHED_FIFO 10, over rtla
# and the reader: a tight bound) until it ends, no longer: an open file of
# the instance makes rtla's rmdir of it fail (EBUSY). Its bounds are the
# CLOCK_MONOTONIC times before the last read without the change and after
# the read that saw it.
chrt -f 10 python3 - "$T/rtla-window" "$T/poller-ready" <<'PY' &
import os, sys, time
d = "/sys/kernel/tracing/instances/timerlat_hist/"
def read(name):
    try:
        return open(d + name).read().strip()
    except OSError:
        return None
def running():
    return read("tracing_on") == "1" and read("current_tracer") == "timerlat"
if os.path.exists(d):
    sys.exit("an instance timerlat_hist exists before rtla runs")
open(sys.argv[2], "w").close()
end = time.monotonic() + 90
def change(want):
    lo = None
    while time.monotonic() < end:
        before = time.monotonic_ns()
        now = running()
        after = time.monotonic_ns()
        if now == want and lo is not None:
            return lo, after
        lo = before
        time.sleep(0.002)
    sys.exit(f"rtla's instance did not {'start' if want else 'stop'} tracing in 90 s")
on = change(True)
time.sleep(4)
off = change(False)
open(sys.argv[1], "w").write(f"{on[0]} {on[1]} {off[0]} {off[1]}\n")
PY
poller=$!
while [ ! -e "$T/poller-ready" ]; do
	kill -0 $poller 2>/dev/null || fail "the tracing_on poller did not start"
	sleep 0.1
done
rtla timerlat hist -d 5 -p $period_us -n --no-irq >"$T/rtla.txt" 2>&1 ||
	fail "rtla timerlat hist failed: $(tail -n 5 "$T/rtla.txt")"
wait $poller || fail "could not tell when rtla's instance traced"
# left behind when its rmdir failed (nothing else has it open now)
if [ -d $TR/instances/timerlat_hist ]; then
	note "rtla left its instance behind (its rmdir failed: EBUSY?); removed"
	rmdir $TR/instances/timerlat_hist || fail "rtla's instance is left behind and busy"
fi
timerlat_stop "$T/rtla-trace.txt"
wait $reader || fail "the record reader failed"
note "rtla timerlat hist -d 5 -p $period_us -n --no-irq"
python3 "$T/tl.py" part2 $period_us ||
	fail "rtmon and rtla timerlat disagree; $(grep -E '^  (drops|chains)' /proc/rtmon/status | tr -s ' \n' ' ')"
sed -n '/^counters/,/^probes/p' /proc/rtmon/status | head -6
echo "chain-timerlat: ok (part 1: the timerlat tracer; part 2: rtla timerlat hist; part 3: no target, no chain)"

# Timer chains for every kind of timer an application paces a loop with
# (issue 14): tests/apps/timer_loop runs a SCHED_FIFO 80 loop on a
# clock_nanosleep (sleeper), timerfd, POSIX timer (SIGEV_SIGNAL and
# SIGEV_THREAD_ID) or setitimer timer and prints each wakeup's latency and
# the expiry it waited for. With a target of that kind only
# (--timer=KIND), every wakeup is joined to exactly one record: a timer
# chain of that kind starting at that expiry (setitimer: its expiry is
# relative, the program's own is early by at most a getitimer call: the
# nearest record after it), ending at the loop thread's switch-in; rtmon's
# latency never exceeds the program's, and the maxima agree within the
# program's clock-read gap. Loops next to an overrun (a wakeup later than
# the period) may lack their record, as in chain-cyclictest. Then the kind
# filter: a target of sleepers only gets no record of a timerfd loop.
# timeout: 300
. "$RTMON_TOP/tests/vm/guest/lib.sh"

loops=${LOOPS:-200}
interval_us=${INTERVAL_US:-5000}
rtmon_load

# run_kind KIND TARGET-KINDS: one run of timer_loop, its records in $T/KIND.json
run_kind() {
	local kind=$1 tk=$2
	$RTMONCTL targets add --name "loop-$kind" --comm timer_loop --timer="$tk" \
		--end switch_in --deadline 10ms >/dev/null
	$RTMONCTL records --json -t 3 >"$T/$kind.json" &
	reader=$!
	"$APPS/timer_loop" -k "$kind" -p 80 -i "$interval_us" -l "$loops" >"$T/$kind.out" 2>&1 ||
		fail "timer_loop -k $kind failed: $(tail -n 3 "$T/$kind.out")"
	wait $reader || fail "the record reader failed"
	$RTMONCTL targets del "$($RTMONCTL targets list --json |
		python3 -c 'import json,sys; print([t["id"] for t in json.load(sys.stdin) if t["name"] == sys.argv[1]][0])' "loop-$kind")"
}

for k in sleeper:sleeper timerfd:timerfd posix-signal:posix posix-thread:posix itimer:posix; do
	note "timer_loop -k ${k%%:*}, target --timer=${k#*:}"
	run_kind "${k%%:*}" "${k#*:}"
done

python3 - "$loops" "$interval_us" <<'PY' || fail "rtmon's timer chains and timer_loop disagree"
import json, os, re, statistics, sys
T = os.environ["T"]
loops, interval = int(sys.argv[1]), int(sys.argv[2]) * 1000
rows, bad = [], []
for kind, tk in (("sleeper", "sleeper"), ("timerfd", "timerfd"), ("posix-signal", "posix"),
                 ("posix-thread", "posix"), ("itimer", "posix")):
    out = open(f"{T}/{kind}.out").read()
    tid = int(re.search(r"^T: 0 \(\s*(\d+)\)", out, re.M).group(1))
    wk = [(int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4) is not None)
          for m in re.finditer(r"^0: (\d+): (\d+) (\d+)( overrun \d+)?$", out, re.M)]
    if len(wk) != loops:
        bad.append(f"{kind}: timer_loop printed {len(wk)} wakeups, expected {loops}")
        continue
    recs = [json.loads(l) for l in open(f"{T}/{kind}.json")]
    mine = sorted((r for r in recs if r["pid"] == tid), key=lambda r: r["start_ns"])
    others = [r for r in recs if r["pid"] != tid]
    for r in mine:
        last = r["hops"][-1]
        if (r["kind"] != "timer" or r.get("timer") != tk or r["source"] != tid or
                not (last["event"] == "switch_in" or (last["event"] == "waking" and last["pid"] == tid)) or
                "timeout" in r["flags"]):
            bad.append(f"{kind}: not a {tk} timer chain of {tid} ending at its switch-in: {r}")
            break
    # loops next to an overrun: the next expiry may pass before the loop waits
    near = set()
    for k, lat, exp, over in wk:
        if lat >= interval // 2 or over:
            near.update((k - 1, k, k + 1, k + 2))
    by_start = {r["start_ns"]: r for r in mine}
    used, pairs, missing, early = set(), [], [], []
    for k, lat, exp, over in wk:
        if kind == "itimer":
            # the program's expiry is early by its setitimer call: the first
            # record starting at or after it, within half a period
            cand = [r for r in mine if 0 <= r["start_ns"] - exp < interval // 2
                    and r["seq"] not in used]
            r = cand[0] if cand else None
        else:
            r = by_start.get(exp)
        if r is None:
            if k not in near:
                missing.append(k)
            continue
        if r["seq"] in used:
            bad.append(f"{kind}: record {r['seq']} joined twice")
        used.add(r["seq"])
        early.append(r["start_ns"] - exp)
        if k not in near:
            pairs.append((lat, r["latency_ns"]))
    strays = [r for r in mine if r["seq"] not in used]
    if missing:
        bad.append(f"{kind}: loops without a record: {missing[:10]}")
    if len(strays) > len(near):
        bad.append(f"{kind}: {len(strays)} records joined to no loop, e.g. {strays[0]['start_ns']}")
    if len(pairs) < loops // 2:
        bad.append(f"{kind}: only {len(pairs)} of {loops} wakeups compared")
        continue
    over = [(p, r) for p, r in pairs if r > p]
    if over:
        bad.append(f"{kind}: {len(over)} wakeups where rtmon > timer_loop, first {over[:3]}")
    # itimer: the program's expiry is early by its getitimer estimate,
    # the same for every loop (one grid): not part of the clock-read gap
    off = min(early) if kind == "itimer" else 0
    if kind == "itimer" and max(early) - off > 2000:
        bad.append(f"{kind}: the program's expiries are not on rtmon's grid: early by {off}..{max(early)} ns")
    if kind == "itimer":
        print(f"itimer: timer_loop's expiry estimate is {off} ns early (its getitimer call)")
    gaps = sorted(p - off - r for p, r in pairs)
    pmax = max(p for p, r in pairs)
    rmax = max(r for p, r in pairs)
    worst = max(range(len(pairs)), key=lambda i: pairs[i][0])
    d = pmax - rmax
    if statistics.median(gaps) >= 200000:
        bad.append(f"{kind}: median gap {statistics.median(gaps)} ns: rtmon misses part of the latency")
    if not 0 <= d - off <= pairs[worst][0] - off - pairs[worst][1]:
        bad.append(f"{kind}: maxima differ by {d} ns, more than the worst wakeup's gap")
    rows.append((kind, len(used), loops, len(near & set(range(loops))), len(others),
                 statistics.median(r for p, r in pairs), rmax, pmax,
                 statistics.median(gaps), gaps[-1]))
print(f"{'kind':13} {'joined':>8} {'near-ovr':>8} {'other':>5} {'rtmon med':>10} {'rtmon max':>10} "
      f"{'prog max':>10} {'gap med':>8} {'gap max':>8}  (ns)")
for k, j, n, nr, o, rmed, rmax, pmax, gmed, gmax in rows:
    print(f"{k:13} {j:>4}/{n:<3} {nr:>8} {o:>5} {rmed:>10.0f} {rmax:>10} {pmax:>10} {gmed:>8.0f} {gmax:>8}")
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY

# the kind filter: a target of sleepers gets nothing from a timerfd loop
$RTMONCTL targets add --name sleepers-only --comm timer_loop --timer=sleeper >/dev/null
$RTMONCTL records --json -t 2 >"$T/filter.json" &
reader=$!
"$APPS/timer_loop" -k timerfd -p 80 -i "$interval_us" -l 50 >"$T/filter.out" 2>&1 ||
	fail "timer_loop -k timerfd failed: $(tail -n 3 "$T/filter.out")"
wait $reader || fail "the record reader failed"
n=$(grep -c '"comm": *"timer_loop"' "$T/filter.json" || true)
note "a sleepers-only target during 50 timerfd wakeups: $n records"
[ "$n" = 0 ] || fail "a target of sleepers only got $n records of a timerfd loop: $(head -c 300 "$T/filter.json")"
sed -n '/^counters/,/^probes/p' /proc/rtmon/status | head -8
echo "chain-timers: ok"

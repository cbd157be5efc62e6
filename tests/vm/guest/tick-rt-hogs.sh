# The housekeeping tick runs while real-time tasks hog every cpu, with RT
# throttling off (sched_rt_runtime_us = -1, as real-time setups often
# run): that is when misses need reporting. cyclictest at FIFO 10 (a
# thread per cpu, 20 ms) is starved by FIFO 40 busy loops on every cpu for
# 2-3 s; each of its threads then has a timer chain open past the target's
# 5 ms deadline. The tick (FIFO 50) must report each as a TIMEOUT record
# within two tick periods of the deadline, while the hogs run; afterwards
# the pools hold no chain (nothing left unreclaimed) and no record is lost.
# make check runs it in the -icount boot (one vCPU): the guest's clock is
# then its instruction count, so the host's load cannot stretch the 25 ms
# bound (beside three other guests on 2 cores, a normal boot measured
# TIMEOUTs at 26.9-134 ms; under -icount 11.9 ms, and 1420.5 ms with the
# SCHED_OTHER kworker tick of before).
# timeout: 120
. "$RTMON_TOP/tests/vm/guest/lib.sh"

TICK_MS=10
DEADLINE_MS=5
rt_runtime=$(cat /proc/sys/kernel/sched_rt_runtime_us)
restore() {
	echo "$rt_runtime" >/proc/sys/kernel/sched_rt_runtime_us || true
	rtmon_cleanup
}
trap restore EXIT

rtmon_load tick_ms=$TICK_MS
ps -eo comm,cls,rtprio | awk '$1 == "rtmon_tick" { print "# tick thread: " $0 }'
ps -eo comm,cls,rtprio | awk '$1 == "rtmon_tick" && $2 == "FF" { ok = 1 } END { exit !ok }' ||
	fail "no SCHED_FIFO rtmon_tick thread: $(ps -eo comm,cls,rtprio | grep -i rtmon || true)"
$RTMONCTL targets add --name ct --comm cyclictest --timer --deadline ${DEADLINE_MS}ms >/dev/null
$RTMONCTL start
echo -1 >/proc/sys/kernel/sched_rt_runtime_us

ncpu=$(nproc)
cyclictest -q -m -a -p 10 -t "$ncpu" -i 20000 -D 4 >$T/ct.txt 2>&1 &
ct=$!
sleep 1
# the hogs end by themselves: nothing below FIFO 40 runs to stop them
hogs=()
for ((c = 0; c < ncpu; c++)); do
	taskset -c $c chrt -f 40 bash -c 'e=$((SECONDS + 2)); while ((SECONDS < e)); do :; done' &
	hogs+=($!)
done
wait "${hogs[@]}"
wait $ct || fail "cyclictest failed: $(tail -n 2 $T/ct.txt)"
echo "$rt_runtime" >/proc/sys/kernel/sched_rt_runtime_us
$RTMONCTL stop
$RTMONCTL records --json -t 1 >$T/records.json || fail "rtmonctl records failed"
grep -E '^tick:|^  chains|^pools:' /proc/rtmon/status | sed 's/^/# /'
emitted=$(status_count "  records emitted" emitted)
python3 - "$T/records.json" "$ncpu" "$DEADLINE_MS" "$TICK_MS" "$emitted" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ncpu, dl_ms, tick_ms, emitted = (int(a) for a in sys.argv[2:6])
tmo = [r for r in recs if "timeout" in r["flags"]]
bound = (dl_ms + 2 * tick_ms) * 1e6
print(f"# {len(recs)} records, {len(tmo)} TIMEOUT; their latencies (ms): "
      + " ".join(f"{r['latency_ns'] / 1e6:.1f}" for r in tmo))
assert len(tmo) >= ncpu, f"{len(tmo)} TIMEOUT records, {ncpu} cyclictest threads starved"
late = [r["latency_ns"] for r in tmo if r["latency_ns"] > bound]
assert not late, f"TIMEOUT reported past {bound / 1e6:.0f} ms (deadline + 2 ticks): {late}"
seqs = sorted(r["seq"] for r in recs)
assert seqs == list(range(1, emitted + 1)), f"records lost: {len(seqs)} read, {emitted} emitted"
PY
# every chain ended: completed, abandoned or expired (none left in the pools)
started=$(status_count "  chains started" started)
ended=$(awk '/^  chains started/ { print $5 + $7 + $9 }' /proc/rtmon/status)
[ "$started" = "$ended" ] || fail "$started chains started, $ended ended"
echo "tick-rt-hogs: ok"

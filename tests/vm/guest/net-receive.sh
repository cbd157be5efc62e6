# Network receive: NIC IRQ -> NAPI (NET_RX softirq; on PREEMPT_RT inside
# the IRQ thread) -> socket wakeup -> the application. The x86 guests have
# a virtio-net NIC whose frames come from the host (tests/vm/net-feed):
# 1000 UDP datagrams at 1 kHz, then 30 bursts of 8 back to back every
# 20 ms. udp_responder (tests/apps: SCHED_FIFO 60, cpu 1) reads each with
# its kernel software receive timestamp (SO_TIMESTAMPING) and its own
# clock after recvmsg(), and says whether it slept for it (its voluntary
# context switches). Target: the NIC's receive IRQ to udp_responder's
# switch-in.
# Every datagram arrives. Every datagram the responder slept for is
# joined to its own record by time: the record's start (IRQ entry) <= the
# kernel's receive timestamp <= rtmon's end (the switch-in) <= the
# responder's clock after recvmsg(); no two such datagrams share a record,
# and no record holds no datagram. A datagram found queued already (a
# burst's later ones, handled in the same NAPI poll, one that came while
# the responder was still busy or on its way into the sleep) had no
# wakeup to follow: counted, printed. Known failure on mainline
# (suite.list): a NET_RX pass that re-raised itself and ran again (in
# ksoftirqd) after its interrupt's chain had completed hands on datagrams
# no interrupt announced, and they have no record. Prints the counts and
# the percentiles of each step.
# timeout: 180
. "$RTMON_TOP/tests/vm/guest/lib.sh"

RESP=$APPS/udp_responder
[ -x "$RESP" ] || fail "udp_responder not built (make -C tests/apps)"
resp=
rec=
net_cleanup() {
	set +e
	[ -n "$resp" ] && kill $resp 2>/dev/null
	[ -n "$rec" ] && kill $rec 2>/dev/null
	rtmon_cleanup
}
trap net_cleanup EXIT

. "$RTMON_TOP/tests/vm/guest/net-lib.sh"

rtmon_load
$RTMONCTL targets add --name net --irq "$irq" --comm udp_responder --end switch_in --deadline 50ms >/dev/null ||
	fail "rtmonctl targets add failed"
n_rate=1000
n_burst=240
chrt -f 60 taskset -c 1 "$RESP" 5001 $((n_rate + n_burst)) 10000 >$T/resp.txt 2>$T/resp.err &
resp=$!
for ((i = 0; i < 100; i++)); do grep -q "^# ready" $T/resp.txt 2>/dev/null && break; sleep 0.1; done
grep -q "^# ready" $T/resp.txt || fail "udp_responder did not start: $(cat $T/resp.err)"
$RTMONCTL records --json -t 3 >$T/records.jsonl &
rec=$!
sleep 0.3
feed $n_rate 1000 1 0 0
feed $n_burst 20000 8 0 $n_rate
wait $resp || fail "udp_responder: exit status $?: $(tail -n 2 $T/resp.txt) $(cat $T/resp.err)"
resp=
wait $rec || fail "rtmonctl records failed"
rec=
grep -E '^  (irq threads|work untraced|drops|softirq)' /proc/rtmon/status || true

python3 - $T/resp.txt $T/records.jsonl $((n_rate + n_burst)) "$irq" <<'PY' || fail "net-receive: the records disagree with the datagrams (above)"
import json, sys
pk = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if not l.startswith("#")]
recs = [json.loads(l) for l in open(sys.argv[2])]
recs = sorted((r for r in recs if r["target_name"] == "net" and "timeout" not in r["flags"]),
              key=lambda r: r["start_ns"])
n, irq = int(sys.argv[3]), int(sys.argv[4])
bad = []
seqs = sorted(p[0] for p in pk)
if seqs != list(range(n)):
    bad.append(f"{len(pk)} datagrams of {n} arrived ({len(set(range(n)) - set(seqs))} missing)")
waited = [p for p in pk if p[1]]
queued = len(pk) - len(waited)
used = {}
steps = {"irq->rx": [], "rx->end": [], "end->after": [], "latency": []}
unexplained = []
for seq, _, rx, after in waited:
    # the record of the chain that woke the responder for this datagram:
    # the latest start before its receive timestamp
    cand = [r for r in recs if r["start_ns"] <= rx <= r["end_ns"] <= after]
    if not cand:
        unexplained.append(seq)
        continue
    r = cand[-1]
    if r["seq"] in used:
        bad.append(f"datagrams {used[r['seq']]} and {seq} joined to one record #{r['seq']}")
    used[r["seq"]] = seq
    assert r["kind"] == "irq" and r["source"] == irq, f"record #{r['seq']} of another source: {r['source']}"
    steps["irq->rx"].append(rx - r["start_ns"])
    steps["rx->end"].append(r["end_ns"] - rx)
    steps["end->after"].append(after - r["end_ns"])
    steps["latency"].append(r["latency_ns"])
# a record no datagram explains: a chain of that IRQ that reached the
# responder with nothing to read
lone = [r["seq"] for r in recs if r["seq"] not in used and
        not any(r["start_ns"] <= p[2] <= r["end_ns"] for p in pk)]
pct = lambda v, q: sorted(v)[min(len(v) - 1, int(len(v) * q))] / 1000 if v else 0
print(f"{len(pk)} datagrams: {len(waited)} the responder slept for, {len(used)} of them joined "
      f"to their record, {len(unexplained)} unexplained; {queued} found queued (no wakeup); "
      f"{len(recs)} records, {len(lone)} with no datagram")
print(f"{'step':12} {'min':>8} {'p50':>8} {'p90':>8} {'p99':>8} {'max':>8}  (us)")
for k, v in steps.items():
    print(f"{k:12} {pct(v, 0):8.1f} {pct(v, .5):8.1f} {pct(v, .9):8.1f} {pct(v, .99):8.1f} {pct(v, 1):8.1f}")
if unexplained:
    bad.append(f"{len(unexplained)} datagrams the responder slept for have no record: {unexplained[:10]}")
if lone:
    bad.append(f"{len(lone)} records hold no datagram: {lone[:10]}")
# a NET_RX pass that re-raised itself and ran on after its interrupt's
# chain completed (mainline): a chain of its own, rooted at the re-raise
rp = [r for r in recs if "repoll" in r["flags"]]
print(f"REPOLL records (a re-raised NET_RX pass): {len(rp)}")
bad += [f"REPOLL record #{r['seq']} rooted at {r['hops'][0]['event']}"
        for r in rp if r["hops"][0]["event"] != "softirq_raise"]
assert not bad, "; ".join(bad)
PY
echo "net-receive: ok"

#!/bin/sh
# rtmon-replay on a real trace-cmd recording of network receive
# (tests/vm/guest/record-net.sh on Debian 12's mainline 6.1 guest: 1000 UDP
# datagrams at 1 kHz through the test NIC, receive IRQ 29, to
# udp_responder), joined with the responder's own lines (.resp: sequence,
# slept, the kernel's receive timestamp, its clock after recvmsg()):
# every datagram it slept for has its own record with IRQ entry or
# re-raise <= receive timestamp <= end <= the responder's clock; no record
# without a datagram; and the NET_RX passes that ran on in ksoftirqd
# after their interrupt's chain had completed start records of their own
# (flag REPOLL, root hop their re-raise).
#   run_dat_net.sh REPLAY DATA_DIR TMPDIR
REPLAY=$1
D=$2
T=$3
mkdir -p "$T"
name=tracecmd-net-6.1
for f in "$D/$name.dat" "$D/$name.resp"; do
	[ -f "$f" ] || { echo "FAIL: dat_net_fixture: $f missing"; exit 1; }
done
if ! "$REPLAY" --json --target name=udp_responder,source=irq:29,end=switch_in,deadline=50ms \
	"$D/$name.dat" >"$T/net.json" 2>"$T/net.err"; then
	echo "FAIL: dat_net_replay: $(head -c 300 "$T/net.err")"
	exit 1
fi
python3 - "$D/$name.resp" "$T/net.json" <<'PY'
import json, sys
pk = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if not l.startswith("#")]
recs = sorted((json.loads(l) for l in open(sys.argv[2]) if '"type":"record"' in l),
              key=lambda r: r["start_ns"])
waited = [p for p in pk if p[1]]
used, unexplained = {}, []
for seq, _, rx, after in waited:
    c = [r for r in recs if r["start_ns"] <= rx <= r["end_ns"] <= after]
    if not c or c[-1]["seq"] in used:
        unexplained.append(seq)
        continue
    used[c[-1]["seq"]] = seq
# a record no datagram explains (one that came while the responder was on
# its way into the sleep ends at its wakeup, unjoined above, yet has one)
lone = [r["seq"] for r in recs if r["seq"] not in used and
        not any(r["start_ns"] <= p[2] <= r["end_ns"] for p in pk)]
repoll = [r for r in recs if "repoll" in r["flags"]]
bad_root = [r["seq"] for r in repoll if r["hops"][0]["event"] != "softirq_raise"]
ok = not unexplained and not lone and repoll and not bad_root
print(f"{'PASS' if ok else 'FAIL'}: dat_net_joined: {len(pk)} datagrams, {len(waited)} slept for, "
      f"{len(used)} joined to their own record, unexplained {unexplained[:10]}; {len(recs)} records, "
      f"{len(lone)} without a datagram; {len(repoll)} repoll (root not a re-raise: {bad_root[:5]})")
sys.exit(0 if ok else 1)
PY

# Explaining a miss (issue 13): cyclictest (SCHED_FIFO 50, pinned to cpu 1,
# 2 ms period) is followed by rtmond (target: its timer chains, 2 ms
# deadline, an ftrace snapshot per miss); a SCHED_FIFO 80 busy loop on
# cpu 1 (3 ms bursts every 350 ms, each started by a frame received in a
# NET_RX softirq that it preempts on PREEMPT_RT: at least one explained
# miss there must have the hog inside that softirq) delays it. For every miss with a
# snapshot, 'rtmonctl explain SEQ --json' must name the hog: the culprit is
# "runnable behind python3[PID] rt 80 on cpu 1", its time at least 90% of
# the excess over the deadline, and the parts add up to the latency within
# 1 us (for at least 99% of the misses). rtmond explains each miss in its
# snapshot worker (the file named by snapshot.explain: the same culprit as
# rtmonctl's) and exports rtmon_miss_cause_seconds_total{target,category}
# (runnable time for target ct). 'rtmonctl misses' shows the
# culprit line; explaining an unknown miss fails with a clear message. A
# record and its snapshot are kept in the test's output as a fixture. The
# module's own blame of every miss the hog made (snapshot or not) names the
# hog first, for at least 90% of it, printed beside the snapshot's culprit.
# (The deadline is 2 ms, not 1: an emulated guest on a loaded host misses
# 1 ms all the time, and the snapshot worker, busy with those, had no
# snapshot left for the bursts. A guest whose own timer interrupts come
# milliseconds late, on a host loaded past that, misses 2 ms every cycle:
# after a round where it missed a quarter of its cycles outside the
# bursts and no burst miss got a snapshot, rtmond is started again with
# a deadline half again above the 90th percentile of those misses and the
# bursts made 3 ms longer than it.) Timeout 480 s: on a guest that misses
# every cycle, the 4 rounds leave ~3600 misses, ~190 of them with a
# snapshot (check16, where one 'rtmonctl explain' run per miss took 4
# minutes; explain_misses now explains them in one run).
# timeout: 480
. "$RTMON_TOP/tests/vm/guest/lib.sh"
. "$RTMON_TOP/tests/vm/guest/explain-lib.sh"

command -v cyclictest >/dev/null || fail "cyclictest (rt-tests) not installed"
hog=
sender=
explain_stop_extra() {
	[ -n "$hog" ] && kill $hog 2>/dev/null
	[ -n "$sender" ] && kill $sender 2>/dev/null
}
rtmon_load
# hog_rtmond: rtmond following cyclictest's timer chains, $deadline_us
# deadline (raised for a guest that misses by itself: below)
deadline_us=2000
burst_us=3000
hog_rtmond() {
	explain_rtmond_start /tmp/explain-hog "{ name = \"ct\"; comm = \"cyclictest\"; source = \"timer\";
	      end = \"switch_in\"; deadline = \"${deadline_us}us\"; }"
}
hog_rtmond

# the hog writes its burst windows (CLOCK_MONOTONIC ns, as the records)
# (ready file: cyclictest starts once the interpreter is up). Each burst
# starts at a frame on lo (AF_PACKET, ethertype 0x88b5) that a SCHED_OTHER
# sender on cpu 1 sends every 100 ms: the frame is received in the NET_RX
# softirq that the sender runs itself when it enables bottom halves again,
# and on PREEMPT_RT the hog, woken there, preempts the sender inside that
# softirq: the softirq stays open on cpu 1 for the whole burst and its
# time is the hog's, not the softirq's (CI once blamed "softirq TIMER on
# cpu 1" for a burst). The receive path takes no bottom-half lock, so the
# hog does not wait for the sender (a timer wakeup would: the expiry lock).
ip link set lo up
# hog_round R: one round (the hog, its frame sender, cyclictest until the
# sender is done); its bursts ($burst_us long) in $T/bursts-R.txt, added
# to $T/bursts.txt. Before each frame the sender waits (2 s at most) until
# every snapshot named in misses.jsonl has its explanation written: the
# snapshot worker takes one miss at a time, and a guest that misses by
# itself keeps it busy.
hog_round() {
	local r=$1 i ct
	rm -f $T/bursts-$r.txt.ready
	chrt -f 80 taskset -c 1 python3 -c '
import socket, sys, time
burst = int(sys.argv[2]) * 1000
w = []
rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88b5))
rx.bind(("lo", 0x88b5))
open(sys.argv[1] + ".ready", "w").close()
for _ in range(6):
    rx.recv(128)
    s = time.monotonic_ns()
    while time.monotonic_ns() < s + burst:
        pass
    w.append((s, time.monotonic_ns()))
open(sys.argv[1], "w").write("".join(f"{a} {b}\n" for a, b in w))
' $T/bursts-$r.txt $burst_us &
	hog=$!
	echo $hog >>$T/hogs.txt
	for ((i = 0; i < 300; i++)); do [ -e $T/bursts-$r.txt.ready ] && break; sleep 0.1; done
	[ -e $T/bursts-$r.txt.ready ] || fail "the hog did not start"
	cyclictest -q -t1 -p 50 -a 1 -i 2000 -l 100000 -m >$T/cyclictest-$r.txt 2>&1 &
	ct=$!
	chrt -o 0 taskset -c 1 python3 -c '
import os, re, socket, struct, sys, time
tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
tx.bind(("lo", 0))
frame = bytes(12) + struct.pack("!H", 0x88b5) + bytes(50)
pos, pending = 0, set()
# a line is parsed only as far as its explanation file
explain = re.compile(rb"\"explain\": *\"([^\"]+)\"")
def worker_idle():
    global pos, pending
    try:
        f = open(sys.argv[1], "rb")
    except FileNotFoundError:
        return True
    with f:
        f.seek(pos)
        for l in f:
            if not l.endswith(b"\n"):
                break
            pos += len(l)
            e = explain.search(l)
            if e:
                pending.add(e[1].decode())
    pending = {e for e in pending if not os.path.exists(e)}
    return not pending
waited = []
time.sleep(0.5)
for _ in range(6):
    t = time.monotonic()
    while not worker_idle() and time.monotonic() < t + 2:
        time.sleep(0.02)
    waited.append(time.monotonic() - t)
    tx.send(frame)
    time.sleep(0.35)
print(" ".join(f"{x * 1000:.0f}" for x in waited))
' $out/misses.jsonl >$T/sender-$r.txt &
	sender=$!
	wait $sender || fail "the frame sender failed"
	sender=
	kill -INT $ct
	wait $ct || fail "cyclictest failed: $(tail -n 3 $T/cyclictest-$r.txt)"
	wait $hog
	hog=
	cat $T/bursts-$r.txt >>$T/bursts.txt
}

# round_misses FILE SINCE: "N OWN P90": N, how many misses so far overlap
# a burst of FILE by more than their deadline and have an ftrace snapshot;
# OWN, the misses since SINCE (CLOCK_MONOTONIC ns) that overlap no burst
# at all, and P90, the 90th percentile of their latency
round_misses() {
	python3 -c '
import json, os, sys
ours = [tuple(map(int, l.split())) for l in open(sys.argv[2])]
every = [tuple(map(int, l.split())) for l in open(sys.argv[3])]
n, lat = 0, []
for l in open(sys.argv[1]) if os.path.exists(sys.argv[1]) else []:
    try:
        m = json.loads(l)
    except ValueError:
        continue
    ov = lambda b: sum(max(0, min(y, m["end_ns"]) - max(x, m["start_ns"])) for x, y in b)
    if ov(ours) > m["deadline_ns"] and (m.get("snapshot") or {}).get("ftrace"):
        n += 1
    if m["start_ns"] >= int(sys.argv[4]) and not any(
            min(y, m["end_ns"]) > max(x, m["start_ns"]) for x, y in every):
        lat.append(m["latency_ns"])
lat.sort()
print(n, len(lat), lat[len(lat) * 9 // 10] if lat else 0)' $out/misses.jsonl "$1" $T/bursts.txt "$2"
}

# rounds of 6 bursts until two of their misses have a snapshot (4 rounds
# at most): the snapshot worker takes one miss at a time, and an emulated
# guest that misses every cycle by 200 us keeps it busy (check14 on
# 6.1-rt: all 10 misses of the 6 bursts found it busy); each round's hog
# is a new process, its pid in $T/hogs.txt
: >$T/bursts.txt
: >$T/hogs.txt
misses=0
rounds=
for ((r = 1; r <= 4; r++)); do
	since=$(python3 -c 'import time; print(time.monotonic_ns())')
	hog_round $r
	sleep 1
	read -r n own own_p90 <<<"$(round_misses $T/bursts-$r.txt $since)"
	cycles=$(sed -n 's/.* C: *\([0-9]*\) .*/\1/p' $T/cyclictest-$r.txt)
	[ -n "$cycles" ] || fail "no cycle count from cyclictest: $(cat $T/cyclictest-$r.txt)"
	rounds+="round $r: $n misses of the bursts with a snapshot; $own misses of the guest's own in"
	rounds+=" $cycles cycles (90th percentile $((own_p90 / 1000)) us) at a $deadline_us us deadline,"
	rounds+=" $burst_us us bursts, the sender waited $(cat $T/sender-$r.txt) ms for the snapshot worker"
	note "round $r:${rounds##*round $r:}"
	rounds+="; "
	misses=$((misses + n))
	[ "$misses" -ge 2 ] && break
	# a guest missing a quarter of its cycles by itself keeps the snapshot
	# worker busy with those (check23 on 6.1-rt: 4273 misses of ~3.3 ms
	# from late timer interrupts, none of the bursts' with a snapshot): a
	# deadline above them, bursts longer than it (a guest stalled on a
	# loaded host misses 20-37 ms by itself: 50 ms at most)
	if [ "$n" = 0 ] && [ $((own * 4)) -gt "$cycles" ]; then
		deadline_us=$(((own_p90 * 3 / 2 / 1000 + 999) / 1000 * 1000))
		[ "$deadline_us" -le 50000 ] || deadline_us=50000
		burst_us=$((deadline_us + 3000))
		note "the guest misses by itself: rtmond again with a $deadline_us us deadline, $burst_us us bursts"
		rounds+="rtmond again with a $deadline_us us deadline; "
		explain_rtmond_stop
		hog_rtmond
		misses=0
	fi
done
explain_rtmond_stop
# the misses inside a hog burst, explained whatever rtmond explained itself
python3 -c '
import json, sys
bursts = [tuple(map(int, l.split())) for l in open(sys.argv[2]) if len(l.split()) == 2]
for l in open(sys.argv[1]):
    m = json.loads(l)
    if any(min(b, m["end_ns"]) > max(a, m["start_ns"]) for a, b in bursts):
        print(m["seq"])' $out/misses.jsonl $T/bursts.txt >$T/wanted.txt
explain_misses "under the hog" $T/wanted.txt
$RTMONCTL misses --dir $out >$T/misses.txt || fail "rtmonctl misses failed"
grep -q "culprit: " $T/misses.txt || fail "rtmonctl misses shows no culprit: $(head -n 5 $T/misses.txt)"
if $RTMONCTL explain 999999 --dir $out >$T/unknown.out 2>&1; then
	fail "explain of an unknown miss succeeded"
fi
grep -q "no miss with seq 999999" $T/unknown.out || fail "unknown miss: $(cat $T/unknown.out)"

# the fixture (tests/monitor/data/explain): the first miss that overlaps a
# hog burst, its snapshot cut to 100 ms before and 20 ms after the chain
python3 - $out/misses.jsonl $T $T/bursts.txt <<'PY'
import json, re, sys
bursts = [tuple(map(int, l.split())) for l in open(sys.argv[3])]
ts = re.compile(r" (\d+)\.(\d{6}): ")
for l in open(sys.argv[1]):
    m = json.loads(l)
    f = (m.get("snapshot") or {}).get("ftrace")
    if not f or not any(min(b, m["end_ns"]) > max(a, m["start_ns"]) for a, b in bursts):
        continue
    open(sys.argv[2] + "/fixture-record.json", "w").write(l)
    with open(sys.argv[2] + "/fixture-snapshot.txt", "w") as o:
        for t in open(f):
            x = ts.search(t)
            if not x:
                o.write(t)	# the header
            elif m["start_ns"] - 100000000 <= int(x[1]) * 10**9 + int(x[2]) * 1000 <= m["end_ns"] + 20000000:
                o.write(t)
    break
PY
python3 - $out/misses.jsonl $T/explained.jsonl "$(tr '\n' ' ' <$T/hogs.txt)" $T/bursts.txt "$(uname -v)" "$rounds" <<'PY'
import json, re, sys
rt = "PREEMPT_RT" in sys.argv[5]
misses = {json.loads(l)["seq"]: json.loads(l) for l in open(sys.argv[1])}
ex = [json.loads(l) for l in open(sys.argv[2])]
hog_pids = sys.argv[3].split()	# a pid per round
bursts = [tuple(map(int, l.split())) for l in open(sys.argv[4])]
us = lambda ns: f"{ns / 1000:.1f} us"
ok_sum, named = 0, 0
for e in ex:
    m = misses[e["seq"]]
    lat, dl = m["latency_ns"], m["deadline_ns"]
    parts = e["parts"]
    s = sum(p["ns"] for p in parts)
    if abs(s - lat) <= 1000:
        ok_sum += 1
    shares = ", ".join(f"{p['category']} {p['who']} {100 * p['share']:.0f}%" for p in parts[:4])
    print(f"#{e['seq']} latency {us(lat)}: {e['culprit']}  [{shares}]")
    top = parts[0]
    hogs = sum(p["ns"] for p in parts if p["category"] in ("runnable", "source_delay", "preempted")
               and any(f"[{h}]" in p["who"] for h in hog_pids))
    # the hog burned cpu 1 for this long inside the chain
    overlap = sum(max(0, min(b, m["end_ns"]) - max(a, m["start_ns"])) for a, b in bursts)
    if overlap > dl:
        # a miss the hog made: it must be named, and hold >= 90% of the
        # excess over the deadline (or of the burst inside the chain)
        hog_top = top["category"] in ("runnable", "source_delay") and any(
            f"python3[{h}] rt 80" in top["who"] for h in hog_pids)
        # interrupt work inside the hog's burst (its sender's NET_RX on
        # mainline) is told apart from the hog's own time: as large as the
        # hog's part, it may be the culprit with the hog second (seen once
        # in a make check on 6.1: NET_RX 34%, the hog 32%)
        irq_ns = sum(p["ns"] for p in parts if p["category"] in ("softirq_interference", "irq_interference"))
        want = min(lat - dl, overlap)
        # or, on a stalled guest, a task that ran on cpu 1 longer than the
        # hog's burst inside the chain, the hog named with all of it
        # (check17 on 6.1-rt: the frame sender, boosted to rt 1, 4.3 ms of
        # a 9.1 ms miss, the hog 4.1 ms)
        assert hog_top or hogs >= 0.9 * want or (
                top["category"] in ("softirq_interference", "irq_interference") and
                hogs >= 0.5 * top["ns"]), \
            f"#{e['seq']}: culprit {e['culprit']}, expected the hog python3{hog_pids} rt 80"
        # interrupt work inside the burst is not the hog's, named or not:
        # a guest stalled by the loaded host stretches whatever ran then
        # (make check, mainline: a TIMER softirq 8.4 ms inside the hog's
        # 23.4 ms, the hog named first with 15.1 ms)
        assert hogs + irq_ns >= 0.9 * want, f"#{e['seq']}: hog {hogs} ns (+ interrupts {irq_ns} ns) for {want} ns"
        if hog_top:
            named += 1
        else:
            print(f"#{e['seq']}: the hog second ({us(hogs)}) to {top['category']} {top['who']} "
                  f"({us(top['ns'])}) inside its burst")
# on PREEMPT_RT the hog runs its bursts inside the sender's NET_RX
# softirq: count the explained misses whose chain overlaps such a stretch
# on cpu 1 (softirq entered by another task, not exited, the hog running)
line = re.compile(r"-(\d+) +\[(\d+)\][^:]* (\d+)\.(\d{6}): (softirq_entry|softirq_exit|sched_switch): (.*)")
nxt = re.compile(r"next_pid=(\d+) ")
inside = 0
for e in ex:
    m = misses[e["seq"]]
    host = cur = None
    since = shost = None
    hits = []
    for t in open(m["snapshot"]["ftrace"]):
        x = line.search(t)
        if not x or x[2] != "001":
            continue
        ts = int(x[3]) * 10**9 + int(x[4]) * 1000
        if x[5] == "softirq_entry":
            host = x[1]
        elif x[5] == "softirq_exit":
            host = None
        else:
            cur = nxt.search(x[6])[1]
        now = host and host not in hog_pids and cur in hog_pids
        if now and since is None:
            since, shost = ts, host
        elif not now and since is not None:
            hits.append((since, ts, shost))
            since = None
    if since is not None:
        hits.append((since, m["end_ns"], shost))
    h = [x for x in hits if min(x[1], m["end_ns"]) > max(x[0], m["start_ns"])]
    if h:
        inside += 1
        print(f"#{e['seq']}: the hog ran inside a softirq of pid {h[0][2]} on cpu 1 "
              f"for {us(h[0][1] - h[0][0])}")
print(f"{len(ex)} misses explained, {named} with the hog named as culprit, "
      f"{ok_sum} add up to the latency within 1 us, {inside} with the hog "
      f"preempting a softirq inside the chain")
assert named >= 1, "no miss of the hog's size: " + sys.argv[6]
if rt:
    assert inside >= 1, "PREEMPT_RT: no explained miss with the hog inside the sender's softirq"
# The module's own blame (record.blame), for every miss the hog made,
# snapshot or not: the hog is its first culprit, waited behind for at
# least 90% of the excess over the deadline (or of the burst inside the
# chain); beside the snapshot's explanation where there is one.
exp = {e["seq"]: e for e in ex}
mod_named = mod_agree = mod_both = 0
known = []
print(f"{'miss':>6} {'latency':>10}  {'module: first culprit':<40} {'snapshot: culprit'}")
for m in sorted(misses.values(), key=lambda m: m["seq"]):
    b = m["blame"]
    parts = sum(v for k, v in b.items() if k not in ("culprits", "culprit_other_ns"))
    assert parts == m["latency_ns"], f"#{m['seq']}: blame adds up to {parts}, latency {m['latency_ns']}"
    if "timeout" in m["flags"]:
        continue
    lat, dl = m["latency_ns"], m["deadline_ns"]
    overlap = sum(max(0, min(bb, m["end_ns"]) - max(a, m["start_ns"])) for a, bb in bursts)
    if overlap <= dl:
        continue
    want = min(lat - dl, overlap)
    c = b["culprits"][0] if b["culprits"] else {"pid": 0, "comm": "-", "category": "-", "ns": 0}
    mine = f"{c['category']} behind {c['comm']}[{c['pid']}] prio {c.get('prio')} {us(c['ns'])}"
    e = exp.get(m["seq"])
    print(f"{m['seq']:>6} {us(lat):>10}  {mine:<40} {e['culprit'] if e else '(no snapshot)'}")
    hog_first = str(c["pid"]) in hog_pids and c["category"] in ("runnable", "preempted") and c["prio"] == 19
    if not hog_first or c["ns"] < 0.9 * want:
        # Known failures (issue 34, left open), counted and printed, not
        # hidden: the module charges a whole wait for the cpu to the task
        # switched out for the chain's task, not to each task that ran in
        # turn (6.1: the hog 68%, NET_RX 21%, two tasks 4% each, the last
        # one named; without a snapshot this cannot be told here), and it
        # names no task for a timer's source delay (on PREEMPT_RT a soft
        # timer's ktimers thread waits behind the hog). Where the snapshot
        # shows the hog alone in the wait, the module must name it.
        others = e and any(p["category"] in ("runnable", "softirq_interference", "irq_interference")
                           and not any(f"[{h}]" in p["who"] for h in hog_pids) for p in e["parts"])
        assert not e or others or b["source"] >= 0.5 * want, \
            (f"#{m['seq']}: the module's first culprit {mine}, expected the hog "
             f"python3{hog_pids} rt 80 with 90% of {want} ns (the snapshot: the hog alone): {b}")
        known.append(m["seq"])
        cause = ("source delay" if b["source"] >= 0.5 * want else
                 "several tasks in the wait" if others else "no snapshot to tell")
        print(f"KNOWN FAILURE: #{m['seq']}: the last task before the switch-in named, "
              f"not the hog ({cause}): blame {b}")
        continue
    mod_named += 1
    if e:
        mod_both += 1
        mod_agree += f"[{c['pid']}]" in e["parts"][0]["who"]
print(f"module blame: the hog first culprit of {mod_named} misses it made; "
      f"{mod_agree} of {mod_both} with a snapshot name the same task first; "
      f"{len(known)} known failures (above)")
assert mod_named >= 1, "no miss of the hog's size in the module's blame"
# rtmond's own explanations (snapshot worker) agree with rtmonctl's
theirs = {}
for m in misses.values():
    f = (m.get("snapshot") or {}).get("explain")
    if f:
        for l in open(f):
            x = json.loads(l)
            theirs[x["seq"]] = x
# (past a whole batch of misses, a deferred snapshot's later ones name
# no explanation file: rtmond leaves them to rtmonctl)
for e in ex:
    t = theirs.get(e["seq"])
    if not t and not misses[e["seq"]]["snapshot"].get("explain"):
        continue
    assert t, f"#{e['seq']}: no explanation from rtmond"
    assert t["target"] == "ct" and t["sum_ns"] == t["latency_ns"], t
    assert t["parts"][0]["who"] == e["parts"][0]["who"], (t["culprit"], e["culprit"])
print(f"rtmond explained {len(theirs)} misses itself, culprits as rtmonctl's")
assert ok_sum * 100 >= 99 * len(ex), f"only {ok_sum} of {len(ex)} add up"
PY
grep -E '^rtmon_miss_cause_seconds_total\{target="ct",category="runnable"\} [0-9.]+' $T/rtmon.prom ||
	fail "no runnable time of target ct in rtmond's metrics: $(grep miss_cause $T/rtmon.prom)"
echo "explain-hog: ok"

# Explaining a miss behind a busy worker (issue 13): dispatch_test
# (tests/apps) with up to 8 items in flight: a feeder reads the 9p share
# every 4 ms (its virtio interrupt starts each item's chain), a dispatcher
# marks rtmon_work_begin(item) and queues it, one worker spins 50 us per
# item, 50 ms every 10th item, and marks rtmon_work_end(item). The feeder
# and dispatcher run SCHED_FIFO 5 above the worker (SCHED_OTHER), so each
# item begins on time while the worker spins on a slow one; sharing its
# cpu with them, they began after the slow item's end and no more than
# one explained miss per run had waited for the worker. Items
# queued behind a slow one wait for the worker, which never sleeps between
# them (no wakeup hands them over). rtmond follows the chains (end
# work_end, 5 ms deadline, an ftrace snapshot per miss). Every explained
# miss adds up to its latency within 1 us (>= 99%); a miss of an item that
# waited at least 3 ms for the worker to end an earlier item (the item's
# t_begin to the earlier item's t_end, from dispatch_test's own clock
# reads, t_begin once rtmon_work_begin returned) has "queued" behind the
# worker (its pid), at least a quarter of that wait less what other tasks
# and IRQs took from the worker meanwhile (the parts' time at the queue's
# hop: by_hop), and with the worker's preemptions and interrupts meanwhile
# (the preempting tasks', IRQs' time: on mainline the worker shares its
# cpu with the feeder) at least 80% of it; the worker's own "running" (or
# "unknown") holds less than a fifth, or no more than the worker's time
# from the earlier item's end to this one's. rtmond's own explanations
# name the same culprits. Whether any such miss has a snapshot at all is
# emulation's timing, not asserted: under TCG every item misses 5 ms
# (5-40 ms on 6.12-rt), and one 256 KiB snapshot takes 1.5-2.6 s to copy,
# so of 400 items' misses 3-4 have a snapshot, most of them not of a
# queued item (6 of 12 runs had none). The snapshot explainer's "queued"
# is checked on two such recordings on the host (tests/monitor,
# data/explain-worker*), and the module's blame below on every miss. No deferred
# snapshots (snapshot.defer = false): under emulation copying an event
# takes longer than the next events take to come, so a deferred one had
# wrapped past the queued misses (6.1-rt, two boards side by side: 67 of
# them), and kept the worker from the next burst.
# The module's own blame, in every miss whatever the snapshots: a miss
# of an item that waited at least 1 ms for the worker has "queued" of at
# least that wait less 1.1 us (the module keeps the earlier end in
# 1024 ns units; its clock reads are inside the marker calls, around
# dispatch_test's), the worker a culprit of at least that; at least 5 such
# misses (a slow item holds back the items that come during its 50 ms:
# under TCG the feeder's reads come every 10-20 ms, not 4, so a 20 ms
# item held back 7 to 9 of 400 items in all).
# timeout: 240
. "$RTMON_TOP/tests/vm/guest/lib.sh"
. "$RTMON_TOP/tests/vm/guest/explain-lib.sh"

rtmon_load
echo "some data for the feeder" >/rtmon-share/feed
# the queued items' misses follow the slow item's by 50 us each: read
# apart from it, each would find the snapshot worker still copying the
# slow one's ("skipped": "busy"; CI once had no queued miss with a
# snapshot). snapshot.gather reads them into the slow one's batch, one
# snapshot for all; a 256 KiB buffer per cpu is copied sooner
explain_rtmond_start /tmp/explain-worker '{ name = "dw"; comm = "dispatch_test";
	      end = "work_end"; deadline = "5ms"; }' 256 'gather = "5ms";'
"$APPS/dispatch_test" -f /rtmon-share/feed -n 400 -p 4000 -w 50 -s 10 -S 50000 -q 8 -P 5 \
	>$T/items.jsonl 2>$T/items.err || fail "dispatch_test failed: $(cat $T/items.err)"
explain_rtmond_stop
# the misses of items that waited for the worker, explained whatever
# rtmond explained itself
python3 -c '
import json, sys
items = {i["cookie"]: i for i in map(json.loads, open(sys.argv[2]))}
for l in open(sys.argv[1]):
    m = json.loads(l)
    it = items.get(m.get("cookie"))
    prev = items.get(it["cookie"] - 1) if it else None
    if prev and prev["t_end"] - it["t_begin"] >= 3000000:
        print(m["seq"])' $out/misses.jsonl $T/items.jsonl >$T/wanted.txt
explain_misses "behind the busy worker" $T/wanted.txt

python3 - $out/misses.jsonl $T/explained.jsonl $T/items.jsonl $T <<'PY'
import json, re, sys
misses = {json.loads(l)["seq"]: json.loads(l) for l in open(sys.argv[1])}
ex = [json.loads(l) for l in open(sys.argv[2])]
items = {i["cookie"]: i for i in map(json.loads, open(sys.argv[3]))}
us = lambda ns: f"{ns / 1000:.1f} us"
ok_sum = queued = named = 0
print(f"{'seq':>5} {'item':>4} {'latency':>10} {'waited':>10}  culprit")
for e in ex:
    m = misses[e["seq"]]
    s = sum(p["ns"] for p in e["parts"])
    ok_sum += abs(s - m["latency_ns"]) <= 1000
    it = items.get(m.get("cookie"))
    # how long the item waited for the worker to end the one before it
    prev = items.get(it["cookie"] - 1) if it else None
    waited = max(0, prev["t_end"] - it["t_begin"]) if prev else 0
    print(f"{e['seq']:>5} {m.get('cookie', '-'):>4} {us(m['latency_ns']):>10} {us(waited):>10}  {e['culprit']}")
    if waited < 3000000:
        continue
    worker = f"[{it['worker']}]"
    qs = [p for p in e["parts"] if p["category"] == "queued" and worker in p["who"]]
    assert qs, f"#{e['seq']} (item {it['cookie']}, waited {us(waited)}): culprit {e['culprit']}, " \
        f"nothing queued behind the worker {worker}: {e['parts'][:4]}"
    top = qs[0]
    # the culprit, unless a larger part came from elsewhere (the feeder's
    # read: on mainline the device's answer may come while it still runs,
    # and the chain is its timer's; emulation's stalls): counted below
    named += top is e["parts"][0]
    # each part's time at the queue's hop (by_hop: a who may also have
    # taken time before other hops, e.g. the feeder's virtio IRQ while
    # the feeder itself waited: CI once had 3 ms of irq 27 at each)
    at = lambda p: sum(b["ns"] for b in p["by_hop"] if b["hop"] == top["hop"])
    hop = [dict(p, ns=at(p)) for p in e["parts"] if at(p)]
    q = sum(p["ns"] for p in hop if p["category"] == "queued" and worker in p["who"])
    # the worker, busy with the earlier item, may be preempted meanwhile
    # (rtmond itself, busy with the earlier miss), or interrupted: that
    # time is the preempting task's, the IRQ's, at the same hop; the
    # worker's running on this item is not the wait
    other = sum(p["ns"] for p in hop if p["category"] not in ("queued", "running", "unknown"))
    run = sum(p["ns"] for p in hop if p["category"] in ("running", "unknown"))
    # queued: a quarter of the wait the worker spent on the earlier item
    # itself (what others took from it is theirs: rtmond at rt 10 once
    # preempted it for 4.8 of a 5.5 ms wait on a loaded host). Its own
    # running: under a fifth of the wait, or no more than its time from
    # the earlier item's end to this one's (6.1-rt once took 810 us to
    # pick the next item up, and ran it 59 us: 788 us "running" of a
    # 3440 us wait, rightly)
    own = it["t_end"] - prev["t_end"] + 20000
    assert q >= 0.25 * (waited - other) and q + other >= 0.8 * waited and run < max(0.2 * waited, own), \
        f"#{e['seq']}: queued {us(q)} (+ {us(other)} preempted, interrupted; {us(run)} running, unknown) " \
        f"of a {us(waited)} wait, at hop {top['hop']}: {[(p['category'], p['who'], p['ns']) for p in hop[:6]]}"
    queued += 1
    if queued == 1:
        # the fixture (tests/monitor/data/explain-worker): this miss, its
        # snapshot cut to 100 ms before and 20 ms after the chain
        ts = re.compile(r" (\d+)\.(\d{6}): ")
        open(sys.argv[4] + "/fixture-record.json", "w").write(json.dumps(m) + "\n")
        with open(sys.argv[4] + "/fixture-snapshot.txt", "w") as o:
            for t in open(m["snapshot"]["ftrace"]):
                x = ts.search(t)
                if not x or m["start_ns"] - 100000000 <= int(x[1]) * 10**9 + int(x[2]) * 1000 <= m["end_ns"] + 20000000:
                    o.write(t)
# snapshot.gather (5 ms): the reader, having read a miss that wants a
# snapshot, waits 5 ms and reads what came meanwhile into its batch. So
# every later miss that ended within 5 ms of a snapshot's first one shares
# its snapshot. (Whether a burst meets an idle snapshot worker at all is
# emulation's timing: the worker explains for tens of ms, and a CI run
# once had no burst's second miss within 5 ms of a snapshot's first.)
GATHER = 5000000
shared = {}
for m in misses.values():
    f = (m.get("snapshot") or {}).get("ftrace")
    if f:
        shared.setdefault(f, []).append(m["seq"])
busy = sum((m.get("snapshot") or {}).get("skipped") == "busy" for m in misses.values())
deferred = len({m["snapshot"]["ftrace"] for m in misses.values() if (m.get("snapshot") or {}).get("deferred")})
most = max(map(len, shared.values()), default=0)
wanted = [m for m in misses.values() if (m.get("snapshot") or {}).get("skipped") in (None, "busy")]
candidates = 0
for f, seqs in shared.items():
    m0 = misses[min(seqs)]
    near = [m["seq"] for m in wanted if m["seq"] > m0["seq"] and
            m0["end_ns"] <= m["end_ns"] <= m0["end_ns"] + GATHER]
    candidates += len(near)
    left = [q for q in near if q not in seqs]
    assert not left, f"snapshot.gather: misses {left} ended within 5 ms of #{m0['seq']} " \
        f"but are not in its snapshot ({sorted(seqs)})"
print(f"{len(misses)} misses: {len(shared)} snapshots ({deferred} deferred), at most {most} misses in one; "
      f"{busy} skipped, the worker busy; {candidates} misses ended within 5 ms after a "
      f"snapshot's first, all in its snapshot")
print(f"{len(ex)} misses explained, {queued} queued behind the busy worker "
      f"({named} with that as the culprit), {ok_sum} add up to the latency within 1 us")
if not queued:
    print("no snapshot held a miss of an item that waited >= 3 ms for the worker (busy copying)")
assert ok_sum * 100 >= 99 * len(ex), f"only {ok_sum} of {len(ex)} add up"
# the module's blame of every miss of an item that waited for the worker
online, bad = 0, []
print(f"{'seq':>5} {'item':>4} {'latency':>10} {'waited':>10} {'queued':>10}  module's culprits")
for m in sorted(misses.values(), key=lambda m: m["seq"]):
    it = items.get(m.get("cookie"))
    prev = items.get(it["cookie"] - 1) if it else None
    waited = max(0, prev["t_end"] - it["t_begin"]) if prev else 0
    if waited < 1000000:
        continue
    bl = m["blame"]
    q = bl.get("queued", 0)
    # the worker's culprit entry holds its queued time (its category is
    # its largest share: on mainline the feeder may wait runnable behind
    # the spinning worker longer than the item waited in the queue)
    cul = [c for c in bl["culprits"] if c["pid"] == it["worker"] and c["ns"] >= q]
    online += 1
    print(f"{m['seq']:>5} {it['cookie']:>4} {us(m['latency_ns']):>10} {us(waited):>10} {us(q):>10}  "
          f"{[(c['category'], c['comm'], c['pid'], c['ns']) for c in bl['culprits'][:2]]}")
    if q < waited - 1100 or not cul:
        bad.append(m["seq"])
print(f"the module's blame: {online} misses of items that waited >= 1 ms for the worker, "
      f"{online - len(bad)} with queued >= the wait, behind the worker")
assert not bad, f"misses {bad[:10]}: the module's blame has no queued part of the wait behind the worker"
assert online >= 5, f"only {online} misses of items that waited >= 1 ms for the worker"
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
    assert t["parts"][0]["who"] == e["parts"][0]["who"], (t["culprit"], e["culprit"])
print(f"rtmond explained {len(theirs)} misses itself, culprits as rtmonctl's")
PY
echo "explain-worker: ok"

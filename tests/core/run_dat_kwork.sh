#!/bin/sh
# rtmon-replay on a real trace-cmd recording of chains through a workqueue
# (tests/vm/guest/model-workbusy.sh on the 6.1 PREEMPT_RT guest: the test
# device's IRQ 28 -> its IRQ thread -> queue_work -> a kworker, busy with a
# long item or woken for this one -> model_reader), against the records
# rtmon.ko wrote for the same run (.module.jsonl.gz): the same chains
# (joined by task and start, within 200 us: the tracer's and rtmon's clock
# reads of one tracepoint), the same hops for >= 98% of them; the chains
# through the busy kworker carry a queue_work hop and a queued hop whose
# time is the blame's queued part.
#   run_dat_kwork.sh REPLAY DATA_DIR TMPDIR
REPLAY=$1
D=$2
T=$3
mkdir -p "$T"
name=tracecmd-workbusy-6.1rt
for f in "$D/$name.dat" "$D/$name.module.jsonl.gz"; do
	[ -f "$f" ] || { echo "FAIL: dat_kwork_fixture: $f missing"; exit 1; }
done
if ! "$REPLAY" --json --target name=model_reader,source=irq:28,end=switch_in,deadline=50ms \
	"$D/$name.dat" >"$T/kwork.json" 2>"$T/kwork.err"; then
	echo "FAIL: dat_kwork_replay: $(head -c 300 "$T/kwork.err")"
	exit 1
fi
python3 - "$D/$name.module.jsonl.gz" "$T/kwork.json" <<'PY'
import gzip, json, sys
mod = [json.loads(l) for l in gzip.open(sys.argv[1], "rt")]
mod = [r for r in mod if r["target_name"] == "model" and "timeout" not in r["flags"]]
rep = sorted((json.loads(l) for l in open(sys.argv[2]) if '"type":"record"' in l),
             key=lambda r: r["start_ns"])
hops = lambda r: [(h["event"], h["pid"], h["cpu"]) for h in r["hops"]]
used, pairs = set(), []
for r in mod:
    best = min(((abs(q["start_ns"] - r["start_ns"]), i) for i, q in enumerate(rep)
                if i not in used and q["pid"] == r["pid"] and
                abs(q["start_ns"] - r["start_ns"]) <= 200000), default=None)
    if best:
        used.add(best[1])
        pairs.append((r, rep[best[1]]))
same = [(r, q) for r, q in pairs if hops(r) == hops(q)]
busy = [q for q in rep if any(h["event"] == "queue_work" for h in q["hops"])]
ok = True
def check(name, cond, msg):
    global ok
    print(("PASS" if cond else "FAIL") + f": dat_kwork_{name}: {msg}")
    ok = ok and cond
check("joined", len(pairs) * 100 >= 98 * max(len(mod), len(rep)) and len(mod) >= 290,
      f"module {len(mod)} records, replay {len(rep)}, joined {len(pairs)}")
check("same_hops", len(same) * 100 >= 98 * len(pairs), f"{len(same)} of {len(pairs)} with the same hops")
def queued_ok(q):
    e = [h["event"] for h in q["hops"]]
    i = e.index("queue_work")
    if i + 1 >= len(e) or e[i + 1] != "queued" or not q["hops"][i + 1]["comm"].startswith("kworker/"):
        return False
    return q["blame"]["queued"] == q["hops"][i + 1]["ts_ns"] - q["hops"][i]["ts_ns"]
check("busy_kworker", len(busy) >= 100 and all(queued_ok(q) for q in busy),
      f"{len(busy)} chains through the busy kworker, each queue_work then queued, its time the blame's queued")
sys.exit(0 if ok else 1)
PY

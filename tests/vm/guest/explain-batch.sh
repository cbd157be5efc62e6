# rtmond explains every miss a snapshot covers, however many one read
# brings (CI once found a miss with a snapshot but no explanation from
# rtmond in explain-hog: the worker took at most 16 misses of a batch).
# cyclictest (1 ms period, 1.5 s) is followed with a 1 us deadline: every
# wakeup misses. rtmond is stopped (SIGSTOP) for 300 ms meanwhile (once
# its snapshot worker is idle, cyclictest paused for a second): the
# module keeps the records, and the first read after SIGCONT brings a full
# batch of misses, one snapshot for all. Every miss line that names an
# explanation file (snapshot.explain) has its explanation there, and at
# least one snapshot covers more than 16 misses. Misses that come while
# the worker copies and explains one snapshot (every wakeup misses) share
# a deferred one, taken when it is done: at least one snapshot is
# deferred, and its misses have their explanations too.
# timeout: 180
. "$RTMON_TOP/tests/vm/guest/lib.sh"
. "$RTMON_TOP/tests/vm/guest/explain-lib.sh"

command -v cyclictest >/dev/null || fail "cyclictest (rt-tests) not installed"
rtmon_load
EXPLAIN_DEFER=true explain_rtmond_start /tmp/explain-batch '{ name = "cb"; comm = "cyclictest"; source = "timer";
	      end = "switch_in"; deadline = "1us"; }' 256
cyclictest -q -t1 -p 50 -a 1 -i 1000 -l 1500 -m >$T/cyclictest.txt 2>&1 &
ct=$!
sleep 0.5
# the snapshot worker idle first: cyclictest paused (no misses) for a
# second, so that the batch after SIGCONT does not find it still copying
# an earlier snapshot ("busy": a make check under load once saw 1,670 of
# 1,702 misses skipped so, the big batch among them)
kill -STOP $ct
sleep 1
kill -STOP $pid
kill -CONT $ct
sleep 0.3
kill -CONT $pid
wait $ct || fail "cyclictest failed: $(tail -n 3 $T/cyclictest.txt)"
# the deferred snapshots are written once the worker gets to them (rtmond
# stopping drops one not yet taken): every file the lines name, first
for ((i = 0; i < 300; i++)); do
	python3 -c '
import json, os, sys
for l in open(sys.argv[1]):
    s = json.loads(l).get("snapshot") or {}
    for k in ("ftrace", "explain"):
        if s.get(k) and not os.path.exists(s[k]):
            sys.exit(1)' $out/misses.jsonl && break
	sleep 0.2
done
explain_rtmond_stop
[ -s $out/misses.jsonl ] || fail "no misses"

python3 - $out/misses.jsonl <<'PY'
import collections, json, sys
misses = [json.loads(l) for l in open(sys.argv[1])]
per_file = collections.defaultdict(list)
deferred = set()
for m in misses:
    f = (m.get("snapshot") or {}).get("explain")
    if f:
        per_file[f].append(m["seq"])
        if m["snapshot"].get("deferred"):
            deferred.add(f)
theirs = set()
for f in per_file:
    for l in open(f):
        theirs.add(json.loads(l)["seq"])
print(f"{len(misses)} misses, {sum(map(len, per_file.values()))} covered by "
      f"{len(per_file)} snapshots, at most {max(map(len, per_file.values()), default=0)} by one; "
      f"{len(theirs)} explained by rtmond; {len(deferred)} snapshots deferred (the worker busy), "
      f"{sum(m['snapshot'].get('skipped') == 'busy' for m in misses)} misses skipped (busy)")
lost = [s for seqs in per_file.values() for s in seqs if s not in theirs]
assert not lost, f"{len(lost)} misses with a snapshot but no explanation from rtmond: {lost[:10]}"
assert max(map(len, per_file.values()), default=0) > 16, \
    "no snapshot covers more than 16 misses (rtmond was stopped for 300 ms)"
assert deferred, "no deferred snapshot: misses that found the worker busy were left without one"
PY
echo "explain-batch: ok"

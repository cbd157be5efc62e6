#!/bin/sh
# rtmon-replay on a real trace-cmd recording (tests/vm/guest/record-tracecmd.sh:
# cyclictest at SCHED_FIFO 80 on the 6.1 PREEMPT_RT guest, trace-cmd record
# -C mono): the .dat (read with libtracecmd) and `trace-cmd report` of the
# same recording give the same records (count, chains, starts and latencies
# within 1 us: the text has microseconds); every wakeup of cyclictest's
# measuring thread by its timer (its switch-ins after its hrtimer expiry,
# counted from the report) is a record, as many as cyclictest's own loops;
# --explain gives the same culprits from both; --summary agrees with the
# records; truncated and corrupted copies of the .dat, and crafted section sizes,
# are input errors (exit 1, a message naming the file, nothing on stdout).
#   run_dat.sh REPLAY DATA_DIR TMPDIR
REPLAY=$1
D=$2
T=$3
mkdir -p "$T"
fail=0
name=tracecmd-cyclictest-6.1rt
DAT=$D/$name.dat
TXT=$D/$name.txt
CT=$D/$name.cyclictest.out
TGT=name=cyclictest,source=timer,end=switch_in,deadline=100us

pass() { echo "PASS: dat_$1"; }
bad() { echo "FAIL: dat_$1"; fail=1; }

for f in "$DAT" "$TXT" "$CT"; do
	[ -f "$f" ] || { echo "FAIL: dat_fixture: $f missing"; exit 1; }
done

# the .dat, auto-detected by its magic, and its report text
"$REPLAY" --json --summary --target "$TGT" "$DAT" > "$T/dat.json" 2> "$T/dat.err"
rc=$?
if [ $rc -eq 0 ] && grep -q 'trace clock mono: timer chains start at the programmed expiry' "$T/dat.err"; then
	pass "replay ($(grep -c '"type":"record"' "$T/dat.json") records; $(head -n 1 "$T/dat.err"))"
else
	bad "replay: exit $rc: $(head -c 300 "$T/dat.err")"
fi
"$REPLAY" --json --target "$TGT" "$TXT" > "$T/txt.json" 2> "$T/txt.err"
rc=$?
[ $rc -eq 0 ] && pass "replay_text" || bad "replay_text: exit $rc: $(head -c 300 "$T/txt.err")"
# the same through stdin (a file) and --format=dat
"$REPLAY" --json --summary --format=dat --target "$TGT" - < "$DAT" > "$T/stdin.json" 2>/dev/null
if cmp -s "$T/dat.json" "$T/stdin.json"; then pass "stdin"; else bad "stdin: output differs from the file's"; fi

# --summary: rtmonctl records' summary of the records printed (every
# record: timeouts too), in JSON and as text
"$REPLAY" --summary --target "$TGT" "$DAT" > "$T/dat.txt" 2>/dev/null
python3 - "$T/dat.json" "$T/dat.txt" <<'PY' || fail=1
import json, re, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
recs = [o for o in objs if o["type"] == "record"]
sums = [o["summary"] for o in objs if o["type"] == "summary"]
lat = sorted(r["latency_ns"] for r in recs)
p99 = lat[-(-len(lat) * 99 // 100) - 1]   # nearest rank
want = dict(count=len(recs), misses=sum("deadline_miss" in r["flags"] for r in recs),
            timeouts=sum("timeout" in r["flags"] for r in recs), min_ns=lat[0], max_ns=lat[-1])
t = sums[0]["targets"][0] if len(sums) == 1 and len(sums[0]["targets"]) == 1 else {}
got = {k: t.get(k) for k in want}
# (the target by its task name, as --target gave it)
text = re.search(r"^# cyclictest +(\d+) +(\d+) +(\d+) +([\d.]+) +[\d.]+ +([\d.]+) ", open(sys.argv[2]).read(), re.M)
ok = (got == want and sums[0]["records"] == len(recs) and t["name"] == "cyclictest" and
      p99 <= t["p99_ns"] < p99 + 1000 and objs.index(next(o for o in objs if o["type"] == "summary")) ==
      len(objs) - 2 and text and [int(text.group(i)) for i in (1, 2, 3)] ==
      [want["count"], want["misses"], want["timeouts"]] and
      abs(float(text.group(4)) * 1000 - want["min_ns"]) < 1 and abs(float(text.group(5)) * 1000 - want["max_ns"]) < 1)
print(f"{'PASS' if ok else 'FAIL'}: dat_summary: {got} from the records {want}; p99 {t.get('p99_ns')} ns, "
      f"nearest rank {p99} ns; text: {text and text.group(0)}")
sys.exit(0 if ok else 1)
PY

python3 - "$T/dat.json" "$T/txt.json" "$TXT" "$CT" <<'PY' || fail=1
import json, re, sys
dat_f, txt_f, report_f, ct_f = sys.argv[1:5]
ok = True

def check(name, cond, msg):
    global ok
    if cond:
        print(f"PASS: dat_{name}: {msg}")
    else:
        print(f"FAIL: dat_{name}: {msg}")
        ok = False

def load(f):
    recs, counters = [], None
    for line in open(f):
        o = json.loads(line)
        if o["type"] == "record":
            recs.append(o)
        elif o["type"] == "counters":
            counters = o
    return recs, counters

dat, dat_c = load(dat_f)
txt, txt_c = load(txt_f)
check("counters", dat_c is not None and txt_c is not None and dat_c["leaks"] == 0,
      f"both runs end with counters, .dat leaks {dat_c and dat_c['leaks']}")
key = lambda r: (r["start_ns"], r["pid"])
dat.sort(key=key)
txt.sort(key=key)
check("same_count", len(dat) == len(txt) and len(dat) > 0,
      f"{len(dat)} records from the .dat, {len(txt)} from its report text")
worst_start = worst_lat = 0
diff = []
for a, b in zip(dat, txt):
    same = (a["kind"], a["source"], a["pid"], a["comm"], a["timer"] if "timer" in a else None,
            [h["event"] for h in a["hops"]]) == \
           (b["kind"], b["source"], b["pid"], b["comm"], b["timer"] if "timer" in b else None,
            [h["event"] for h in b["hops"]])
    ds = abs(a["start_ns"] - b["start_ns"])
    dl = abs(a["latency_ns"] - b["latency_ns"])
    worst_start, worst_lat = max(worst_start, ds), max(worst_lat, dl)
    if not same or ds > 1000 or dl > 1000:
        diff.append((a, b))
check("same_records", not diff and len(dat) == len(txt),
      f"same chains, hops and sources; starts within {worst_start} ns, latencies within {worst_lat} ns (limit 1000)"
      + (f"; first difference: .dat {json.dumps(diff[0][0])[:300]} text {json.dumps(diff[0][1])[:300]}" if diff else ""))
# cyclictest's measuring thread and its loops, from its own output
ct = open(ct_f).read()
m = re.search(r"T: 0 \(\s*(\d+)\)", ct)
loops = len(re.findall(r"^\s*0:\s*\d+:\s*\d+\s*$", ct, re.M))
check("cyclictest_out", m is not None and loops > 0, f"measuring thread {m and m.group(1)}, {loops} loops")
tid = int(m.group(1)) if m else -1

# its wakeups in the report: a sched_waking of tid inside an hrtimer
# expiry (hrtimer_wakeup) on that cpu, then tid switched in
line_re = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?(\d+\.\d+):\s+(\w+):\s*(.*)$")
in_timer, pending, woken, events = {}, False, 0, 0
for line in open(report_f):
    m = line_re.match(line)
    if not m:
        continue
    events += 1
    cpu, ev, rest = int(m.group(3)), m.group(5), m.group(6)
    if ev == "hrtimer_expire_entry":
        in_timer[cpu] = "function=hrtimer_wakeup" in rest
    elif ev == "hrtimer_expire_exit":
        in_timer[cpu] = False
    elif ev == "sched_waking":
        w = re.search(r"pid=(\d+)", rest) or re.search(r":(\d+) \[", rest)
        if w and int(w.group(1)) == tid and in_timer.get(cpu):
            pending = True
    elif ev == "sched_switch":
        n = re.search(r"next_pid=(\d+)", rest) or re.search(r"==> .*:(\d+) \[", rest)
        if n and int(n.group(1)) == tid and pending:
            woken += 1
            pending = False
mine = [r for r in dat if r["pid"] == tid]
check("every_wakeup", woken > 0 and len(mine) == woken and woken == loops,
      f"{woken} timer wakeups of {tid} switched in (report, {events} events), "
      f"{len(mine)} records of {tid} from the .dat, {loops} cyclictest loops")
check("wakeup_records", all(r["kind"] == "timer" and r["timer"] == "sleeper"
                            and r["hops"][-1]["event"] == "switch_in" for r in mine),
      "each a sleeper timer chain of the measuring thread ending at its switch-in")
sys.exit(0 if ok else 1)
PY

# bad input: nothing on stdout, exit 1, a message naming the file
size=$(wc -c < "$DAT")
expect_bad() {
	n=$1 f=$2 pat=$3
	"$REPLAY" --target "$TGT" "$f" > "$T/$n.out" 2> "$T/$n.err"
	rc=$?
	if [ $rc -eq 1 ] && [ ! -s "$T/$n.out" ] && grep -q -- "$f: .*$pat" "$T/$n.err"; then
		pass "$n ($(tail -n 1 "$T/$n.err" | sed "s|$T/||"))"
	else
		bad "$n: exit $rc (want 1), stdout $(wc -c < "$T/$n.out") bytes (want 0), stderr: $(head -c 300 "$T/$n.err")"
	fi
}
head -c 4096 "$DAT" > "$T/cut-headers.dat"
expect_bad cut_headers "$T/cut-headers.dat" "truncated"
head -c $((size / 2)) "$DAT" > "$T/cut-half.dat"
expect_bad cut_half "$T/cut-half.dat" "truncated"
head -c $((size - 20000)) "$DAT" > "$T/cut-data.dat"
expect_bad cut_data "$T/cut-data.dat" "truncated"
head -c $((size - 100)) "$DAT" > "$T/cut-end.dat"
expect_bad cut_end "$T/cut-end.dat" "truncated"
# a page of 0xff bytes over the kallsyms, then over cpu 1's compressed data
head -c 4096 /dev/zero | tr '\000' '\377' > "$T/page"
for at in $((size / 2)) $((size - 20000)) $((size - 8000)); do
	cp "$DAT" "$T/corrupt-$at.dat"
	dd if="$T/page" of="$T/corrupt-$at.dat" bs=4096 seek="$at" oflag=seek_bytes \
		conv=notrunc status=none
	expect_bad "corrupt_$at" "$T/corrupt-$at.dat" "corrupt"
done
# crafted section sizes (data/tracecmd-bad-section-size.dat: the header,
# last options section and section names of the recording, the header's
# options offset made 37, the names' size 2^64 - 16): the walk of the
# sections must not add a size past the end into range, where it stood
# still or went round in a loop; an input error at once, under a timeout
BADSZ=$D/tracecmd-bad-section-size.dat
[ -f "$BADSZ" ] || { echo "FAIL: dat_fixture: $BADSZ missing"; exit 1; }
python3 - "$BADSZ" "$T" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
def variant(name, at, size):
    b = bytearray(d)
    struct.pack_into("<Q", b, at + 8, size)
    open(f"{sys.argv[2]}/{name}.dat", "wb").write(b)
variant("size-loop", 135, (1 << 64) - 114)	# 135 + 16 + size wraps to 37
variant("size-opts", 37, (1 << 64) - 53)	# the options section's end wraps to 0
PY
expect_bad_size() {
	n=$1 f=$2
	timeout 20 "$REPLAY" --target "$TGT" "$f" > "$T/$n.out" 2> "$T/$n.err"
	rc=$?
	if [ $rc -eq 124 ]; then
		bad "$n: still running after 20 s (the section walk does not end)"
	elif [ $rc -eq 1 ] && [ ! -s "$T/$n.out" ] &&
	     grep -q -- "$f: the section at byte [0-9]* ([0-9]* bytes) runs past the end of the file" "$T/$n.err"; then
		pass "$n ($(tail -n 1 "$T/$n.err" | sed "s|$D/||; s|$T/||"))"
	else
		bad "$n: exit $rc (want 1), stdout $(wc -c < "$T/$n.out") bytes (want 0), stderr: $(head -c 300 "$T/$n.err")"
	fi
}
expect_bad_size size_stands_still "$BADSZ"
expect_bad_size size_loop "$T/size-loop.dat"
expect_bad_size size_opts "$T/size-opts.dat"
# a mutant of that file (fuzz_replay) on which libtracecmd 3.1's open
# blocks for good: an input error once the open's time is up, not a hang
OPENBLK=$D/tracecmd-open-blocks.dat
timeout 20 "$REPLAY" --target "$TGT" "$OPENBLK" > "$T/open-blocks.out" 2> "$T/open-blocks.err"
rc=$?
if [ $rc -eq 1 ] && grep -q "did not finish opening this file" "$T/open-blocks.err"; then
	pass "open_blocks ($(tail -n 1 "$T/open-blocks.err" | sed "s|$D/||"))"
else
	bad "open_blocks: exit $rc (want 1), stderr: $(head -c 300 "$T/open-blocks.err")"
fi
# --explain on the .dat (its events printed by libtraceevent as the text
# lines the snapshot reader reads) and on its report text: an explanation
# per record, the same culprit (category and who; the text's times have
# microseconds only) for every record, parts adding up, none partial but
# those of overdue reports
"$REPLAY" --json --explain --target "$TGT" "$DAT" > "$T/explain-dat.json" 2> "$T/explain.err"
rc1=$?
"$REPLAY" --json --explain --target "$TGT" "$TXT" > "$T/explain-txt.json" 2>> "$T/explain.err"
rc2=$?
if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && out=$(python3 - "$T/explain-dat.json" "$T/explain-txt.json" <<'PY'
import json, re, sys
def load(f):
    return [o for o in map(json.loads, open(f)) if o["type"] == "explain"]
a, b = load(sys.argv[1]), load(sys.argv[2])
assert a and len(a) == len(b), f"{len(a)} explanations from the .dat, {len(b)} from the text"
who = lambda s: re.sub(r"^\d+% \([0-9.]+ us\) ", "", s)
diff = [(x["seq"], x["culprit"], y["culprit"]) for x, y in zip(a, b) if who(x["culprit"]) != who(y["culprit"])]
assert not diff, f"{len(diff)} culprits differ, first {diff[0]}"
# partial only for an overdue report (a chain still open: 2 here)
off = [x["seq"] for x in a if abs(x["sum_ns"] - x["latency_ns"]) > 1000 or
       (x["partial"] and "still open" not in x.get("missing", ""))]
assert not off, f"{len(off)} .dat explanations do not add up or are partial: {off[:5]}"
print(f"{len(a)} explanations ({sum(1 for x in a if x['partial'])} of overdue reports), every culprit the same from the .dat and its text")
PY
); then
	pass "explain ($out)"
else
	bad "explain: exit $rc1/$rc2: $out $(head -c 300 "$T/explain.err")"
fi
cat "$DAT" | "$REPLAY" - > "$T/pipe.out" 2> "$T/pipe.err"
rc=$?
if [ $rc -eq 1 ] && [ ! -s "$T/pipe.out" ] && grep -q "must be a file, not a pipe" "$T/pipe.err"; then
	pass "pipe_refused"
else
	bad "pipe_refused: exit $rc, stderr: $(head -c 200 "$T/pipe.err")"
fi
exit $fail

#!/usr/bin/env bash
# test_rtmonctl.sh RTMONCTL WORKDIR: rtmonctl's plot and top on the host,
# without the module: plot from a saved 'rtmonctl hist --json' (data/,
# from a guest run of rtmond-basic) and from an rtmond stats.json, to SVG
# (parsed as XML) and PNG (magic bytes), and its errors (exit status and
# message); top from a saved /proc/rtmon/status (--status) with rtmond's
# stats.json and misses.jsonl: plain-text frames when not on a terminal,
# one JSON object per refresh, chains/s between frames, the last miss
# across a rotation of misses.jsonl; top's option
# errors and the module-not-loaded message. Prints PASS:/FAIL: lines.
set -uo pipefail
R=$1
W=$2
here=$(cd "$(dirname "$0")" && pwd)
H=$here/data/hist-dispatch.json
S=$here/data/status-dispatch.txt
# shellcheck disable=SC2034 # (read by cli-lib.sh)
prefix=rtmonctl
# pass, fail, run
# shellcheck source=cli-lib.sh
. "$here/cli-lib.sh"
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1

# ---- plot
if ! command -v gnuplot >/dev/null; then
	fail plot "gnuplot not installed (scripts/deps.sh installs gnuplot-nox)"
else
	if "$R" plot dispatch -o d.svg --from "$H" >out.txt 2>err.txt &&
	   [ -s d.svg ] && python3 - d.svg <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith("svg"), root.tag
text = "".join(root.itertext())
assert "latency of dispatch" in text, "no title"
assert "deadline 5000" in text, "no deadline label"
assert "latency (µs)" in text, "no µs axis"
PY
	then pass "plot/svg ($(stat -c %s d.svg) bytes, XML with title, µs axis, deadline)"
	else fail plot/svg "$(cat err.txt) $(ls -l d.svg 2>&1)"
	fi
	if "$R" plot dispatch -o d.png --from "$H" >out.txt 2>err.txt && [ -s d.png ] &&
	   [ "$(head -c 8 d.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
		pass "plot/png ($(stat -c %s d.png) bytes, PNG signature)"
	else
		fail plot/png "$(cat err.txt) $(head -c 8 d.png 2>&1 | od -c | head -n 1)"
	fi
	# names gnuplot must not evaluate: backquotes ran a shell command when
	# they were written double-quoted (issue 21), a quote, a macro
	cp "$H" 'h`touch pwned-from`@x.json'
	rm -f pwned-from pwned-out
	if "$R" plot dispatch -o "it's \`touch pwned-out\`.svg" --from 'h`touch pwned-from`@x.json' \
		>out.txt 2>err.txt && [ -s "it's \`touch pwned-out\`.svg" ] &&
	   [ ! -e pwned-from ] && [ ! -e pwned-out ]; then
		pass "plot/quoting (backquotes, a quote and @ in the file names: written, nothing run)"
	else
		fail plot/quoting "$(cat err.txt) $(ls pwned-* 2>&1)"
	fi
	# a file name gnuplot would take for a pipe ('|cmd'): a file, nothing run
	rm -f pwned-pipe
	if "$R" plot dispatch -o '|touch pwned-pipe #.svg' --from "$H" >out.txt 2>err.txt &&
	   [ -s '|touch pwned-pipe #.svg' ] && grep -q '<svg' '|touch pwned-pipe #.svg' && [ ! -e pwned-pipe ]; then
		pass "plot/pipe-name ('|cmd #.svg' is a file name, no command run)"
	else
		fail plot/pipe-name "$(cat err.txt) $(ls -l pwned-* '|touch'* 2>&1)"
	fi
	# rtmond's stats.json (--dir), two targets, one without a deadline
	mkdir -p dir
	python3 - "$H" dir/stats.json <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
ct = {"count": 3, "sum_ns": 150000, "min_ns": 40000, "max_ns": 60000, "mean_ns": 50000,
      "p99_ns": 61000, "misses": 0, "timeouts": 0, "deadline_ns": 0,
      "buckets": [[40, 1], [50, 1], [60, 1]]}
json.dump({"hist_version": 1, "written_ns": 1, "targets": {"dispatch": h, "ct": ct}},
          open(sys.argv[2], "w"))
PY
	if "$R" plot ct -o ct.svg --dir dir >out.txt 2>err.txt && [ -s ct.svg ] &&
	   ! grep -q deadline ct.svg && "$R" plot dispatch -o st.png --from dir/stats.json >/dev/null 2>&1 &&
	   [ -s st.png ]; then
		pass "plot/stats-json (--dir DIR and --from stats.json TARGET; no deadline line without one)"
	else
		fail plot/stats-json "$(cat err.txt)"
	fi
	if "$R" --json plot dispatch -o j.svg --from "$H" >out.txt 2>err.txt &&
	   python3 -c 'import json,sys; o=json.load(open("out.txt")); assert o["format"]=="svg" and o["count"]==94 and o["output"]=="j.svg", o'; then
		pass "plot/json (one object: output, format, count)"
	else
		fail plot/json "$(cat out.txt err.txt)"
	fi
	run plot/unknown-target 1 "unknown target 'nope': dir/stats.json has dispatch, ct" \
		"$R" plot nope -o x.svg --dir dir
	# target names from a file reach the terminal escaped (issue 37, item 8)
	mkdir -p escdir
	python3 -c '
import sys
s = open(sys.argv[1], "rb").read().replace(b"\"ct\"", b"\"\\u001b[2Jct\"")
open(sys.argv[2], "wb").write(s)' dir/stats.json escdir/stats.json
	if ! "$R" plot $'\x1b[2Jnope' -o x.svg --dir escdir >out.txt 2>err.txt &&
	   grep -qF "unknown target '\x1b[2Jnope': escdir/stats.json has dispatch, \x1b[2Jct" err.txt &&
	   ! grep -q $'\x1b' err.txt; then
		pass "plot/unknown-target-escaped (the names' ESC printed as \\x1b)"
	else
		fail plot/unknown-target-escaped "$(od -c err.txt | head -n 5)"
	fi
	run plot/unwritable 1 "cannot write /nonexistent-dir/x.svg" "$R" plot dispatch -o /nonexistent-dir/x.svg --from "$H"
	run plot/unknown-extension 2 "unknown output format '.jpg'" "$R" plot dispatch -o x.jpg --from "$H"
	run plot/no-extension 2 "must end in .svg or .png" "$R" plot dispatch -o plotfile --from "$H"
	run plot/no-output 2 "no output file" "$R" plot dispatch --from "$H"
	run plot/no-target 2 "which target?" "$R" plot -o x.svg
	RTMON_GNUPLOT=/nonexistent/gnuplot run plot/gnuplot-missing 1 "apt-get install gnuplot-nox" \
		"$R" plot dispatch -o x.svg --from "$H"
	run plot/no-stats 1 "cannot read $W/none/stats.json" "$R" plot dispatch -o x.svg --dir "$W/none"
	echo '{"count": 0, "buckets": []}' >empty.json
	run plot/empty 1 "the histogram is empty" "$R" plot e -o x.svg --from empty.json
	echo '{"x": 1}' >other.json
	run plot/not-a-histogram 1 "is not a histogram" "$R" plot -o x.svg --from other.json
	# a failing gnuplot: its status, and no half-written file left
	printf '#!/bin/sh\ncat >/dev/null; exit 3\n' >badgp
	chmod +x badgp
	RTMON_GNUPLOT=$W/badgp run plot/gnuplot-fails 1 "exit status 3" "$R" plot dispatch -o bad.svg --from "$H"
	[ ! -e bad.svg ] || fail plot/gnuplot-fails "bad.svg left behind"
	[ ! -e x.svg ] || fail plot/errors "x.svg written by a failing command"
fi

# ---- top: option errors, module not loaded
run top/bad-interval 2 "bad interval '0'" "$R" top -i 0
run top/bad-interval-text 2 "bad interval 'soon'" "$R" top --interval soon
run top/bad-iterations 2 "bad iteration count '0'" "$R" top -n 0
run top/bad-iterations-text 2 "bad iteration count 'x'" "$R" top --iterations x
run top/unknown-option 2 "Try 'rtmonctl top --help'" "$R" top --bogus
run top/extra-argument 2 "unexpected argument 'foo'" "$R" top foo
# targets add: timer kinds are checked before the device is opened
run targets/timer-kind-unknown 2 "unknown timer kind in 'timerfd,cron'" \
	"$R" targets add --comm x --timer=timerfd,cron
run targets/timer-kind-empty-item 2 "unknown timer kind in 'timerfd,'" \
	"$R" targets add --comm x --timer=timerfd,
run targets/timer-and-irq 2 "give one source only" \
	"$R" targets add --comm x --timer=posix --irq 5
# a name its records and metrics could not carry as it is: refused
run targets/name-not-utf8 2 "a target name must be UTF-8 text" \
	"$R" targets add --name "$(printf 'ab\377')" --comm x
run targets/name-control 2 "a target name must be UTF-8 text" \
	"$R" targets add --name "$(printf 'a\033]0;x\007')" --comm x
if [ -e /proc/rtmon/status ]; then
	echo "SKIP: rtmonctl/top/no-module: rtmon is loaded here"
else
	run top/no-module 1 "is the rtmon module loaded? (modprobe rtmon)" "$R" top -n 1
fi
run top/bad-status-file 1 "cannot read $W/nothing" "$R" top -n 1 --status "$W/nothing"
echo "hello" >notstatus.txt
run top/not-a-status-file 1 "not an rtmon status file" "$R" top -n 1 --status notstatus.txt

# ---- top from a saved status file: text frames (stdout is a file here)
mkdir -p nodir
if "$R" top --status "$S" --dir nodir -n 2 -i 0.1 >top.txt 2>err.txt &&
   [ "$(grep -c '^rtmon 0.2.0 on 6.1.0-56-rt-amd64, tracking, 2 cpus' top.txt)" = 2 ] &&
   [ "$(grep -c '^$' top.txt)" = 3 ] && ! grep -q $'\033' top.txt &&
   grep -Eq '^0 +dispatch +- +94 +250us +4289us +<=34.4ms +34.4ms +17 +260 +5000us +-$' top.txt &&
   grep -Eq '^0 +dispatch +0.0 +94 ' top.txt &&
   grep -q 'drops: ring_full 0, no_chain 0, no_branch 0, task_table 0, cookie_table 0, hops 4300' top.txt &&
   grep -q 'ring 0/2048 waiting' top.txt; then
	pass "top/text (2 plain frames, no escape codes; counters, drops, ring; row: count, min/avg/p99/max, misses, overdue, deadline; chains/s 0.0 in frame 2)"
else
	fail top/text "$(cat err.txt) | $(head -n 14 top.txt | paste -sd'|')"
fi
# with rtmond's stats.json (fine p99) and misses.jsonl (last miss; a half-written line waits;
# the misses of an earlier boot, by boot id or by a time in the future, are not the last)
boot=$(cat /proc/sys/kernel/random/boot_id)
future=$(( $(awk '{ printf "%d", $1 }' /proc/uptime) * 1000000000 + 3600000000000 ))
printf '{"target_name":"dispatch","read_ns":5000000000,"seq":1}\n{"target_name":"other","read_ns":9000000000}\n{"target_name":"dispatch","read_ns":7000000000,"seq":2,"boot_id":"%s"}\n{"target_name":"dispatch","read_ns":8000000000,"seq":3,"boot_id":"00000000-0000-0000-0000-000000000000"}\n{"target_name":"dispatch","read_ns":%s,"seq":4}\n{"target_name":"dispatch","read_ns":' "$boot" "$future" >dir/misses.jsonl
if "$R" top --status "$S" --dir dir -n 2 -i 0.1 --json >top.json 2>err.txt && python3 - top.json <<'PY'
import json, sys
frames = [json.loads(l) for l in open(sys.argv[1])]
assert len(frames) == 2, f"{len(frames)} frames"
f1, f2 = frames
t1, t2 = f1["targets"][0], f2["targets"][0]
assert t1["name"] == "dispatch" and t1["count"] == 94 and t1["misses"] == 17 and t1["overdue"] == 260, t1
assert t1["min_ns"] == 250000 and t1["avg_ns"] == 4289000 and t1["max_ns"] == 34443000, t1
assert t1["p99_from"] == "rtmond" and t1["p99_ns"] == 34443720, t1
assert t1["deadline_ns"] == 5000000 and t1["last_miss_ns"] == 7000000000, t1
assert t1["chains_per_s"] is None and t2["chains_per_s"] == 0.0, (t1, t2)
assert f2["time_ns"] > f1["time_ns"]
assert f1["counters"]["drops"]["hops"] == 4300 and f1["counters"]["records_emitted"] == 354
assert f1["ring"] == {"waiting": 0, "capacity": 2048, "fill": 0.0}, f1["ring"]
assert f1["module"]["state"] == "tracking" and f1["rtmond"]["stats"] is True
PY
then
	pass "top/json (one object per refresh: counters, ring, per-target stats, p99 from rtmond, last miss from misses.jsonl but not an earlier boot's, chains/s)"
else
	fail top/json "$(cat err.txt) $(head -c 400 top.json)"
fi
# rtmond rotates misses.jsonl between two frames, a miss written just before:
# read from misses.jsonl.1, and the last misses seen are not forgotten
mkdir -p rotdir
printf '{"target_name":"dispatch","read_ns":7000000000,"seq":2,"boot_id":"%s"}\n' "$boot" >rotdir/misses.jsonl
"$R" top --status "$S" --dir rotdir -n 2 -i 1 --json >top-rot.json 2>err.txt &
tpid=$!
for ((i = 0; i < 50; i++)); do
	[ -s top-rot.json ] && break
	sleep 0.05
done
printf '{"target_name":"dispatch","read_ns":7500000000,"seq":3,"boot_id":"%s"}\n' "$boot" >>rotdir/misses.jsonl
mv rotdir/misses.jsonl rotdir/misses.jsonl.1
: >rotdir/misses.jsonl
wait $tpid
if got=$(python3 -c 'import json, sys; print(*[json.loads(l)["targets"][0]["last_miss_ns"] for l in open(sys.argv[1])])' top-rot.json 2>&1) &&
   [ "$got" = "7000000000 7500000000" ]; then
	pass "top/rotated (misses.jsonl rotated between frames: the last miss $got, read from misses.jsonl.1)"
else
	fail top/rotated "last_miss_ns per frame: '$got' (want 7000000000 7500000000): $(cat err.txt)"
fi
# ---- explain: a real record and ftrace snapshot (data/explain, from the
# guest test explain-hog on 6.1 PREEMPT_RT: cyclictest FIFO 50 behind a
# FIFO 80 busy loop, python3[173], on cpu 1)
E=$here/data/explain
if "$R" --json explain --record "$E/record.json" --snapshot "$E/snapshot.txt" >ex.json 2>err.txt &&
	python3 - ex.json <<'PY' 2>>err.txt
import json, sys
d = json.load(open(sys.argv[1]))
assert d["seq"] == 377 and d["latency_ns"] == 3361490 and d["sum_ns"] == d["latency_ns"], d
assert not d["partial"] and d["snapshot_bad_lines"] == 0 and d["snapshot_events"] > 1000, d
top = d["parts"][0]
assert top["category"] == "runnable" and top["who"] == "python3[173] rt 80" and top["cpu"] == 1, top
assert top["share"] > 0.95, top
assert d["culprit"].startswith("98% (3293.020 us) runnable behind python3[173] rt 80 on cpu 1"), d["culprit"]
assert sum(p["ns"] for p in d["parts"]) == d["latency_ns"]
PY
then
	pass "explain/real (runnable behind python3[173] rt 80: 98%, parts add up to 3361.490 us)"
else
	fail explain/real "$(head -c 400 err.txt)"
fi
"$R" explain --record "$E/record.json" --snapshot "$E/snapshot.txt" >ex.txt 2>err.txt
if grep -q "^#377 latency 3361.490 us: 98% (3293.020 us) runnable behind python3\[173\] rt 80 on cpu 1" ex.txt &&
	grep -q "sum 3361.490 us of 3361.490 us" ex.txt; then
	pass "explain/text (culprit line, per-part table, sum)"
else
	fail explain/text "$(head -c 300 ex.txt)"
fi
# a culprit's name is the task's (anyone can set it): its control bytes
# reach no terminal (issue 37, item 8)
python3 -c '
import sys
s = open(sys.argv[1], "rb").read().replace(b"python3", b"\x1b[2Jpy3")
open(sys.argv[2], "wb").write(s)' "$E/snapshot.txt" esc-snapshot.txt
"$R" explain --record "$E/record.json" --snapshot esc-snapshot.txt >ex.txt 2>err.txt
if grep -qF 'runnable behind \x1b[2Jpy3[173] rt 80 on cpu 1' ex.txt && ! grep -q $'\x1b' ex.txt; then
	pass "explain/escapes (a task name's ESC printed as \\x1b, in the culprit and the table)"
else
	fail explain/escapes "$(head -c 300 ex.txt | od -c | head -n 5) $(cat err.txt)"
fi
# a buffer that overran: cpu 1 lost its events up to 1 ms into the chain
# (the header's entries-written above entries-in-buffer), cpu 0 kept
# older ones. What cpu 1 did then is unknown, not its last task's
python3 -c '
import re, sys
ts = re.compile(r"\[(\d+)\][^:]* (\d+)\.(\d{6}): ")
with open(sys.argv[2], "w") as o:
    for l in open(sys.argv[1]):
        x = ts.search(l)
        if l.startswith("# entries-in-buffer"):
            l = "# entries-in-buffer/entries-written: 1000/4000   #P:2\n"
        elif x and x[1] == "001" and int(x[2]) * 10**9 + int(x[3]) * 1000 < 8551384840:
            continue
        o.write(l)' "$E/snapshot.txt" overrun-snapshot.txt
if "$R" --json explain --record "$E/record.json" --snapshot overrun-snapshot.txt >overrun.json 2>err.txt &&
	python3 - overrun.json <<'PY' 2>>err.txt
import json, sys
d = json.load(open(sys.argv[1]))
assert d["partial"] and "starts after" in d["missing"], d
before = [p for p in d["parts"] if p["who"] == "before the snapshot"]
assert before and before[0]["category"] == "unknown" and before[0]["ns"] >= 1000000, d["parts"][:3]
assert sum(p["ns"] for p in d["parts"]) == d["latency_ns"]
PY
then
	pass "explain/overrun (cpu 1's lost start is unknown, partial: 'the snapshot starts after the chain's start')"
else
	fail explain/overrun "$(head -c 400 err.txt)"
fi
# ---- explain, an item queued behind a busy worker (data/explain-worker,
# the guest test explain-worker on 6.1 PREEMPT_RT: dispatch_test's item 11
# was queued while its worker, dispatch_test[175], spun 20 ms on item 10;
# the snapshot holds librtmon's markers, rtmon_work end cookie=10 among
# them): the wait is "queued" behind the worker up to that marker, not the
# worker's running
E3=$here/data/explain-worker
if "$R" --json explain --record "$E3/record.json" --snapshot "$E3/snapshot.txt" >ex3.json 2>err.txt &&
	python3 - ex3.json "$E3/snapshot.txt" <<'PY' 2>>err.txt
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["seq"] == 14 and d["sum_ns"] == d["latency_ns"] and not d["partial"], d
top = d["parts"][0]
assert top["category"] == "queued" and top["who"].startswith("dispatch_test[175] "), top
assert d["culprit"].startswith("85% (7292.000 us) queued behind dispatch_test[175] nice 0, busy with earlier work"), d["culprit"]
# the queued time ends at the worker's end of item 10, in the snapshot
end10 = [l for l in open(sys.argv[2]) if "rtmon_work: end cookie=10" in l and "-175 " in l]
assert len(end10) == 1, end10
running = [p for p in d["parts"] if p["category"] == "running" and p["who"].startswith("dispatch_test[175]")]
assert running and running[0]["ns"] < 300000, running
# the 17.9 us runnable while cpu 1 ran its idle task: named idle, no task's
idle = [p for p in d["parts"] if p["category"] == "runnable" and p["cpu"] == 1 and "swapper" in p["who"]]
assert [p["who"] for p in idle] == ["idle (swapper/1)"], idle
PY
then
	pass "explain/queued (queued behind the worker dispatch_test[175] busy with item 10: 85%, its running on item 11 apart; cpu 1's idle task named idle)"
else
	fail explain/queued "$(head -c 400 err.txt)"
fi
# ---- explain of a record with the module's queued hop (data/explain-
# worker-queued, explain-worker on mainline, record version 5): item 71
# waited for the worker dispatch_test[162] until the module saw it end
# item 70 (hop 6, queued); the snapshot splits that wait between the
# worker's earlier work ("queued") and whoever preempted the worker on
# its cpu, never the worker's running; after the hop the worker runs
E4=$here/data/explain-worker-queued
if "$R" --json explain --record "$E4/record.json" --snapshot "$E4/snapshot.txt" >ex4.json 2>err.txt &&
	python3 - ex4.json "$E4/record.json" <<'PY' 2>>err.txt
import json, sys
d, rec = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
hops = rec["hops"]
q = [i for i, h in enumerate(hops) if h["event"] == "queued"]
assert q == [6] and hops[6]["pid"] == 162 and rec["blame"]["queued"] > 0, q
assert d["sum_ns"] == d["latency_ns"] and not d["partial"], d
at = lambda p, i: sum(b["ns"] for b in p["by_hop"] if b["hop"] == i)
wait = {}
for p in d["parts"]:
    if at(p, 6):	# one who may have a part per cpu
        k = (p["category"], p["who"])
        wait[k] = wait.get(k, 0) + at(p, 6)
assert sum(wait.values()) == hops[6]["ts_ns"] - hops[5]["ts_ns"], wait
assert wait.get(("queued", "dispatch_test[162] nice 0"), 0) >= 4000000, wait
assert not [k for k in wait if k[0] == "running"], wait
after = [(p["category"], p["who"]) for p in d["parts"] if at(p, 7)]
assert after == [("running", "dispatch_test[162] nice 0")], after
PY
then
	pass "explain/queued-hop (the module's queued hop: the wait before it is the worker's earlier work or its preemptions, never its running)"
else
	fail explain/queued-hop "$(head -c 400 err.txt)"
fi
# ---- explain on PREEMPT_RT, a softirq preempted (data/explain-rt-softirq,
# explain-hog on 6.1 PREEMPT_RT): the hog, woken in the NET_RX softirq a
# SCHED_OTHER sender runs itself, preempts the sender inside it; for 3.3 ms
# the softirq is open on cpu 1 while the hog runs. That time is the hog's:
# the softirq's task waits like any preempted task (it was blamed on
# "softirq NET_RX", 99%, as CI once blamed "softirq TIMER")
E2=$here/data/explain-rt-softirq
if "$R" --json explain --record "$E2/record.json" --snapshot "$E2/snapshot.txt" >ex2.json 2>err.txt &&
	python3 - ex2.json <<'PY' 2>>err.txt
import json, sys
d = json.load(open(sys.argv[1]))
assert d["seq"] == 1157 and d["sum_ns"] == d["latency_ns"] == 3534200 and not d["partial"], d
top = d["parts"][0]
assert top["category"] == "runnable" and top["who"] == "python3[175] rt 80" and top["cpu"] == 1, top
assert top["ns"] == 3313491, top
sirq = sum(p["ns"] for p in d["parts"] if p["category"] == "softirq_interference")
# the softirq's own run before the hog preempted it, and after
assert sirq < 200000, f"softirq interference {sirq} ns"
PY
then
	pass "explain/rt-softirq-preempted (runnable behind python3[175] rt 80, 3313.491 us; NET_RX only while it ran)"
else
	fail explain/rt-softirq-preempted "$(head -c 400 err.txt)"
fi
# ---- explain behind a priority-inheritance mutex (data/explain-pi, the
# guest test explain-pi on 6.1 PREEMPT_RT): pi-waiter (FIFO 50) blocked on
# the mutex pi-owner (SCHED_OTHER) held; the owner ran boosted to rt 50
E3=$here/data/explain-pi
if "$R" --json explain --record "$E3/record.json" --snapshot "$E3/snapshot.txt" >ex3.json 2>err.txt &&
	python3 - ex3.json <<'PY' 2>>err.txt
import json, sys
d = json.load(open(sys.argv[1]))
assert d["seq"] == 15 and d["sum_ns"] == d["latency_ns"] == 2448700 and not d["partial"], d
top = d["parts"][0]
assert top["category"] == "blocked" and top["ns"] == 1905000, top
assert top["who"] == "pi-waiter[174] rt 50 S, woken by pi-owner[175] (boosted to rt 50)", top
assert d["culprit"].startswith("78% (1905.000 us) blocked: pi-waiter[174]"), d["culprit"]
PY
then
	pass "explain/pi-boost (blocked 1905.000 us, woken by pi-owner[175], boosted to rt 50)"
else
	fail explain/pi-boost "$(head -c 400 err.txt) $(head -c 300 ex3.json)"
fi
# the same miss with its work_begin hop 10 us after the waiter blocked (the
# hop's clock and the trace's read microseconds apart under emulation; CI
# on 6.1 had it so): the block, its waker and the owner's boost are the
# same, not a "blocked S" cut in two with the boost lost
python3 - "$E3/record.json" >pi-late-hop.json <<'PY'
import json, sys
m = json.loads(open(sys.argv[1]).readline())
for h in m["hops"]:
    if h["event"] == "work_begin":
        h["ts_ns"] = 18319440000	# the block: 18.319430 in the snapshot
print(json.dumps(m))
PY
if "$R" --json explain --record pi-late-hop.json --snapshot "$E3/snapshot.txt" >ex3b.json 2>err.txt &&
	python3 - ex3b.json <<'PY' 2>>err.txt
import json, sys
d = json.load(open(sys.argv[1]))
blocked = [p for p in d["parts"] if p["category"] == "blocked"]
assert len(blocked) == 1, blocked
assert blocked[0]["who"] == "pi-waiter[174] rt 50 S, woken by pi-owner[175] (boosted to rt 50)", blocked
assert blocked[0]["ns"] == 1905000 and d["sum_ns"] == d["latency_ns"], d
PY
then
	pass "explain/pi-boost-late-hop (one blocked part, 1905.000 us, boosted to rt 50)"
else
	fail explain/pi-boost-late-hop "$(head -c 400 err.txt) $(head -c 300 ex3b.json)"
fi
# the trace stamping a hop's own event later than the module's clock
# (data/explain-pi-skew, the guest test explain-pi on 6.1 mainline: the
# module's probe reads its clock before ftrace's, and the emulated vCPU
# stood still between the two, 435 us at the waking, 384 us at the
# switch-in): woken by the timer at hop 3, the waiter is runnable there,
# not "blocked, woken by" the task the timer IRQ interrupted; switched in
# at hop 4, it runs there, not preempted by the task it replaced; its one
# block is on the mutex, the owner boosted
E4=$here/data/explain-pi-skew
if "$R" --json explain --record "$E4/record.json" --snapshot "$E4/snapshot.txt" >ex4.json 2>err.txt &&
	python3 - ex4.json <<'PY' 2>>err.txt
import json, sys
d = json.load(open(sys.argv[1]))
assert d["seq"] == 4 and d["sum_ns"] == d["latency_ns"] == 3180500 and not d["partial"], d
blocked = [p for p in d["parts"] if p["category"] == "blocked"]
assert len(blocked) == 1 and [b["hop"] for b in blocked[0]["by_hop"]] == [5], blocked
assert blocked[0]["who"] == "pi-waiter[200] rt 50 S, woken by pi-owner[201] (boosted to rt 50)", blocked
hop3 = [p for p in d["parts"] if any(b["hop"] == 3 for b in p["by_hop"])]
assert all(p["category"] == "runnable" for p in hop3), hop3
hop4 = [p for p in d["parts"] if any(b["hop"] == 4 for b in p["by_hop"])]
assert not any(p["category"] == "preempted" for p in hop4), hop4
run = [p for p in hop4 if p["category"] == "running" and p["who"] == "pi-waiter[200] rt 50"]
assert run and sum(b["ns"] for b in run[0]["by_hop"] if b["hop"] == 4) >= 384000, hop4
PY
then
	pass "explain/pi-skew (the trace 435 us late at the waking: runnable, not blocked; one block, boosted)"
else
	fail explain/pi-skew "$(head -c 400 err.txt) $(head -c 300 ex4.json)"
fi
# a chain through the waiter's sleep between two loops (the same snapshot,
# the record made to run from before that sleep to the loop's work_end):
# the timer woke it, in hard IRQ over pi-owner; the sleep is "woken by
# timer hrtimer_wakeup in pi-owner[201]", not by pi-owner, and no boost
python3 - "$E4/record.json" >pi-sleep.json <<'PY'
import json, sys
m = json.loads(open(sys.argv[1]).readline())
end = [h for h in m["hops"] if h["event"] == "work_end"][0]
begin = dict([h for h in m["hops"] if h["event"] == "work_begin"][0], ts_ns=32084300000)
m.update(seq=99, start_ns=begin["ts_ns"], latency_ns=end["ts_ns"] - begin["ts_ns"], hops=[begin, end])
print(json.dumps(m))
PY
if "$R" --json explain --record pi-sleep.json --snapshot "$E4/snapshot.txt" >ex4b.json 2>err.txt &&
	python3 - ex4b.json <<'PY' 2>>err.txt
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sum_ns"] == d["latency_ns"] == 248782118, d
blocked = sorted((p["who"], p["ns"]) for p in d["parts"] if p["category"] == "blocked")
assert blocked == [("pi-waiter[200] rt 50 S, woken by pi-owner[201] (boosted to rt 50)", 127000),
                   ("pi-waiter[200] rt 50 S, woken by timer hrtimer_wakeup in pi-owner[201]", 247079000)], blocked
PY
then
	pass "explain/woken-by-timer (the sleep: woken by timer hrtimer_wakeup in pi-owner[201], no boost)"
else
	fail explain/woken-by-timer "$(head -c 400 err.txt) $(head -c 300 ex4b.json)"
fi
# which hop lost the time: each part's by_hop adds up to the part, and at
# each hop the parts add up to that hop's own time (the record's hops),
# on every real fixture; a who taking time before two hops is one part
# with two entries (the last three fixtures have one: NET_RX before hops
# 1 and 3 on PREEMPT_RT, the boosted pi-owner before 3, 4 and 5)
ok=1
for d in explain explain-worker explain-worker-queued explain-rt-softirq explain-pi explain-pi-skew; do
	"$R" --json explain --record "$here/data/$d/record.json" --snapshot "$here/data/$d/snapshot.txt" \
		>byhop-$d.json 2>err-$d.txt && python3 - byhop-$d.json "$here/data/$d/record.json" "$d" <<'PY' 2>>err-$d.txt || { ok=0; cp err-$d.txt err.txt; }
import json, sys
d, rec = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
hops, start, end = rec["hops"], rec["start_ns"], rec["end_ns"]
per = {}
for p in d["parts"]:
    assert sum(b["ns"] for b in p["by_hop"]) == p["ns"], p
    assert p["by_hop"][0]["hop"] == p["hop"], p
    for b in p["by_hop"]:
        per[b["hop"]] = per.get(b["hop"], 0) + b["ns"]
for i in range(1, len(hops) + 1):
    a = min(max(hops[i - 1]["ts_ns"], start), end)
    b = min(hops[i]["ts_ns"] if i < len(hops) else end, end)
    assert per.get(i, 0) == max(0, b - a), (i, per.get(i), b - a)
assert sys.argv[3] in ("explain", "explain-worker", "explain-worker-queued") or \
    any(len(p["by_hop"]) > 1 for p in d["parts"]), "no part before two hops"
PY
done
if [ $ok = 1 ]; then
	pass "explain/by-hop (6 real fixtures: each part split by hop, each hop's parts add up to it)"
else
	fail explain/by-hop "$(head -c 400 err.txt)"
fi
# a snapshot cut short, one from another boot (no overlap), garbage: partial, never a made-up culprit
head -c 60000 "$E/snapshot.txt" >cut.txt
sed -E 's/ ([0-9]+)\.([0-9]{6}):/ 9\1.\2:/' "$E/snapshot.txt" >otherboot.txt
head -c 3000 /dev/urandom >garbage.txt 2>/dev/null || printf 'x [0] 1.2: sched_switch: prev_pid=zz\n' >garbage.txt
for k in cut otherboot garbage; do
	if "$R" --json explain --record "$E/record.json" --snapshot $k.txt >ex-$k.json 2>err.txt &&
		python3 - ex-$k.json $k <<'PY' 2>>err.txt
import json, sys
d, k = json.load(open(sys.argv[1])), sys.argv[2]
assert d["partial"] and d["missing"], d
assert d["sum_ns"] == d["latency_ns"], d
if k != "cut":
    assert d["culprit"].startswith("no culprit"), d["culprit"]
PY
	then
		pass "explain/partial-$k ($(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["missing"])' ex-$k.json))"
	else
		fail explain/partial-$k "$(head -c 400 err.txt) $(head -c 300 ex-$k.json)"
	fi
done
run explain/no-snapshot 1 "cannot read the snapshot" "$R" explain --record "$E/record.json" --snapshot /nonexistent
echo '{"seq": 1}' >bad-record.json
run explain/bad-record 1 "not a chain record" "$R" explain --record bad-record.json --snapshot "$E/snapshot.txt"
run explain/usage 2 "usage: rtmonctl explain" "$R" explain --snapshot "$E/snapshot.txt"
run explain/no-blame 1 "no blame in the record" "$R" explain --record "$E/record.json"
# ---- the module's own blame where no snapshot is: a saved record alone,
# and a miss rtmond took no snapshot for (busy); beside a snapshot's
# explanation too (the record of data/explain-worker-queued, version 5)
E4=$here/data/explain-worker-queued
mkdir -p dir-busy
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["snapshot"]={"skipped":"busy"}; print(json.dumps(m))' \
	"$E4/record.json" >dir-busy/misses.jsonl
if "$R" explain --record "$E4/record.json" >mb1.txt 2>err.txt &&
	"$R" explain 103 --dir dir-busy >mb2.txt 2>>err.txt &&
	"$R" --json explain 103 --dir dir-busy >mb3.json 2>>err.txt &&
	"$R" explain --record "$E4/record.json" --snapshot "$E4/snapshot.txt" >mb4.txt 2>>err.txt &&
	grep -q "^#103 latency 26.687 ms: the module's blame (no snapshot: none given)" mb1.txt &&
	grep -q "^  blame: queued 20.250 ms, running 4320.430 us" mb1.txt &&
	grep -q "^  queued behind dispatch_test\[162\]: 20.490 ms" mb1.txt &&
	grep -q "the module's blame (no snapshot: busy)" mb2.txt &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["no_snapshot"] == "busy" and d["module_blame"]["queued"] == 20250210, d' mb3.json 2>>err.txt &&
	grep -q "^  the module's own blame, from its hops:" mb4.txt && grep -q "^  blame: queued 20.250 ms" mb4.txt &&
	"$R" misses --dir dir-busy >mb5.txt 2>>err.txt &&
	grep -q "^         culprit: 76% (20.250 ms) queued behind dispatch_test\[162\] (the module's blame)" mb5.txt; then
	pass "explain/module-blame (a record alone, a miss without a snapshot: the module's blame, exit 0; beside a snapshot's; misses' culprit)"
else
	fail explain/module-blame "$(head -c 300 err.txt) $(head -c 300 mb1.txt)"
fi
# the file's words are escaped for the terminal; a record with blame but
# no seq is not explained (exit 1), never an empty JSON line
mkdir -p dir-esc
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["snapshot"]={"skipped":"bu\u001bsy"}; print(json.dumps(m))' \
	"$E4/record.json" >dir-esc/misses.jsonl
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); del m["seq"]; print(json.dumps(m))' \
	"$E4/record.json" >noseq.json
rc=0
"$R" --json explain --record noseq.json >mb7.json 2>>err.txt || rc=$?
if "$R" explain 103 --dir dir-esc >mb6.txt 2>err.txt && grep -qF 'no snapshot: bu\x1bsy)' mb6.txt &&
	! grep -q "$(printf '\033')" mb6.txt && [ $rc -eq 1 ] && [ ! -s mb7.json ]; then
	pass "explain/module-blame-input (a skip reason's ESC printed as \\x1b; a record without seq: exit 1, no output)"
else
	fail explain/module-blame-input "exit $rc: $(head -c 300 err.txt) $(od -c mb6.txt | head -n 3) $(head -c 100 mb7.json)"
fi
mkdir -p dir
cp "$E/record.json" dir/misses.jsonl
run explain/unknown-seq 1 "no miss with seq 5" "$R" explain 5 --dir dir
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["snapshot"]={"skipped":"rate_limited"}; print(json.dumps(m))' \
	"$E/record.json" >dir/misses.jsonl
run explain/rate-limited 1 "has no snapshot: rate_limited" "$R" explain 377 --dir dir
# several misses at once, in the order asked (as rtmond's misses.jsonl:
# two share a snapshot, and one with another snapshot comes between them,
# so the snapshot kept loaded must give way and come back); an unknown one
# and one without a snapshot are said on stderr, the others still
# explained, exit 1
python3 - "$E" "$here/data/explain-pi" >dir/misses.jsonl <<'PY'
import json, sys
a = json.load(open(sys.argv[1] + "/record.json"))
b = json.load(open(sys.argv[2] + "/record.json"))
for seq, m, d in ((1, a, sys.argv[1]), (2, a, sys.argv[1]), (3, b, sys.argv[2]), (4, a, None)):
    m = dict(m, seq=seq)
    m["snapshot"] = {"ftrace": d + "/snapshot.txt"} if d else {"skipped": "busy"}
    print(json.dumps(m))
PY
rc=0
"$R" --json explain 1 3 2 9 4 --dir dir >batch.json 2>err.txt || rc=$?
"$R" --json explain --record "$here/data/explain-pi/record.json" \
	--snapshot "$here/data/explain-pi/snapshot.txt" >one-pi.json 2>>err.txt
if [ $rc -eq 1 ] && python3 - batch.json ex.json one-pi.json err.txt <<'PY' 2>>err.txt
import json, sys
got = [json.loads(l) for l in open(sys.argv[1])]
assert [g["seq"] for g in got] == [1, 3, 2], [g["seq"] for g in got]
for g, want in ((got[0], sys.argv[2]), (got[2], sys.argv[2]), (got[1], sys.argv[3])):
    w = json.load(open(want))
    assert g["parts"] == w["parts"] and g["culprit"] == w["culprit"], (g["culprit"], w["culprit"])
    assert g["snapshot_events"] == w["snapshot_events"], g
err = open(sys.argv[4]).read()
assert "no miss with seq 9" in err and "miss 4 has no snapshot: busy" in err, err
PY
then
	pass "explain/several (1 3 2 in order, as one by one; seq 9 unknown, 4 without a snapshot: said, exit 1)"
else
	fail explain/several "exit $rc: $(head -c 400 err.txt)"
fi
if "$R" explain 1 x --dir dir >out.txt 2>err.txt; then
	fail explain/several-bad-seq "accepted"
elif [ $? -eq 2 ] && [ ! -s out.txt ] && grep -q "bad record number 'x'" err.txt; then
	pass "explain/several-bad-seq (exit 2 before any output)"
else
	fail explain/several-bad-seq "$(head -c 300 err.txt) $(head -c 100 out.txt)"
fi
# a line whose flags are not strings (issue 21, item 16: a NULL strcmp)
echo '{"seq":1,"flags":[1,null,"timeout"],"target_name":"x"}' >dir/misses.jsonl
if "$R" misses --dir dir >out.txt 2>err.txt && grep -q '^1 .* timeout' out.txt &&
   "$R" show 1 --dir dir >out2.txt 2>>err.txt && grep -q ' ? ? timeout' out2.txt; then
	pass "misses/odd-flags (non-string flags shown as ?, the timeout still seen)"
else
	fail misses/odd-flags "$(cat err.txt out.txt out2.txt 2>/dev/null | head -c 300)"
fi
# an LTTng snapshot object without its name: '?', not printf's (null)
echo '{"seq":1,"flags":["deadline_miss"],"target_name":"x","snapshot":{"ftrace":"f.dat","lttng":{}}}' \
	>dir/misses.jsonl
if "$R" misses --dir dir >out.txt 2>err.txt && grep -q 'f.dat + lttng ?$' out.txt &&
   ! grep -q null out.txt; then
	pass "misses/lttng-without-name (shown as ?)"
else
	fail misses/lttng-without-name "$(cat err.txt out.txt 2>/dev/null | head -c 300)"
fi
# names from the file reach the terminal escaped (issue 21, item 5): a comm
# with ESC and a newline, a target name with a CSI (C1) and BEL, a hop's who
python3 - <<'PY' >dir/misses.jsonl
import json
print(json.dumps({"seq": 7, "kind": "irq", "source": 3, "comm": "ev\x1b]0;owned\x07il\nx",
                  "pid": 42, "target_name": "t\x9b2Jx\x07", "latency_ns": 2000, "deadline_ns": 1000,
                  "flags": ["miss\x1b[8m"], "hops": [{"event": "switch_in", "cpu": 0, "ctx": "task",
                  "what": "ev\x1b[2Jil[42]", "delta_ns": 5}],
                  "snapshot": {"skipped": "rate\x1b[1Alimited"}}))
PY
if "$R" misses --dir dir >out.txt 2>err.txt && "$R" show 7 --dir dir >out2.txt 2>>err.txt &&
   python3 - out.txt out2.txt <<'PY' 2>>err.txt
import sys
for f in sys.argv[1:]:
    b = open(f, "rb").read()
    bad = [c for c in b if (c < 0x20 and c not in (0x0a,)) or c == 0x7f]
    assert not bad, (f, bad, b)
    assert "\u009b".encode() not in b, (f, b)
    t = b.decode()
    assert "ev\\x1b]0;owned\\x07il\\x0ax[42]" in t, (f, t)
    assert "t\\x9b2Jx\\x07" in t, (f, t)
    assert "(rate\\x1b[1Alimited)" in t, (f, t)
    if f.endswith("out2.txt"):
        assert "miss\\x1b[8m" in t and "ev\\x1b[2Jil[42]" in t, t
    else:
        assert t.count("\n") == 2, t   # the header and one line: the comm's newline escaped
PY
then
	pass "misses/show-escape (ESC, BEL, newline and C1 CSI in names shown as \\xHH)"
else
	fail misses/show-escape "$(cat err.txt out.txt out2.txt 2>/dev/null | head -c 600)"
fi
# top: a target name with ESC in the module's status file
sed 's/^  \([0-9]*\) dispatch: /  \1 disp\x1b[2Jatch: /' "$S" >status-esc.txt
if grep -q $'\x1b' status-esc.txt && "$R" top --status status-esc.txt -n 1 --dir dir >out.txt 2>err.txt &&
   ! grep -q $'\x1b' out.txt && grep -qF 'disp\x1b[2Jatch' out.txt; then
	pass "top/escape (a target name with ESC shown as \\x1b)"
else
	fail top/escape "$(cat err.txt out.txt 2>/dev/null | head -c 400)"
fi
[ $fails -eq 0 ]

# LTTng kernel tracing in the miss snapshots (issue 18): with lttng-modules
# (built for this kernel by scripts/build-lttng-modules, RTMON_LTTNG_MODULES)
# installed and lttng-sessiond running with its kernel domain, rtmond's
# snapshot session gets a kernel channel, and each miss of
# tests/apps/dispatch_test (IRQ -> feeder -> dispatcher work_begin -> worker
# work_end, every 10th item 20 ms late against 5 ms) is one CTF trace
# collection: babeltrace2 reads it, and finds, for every hop of the miss's
# record, the kernel or user-space event at the same tracepoint (the chain's
# irq_handler_entry, its sched_waking and sched_switch, the work_begin and
# work_end markers, by their cookie and vtid context), in the hops' order, near their
# times (one clock: CLOCK_MONOTONIC in both), then the rtmond:miss event. The snapshots'
# sizes and the time to take each are printed. Then the same over net:// to
# an lttng-relayd on loopback: the relayed trace has its kernel part.
# timeout: 600
. "$RTMON_TOP/tests/vm/guest/lib.sh"

RTMOND=$RTMON_TOP/build/monitor/rtmond
[ -x "$RTMOND" ] || fail "rtmond not built"
[ -n "${RTMON_LTTNG_MODULES:-}" ] && [ -f "$RTMON_LTTNG_MODULES/lttng-tracer.ko" ] ||
	fail "no lttng-modules for this kernel (RTMON_LTTNG_MODULES=${RTMON_LTTNG_MODULES:-}: scripts/build-lttng-modules)"
rm -rf "$T"/*
out=/tmp/lttng-kernel
rm -rf $out
pid=
relay=
cleanup() {
	set +e
	[ -n "$pid" ] && kill -9 $pid 2>/dev/null && wait $pid 2>/dev/null
	[ -n "$relay" ] && kill $relay 2>/dev/null
	# lttng-sessiond unloads the modules it loaded when it exits
	if pidof lttng-sessiond >/dev/null; then
		kill $(pidof lttng-sessiond)
		for ((i = 0; i < 100; i++)); do pidof lttng-sessiond >/dev/null || break; sleep 0.1; done
	fi
	for ((i = 0; i < 5; i++)); do
		mods=$(awk '/^lttng/ { print $1 }' /proc/modules)
		[ -z "$mods" ] && break
		rmmod $mods 2>/dev/null
	done
	cp -r $out $T/out 2>/dev/null
	rtmon_cleanup
}
trap cleanup EXIT

# the modules, where modprobe (run by lttng-sessiond) finds them: the
# guest's /lib/modules is a copy-on-write overlay of the board kernel's
kd=/lib/modules/$(uname -r)/extra/lttng
mkdir -p $kd
cp "$RTMON_LTTNG_MODULES"/*.ko $kd/ || fail "cannot copy the modules to $kd"
depmod -a || fail "depmod failed"
note "lttng-modules: $(cat "$RTMON_LTTNG_MODULES/BUILT" 2>/dev/null)"
rtmon_load
ip link set lo up
t0=$(date +%s.%N)
lttng-sessiond --background >$T/sessiond.log 2>&1 || fail "lttng-sessiond did not start: $(tail -n 3 $T/sessiond.log)"
grep -q '^lttng_tracer ' /proc/modules ||
	fail "lttng-sessiond did not load lttng-tracer: $(tail -n 5 $T/sessiond.log; dmesg | grep -i lttng | tail -n 5)"
note "lttng-sessiond up with $(grep -c "^lttng" /proc/modules) lttng modules in $(awk -v a=$t0 -v b=$(date +%s.%N) "BEGIN { printf \"%.1f\", b - a }") s"
lttng list -k >$T/kernel-events.txt 2>&1 || fail "lttng list -k failed: $(tail -n 3 $T/kernel-events.txt)"
for e in sched_switch sched_waking irq_handler_entry irq_softirq_entry timer_hrtimer_expire_entry; do
	grep -q "^ *$e " $T/kernel-events.txt || fail "the kernel tracer has no $e event"
done

write_conf() { # LTTNG_OUTPUT
	cat >$T/rtmon.conf <<CONF
targets = ( { name = "dispatch"; comm = "dispatch_test"; source = "any_irq";
	      end = "work_end"; deadline = "5ms"; } );
snapshot = { dir = "$out"; ftrace = false; lttng = true; lttng_output = "$1";
	     lttng_kernel_buffer_kb = 1024; on_timeout = false; rate_burst = 3; rate_interval = "30s"; };
realtime = { policy = "fifo"; priority = 10; mlockall = true; keep_admin = true; };
CONF
}
# run_app: the application, with librtmon's lttng-ust markers
run_app() {
	echo "some data for the feeder" >/rtmon-share/feed
	LD_PRELOAD=$RTMON_TOP/build/monitor/librtmon-ust.so \
		"$APPS/dispatch_test" -f /rtmon-share/feed -n 60 -p 4000 -w 50 -s 10 -S 20000 \
		>$T/items.json || fail "dispatch_test failed"
}
# stop_rtmond: after its snapshots are written (the worker records them)
stop_rtmond() {
	local i n
	for ((i = 0; i < 300; i++)); do
		n=$(grep -c "lttng: snapshot .* recorded in" $T/rtmond.log || true)
		[ "$n" -ge "$1" ] && break
		sleep 0.1
	done
	kill -TERM $pid
	wait $pid || fail "rtmond exited $? on SIGTERM"
	pid=
}

# round LTTNG_OUTPUT SNAPSHOTS: rtmond with its kernel channel while the
# application runs, stopped once it has recorded SNAPSHOTS (or 30 s later)
round() {
	write_conf "$1"
	"$RTMOND" -c $T/rtmon.conf 2>$T/rtmond.log &
	pid=$!
	rtmond_wait_log "rtmond: running" 60
	grep -q "kernel sched, irq, softirq and hrtimer events (1024 KiB per cpu)" $T/rtmond.log ||
		fail "rtmond has no kernel channel (output '$1'): $(grep lttng: $T/rtmond.log | tail -n 3)"
	run_app
	sleep 1
	stop_rtmond "$2"
}

# --- local snapshots
round "" 3
cp -r $out $T/out-local	# (the relay round below starts afresh)
sed 's/^/# /' $T/rtmond.log | grep 'lttng' | head -20
python3 - "$out" <<'PY' || fail "the kernel and user-space events of the misses are not in their LTTng snapshots"
import glob, json, os, re, subprocess, sys
out = sys.argv[1]
T = os.environ["T"]
misses = [json.loads(l) for l in open(out + "/misses.jsonl")]
snapped = [m for m in misses if m["snapshot"].get("lttng")]
print(f"{len(misses)} misses, {len(snapped)} with an LTTng snapshot")
assert snapped, "no miss has an LTTng snapshot"
assert all(m["snapshot"]["lttng_domains"] == "user+kernel" for m in snapped), \
    {m["snapshot"]["lttng_domains"] for m in snapped}
took = {m.group(1): float(m.group(2)) for m in
        re.finditer(r"lttng: snapshot (\S+) recorded in ([0-9.]+) ms", open(T + "/rtmond.log").read())}
ev_re = re.compile(r"^\[(\d+)\] \(\+[^)]*\) (?:\S+ )?(\S+): (.*)$")
def field(body, name):
    m = re.search(r"\b" + name + r" = (-?\w+)", body)
    return m.group(1) if m else None
# a hop and the event at the same tracepoint: (name, field, value of the hop)
def want(h):
    e, pid = h["event"], str(h["pid"])
    if e == "irq":
        return "irq_handler_entry", "irq", h["what"].split()[-1]
    if e == "irq_exit":
        return "irq_handler_exit", "irq", h["what"].split()[-1]
    if e == "softirq":
        return "irq_softirq_entry", "cpu_id", str(h["cpu"])
    if e == "waking":
        return "sched_waking", "tid", pid
    if e == "switch_in":
        return "sched_switch", "next_tid", pid
    if e in ("block", "wait", "preempt"):
        return "sched_switch", "prev_tid", pid
    if e in ("work_begin", "work_end"):
        return "rtmon:" + e, "vtid", pid
    return None, None, None
NEED = {"irq", "waking", "switch_in", "work_begin", "work_end"}
bad = []
print(f"{'miss':>6} {'snapshot':<34} {'events':>7} {'kernel':>7} {'bytes':>9} {'took ms':>8}  "
      "hops matched (max |dt| us: kernel, markers)")
for m in snapped:
    name = m["snapshot"]["lttng"]["name"]
    dirs = glob.glob(f"{out}/lttng/{name}-*")
    if len(dirs) != 1:
        bad.append(f"{name}: snapshot directories {dirs}")
        continue
    d = dirs[0]
    if not os.path.isdir(d + "/kernel"):
        bad.append(f"{name}: no kernel trace in {os.listdir(d)}")
        continue
    size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)
    txt = subprocess.run(["babeltrace2", "--clock-cycles", d], capture_output=True, text=True,
                         check=True).stdout
    evs = []
    for line in txt.splitlines():
        mm = ev_re.match(line)
        if mm:
            evs.append((int(mm.group(1)), mm.group(2), mm.group(3)))
    nk = sum(1 for e in evs if ":" not in e[1])
    # each hop: an event of its tracepoint and task. A marker is the one
    # with the record's cookie, written just before its ioctl (the task may
    # be preempted in between: it may come before the kernel hops of that
    # preemption), after the chain's start. A kernel hop may be any such
    # event within 5 ms: emulated, the two probes at one tracepoint are up
    # to ~0.1 ms apart, more than some of the chain's task switches, so the
    # kernel hops take the in-order assignment of least total distance, and
    # the table prints how near they were.
    hops, cand, marks = [], [], []
    for h in m["hops"]:
        ename, f, v = want(h)
        if not ename:
            continue
        t = h["ts_ns"]
        if ename.startswith("rtmon:"):
            cs = [i for i, e in enumerate(evs) if e[1] == ename and t - 50000000 <= e[0] <= t
                  and field(e[2], "vtid") == str(h["pid"]) and field(e[2], "cookie") == str(m["cookie"])]
        else:
            cs = [i for i, e in enumerate(evs) if e[1] == ename and abs(e[0] - t) <= 5000000
                  and field(e[2], f) == v]
        if not cs:
            bad.append(f"{name}: hop {h['event']} {h['what']} at {t}: no {ename} {f}={v}"
                       + (f" cookie={m['cookie']}" if ename.startswith("rtmon:") else "") + " near it")
            continue
        if ename.startswith("rtmon:"):
            marks.append((h, cs[0]))
            continue
        hops.append(h)
        cand.append(cs)
    # best[k][j]: least total |dt| of hops 0..k with hop k on event cand[k][j]
    best, back = [], []
    for k, cs in enumerate(cand):
        row, brow = [], []
        for i in cs:
            dt = abs(evs[i][0] - hops[k]["ts_ns"])
            if k == 0:
                row.append(dt); brow.append(None)
                continue
            prev = [(best[k - 1][p], p) for p, pi in enumerate(cand[k - 1]) if pi < i]
            c, p = min(prev) if prev else (float("inf"), None)
            row.append(c + dt); brow.append(p)
        best.append(row); back.append(brow)
    matched, dtk, dtm, order_ok, kern_ok = [], [0], [0], True, True
    for k, (h, i) in enumerate(marks):
        if evs[i][0] < m["start_ns"] or (k and i < marks[k - 1][1]):
            order_ok = False
            print(f"  {name}: marker {evs[i][1]} at {evs[i][0]}: before the chain's start "
                  f"{m['start_ns']} or before the marker of the hop before")
        dtm.append(abs(evs[i][0] - h["ts_ns"]))
    if cand:
        j = min(range(len(cand[-1])), key=lambda j: best[-1][j])
        kern_ok = best[-1][j] != float("inf")
    if kern_ok:
        pick = [None] * len(cand)
        for k in range(len(cand) - 1, -1, -1):
            pick[k] = cand[k][j]
            j = back[k][j]
        for h, i in zip(hops, pick):
            dtk.append(abs(evs[i][0] - h["ts_ns"]))
        matched = [h["event"] for h in m["hops"]
                   if any(h is x for x in hops) or any(h is x for x, _ in marks)]
    else:
        order_ok = False
        for h, cs in zip(hops, cand):
            near = min(cs, key=lambda i: abs(evs[i][0] - h["ts_ns"]))
            print(f"  {name}: hop {h['event']:<10} {h['pid']:>6} at {h['ts_ns']}: "
                  f"{len(cs)} events, nearest {evs[near][0]} ({evs[near][0] - h['ts_ns']:+d} ns)")
    if not order_ok:
        bad.append(f"{name}: the hops' events are not in the hops' order")
    missing = NEED - set(matched)
    if missing:
        bad.append(f"{name}: no event for the hops {sorted(missing)} (hops {[h['event'] for h in m['hops']]})")
    miss_ev = [e for e in evs if e[1] == "rtmond:miss" and field(e[2], "seq") == str(m["seq"])]
    if not miss_ev:
        bad.append(f"{name}: no rtmond:miss event with seq {m['seq']}")
    elif miss_ev[0][0] < m["end_ns"]:
        bad.append(f"{name}: rtmond:miss at {miss_ev[0][0]}, before the chain's end {m['end_ns']}")
    print(f"{m['seq']:>6} {os.path.basename(d)[:34]:<34} {len(evs):>7} {nk:>7} {size:>9} "
          f"{took.get(name, float('nan')):>8.1f}  {','.join(matched)} "
          f"({max(dtk) / 1000:.1f}, {max(dtm) / 1000:.1f})")
for b in bad:
    print("BAD:", b)
assert not bad
PY

# --- over net:// to lttng-relayd
rm -rf $out
lttng-relayd -d -o $out/relay -C tcp://127.0.0.1:5342 -D tcp://127.0.0.1:5343 \
	>$T/relayd.log 2>&1 || fail "lttng-relayd did not start"
relay=$(pidof lttng-relayd)
round "net://127.0.0.1" 1
python3 - "$out" <<'PY' || fail "the relayed snapshot lacks its kernel part"
import glob, os, subprocess, sys
out = sys.argv[1]
kd = sorted(glob.glob(out + "/relay/**/miss-*/kernel", recursive=True))
print("relayed snapshots with a kernel part:", [os.path.relpath(k, out) for k in kd])
assert kd, f"no kernel trace under {out}/relay"
d = os.path.dirname(kd[-1])
txt = subprocess.run(["babeltrace2", d], capture_output=True, text=True, check=True).stdout
n = {k: txt.count(" " + k + ":") for k in ("sched_switch", "sched_waking", "irq_handler_entry", "rtmond:miss")}
print(f"babeltrace2 {os.path.relpath(d, out)}: {n}")
assert all(n.values()), n
PY
echo "lttng-kernel: ok"

# GPIO loopback on the simulated chip: rtmon-gpio-loop toggles the stimulus
# line 1,000 times at a fixed period; rtmon-gpio-respond (SCHED_FIFO, on
# cpu 1) answers each edge between rtmon_work_begin/end(edge number) and
# toggles the response line. The driver adds a target to rtmon (--rtmon:
# the responder's comm, the input line's IRQ by its name, end work_end)
# and joins its measurements with rtmon's records edge by edge by cookie.
# Run twice: the responder below its IRQ thread (priority 40) and above it
# (80: it preempts the thread, whose next edge then finds it still
# runnable: no wakeup is traced, rtmon follows the thread's next pass).
# Checks: 1,000 edges answered, 1,000 chains joined, none missing, none
# duplicate or extra, rtmon's start within the bound before the gpiolib
# edge timestamp, rtmon's end between the responder's clock reads around
# its work_end marker, every chain inside the driver's stimulus..response
# window; the driver's histogram (--hist-out) plotted by rtmonctl plot.
# Then 200 edges at a random period joined against the records
# file of 'rtmonctl records --json' (--records, as with rtmond).
# timeout: 300
. "$RTMON_TOP/tests/vm/guest/lib.sh"
. "$RTMON_TOP/tests/vm/guest/gpio-lib.sh"

edges=${EDGES:-1000}
period_us=${PERIOD_US:-5000}
deadline_us=5000

rtmon_load
gpio_sim_up

# ---- 1: 1,000 edges, the driver reads /dev/rtmon itself ----
# fixed_run NAME PRIO: the responder at SCHED_FIFO PRIO (its IRQ thread: 50)
fixed_run() {
	local name=$1 prio=$2 rc=0
	respond_start "$name" --count "$edges" --work-us 50 --prio "$prio" --cpu 1
	"$LOOP" --board "$BOARD_FILE" --count "$edges" --period-us "$period_us" \
		--deadline-us $deadline_us --prio 70 --cpu 0 "${BOUND[@]}" \
		--ready "$W/$name.ready" --log "$W/$name.jsonl" --rtmon \
		--hist-out "$W/$name.hist.json" --json --edges >"$W/$name.json" 2>"$W/$name.loop.err" || rc=$?
	respond_wait
	counters=$(grep -E '^  (irq threads|work|drops|chains|branches)' /proc/rtmon/status | tr -s ' \n' ' ')
	echo "$name: module counters:$counters"
	# (one line: run-vm reports the log's last line)
	[ $rc -eq 0 ] || fail "rtmon-gpio-loop ($name, responder priority $prio) exit $rc: $(head -c 300 "$W/$name.loop.err" | tr '\n' ' ')$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
j = d.get("join") or {}
print(" join:", {k: j.get(k) for k in ("joined", "missing", "duplicate", "extra", "no_cookie", "timeout_reports")},
      "edges without an rtmon record:", [e for e in d.get("edges_list", []) if "rtmon_seq" not in e][:3], end="")' "$W/$name.json" 2>/dev/null); module:$counters"
}
fixed_run fixed "${RESP_PRIO:-40}"
fixed_run fixed80 80

# the driver's histogram, plotted as rtmonctl plots a target's
if command -v gnuplot >/dev/null; then
	$RTMONCTL plot -o "$W/fixed.hist.svg" --from "$W/fixed.hist.json" >/dev/null 2>"$W/plot.err" ||
		fail "rtmonctl plot of the driver's --hist-out failed"
	grep -q "<svg" "$W/fixed.hist.svg" || fail "no SVG from rtmonctl plot"
	note "histogram plotted: fixed.hist.svg"
fi

# ---- 2: random period, joined against rtmonctl's records file ----
records_run

python3 - "$W" "$edges" <<'PY'
import json, sys
W, edges = sys.argv[1], int(sys.argv[2])
us = lambda ns: f"{ns / 1000:.1f} us"
for name, prio in (("fixed", "40"), ("fixed80", "80")):
  d = json.load(open(f"{W}/{name}.json"))
  j, s = d["join"], d["stats"]
  print(f"--- responder at priority {prio} ({name})")
  print(f"fixed: {d['edges']['sent']} edges, {d['edges']['lost']} lost; response "
        f"min {us(s['min_ns'])} p50 {us(s['p50_ns'])} p99 {us(s['p99_ns'])} max {us(s['max_ns'])}")
  print(f"join: {j['joined']} joined, {j['missing']} missing, {j['duplicate']} duplicate, "
        f"{j['extra']} extra, {j['no_cookie']} without cookie, {j['timeout_reports']} overdue reports")
  em = j["edge_minus_start_ns"]
  print(f"agreement: edge timestamp - rtmon start in [{us(em['min'])}, {us(em['max'])}], "
        f"bound {us(j['bound_ns'])}; edge timestamp outside rtmon's hard IRQ: {j['edge_outside_irq']}; "
        f"end outside the marker window: {j['end_outside_marker']}")
  r = j["rtmon_latency"]
  print(f"rtmon latency (IRQ -> work_end): min {us(r['min_ns'])} p50 {us(r['p50_ns'])} max {us(r['max_ns'])}")
  assert d["edges"]["sent"] == edges and d["edges"]["lost"] == 0, d["edges"]
  assert j["responder_edges"] == edges, j
  assert j["joined"] == edges, f"{j['joined']} of {edges} edges joined"
  for k in ("missing", "duplicate", "extra", "no_cookie", "edge_outside_irq",
            "end_outside_marker", "outside_driver_window", "not_answered",
            "unmapped_responder_edges", "rtmon_miss_not_driver_miss"):
      assert j[k] == 0, f"{k}: {j[k]}"
  # the bound holds for bound_pct of the edges (emulation: gpio-lib.sh)
  print(f"edges outside the bound: {j['start_outside_bound']} (allowed: {100 - j['bound_pct']:g}%)")
  assert (edges - j["start_outside_bound"]) * 100 >= j["bound_pct"] * edges, j
  assert j["ok"] and d["ok"]
  el = d["edges_list"]
  assert len(el) == edges and all("rtmon_seq" in e for e in el)
  assert sorted(e["cookie"] for e in el) == list(range(1, edges + 1))
  sl = d["slowest"][0]
  print(f"slowest edge {sl['edge']}: {us(sl['response_ns'])}, breakdown {sl.get('breakdown')}")
  print(f"  path {sl.get('path')}")
r = json.load(open(f"{W}/random.json"))
rj = r["join"]
print(f"random period, --records: {rj['joined']} joined, {rj['missing']} missing, "
      f"{rj['extra']} extra, edge - start max {us(rj['edge_minus_start_ns']['max'])}")
assert rj["ok"] and rj["joined"] == 200, rj
PY
echo "gpio-loopback: ok"

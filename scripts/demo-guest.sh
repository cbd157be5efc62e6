# The demo, inside the emulated board: a GPIO loopback with rtmon watching.
# Run by scripts/demo through the QEMU harness; timings are emulated, not
# real latencies (a real board: README.md, "GPIO loopback").
# timeout: 600
set -euo pipefail
say() { printf '\n>>> %s\n' "$*"; }
indent() { sed 's/^/    /'; }
ctl=$RTMON_TOP/build/monitor/rtmonctl
rtmond=$RTMON_TOP/build/monitor/rtmond
respond=$RTMON_TOP/build/gpio/rtmon-gpio-respond
loop=$RTMON_TOP/build/gpio/rtmon-gpio-loop
board=$RTMON_TOP/boards/$RTMON_BOARD.board
sim=$RTMON_TOP/tests/gpio/sim/sim-setup.sh
# the guest's own files go to its tmpfs: writes to the 9p share raise the
# share's interrupt, which would start chains of their own
dir=/tmp/rtmon
w=/tmp/demo
mkdir -p "$dir" "$w"
deadline_us=15000
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	"$sim" --teardown >/dev/null 2>&1 || true
	grep -q '^rtmon ' /proc/modules && rmmod rtmon 2>/dev/null || true
}
trap cleanup EXIT

say "Board kernel: $(uname -r) ($([ "$RTMON_PREEMPT_RT" = y ] && echo PREEMPT_RT || echo mainline))"
say "Loading rtmon: insmod $(basename "$RTMON_KO")"
insmod "$RTMON_KO"
dmesg | grep 'rtmon:' | tail -n 1 | indent

say "The loopback wiring. On a real board: two jumper wires (pin tables in boards/README.md)."
echo "    Here a simulated GPIO chip (gpio-sim built from the kernel's source) wires"
echo "    line 0 (stimulus out) to line 1 (responder in), line 2 (response out) to line 3."
chip=$("$sim")
gpioinfo "$chip" | head -n 5 | indent

ip link set lo up
lttng=false
if lttng-sessiond --daemonize --no-kernel >"$w/sessiond.log" 2>&1; then
	lttng=true
fi
say "Starting rtmond, the daemon: one target, the responder's chain"
echo "    GPIO IRQ -> IRQ thread -> rtmon-gpio-respond, ending where it calls"
echo "    rtmon_work_end(edge number); deadline ${deadline_us} us. On a miss it saves the"
echo "    record and snapshots (ftrace$($lttng && echo ", LTTng")), rate-limited."
cat >"$w/rtmon.conf" <<EOF
targets = ( { name = "gpio"; comm = "rtmon-gpio-resp"; source = "any_irq";
	      end = "work_end"; deadline = "${deadline_us}us"; } );
snapshot = { dir = "$dir"; records_file = true; ftrace = true; ftrace_buffer_kb = 2048;
	     lttng = $lttng; on_timeout = false; rate_burst = 30; rate_interval = "60s"; };
metrics = { listen = "127.0.0.1:9465"; };
realtime = { policy = "fifo"; priority = 10; mlockall = true; keep_admin = true; };
EOF
sed 's/^/    | /' "$w/rtmon.conf"
"$rtmond" -c "$w/rtmon.conf" 2>"$w/rtmond.log" &
pids+=($!)
for _ in $(seq 100); do
	grep -q 'rtmond: running' "$w/rtmond.log" && break
	sleep 0.2
done
grep -q 'rtmond: running' "$w/rtmond.log" || { tail -n 5 "$w/rtmond.log"; exit 1; }

# phase NAME EDGES PERIOD_US [RESPONDER OPTIONS]: one loopback run, joined
# with rtmond's records by edge number (the cookie)
phase() {
	local name=$1 n=$2 period=$3
	shift 3
	rm -f "$w/$name.ready"
	"$respond" --board "$board" --prio 40 --cpu 1 --work-us 50 --count "$n" \
		--ready-file "$w/$name.ready" --log "$w/$name.jsonl" "$@" 2>"$w/$name.err" &
	local rp=$!
	pids+=("$rp")
	"$loop" --board "$board" --prio 70 --cpu 0 --count "$n" --period-us "$period" \
		--deadline-us $deadline_us --ready "$w/$name.ready" --log "$w/$name.jsonl" \
		--records "$dir/records.jsonl" --target gpio --bound-us 2000 --bound-pct 99 \
		--hist-rows 8 --slowest 1 --quiet >"$w/$name.txt" 2>&1 || true
	wait "$rp" || true
	indent <"$w/$name.txt"
}

say "Phase 1, quiet: 300 stimulus edges every 10 ms. The driver times each response"
echo "    itself (libgpiod edge timestamps) and joins every edge with rtmon's chain:"
phase quiet 300 10000

say "Phase 2, under load: the same while hackbench (rt-tests) and a CPU hog run"
hackbench -l 100000 -g 2 >/dev/null 2>&1 &
hb=$!
sh -c 'while :; do :; done' &
hog=$!
pids+=("$hb" "$hog")
phase load 300 10000
kill "$hog" "$hb" 2>/dev/null || true
pkill hackbench 2>/dev/null || true
wait "$hog" "$hb" 2>/dev/null || true
while pgrep hackbench >/dev/null; do sleep 0.2; done

before=$(cat "$dir/misses.jsonl" 2>/dev/null | wc -l)
say "Phase 3, a provoked miss: every 100th edge the responder works 25 ms longer"
phase miss 200 10000 --miss-every 100 --miss-us 25000
sleep 1

say "rtmon's side: the provoked misses (edges 100 and 200) as rtmond saved them"
# rtmond's misses.jsonl: one JSON line per miss, with the record's cookie
# (the edge number) and its snapshot
seqs=$(python3 - "$dir/misses.jsonl" "$before" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
# as rtmonctl names a miss: LOAD:SEQ when the file holds two module loads
loads = {m.get("load_id") or "?" for m in lines}
for m in lines[int(sys.argv[2]):]:
    r = m.get("record", m)
    if r.get("cookie") in (100, 200) and "timeout" not in r.get("flags", []):
        print((f"{m.get('load_id') or '?'}:" if len(loads) > 1 else "") + str(r["seq"]))
PY
)
RTMON_DIR=$dir "$ctl" misses -n 400 | awk -v s=" $(echo $seqs) " 'NR == 1 || index(s, " " $1 " ")' | indent
for seq in $seqs; do
	say "Miss $seq, hop by hop (rtmonctl show $seq): where the time went"
	RTMON_DIR=$dir "$ctl" show "$seq" | indent
	break
done
say "The snapshot files rtmond saved"
(cd "$dir" && find ftrace lttng -maxdepth 1 -mindepth 1 2>/dev/null | sort | indent) || true

say "The latency histogram, plotted (rtmonctl plot gpio -o ...)"
RTMON_DIR=$dir "$ctl" plot gpio -o "$RTMON_SHARE/gpio-latency.svg" | indent || true
RTMON_DIR=$dir "$ctl" plot gpio -o "$RTMON_SHARE/gpio-latency.png" | indent || true
say "rtmonctl top, one frame"
RTMON_DIR=$dir "$ctl" top -n 1 | indent

kill -TERM "${pids[0]}" 2>/dev/null || true
wait "${pids[0]}" 2>/dev/null || true
say "Where to look next"
echo "    rtmonctl top / hist / misses / show / plot   live and saved views (README.md)"
echo "    $dir/misses.jsonl, ftrace/, lttng/          what rtmond saved for each miss"
echo "    /proc/rtmon/status, rtmon:* tracepoints      the module's own view"
echo "    tests/gpio/README.md, boards/README.md       the loopback on a real board"

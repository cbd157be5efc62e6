# The simulated GPIO chip of the loopback tests (tests/gpio/sim: irq-sim.ko
# and gpio-sim.ko with wire="0>1,2>3", built by scripts/build-gpio-sim):
# - sim-setup.sh gives the chip labelled rtmon-loop with its line names;
# - with Debian's gpiod 1.6 tools: gpioset of line 0 (2) gives a rising then
#   a falling edge event on line 1 (3) in gpiomon, and nothing on the other
#   pair; gpioget of the peer follows the output; 100 gpiosets give exactly
#   100 events, alternating, timestamps in order;
# - through libgpiod's C library (wire-check.py: lines held requested, set
#   with gpiod_line_set_value, the loopback tools' way): 100 toggles, one
#   event each, in order, no extra; bulk sets of lines 0 and 2 together;
# - ftrace (gpiomon as the consumer, gpioset edges 50 ms apart): each edge
#   is irq_handler_entry of the sim IRQ in hard IRQ context (raised from the
#   irq_work interrupt) -> wakeup of the IRQ thread -> wakeup of the
#   consumer from that thread, the thread not blocking on a lock between;
# - a bad wire= parameter fails insmod with a message naming it;
# - the teardown removes the device and unloads both modules.
# timeout: 300
. "$RTMON_TOP/tests/vm/guest/common.sh"

SIM=$RTMON_TOP/tests/gpio/sim
MODDIR=${RTMON_GPIO_SIM_DIR:-$RTMON_TOP/build/gpio-sim/$RTMON_BOARD}
# guest-local files (tmpfs): writes to the 9p share raise virtio interrupts
W=/tmp/gpio-sim
mkdir -p "$W"
bg_pids=()
cleanup() {
	local p
	for p in "${bg_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	"$SIM/sim-setup.sh" --remove >/dev/null 2>&1 || true
	cp -r "$W"/. "$T"/ 2>/dev/null || true
	rtmon_cleanup
}
trap cleanup EXIT

# wait_used CHIP OFFSET: until the line is requested (a monitor is ready)
wait_used() {
	local i
	for i in $(seq 1 100); do
		gpioinfo "$1" | awk -v l="$2:" '$1 == "line" && $2 == l && /\[used/ { f = 1 } END { exit !f }' && return 0
		sleep 0.1
	done
	fail "line $2 of $1 never requested by the monitor"
}

# wait_lines FILE N: until FILE has N lines (10 s at most)
wait_lines() {
	local i
	for i in $(seq 1 100); do
		[ "$(wc -l <"$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 0
}

# ---- setup ----
chip=$("$SIM/sim-setup.sh") || fail "sim-setup.sh failed"
note "chip $chip: $(gpiodetect | grep "^$chip ")"
grep -q "^$chip \[rtmon-loop\] (8 lines)" <<<"$(gpiodetect)" || fail "gpiodetect: $chip is not [rtmon-loop] (8 lines): $(gpiodetect)"
gpioinfo "$chip" >"$W/gpioinfo.txt"
for l in "0 stim-out" "1 stim-in" "2 resp-out" "3 resp-in"; do
	set -- $l
	[ "$(gpiofind "$2")" = "$chip $1" ] || fail "gpiofind $2: '$(gpiofind "$2" || true)', expected '$chip $1'"
done
[ "$(cat /sys/module/gpio_sim/parameters/wire)" = "0>1,2>3" ] ||
	fail "wire parameter: $(cat /sys/module/gpio_sim/parameters/wire)"

# ---- the gpiod tools: edges on the peer, both directions, both pairs ----
for pair in "0 1 3" "2 3 1"; do
	set -- $pair
	out=$1 in=$2 other=$3
	timeout 30 gpiomon -b -n 2 -F '%o %e' "$chip" "$in" >"$W/mon-$in.txt" 2>&1 &
	mon=$!
	bg_pids+=("$mon")
	wait_used "$chip" "$in"
	gpioset "$chip" "$out=1" || fail "gpioset $chip $out=1 failed"
	[ "$(gpioget "$chip" "$other")" = 0 ] || fail "line $other follows line $out (only $in is wired to it)"
	gpioset "$chip" "$out=0" || fail "gpioset $chip $out=0 failed"
	wait "$mon" || fail "gpiomon on line $in: status $? ($(cat "$W/mon-$in.txt"))"
	[ "$(cat "$W/mon-$in.txt")" = "$in 1
$in 0" ] || fail "line $in events after $out=1, $out=0: '$(tr '\n' ';' <"$W/mon-$in.txt")', expected rising then falling"
	# no monitor: the peer's value and its pull attribute follow the output
	gpioset "$chip" "$out=1"
	[ "$(gpioget "$chip" "$in")" = 1 ] || fail "gpioget line $in after $out=1: not 1"
	pull=$(cat /sys/bus/gpio/devices/"$chip"/sim_gpio"$in"/pull 2>/dev/null ||
		cat /sys/devices/platform/gpio-sim.*/"$chip"/sim_gpio"$in"/pull)
	[ "$pull" = pull-up ] || fail "sim_gpio$in/pull after $out=1: $pull"
	gpioset "$chip" "$out=0"
	[ "$(gpioget "$chip" "$in")" = 0 ] || fail "gpioget line $in after $out=0: not 0"
	note "gpioset $out=1, $out=0: line $in rising, falling; gpioget follows; line $other untouched"
done

# ---- 100 gpiosets: exactly 100 events, alternating, in order ----
gpiomon -b -F '%o %e %s.%n' "$chip" 1 >"$W/mon-100.txt" 2>&1 &
mon=$!
bg_pids+=("$mon")
wait_used "$chip" 1
for i in $(seq 1 100); do
	gpioset "$chip" 0=$((i % 2)) || fail "gpioset $chip 0=$((i % 2)) failed"
done
wait_lines "$W/mon-100.txt" 100
sleep 0.5
kill -INT "$mon"
wait "$mon" || true
python3 - "$W/mon-100.txt" <<'PY' || fail "gpiomon after 100 gpiosets: see $T/mon-100.txt"
import sys
ev = [l.split() for l in open(sys.argv[1]) if l.strip()]
bad = [e for e in ev if len(e) != 3 or e[0] != "1"]
if bad:
    sys.exit(f"unexpected gpiomon lines: {bad[:3]}")
types = [int(e[1]) for e in ev]
ts = [int(e[2].split(".")[0]) * 10**9 + int(e[2].split(".")[1]) for e in ev]
want = [i % 2 for i in range(1, 101)]
if len(ev) != 100:
    sys.exit(f"{len(ev)} events for 100 gpiosets")
if types != want:
    i = next(i for i in range(100) if types[i] != want[i])
    sys.exit(f"event {i + 1} is {'rising' if types[i] else 'falling'}, expected the other")
if ts != sorted(ts):
    sys.exit("event timestamps go back")
print(f"# 100 gpiosets: 100 events, {types.count(1)} rising, {types.count(0)} falling, in order")
PY

# ---- libgpiod C library: held lines, set_value (set_multiple), bulk ----
r=$(python3 "$SIM/wire-check.py" toggle --out 0 --in 1 --count 100) || fail "wire-check toggle 0>1: $r"
[ "$r" = "toggles 100 events 100 rising 50 falling 50" ] || fail "wire-check toggle 0>1: $r"
note "libgpiod set_value 0>1: $r"
r=$(python3 "$SIM/wire-check.py" toggle --out 2 --in 3 --count 100) || fail "wire-check toggle 2>3: $r"
[ "$r" = "toggles 100 events 100 rising 50 falling 50" ] || fail "wire-check toggle 2>3: $r"
note "libgpiod set_value 2>3: $r"
r=$(python3 "$SIM/wire-check.py" bulk) || fail "wire-check bulk: $r"
note "libgpiod set_value_bulk 0,2: $r"

# ---- ftrace: sim IRQ -> IRQ thread -> consumer ----
# gpiomon (the consumer) waits in poll; each edge comes from a gpioset, a
# process of its own, 50 ms apart, so that the IRQ thread and the consumer
# are asleep when it comes (a running task's wakeup leaves no sched_waking)
tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs tracefs $tr
echo 0 >$tr/tracing_on
echo >$tr/trace
echo 4096 >$tr/buffer_size_kb
evs="irq/irq_handler_entry irq/irq_handler_exit sched/sched_waking sched/sched_switch"
[ -d $tr/events/irq_vectors/irq_work_entry ] && evs="$evs irq_vectors/irq_work_entry irq_vectors/irq_work_exit"
# (its bound: the 20 gpioset processes, each a fork and exec, can take over
# 60 s on the debug kernel: 19 events of 20 came before a 60 s timeout)
timeout 240 gpiomon -b -n 20 -F '%o %e' "$chip" 1 >"$W/mon-trace.txt" 2>&1 &
mon=$!
bg_pids+=("$mon")
wait_used "$chip" 1
mon_pid=$(pgrep -x gpiomon | head -n 1)
for e in $evs; do echo 1 >$tr/events/$e/enable; done
echo 1 >$tr/tracing_on
for i in $(seq 1 20); do
	sleep 0.05
	gpioset "$chip" 0=$((i % 2)) || fail "gpioset $chip 0=$((i % 2)) failed"
done
wait "$mon" || fail "gpiomon (traced): status $?, $(wc -l <"$W/mon-trace.txt") events of 20"
echo 0 >$tr/tracing_on
cp $tr/trace "$W/trace.txt"
for e in $evs; do echo 0 >$tr/events/$e/enable; done
echo >$tr/trace
python3 - "$W/trace.txt" "$RTMON_KVER" "$RTMON_PREEMPT_RT" "$mon_pid" <<'PY' || fail "sim IRQ chain not as expected (trace: $T/trace.txt)"
import re, sys
path, kver, rt, consumer = sys.argv[1], sys.argv[2], sys.argv[3] == "y", int(sys.argv[4])
line_re = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\S+)\s+([\d.]+):\s+(\w+):\s+(.*)$")
evs = []
for l in open(path):
    m = line_re.match(l)
    if m:
        comm, pid, cpu, flags, ts, ev, rest = m.groups()
        f = dict(kv.split("=", 1) for kv in re.findall(r"(\w+=\S+)", rest))
        evs.append(dict(comm=comm, pid=int(pid), cpu=int(cpu), flags=flags, ts=float(ts), ev=ev, f=f, rest=rest))
entries = [i for i, e in enumerate(evs) if e["ev"] == "irq_handler_entry" and "name=gpiomon" in e["rest"]]
if len(entries) != 20:
    sys.exit(f"{len(entries)} irq_handler_entry events for the sim IRQ (name=gpiomon), expected 20")
irq = evs[entries[0]]["f"]["irq"]
thr = next((e["pid"] for e in evs if e["comm"].startswith(f"irq/{irq}-")), None)
if thr is None:
    sys.exit(f"no event of the irq/{irq}- thread in the trace")
tname = next(e["comm"] for e in evs if e["pid"] == thr)
full, awake, via_work, exit_first, hard, blocked = 0, 0, 0, 0, 0, 0
for k, i in enumerate(entries):
    e = evs[i]
    end = entries[k + 1] if k + 1 < len(entries) else len(evs)
    if "h" in e["flags"] or "H" in e["flags"]:
        hard += 1
    # what raised it: the irq_work interrupt on the same CPU just before
    if any(x["ev"] == "irq_work_entry" for x in evs[max(0, i - 4):i] if x["cpu"] == e["cpu"]):
        via_work += 1
    tw = next((j for j in range(i, end) if evs[j]["ev"] == "sched_waking"
               and int(evs[j]["f"]["pid"]) == thr), None)
    cw = next((j for j in range(i, end) if evs[j]["ev"] == "sched_waking"
               and int(evs[j]["f"]["pid"]) == consumer), None)
    if cw is None:
        sys.exit(f"edge {k + 1}: gpiomon (pid {consumer}) not woken after irq_handler_entry")
    # the IRQ thread blocking (D) before it wakes gpiomon: a lock hand-over
    if any(evs[j]["ev"] == "sched_switch" and evs[j]["f"].get("prev_pid") == str(thr)
           and evs[j]["f"].get("prev_state", "").startswith("D") for j in range(i, cw)):
        blocked += 1
    if evs[cw]["pid"] != thr:
        sys.exit(f"edge {k + 1}: gpiomon woken by {evs[cw]['comm']}-{evs[cw]['pid']}, not by {tname}")
    if tw is None:
        awake += 1      # the thread was still running: no wakeup to see
        continue
    if tw > cw:
        sys.exit(f"edge {k + 1}: {tname}'s wakeup comes after gpiomon's")
    if any(evs[j]["ev"] == "irq_handler_exit" and evs[j]["f"].get("irq") == irq for j in range(i, tw)):
        exit_first += 1
    full += 1
if hard != 20:
    sys.exit(f"{20 - hard} of 20 irq_handler_entry events not in hard IRQ context")
if full < 15:
    sys.exit(f"only {full} of 20 edges show {tname}'s wakeup")
# gpio-sim raises the interrupt after dropping its chip lock, which the IRQ
# thread needs (it reads the level): raised under it, the thread blocked on
# RT until the stimulus task let go (14 of 20 edges on 6.12-rt)
if blocked > 5:
    sys.exit(f"{tname} blocked (D) before waking gpiomon in {blocked} of 20 edges: a lock hand-over in the chain")
print(f"# {kver} (PREEMPT_RT={'y' if rt else 'n'}): sim irq {irq}: 20/20 irq_handler_entry in hard IRQ "
      f"context ({via_work} inside irq_work_entry) -> {tname} -> sched_waking gpiomon by {tname}; "
      f"{tname} woken by sched_waking in {full}/20 (after irq_handler_exit in {exit_first}), "
      f"still running in {awake}/20; blocked (D) before waking gpiomon in {blocked}/20")
PY
note "$(grep -m1 'irq_handler_entry.*name=gpiomon' "$W/trace.txt" | sed 's/^ *//')"

# ---- bad wire= parameters are refused at load, with a message ----
"$SIM/sim-setup.sh" --remove || fail "sim-setup.sh --remove failed"
insmod "$MODDIR/irq-sim.ko" || fail "insmod irq-sim.ko failed"
many=$(seq -s, -f '0>%g' 1 17)
while IFS='|' read -r spec msg; do
	if insmod "$MODDIR/gpio-sim.ko" wire="$spec" 2>"$W/insmod.err"; then
		rmmod gpio_sim
		fail "insmod gpio-sim.ko wire='$spec' succeeded"
	fi
	m=$(dmesg | grep 'gpio_sim: wire=' | tail -n 1)
	[[ "$m" == *"wire=$spec: "*"$msg"* ]] || fail "wire='$spec': last message '$m', expected '$msg'"
	note "wire='$spec' refused: ${m#*gpio_sim: }"
done <<EOF
0>x|is not OUT>IN (line offsets)
0-1|is not OUT>IN
0>1,|'' is not OUT>IN
0>0|wires a line to itself
0>1,2>1|line 1 is driven by two wires
0>1024|line offset out of range (0-1023)
-1>2|is not OUT>IN (line offsets)
$many|more than 16 wires
EOF
grep -q '^gpio_sim ' /proc/modules && fail "gpio_sim loaded after the refused loads"

# a wire that does not fit the bank is ignored there, with a warning
insmod "$MODDIR/gpio-sim.ko" wire="0>9" || fail "insmod gpio-sim.ko wire=0>9 failed"
d=/sys/kernel/config/gpio-sim/rtmon-fit
mkdir "$d" "$d/bank0"
echo 8 >"$d/bank0/num_lines"
echo 1 >"$d/live"
kmsg_has 'wire 0>9 ignored: 8 lines' || fail "no warning for wire 0>9 in an 8-line bank: $(dmesg | tail -n 3)"
note "wire 0>9 in an 8-line bank: $(dmesg | grep -o 'wire 0>9 ignored.*' | tail -n 1)"
echo 0 >"$d/live"
rmdir "$d/bank0" "$d"

# ---- teardown: the device and both modules go ----
chip=$("$SIM/sim-setup.sh") || fail "sim-setup.sh after the bad loads failed"
"$SIM/sim-teardown.sh" || fail "sim-teardown.sh failed"
grep -Eq '^(gpio_sim|irq_sim) ' /proc/modules && fail "modules left after teardown: $(grep -E '^(gpio_sim|irq_sim) ' /proc/modules)"
[ -e /sys/kernel/config/gpio-sim ] && fail "/sys/kernel/config/gpio-sim still there after teardown"
[ -e "/dev/$chip" ] && fail "/dev/$chip still there after teardown"
"$SIM/sim-teardown.sh" || fail "a second sim-teardown.sh failed"
note "teardown: device removed, gpio_sim and irq_sim unloaded"

# The demo, inside the emulated board. (Run by scripts/demo through the
# QEMU harness; timings are emulated, not real latencies.)
# timeout: 300
set -euo pipefail
say() { printf '\n>>> %s\n' "$*"; }
ctl=$RTMON_TOP/build/monitor/rtmonctl
apps=$RTMON_TOP/build/apps

say "Board kernel: $(uname -r) ($( [ "$RTMON_PREEMPT_RT" = y ] && echo PREEMPT_RT || echo mainline ))"
say "Loading rtmon: insmod $(basename "$RTMON_KO")"
insmod "$RTMON_KO"
dmesg | grep 'rtmon:' | tail -n 2

say "Target 1: cyclictest's wakeups. Chains start at the programmed timer expiry and end"
echo "    when cyclictest runs; deadline 500 us."
$ctl targets add --name cyclictest --comm cyclictest --timer --end switch_in --deadline 500us
say "Target 2: an application whose chain is IRQ -> IRQ thread -> feeder -> dispatcher -> worker,"
echo "    ending where the worker marks rtmon_work_end(); deadline 5 ms."
$ctl targets add --name dispatch --comm dispatch_test --any-irq --end work_end --deadline 5ms
$ctl targets list

secs=5
say "Running cyclictest for ${secs}s (SCHED_FIFO 80, 1 ms period) while rtmon watches"
# a record reader runs meanwhile, as rtmond would (records not read wait
# in bounded per-cpu rings, and a full ring counts drops)
$ctl records -t 2 >/dev/null &
reader=$!
cyclictest -q -m -p 80 -t 1 -i 1000 -D ${secs} | sed 's/^/    /'
wait $reader || true

say "Running the dispatcher application: 40 items, every 20th takes 20 ms of work (a provoked miss)"
$ctl records --misses -t 3 >/tmp/misses.txt &
reader=$!
echo hello >/rtmon-share/feed
"$apps/dispatch_test" -f /rtmon-share/feed -n 40 -p 5000 -w 50 -s 20 -S 20000 >/dev/null
wait $reader || true

say "What rtmon measured (cat /proc/rtmon/status):"
sed -n '/^targets:/,/^probes:/p' /proc/rtmon/status | sed '$d' | sed 's/^/    /'

say "A deadline miss with its per-hop breakdown (rtmonctl records --misses):"
awk '/^#/ && /dispatch_test/ && / MISS/ { p = 1; n++ } /^#/ && !(/dispatch_test/ && / MISS/) { p = 0 } p && n == 1' \
	/tmp/misses.txt | sed 's/^/    /'

say "Unloading rtmon"
rmmod rtmon
dmesg | grep 'rtmon:' | tail -n 1
say "Where to look next: rtmonctl --help, /proc/rtmon/status, the rtmon:rtmon_deadline_miss"
echo "    tracepoint (ftrace/perf/trace-cmd), and README.md for the ABI and the tests."

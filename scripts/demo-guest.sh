# The demo, inside the emulated board: load rtmon, run cyclictest, show what
# rtmon saw. (Run by scripts/demo through the QEMU harness.)
# timeout: 180
set -euo pipefail
say() { printf '\n>>> %s\n' "$*"; }

say "Board kernel: $(uname -r) ($( [ "$RTMON_PREEMPT_RT" = y ] && echo PREEMPT_RT || echo mainline ))"
say "Loading rtmon: insmod $(basename "$RTMON_KO")"
insmod "$RTMON_KO"
dmesg | grep 'rtmon:' | tail -n 1
cp /proc/rtmon/status /tmp/before

secs=5
say "Running cyclictest for ${secs}s (1 thread, SCHED_FIFO 80, 1 ms period) while rtmon watches"
cyclictest -q -m -p 80 -t 1 -i 1000 -D ${secs} | sed 's/^/    /'

cp /proc/rtmon/status /tmp/after
say "What rtmon saw (cat /proc/rtmon/status):"
sed 's/^/    /' /tmp/after

say "Events per second during the run:"
awk -v secs=$secs 'NR == FNR { if ($3 == "hits") b[$1] = $4; next }
	$3 == "hits" { printf "    %-22s %10d  (%d/s)\n", $1, $4 - b[$1], ($4 - b[$1]) / secs }' \
	/tmp/before /tmp/after

say "Unloading rtmon"
rmmod rtmon
dmesg | grep 'rtmon:' | tail -n 1
say "Chain tracking (interrupt -> thread -> task, deadlines, misses) comes with the next releases;"
echo "    this board is also what 'make check' boots for its kernel-side tests."

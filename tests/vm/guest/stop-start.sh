# STOP with a chain open, START again: the open chain ends at the stop,
# silently (chains expired), and nothing is reported for it after the
# start: no overdue (timeout) record with the stopped time in its age.
# The chain: a timer wakes a python3 process that begins a work item
# (RTMON_IOC_WORK_BEGIN) and sleeps without ending it, within a 2 s
# deadline; tracking stops while the item is open.
# timeout: 90
. "$RTMON_TOP/tests/vm/guest/lib.sh"

rtmon_load
$RTMONCTL targets add --name sleeper --comm python3 --timer --end work_end --deadline 2s
$RTMONCTL start
python3 - "$T/began" <<'PY' &
import fcntl, os, struct, sys, time
fd = os.open("/dev/rtmon", os.O_RDONLY)
time.sleep(0.05)		# the timer's chain
WORK_BEGIN = (1 << 30) | (8 << 16) | (0xb7 << 8) | 0x10
fcntl.ioctl(fd, WORK_BEGIN, struct.pack("Q", 7))
open(sys.argv[1], "w").write("1")
time.sleep(60)			# item 7 stays open (killed at the end)
PY
app=$!
trap '[ -z "$app" ] || kill $app 2>/dev/null || true; rtmon_cleanup' EXIT
for ((i = 0; i < 100; i++)); do [ -e $T/began ] && break; sleep 0.05; done
[ -e $T/began ] || fail "the work item did not begin"
$RTMONCTL stop
grep '^  chains started' /proc/rtmon/status | sed 's/^/# at stop:/'
started=$(status_count "  chains started" started)
expired=$(status_count "  chains started" expired)
# reported before the stop (the deadline may pass first on a slow kernel:
# the debug board under load, 1)
overdue0=$(status_count "  chains started" overdue)
[ "$started" -ge 1 ] || fail "no chain started for the sleeper"
[ "$expired" -ge 1 ] || fail "the open chain was not ended at the stop (expired $expired)"
sleep 3		# past the deadline, stopped
t_start=$(python3 -c 'import time; print(time.monotonic_ns())')
$RTMONCTL start
$RTMONCTL records --json -t 2 >$T/records.json	# ticks run meanwhile
$RTMONCTL stop
grep '^  chains started' /proc/rtmon/status | sed 's/^/# after start:/'
overdue=$(status_count "  chains started" overdue)
[ "$overdue" = "$overdue0" ] ||
	fail "a chain open at the stop was reported overdue after the start ($((overdue - overdue0)))"
# a timeout reported after the start (one reported before the stop may
# still wait in the ring: its end, the tick's time, says when)
late=$(python3 -c "
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if 'timeout' in r['flags'] and r['end_ns'] >= int(sys.argv[2]):
        print(l.strip())
        break
" $T/records.json "$t_start")
[ -z "$late" ] || fail "timeout record after the start: $late"
kill $app 2>/dev/null || true
wait $app 2>/dev/null || true
app=
note "$started chain(s) started, $expired ended at the stop; none reported after the start"
echo "stop-start: ok"

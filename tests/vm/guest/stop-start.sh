# STOP with a chain open, START again: the open chain ends at the stop,
# silently (chains expired), and nothing is reported for it after the
# start: no overdue (timeout) record with the stopped time in its age.
# The chain: a timer wakes a 'sleep' process that is to mark work_end,
# which it never does, within a 2 s deadline; tracking stops right after.
# timeout: 90
. "$RTMON_TOP/tests/vm/guest/lib.sh"

rtmon_load
$RTMONCTL targets add --name sleeper --comm sleep --timer --end work_end --deadline 2s
$RTMONCTL start
sleep 0.05
$RTMONCTL stop
grep '^  chains started' /proc/rtmon/status | sed 's/^/# at stop:/'
started=$(status_count "  chains started" started)
expired=$(status_count "  chains started" expired)
[ "$started" -ge 1 ] || fail "no chain started for the sleeper"
[ "$expired" -ge 1 ] || fail "the open chain was not ended at the stop (expired $expired)"
sleep 3		# past the deadline, stopped
$RTMONCTL start
$RTMONCTL records --json -t 2 >$T/records.json	# ticks run meanwhile
$RTMONCTL stop
grep '^  chains started' /proc/rtmon/status | sed 's/^/# after start:/'
overdue=$(status_count "  chains started" overdue)
[ "$overdue" = 0 ] || fail "a chain open at the stop was reported overdue after the start ($overdue)"
if grep -q '"timeout"' $T/records.json; then
	fail "timeout record after the start: $(grep '"timeout"' $T/records.json | head -n 1)"
fi
note "$started chain(s) open at the stop, $expired ended there; none reported after the start"
echo "stop-start: ok"

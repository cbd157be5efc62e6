# A wakeup storm (hackbench) with tiny pools: drops are counted, nothing
# breaks, and once the storm is over chains are tracked again and every
# pool drains back.
# timeout: 240
. "$RTMON_TOP/tests/vm/guest/lib.sh"

rtmon_load nchains=16 nbranches=16 task_buckets=16 cookie_buckets=16 ring_slots=16 max_age_ms=200
# every hackbench task is a target, and cyclictest's wakeups too
$RTMONCTL targets add --name hb --comm hackbench --end block
$RTMONCTL targets add --name ct --comm cyclictest --timer --end switch_in
# many timer chains at once, delayed by the storm: the pools run dry.
# 48 threads, three times the pools, at nice 19 against hackbench at nice
# -20, so that each woken one waits behind hackbench whatever the guest's
# speed. cyclictest starts first and its threads are all looping before
# the storm begins; its main thread runs at SCHED_FIFO 1 (the threads:
# --policy=other, nice 19), so that the threads it has already made do
# not starve it of the cpu before it has made the rest.
nice -n 19 chrt -f 1 cyclictest -q -m -t 48 -i 100 -D 60 --policy=other >/dev/null 2>&1 &
ct=$!
n=0
for _ in $(seq 300); do
	n=$(ls /proc/$ct/task 2>/dev/null | wc -l) || n=0
	[ "$n" -ge 49 ] && break
	kill -0 $ct 2>/dev/null || break
	sleep 0.1
done
if [ "$n" -lt 49 ]; then
	kill -0 $ct 2>/dev/null || fail "cyclictest ended before it had made its 48 threads"
	fail "cyclictest made $n of its 49 threads in 30 s"
fi
ps -L -o cls=,rtprio=,ni=,comm= -p $ct | sort | uniq -c
sleep 0.5
nice -n -20 hackbench -s 512 -l 200 -g 4 -f 10 >$T/hb.out 2>&1 &
hb=$!
sleep 2
grep -E '^  (chains|drops)' /proc/rtmon/status
wait $hb || fail "hackbench failed: $(tail -n 2 $T/hb.out)"
kill -INT $ct
wait $ct || true
grep -E '^  (chains|drops)' /proc/rtmon/status
drops() { awk '/^  drops/ { s = 0; for (i = 3; i <= NF; i += 2) s += $i; print s }' /proc/rtmon/status; }
d1=$(drops)
echo "drops during the storm: $d1"
[ "$d1" -gt 0 ] || fail "no drops counted with 16-entry pools under hackbench"
nc=$(awk '/^  drops/ { for (i = 2; i < NF; i++) if ($i == "no_chain" || $i == "no_branch") s += $(i + 1); print s + 0 }' /proc/rtmon/status)
[ "$nc" -gt 0 ] || fail "the chain and branch pools never ran dry"

# quiet again: after max_age, pools are back; new chains complete
sleep 1
$RTMONCTL records -t 0.2 >/dev/null	# empty the rings
c1=$(status_count "  chains started" completed)
cyclictest -q -m -p 80 -t 1 -i 1000 -l 200 >/dev/null
$RTMONCTL records --json -t 0.5 >$T/after.json
c2=$(status_count "  chains started" completed)
echo "completed chains: $c1 before, $c2 after 200 quiet cyclictest loops"
[ $((c2 - c1)) -ge 190 ] || fail "only $((c2 - c1)) chains completed after the storm"
grep -q '"comm":"cyclictest"' $T/after.json || fail "no records after the storm"
grep -E '^  in use' /proc/rtmon/status || true
echo "storm: ok"

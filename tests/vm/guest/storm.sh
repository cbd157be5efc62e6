# A wakeup storm (hackbench) with tiny pools: drops are counted, nothing
# breaks, and once the storm is over chains are tracked again and every
# pool drains back.
# timeout: 240
. "$RTMON_TOP/tests/vm/guest/lib.sh"

rtmon_load nchains=16 nbranches=16 task_buckets=16 cookie_buckets=16 ring_slots=16 max_age_ms=200
# every hackbench task is a target, and cyclictest's wakeups too
$RTMONCTL targets add --name hb --comm hackbench --end block
$RTMONCTL targets add --name ct --comm cyclictest --timer --end switch_in
hackbench -s 512 -l 200 -g 4 -f 10 >$T/hb.out 2>&1 &
hb=$!
# many timer chains at once, delayed by the storm: the pools run dry.
# 48 threads, three times the pools, at nice 19, so that each woken one
# waits behind hackbench whatever the guest's speed (at nice 0 the
# scheduler ran them at once on slow kernels: 1 branch drop, no chain
# drop, on the KCSAN board)
nice -n 19 cyclictest -q -m -t 48 -i 100 -D 8 >/dev/null 2>&1 &
ct=$!
sleep 4
grep -E '^  (chains|drops)' /proc/rtmon/status
wait $hb || fail "hackbench failed: $(tail -n 2 $T/hb.out)"
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

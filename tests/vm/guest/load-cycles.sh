# 20 load/unload cycles while cyclictest runs: no kernel report (the harness
# checks dmesg), cyclictest survives, nothing left behind.
# timeout: 240
. "$RTMON_TOP/tests/vm/guest/lib.sh"

cyclictest -q -m -p 80 -t 2 -i 500 -D 600 >$T/cyclictest.out 2>&1 &
ct=$!
sleep 1
for i in $(seq 1 20); do
	rtmon_load
	sleep 0.2
	hits=$(probe_hits sched_switch)
	[ "$hits" -gt 0 ] || fail "cycle $i: no sched_switch counted while loaded"
	rtmon_unload
done
kill -0 $ct || fail "cyclictest died during the load/unload cycles"
kill -INT $ct
wait $ct || true
echo "load-cycles: 20 cycles ok"

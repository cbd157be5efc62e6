# 20 load/unload cycles while hackbench and cyclictest run and rtmon is
# tracking targets (open chains at every unload); the harness checks that
# dmesg stays clean.
# timeout: 300
. "$RTMON_TOP/tests/vm/guest/lib.sh"

hackbench -s 128 -l 1000000 -g 1 -f 4 >/dev/null 2>&1 &
hb=$!
# the cycling itself runs above the load, or each cycle takes seconds
chrt -f -p 10 $$
cyclictest -q -m -p 80 -t 1 -i 500 -D 600 >/dev/null 2>&1 &
ct=$!
sleep 1
for i in $(seq 1 20); do
	rtmon_load
	$RTMONCTL targets add --comm cyclictest --timer >/dev/null
	$RTMONCTL targets add --comm hackbench --any-irq --end block >/dev/null
	sleep 0.1
	[ "$(status_count '  chains started' started)" -gt 0 ] || fail "cycle $i: no chain started"
	rtmon_unload
done
kill -0 $ct || fail "cyclictest died"
kill -0 $hb || fail "hackbench died"
kill $hb $ct
wait || true
echo "load-cycles-tracking: 20 cycles ok"

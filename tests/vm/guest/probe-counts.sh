# Every probe's count moves while cyclictest and some I/O run.
# timeout: 120
. "$RTMON_TOP/tests/vm/guest/lib.sh"

rtmon_load
declare -A before
for p in $RTMON_PROBES; do before[$p]=$(probe_hits "$p"); done

loops=2000
cyclictest -q -m -p 80 -t 1 -i 500 -l $loops >$T/cyclictest.out 2>&1 ||
	fail "cyclictest failed: $(tail -n 3 $T/cyclictest.out)"
# virtio-9p traffic raises device interrupts (and on mainline their softirqs)
find /usr/lib -maxdepth 2 -type f | head -n 300 | xargs cat >/dev/null 2>&1 || true

cat /proc/rtmon/status
for p in $RTMON_PROBES; do
	after=$(probe_hits "$p")
	delta=$((after - before[$p]))
	echo "$p: +$delta"
	[ "$delta" -gt 0 ] || fail "probe $p did not count anything"
done
# each cyclictest period is one hrtimer expiry and at least one wakeup and switch
for p in hrtimer_expire_entry sched_waking sched_switch; do
	delta=$(($(probe_hits "$p") - before[$p]))
	[ "$delta" -ge $loops ] || fail "$p moved by $delta, fewer than cyclictest's $loops loops"
done
# entries and exits pair up (allow for the ones in flight while reading)
cat /proc/rtmon/status >$T/status
ie=$(probe_hits irq_handler_entry $T/status) ix=$(probe_hits irq_handler_exit $T/status)
[ $((ie - ix)) -le 2 ] && [ $((ix - ie)) -le 2 ] || fail "irq entry $ie vs exit $ix"
rtmon_unload
echo "probe-counts: ok"

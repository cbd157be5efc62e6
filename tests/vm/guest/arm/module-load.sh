# Load rtmon on the ARM board, check the status file names the running
# kernel and its preemption model, that every probe is attached and which
# timer callbacks it tells apart (all kinds: these kernels have kprobes and
# the timerlat tracer); unload.
# timeout: 90
. "$RTMON_TOP/tests/vm/guest/arm/lib.sh"

rtmon_loaded && fail "rtmon loaded before the test"
note "kernel $(uname -r) on $(uname -m); module $(tr '\0' '\n' <"$RTMON_KO" | grep -m1 '^vermagic=')"
rtmon_load
cat /proc/rtmon/status
grep -q "^rtmon .* on $(uname -r) " /proc/rtmon/status || fail "status header does not name the running kernel"
if [ "$RTMON_PREEMPT_RT" = y ]; then
	grep -q '(PREEMPT_RT)' /proc/rtmon/status || fail "PREEMPT_RT kernel not reported as such"
fi
for p in $RTMON_PROBES; do
	grep -qE "^  $p +registered " /proc/rtmon/status || fail "probe $p not registered"
done
grep -q '^timer kinds told apart: sleeper timerfd posix timerlat$' /proc/rtmon/status ||
	fail "timer kinds: $(grep '^timer kinds' /proc/rtmon/status)"
kmsg_has 'rtmon: .* loaded' || fail "no load message in dmesg"
$RTMONCTL status >/dev/null || fail "rtmonctl status failed"
rtmon_unload
echo "module-load: ok"

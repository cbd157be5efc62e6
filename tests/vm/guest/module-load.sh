# Load rtmon, check every probe is attached, unload.
# timeout: 60
. "$RTMON_TOP/tests/vm/guest/lib.sh"

rtmon_loaded && fail "rtmon loaded before the test"
rtmon_load
cat /proc/rtmon/status
grep -q "^rtmon .* on $(uname -r) " /proc/rtmon/status || fail "status header does not name the running kernel"
if [ "$RTMON_PREEMPT_RT" = y ]; then
	grep -q '(PREEMPT_RT)' /proc/rtmon/status || fail "PREEMPT_RT kernel not reported as such"
else
	grep -q '(not PREEMPT_RT)' /proc/rtmon/status || fail "mainline kernel reported as PREEMPT_RT"
fi
for p in $RTMON_PROBES; do
	grep -qE "^  $p +registered " /proc/rtmon/status || fail "probe $p not registered"
done
grep -q 'rtmon: .* loaded' <(dmesg) || fail "no load message in dmesg"
rtmon_unload
rtmon_loaded && fail "rtmon still listed in /proc/modules"
echo "module-load: ok"

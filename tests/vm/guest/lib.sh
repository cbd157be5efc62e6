# shellcheck shell=bash
# Helpers for guest test scripts (sourced; runs inside the QEMU guest).
. "$RTMON_TOP/tests/vm/guest/common.sh"

# the user-space tools, built on the host (make -C monitor, tests/apps)
RTMONCTL=$RTMON_TOP/build/monitor/rtmonctl
APPS=$RTMON_TOP/build/apps
[ -x "$RTMONCTL" ] || fail "rtmonctl not built ($RTMONCTL)"

# rtmond_wait_log PATTERN SECONDS: until rtmond (PID $pid, log
# $T/rtmond.log) logs PATTERN; fails when it dies or the time is up
rtmond_wait_log() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		grep -q "$1" $T/rtmond.log && return 0
		kill -0 $pid 2>/dev/null || fail "rtmond died: $(tail -n 5 $T/rtmond.log)"
		sleep 0.1
	done
	fail "no '$1' in rtmond's log within $2 s: $(tail -n 5 $T/rtmond.log)"
}

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
	wait_rtmond_log $T/rtmond.log "$1" "$2"
}

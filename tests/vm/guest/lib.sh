# shellcheck shell=bash
# Helpers for guest test scripts (sourced; runs inside the QEMU guest).
. "$RTMON_TOP/tests/vm/guest/common.sh"

# the user-space tools, built on the host (make -C monitor, tests/apps)
RTMONCTL=$RTMON_TOP/build/monitor/rtmonctl
APPS=$RTMON_TOP/build/apps
[ -x "$RTMONCTL" ] || fail "rtmonctl not built ($RTMONCTL)"

# status_field "LINE PREFIX" WORD: the number after WORD on the status line
status_count() {
	awk -v pre="$1" -v w="$2" 'index($0, pre) == 1 { for (i = 1; i < NF; i++) if ($i == w) { print $(i + 1); exit } }' /proc/rtmon/status
}

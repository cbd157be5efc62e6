# shellcheck shell=bash
# Helpers for guest test scripts (sourced; runs inside the QEMU guest).
set -euo pipefail

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

note() {
	echo "# $*"
}

[ -n "${RTMON_KO:-}" ] || fail "RTMON_KO is not set (run-vm -e RTMON_KO=path)"
[ -f "$RTMON_KO" ] || fail "no module at $RTMON_KO"

# T: this test's work directory, in the share so it outlives the guest
export T=$RTMON_SHARE/$(basename "$0" .sh).d
mkdir -p "$T"

# a failed test must not leave the module loaded for the next one
rtmon_cleanup() {
	if grep -q '^rtmon ' /proc/modules; then rmmod rtmon || true; fi
}
trap rtmon_cleanup EXIT
trap 'exit 143' TERM INT

rtmon_load() {
	insmod "$RTMON_KO" "$@" || fail "insmod $RTMON_KO $* failed: $(dmesg | grep rtmon | tail -n 2)"
	[ -r /proc/rtmon/status ] || fail "/proc/rtmon/status missing after load"
}

rtmon_unload() {
	rmmod rtmon || fail "rmmod rtmon failed"
}

rtmon_loaded() {
	grep -q '^rtmon ' /proc/modules
}

# probe_hits NAME [FILE]: the hit count of one probe from the status file,
# or from a copy of it taken earlier (one read gives a consistent set)
probe_hits() {
	awk -v p="$1" '$1 == p && $3 == "hits" { print $4; found = 1 } END { exit !found }' \
		"${2:-/proc/rtmon/status}" || fail "probe $1 not in ${2:-/proc/rtmon/status}"
}

# the probes rtmon attaches to, as the status file names them
RTMON_PROBES="irq_handler_entry irq_handler_exit softirq_raise softirq_entry softirq_exit
hrtimer_expire_entry hrtimer_expire_exit sched_waking sched_switch"

# the user-space tools, built on the host (make -C monitor, tests/apps)
RTMONCTL=$RTMON_TOP/build/monitor/rtmonctl
APPS=$RTMON_TOP/build/apps
[ -x "$RTMONCTL" ] || fail "rtmonctl not built ($RTMONCTL)"

# status_field "LINE PREFIX" WORD: the number after WORD on the status line
status_count() {
	awk -v pre="$1" -v w="$2" 'index($0, pre) == 1 { for (i = 1; i < NF; i++) if ($i == w) { print $(i + 1); exit } }' /proc/rtmon/status
}

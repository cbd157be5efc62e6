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

# a failed test must not leave the module loaded for the next one
rtmon_cleanup() {
	if grep -q '^rtmon ' /proc/modules; then rmmod rtmon || true; fi
}
trap rtmon_cleanup EXIT

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

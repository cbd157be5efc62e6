# shellcheck shell=bash
# What every guest test needs, on every board (sourced by lib.sh for the
# x86 guests and arm/lib.sh for the cross boards): failing with a message,
# the work directory, and loading/unloading rtmon so that a failed test
# never leaves the module loaded for the next one.
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

# status_count "LINE PREFIX" WORD: the number after WORD on the status line
status_count() {
	awk -v pre="$1" -v w="$2" 'index($0, pre) == 1 { for (i = 1; i < NF; i++) if ($i == w) { print $(i + 1); exit } }' /proc/rtmon/status
}

rtmon_loaded() {
	grep -q '^rtmon ' /proc/modules
}

rtmon_cleanup() {
	if rtmon_loaded; then rmmod rtmon || true; fi
}
trap rtmon_cleanup EXIT
trap 'exit 143' TERM INT

# kmsg_has ERE: the kernel log has a line matching ERE. Not "dmesg | grep
# -q": under pipefail, grep -q leaving at the first match can kill dmesg
# with SIGPIPE while it still writes, and the pipeline then fails although
# the line is there (armhf unload-clean, check13)
kmsg_has() {
	local log
	log=$(dmesg) || fail "dmesg failed"
	grep -qE -- "$1" <<<"$log"
}

rtmon_load() {
	insmod "$RTMON_KO" "$@" || fail "insmod $RTMON_KO $* failed: $(dmesg | grep rtmon | tail -n 2)"
	[ -r /proc/rtmon/status ] || fail "/proc/rtmon/status missing after load"
}

rtmon_unload() {
	rmmod rtmon || fail "rmmod rtmon failed"
	rtmon_loaded && fail "rtmon still listed in /proc/modules after rmmod"
	return 0
}

# the probes rtmon attaches to, as the status file names them
RTMON_PROBES="irq_handler_entry irq_handler_exit softirq_raise softirq_entry softirq_exit
hrtimer_expire_entry hrtimer_expire_exit sched_waking sched_switch"

# probe_hits NAME [FILE]: the hit count of one probe from the status file,
# or from a copy of it taken earlier (one read gives a consistent set)
probe_hits() {
	awk -v p="$1" '$1 == p && $3 == "hits" { print $4; found = 1 } END { exit !found }' \
		"${2:-/proc/rtmon/status}" || fail "probe $1 not in ${2:-/proc/rtmon/status}"
}

# wait_rtmond_log LOG PATTERN SECONDS: until rtmond (PID $pid) writes
# PATTERN to LOG; fails when it dies or the time is up
wait_rtmond_log() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q "$2" "$1" && return 0
		kill -0 "$pid" 2>/dev/null || fail "rtmond died: $(tail -n 5 "$1")"
		sleep 0.1
	done
	fail "no '$2' in $1 within $3 s: $(tail -n 5 "$1")"
}

# shellcheck shell=bash
# Helpers for the guest tests of cross boards (sourced; runs in the ARM
# guest, whose root is the test initramfs: busybox, bash, Debian's
# cyclictest; no python, so checks use awk and grep). The module and the
# cross-built tools come from the checkout (read-only over 9p):
#   RTMON_KO   the module (run-vm -e RTMON_KO=...)
#   RTMON_BIN  build/cross/BOARD/bin: rtmonctl, dispatch_test, ioctl_fuzz
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
[ -n "${RTMON_BIN:-}" ] || fail "RTMON_BIN is not set (run-vm -e RTMON_BIN=build/cross/BOARD/bin)"
RTMONCTL=$RTMON_BIN/rtmonctl
[ -x "$RTMONCTL" ] || fail "rtmonctl not built ($RTMONCTL: cross/build-user)"

# T: this test's work directory, in the share so it outlives the guest
export T=$RTMON_SHARE/$(basename "$0" .sh).d
mkdir -p "$T"

rtmon_loaded() {
	grep -q '^rtmon ' /proc/modules
}

# a failed test must not leave the module loaded for the next one
rtmon_cleanup() {
	if rtmon_loaded; then rmmod rtmon || true; fi
}
trap rtmon_cleanup EXIT
trap 'exit 143' TERM INT

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

# json_field NAME: from JSON lines (rtmonctl records --json) on stdin, the
# top-level value of NAME (it comes before "hops" in each record)
json_field() {
	awk -v k="\"$1\":" '{
		line = $0; h = index(line, "\"hops\":"); if (h) line = substr(line, 1, h - 1)
		i = index(line, k); if (!i) { print ""; next }
		v = substr(line, i + length(k)); sub(/[,}].*/, "", v); gsub(/"/, "", v); print v
	}'
}

# last_hop_event: the event of each record's last hop, one line a record
last_hop_event() {
	awk '{ n = split($0, a, "\"event\":\""); v = a[n]; sub(/".*/, "", v); print (n > 1 ? v : "") }'
}

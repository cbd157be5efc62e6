# shellcheck shell=bash
# Helpers for the guest tests of cross boards (sourced; runs in the ARM
# guest, whose root is the test initramfs: busybox, bash, Debian's
# cyclictest; no python, so checks use awk and grep). The module and the
# cross-built tools come from the checkout (read-only over 9p):
#   RTMON_KO   the module (run-vm -e RTMON_KO=...)
#   RTMON_BIN  build/cross/BOARD/bin: rtmonctl and the test programs of
#              tests/apps (dispatch_test, ioctl_fuzz, model_reader, cpu_hog...)
#   RTMON_GPIO_BIN  build/cross/BOARD/gpio: the GPIO loopback tools
. "$RTMON_TOP/tests/vm/guest/common.sh"

[ -n "${RTMON_BIN:-}" ] || fail "RTMON_BIN is not set (run-vm -e RTMON_BIN=build/cross/BOARD/bin)"
RTMONCTL=$RTMON_BIN/rtmonctl
[ -x "$RTMONCTL" ] || fail "rtmonctl not built ($RTMONCTL: cross/build-user)"

# json_field NAME: from JSON lines (rtmonctl records --json) on stdin, the
# top-level value of NAME (it comes before "hops" in each record)
json_field() {
	awk -v k="\"$1\":" '{
		line = $0; h = index(line, "\"hops\":"); if (h) line = substr(line, 1, h - 1)
		i = index(line, k); if (!i) { print ""; next }
		v = substr(line, i + length(k)); sub(/[,}].*/, "", v); gsub(/"/, "", v); print v
	}'
}

# records (JSON lines on stdin) whose flags hold $1 / do not: a record's
# other strings (culprit and hop comms: a task may be called "timeout")
# are not its flags
with_flag() {
	grep -E "\"flags\":\[[^]]*\"$1\"" || true
}
without_flag() {
	grep -vE "\"flags\":\[[^]]*\"$1\"" || true
}
# has_flag FLAG: 1 or 0 a record (JSON lines on stdin), as with_flag matches
has_flag() {
	awk -v f="$1" '{ s = $0; i = index(s, "\"flags\":["); if (!i) { print 0; next }
		s = substr(s, i); s = substr(s, 1, index(s, "]")); print (index(s, "\"" f "\"") ? 1 : 0) }'
}

# last_hop_event: the event of each record's last hop, one line a record
last_hop_event() {
	awk '{ n = split($0, a, "\"event\":\""); v = a[n]; sub(/".*/, "", v); print (n > 1 ? v : "") }'
}

# json_get FILE PATH: the value at PATH (keys joined by ".", as
# join.edge_minus_start_ns.max) in FILE, a JSON document printed one member
# a line (jansson's JSON_INDENT: rtmon-gpio-loop --json); an array of
# numbers or strings: its elements, one a line; nothing when absent. Arrays
# of objects are left out. FILE is read once, into FILE.flat ("PATH<TAB>
# VALUE" lines): an awk pass over a large file costs a second emulated.
json_get() {
	[ "$1.flat" -nt "$1" ] || awk '
	function path(k) { return (depth && stack[depth] != "" ? stack[depth] "." : "") k }
	{
		line = $0; sub(/^[ \t]+/, "", line); sub(/,$/, "", line)
		if (line == "}" || line == "]") { depth--; next }
		key = ""
		if (match(line, /^"[^"]*": */)) {
			key = substr(line, 2, index(substr(line, 2), "\"") - 1)
			line = substr(line, RLENGTH + 1)
		}
		if (line == "{" || line == "[") {
			stack[depth + 1] = depth ? path(key == "" ? "[]" : key) : ""
			depth++
			next
		}
		if (index(stack[depth], "[]")) next
		gsub(/"/, "", line)
		if (key != "") { if (line != "[]") print path(key) "\t" line }
		else print stack[depth] "\t" line
	}' "$1" >"$1.flat"
	awk -F '\t' -v k="$2" '$1 == k { print $2 }' "$1.flat"
}

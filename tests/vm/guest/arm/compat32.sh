# 32-bit user space on a 64-bit kernel (Raspberry Pi OS 32-bit on a Pi 4's
# arm64 kernel): the armhf rtmonctl and dispatch_test against rtmon.ko on
# arm64, through the compat ioctl path: status, targets, records of
# cyclictest's wakeups and work_begin/work_end markers.
# Needs RTMON_BIN32 (cross/check builds the armhf tools for arm64 boards);
# left out on 32-bit boards by suite.list.
# timeout: 150
. "$RTMON_TOP/tests/vm/guest/arm/lib.sh"

[ "$(uname -m)" = aarch64 ] ||
	fail "compat32 needs a 64-bit kernel (suite.list leaves it out on 32-bit boards)"
[ -n "${RTMON_BIN32:-}" ] && [ -x "$RTMON_BIN32/rtmonctl" ] ||
	fail "RTMON_BIN32 (armhf tools: cross/build-user qemu-armhf-rt) not given"
ctl32=$RTMON_BIN32/rtmonctl
file_class=$(od -An -tx1 -j4 -N1 "$ctl32" | tr -d ' ')
[ "$file_class" = 01 ] || fail "$ctl32 is not a 32-bit program"

rtmon_load
$ctl32 status | head -n 1 | grep -q "ABI" || fail "32-bit rtmonctl status failed"
$ctl32 targets add --name ct --comm cyclictest --timer --end switch_in || fail "32-bit targets add failed"
$ctl32 targets list | grep -q cyclictest || fail "32-bit targets list does not show the target"
$ctl32 records --json -t 3 >"$T/ct.json" &
reader=$!
cyclictest -q -m -p 80 -t 1 -i 5000 -l 200 >/dev/null
wait $reader || fail "32-bit record reader failed"
n=$(grep -c '"kind":"timer"' "$T/ct.json" || true)
note "32-bit reader: $n timer records for 200 cyclictest loops"
[ "$n" -ge 180 ] || fail "only $n records through the 32-bit reader"
$ctl32 targets del 0 || fail "32-bit targets del failed"

items=50
$ctl32 targets add --name dispatch --comm dispatch_test --any-irq --end work_end --deadline 5ms ||
	fail "32-bit targets add (markers) failed"
echo "feed" >/rtmon-share/feed32
$ctl32 records --json -t 5 >"$T/mk.json" &
reader=$!
"$RTMON_BIN32/dispatch_test" -f /rtmon-share/feed32 -n $items -p 4000 -w 50 >"$T/items.json" ||
	fail "32-bit dispatch_test failed"
wait $reader || fail "32-bit record reader failed"
ends=$(without_flag timeout <"$T/mk.json" | last_hop_event | grep -c '^work_end$' || true)
note "32-bit markers: $ends records ending at work_end for $items items"
[ "$ends" -ge $((items * 9 / 10)) ] || fail "only $ends of $items items ended at a 32-bit work_end"
rtmon_unload
echo "compat32: ok"

# rmmod leaves nothing behind on an ARM board: no proc entries, no module,
# no symbols; a second load starts from zero.
# timeout: 90
. "$RTMON_TOP/tests/vm/guest/arm/lib.sh"

rtmon_load
cyclictest -q -m -p 80 -t 1 -i 500 -l 1000 >/dev/null
before=$(probe_hits hrtimer_expire_entry)
rtmon_unload
[ ! -e /proc/rtmon ] || fail "/proc/rtmon still there after rmmod"
[ ! -e /sys/module/rtmon ] || fail "/sys/module/rtmon still there after rmmod"
! grep -q '\[rtmon\]' /proc/kallsyms || fail "rtmon symbols still in /proc/kallsyms"
kmsg_has 'rtmon: unloaded' || fail "no unload message in dmesg"
rtmon_load
after=$(probe_hits hrtimer_expire_entry)
[ "$after" -lt "$before" ] || fail "counts not reset by reload ($after after reload, $before before)"
rtmon_unload
echo "unload-clean: ok"

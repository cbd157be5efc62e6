# Random ioctls and reads on /dev/rtmon, as root and as an unprivileged
# user in the device's group: only error codes come back, no kernel report
# (the harness checks dmesg), and rtmon works normally afterwards. That
# user cannot change targets nor take the record stream.
# timeout: 240
. "$RTMON_TOP/tests/vm/guest/lib.sh"

rtmon_load
[ "$(stat -c %a /dev/rtmon)" = 660 ] || fail "/dev/rtmon mode is $(stat -c %a /dev/rtmon), expected 660"
"$APPS/ioctl_fuzz" -n 30000 -s 1 || fail "fuzzing as root"
chgrp nogroup /dev/rtmon
"$APPS/ioctl_fuzz" -n 30000 -s 2 -u 65534 || fail "fuzzing as nobody"
# without CAP_SYS_ADMIN: targets cannot change, markers work
setpriv --reuid=65534 --regid=65534 --clear-groups \
	$RTMONCTL targets add --comm x 2>$T/err && fail "nobody could add a target"
grep -q CAP_SYS_ADMIN $T/err || fail "unhelpful error for nobody: $(cat $T/err)"
# the device's group marks work; the record stream needs CAP_PERFMON
setpriv --reuid=65534 --regid=65534 --clear-groups \
	$RTMONCTL records -t 0.2 >/dev/null 2>$T/err && fail "nobody in the device's group could read the records"
grep -q CAP_PERFMON $T/err || fail "unhelpful error for a reader without CAP_PERFMON: $(cat $T/err)"
# /proc/rtmon/status names the targets' tasks: root only, until the udev
# rule gives it /dev/rtmon's group (here: chgrp, as the rule does)
[ "$(stat -c '%U %G %a' /proc/rtmon/status)" = "root root 440" ] ||
	fail "/proc/rtmon/status is $(stat -c '%U %G %a' /proc/rtmon/status), expected root root 440"
setpriv --reuid=65534 --regid=65534 --clear-groups cat /proc/rtmon/status >/dev/null 2>&1 &&
	fail "nobody could read /proc/rtmon/status"
chgrp nogroup /proc/rtmon/status
setpriv --reuid=65534 --regid=65534 --clear-groups cat /proc/rtmon/status >$T/status-nogroup ||
	fail "a member of the status file's group could not read it"
grep -q '^probes:' $T/status-nogroup || fail "status read by the group is incomplete"
# still works: a target, chains, records
$RTMONCTL targets list
for id in $(seq 0 31); do $RTMONCTL targets del $id 2>/dev/null || true; done
$RTMONCTL start
$RTMONCTL targets add --comm cyclictest --timer
cyclictest -q -m -p 80 -t 1 -i 1000 -l 100 >/dev/null
n=$($RTMONCTL records --json -t 0.5 | grep -c '"comm":"cyclictest"')
[ "$n" -ge 100 ] || fail "only $n records after fuzzing"
echo "ioctl-fuzz: ok"

# A target id reused while its task's chains are being made (issue 22,
# item 6): the module must zero the id's statistics and set its
# misses-only bit before the core can match the target. Round after round
# (tests/apps/target_churn) the same id is a whole target of a FIFO
# sleeper's timer chains with a 1 us deadline (every record a miss), then,
# added while the sleeper's chains complete, a misses-only target of them
# with a 10 s deadline: none of its records may reach the reader (a met
# deadline), its status line must count no miss and only its own chains,
# and every fresh target's counters read 0. Twice: the sleeper on the other
# cpu (4 s; QEMU runs one vCPU at a time and stops the adding one
# anywhere), then on the adding thread's cpu (10 s; on PREEMPT_RT its timer
# preempts the add anywhere).
# timeout: 90
. "$RTMON_TOP/tests/vm/guest/lib.sh"

[ "$(nproc)" -ge 2 ] || fail "needs 2 cpus, the guest has $(nproc)"
rtmon_load
$RTMONCTL start
st=0
"$APPS/target_churn" -D 4 -a 0,1 >$T/out.txt 2>&1 || st=$?
"$APPS/target_churn" -D 10 -a 0,0 >>$T/out.txt 2>&1 || st=$((st | $?))
$RTMONCTL stop
sed 's/^/# /' $T/out.txt
grep '^  chains started\|^  records emitted' /proc/rtmon/status | sed 's/^/# /'
[ $st = 0 ] || fail "target_churn (status $st): $(grep -m 3 '^FAIL\|target_churn:' $T/out.txt | tr '\n' ' ')"
grep -q '^rounds [1-9]' $T/out.txt || fail "target_churn made no round: $(tail -n 1 $T/out.txt)"
echo "target-reuse: ok"

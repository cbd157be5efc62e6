# The reader role under threads sharing one file (issue 22, item 12): two
# threads of one process read records from the same /dev/rtmon file at
# random points of each other's reads (tests/apps/shared_reader: a fresh
# file every ~100 us, the second thread woken by a timer every 20-220 us)
# and never get EBUSY: the role was claimed with a compare-and-exchange and
# the file marked as the reader only afterwards, so its other thread could
# read in between and be refused. Twice: the threads on two cpus (6 s; QEMU
# runs one vCPU at a time and stops the other anywhere), then on one cpu
# with the timer's thread at FIFO 50 above the other (8 s; on PREEMPT_RT it
# preempts the reading thread anywhere in the kernel).
# Two different files: the second still gets EBUSY (read) and POLLERR
# (poll), and becomes the reader once the first is closed. cyclictest
# makes records meanwhile, so reads return some.
# timeout: 90
. "$RTMON_TOP/tests/vm/guest/lib.sh"

[ "$(nproc)" -ge 2 ] || fail "needs 2 cpus, the guest has $(nproc)"
ct=
trap '[ -z "$ct" ] || kill $ct 2>/dev/null || true; rtmon_cleanup' EXIT
rtmon_load
$RTMONCTL targets add --name cyclictest --comm cyclictest --timer >/dev/null
$RTMONCTL start
cyclictest -q -m -p 80 -t 1 -a 0 -i 10000 -l 1700 >/dev/null &
ct=$!
st=0
"$APPS/shared_reader" -D 6 -a 0,1 >$T/out.txt 2>&1 || st=$?
"$APPS/shared_reader" -D 8 -a 0,0 -p 50 >>$T/out.txt 2>&1 || st=$((st | $?))
kill $ct 2>/dev/null || true
wait $ct 2>/dev/null || true
ct=
$RTMONCTL stop
sed 's/^/# /' $T/out.txt
[ $st = 0 ] || fail "shared_reader (status $st): $(grep -m 3 '^FAIL\|shared_reader:' $T/out.txt | tr '\n' ' ')"
grep -q '^files [1-9]' $T/out.txt || fail "shared_reader opened no file: $(head -n 1 $T/out.txt)"
echo "shared-reader: ok"

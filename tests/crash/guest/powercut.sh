# The guest half of tests/crash/run: rtmond writes a miss per cyclictest
# wakeup (1 kHz, a 1 us deadline), and the record too (records_file), to
# an ext4 file system on the run's
# virtio disk; after a few seconds of that, what rtmond has said is stored
# (rtmond.seq, saved after misses.jsonl's fdatasync) and misses.jsonl as
# the guest sees them are copied to the share, and the guest is reset at
# once (sysrq b: no sync, no unmount), as a power cut would stop it. The
# host then reads the disk image (tests/crash/run).
# timeout: 120
. "$RTMON_TOP/tests/vm/guest/lib.sh"
. "$RTMON_TOP/tests/vm/guest/explain-lib.sh"

command -v cyclictest >/dev/null || fail "cyclictest (rt-tests) not installed"
[ -b /dev/vda ] || modprobe virtio_blk 2>/dev/null || true
for ((i = 0; i < 50; i++)); do [ -b /dev/vda ] && break; sleep 0.1; done
[ -b /dev/vda ] || fail "no virtio disk /dev/vda (run-vm --disk)"
modprobe ext4 2>/dev/null || true
mkdir -p /mnt/disk
mount -t ext4 /dev/vda /mnt/disk || fail "cannot mount /dev/vda: $(dmesg | tail -n 2)"
rtmon_load
# rtmond on cpu 0 (explain-lib.sh), no ftrace snapshot: only the lines,
# of misses.jsonl and records.jsonl
EXPLAIN_RECORDS_FILE=true
explain_rtmond_start /mnt/disk/rtmon '{ name = "ct"; comm = "cyclictest"; source = "timer";
	      end = "switch_in"; deadline = "1us"; }' 0
cyclictest -q -t1 -p 50 -a 1 -i 1000 -l 100000 -m >/dev/null 2>&1 &
for ((i = 0; i < 100; i++)); do [ -s $out/rtmond.seq ] && break; sleep 0.1; done
[ -s $out/rtmond.seq ] || fail "rtmond saved no rtmond.seq in 10 s: $(tail -n 5 $T/rtmond.log)"
sleep 3
kill -0 $pid || fail "rtmond died: $(tail -n 5 $T/rtmond.log)"
# what rtmond has said is stored, then all it wrote (a superset), then the
# cut: nothing in between lets the guest write its page cache back
cp $out/rtmond.seq $T/seq-before-cut
cp $out/misses.jsonl $T/misses-before-cut.jsonl
cp $out/records.jsonl $T/records-before-cut.jsonl
echo 1 >/proc/sys/kernel/sysrq
echo powercut >"$RTMON_SHARE/power-cut"
echo b >/proc/sysrq-trigger
sleep 10
fail "the guest was not reset"

# Records a real trace-cmd .dat of cyclictest (6.1 PREEMPT_RT guest) for
# rtmon-replay's fixtures (tests/core/data/tracecmd-cyclictest-*): the
# binary .dat, its `trace-cmd report` text, and cyclictest's own output.
# Not in suite.list: run by hand, e.g.
#   flock /tmp/guest.lock tests/vm/run-vm --board qemu-x86_64-rt \
#     --run-dir /tmp/rv-dat -e RTMON_KO=$PWD/build/kmod/KVER/rtmon.ko \
#     tests/vm/guest/record-tracecmd.sh
# then copy /tmp/rv-dat/share/record-tracecmd.d/ct.{dat,txt} into tests/core/data.
# The module is not loaded: the recording is of the kernel's own events.
# timeout: 300
. "$RTMON_TOP/tests/vm/guest/common.sh"

loops=${RECORD_LOOPS:-300}
cd "$T"
rm -f ct.dat ct.txt ct-lat.txt ct-raw.txt ct.out
trace-cmd record -q -C mono -e sched:sched_switch -e sched:sched_waking -e irq \
	-e timer:hrtimer_start -e timer:hrtimer_expire_entry \
	-e timer:hrtimer_expire_exit -o "$T/ct.dat" \
	cyclictest -q -t1 -p 80 -a 1 -i 1000 -l "$loops" -m -v >ct.out 2>&1 ||
	fail "trace-cmd record failed: $(tail -n 5 ct.out)"
trace-cmd report -i ct.dat >ct.txt || fail "trace-cmd report failed"
# with the latency columns (the hardirq/softirq flags), and raw fields
trace-cmd report -l -i ct.dat >ct-lat.txt || fail "trace-cmd report -l failed"
trace-cmd report -R -i ct.dat >ct-raw.txt || fail "trace-cmd report -R failed"
note "$(uname -r), $(trace-cmd --version 2>&1 | head -n 1 || true)"
note "ct.dat $(stat -c %s ct.dat) bytes, ct.txt $(wc -l <ct.txt) lines"
note "measuring thread: $(grep -m1 -o 'T: 0 ( *[0-9]*)' ct.out || true)"
head -n 3 ct.txt

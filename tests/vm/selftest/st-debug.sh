# harness self-test (debug kernel): the script passes but the kernel
# reports what rtmon_selftest_debug.ko's wrong=KIND does; KIND is in the
# script's name, st-debug-KIND.sh (copies of this file, made by
# selftest/run: one test per kind of report)
# timeout: 90
kind=$(basename "$0" .sh)
kind=${kind#st-debug-}
insmod "$SELFTEST_DEBUG_KO" wrong="$kind"
if [ "$kind" = leak ]; then
	# kmemleak reports an object left unreferenced for 5 s, at a scan
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	echo scan >/sys/kernel/debug/kmemleak
fi
rmmod rtmon_selftest_debug
echo "selftest: script itself passed"

# The debug kernel's last word on the tests before it (the debug boards,
# debug.list: rtmon loaded, tracking, reading and unloaded many times in
# this boot):
# - lockdep must still be on: it turns itself off after its first report
#   and after a taint that makes it unreliable (a KASAN report, a BUG), and
#   the tests after that would pass unchecked;
# - kmemleak's scan: it reports an object that no pointer reaches and that
#   is older than 5 s; a scan prints "kmemleak: N new suspected memory
#   leaks", which fails this test through run-vm, and the objects with
#   their allocation backtraces are printed here.
# timeout: 120
# shellcheck shell=bash source-path=SCRIPTDIR
# shellcheck source=lib.sh disable=SC2153 # RTMON_TOP: set by run-vm
. "$RTMON_TOP/tests/vm/guest/lib.sh"

[ -r /proc/lockdep_stats ] || fail "no /proc/lockdep_stats: this kernel has no lockdep (run on a debug board)"
grep -q 'debug_locks: *1$' /proc/lockdep_stats ||
	fail "lockdep was turned off during the suite (debug_locks 0): a report or taint before this test (dmesg)"
note "lockdep: on to the end, $(awk '/lock-classes:/ { print $2 }' /proc/lockdep_stats) lock classes"

k=/sys/kernel/debug/kmemleak
[ -e $k ] || fail "no $k: this kernel has no DEBUG_KMEMLEAK (run on a debug board)"
grep -q '^rtmon ' /proc/modules && fail "rtmon is still loaded: this test goes after unload-clean"
# the objects freed last must be at least 5 s old to be judged
sleep 6
echo scan >$k
echo scan >$k
n=$(grep -c '^unreferenced object' $k || true)
if [ "$n" != 0 ]; then
	cat $k
	fail "kmemleak: $n unreferenced objects (above)"
fi
note "kmemleak: no unreferenced object after the suite"
echo "debug-final: ok"

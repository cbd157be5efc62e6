# Inside the guest: (1) the cost of a marker pair (markbench) with rtmon
# loaded and tracking a target on markbench (and the same target
# misses-only: no record to the ring, no reader wakeup), loaded with no
# target, and a no-op ioctl; (2) rtmond's CPU time while cyclictest makes about 1k and
# 10k timer chains per second. Lines on stdout (run-vm: share/bench-guest.log):
#   mark MODE median_ns mean_ns p90_ns clock_ns [chains completed]
#   tight MODE mean_ns
#   rtmond LABEL seconds chains ticks clk_tck sched_ns misses
# timeout: 1500
. "$RTMON_TOP/tests/vm/guest/lib.sh"
MB=$RTMON_TOP/build/bench-monitor/markbench
RTMOND=$RTMON_TOP/build/monitor/rtmond
[ -x "$MB" ] || fail "markbench not built"
rounds=${ROUNDS:-5} n=${MARK_N:-5000} secs=${RATE_SECS:-20}
reader= rpid= cpid=
cleanup() {
	set +e
	[ -n "$reader" ] && kill $reader 2>/dev/null
	[ -n "$cpid" ] && kill $cpid 2>/dev/null
	[ -n "$rpid" ] && kill -TERM $rpid 2>/dev/null && wait $rpid 2>/dev/null
	rtmon_cleanup
}
trap cleanup EXIT
rtmon_load
note "$(nproc) cpus, $(uname -r)"

# ---- 1. marker pair: markbench on cpu 1, the record reader on cpu 0 ----
taskset -c 0 "$RTMONCTL" records -t 3600 >/dev/null &
reader=$!
completed() { awk '/^  chains started/ { print $5 }' /proc/rtmon/status; }
for ((r = 1; r <= rounds; r++)); do
	taskset -c 1 "$MB" -c 1 -n "$n" noop | sed 's/^/mark /'
	taskset -c 1 "$MB" -c 1 -n "$n" markers | sed 's/^markers/mark none/'
	id=$("$RTMONCTL" targets add --name markbench --comm markbench --timer --end work_end | awk '{ print $2 }')
	c0=$(completed)
	out=$(taskset -c 1 "$MB" -c 1 -n "$n" markers)
	c1=$(completed)
	"$RTMONCTL" targets del "$id" >/dev/null
	echo "mark tracking ${out#markers } $((c1 - c0))"
	# the same chains on a misses-only target: no record kept, no reader wakeup
	id=$("$RTMONCTL" targets add --name markbench --comm markbench --timer --end work_end \
		--deadline 10s --misses-only | awk '{ print $2 }')
	c0=$(completed)
	out=$(taskset -c 1 "$MB" -c 1 -n "$n" markers)
	c1=$(completed)
	"$RTMONCTL" targets del "$id" >/dev/null
	echo "mark missesonly ${out#markers } $((c1 - c0))"
	taskset -c 1 "$MB" -c 1 -n 200000 tight-noop | sed 's/^/tight /'
	taskset -c 1 "$MB" -c 1 -n 200000 tight-markers | sed 's/^/tight /'
done
grep -E '^  (chains|drops)' /proc/rtmon/status  >&2
kill $reader; wait $reader 2>/dev/null || true
reader=

# ---- 2. rtmond's CPU time at about 1k and 10k chains/s ----
out=/tmp/bench-rtmond
rm -rf $out
cat >$T/rtmon.conf <<CONF
targets = ( { name = "cyclictest"; comm = "cyclictest"; source = "timer";
	      end = "switch_in"; deadline = "10ms"; } );
snapshot = { dir = "$out"; records_file = false; ftrace = false; lttng = false; };
metrics = { listen = "127.0.0.1:9465"; textfile = ""; };
realtime = { policy = "fifo"; priority = 10; mlockall = true; keep_admin = true; };
CONF
"$RTMOND" -c $T/rtmon.conf 2>$T/rtmond.log &
rpid=$!
for ((i = 0; i < 200; i++)); do
	grep -q "rtmond: running" $T/rtmond.log && break
	kill -0 $rpid 2>/dev/null || fail "rtmond died: $(tail -n 5 $T/rtmond.log)"
	sleep 0.1
done
grep -q "rtmond: running" $T/rtmond.log || fail "rtmond did not start: $(tail -n 5 $T/rtmond.log)"
tname=cyclictest	# the target measured
tchains() { awk -v t=" $tname: comm=" 'index($0, t) { getline; print $2; exit }' /proc/rtmon/status; }
tmisses() { awk -v t=" $tname: comm=" 'index($0, t) { getline; print $4; exit }' /proc/rtmon/status; }
ticks() { awk '{ print $14 + $15 }' /proc/$rpid/stat; }
schedns() { cat /proc/$rpid/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
measure() { # LABEL
	local c0 m0 k0 s0 t0 c1 m1 k1 s1 t1
	c0=$(tchains) m0=$(tmisses) k0=$(ticks) s0=$(schedns) t0=$(date +%s%N)
	sleep "$secs"
	c1=$(tchains) m1=$(tmisses) k1=$(ticks) s1=$(schedns) t1=$(date +%s%N)
	echo "rtmond $1 $(((t1 - t0) / 1000)) $((c1 - c0)) $((k1 - k0)) $(getconf CLK_TCK) $((s1 - s0)) $((m1 - m0))"
}
sleep 2
measure idle
for t in 1 10; do
	cyclictest -q -m -p 80 -t $t -d 0 -i 1000 -D 3600 >/dev/null 2>&1 &
	cpid=$!
	sleep 3
	measure "cyclictest-t$t"
	kill $cpid; wait $cpid 2>/dev/null || true
	cpid=
done
kill -TERM $rpid; wait $rpid || fail "rtmond exited $?"
rpid=
{ grep -c . $out/misses.jsonl 2>/dev/null | sed "s/^/misses.jsonl lines: /" || true; } >&2

# ---- 3. rtmond's CPU time at 10 misses/s: every wakeup of timer_loop
# (tests/apps; a sleeper every 100 ms: cyclictest's main thread would add
# its own 100 wakeups/s) misses a 1 us deadline; without snapshots, then
# with an ftrace snapshot and its explanation per miss (rtmond's snapshot
# worker) ----
tname=loop
for snap in nosnap ftrace; do
	rm -rf $out
	cat >$T/rtmon.conf <<CONF
targets = ( { name = "loop"; comm = "timer_loop"; source = "timer";
	      end = "switch_in"; deadline = "1us"; } );
snapshot = { dir = "$out"; records_file = false; ftrace = $([ $snap = ftrace ] && echo true || echo false);
	     ftrace_buffer_kb = 1024; lttng = false; on_timeout = false;
	     rate_burst = 100; rate_interval = "100ms"; };
metrics = { listen = "127.0.0.1:9465"; textfile = ""; };
realtime = { policy = "fifo"; priority = 10; mlockall = true; keep_admin = true; };
CONF
	"$RTMOND" -c $T/rtmon.conf 2>$T/rtmond.log &
	rpid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q "rtmond: running" $T/rtmond.log && break
		kill -0 $rpid 2>/dev/null || fail "rtmond died: $(tail -n 5 $T/rtmond.log)"
		sleep 0.1
	done
	grep -q "rtmond: running" $T/rtmond.log || fail "rtmond did not start: $(tail -n 5 $T/rtmond.log)"
	"$APPS/timer_loop" -k sleeper -p 80 -i 100000 -l 100000 >/dev/null 2>&1 &
	cpid=$!
	sleep 3
	measure "misses10-$snap"
	kill $cpid; wait $cpid 2>/dev/null || true
	cpid=
	kill -TERM $rpid; wait $rpid || fail "rtmond exited $?"
	rpid=
	echo "explained $snap $(cat $out/ftrace/*.explain.jsonl 2>/dev/null | grep -c .)" \
		"$(grep -c . $out/misses.jsonl 2>/dev/null || echo 0)"
	if [ $snap = ftrace ]; then
		f=$(ls $out/ftrace/miss-*.txt 2>/dev/null | tail -n 1)
		[ -n "$f" ] && echo "snapshot_events $(grep -c ': sched_\|: irq_\|: softirq_\|: hrtimer_' "$f")"
	fi
done

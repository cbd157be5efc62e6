# GPIO loopback misses on the board's simulated chip, reported by both
# sides for the same edges, as on the x86 boards (tests/vm/guest/gpio-miss.sh):
# 1. provoked: the responder works 15 ms longer on every 50th edge against
#    a 5 ms deadline: each of those edges is a driver miss and has rtmon's
#    record with the deadline_miss flag;
# 2. a competing SCHED_FIFO task above the responder on its cpu (15 ms
#    bursts every 60 ms): misses on both sides, --fail-on-miss: exit 1;
# 3. load: hackbench (rt-tests) in the background.
# All three: every edge joined (an IRQ finding its thread still runnable is
# followed to the thread's next pass), no duplicate or extra chain, the
# agreement checks, every rtmon miss a driver miss.
# timeout: 400
. "$RTMON_TOP/tests/vm/guest/arm/lib.sh"
. "$RTMON_TOP/tests/vm/guest/gpio-lib.sh"

deadline_us=5000
rtmon_load
gpio_sim_up

# check NAME: the join of every edge, as gpio-miss.sh checks it
check() {
	local f=$W/$1.json k v n
	n=$(json_get "$f" edges.sent)
	echo "$1: $n edges, lost $(json_get "$f" edges.lost); joined $(json_get "$f" join.joined)," \
		"missing $(json_get "$f" join.missing), duplicate $(json_get "$f" join.duplicate)," \
		"extra $(json_get "$f" join.extra); edge - start max $(json_get "$f" join.edge_minus_start_ns.max) ns;" \
		"misses: driver $(json_get "$f" misses.driver_count), rtmon $(json_get "$f" misses.rtmon_count)," \
		"both $(json_get "$f" misses.both | wc -l), provoked $(json_get "$f" misses.provoked | wc -l);" \
		"response p50 $(json_get "$f" stats.p50_ns) max $(json_get "$f" stats.max_ns) ns"
	[ "$n" = 300 ] || fail "$1: $n edges sent, expected 300"
	for k in edges.lost join.missing join.duplicate join.extra join.no_cookie join.edge_outside_irq \
		join.end_outside_marker join.outside_driver_window join.rtmon_miss_not_driver_miss; do
		v=$(json_get "$f" "$k")
		[ "$v" = 0 ] || fail "$1: $k is '$v', expected 0"
	done
	[ "$(json_get "$f" join.joined)" = "$n" ] || fail "$1: $(json_get "$f" join.joined) of $n edges joined"
	# the agreement bound holds for bound_pct of the edges (gpio-lib.sh)
	v=$(json_get "$f" join.start_outside_bound)
	[ -n "$v" ] || fail "$1: no join.start_outside_bound in the driver's JSON"
	[ $(((n - v) * 100)) -ge $((n * ${BOUND[3]})) ] || fail "$1: $v of $n edges outside the agreement bound"
}

# ---- 1: provoked misses ----
miss_run provoked --count 300 --miss-every 50 --miss-us 15000 -- --count 300 --period-us 4000
[ $rc -eq 0 ] || fail "provoked: exit $rc: $(cat "$W/provoked.loop.err")"
check provoked
prov=$(json_get "$W/provoked.json" misses.provoked | tr '\n' ' ')
[ "$prov" = "50 100 150 200 250 300 " ] || fail "provoked edges: '$prov', expected every 50th"
both=$(json_get "$W/provoked.json" misses.both | tr '\n' ' ')
for e in $prov; do
	case " $both" in *" $e "*) ;; *) fail "provoked edge $e is not a miss on both sides (both: $both)" ;; esac
done

# ---- 2: a competing SCHED_FIFO task on the responder's cpu ----
# (cpu_hog, tests/apps: the ARM image has neither chrt nor python) 15 ms
# of spinning every 60 ms, 60 s at most
"$RTMON_BIN/cpu_hog" -p 90 -a 1 -b 15000 -i 60000 -t 60 &
hog=$!
gpio_pids+=("$hog")
sleep 1
kill -0 "$hog" 2>/dev/null || fail "cpu_hog did not start (SCHED_FIFO 90 on cpu 1)"
miss_run hog --count 300 -- --count 300 --period-us 10000 --timeout-us 2000000 --fail-on-miss
kill "$hog" 2>/dev/null || true
wait "$hog" 2>/dev/null || true
[ $rc -eq 1 ] || fail "hog: --fail-on-miss with misses: exit $rc, expected 1: $(cat "$W/hog.loop.err")"
check hog
[ "$(json_get "$W/hog.json" misses.driver_count)" -gt 0 ] && [ "$(json_get "$W/hog.json" misses.rtmon_count)" -gt 0 ] ||
	fail "hog: no misses with the competing task"

# ---- 3: hackbench as background load ----
load_run
check load
echo "gpio-miss: ok"

#!/bin/sh
# Run the core benchmark: wall-clock ns/event (best of 5) and, with
# valgrind, instructions/event counted by callgrind inside the core's
# entry points only (--toggle-collect='rtm_ev_*', callees included).
#   bench.sh BENCH_BINARY OUT_DIR [N]
B=$1
O=$2
N=${3:-200000}
mkdir -p "$O"
"$B" --time "$N" > "$O/time.txt" || exit 1
get() { sed -n "s/.*\(^\| \)$1=\([0-9.]*\).*/\2/p" "$2" | head -1; }
ns_no=$(get time_nochain_ns_per_event "$O/time.txt")
ns_tr=$(get time_transition_ns_per_event "$O/time.txt")
ns_mx=$(get time_mixed_ns_per_event "$O/time.txt")

ir() {
	valgrind --tool=callgrind --toggle-collect='rtm_ev_*' \
		--callgrind-out-file="$O/callgrind.$1" "$B" "$1" "$N" \
		> "$O/run.$1" 2> "$O/valgrind.$1.log" || return 1
	tot=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$O/callgrind.$1")
	[ -z "$tot" ] && tot=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$O/callgrind.$1")
	ev=$(get events "$O/run.$1")
	awk -v t="$tot" -v e="$ev" 'BEGIN { printf "%.1f", t / e }'
}
if command -v valgrind >/dev/null 2>&1; then
	in_no=$(ir nochain)
	in_tr=$(ir transition)
	in_mx=$(ir mixed)
	in_tk=$(ir tick)
	in_ts=$(ir tick-sleeper)
	in_so=$(ir sleeper-other)
else
	in_no=n/a; in_tr=n/a; in_mx=n/a; in_tk=n/a; in_ts=n/a; in_so=n/a
fi
verdict() {
	awk -v v="$1" -v lim="$2" 'BEGIN { if (v == "n/a") print "not measured";
		else if (v + 0 <= lim) print "MET (<= " lim ")"; else print "NOT MET (> " lim ")" }'
}
chain_events=$(get transition_events "$O/time.txt")
echo "rtmon core benchmark ($N events per stream, $(uname -m), single thread)"
echo
printf "%-36s %14s %14s %18s\n" "metric" "rtmon core" "latency-tracker" "target"
printf "%-36s %14s %14s %18s\n" "no-chain event: ns/event" "$ns_no" "259" "-"
printf "%-36s %14s %14s %18s\n" "no-chain event: instructions/event" "$in_no" "756" "<= 40"
printf "%-36s %14s %14s %18s\n" "transition: ns/event" "$ns_tr" "1137" "-"
printf "%-36s %14s %14s %18s\n" "transition: instructions/event" "$in_tr" "2024" "<= 250"
printf "%-36s %14s %14s %18s\n" "mixed (~4% transitions): ns/event" "$ns_mx" "-" "-"
printf "%-36s %14s %14s %18s\n" "mixed: instructions/event" "$in_mx" "-" "-"
printf "%-36s %14s %14s %18s\n" "tick, all timer kinds: instr/event" "$in_tk" "-" "<= no-chain"
printf "%-36s %14s %14s %18s\n" "tick, sleepers only: instr/event" "$in_ts" "-" "<= no-chain"
printf "%-36s %14s %14s %18s\n" "untargeted sleeper: instr/event" "$in_so" "-" "-"
echo
echo "no-chain instruction target: $(verdict "$in_no" 40)"
echo "transition instruction target: $(verdict "$in_tr" 250)"
echo "tick (a timer waking no one: entry + exit) against no-chain events: $(verdict "$in_tk" "$in_no") with every"
echo " timer kind wanted (its expiry kept until the exit), $(verdict "$in_ts" "$in_no") with sleepers only"
echo "untargeted sleeper: a timer target elsewhere, a sleeper's expiry, wakeup, switch_in and block"
echo " (5 events): its chain starts, since the task may hand off to a target, and ends unreported"
echo "(transition = every event of a chain: start, forks, moves, completion"
echo " with record emission; latency-tracker also spent ~8 us per tracked IRQ)"

# The open-chains curve: instructions an event of the no-chain and of the
# transition stream while OPEN chains wait in the task table (their tasks
# never run), up to the chain pool (1024 by default; 64 left for the
# transitions). A run with no stream is subtracted (the opening's events).
if command -v valgrind >/dev/null 2>&1; then
	cg_total() {
		valgrind --tool=callgrind --toggle-collect='rtm_ev_*' \
			--callgrind-out-file="$O/callgrind.open" "$B" open "$1" "$2" "$3" \
			> "$O/run.open" 2> "$O/valgrind.open.log" || { echo "bench_core open $*: failed" >&2; return 1; }
		sed -n 's/^summary: *\([0-9]*\).*/\1/p; s/^totals: *\([0-9]*\).*/\1/p' "$O/callgrind.open" | head -n 1
	}
	# per_event OPEN STREAM BASE: BASE, the opening alone (no stream)
	per_event() {
		[ -n "$3" ] && tot=$(cg_total "$1" "$2" "$N") || { echo n/a; return; }
		ev=$(get events "$O/run.open")
		awk -v t="$tot" -v b="$3" -v e="$ev" 'BEGIN { printf "%.1f", (t - b) / e }'
	}
	echo
	echo "open-chains curve: instructions/event while OPEN chains wait for their task's switch_in"
	printf "%8s %18s %18s\n" "open" "no-chain event" "transition event"
	: > "$O/open-chains.dat"
	for open in 0 16 64 256 512 960; do
		base=$(cg_total $open nochain 0) || base=
		a=$(per_event $open nochain "$base")
		b=$(per_event $open transition "$base")
		printf "%8s %18s %18s\n" "$open" "$a" "$b"
		echo "$open $a $b" >> "$O/open-chains.dat"
	done
	if command -v gnuplot >/dev/null 2>&1; then
		gnuplot <<-EOF && echo "figure: $O/open-chains.svg"
		set terminal svg size 720,420 dynamic font 'sans,11'
		set output '$O/open-chains.svg'
		set title 'rtmon core: instructions per event against open chains (callgrind)'
		set xlabel 'chains open, waiting in the task table'
		set ylabel 'instructions per event'
		set yrange [0:*]; set grid; set key top left
		plot '$O/open-chains.dat' using 1:2 with linespoints title 'no-chain event', \
		     '' using 1:3 with linespoints title 'transition event'
		EOF
	else
		echo "figure: not drawn, gnuplot is not installed (scripts/deps.sh installs gnuplot-nox)"
	fi
fi

# The fan-out curve: instructions a chain, and an event, when the IRQ's
# thread wakes F tasks (F - 1 untargeted workers that run and block, then
# the target): every wakeup forks a branch, every block closes one.
if command -v valgrind >/dev/null 2>&1; then
	echo
	echo "fan-out curve: an IRQ's thread wakes F tasks a chain (one the target; callgrind)"
	printf "%8s %14s %14s %16s %16s\n" "F" "events/chain" "instr/chain" "instr/branch" "instr/event"
	: > "$O/fanout.dat"
	for fan in 1 2 4 8 16 32 64; do
		valgrind --tool=callgrind --toggle-collect='rtm_ev_*' \
			--callgrind-out-file="$O/callgrind.fanout" "$B" fanout $fan "$N" \
			> "$O/run.fanout" 2> "$O/valgrind.fanout.log" || { echo "bench_core fanout $fan: failed"; continue; }
		tot=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p; s/^totals: *\([0-9]*\).*/\1/p' "$O/callgrind.fanout" | head -n 1)
		ev=$(get events "$O/run.fanout")
		ch=$(get completed "$O/run.fanout")
		br=$(get branches "$O/run.fanout")
		awk -v f=$fan -v t="$tot" -v e="$ev" -v c="$ch" -v b="$br" 'BEGIN {
			if (!c) { printf "%8d %14s\n", f, "no chain completed"; exit 1 }
			printf "%8d %14.1f %14.0f %16.1f %16.1f\n", f, e / c, t / c, t / b, t / e }' || continue
		awk -v f=$fan -v t="$tot" -v e="$ev" -v c="$ch" -v b="$br" \
			'BEGIN { printf "%d %.0f %.1f %.1f\n", f, t / c, t / b, t / e }' >> "$O/fanout.dat"
	done
	if command -v gnuplot >/dev/null 2>&1; then
		gnuplot <<-EOF && echo "figure: $O/fanout.svg"
		set terminal svg size 720,420 dynamic font 'sans,11'
		set output '$O/fanout.svg'
		set title 'rtmon core: instructions per chain against its fan-out (callgrind)'
		set xlabel 'tasks woken by the IRQ thread, per chain'
		set ylabel 'instructions per chain'
		set y2label 'instructions per branch'
		set logscale x 2; set yrange [0:*]; set y2range [0:*]; set ytics nomirror; set y2tics
		set grid; set key top left
		plot '$O/fanout.dat' using 1:2 with linespoints title 'per chain', \
		     '' using 1:3 axes x1y2 with linespoints title 'per branch'
		EOF
	else
		echo "figure: not drawn, gnuplot is not installed (scripts/deps.sh installs gnuplot-nox)"
	fi
fi

# rtmon-replay's throughput on a real recording (tests/core/data, made by
# tests/vm/guest/record-tracecmd.sh): kernel events read and replayed per
# second from the trace-cmd .dat (libtracecmd) and from its report text,
# best of 5 rounds of 10 replays each (set REPLAY and DAT_DATA=path without
# the .dat/.txt suffix; the Makefile does)
if [ -n "${REPLAY:-}" ] && [ -x "$REPLAY" ] && [ -f "${DAT_DATA:-}.dat" ]; then
	nev=$(grep -c ' \[[0-9]*\] ' "$DAT_DATA.txt")
	rate() {
		best=
		for round in 1 2 3 4 5; do
			t0=$(date +%s%N)
			for i in 1 2 3 4 5 6 7 8 9 10; do
				"$REPLAY" --target name=cyclictest,source=timer "$1" \
					>/dev/null 2>&1 || { echo failed; return; }
			done
			t=$(( $(date +%s%N) - t0 ))
			[ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
		done
		awk -v n="$nev" -v t="$best" 'BEGIN { printf "%.0f (%.2f ms/replay)", n * 10 / (t / 1e9), t / 1e7 }'
	}
	echo
	echo "rtmon-replay on $(basename "$DAT_DATA") ($nev kernel events, whole process per replay):"
	printf "%-36s %s\n" "trace-cmd .dat: events/s" "$(rate "$DAT_DATA.dat")"
	printf "%-36s %s\n" "trace-cmd report text: events/s" "$(rate "$DAT_DATA.txt")"
	echo "(a .dat replay includes opening the file: libtraceevent's parsing of the 4 MB of"
	echo " kallsyms saved in it is ~60% of the instructions on a recording this short)"
fi

# rtmond's own targets across restarts (issue 21, item 14): rtmond tags the
# targets it adds (RTMON_TF_RTMOND, " rtmond" in /proc/rtmon/status), so a
# target renamed or removed in the configuration while rtmond was stopped
# is removed at the next start, and targets added by others are kept:
# - rtmond with targets A and B; rtmonctl adds X by hand; rtmond stops
#   (its targets stay in the module, as they should across a restart);
# - the configuration becomes A and C; rtmond starts: B is gone, C is
#   there, A kept with its id, X (untagged) kept;
# - one restart after another with a new target name each time never
#   grows the module's targets (they used to fill every slot).
# timeout: 120
. "$RTMON_TOP/tests/vm/guest/lib.sh"

RTMOND=$RTMON_TOP/build/monitor/rtmond
[ -x "$RTMOND" ] || fail "rtmond not built"
pid=
cleanup() {
	set +e
	[ -n "$pid" ] && kill -9 $pid 2>/dev/null && wait $pid 2>/dev/null
	rtmon_cleanup
}
trap cleanup EXIT
rtmon_load

conf() { # NAME...: one target per name, each on its own comm
	{
		echo "targets = ("
		local sep=""
		for n in "$@"; do
			echo "$sep { name = \"$n\"; comm = \"task_$n\"; source = \"timer\"; deadline = \"1ms\"; }"
			sep=","
		done
		echo ");"
		echo "snapshot = { dir = \"$T/out\"; ftrace = false; lttng = false; };"
		echo "metrics = { listen = \"\"; };"
	} >$T/rtmon.conf
}
run_rtmond() { # start, wait for "running", stop with SIGTERM
	: >$T/rtmond.log
	"$RTMOND" -c $T/rtmon.conf 2>$T/rtmond.log &
	pid=$!
	wait_rtmond_log $T/rtmond.log "rtmond: running" 10
	kill -TERM $pid
	local rc=0
	wait $pid || rc=$?
	pid=
	[ $rc = 0 ] || fail "rtmond exited $rc on SIGTERM: $(tail -n 3 $T/rtmond.log)"
	cat $T/rtmond.log >>$T/rtmond-all.log
}
# the status file's target lines: "ID NAME [rtmond]"
targets() {
	awk '/^  [0-9]+ [^ ]+: comm=/ { n = $2; sub(/:$/, "", n); print $1, n ($NF == "rtmond" ? " rtmond" : "") }' \
		/proc/rtmon/status
}
id_of() { targets | awk -v n="$1" '$2 == n { print $1 }'; }

conf A B
run_rtmond
"$RTMONCTL" targets add --name X --comm task_X --deadline 1ms >/dev/null ||
	fail "rtmonctl targets add failed"
note "after the first run and rtmonctl's X:"; targets | sed 's/^/#   /'
[ -n "$(id_of A)" ] && [ -n "$(id_of B)" ] && [ -n "$(id_of X)" ] || fail "A, B or X missing"
grep -q "^[0-9]* A rtmond$" <<<"$(targets)" || fail "A is not tagged as rtmond's"
grep -q "^[0-9]* X$" <<<"$(targets)" || fail "rtmonctl's X is tagged as rtmond's"
idA=$(id_of A)

conf A C
run_rtmond
note "after the restart with A, C:"; targets | sed 's/^/#   /'
grep "targets\|removed" $T/rtmond.log | sed 's/^/# /'
[ -z "$(id_of B)" ] || fail "B, no longer configured, is still in the module"
[ -n "$(id_of C)" ] || fail "C is not in the module"
[ "$(id_of A)" = "$idA" ] || fail "A was not kept (id $idA, now '$(id_of A)')"
[ -n "$(id_of X)" ] || fail "rtmonctl's X was removed"
grep -q "removed module target [0-9]* 'B': added by rtmond, no longer in the configuration" \
	$T/rtmond.log || fail "B's removal not logged"

# a new name at every restart: the module's targets do not grow
n0=$(targets | wc -l)
for k in 1 2 3 4 5 6; do
	conf A "R$k"
	run_rtmond
done
n1=$(targets | wc -l)
note "targets after 6 restarts with a new name each: $n1 (before: $n0)"
[ "$n1" = "$n0" ] || fail "the module's targets grew from $n0 to $n1: $(targets | tr '\n' ' ')"
[ -n "$(id_of R6)" ] && [ -z "$(id_of R5)" ] && [ -n "$(id_of X)" ] ||
	fail "want A, R6 and X: $(targets | tr '\n' ' ')"
echo "rtmond-targets: ok ($n1 targets after 8 runs: $(targets | awk '{ print $2 }' | tr '\n' ' '))"

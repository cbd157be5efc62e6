#!/usr/bin/env bash
# test_cli.sh BUILD REPLAY FAKE.so WORKDIR: the command lines of rtmon's tools
# as built (BUILD: build/monitor; REPLAY: rtmon-replay). Every tool and every
# rtmonctl command answers --help (exit 0, a usage text on stdout) and
# --version (exit 0, the version of monitor/Makefile). 'rtmonctl records'
# for CI, on fake_rtmon.so's records 1..10 (latency 1000+N ns, odd N a
# miss): the summary at exit (text and --json --summary), -n counting what
# was printed, --fail-on-miss's exit 3, --duration without the idle exit,
# the summary on SIGINT, and the usage errors. Prints PASS:/FAIL: lines.
set -uo pipefail
B=$1
REPLAY=$2
FAKE=$3
W=$4
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2034 # (read by cli-lib.sh)
prefix=cli
# pass, fail, run
# shellcheck source=cli-lib.sh
. "$here/cli-lib.sh"
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1
version=$(sed -n 's/^VERSION :*= *//p' "$here/../../monitor/Makefile")

# ---- --help and --version everywhere
help_ok=0 help_bad=""
check_help() {
	local rc=0
	"$@" --help >out.txt 2>err.txt || rc=$?
	if [ $rc -eq 0 ] && grep -q '^usage:' out.txt && [ ! -s err.txt ]; then
		help_ok=$((help_ok + 1))
	else
		help_bad="$help_bad [$* --help: exit $rc, $(head -c 100 out.txt err.txt | tr '\n' ' ')]"
	fi
}
R=$B/rtmonctl
for cmd in "" status targets "targets add" "targets del" "targets list" start stop records \
	   hist misses show explain top plot; do
	# shellcheck disable=SC2086 # the command's words
	check_help "$R" $cmd
done
check_help "$B/rtmond"
check_help "$B/rtmon-mark"
check_help "$REPLAY"
if [ -z "$help_bad" ]; then
	pass "help ($help_ok commands and tools: exit 0, usage on stdout)"
else
	fail help "$help_bad"
fi
# --help after other options, and -h, as well
if "$R" records -n 3 -h >out.txt 2>&1 && grep -q 'fail-on-miss' out.txt &&
   "$R" --json plot --help >out.txt 2>&1 && grep -q 'gnuplot' out.txt; then
	pass "help/anywhere (after options, -h)"
else
	fail help/anywhere "$(head -c 300 out.txt)"
fi
v_bad=""
for t in "$R" "$B/rtmond" "$B/rtmon-mark" "$REPLAY" "$R status"; do
	# shellcheck disable=SC2086
	out=$($t --version 2>&1) || v_bad="$v_bad [$t: exit $?]"
	[ "${out%% *}" = "$(basename "${t%% *}")" ] && [[ "$out" == *" $version"* ]] ||
		v_bad="$v_bad [$t --version: '$out']"
done
if [ -z "$v_bad" ]; then
	pass "version (5 command lines: NAME $version)"
else
	fail version "$v_bad"
fi

# ---- rtmonctl records, on the fake device
export FAKE_RTMON_DEV=/dev/rtmon FAKE_RTMON_DB=$W/targets.db
LD_PRELOAD=$FAKE "$R" targets add --name cyc --comm cyclictest --deadline 1ms >/dev/null ||
	fail records/setup "targets add failed"
seq_file() { printf '%s\n' "$@" >"$W/records.in"; }
records() { FAKE_RTMON_RECORDS=$W/records.in LD_PRELOAD=$FAKE "$R" records "$@"; }

seq_file 1..10
rc=0
records -t 0.2 >out.txt 2>err.txt || rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^#[0-9][0-9]* ' out.txt)" -eq 10 ] &&
   grep -q '^# 10 records in' out.txt &&
   grep -Eq '^# cyc +10 +5 +0 +1\.001 +1\.005 +1\.010 +1\.010 +1\.010$' out.txt; then
	pass "records/summary (10 records, 5 misses, min/avg/max/p99/p99.9 in us)"
else
	fail records/summary "exit $rc: $(tail -n 4 out.txt) $(head -c 200 err.txt)"
fi

# -n counts what was printed: with -m, 4 misses (it printed 2 before)
rc=0
records -m -n 4 >out.txt 2>err.txt || rc=$?
got=$(grep -o '^#[0-9][0-9]*' out.txt | tr -d '#' | tr '\n' ' ')
if [ $rc -eq 0 ] && [ "$got" = "1 3 5 7 " ]; then
	pass "records/count-printed (-m -n 4: misses $got)"
else
	fail records/count-printed "exit $rc, printed: '$got' $(head -c 200 err.txt)"
fi

rc=0
records --json -q --summary --fail-on-miss >out.txt 2>err.txt || rc=$?
if [ $rc -eq 3 ] && [ "$(wc -l <out.txt)" -eq 1 ] && python3 - out.txt <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
assert (s["records"], s["misses"], s["timeouts"]) == (10, 5, 0), s
t, = s["targets"]
assert (t["name"], t["count"], t["min_ns"], t["max_ns"], t["p99_9_ns"]) == \
	("cyc", 10, 1001, 1010, 1010), t
PY
then
	pass "records/fail-on-miss (exit 3; --json -q --summary: one summary line)"
else
	fail records/fail-on-miss "exit $rc (want 3): $(head -c 300 out.txt err.txt)"
fi
seq_file 2 4 6
rc=0
records --fail-on-miss -q >out.txt 2>err.txt || rc=$?
if [ $rc -eq 0 ] && grep -q '^# 3 records' out.txt; then
	pass "records/no-miss (exit 0 with --fail-on-miss, 3 records met)"
else
	fail records/no-miss "exit $rc: $(head -c 300 out.txt err.txt)"
fi

# --duration: no idle exit at 1 s; the summary counts the time
seq_file 2 4
rc=0
records --json --summary -d 1500ms >out.txt 2>err.txt || rc=$?
secs=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readlines()[-1])["summary"]["seconds"])' out.txt 2>/dev/null)
if [ $rc -eq 0 ] && [ "$(grep -c '"seq"' out.txt)" -eq 2 ] && [ "$(grep -c '"wall_ns"' out.txt)" -eq 2 ] &&
   python3 -c "import sys; sys.exit(not 1.5 <= float('$secs') < 10)"; then
	pass "records/duration (-d 1500ms: ran ${secs} s, 2 records with their wall_ns)"
else
	fail records/duration "exit $rc, seconds '$secs': $(head -c 300 out.txt err.txt)"
fi

# SIGINT ends the wait with the summary (exit 0)
seq_file 1 2
rc=0
FAKE_RTMON_RECORDS=$W/records.in LD_PRELOAD=$FAKE timeout --preserve-status -s INT 1 "$R" records -t 60 \
	>out.txt 2>err.txt || rc=$?
if [ $rc -eq 0 ] && grep -Eq '^# cyc +2 +1 ' out.txt; then
	pass "records/sigint (the summary, exit 0)"
else
	fail records/sigint "exit $rc: $(head -c 300 out.txt err.txt)"
fi

# ---- rtmond --check: what the configuration needs from this machine, every
# problem at once (an IRQ name from this host's /proc/interrupts is known)
irq=$(awk 'NR > 1 && /:/ { print $NF; exit }' /proc/interrupts)
mkdir -p "$W/open" && chmod 777 "$W/open"
cat >good.conf <<EOF
targets = ( { name = "a"; comm = "x"; source = "irq"; irq = "$irq"; deadline = "1ms"; } );
snapshot = { dir = "/tmp/rtmon-cli-check-$$/created"; };
EOF
cat >bad.conf <<EOF
targets = ( { name = "a"; comm = "x"; source = "irq"; irq = "no_such_irq"; deadline = "1ms"; },
	    { name = "b"; comm = "y"; source = "irq"; irq = "$irq"; } );
snapshot = { dir = "$W/open/d"; };
metrics = { listen = "127.0.0.1:80"; textfile = "$W/no-dir/rtmon.prom"; };
EOF
rc=0
"$B/rtmond" --check -c good.conf >out.txt 2>err.txt || rc=$?
if [ $rc -eq 0 ] && grep -q 'ok, 1 targets' out.txt && [ ! -e "/tmp/rtmon-cli-check-$$" ]; then
	pass "check/good (irq \"$irq\" of /proc/interrupts, a snapshot.dir to create under sticky /tmp)"
else
	fail check/good "exit $rc: $(head -c 300 out.txt err.txt)"
fi
rc=0
"$B/rtmond" --check -c bad.conf >out.txt 2>err.txt || rc=$?
if [ $rc -eq 1 ] && grep -q 'targets.a.irq: no interrupt handler named "no_such_irq"' err.txt &&
   grep -q "snapshot.dir: .*/open, where rtmond would create it, is writable by others" err.txt &&
   grep -q 'metrics.textfile: .*no-dir: No such file' err.txt &&
   grep -q 'metrics.listen: port 80 is below 1024' err.txt &&
   grep -q 'bad.conf: 4 problems' err.txt && ! grep -q 'targets.b' err.txt; then
	pass "check/every-problem (exit 1: unknown IRQ name, unsafe dir, no textfile dir, port 80)"
else
	fail check/every-problem "exit $rc: $(head -c 600 err.txt)"
fi

# only an action's name is an IRQ name, not another column of its line
chip=$(awk '$1 ~ /^[0-9]+:$/ && NF >= 4 { print $(NF - 2); exit }' /proc/interrupts)
printf 'targets = ( { name = "a"; comm = "x"; source = "irq"; irq = "%s"; deadline = "1ms"; } );\n' "$chip" >chip.conf
rc=0
"$B/rtmond" --check -c chip.conf >out.txt 2>err.txt || rc=$?
if [ $rc -eq 1 ] && grep -qF "targets.a.irq: no interrupt handler named \"$chip\"" err.txt; then
	pass "check/not-an-action (\"$chip\", a chip column of /proc/interrupts, refused)"
else
	fail check/not-an-action "\"$chip\": exit $rc: $(head -c 300 out.txt err.txt)"
fi

# ---- one record schema: rtmon-replay's JSON line of a real snapshot's
# worst chain explained by 'rtmonctl explain --record' from that snapshot,
# with the culprit rtmon-replay --explain names for it
D=$here/data/explain
t="name=ct,comm=cyclictest,source=timer,end=switch_in,deadline=2ms"
if "$REPLAY" --json --target "$t" "$D/snapshot.txt" >replay.jsonl 2>err.txt &&
	python3 - replay.jsonl >worst.json 2>>err.txt <<'PY' &&
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
recs = [r for r in recs if r.get("type") == "record"]
print(json.dumps(max(recs, key=lambda r: r["latency_ns"])))
PY
	"$R" explain --record worst.json --snapshot "$D/snapshot.txt" >ctl.txt 2>>err.txt &&
	"$REPLAY" --explain --target "$t" "$D/snapshot.txt" >rx.txt 2>>err.txt; then
	seq=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["seq"])' worst.json)
	a=$(grep -m1 "^#$seq " ctl.txt)
	b=$(grep -m1 "^#$seq " rx.txt)
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		pass "schema/replay-line-explained (#$seq: $a)"
	else
		fail schema/replay-line-explained "rtmonctl: '$a', rtmon-replay: '$b'"
	fi
else
	fail schema/replay-line-explained "$(head -c 300 err.txt)"
fi

# usage errors: exit 2, the message, the command's --help named
run records/unitless 2 "bad duration '10' (a number with a unit" records -d 10
run records/bad-option 2 "Try 'rtmonctl records --help'" records --bogus
run records/bad-count 2 "bad count '0'" records -n 0
run unknown-command 2 "unknown command 'recods'" "$R" recods
run targets/deadline-zero 2 "a deadline must be more than 0" "$R" targets add --comm x --deadline 0us
run misses/no-such-date 2 "bad --since '2026-02-31 10:00'" "$R" misses --since "2026-02-31 10:00"
run misses/past-2262 2 "bad --since '2300-01-01 00:00'" "$R" misses --since "2300-01-01 00:00"
run misses/bad-count 2 "bad count '3x'" "$R" misses -n 3x
# the commands of rtmond's files: an option of another one refused by name
run show/no-miss 2 "which miss? (SEQ or LOAD:SEQ" "$R" show
run show/two-misses 2 "one miss at a time: '2' after '1'" "$R" show 1 2
run show/count 2 "-n/--count is not an option of 'show'" "$R" show 1 -n 3
run hist/no-target 2 "which target? (its name in rtmon.conf)" "$R" hist
run hist/since 2 "--since is not an option of 'hist'" "$R" hist x --since 1h
run explain/target 2 "--target is not an option of 'explain'" "$R" explain 1 --target x
run misses/record 2 "--record is not an option of 'misses'" "$R" misses --record f.json
run misses/unknown 2 "unknown option '--bogus'" "$R" misses --bogus
run misses/no-value 2 "'--since' needs a value" "$R" misses --since
# a prefix of the command's own option only (not of another command's)
mkdir -p abbrev && : >abbrev/misses.jsonl
if "$R" misses --s 1h --dir abbrev >out.txt 2>err.txt && grep -q '^seq ' out.txt; then
	pass "misses/abbreviated (--s: --since, misses has no --snapshot)"
else
	fail misses/abbreviated "$(head -c 300 err.txt)"
fi
run replay/unitless 2 "bad target value deadline='100'" "$REPLAY" --target name=x,deadline=100
# a cookie is decimal or 0x-hex, never octal (no module here: exit 1 after parsing)
run mark/decimal 1 "rtmon-mark: begin 10: " "$B/rtmon-mark" begin 010
run mark/hex 1 "rtmon-mark: end 31: " "$B/rtmon-mark" end 0x1f
run mark/bad-cookie 2 "bad cookie '0x'" "$B/rtmon-mark" begin 0x
run mark/bad-usage 2 "usage: rtmon-mark begin|end COOKIE" "$B/rtmon-mark" begin

[ $fails -eq 0 ]

# A misses-only target's records that meet their deadline take no sequence
# number (issue 22, item 3): they used to be numbered and then filtered,
# so every reader saw a gap per met deadline and counted it as a loss
# (rtmond_records_lost_total). Two targets: "quiet", misses-only with a
# 1 s deadline on `sleep` (never missed), and "all" on python3, both timer
# chains, interleaved. The records read (all of "all") are numbered without
# a gap; the status file counts quiet's chains as skipped.
# timeout: 90
. "$RTMON_TOP/tests/vm/guest/lib.sh"

rtmon_load
$RTMONCTL targets add --name quiet --comm sleep --timer --misses-only --deadline 1s >/dev/null
$RTMONCTL targets add --name all --comm python3 --timer >/dev/null
$RTMONCTL start
$RTMONCTL records --json -t 3 >$T/records.json &
reader=$!
trap '[ -z "$reader" ] || kill $reader 2>/dev/null || true; rtmon_cleanup' EXIT
# one python3 for the 30 sleeps of "all" (a start-up each took most of
# the test's time under emulation), a sleep(1) of "quiet" between them
python3 -c '
import subprocess, time
for i in range(30):
    subprocess.run(["sleep", "0.01"], check=True)
    time.sleep(0.01)
'
wait $reader || fail "rtmonctl records failed"
reader=
$RTMONCTL stop
grep -E '^  (records|[0-9]+ (quiet|all))|^    chains' /proc/rtmon/status | sed 's/^/# /'
skipped=$(status_count "  records emitted" skipped)
emitted=$(status_count "  records emitted" emitted)
python3 - "$T/records.json" "$skipped" "$emitted" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
skipped, emitted = int(sys.argv[2]), int(sys.argv[3])
seqs = sorted(r["seq"] for r in recs)
names = {r["target_name"] for r in recs}
print(f"# {len(recs)} records read, seq {seqs[0] if seqs else '-'}..{seqs[-1] if seqs else '-'}, "
      f"targets {sorted(names)}; status: emitted {emitted}, skipped {skipped}")
assert len(recs) >= 30, f"only {len(recs)} records of python3's 30 sleeps"
assert names == {"all"}, f"records of other targets: {names}"
gaps = [(a, b) for a, b in zip(seqs, seqs[1:]) if b != a + 1]
assert not gaps, f"sequence gaps (a met deadline numbered?): {gaps[:5]}"
assert seqs[0] == 1 and seqs[-1] == emitted, f"seqs {seqs[0]}..{seqs[-1]}, emitted {emitted}"
assert skipped >= 30, f"status counts {skipped} skipped records, sleep ran 30 times"
PY
echo "misses-only: ok"

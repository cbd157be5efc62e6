# Per-cpu statistics read whole from another cpu on a 32-bit board
# (issue 22, item 10): on armhf a u64 is two words, and the record hook
# updates a target's counters, latency sum, histogram, minimum and maximum
# one after the other while /proc/rtmon/status sums them from every cpu.
# Each cpu's part must be one consistent copy (u64_stats_sync: the reader
# retries while that cpu writes). cyclictest runs a FIFO thread on each cpu
# (2 ms, deadline 1 ms: some misses) while awk reads the status file as
# fast as it can for 20 s (QEMU's armhf board runs its vCPUs in parallel,
# tcg,thread=multi); in every read, per target: the histogram's counts add
# up to its chains, misses <= chains, min_us <= avg_us <= max_us; from read
# to read: chains, misses, overdue and the global counters never go back.
# 64-bit boards leave the seqcount out (a u64 is one word there), so a
# reader may see a record's count before its histogram bucket: armhf only.
# timeout: 120
. "$RTMON_TOP/tests/vm/guest/arm/lib.sh"

secs=${SECS:-20}
[ "$(nproc)" -ge 2 ] || fail "needs 2 cpus, the guest has $(nproc)"
ct=
trap '[ -z "$ct" ] || kill $ct 2>/dev/null || true; rtmon_cleanup' EXIT
rtmon_load
$RTMONCTL targets add --name cyclictest --comm cyclictest --timer --deadline 1ms >/dev/null
$RTMONCTL start
cyclictest -q -m -p 80 -S -i 2000 -D $((secs + 10)) >/dev/null 2>&1 &
ct=$!
sleep 1
st=0
awk -v f=/proc/rtmon/status -v secs="$secs" '
function flush_target() {
	if (id == "")
		return
	if (hsum != ch[id]) {
		bad++
		if (bad <= 5)
			printf "FAIL: read %d: target %s: histogram counts add up to %d, chains %d\n", reads, id, hsum, ch[id]
	}
	id = ""
}
# mono NAME VALUE: a count that must never go back
function mono(name, v) {
	if (name in last && v + 0 < last[name] + 0) {
		bad++
		if (bad <= 5)
			printf "FAIL: read %d: %s went back from %s to %s\n", reads, name, last[name], v
	}
	last[name] = v
}
BEGIN {
	t0 = systime()
	while (systime() - t0 < secs) {
		id = ""
		while ((getline l < f) > 0) {
			n = split(l, a, " ")
			if (l ~ /^  [0-9]+ /) {
				flush_target()
				id = a[1]
				hsum = 0
			} else if (id != "" && l ~ /^    chains /) {
				for (i = 1; i < n; i += 2)
					v[a[i]] = a[i + 1]
				ch[id] = v["chains"]
				mono("target " id " chains", v["chains"])
				mono("target " id " misses", v["misses"])
				mono("target " id " overdue", v["overdue"])
				if (v["misses"] + 0 > v["chains"] + 0) {
					bad++
					if (bad <= 5)
						printf "FAIL: read %d: target %s: misses %s > chains %s\n", reads, id, v["misses"], v["chains"]
				}
				if (v["chains"] + 0 > 0) {
					checked++
					if (!(v["min_us"] + 0 <= v["avg_us"] + 0 && v["avg_us"] + 0 <= v["max_us"] + 0)) {
						bad++
						if (bad <= 5)
							printf "FAIL: read %d: target %s: avg_us %s outside [min_us %s, max_us %s] (chains %s)\n", reads, id, v["avg_us"], v["min_us"], v["max_us"], v["chains"]
					}
				}
				delete v
			} else if (id != "" && l ~ /^      \[/) {
				for (i = 1; i < n; i++)
					if (a[i] ~ /\)$/) {
						hsum += a[i + 1]
						break
					}
			} else if (l ~ /^[a-z]/) {
				flush_target()
			} else if (l ~ /^  (chains started|records emitted) /) {
				for (i = 2; i < n; i += 2)
					mono(a[1] " " a[i], a[i + 1])
			}
		}
		flush_target()
		close(f)
		reads++
	}
	printf "%d reads in %d s, %d with chains counted, last: chains %s misses %s\n", reads, secs, checked, last["target 0 chains"], last["target 0 misses"]
	if (bad)
		printf "FAIL: %d inconsistent values\n", bad
	exit bad ? 1 : 0
}' >"$T/out.txt" 2>&1 || st=$?
kill $ct 2>/dev/null || true
wait $ct 2>/dev/null || true
ct=
$RTMONCTL stop
sed 's/^/# /' "$T/out.txt"
sed -n '/^targets:/,/^counters:/p' /proc/rtmon/status | sed 's/^/# /'
[ $st = 0 ] || fail "inconsistent statistics: $(grep -m 3 '^FAIL' "$T/out.txt" | tr '\n' ' ')"
checked=$(awk '/ reads in /{ print $6 }' "$T/out.txt")
[ "${checked:-0}" -ge 100 ] || fail "only ${checked:-0} reads with chains counted: $(tail -n 1 "$T/out.txt")"
echo "stats-consistency: ok"

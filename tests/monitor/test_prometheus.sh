#!/usr/bin/env bash
# test_prometheus.sh RTMOND RTMONCTL FAKE.so WORKDIR: rtmond's metrics with
# the fleet's real tools (Debian's prometheus package), its device played by
# fake_rtmon.so as in test_rtmond.sh:
# - the shipped alerting rules (config/prometheus/rtmon-alerts.yml) pass
#   `promtool check rules` and their unit tests (`promtool test rules`,
#   tests/monitor/prometheus/);
# - rtmond's exposition passes `promtool check metrics`;
# - a Prometheus server scrapes rtmond with the rules loaded: the records,
#   misses and percentiles read back through its HTTP API equal rtmonctl
#   hist's, and RtmonDeadlineMissed fires once misses come in.
# Prints PASS:/FAIL:/SKIP: lines.
set -uo pipefail
RTMOND=$1 RTMONCTL=$2 FAKE=$3 W=$4
TOP=$(cd "$(dirname "$0")/../.." && pwd)
RULES=$TOP/config/prometheus/rtmon-alerts.yml
fails=0
pass() { echo "PASS: prometheus/$1"; }
fail() { echo "FAIL: prometheus/$1: $2"; fails=$((fails + 1)); }
if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
	# (scripts/deps.sh installs it: a machine without it is not set up)
	fail tools "promtool or prometheus missing (Debian package prometheus: make deps)"
	exit 1
fi
rm -rf "$W"
mkdir -p "$W"
chmod 0755 "$W"
cd "$W" || exit 1

# ---- the rules
if out=$(promtool check rules "$RULES" 2>&1); then
	pass "check-rules ($(echo "$out" | grep -o '[0-9]* rules found'))"
else
	fail check-rules "$out"
fi
if out=$(cd "$TOP/tests/monitor/prometheus" && promtool test rules rtmon-alerts_test.yml 2>&1); then
	pass "test-rules (tests/monitor/prometheus/rtmon-alerts_test.yml)"
else
	fail test-rules "$(echo "$out" | head -n 20)"
fi

# ---- rtmond serving a fake device's records: 1..100, then 101..200 once
# "go" exists (odd ones are misses)
# (below the ephemeral ports, 32768 and up: no outgoing connection holds it)
port=$((10000 + $$ % 20000))
pport=$((port + 1))
export FAKE_RTMON_DEV=$W/dev FAKE_RTMON_DB=$W/targets.db FAKE_RTMON_RECORDS=$W/records.in
echo "1..100 @$W/go 101..200" >records.in
mkdir -m 0750 out
cat >rtmon.conf <<EOF
targets = ( { name = "A"; comm = "task_A"; source = "timer"; deadline = "1ms"; } );
snapshot = { dir = "$W/out"; ftrace = false; lttng = false; };
metrics = { listen = "127.0.0.1:$port"; };
EOF
pid= ppid_=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; [ -n "$ppid_" ] && kill $ppid_ 2>/dev/null' EXIT
LD_PRELOAD=$FAKE "$RTMOND" -c rtmon.conf -d "$FAKE_RTMON_DEV" 2>rtmond.log &
pid=$!
metric() { # NAME{LABELS}: its value from rtmond's endpoint
	curl -sf "http://127.0.0.1:$port/metrics" | awk -v m="$1" '$1 == m { print $2 }'
}
for ((i = 0; i < 100; i++)); do
	[ "$(metric 'rtmon_target_records_total{target="A"}')" = 100 ] && break
	sleep 0.1
done
if [ "$(metric 'rtmon_target_records_total{target="A"}')" != 100 ]; then
	fail rtmond "no 100 records in rtmond's metrics: $(tail -n 3 rtmond.log)"
	exit 1
fi
curl -sf "http://127.0.0.1:$port/metrics" >metrics.txt
if out=$(promtool check metrics <metrics.txt 2>&1); then
	pass "check-metrics ($(grep -c '^# TYPE' metrics.txt) metrics, $(grep -vc '^#' metrics.txt) series)"
else
	fail check-metrics "$(echo "$out" | sort | uniq -c | head -n 5)"
fi

# ---- Prometheus scraping it every second, the rules evaluated as often
cat >prometheus.yml <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $RULES
scrape_configs:
  - job_name: rtmon
    static_configs:
      - targets: ["127.0.0.1:$port"]
EOF
prometheus --config.file=prometheus.yml --storage.tsdb.path="$W/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >prometheus.log 2>&1 &
ppid_=$!
api() { # PATH?QUERY: the JSON answer
	curl -sf "http://127.0.0.1:$pport/api/v1/$1"
}
query() { # PROMQL: its one value, or nothing
	api "query?query=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$1")" |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if len(r) == 1 else "")' 2>/dev/null
}
for ((i = 0; i < 300; i++)); do
	[ "$(query 'rtmon_target_records_total{target="A"}')" = 100 ] && break
	kill -0 $ppid_ 2>/dev/null || break
	sleep 0.1
done
if [ "$(query 'rtmon_target_records_total{target="A"}')" != 100 ]; then
	fail scrape "Prometheus has no scrape of rtmond: $(query 'up') $(tail -n 3 prometheus.log)"
	exit 1
fi
# the second half of the records, a scrape after it
: >go
for ((i = 0; i < 300; i++)); do
	[ "$(query 'rtmon_target_records_total{target="A"}')" = 200 ] && break
	sleep 0.1
done
hist=$("$RTMONCTL" hist A --dir "$W/out" --json 2>&1)
want=$(python3 -c '
import json, sys
h = json.loads(sys.argv[1])
print(h["records"], h["misses"], "%.9f" % (h["p99_ns"] / 1e9))' "$hist" 2>&1)
got="$(query 'rtmon_target_records_total{target="A"}') $(query 'rtmon_target_misses_total{target="A"}') $(query 'rtmon_latency_quantile_seconds{target="A",quantile="0.99"}')"
if python3 -c '
import sys
a, b = sys.argv[1].split(), sys.argv[2].split()
sys.exit(not (len(a) == len(b) == 3 and a[:2] == b[:2] and abs(float(a[2]) - float(b[2])) < 1e-9))' "$got" "$want"; then
	pass "query (records, misses, p99 through Prometheus' API: $got; rtmonctl hist: $want)"
else
	fail query "Prometheus $got, rtmonctl hist $want ($hist)"
fi
# RtmonDeadlineMissed: misses rose between two scrapes
for ((i = 0; i < 100; i++)); do
	al=$(api alerts | python3 -c 'import json, sys; print(" ".join(a["labels"]["alertname"] + "/" + a["state"] for a in json.load(sys.stdin)["data"]["alerts"]))' 2>/dev/null)
	[[ " $al " == *" RtmonDeadlineMissed/firing "* ]] && break
	sleep 0.1
done
if [[ " $al " == *" RtmonDeadlineMissed/firing "* ]] && [[ " $al " != *" RtmondDown/"* ]]; then
	pass "alert (RtmonDeadlineMissed firing once misses came in; alerts: $al)"
else
	fail alert "alerts: ${al:-none} (want RtmonDeadlineMissed/firing, no RtmondDown)"
fi
[ $fails -eq 0 ]

# Inside the guest: hackbench with rtmon not loaded, loaded with the
# empty-probe build, and loaded and tracking, in alternating rounds.
# timeout: 1500
set -euo pipefail
rounds=${ROUNDS:-7}
hb() {
	local t0 t1
	t0=$(date +%s%N)
	hackbench -s 100 -l 400 -g 4 -f 10 >/dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}
# the same background in every mode: cyclictest's timer wakeups
cyclictest -q -m -p 80 -t 1 -i 1000 -D 3600 >/dev/null 2>&1 &
# the first run is thrown away (caches, page faults)
hackbench -s 100 -l 100 -g 4 -f 10 >/dev/null
for r in $(seq 1 "$rounds"); do
	echo "none $(hb)"
	insmod "$RTMON_KO_EMPTY"
	echo "empty $(hb)"
	rmmod rtmon
	insmod "$RTMON_KO"
	# tracking: every hackbench task a target, and cyclictest's timer chains
	"$RTMON_TOP/build/monitor/rtmonctl" targets add --comm hackbench --any-irq --end block >/dev/null
	"$RTMON_TOP/build/monitor/rtmonctl" targets add --comm cyclictest --timer >/dev/null
	echo "tracking $(hb)"
	grep -E '^  chains' /proc/rtmon/status >&2
	rmmod rtmon
done

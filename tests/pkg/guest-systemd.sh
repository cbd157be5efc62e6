# guest-systemd: rtmon.service as installed, run by systemd in the QEMU guest
# (tests/pkg/run-guest). The harness's guest has no systemd as init, so
# systemd runs as PID 1 of a new PID + mount namespace and starts only
# rtmon.service (udevd, for the device group, is run by hand): that checks the unit's
# sandbox, capabilities and real-time settings against a real rtmond on
# PREEMPT_RT, not the boot order. Checks: module loaded by ExecStartPre
# modprobe with the modprobe.d options; /dev/rtmon group rtmon (udev rule);
# rtmond active, its reader SCHED_FIFO, memory locked, capabilities dropped,
# its ftrace instance made, metrics served; Type=notify: active only after
# rtmond's READY=1, its STATUS= shown, WATCHDOG=1 pings keep it alive (the
# test's drop-in shortens WatchdogSec to 4 s to see them), systemctl reload
# goes through RELOADING=1/READY=1; Restart=on-failure after kill -9; stop
# leaves the module loaded.
# timeout: 240
. "$RTMON_TOP/tests/vm/guest/lib.sh"
top=$RTMON_TOP
kv=$(uname -r)
sd=
cleanup() {
	set +e
	[ -n "$sd" ] && kill -9 "$sd" 2>/dev/null
	cp /var/log/rtmond.log "$T/" 2>/dev/null
	[ -n "$sd" ] && sleep 1
	rtmon_cleanup
}
trap cleanup EXIT
in_ns() { nsenter -t "$sd" -m -p "$@"; }

# install: the module where modprobe finds it, the rest with install.sh
mkdir -p "/lib/modules/$kv/extra"
cp "$RTMON_KO" "/lib/modules/$kv/extra/rtmon.ko"
depmod "$kv"
DESTDIR='' PREFIX=/usr "$top/scripts/install.sh" daemon lib >"$T/install.log" 2>&1 || fail "install.sh: $(tail -n 2 "$T/install.log")"
cat >/etc/rtmon/rtmon.conf <<CONF
targets = ( { name = "ct"; comm = "cyclictest"; source = "timer"; end = "switch_in"; deadline = "10us"; } );
snapshot = { dir = "/var/lib/rtmon"; lttng = false; rate_burst = 2; rate_interval = "10s"; };
metrics = { listen = "127.0.0.1:9465"; };
CONF
systemd-sysusers rtmon.conf >/dev/null
systemd-tmpfiles --create rtmon.conf
[ "$(stat -c '%a %G' /var/lib/rtmon)" = "2750 rtmon" ] || fail "/var/lib/rtmon: $(stat -c '%a %G' /var/lib/rtmon)"
# a target that starts rtmon.service and udev only; rtmond's output to a file
mkdir -p /etc/systemd/system/rtmon.service.d
cat >/etc/systemd/system/rtmon-test.target <<'UNIT'
[Unit]
Description=rtmon test
Wants=rtmon.service
UNIT
# WatchdogSec shortened from the unit's 30 s so that missing pings would
# show within the test
printf '[Service]\nStandardOutput=append:/var/log/rtmond.log\nStandardError=inherit\nWatchdogSec=4s\n' \
	>/etc/systemd/system/rtmon.service.d/test.conf
: >/var/log/rtmond.log
ip link set lo up
grep -q cgroup2 /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
rtmon_loaded && rmmod rtmon

unshare --pid --fork --mount --mount-proc env -i container=rtmon-test \
	/lib/systemd/systemd --unit=rtmon-test.target --log-target=console --log-level=notice \
	>"$T/systemd.log" 2>&1 &
up=$!
for _ in $(seq 50); do
	sd=$(pgrep -P $up -x systemd || true)
	[ -n "$sd" ] && break
	sleep 0.2
done
[ -n "$sd" ] || fail "systemd did not start: $(tail -n 5 "$T/systemd.log")"
state=
for _ in $(seq 120); do
	state=$(in_ns systemctl show -p ActiveState --value rtmon.service 2>/dev/null || true)
	[ "$state" = active ] || [ "$state" = failed ] && break
	sleep 0.5
done
in_ns systemctl status --no-pager rtmon.service >"$T/status.txt" 2>&1 || true
[ "$state" = active ] || fail "rtmon.service is '$state': $(tail -n 8 "$T/status.txt") | $(tail -n 5 /var/log/rtmond.log)"
echo "PASS: pkg-guest/service-active"

# Type=notify: active means rtmond said READY=1 (after its "running" line);
# watchdog pings keep it alive past several WatchdogSec; reload round trip
sdshow() { in_ns systemctl show -p "$1" --value rtmon.service; }
why=
[ "$(sdshow Type)" = notify ] || why="Type $(sdshow Type)"
[ "$(sdshow NotifyAccess)" = main ] || why="$why; NotifyAccess $(sdshow NotifyAccess)"
[ "$(sdshow WatchdogUSec)" = 4s ] || why="$why; WatchdogUSec $(sdshow WatchdogUSec) (test drop-in: 4s)"
grep -q '^WatchdogSec=30s$' /lib/systemd/system/rtmon.service || why="$why; installed unit lacks WatchdogSec=30s"
grep -q "rtmond: running" /var/log/rtmond.log || why="$why; active without rtmond's running line"
grep -q "systemd: watchdog of 4.0 s, pinged every 2.0 s" /var/log/rtmond.log || why="$why; rtmond did not see the watchdog"
case "$(sdshow StatusText)" in
"running: 1 targets"*) ;;
*) why="$why; StatusText '$(sdshow StatusText)'" ;;
esac
mp=$(sdshow MainPID)
w0=$(sdshow WatchdogTimestampMonotonic)
sleep 9	# more than two WatchdogSec
w1=$(sdshow WatchdogTimestampMonotonic)
[ "$(sdshow ActiveState)" = active ] && [ "$(sdshow MainPID)" = "$mp" ] && [ "$(sdshow NRestarts)" = 0 ] ||
	why="$why; after 9 s: $(sdshow ActiveState), MainPID $mp -> $(sdshow MainPID), NRestarts $(sdshow NRestarts) (watchdog kill?)"
[ -n "$w1" ] && [ "$w1" != 0 ] && [ "$w1" != "$w0" ] || why="$why; no watchdog ping seen (WatchdogTimestampMonotonic $w0 -> $w1)"
in_ns systemctl reload rtmon.service || why="$why; systemctl reload failed"
# the SIGHUP is handled after ExecReload's kill returns: wait for its READY=1
st=
for _ in $(seq 50); do
	st=$(sdshow StatusText)
	[ "${st#reloaded: 1 targets}" != "$st" ] && break
	sleep 0.2
done
[ "${st#reloaded: 1 targets}" != "$st" ] || why="$why; StatusText after reload '$st'"
[ "$(sdshow ActiveState)" = active ] || why="$why; $(sdshow ActiveState) after reload"
[ -z "$why" ] && echo "PASS: pkg-guest/notify (Type=notify: active after READY=1, StatusText '$(sdshow StatusText)', watchdog pings over 9 s with WatchdogSec=4s, reload via RELOADING=1/READY=1)" ||
	{ echo "FAIL: pkg-guest/notify: ${why#; }"; bad=1; }

why=
rtmon_loaded || why="module not loaded"
[ "$(cat /sys/module/rtmon/parameters/ring_slots 2>/dev/null)" = 4096 ] || why="$why; ring_slots not 4096 (modprobe.d not used)"
[ "$(stat -c %a /dev/rtmon 2>/dev/null)" = 660 ] || why="$why; /dev/rtmon mode $(stat -c %a /dev/rtmon 2>&1)"
# udev (in container mode systemd does not start udevd): run it here with the
# installed rule and replay the device's add event
udevd=$(ls /lib/systemd/systemd-udevd /usr/lib/systemd/systemd-udevd 2>/dev/null | head -n 1 || true)
if [ -z "$udevd" ] || ! command -v udevadm >/dev/null; then
	echo "SKIP: pkg-guest/udev-group: udev is not installed in the guest's root (the host's); the rule is checked on the host"
else
	"$udevd" --daemon >"$T/udevd.log" 2>&1
	udevadm trigger --action=add --subsystem-match=misc --sysname-match=rtmon
	udevadm settle -t 10
	udevadm control --exit 2>/dev/null || true
	[ "$(stat -c %G /dev/rtmon 2>/dev/null)" = rtmon ] && echo "PASS: pkg-guest/udev-group (/dev/rtmon root:rtmon 0660)" ||
		{ echo "FAIL: pkg-guest/udev-group: /dev/rtmon is $(stat -c '%a %U:%G' /dev/rtmon 2>&1)"; bad=1; }
fi
[ -z "$why" ] && echo "PASS: pkg-guest/module (loaded by ExecStartPre modprobe with the modprobe.d options; /dev/rtmon 0660)" || echo "FAIL: pkg-guest/module: ${why#; }"
[ -z "$why" ] || bad=1

log=/var/log/rtmond.log
why=
for m in "running: 1 targets" "reader runs SCHED_FIFO priority 10" "memory locked (mlockall)" "capabilities: kept CAP_SYS_ADMIN"; do
	grep -qF "$m" $log || why="$why; log lacks '$m'"
done
grep -E 'cannot|failed|denied|not permitted' $log | grep -v lttng >"$T/errors.txt" && why="$why; $(head -n 2 "$T/errors.txt" | paste -sd' ')"
[ -d /sys/kernel/tracing/instances/rtmon ] || why="$why; no ftrace instance"
curl -fs -o "$T/metrics.txt" http://127.0.0.1:9465/metrics || why="$why; no metrics (curl $?)"
grep -q '^rtmond_records_total' "$T/metrics.txt" 2>/dev/null || why="$why; metrics lack rtmond_records_total"
# MainPID is in systemd's PID namespace: find rtmond here
rp=$(pgrep -x rtmond | head -n 1 || true)
if [ -z "$rp" ]; then
	why="$why; rtmond not found"
else
	# CAP_SYS_ADMIN (21) and CAP_IPC_LOCK (14) only; bounding set from the unit
	[ "$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/$rp/status)" = 0000000000204000 ] ||
		why="$why; CapEff $(sed -n 's/^CapEff:[[:space:]]*//p' /proc/$rp/status)"
	[ "$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/$rp/status)" = 0000000000a04000 ] ||
		why="$why; CapBnd $(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/$rp/status)"
	grep -q '^NoNewPrivs:[[:space:]]*1' /proc/$rp/status || why="$why; NoNewPrivs not set"
	grep -q '^Seccomp:[[:space:]]*2' /proc/$rp/status || why="$why; no seccomp filter (MemoryDenyWriteExecute etc.)"
	ps -L -o cls= -p "$rp" | grep -q FF || why="$why; no SCHED_FIFO thread"
fi
[ -z "$why" ] && echo "PASS: pkg-guest/sandbox (under the unit's sandbox: SCHED_FIFO reader, mlockall, caps dropped, ftrace instance, metrics)" || echo "FAIL: pkg-guest/sandbox: ${why#; }"
[ -z "$why" ] || bad=1

# a miss, to see that /var/lib/rtmon is writable through ProtectSystem=strict
cyclictest -q -l 200 -i 1000 -p 50 >/dev/null 2>&1 || true
sleep 2
if [ -s /var/lib/rtmon/misses.jsonl ] && [ "$(stat -c %G /var/lib/rtmon/misses.jsonl)" = rtmon ]; then
	echo "PASS: pkg-guest/outputs (misses.jsonl written, group rtmon: $(wc -l </var/lib/rtmon/misses.jsonl) misses)"
else
	echo "FAIL: pkg-guest/outputs: misses.jsonl $(ls -l /var/lib/rtmon/ 2>&1 | paste -sd' ')"; bad=1
fi

# Restart=on-failure
kill -9 "$rp"
np=
for _ in $(seq 40); do
	sleep 0.25
	np=$(pgrep -x rtmond | head -n 1 || true)
	[ -n "$np" ] && [ "$np" != "$rp" ] && [ "$(in_ns systemctl show -p ActiveState --value rtmon.service)" = active ] && break
	np=
done
[ -n "$np" ] && echo "PASS: pkg-guest/restart (kill -9: restarted as pid $np)" || { echo "FAIL: pkg-guest/restart: no new rtmond after kill -9"; bad=1; }

in_ns systemctl stop rtmon.service || true
if rtmon_loaded && ! pgrep -x rtmond >/dev/null; then
	echo "PASS: pkg-guest/stop (rtmond stopped, module stays loaded)"
else
	echo "FAIL: pkg-guest/stop: rtmond $(pgrep -x rtmond || echo gone), module $(rtmon_loaded && echo loaded || echo gone)"; bad=1
fi
[ -z "${bad:-}" ]

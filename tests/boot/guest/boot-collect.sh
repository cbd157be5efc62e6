# shellcheck shell=bash
# tests/boot: run in the guest booted with systemd as PID 1 (by
# rtmon-boottest.service, through run-vm's runner) once multi-user.target is
# reached. Saves what tests/boot/run judges into $RTMON_SHARE/boot/: the
# state of the boot and of rtmon.service, the journals of the units that set
# rtmon up, the module, /dev/rtmon, the group, /var/lib/rtmon, rtmonctl;
# then kills rtmond with SIGKILL and saves the state after systemd's restart
# in $RTMON_SHARE/boot/after-kill/. Fails only when it cannot collect.
# timeout: 150
set -u
# step WHAT: progress with the guest's uptime, in the test's log
step() { echo "$(cut -d' ' -f1 /proc/uptime) $*"; }
out=$RTMON_SHARE/boot
mkdir -p "$out/after-kill"
props=(-p Type -p ActiveState -p SubState -p Result -p NRestarts -p ExecMainStatus -p ExecMainCode
	-p MainPID -p WatchdogUSec -p StatusText -p NotifyAccess -p CPUUsageNSec
	-p InactiveExitTimestampMonotonic -p ActiveEnterTimestampMonotonic)

step "waiting for the boot to finish"
# the boot is finished (our own unit is Type=simple: no start job left)
timeout 100 systemctl is-system-running --wait >"$out/system-state.txt" 2>&1
echo "rc=$?" >>"$out/system-state.txt"
cat /proc/uptime >"$out/uptime.txt"

step "rtmon.service, failed units"
systemctl is-active rtmon.service >"$out/is-active.txt" 2>&1
systemctl show rtmon.service "${props[@]}" >"$out/show.txt" 2>&1
systemctl --failed --no-legend --plain --no-pager >"$out/failed.txt" 2>&1
step "systemd-analyze time"
systemd-analyze time >"$out/analyze-time.txt" 2>&1
step "journals"
# by syslog identifier: modules-load and sysusers log before journald is
# up, their early lines carry no unit
journalctl -b -u rtmon.service -o short-monotonic --no-pager >"$out/journal-rtmon.txt" 2>&1
for t in systemd-modules-load systemd-sysusers systemd-tmpfiles; do
	journalctl -b -t "$t" -o short-monotonic --no-pager >"$out/journal-$t.txt" 2>&1
done
journalctl -b -o short-monotonic --no-pager >"$out/journal-all.txt" 2>&1
step "module, device, group, directory, rtmonctl"
lsmod >"$out/lsmod.txt" 2>&1
for p in /sys/module/rtmon/parameters/*; do
	echo "$(basename "$p")=$(cat "$p")"
done >"$out/params.txt" 2>&1
stat -c '%U %G %a %F' /dev/rtmon >"$out/dev-rtmon.txt" 2>&1
stat -c '%U %G %a' /proc/rtmon/status >"$out/proc-status-mode.txt" 2>&1
getent group rtmon >"$out/group.txt" 2>&1
stat -c '%U %G %a %F' /var/lib/rtmon >"$out/var-lib-rtmon.txt" 2>&1
ls -la /var/lib/rtmon >>"$out/var-lib-rtmon.txt" 2>&1
cat /proc/rtmon/status >"$out/proc-status.txt" 2>&1
rtmonctl status >"$out/rtmonctl-status.txt" 2>&1
rtmonctl targets list >"$out/rtmonctl-targets.txt" 2>&1
# rtmond's outputs so far (what the default targets made of the boot)
{
	ls -la /var/lib/rtmon /var/lib/rtmon/ftrace
	echo "misses.jsonl: $(wc -l </var/lib/rtmon/misses.jsonl) lines"
	head -n 2 /var/lib/rtmon/misses.jsonl
} >"$out/rtmond-outputs.txt" 2>&1

step "cyclictest: the default configuration's target at work"
# 3 s of cyclictest (1 ms period): the module's target "cyclictest" counts
# its chains, rtmond reads the records (its histogram, written every second)
mkdir -p "$out/records"
cyclictest -q -m -p 80 -t 1 -i 1000 -D 3 >"$out/records/cyclictest.txt" 2>&1
sleep 2.5
cat /proc/rtmon/status >"$out/records/proc-status.txt" 2>&1
rtmonctl --json hist cyclictest >"$out/records/hist.json" 2>&1

step "kill -9 rtmond"
# Restart=on-failure: SIGKILL rtmond, systemd must start a new one
pid=$(systemctl show -p MainPID --value rtmon.service)
echo "$pid" >"$out/after-kill/old-pid.txt"
if [ "${pid:-0}" -gt 0 ]; then
	kill -9 "$pid"
	for _ in $(seq 60); do
		sleep 0.5
		n=$(systemctl show -p NRestarts --value rtmon.service)
		s=$(systemctl show -p ActiveState --value rtmon.service)
		np=$(systemctl show -p MainPID --value rtmon.service)
		[ "${n:-0}" -ge 1 ] && [ "$s" = active ] && [ "${np:-0}" -gt 0 ] && [ "$np" != "$pid" ] && break
	done
	# a little longer: a restart loop would show in NRestarts
	sleep 3
fi
step "after the restart"
systemctl is-active rtmon.service >"$out/after-kill/is-active.txt" 2>&1
systemctl show rtmon.service "${props[@]}" >"$out/after-kill/show.txt" 2>&1
journalctl -b -u rtmon.service -o short-monotonic --no-pager >"$out/after-kill/journal-rtmon.txt" 2>&1
rtmonctl targets list >"$out/after-kill/rtmonctl-targets.txt" 2>&1
systemctl --failed --no-legend --plain --no-pager >"$out/after-kill/failed.txt" 2>&1
step "systemctl stop, modprobe -r, systemctl start"
# the module stays loaded when rtmond stops (records wait for the next
# start); removing it is 'systemctl stop rtmon && modprobe -r rtmon'; a
# start loads it again (ExecStartPre)
st=$out/stop
mkdir -p "$st"
systemctl stop rtmon.service; echo "$?" >"$st/stop-rc.txt"
systemctl show rtmon.service "${props[@]}" >"$st/show.txt" 2>&1
modprobe -r rtmon; echo "$?" >"$st/modprobe-r-rc.txt"
lsmod >"$st/lsmod-after-unload.txt" 2>&1
dmesg | grep 'rtmon' | tail -n 3 >"$st/dmesg.txt" 2>&1
systemctl start rtmon.service; echo "$?" >"$st/start-rc.txt"
systemctl is-active rtmon.service >"$st/is-active-after-start.txt" 2>&1
lsmod >"$st/lsmod-after-start.txt" 2>&1
rtmonctl targets list >"$st/rtmonctl-targets.txt" 2>&1
# systemd-analyze blame and critical-chain only with RTMON_BOOT_ANALYZE=1:
# PID 1 answers the first query of each unit slowly here (about a second of
# its CPU per unit, and lookups over 9p: it works out the unit's
# UnitFileState), so they take 60-70 s each under emulation; the start of
# rtmon.service itself is in show.txt (Inactive-exit to active-enter)
if [ "${RTMON_BOOT_ANALYZE:-0}" = 1 ]; then
	step "systemd-analyze blame"
	systemd-analyze blame --no-pager 2>&1 | head -n 20 >"$out/blame.txt"
	step "systemd-analyze critical-chain"
	systemd-analyze critical-chain rtmon.service --no-pager >"$out/critical-chain.txt" 2>&1
fi
step "done"
echo "done" >"$out/done"

#!/bin/bash
# Runs inside the guest as PID 1 after switch_root: every test listed in the
# share's tests.list, each with its own log, exit status and timeout, with
# markers in the kernel log so the host can tell which test caused a report.
# Then it saves dmesg and powers the guest off. Run by an init instead
# (run-vm --init: a unit of systemd), it mounts nothing and just exits: the
# init powers the guest off.
share=/rtmon-share
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb
pid1=
[ $$ -eq 1 ] && pid1=y
if [ -n "$pid1" ]; then
	ln -sfn /proc/self/fd /dev/fd
	# /tmp stays the overlay's: a checkout may live under the host's /tmp, and
	# writes land in the overlay's tmpfs anyway
	mount -t tmpfs tmpfs /run
	mkdir -p /run/lock
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
	mkdir -p /dev/pts /dev/shm
	mount -t devpts devpts /dev/pts
	mount -t tmpfs tmpfs /dev/shm
	hostname rtmon-guest
fi

# shellcheck disable=SC1091
. "$share/env"
echo "started $(uname -r)" >"$share/guest-started"

while IFS=' ' read -r name timeout script; do
	[ -n "$name" ] || continue
	loaded_before=n
	grep -q '^rtmon ' /proc/modules && loaded_before=y
	echo "rtmon-vm: begin $name" >/dev/kmsg
	start=$(date +%s.%N)
	# -e from the first line: a script that fails before it sources
	# lib.sh (which sets -e) must not run on and pass
	(cd /tmp && exec timeout -k 5 "$timeout" bash -e "$script") \
		>"$share/$name.log" 2>&1 </dev/null
	rc=$?
	end=$(date +%s.%N)
	echo "rtmon-vm: end $name rc=$rc" >/dev/kmsg
	[ $rc -eq 124 ] && echo "guest: timed out after ${timeout}s" >>"$share/$name.log"
	# a test that died before its own clean-up (a kill, a timeout) must
	# not make the next one fail at its insmod ("File exists", check25);
	# a module loaded before the test (the boot-time unit's) stays
	if [ "$loaded_before" = n ] && grep -q '^rtmon ' /proc/modules; then
		if rmmod rtmon 2>>"$share/$name.log"; then
			echo "guest: rtmon was left loaded by $name; unloaded" >>"$share/$name.log"
		else
			echo "guest: rtmon was left loaded by $name and cannot be unloaded" >>"$share/$name.log"
		fi
	fi
	echo "$rc $(echo "$end - $start" | awk '{printf "%.1f", $1 - $3}')" >"$share/$name.rc"
done <"$share/tests.list"

dmesg >"$share/dmesg.txt"
echo done >"$share/guest-done"
sync
[ -n "$pid1" ] || exit 0
# reboot(2) from PID 1 does not return; sysrq is the fallback
/bin/busybox poweroff -f
echo o >/proc/sysrq-trigger
while :; do sleep 1; done

#!/usr/bin/env bash
# sim-setup.sh [--remove|--teardown]: the simulated GPIO loopback chip, in
# the QEMU guest (as root; RTMON_TOP and RTMON_BOARD come from run-vm).
#
# Loads configfs, irq-sim.ko and gpio-sim.ko wire="0>1,2>3" from
# build/gpio-sim/$RTMON_BOARD/ (scripts/build-gpio-sim; RTMON_GPIO_SIM_DIR
# overrides) and creates the gpio-sim device "rtmon-loop": one bank of 8
# lines labelled "rtmon-loop", lines 0 "stim-out", 1 "stim-in", 2
# "resp-out", 3 "resp-in"; setting output 0 drives input 1, output 2 drives
# input 3 (tests/gpio/sim/README.md). Prints the chip's name (gpiochipN)
# on stdout. A device left from an earlier run is removed first.
#
# --remove (or --teardown, or sim-teardown.sh): removes the device and
# unloads gpio-sim and irq-sim; nothing to remove is not an error.
set -euo pipefail

DEV=rtmon-loop
LABEL=rtmon-loop
NUM_LINES=8
WIRE="0>1,2>3"
LINE_NAMES=(stim-out stim-in resp-out resp-in)
CFS=/sys/kernel/config
SIM=$CFS/gpio-sim

die() {
	echo "sim-setup: $*" >&2
	exit 1
}

loaded() {
	grep -q "^$1 " /proc/modules
}

sim_remove() {
	local d=$SIM/$DEV l
	if [ -d "$d" ]; then
		if [ "$(cat "$d/live")" = 1 ]; then
			echo 0 >"$d/live" || die "cannot take $d offline (lines still requested?)"
		fi
		for l in "$d"/bank*/line*; do
			[ -d "$l" ] && { rmdir "$l" || die "rmdir $l failed"; }
		done
		for l in "$d"/bank*; do
			[ -d "$l" ] && { rmdir "$l" || die "rmdir $l failed"; }
		done
		rmdir "$d" || die "rmdir $d failed"
	fi
	if loaded gpio_sim; then
		rmmod gpio_sim || die "rmmod gpio_sim failed: $(dmesg | tail -n 2)"
	fi
	if loaded irq_sim; then
		rmmod irq_sim || die "rmmod irq_sim failed: $(dmesg | tail -n 2)"
	fi
	if loaded gpio_sim || loaded irq_sim; then die "gpio_sim/irq_sim still loaded"; fi
}

[ "$(id -u)" = 0 ] || die "must run as root (in the QEMU guest)"
case "${1:-}" in
--remove | --teardown)
	sim_remove
	exit 0
	;;
'') ;;
*) die "usage: sim-setup.sh [--remove|--teardown]" ;;
esac

: "${RTMON_TOP:?RTMON_TOP not set (run in the guest by tests/vm/run-vm)}"
dir=${RTMON_GPIO_SIM_DIR:-$RTMON_TOP/build/gpio-sim/${RTMON_BOARD:?RTMON_BOARD not set}}
for m in irq-sim gpio-sim; do
	[ -f "$dir/$m.ko" ] || die "no $dir/$m.ko (run scripts/build-gpio-sim ${RTMON_BOARD:-BOARD} on the host)"
done

sim_remove
# (the ARM test images load it at boot: busybox has no modules.dep)
grep -qw configfs /proc/filesystems || modprobe configfs || die "modprobe configfs failed"
grep -q " $CFS configfs " /proc/mounts || mount -t configfs configfs $CFS || die "cannot mount configfs on $CFS"
insmod "$dir/irq-sim.ko" || die "insmod irq-sim.ko failed: $(dmesg | tail -n 2)"
insmod "$dir/gpio-sim.ko" wire="$WIRE" || die "insmod gpio-sim.ko wire=$WIRE failed: $(dmesg | tail -n 2)"
[ -d $SIM ] || die "$SIM missing after loading gpio-sim"

d=$SIM/$DEV
mkdir "$d" "$d/bank0"
echo "$LABEL" >"$d/bank0/label"
echo $NUM_LINES >"$d/bank0/num_lines"
for i in "${!LINE_NAMES[@]}"; do
	mkdir "$d/bank0/line$i"
	echo "${LINE_NAMES[$i]}" >"$d/bank0/line$i/name"
done
echo 1 >"$d/live" || die "cannot make $d live: $(dmesg | tail -n 2)"
chip=$(cat "$d/bank0/chip_name")
[ -n "$chip" ] && [ -e "/dev/$chip" ] || die "no character device for the simulated chip ('$chip')"
echo "$chip"

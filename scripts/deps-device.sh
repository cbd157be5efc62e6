#!/usr/bin/env bash
# scripts/deps-device.sh (make deps-device): install what building and
# running rtmon on a device needs, and nothing of the developers' kit (no
# QEMU, cross compilers, valgrind, clang, kernel sources, debootstrap; no
# foreign package architectures): the compiler, the running kernel's
# headers and the libraries rtmon's user space links. Idempotent. On a
# machine that is not Debian (Yocto, Buildroot) rtmon is built by their
# recipes instead (packaging/).
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
	echo "deps-device: must run as root (apt-get install)" >&2
	exit 1
fi
command -v apt-get >/dev/null || {
	echo "deps-device: no apt-get: build rtmon with your distribution's recipe (packaging/yocto, packaging/buildroot)" >&2
	exit 1
}
export DEBIAN_FRONTEND=noninteractive
top=$(cd "$(dirname "$0")/.." && pwd)
# apt_update_retry, host_suite
. "$top/scripts/lib-board.sh"

kver=$(uname -r)
pkgs=(
	# the module, against the running kernel
	build-essential make pkg-config kmod "linux-headers-$kver"
	# the user space: librtmon, rtmonctl, rtmond, rtmon-replay
	libjansson-dev libconfig-dev libmicrohttpd-dev libcap-dev libsystemd-dev
	liburcu-dev liblttng-ust-dev liblttng-ctl-dev libtracecmd-dev
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps-device: all ${#pkgs[@]} packages present"
	exit 0
fi
# a mirror caught mid-sync fails one index: tried again (scripts/lib-board.sh)
apt_update_retry "$(host_suite) system state" ||
	echo "deps-device: apt-get update still fails (above); trying with the lists kept" >&2
echo "deps-device: installing ${missing[*]}"
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/rtmon-deps-device.log 2>&1; then
	tail -n 20 /tmp/rtmon-deps-device.log >&2
	if [[ " ${missing[*]} " == *" linux-headers-$kver "* ]] &&
		! apt-cache show "linux-headers-$kver" >/dev/null 2>&1; then
		echo "deps-device: no package linux-headers-$kver: a kernel not from Debian (a vendor or" \
			"BSP kernel) needs its own build tree: make KDIR=/path/to/kernel/build" >&2
	fi
	echo "deps-device: apt-get install failed (full log: /tmp/rtmon-deps-device.log)" >&2
	exit 1
fi
echo "deps-device: done; now: make && make install"

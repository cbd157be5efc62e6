#!/usr/bin/env bash
# Install everything rtmon's build and tests need, with apt-get. Idempotent:
# a second run installs nothing new. Kernel headers are resolved from
# Debian's metapackages (linux-headers-rt-amd64, linux-headers-amd64), never
# hard-coded; kernel images for the emulated boards are fetched separately
# by scripts/fetch-kernel.sh into the cache (not installed).
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
	echo "deps: must run as root (apt-get install)" >&2
	exit 1
fi

# a machine running a PREEMPT_RT kernel is a device, most likely: the
# developers' kit (QEMU, cross compilers, arm64/armhf package architectures)
# does not belong there
if [ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ] && [ -z "${RTMON_DEPS_DEVELOPER:-}" ]; then
	echo "deps: this machine runs a PREEMPT_RT kernel ($(uname -r)): a device? 'make deps' installs" \
		"the developers' tools (QEMU, cross compilers, valgrind, clang, kernel sources, debootstrap)" \
		"and adds the arm64 and armhf package architectures. On a device: make deps-device." \
		"To install the developers' tools here anyway: make deps RTMON_DEPS_DEVELOPER=1" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
top=$(cd "$(dirname "$0")/.." && pwd)
# apt_update_retry, apt_lists_fresh, host_suite
. "$top/scripts/lib-board.sh"

pkgs=(
	# build
	build-essential gcc make pkg-config git bc bison flex libelf-dev libssl-dev
	kmod cpio xz-utils zstd file
	# kernel headers for the supported x86_64 kernels (metapackages)
	linux-headers-rt-amd64 linux-headers-amd64
	# emulation
	qemu-system-x86 busybox-static
	# user space libraries and tools rtmon uses
	liburcu-dev liblttng-ust-dev liblttng-ctl-dev lttng-tools babeltrace2
	libgpiod-dev gpiod rt-tests trace-cmd
	# the kernel's timer latency tool, against rtmon's timerlat chains; and
	# the libraries rtla 6.12 is built against (scripts/build-rtla: Debian
	# 12's rtla 6.1 has no 'timerlat --auto', tests/vm/guest/explain-timerlat.sh)
	rtla libtracefs-dev libtraceevent-dev
	# rtmon-replay reads trace-cmd .dat files with libtracecmd
	libtracecmd-dev
	# GPIO loopback tests: gpio-sim and irq_sim are built from Debian's 6.1
	# kernel source (scripts/build-gpio-sim; the 6.12 source is downloaded)
	linux-source-6.1
	# tests and benchmarks; the fleet's tools: promtool checks rtmond's
	# metrics and alerting rules, a Prometheus server scrapes it
	# (tests/monitor/test_prometheus.sh)
	valgrind clang libclang-rt-14-dev prometheus
	# JSON output of the tools (see README: choices)
	libjansson-dev
	# packaging tests: the DKMS build of rtmon-dkms
	dkms
	debootstrap # tests/boot: the Debian 12 root of the systemd boot test
	# rtmond: configuration, metrics endpoint, capabilities; tests: curl, ip
	libconfig-dev libmicrohttpd-dev libcap-dev curl iproute2
	# rtmond: systemd readiness/watchdog (sd_notify); rtmonctl plot
	libsystemd-dev gnuplot-nox
	# ARM boards: cross compilers (with their C libraries, for the static
	# user space) and the emulators. The boards' own packages (kernel,
	# headers, busybox, bash, cyclictest, jansson) are downloaded into the
	# cache by scripts/lib-board.sh, not installed.
	gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf
	libc6-dev-arm64-cross libc6-dev-armhf-cross qemu-system-arm
	# (debootstrap, above, also makes the chroot of BOARD_TOOLCHAIN=chroot boards:
	# the kernel's compiler in a chroot of its suite)
)

# the ARM boards' Debian architectures, so apt can resolve and download
# their packages (PKG:arm64, PKG:armhf); adding one forces a list refresh
added_arch=
for a in arm64 armhf; do
	if [[ " $(dpkg --print-foreign-architectures | tr '\n' ' ') " != *" $a "* ]]; then
		echo "deps: dpkg --add-architecture $a"
		dpkg --add-architecture "$a"
		added_arch=y
	fi
done

# apt-get install with every package already present is quick, but it still
# needs package lists: refresh them when missing or not refreshed for a day
# (apt_lists_fresh).
lists=/var/lib/apt/lists
if [ -n "$added_arch" ] || ! apt_lists_fresh "$lists"; then
	echo "deps: apt-get update"
	# a mirror caught mid-sync fails one index (seen for bookworm-security
	# armhf): tried again a few times (scripts/lib-board.sh); if it still
	# fails the other lists are good: go on, the boards that need a lost
	# list say so when they resolve their packages
	if apt_update_retry "$(host_suite) system state"; then
		touch "$lists/.rtmon-updated"
	else
		suite_failed_whose "$(host_suite)"
		echo "deps: apt-get update still fails (above); continuing with the lists it kept: run 'make deps' again later for what they lack" >&2
	fi
fi

missing=()
for p in "${pkgs[@]}"; do
	inst=$(dpkg-query -W -f='${db:Status-Abbrev}|${Version}' "$p" 2>/dev/null || true)
	case "$inst" in
	"ii |"*)
		# a kernel metapackage counts as present only at its candidate
		# version, so a new Debian kernel ABI pulls in matching headers
		case "$p" in
		linux-headers-*)
			cand=$(apt-cache policy "$p" | awk '/Candidate:/ {print $2}')
			[ "${inst#ii |}" = "$cand" ] || missing+=("$p")
			;;
		esac
		;;
	*) missing+=("$p") ;;
	esac
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
else
	echo "deps: installing ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/rtmon-deps.log 2>&1 || {
		tail -n 30 /tmp/rtmon-deps.log >&2
		echo "deps: apt-get install failed (full log: /tmp/rtmon-deps.log)" >&2
		exit 1
	}
	echo "deps: done"
fi

# Boards whose kernel comes from another Debian suite (BOARD_SUITE=trixie:
# Debian 13's 6.12 PREEMPT_RT): nothing is installed and the system's apt
# sources stay as they are. scripts/lib-board.sh keeps a separate apt state
# for the suite in the cache (~/.cache/rtmon/apt/SUITE: its own
# sources.list on the system's Debian mirror, with the archive keyring, and
# its own lists, refreshed when older than a day), resolves the kernel from
# the suite's metapackages (linux-image-rt-amd64, linux-headers-rt-amd64)
# and unpacks the headers, their -common-rt package and linux-kbuild into a
# sysroot in the cache (~/.cache/rtmon/sysroot). Idempotent: a second run
# finds the sysroot complete.
host=$(. /etc/os-release && echo "$VERSION_CODENAME")
for b in "$top"/boards/*.board; do
	suite=$(sed -n 's/^BOARD_SUITE=//p' "$b")
	[ -n "$suite" ] && [ "$suite" != "$host" ] || continue
	name=$(basename "$b" .board)
	arch=$(sed -n 's/^BOARD_DEB_ARCH=//p' "$b")
	if [ -n "$arch" ] && [ "$arch" != "$(dpkg --print-architecture)" ] &&
		[[ " $(dpkg --print-foreign-architectures | tr '\n' ' ') " != *" $arch "* ]]; then
		echo "deps: $name: skipped (dpkg architecture $arch not added)"
		continue
	fi
	kdir=$("$top/scripts/board-info" "$name" kdir) || {
		echo "deps: cannot prepare the $suite headers for $name" >&2
		exit 1
	}
	echo "deps: $name: headers in ${kdir/#$HOME/\~}"
	# BOARD_TOOLCHAIN=chroot (arm64 6.12: Debian 13's gcc-14, see
	# scripts/lib-board.sh): a minimal chroot of the suite with the kernel's
	# compiler, made once in ~/.cache/rtmon/chroot (about a minute)
	if grep -q '^BOARD_TOOLCHAIN=chroot' "$b"; then
		tc=$("$top/scripts/board-info" "$name" toolchain) || {
			echo "deps: cannot make the $suite chroot with the compiler for $name" >&2
			exit 1
		}
		echo "deps: $name: compiler in the $suite chroot ${tc/#$HOME/\~}"
	fi
	# a cross board of another suite builds its user space in the same
	# chroot, against that suite (cross/build-user): the suite's cross
	# compiler, its C library for the board and pkg-config, added once
	# (cross_chroot in cross/lib-cross.sh; about 10 s, 22 MB)
	if grep -q '^BOARD_CROSS_COMPILE=.' "$b"; then
		uc=$(bash -c '. "$1/scripts/lib-board.sh" && . "$1/cross/lib-cross.sh" && board_load "$2" &&
			cross_chroot >/dev/null && cross_chroot_pkgs' deps "$top" "$name") || {
			echo "deps: cannot add the user-space cross compiler to the $suite chroot for $name" >&2
			exit 1
		}
		echo "deps: $name: user-space toolchain in the $suite chroot ($uc)"
	fi
done

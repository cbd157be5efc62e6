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

export DEBIAN_FRONTEND=noninteractive

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
	# tests and benchmarks
	valgrind clang libclang-rt-14-dev
	# JSON output of the tools (see README: choices)
	libjansson-dev
)

# apt-get install with every package already present is quick, but it still
# needs package lists: refresh them when missing or older than a day.
lists=/var/lib/apt/lists
if [ -z "$(find "$lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n1)" ]; then
	echo "deps: apt-get update"
	apt-get update -qq
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
	exit 0
fi
echo "deps: installing ${missing[*]}"
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/rtmon-deps.log 2>&1 || {
	tail -n 30 /tmp/rtmon-deps.log >&2
	echo "deps: apt-get install failed (full log: /tmp/rtmon-deps.log)" >&2
	exit 1
}
echo "deps: done"

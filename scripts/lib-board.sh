# shellcheck shell=bash
# Board definitions and Debian kernel resolution, shared by the build,
# the QEMU harness and the demo. Source it; it defines functions only.
#
# A board file (boards/NAME.board, format in boards/README.md) is a list of
# BOARD_* shell assignments. Kernel versions are never written down: they
# are resolved from Debian's metapackages (linux-image-FLAVOUR and
# linux-headers-FLAVOUR) at the time of use.

RTMON_TOP=${RTMON_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
RTMON_CACHE=${RTMON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rtmon}

die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# board_load NAME|PATH: source a board file after checking it only assigns
# known BOARD_* variables (a board file is data, not a script).
board_load() {
	local f=$1 line n=0
	[ -f "$f" ] || f=$RTMON_TOP/boards/$1.board
	[ -f "$f" ] || die "unknown board '$1' (see boards/*.board)"
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case "$line" in
		'' | '#'*) continue ;;
		BOARD_[A-Z0-9_]*=*) ;;
		*) die "$f:$n: expected BOARD_KEY=value, got: $line" ;;
		esac
		case "${line%%=*}" in
		BOARD_DESC | BOARD_ARCH | BOARD_DEB_ARCH | BOARD_CROSS_COMPILE | \
		BOARD_SUITE | BOARD_KERNEL_FLAVOUR | BOARD_KDIR | BOARD_PREEMPT_RT | \
		BOARD_CONSOLE | BOARD_QEMU | BOARD_QEMU_MACHINE | BOARD_QEMU_SMP | \
		BOARD_QEMU_MEM | BOARD_ISOLCPUS | BOARD_GPIO_CHIP | BOARD_GPIO_OUT | \
		BOARD_GPIO_IN) ;;
		*) die "$f:$n: unknown key ${line%%=*}" ;;
		esac
	done <"$f"
	# shellcheck disable=SC1090
	. "$f"
	BOARD_NAME=$(basename "$f" .board)
	BOARD_FILE=$f
	[ -n "${BOARD_ARCH:-}" ] || die "$f: BOARD_ARCH is required"
	[ -n "${BOARD_KERNEL_FLAVOUR:-}${BOARD_KDIR:-}" ] ||
		die "$f: BOARD_KERNEL_FLAVOUR or BOARD_KDIR is required"
}

# deb_dep_of PKG: the versioned package a Debian kernel metapackage points at
# (linux-image-rt-amd64 -> linux-image-6.1.0-56-rt-amd64).
deb_dep_of() {
	local dep
	dep=$(apt-cache depends "$1" 2>/dev/null | awk '/^  Depends:/ {print $2; exit}')
	[ -n "$dep" ] || die "cannot resolve $1 with apt-cache (run 'make deps'; is apt-get update done?)"
	echo "$dep"
}

deb_candidate() {
	apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2; exit}'
}

# board_kver: the kernel release (uname -r) the board's flavour resolves to.
board_kver() {
	local img
	img=$(deb_dep_of "linux-image-$BOARD_KERNEL_FLAVOUR")
	echo "${img#linux-image-}"
}

# board_kdir: kernel build tree for the board: BOARD_KDIR if set, else the
# installed Debian headers of the resolved kernel.
board_kdir() {
	if [ -n "${BOARD_KDIR:-}" ]; then
		echo "$BOARD_KDIR"
		return
	fi
	local kver d
	kver=$(board_kver)
	d=/usr/src/linux-headers-$kver
	[ -f "$d/Makefile" ] || die "kernel headers for $kver not installed in $d (run 'make deps')"
	echo "$d"
}

# board_fetch_kernel: download and unpack the board's Debian kernel image
# into the cache (reused across runs); prints the unpacked directory, which
# holds boot/vmlinuz-KVER and lib/modules/KVER (depmod already run).
board_fetch_kernel() {
	local kver pkg ver dir debs
	kver=$(board_kver)
	pkg=linux-image-$kver
	ver=$(deb_candidate "$pkg")
	[ -n "$ver" ] || die "no candidate version for $pkg"
	dir=$RTMON_CACHE/kernels/${pkg}_$ver
	if [ ! -f "$dir/.complete" ]; then
		debs=$RTMON_CACHE/debs
		mkdir -p "$debs"
		if ! ls "$debs/${pkg}_${ver/:/%3a}_"*.deb >/dev/null 2>&1; then
			echo "fetching $pkg $ver" >&2
			(cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "$pkg=$ver") >&2 ||
				die "apt-get download $pkg=$ver failed"
		fi
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp"
		dpkg-deb -x "$debs/${pkg}_${ver/:/%3a}_"*.deb "$dir.tmp" || die "dpkg-deb -x failed"
		depmod -b "$dir.tmp" "$kver" || die "depmod failed for $kver"
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
		touch "$dir/.complete"
	fi
	echo "$dir"
}

#!/bin/sh
# packaging/build-debs.sh [--arch amd64|arm64|armhf] [OUTDIR]: Debian
# packages of rtmon with dpkg-deb (no debhelper needed):
#   rtmon-dkms_V-1_all.deb   module sources in /usr/src/rtmon-V + dkms.conf:
#                            dkms builds rtmon.ko for every installed kernel
#                            that has headers, and again on kernel updates
#   rtmon_V-1_ARCH.deb       rtmond, rtmonctl, rtmon-mark, rtmon-replay,
#                            /etc/rtmon/rtmon.conf, rtmon.service (enabled),
#                            modules-load.d, modprobe.d, udev rule, tmpfiles.d,
#                            sysusers.d, their man pages and bash completions
#   librtmon0_V-1_ARCH.deb   librtmon.so.0, librtmon-ust.so.0
#   librtmon-dev_V-1_ARCH.deb headers, librtmon.so, librtmon.a, librtmon.pc,
#                            librtmon.3
# OUTDIR defaults to build/deb; the .debs of ARCH (and the _all one) there
# are replaced, other architectures' are left.
# ARCH defaults to the build machine's: the user space is built first
# (make -C monitor) and the Depends come from the libraries the binaries
# load (ldd, dpkg -S on the build machine), so build on the release you
# install on.
# --arch arm64 / armhf: the user space cross-built for qemu-arm64-rt /
# qemu-armhf-rt (cross/build-user: rtmond dynamic against the board's
# Debian 12 libraries, rtmonctl and rtmon-mark static) plus librtmon.so,
# librtmon-ust.so and rtmon-replay built here the same way (rtmon-replay
# against a sysroot of its own, with libtracecmd); the Depends are the
# packages holding the libraries in their NEEDED entries (cross/build-user's
# runtime-packages for rtmond; the sysroots' sonames for the others).
# Same files and maintainer scripts, libraries in /usr/lib/aarch64-linux-gnu
# or /usr/lib/arm-linux-gnueabihf.
# --board BOARD: the user space of that cross board instead (its
# architecture; --arch, if given too, must match). A board of another
# Debian suite (qemu-arm64-rt-6.12: trixie) gets that suite's build
# (cross/build-user: its libraries, compiled in the suite's chroot; the
# shared libraries here the same way), so the Depends name that suite's
# packages (libconfig11, liblttng-ust1t64, ...); OUTDIR then defaults to
# build/deb-SUITE (same file names as the build machine's suite's). An
# amd64 board of another suite (qemu-x86_64-rt-6.12) likewise: its user
# space built with that suite's native gcc in its chroot.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
host=$(dpkg --print-architecture)
arch=$host
board=
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) [ $# -ge 2 ] || { echo "build-debs.sh: --arch needs a value" >&2; exit 2; }
		arch=$2; shift 2 ;;
	--arch=*) arch=${1#--arch=}; shift ;;
	--board) [ $# -ge 2 ] || { echo "build-debs.sh: --board needs a value" >&2; exit 2; }
		board=$2; shift 2 ;;
	--board=*) board=${1#--board=}; shift ;;
	-h | --help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
	-*) echo "build-debs.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -le 1 ] || { echo "usage: packaging/build-debs.sh [--arch amd64|arm64|armhf] [--board BOARD] [OUTDIR]" >&2; exit 2; }
suite=
if [ -n "$board" ]; then
	# the board's architecture ("-": the build machine's) and suite (the
	# build machine's: nothing)
	b=$(bash -c '. "$1/scripts/lib-board.sh" && board_load "$2" &&
		echo "$(if board_foreign; then echo "$BOARD_DEB_ARCH"; else echo -; fi) $(if board_other_suite; then echo "$BOARD_SUITE"; fi)"' \
		build-debs.sh "$top" "$board") || exit 2
	ba=${b%% *} suite=${b#* }
	if [ "$ba" = - ] && [ -z "$suite" ]; then
		# the build machine's own packages, as without --board
		board='' ba=$host
	elif [ "$ba" = - ]; then
		# an amd64 board of another suite (qemu-x86_64-rt-6.12): that
		# suite's build, natively in its chroot (cross/build-user)
		ba=$host
	fi
	[ "$arch" = "$host" ] || [ "$arch" = "$ba" ] ||
		{ echo "build-debs.sh: --arch $arch, but board $board is $ba" >&2; exit 2; }
	arch=$ba
elif [ "$arch" != "$host" ]; then
	case "$arch" in
	arm64) board=qemu-arm64-rt ;;
	armhf) board=qemu-armhf-rt ;;
	*) echo "build-debs.sh: no cross build for architecture '$arch' (amd64 on amd64, arm64, armhf)" >&2; exit 2 ;;
	esac
fi
out=${1:-$top/build/deb${suite:+-$suite}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(sed -n 's/^VERSION :*= *//p' "$top/monitor/Makefile")
debver=$version-1
stage=$out/stage-$arch
rm -rf "$stage"
mkdir -p "$stage"
rm -f "$out"/*_"$arch".deb "$out"/*_all.deb

# board_sh CMD...: CMD in bash with the board's definitions loaded
# (scripts/lib-board.sh, cross/lib-cross.sh: cross_sysroot, runtime_pkgs;
# BOARD_* exported, for printenv)
board_sh() {
	bash -c '. "$0/scripts/lib-board.sh" && . "$0/cross/lib-cross.sh" && set -a && board_load "$1" && set +a &&
		shift && "$@"' \
		"$top" "$board" "$@"
}

if [ -z "$board" ]; then
	make -s -C "$top/monitor" >&2
	make -s -C "$top/monitor/replay" >&2
	build=$top/build/monitor
	replay=$top/build/core/rtmon-replay
	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
else
	# rtmond, rtmonctl, rtmon-mark, librtmon.a: cross/build-user (prints its
	# output directory last)
	cout=$("$top/cross/build-user" "$board" | tail -n 1)
	[ -x "$cout/monitor/rtmond" ] && [ -s "$cout/runtime-packages" ] ||
		{ echo "build-debs.sh: cross/build-user $board left no rtmond/runtime-packages in '$cout'" >&2; exit 1; }
	sr=$(board_sh cross_sysroot)
	ma=$(board_sh board_triplet)
	cc=$(board_sh printenv BOARD_CROSS_COMPILE)gcc ||
		{ echo "build-debs.sh: board $board has no BOARD_CROSS_COMPILE" >&2; exit 1; }
	board_sh cross_cc_check
	# the shared libraries and librtmon.pc, which cross/build-user does not
	# make: same compiler, flags and sysroot (build/deb-cross/[SUITE-]ARCH;
	# cross_make: in the suite's chroot for a board of another suite)
	build=$top/build/deb-cross/${suite:+$suite-}$arch
	PKG_CONFIG_LIBDIR=$sr/usr/lib/$ma/pkgconfig:$sr/usr/share/pkgconfig PKG_CONFIG_SYSROOT_DIR=$sr \
	board_sh cross_make -s -C "$top/monitor" CC="$cc" AR="${cc%gcc}ar" O="$build" \
		CFLAGS="-O2 -g -I$sr/usr/include -I$sr/usr/include/$ma" \
		LDFLAGS="-L$sr/usr/lib/$ma -L$sr/lib/$ma -Wl,-rpath-link,$sr/usr/lib/$ma:$sr/lib/$ma" \
		"$build/librtmon.so" "$build/librtmon-ust.so" "$build/librtmon.pc" >&2
	for f in rtmond rtmonctl rtmon-mark librtmon.a; do
		cp "$cout/monitor/$f" "$build/$f"
	done
	# rtmon-replay: dynamic like rtmond, against a sysroot of its own
	# (libtracecmd is no library of cross/build-user's sysroot; the
	# lttng-ust headers for librtmon's names); the packages of its NEEDED
	# entries in rtmon-replay.needs ("SONAME PKG", as cross/build-user's
	# rtmond.needs)
	srr=$(board_sh eval 'CROSS_DEV_PKGS="libtracecmd-dev libtracefs-dev libtraceevent-dev libjansson-dev liblttng-ust-dev" &&
		cross_sysroot')
	replay=$build/rtmon-replay
	# no LDFLAGS in monitor/replay/Makefile: it compiles and links in one
	# command, so the library paths go with CFLAGS
	rl="-L$srr/usr/lib/$ma -L$srr/lib/$ma -Wl,-rpath-link,$srr/usr/lib/$ma:$srr/lib/$ma"
	PKG_CONFIG_LIBDIR=$srr/usr/lib/$ma/pkgconfig:$srr/usr/share/pkgconfig PKG_CONFIG_SYSROOT_DIR=$srr \
	board_sh cross_make -s -C "$top/monitor/replay" CC="$cc" O="$build" \
		CFLAGS="-O2 -g -I$srr/usr/include -I$srr/usr/include/$ma $rl" "$replay" >&2
	board_sh runtime_pkgs "$srr" "$replay" >"$build/rtmon-replay.needs"
	if grep -q ' ?$' "$build/rtmon-replay.needs"; then
		echo "build-debs.sh: no package of the $arch sysroot $srr holds rtmon-replay's $(awk '$2 == "?" { print $1 }' "$build/rtmon-replay.needs" | paste -sd' ')" >&2
		exit 1
	fi
fi

# pkgs_of FILE...: the Debian packages holding the libraries the files link
# directly (DT_NEEDED), one a line: found through ldd and dpkg -S on the
# build machine, through the sysroot's sonames (runtime_pkgs of
# cross/lib-cross.sh, as cross/build-user does for rtmond) for another arch
pkgs_of() {
	if [ -n "$board" ]; then
		for f in "$@"; do
			board_sh runtime_pkgs "$sr" "$f"
		done >"$stage/needed"
		if grep -q ' ?$' "$stage/needed"; then
			echo "build-debs.sh: no package of the $arch sysroot holds: $(awk '$2 == "?" { print $1 }' "$stage/needed" | paste -sd' ')" >&2
			exit 1
		fi
		awk '{ print $2 }' "$stage/needed"
		rm -f "$stage/needed"
		return
	fi
	for f in "$@"; do
		readelf -d "$f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' >"$stage/needed"
		ldd "$f" | awk 'NR == FNR { n[$1] = 1; next } $2 == "=>" && ($1 in n) && $3 ~ /^\// { print $3 }' \
			"$stage/needed" -
	done | sort -u |
	while read -r lib; do
		dpkg -S "$lib" 2>/dev/null || dpkg -S "$(readlink -f "$lib")" 2>/dev/null || true
	done | sed 's/:.*//'
	rm -f "$stage/needed"
}

# depends FILE: the lines of FILE (package names) as a Depends value, sorted,
# without librtmon's own
depends() {
	sort -u "$1" | grep -v '^librtmon' | paste -sd, - | sed 's/,/, /g'
}

# control PKG ARCH DEPENDS SECTION DESCRIPTION [EXTRA-FIELDS]
control() {
	mkdir -p "$stage/$1/DEBIAN"
	{
		echo "Package: $1"
		echo "Version: $debver"
		echo "Architecture: $2"
		echo "Maintainer: rtmon developers <rtmon@localhost>"
		[ -z "$3" ] || echo "Depends: $3"
		[ -z "${6:-}" ] || printf '%s\n' "$6"
		echo "Section: $4"
		echo "Priority: optional"
		echo "Installed-Size: $(du -sk --exclude=DEBIAN "$stage/$1" | cut -f1)"
		echo "Homepage: https://example.invalid/rtmon"
		printf 'Description: %s\n' "$5"
	} >"$stage/$1/DEBIAN/control"
}

# scripts PKG: maintainer scripts from packaging/debian/PKG.* (VERSION filled in)
scripts() {
	for s in postinst prerm postrm; do
		if [ -f "$top/packaging/debian/$1.$s" ]; then
			sed "s/@VERSION@/$version/g" "$top/packaging/debian/$1.$s" >"$stage/$1/DEBIAN/$s"
			chmod 755 "$stage/$1/DEBIAN/$s"
		fi
	done
}

inst() { # inst PKG COMPONENT
	mkdir -p "$stage/$1"
	DESTDIR=$stage/$1 PREFIX=/usr BUILD=$build REPLAY=$replay MULTIARCH=$ma "$top/scripts/install.sh" "$2" >/dev/null
}

inst librtmon0 lib
pkgs_of "$stage/librtmon0/usr/lib/$ma/librtmon.so.$version" \
	"$stage/librtmon0/usr/lib/$ma/librtmon-ust.so.$version" >"$stage/deps"
control librtmon0 "$arch" "$(depends "$stage/deps")" libs \
	"rtmon work markers and /dev/rtmon control (shared library)
 librtmon marks where an application takes up a work item and where it is
 done (rtmon_work_begin/rtmon_work_end), so that rtmon follows a chain from
 the interrupt to the end of processing; also emitted as lttng-ust events
 (librtmon-ust.so.0, loaded on demand)." "Multi-Arch: same"
echo "activate-noawait ldconfig" >"$stage/librtmon0/DEBIAN/triggers"

inst librtmon-dev dev
control librtmon-dev "$arch" "librtmon0 (= $debver), linux-libc-dev" libdevel \
	"rtmon work markers and /dev/rtmon control (development files)
 Headers (rtmon/rtmon.h with the /dev/rtmon ABI), the static library and
 librtmon.pc for pkg-config." "Multi-Arch: same"

inst rtmon daemon
inst rtmon replay
if [ -n "$board" ]; then
	# rtmond: the packages cross/build-user derived from its NEEDED entries;
	# rtmon-replay: those of its own sysroot (above); rtmonctl and
	# rtmon-mark are static there (none)
	{ cat "$cout/runtime-packages"
	  awk '{ print $2 }' "$build/rtmon-replay.needs"
	  pkgs_of "$stage/rtmon/usr/bin/rtmonctl" "$stage/rtmon/usr/bin/rtmon-mark"; } >"$stage/deps"
else
	pkgs_of "$stage/rtmon/usr/sbin/rtmond" "$stage/rtmon/usr/bin/rtmonctl" \
		"$stage/rtmon/usr/bin/rtmon-mark" "$stage/rtmon/usr/bin/rtmon-replay" >"$stage/deps"
fi
control rtmon "$arch" "$(depends "$stage/deps"), kmod" admin \
	"real-time response-time monitor: daemon and tools
 rtmond reads the chain records of the rtmon kernel module, keeps per-target
 latency histograms, saves ftrace and LTTng snapshots of every deadline miss
 and exports Prometheus metrics. Started at boot by rtmon.service, before
 ordinary services. rtmonctl and rtmon-mark are the command-line tools;
 rtmon-replay runs recorded traces (ftrace, trace-cmd) through the same
 chain tracking offline." \
	"Recommends: rtmon-dkms (= $debver) | rtmon-modules
Suggests: lttng-tools, lttng-modules-dkms, gnuplot-nox | gnuplot"
printf '%s\n' /etc/rtmon/rtmon.conf /etc/logrotate.d/rtmon >"$stage/rtmon/DEBIAN/conffiles"
scripts rtmon

inst rtmon-dkms dkms
control rtmon-dkms all "dkms (>= 2.1.0.0), make" kernel \
	"real-time response-time monitor: kernel module sources (DKMS)
 Sources of rtmon.ko, built by DKMS for every installed kernel with headers
 (linux-headers-rt-amd64, -rt-arm64 or -rt-armmp for Debian's PREEMPT_RT
 kernels) and rebuilt on kernel updates." "Provides: rtmon-modules"
scripts rtmon-dkms

for p in librtmon0 librtmon-dev rtmon rtmon-dkms; do
	a=$(sed -n 's/^Architecture: //p' "$stage/$p/DEBIAN/control")
	dpkg-deb --root-owner-group -Zxz --build "$stage/$p" "$out/${p}_${debver}_$a.deb" >/dev/null
	echo "$out/${p}_${debver}_$a.deb"
done

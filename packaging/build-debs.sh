#!/bin/sh
# packaging/build-debs.sh [OUTDIR]: Debian packages of rtmon with dpkg-deb
# (no debhelper needed), for the build machine's architecture:
#   rtmon-dkms_V-1_all.deb   module sources in /usr/src/rtmon-V + dkms.conf:
#                            dkms builds rtmon.ko for every installed kernel
#                            that has headers, and again on kernel updates
#   rtmon_V-1_ARCH.deb       rtmond, rtmonctl, rtmon-mark, /etc/rtmon/rtmon.conf,
#                            rtmon.service (enabled), modules-load.d,
#                            modprobe.d, udev rule, tmpfiles.d, sysusers.d
#   librtmon0_V-1_ARCH.deb   librtmon.so.0, librtmon-ust.so.0
#   librtmon-dev_V-1_ARCH.deb headers, librtmon.so, librtmon.a, librtmon.pc
# OUTDIR defaults to build/deb. Builds the user space first (make -C monitor).
# Dependencies of the binaries come from the libraries they load (ldd,
# dpkg -S on the build machine), so build on the release you install on.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(sed -n 's/^VERSION :*= *//p' "$top/monitor/Makefile")
debver=$version-1
arch=$(dpkg --print-architecture)
stage=$out/stage
rm -rf "$stage"
mkdir -p "$stage"
rm -f "$out"/*.deb

make -s -C "$top/monitor" >&2

# deps_of FILE...: the Debian packages holding the libraries the files link
# directly (DT_NEEDED), found through ldd
deps_of() {
	for f in "$@"; do
		readelf -d "$f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' >"$stage/needed"
		ldd "$f" | awk 'NR == FNR { n[$1] = 1; next } $2 == "=>" && ($1 in n) && $3 ~ /^\// { print $3 }' \
			"$stage/needed" -
	done | sort -u |
	while read -r lib; do
		dpkg -S "$lib" 2>/dev/null || dpkg -S "$(readlink -f "$lib")" 2>/dev/null || true
	done | sed 's/:.*//' | sort -u | grep -v '^librtmon' | paste -sd, - | sed 's/,/, /g'
	rm -f "$stage/needed"
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
	DESTDIR=$stage/$1 PREFIX=/usr "$top/scripts/install.sh" "$2" >/dev/null
}

inst librtmon0 lib
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
control librtmon0 "$arch" "$(deps_of "$stage/librtmon0/usr/lib/$ma/librtmon.so.$version" \
	"$stage/librtmon0/usr/lib/$ma/librtmon-ust.so.$version")" libs \
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
control rtmon "$arch" "$(deps_of "$stage/rtmon/usr/sbin/rtmond" "$stage/rtmon/usr/bin/rtmonctl" \
	"$stage/rtmon/usr/bin/rtmon-mark"), kmod" admin \
	"real-time response-time monitor: daemon and tools
 rtmond reads the chain records of the rtmon kernel module, keeps per-target
 latency histograms, saves ftrace and LTTng snapshots of every deadline miss
 and exports Prometheus metrics. Started at boot by rtmon.service, before
 ordinary services. rtmonctl and rtmon-mark are the command-line tools." \
	"Recommends: rtmon-dkms (= $debver) | rtmon-modules
Suggests: lttng-tools"
echo /etc/rtmon/rtmon.conf >"$stage/rtmon/DEBIAN/conffiles"
scripts rtmon

inst rtmon-dkms dkms
control rtmon-dkms all "dkms (>= 2.1.0.0), make" kernel \
	"real-time response-time monitor: kernel module sources (DKMS)
 Sources of rtmon.ko, built by DKMS for every installed kernel with headers
 (linux-headers-rt-$arch for Debian's PREEMPT_RT kernels) and rebuilt on
 kernel updates." "Provides: rtmon-modules"
scripts rtmon-dkms

for p in librtmon0 librtmon-dev rtmon rtmon-dkms; do
	a=$(sed -n 's/^Architecture: //p' "$stage/$p/DEBIAN/control")
	dpkg-deb --root-owner-group -Zxz --build "$stage/$p" "$out/${p}_${debver}_$a.deb" >/dev/null
	echo "$out/${p}_${debver}_$a.deb"
done

#!/bin/sh
# scripts/install.sh: install rtmon from a built tree (make -C monitor) into
# the system or a staging root, at the FHS places.
#
#   scripts/install.sh [COMPONENT...]     default: all
#     lib     librtmon.so.0 (+ librtmon-ust.so.0, the lttng-ust provider)
#     dev     headers (PREFIX/include/rtmon), librtmon.so, librtmon.a, librtmon.pc,
#             librtmon.3
#     daemon  rtmond, rtmonctl, rtmon-mark, /etc/rtmon/rtmon.conf, rtmon.service,
#             modules-load.d, modprobe.d, udev rule,
#             tmpfiles.d, sysusers.d, documentation (Prometheus alerting
#             rules among the examples), man pages (rtmond.8,
#             rtmonctl.8, rtmon-mark.1, rtmon.conf.5), bash completion
#     replay  rtmon-replay (make -C monitor/replay), rtmon-replay.1, its
#             completion and README
#     dkms    module sources + dkms.conf in /usr/src/rtmon-VERSION
#
# Variables (environment or NAME=VALUE arguments):
#   DESTDIR   staging root (default empty: the live system)
#   PREFIX    /usr (default) or e.g. /usr/local; rtmond in PREFIX/sbin, tools
#             in PREFIX/bin, libraries in PREFIX/lib/MULTIARCH
#   MULTIARCH e.g. x86_64-linux-gnu (default: dpkg-architecture, else
#             $CC -print-multiarch, else none: PREFIX/lib)
#   SYSCONFDIR /etc for PREFIX=/usr, PREFIX/etc otherwise
#   LIBDIR    PREFIX/lib/MULTIARCH
#   BUILD     the built user space (default build/monitor)
#   REPLAY    the built rtmon-replay (default build/core/rtmon-replay)
#   MANDIR    PREFIX/share/man
#   COMPLETIONSDIR PREFIX/share/bash-completion/completions
#   SYSTEMDUNITDIR /lib/systemd/system   UDEVRULESDIR /lib/udev/rules.d
#   MODPROBEDIR /lib/modprobe.d          MODULESLOADDIR /usr/lib/modules-load.d
#   TMPFILESDIR /usr/lib/tmpfiles.d      SYSUSERSDIR /usr/lib/sysusers.d
# Paths in rtmon.service and librtmon.pc follow PREFIX and SYSCONFDIR. An
# existing rtmon.conf is kept (the new one goes next to it as
# rtmon.conf.new) unless FORCE_CONFIG=1. Man pages get VERSION in their
# .TH line and are gzipped (-9n: no name or time stamp, reproducible).
# Nothing is run on the system (no systemctl, udevadm, dkms): the
# packages' maintainer scripts do that.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
comps=
for a in "$@"; do
	case "$a" in
	*=*)
		# shellcheck disable=SC2163 # NAME=VALUE: export that assignment
		export "$a" ;;
	all | lib | dev | daemon | replay | dkms) comps="$comps $a" ;;
	-h | --help) sed -n '2,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
	*) echo "install.sh: unknown argument $a" >&2; exit 2 ;;
	esac
done
[ -n "$comps" ] || comps=all
case " $comps " in *" all "*) comps="lib dev daemon replay dkms" ;; esac

DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr}
PREFIX=${PREFIX%/}
if [ -z "${SYSCONFDIR:-}" ]; then
	if [ "$PREFIX" = /usr ]; then SYSCONFDIR=/etc; else SYSCONFDIR=$PREFIX/etc; fi
fi
if [ -z "${MULTIARCH+set}" ]; then
	MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || ${CC:-cc} -print-multiarch 2>/dev/null || true)
fi
BUILD=${BUILD:-$top/build/monitor}
REPLAY=${REPLAY:-$top/build/core/rtmon-replay}
VERSION=${VERSION:-$(sed -n 's/^VERSION :*= *//p' "$top/monitor/Makefile")}
BINDIR=$PREFIX/bin
SBINDIR=$PREFIX/sbin
LIBDIR=${LIBDIR:-$PREFIX/lib${MULTIARCH:+/$MULTIARCH}}
INCLUDEDIR=$PREFIX/include
DOCDIR=$PREFIX/share/doc/rtmon
MANDIR=${MANDIR:-$PREFIX/share/man}
COMPLETIONSDIR=${COMPLETIONSDIR:-$PREFIX/share/bash-completion/completions}
SYSTEMDUNITDIR=${SYSTEMDUNITDIR:-/lib/systemd/system}
UDEVRULESDIR=${UDEVRULESDIR:-/lib/udev/rules.d}
MODPROBEDIR=${MODPROBEDIR:-/lib/modprobe.d}
MODULESLOADDIR=${MODULESLOADDIR:-/usr/lib/modules-load.d}
TMPFILESDIR=${TMPFILESDIR:-/usr/lib/tmpfiles.d}
SYSUSERSDIR=${SYSUSERSDIR:-/usr/lib/sysusers.d}
D=$DESTDIR

need() {
	for f in "$@"; do
		[ -e "$BUILD/$f" ] || { echo "install.sh: $BUILD/$f missing: run 'make -C monitor' first" >&2; exit 1; }
	done
}
# inst MODE SRC DEST: install one file, creating its directory
inst() {
	mkdir -p "$(dirname "$D$3")"
	cp "$2" "$D$3"
	chmod "$1" "$D$3"
}
# instman PAGE...: doc/man/PAGE into MANDIR/manN (N: the page's suffix),
# its @VERSION@ filled in, gzipped
instman() {
	for p in "$@"; do
		mkdir -p "$D$MANDIR/man${p##*.}"
		sed "s/@VERSION@/$VERSION/g" "$top/doc/man/$p" | gzip -9n >"$D$MANDIR/man${p##*.}/$p.gz"
		chmod 644 "$D$MANDIR/man${p##*.}/$p.gz"
	done
}

for c in $comps; do
	case $c in
	lib)
		need librtmon.so librtmon-ust.so
		inst 644 "$BUILD/librtmon.so" "$LIBDIR/librtmon.so.$VERSION"
		ln -sfn "librtmon.so.$VERSION" "$D$LIBDIR/librtmon.so.0"
		inst 644 "$BUILD/librtmon-ust.so" "$LIBDIR/librtmon-ust.so.$VERSION"
		ln -sfn "librtmon-ust.so.$VERSION" "$D$LIBDIR/librtmon-ust.so.0"
		# the name for LD_PRELOAD=librtmon-ust.so (monitor/rtmond/README.md)
		ln -sfn "librtmon-ust.so.0" "$D$LIBDIR/librtmon-ust.so"
		;;
	dev)
		need librtmon.a librtmon.pc
		inst 644 "$top/monitor/include/rtmon/rtmon.h" "$INCLUDEDIR/rtmon/rtmon.h"
		inst 644 "$top/kmod/uapi/rtmon.h" "$INCLUDEDIR/rtmon/uapi/rtmon.h"
		inst 644 "$top/kmod/core/rtm_record.h" "$INCLUDEDIR/rtmon/uapi/rtm_record.h"
		inst 644 "$BUILD/librtmon.a" "$LIBDIR/librtmon.a"
		mkdir -p "$D$LIBDIR"
		ln -sfn librtmon.so.0 "$D$LIBDIR/librtmon.so"
		mkdir -p "$D$LIBDIR/pkgconfig"
		sed -e "s|^prefix=.*|prefix=$PREFIX|" \
		    -e "s|^libdir=.*|libdir=$LIBDIR|" \
		    -e "s|^includedir=.*|includedir=\${prefix}/include|" \
		    "$BUILD/librtmon.pc" >"$D$LIBDIR/pkgconfig/librtmon.pc"
		chmod 644 "$D$LIBDIR/pkgconfig/librtmon.pc"
		instman librtmon.3
		;;
	daemon)
		need rtmond rtmonctl rtmon-mark
		inst 755 "$BUILD/rtmond" "$SBINDIR/rtmond"
		inst 755 "$BUILD/rtmonctl" "$BINDIR/rtmonctl"
		inst 755 "$BUILD/rtmon-mark" "$BINDIR/rtmon-mark"
		mkdir -p "$D$SYSCONFDIR/rtmon"
		if [ -f "$D$SYSCONFDIR/rtmon/rtmon.conf" ] && [ "${FORCE_CONFIG:-0}" != 1 ] &&
		   ! cmp -s "$top/config/rtmon.conf" "$D$SYSCONFDIR/rtmon/rtmon.conf"; then
			inst 644 "$top/config/rtmon.conf" "$SYSCONFDIR/rtmon/rtmon.conf.new"
			echo "install.sh: kept $SYSCONFDIR/rtmon/rtmon.conf; the new one is rtmon.conf.new"
		else
			inst 644 "$top/config/rtmon.conf" "$SYSCONFDIR/rtmon/rtmon.conf"
		fi
		mkdir -p "$D$SYSTEMDUNITDIR"
		sed -e "s|/usr/sbin/rtmond|$SBINDIR/rtmond|" \
		    -e "s|/etc/rtmon/|$SYSCONFDIR/rtmon/|g" \
		    -e "s|/usr/share/doc/rtmon/|$DOCDIR/|" \
		    "$top/config/rtmon.service" >"$D$SYSTEMDUNITDIR/rtmon.service"
		chmod 644 "$D$SYSTEMDUNITDIR/rtmon.service"
		inst 644 "$top/config/rtmon-modules-load.conf" "$MODULESLOADDIR/rtmon.conf"
		inst 644 "$top/config/rtmon-modprobe.conf" "$MODPROBEDIR/rtmon.conf"
		inst 644 "$top/config/60-rtmon.rules" "$UDEVRULESDIR/60-rtmon.rules"
		inst 644 "$top/config/rtmon.tmpfiles" "$TMPFILESDIR/rtmon.conf"
		inst 644 "$top/config/rtmon.sysusers" "$SYSUSERSDIR/rtmon.conf"
		inst 644 "$top/config/rtmon.logrotate" "$SYSCONFDIR/logrotate.d/rtmon"
		inst 644 "$top/README.md" "$DOCDIR/README.md"
		inst 644 "$top/monitor/rtmond/README.md" "$DOCDIR/rtmond.md"
		inst 644 "$top/config/kernel-rtmon.config" "$DOCDIR/kernel-rtmon.config"
		inst 644 "$top/config/prometheus/rtmon-alerts.yml" "$DOCDIR/examples/prometheus/rtmon-alerts.yml"
		instman rtmond.8 rtmonctl.8 rtmon-mark.1 rtmon.conf.5
		inst 644 "$top/doc/completion/rtmonctl" "$COMPLETIONSDIR/rtmonctl"
		inst 644 "$top/doc/completion/rtmond" "$COMPLETIONSDIR/rtmond"
		;;
	replay)
		[ -e "$REPLAY" ] || { echo "install.sh: $REPLAY missing: run 'make -C monitor/replay' first" >&2; exit 1; }
		inst 755 "$REPLAY" "$BINDIR/rtmon-replay"
		instman rtmon-replay.1
		inst 644 "$top/doc/completion/rtmon-replay" "$COMPLETIONSDIR/rtmon-replay"
		inst 644 "$top/monitor/replay/README.md" "$DOCDIR/replay.md"
		;;
	dkms)
		src=/usr/src/rtmon-$VERSION
		dv=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
		if [ "$dv" != "$VERSION" ]; then
			echo "install.sh: dkms.conf has PACKAGE_VERSION $dv, the project is $VERSION" >&2
			exit 1
		fi
		rm -rf "$D$src"
		inst 644 "$top/dkms.conf" "$src/dkms.conf"
		(cd "$top" && find kmod -type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \
			-o -name '*.mk' -o -name README.md \) ! -name '*.mod.c' | sort) |
		while read -r f; do
			inst 644 "$top/$f" "$src/$f"
		done
		;;
	esac
done
echo "install.sh: installed ${comps# } (version $VERSION) under ${DESTDIR:-/}"

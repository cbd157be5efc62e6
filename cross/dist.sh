#!/usr/bin/env bash
# cross/dist.sh BOARD [KDIR]: a tarball to install rtmon on a board:
#   build/dist/rtmon-VERSION-BOARD-KVER.tar.gz
# holding rtmon.ko (built for the board's kernel: scripts/build-kmod),
# bin/rtmonctl and bin/rtmon-mark (static for cross boards:
# cross/build-user, also for an x86 board of another suite, built in that
# suite's chroot; on the other x86 boards the host build, which needs
# libjansson4),
# sbin/rtmond (dynamic: it uses the board's own libconfig, libmicrohttpd,
# lttng-ctl... from its Debian packages), etc/rtmon/rtmon.conf (a starting
# configuration to edit), install.sh, README (what the board needs) and
# MANIFEST (checksums, and rtmond's shared libraries with the packages
# that provide them: "needs: SONAME PACKAGE" lines, read by install.sh).
# On the board, as root:
#   tar xzf rtmon-*.tar.gz && cd rtmon-*/ && ./install.sh
# install.sh refuses a module built for another kernel than the running one
# (modinfo vermagic against uname -r), and rtmond when its libraries are
# missing (naming them and their packages). Prints the tarball's path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib-board.sh"
. "$here/lib-cross.sh"
[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: cross/dist.sh BOARD [KDIR]"
board_load "$1"
ko=$("$RTMON_TOP/scripts/build-kmod" "$@") || exit 1
vermagic=$(modinfo -F vermagic "$ko")
kver=${vermagic%% *}
# cross_user: another architecture, or another suite (an amd64 board of
# trixie: its user space built in the trixie chroot, not build/monitor)
if cross_user; then
	uout=$("$here/build-user" "$BOARD_NAME")
	bin=$uout/bin
	needs=$(cat "$uout/rtmond.needs")
	glibc=$(cat "$uout/rtmond.glibc")
	triplet=$(board_triplet)
	# the suite rtmond was built against (cross/build-user: the board's)
	suite=$(cross_suite)
else
	make -s -C "$RTMON_TOP/monitor" "$RTMON_TOP/build/monitor/rtmonctl" \
		"$RTMON_TOP/build/monitor/rtmon-mark" "$RTMON_TOP/build/monitor/rtmond" >&2 ||
		die "user-space build failed"
	bin=$RTMON_TOP/build/monitor
	# the build machine's packages holding rtmond's libraries
	needs=$(for s in $(elf_needed "$bin/rtmond"); do
		p=$(dpkg -S "*/$s" 2>/dev/null | head -n1 | cut -d: -f1)
		echo "$s ${p:-?}"
	done)
	triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	glibc=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
	suite=$(host_suite)
fi
# the root file systems rtmond's libraries (sonames, package names) fit
case "$suite" in
bookworm) rootfs="Debian 12
(bookworm) or later, Raspberry Pi OS (bookworm), BeagleBoard.org's Debian
images" ;;
trixie) rootfs="Debian 13
(trixie) or later, Raspberry Pi OS (trixie), BeagleBoard.org's Debian 13
images" ;;
*) rootfs="Debian
$suite or later" ;;
esac
version=$(sed -n 's/^#define RTMON_VERSION[[:space:]]*"\(.*\)"/\1/p' "$RTMON_TOP/kmod/rtmon.h")
name=rtmon-$version-$BOARD_NAME-$kver
dist=$RTMON_TOP/build/dist
stage=$dist/$name
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/sbin" "$stage/etc/rtmon"
cp "$ko" "$stage/rtmon.ko"
for t in rtmonctl rtmon-mark; do
	[ -x "$bin/$t" ] || die "$bin/$t not built"
	cp -L "$bin/$t" "$stage/bin/$t"
done
[ -x "$bin/rtmond" ] || die "$bin/rtmond not built"
cp -L "$bin/rtmond" "$stage/sbin/rtmond"
cp "$RTMON_TOP/config/rtmon.conf" "$stage/etc/rtmon/rtmon.conf"
cp "$here/install.sh" "$stage/install.sh"
chmod 755 "$stage/install.sh"
interp=$(elf_interp "$stage/sbin/rtmond")
# what to install on the board (its C library is there already)
pkgs=$(echo "$needs" | awk '$2 != "libc6" { print $2 }' | sort -u | tr '\n' ' ')
pkgs=${pkgs% }
[ -n "$pkgs" ] || die "no runtime packages found for rtmond"
case " $pkgs " in *' ? '*) die "rtmond needs a library no package provides: $(echo "$needs" | tr '\n' ' ')" ;; esac
{
	cat <<TEXT
rtmon $version for board $BOARD_NAME ($BOARD_DESC)
kernel $kver, $BOARD_ARCH ($BOARD_DEB_ARCH)

This package is for a Debian-like root file system on the board: $rootfs (glibc $glibc or later). The module and the tools (bin/rtmonctl,
bin/rtmon-mark, static) need nothing but the kernel. The daemon,
sbin/rtmond, uses the board's own shared libraries, from its packages
(so they get the distribution's security updates):

  apt-get install $pkgs

  library                    package
TEXT
	echo "$needs" | awk '{ printf "  %-26s %s\n", $1, $2 }'
	cat <<TEXT

Install, as root:   ./install.sh
  It refuses a module built for another kernel than the running one, and
  rtmond when a library above is missing (naming it and its package);
  nothing is changed then. --no-rtmond installs the module and the tools
  only. Files: /lib/modules/$kver/extra/rtmon.ko,
  /usr/local/bin/rtmonctl, /usr/local/bin/rtmon-mark,
  /usr/local/sbin/rtmond, /etc/rtmon/rtmon.conf (an existing one is kept).
Then:
  rtmond --check -c /etc/rtmon/rtmon.conf
  rtmond -c /etc/rtmon/rtmon.conf

Yocto and Buildroot images: build rtmon with its recipe (packaging/ in the
source), against the image's own libraries, rather than this package.
TEXT
} >"$stage/README"
{
	echo "rtmon $version for board $BOARD_NAME ($BOARD_DESC)"
	echo "kernel: $kver"
	echo "vermagic: $vermagic"
	echo "arch: $BOARD_ARCH ($BOARD_DEB_ARCH)"
	echo "triplet: $triplet"
	echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) from $(git -C "$RTMON_TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "interp: $interp"
	echo "glibc: $glibc"
	echo "packages: $pkgs"
	echo "$needs" | sed 's/^/needs: /'
	(cd "$stage" && find . -type f ! -name MANIFEST | sort | while read -r f; do
		echo "file: ${f#./} $(sha256sum "$f" | cut -d' ' -f1)"
	done)
} >"$stage/MANIFEST"
tar -C "$dist" -czf "$dist/$name.tar.gz.tmp" --owner=0 --group=0 "$name"
mv "$dist/$name.tar.gz.tmp" "$dist/$name.tar.gz"
echo "$dist/$name.tar.gz"

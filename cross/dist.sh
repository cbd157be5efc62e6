#!/usr/bin/env bash
# cross/dist.sh BOARD [KDIR]: a tarball to install rtmon on a board:
#   build/dist/rtmon-VERSION-BOARD-KVER.tar.gz
# holding rtmon.ko (built for the board's kernel: scripts/build-kmod),
# bin/rtmonctl and bin/rtmon-mark (static for cross boards:
# cross/build-user; on x86 boards the host build, which needs libjansson4),
# etc/rtmon/rtmon.conf (a starting configuration to edit), install.sh and
# MANIFEST. On the board, as root:
#   tar xzf rtmon-*.tar.gz && cd rtmon-*/ && ./install.sh
# install.sh refuses a module built for another kernel than the running one
# (modinfo vermagic against uname -r). Prints the tarball's path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib-board.sh"
[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: cross/dist.sh BOARD [KDIR]"
board_load "$1"
ko=$("$RTMON_TOP/scripts/build-kmod" "$@") || exit 1
vermagic=$(modinfo -F vermagic "$ko")
kver=${vermagic%% *}
if board_foreign; then
	bin=$("$here/build-user" "$BOARD_NAME")/bin
else
	make -s -C "$RTMON_TOP/monitor" "$RTMON_TOP/build/monitor/rtmonctl" \
		"$RTMON_TOP/build/monitor/rtmon-mark" >&2 || die "user-space build failed"
	bin=$RTMON_TOP/build/monitor
fi
version=$(sed -n 's/^#define RTMON_VERSION[[:space:]]*"\(.*\)"/\1/p' "$RTMON_TOP/kmod/rtmon.h")
name=rtmon-$version-$BOARD_NAME-$kver
dist=$RTMON_TOP/build/dist
stage=$dist/$name
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/etc/rtmon"
cp "$ko" "$stage/rtmon.ko"
for t in rtmonctl rtmon-mark; do
	[ -x "$bin/$t" ] || die "$bin/$t not built"
	cp -L "$bin/$t" "$stage/bin/$t"
done
cp "$RTMON_TOP/config/rtmon.conf" "$stage/etc/rtmon/rtmon.conf"
cp "$here/install.sh" "$stage/install.sh"
chmod 755 "$stage/install.sh"
{
	echo "rtmon $version for board $BOARD_NAME ($BOARD_DESC)"
	echo "kernel: $kver"
	echo "vermagic: $vermagic"
	echo "arch: $BOARD_ARCH ($BOARD_DEB_ARCH)"
	echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) from $(git -C "$RTMON_TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	(cd "$stage" && find . -type f ! -name MANIFEST | sort | while read -r f; do
		echo "file: ${f#./} $(sha256sum "$f" | cut -d' ' -f1)"
	done)
} >"$stage/MANIFEST"
tar -C "$dist" -czf "$dist/$name.tar.gz.tmp" --owner=0 --group=0 "$name"
mv "$dist/$name.tar.gz.tmp" "$dist/$name.tar.gz"
echo "$dist/$name.tar.gz"

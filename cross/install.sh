#!/bin/sh
# install.sh: install rtmon from this directory (made by cross/dist.sh) on
# the running system. POSIX sh (busybox ash works).
#   ./install.sh [--force-config] [--no-load]
# Installs rtmon.ko into /lib/modules/$(uname -r)/extra (then depmod), the
# tools into /usr/local/bin and etc/rtmon/rtmon.conf into /etc/rtmon/ (kept
# when one is there, unless --force-config), then loads the module (unless
# --no-load). Refuses, changing nothing, when the module was built for
# another kernel than the running one.
# For tests and image builders: DESTDIR=DIR installs under DIR (no depmod
# on the live system, no load); RTMON_KERNEL_RELEASE replaces uname -r.
set -eu
cd "$(dirname "$0")"
force_config='' load=y
for a in "$@"; do
	case "$a" in
	--force-config) force_config=y ;;
	--no-load) load= ;;
	-h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "install.sh: unknown option $a" >&2; exit 2 ;;
	esac
done
dest=${DESTDIR:-}
[ -z "$dest" ] || load=

[ -f rtmon.ko ] || { echo "install.sh: rtmon.ko missing next to install.sh" >&2; exit 1; }
running=${RTMON_KERNEL_RELEASE:-$(uname -r)}
vermagic=$(modinfo -F vermagic ./rtmon.ko 2>/dev/null || true)
[ -n "$vermagic" ] || vermagic=$(tr '\000' '\n' <rtmon.ko | sed -n 's/^vermagic=//p' | head -n 1)
built=${vermagic%% *}
if [ -z "$built" ]; then
	echo "install.sh: cannot read the vermagic of rtmon.ko: not a kernel module?" >&2
	exit 1
fi
if [ "$built" != "$running" ]; then
	cat >&2 <<MSG
install.sh: refusing to install: this rtmon.ko was built for kernel $built,
but the running kernel is $running (the kernel would reject it, or worse).
Build the package for this kernel: on the build machine,
  cross/dist.sh BOARD /path/to/this/kernel's/build/tree
(or boot the kernel the package was built for). Nothing was changed.
MSG
	exit 3
fi
if [ -z "$dest" ] && [ "$(id -u)" != 0 ]; then
	echo "install.sh: run as root (or set DESTDIR)" >&2
	exit 1
fi

moddir=$dest/lib/modules/$running/extra
mkdir -p "$moddir" "$dest/usr/local/bin" "$dest/etc/rtmon"
cp rtmon.ko "$moddir/rtmon.ko"
for t in bin/*; do
	cp "$t" "$dest/usr/local/bin/"
	chmod 755 "$dest/usr/local/bin/${t#bin/}"
done
if [ ! -f "$dest/etc/rtmon/rtmon.conf" ] || [ -n "$force_config" ]; then
	cp etc/rtmon/rtmon.conf "$dest/etc/rtmon/rtmon.conf"
else
	echo "install.sh: keeping the existing /etc/rtmon/rtmon.conf (new one: etc/rtmon/rtmon.conf here)"
fi
if [ -n "$dest" ]; then
	depmod -b "$dest" "$running" 2>/dev/null || true
else
	depmod "$running"
fi
echo "install.sh: rtmon installed for $running${dest:+ under $dest}"
if [ -n "$load" ]; then
	if grep -q '^rtmon ' /proc/modules; then
		echo "install.sh: rtmon already loaded (rmmod rtmon; modprobe rtmon to use the new one)"
	else
		modprobe rtmon && echo "install.sh: rtmon loaded: cat /proc/rtmon/status"
	fi
fi

#!/bin/sh
# install.sh: install rtmon from this directory (made by cross/dist.sh) on
# the running system. POSIX sh (busybox ash works).
#   ./install.sh [--force-config] [--no-load] [--no-rtmond] [--no-lib-check]
# Installs rtmon.ko into /lib/modules/$(uname -r)/extra (then depmod), the
# tools into /usr/local/bin, rtmond into /usr/local/sbin and
# etc/rtmon/rtmon.conf into /etc/rtmon/ (kept when one is there, unless
# --force-config), then loads the module (unless --no-load). Refuses,
# changing nothing, when the module was built for another kernel than the
# running one, or when a shared library rtmond needs is missing (README
# names the packages; --no-rtmond installs the rest without rtmond).
# For tests and image builders: DESTDIR=DIR installs under DIR (no depmod
# on the live system, no load; libraries looked for under DIR, or not at
# all with --no-lib-check); RTMON_KERNEL_RELEASE replaces uname -r.
set -eu
cd "$(dirname "$0")"
force_config='' load=y rtmond=y lib_check=y
for a in "$@"; do
	case "$a" in
	--force-config) force_config=y ;;
	--no-load) load= ;;
	--no-rtmond) rtmond= ;;
	--no-lib-check) lib_check= ;;
	-h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "install.sh: unknown option $a" >&2; exit 2 ;;
	esac
done
dest=${DESTDIR:-}
[ -z "$dest" ] || load=
[ -f sbin/rtmond ] || rtmond=

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

# rtmond's shared libraries (MANIFEST "needs: SONAME PACKAGE", from its
# ELF NEEDED entries at build time): each must be in one of the dynamic
# loader's directories (the multiarch and plain lib dirs, those of
# /etc/ld.so.conf and /etc/ld.so.conf.d/*.conf) or in its cache
# (ldconfig -p), under DESTDIR when given. No readelf needed on the board.
lib_dirs() {
	triplet=$(sed -n 's/^triplet: //p' MANIFEST)
	for d in /lib/$triplet /usr/lib/$triplet /lib /usr/lib /lib64 /usr/lib64 /usr/local/lib; do
		echo "$d"
	done
	cat "$dest/etc/ld.so.conf" "$dest"/etc/ld.so.conf.d/*.conf 2>/dev/null | sed -n 's/^[[:space:]]*\(\/[^[:space:]#]*\).*/\1/p'
}
have_lib() { # SONAME
	for d in $(lib_dirs); do
		if [ -e "$dest$d/$1" ] || [ -L "$dest$d/$1" ]; then return 0; fi
	done
	[ -z "$dest" ] && command -v ldconfig >/dev/null 2>&1 &&
		ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$1 " && return 0
	return 1
}
if [ -n "$rtmond" ] && [ -n "$lib_check" ]; then
	missing='' pkgs=''
	interp=$(sed -n 's/^interp: //p' MANIFEST)
	if [ -n "$interp" ] && [ ! -e "$dest$interp" ] && [ ! -L "$dest$interp" ]; then
		missing="  $interp (the dynamic loader: package libc6; glibc $(sed -n 's/^glibc: //p' MANIFEST) or later)
"
	fi
	while read -r soname pkg; do
		have_lib "$soname" && continue
		missing="$missing  $soname (package $pkg)
"
		case " $pkgs " in *" $pkg "*) ;; *) pkgs="${pkgs:+$pkgs }$pkg" ;; esac
	done <<LIBS
$(sed -n 's/^needs: //p' MANIFEST)
LIBS
	if [ -n "$missing" ]; then
		printf 'install.sh: refusing to install: rtmond needs shared libraries missing%s:\n%s' \
			"${dest:+ under $dest}" "$missing" >&2
		cat >&2 <<MSG
This package is for a Debian-like root file system (README). Install them:
  apt-get install ${pkgs:-libc6}
(all of rtmond's: $(sed -n 's/^packages: //p' MANIFEST)),
or install the module and the tools without rtmond: ./install.sh --no-rtmond
Nothing was changed.
MSG
		exit 4
	fi
fi

moddir=$dest/lib/modules/$running/extra
mkdir -p "$moddir" "$dest/usr/local/bin" "$dest/etc/rtmon"
cp rtmon.ko "$moddir/rtmon.ko"
for t in bin/*; do
	cp "$t" "$dest/usr/local/bin/"
	chmod 755 "$dest/usr/local/bin/${t#bin/}"
done
if [ -n "$rtmond" ]; then
	mkdir -p "$dest/usr/local/sbin"
	cp sbin/rtmond "$dest/usr/local/sbin/rtmond"
	chmod 755 "$dest/usr/local/sbin/rtmond"
fi
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
without=' (without rtmond)'
[ -z "$rtmond" ] || without=
echo "install.sh: rtmon installed for $running${dest:+ under $dest}$without"
# rtmond runs here: its libraries load and it reads the shipped configuration
if [ -n "$rtmond" ] && [ -z "$dest" ]; then
	if ! out=$(/usr/local/sbin/rtmond --check -c etc/rtmon/rtmon.conf 2>&1); then
		echo "install.sh: installed, but rtmond does not run here: $out" >&2
		exit 5
	fi
fi
if [ -n "$load" ]; then
	if grep -q '^rtmon ' /proc/modules; then
		echo "install.sh: rtmon already loaded (rmmod rtmon; modprobe rtmon to use the new one)"
	else
		modprobe rtmon && echo "install.sh: rtmon loaded: cat /proc/rtmon/status"
	fi
fi

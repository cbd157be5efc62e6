# shellcheck shell=bash
# cross/lib-cross.sh: the sysroot rtmon's user space is cross-built against,
# and the runtime packages rtmond needs on a board. Sourced after
# scripts/lib-board.sh and board_load (functions and one list only).
#
# The sysroot is made of Debian's packages for the board's architecture,
# downloaded with apt-get download (never installed) and unpacked into
# $RTMON_CACHE/userland/ARCH-sysroot-ID/, with every library they need at
# run time (the closure of their Depends), so the linker can follow the
# shared libraries' own dependencies (-rpath-link) and pkg-config finds
# every .pc file (PKG_CONFIG_LIBDIR/PKG_CONFIG_SYSROOT_DIR). Which suite:
#  - a board of the build machine's suite (bookworm): that suite's packages,
#    built with the build machine's cross compiler (whose C library is
#    that suite's);
#  - a board of another suite (BOARD_SUITE=trixie): that suite's packages
#    (its separate apt state, scripts/lib-board.sh), into
#    $RTMON_CACHE/userland/SUITE-ARCH-sysroot-ID/, built inside that
#    suite's chroot with its cross compiler and C library (cross_chroot):
#    the libraries' sonames, symbol versions and glibc then are the board's.

# The -dev packages user space is built with: librtmon (lttng-ust, urcu
# headers), rtmonctl (jansson, static), the GPIO loopback tools (libgpiod,
# jansson, static) and rtmond (all, dynamic). A new
# library for rtmond is one name here (its runtime package, the
# package-to-install list of the tarball and the test image follow from the
# built binary's NEEDED entries).
CROSS_DEV_PKGS="libjansson-dev liblttng-ust-dev liburcu-dev libconfig-dev libmicrohttpd-dev
	liblttng-ctl-dev libcap-dev libsystemd-dev libgpiod-dev"

# Packages of a -dev closure that the cross compiler's own C library
# (libc6-dev-ARCH-cross) or the build machine provide: never unpacked.
CROSS_SKIP_RE='^(libc6-dev|libc-dev-bin|linux-libc-dev|libcrypt-dev|libnsl-dev|libtirpc-dev|rpcsvc-proto|pkg-config|pkgconf|pkgconf-bin|libpkgconf3)$'

# deb_closure PKG...: the packages PKG... (unqualified names) pull in with
# their Depends/Pre-Depends, for the board's architecture: one line each,
# PKG:ARCH. Virtual packages, other architectures' packages
# (Multi-Arch: foreign tools, satisfied by the build machine) and the
# C-library development packages are left out. For a board of the build
# machine's architecture (an amd64 board of another suite), apt prints that
# architecture's packages unqualified: they are printed PKG:ARCH too.
deb_closure() {
	local p qs=() native=
	for p in "$@"; do qs+=("$p:$BOARD_DEB_ARCH"); done
	board_foreign || native=1
	apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances "${qs[@]}" 2>/dev/null |
		awk -v a=":$BOARD_DEB_ARCH" -v skip="$CROSS_SKIP_RE" -v native="$native" '
			/^[^ <]/ && native && $1 !~ /:/ { if ($1 !~ skip) print $1 a; next }
			/^[^ <]/ && substr($1, length($1) - length(a) + 1) == a {
				n = substr($1, 1, length($1) - length(a)); if (n !~ skip) print $1 }' |
		sort -u
}

# deb_specs PKG:ARCH...: PKG:ARCH=CANDIDATE for each (one apt-cache call).
deb_specs() {
	local pol q v
	# (the build machine's architecture's packages come back unqualified)
	pol=$(apt-cache policy "$@" 2>/dev/null |
		awk -v a=":$(dpkg --print-architecture)" '/^[^ ].*:$/ { sub(/:$/, ""); p = $0; if (p !~ /:/) p = p a }
			/^  Candidate:/ { print p, $2 }')
	for q in "$@"; do
		v=$(awk -v q="$q" '$1 == q { print $2; exit }' <<<"$pol")
		[ -n "$v" ] && [ "$v" != "(none)" ] ||
			die "no candidate version for $q (dpkg --add-architecture $BOARD_DEB_ARCH; apt-get update: run 'make deps')"
		echo "$q=$v"
	done
}

# cross_sysroot: the sysroot of CROSS_DEV_PKGS and their closure for the
# board's architecture, made once per set of versions; prints its path.
# It also holds .packages (PKG:ARCH=VER, one a line) and .sonames
# ("SONAME PKG" for every shared library it holds, to map a binary's
# NEEDED entries to the packages that provide them).
cross_sysroot() {
	local pkgs specs id d s f name ver arch lk suite t0
	suite=$(cross_suite)
	# shellcheck disable=SC2086
	pkgs=$(BOARD_SUITE=$suite && deb_closure $CROSS_DEV_PKGS) || exit 1
	[ -n "$pkgs" ] || die "cannot resolve $CROSS_DEV_PKGS for $BOARD_DEB_ARCH in $suite with apt-cache (run 'make deps')"
	# shellcheck disable=SC2086
	specs=$(BOARD_SUITE=$suite && deb_specs $pkgs) || exit 1
	id=$(echo "$specs" | cksum | cut -d' ' -f1)
	d=$RTMON_CACHE/userland/$BOARD_DEB_ARCH-sysroot-$id
	[ "$suite" = "$(host_suite)" ] || d=$RTMON_CACHE/userland/$suite-$BOARD_DEB_ARCH-sysroot-$id
	mkdir -p "$RTMON_CACHE/userland"
	# boards of one architecture share it (make check builds them at once)
	exec {lk}>"$d.lock"
	flock "$lk"
	if [ ! -f "$d/.complete" ]; then
		rm -rf "$d" "$d.tmp"
		t0=$SECONDS
		echo "making the $suite $BOARD_DEB_ARCH sysroot for rtmon's user space ($(echo "$specs" | wc -l) packages) in ${d/#$HOME/\~}" >&2
		# shellcheck disable=SC2086
		(BOARD_SUITE=$suite && deb_fetch "$d.tmp" $specs) || exit 1
		# absolute links (libcap.so -> /lib/TRIPLET/libcap.so.2) would
		# point into the build machine: made relative, within the tree
		find "$d.tmp" -type l -lname '/*' | while read -r f; do
			ln -sfn "$(realpath -m --relative-to="$(dirname "$f")" "$d.tmp$(readlink "$f")")" "$f"
		done
		echo "$specs" >"$d.tmp/.packages"
		for s in $specs; do
			name=${s%%:*} ver=${s#*=} arch=${s%%=*}
			arch=${arch#*:}
			f=$(ls "$RTMON_CACHE/debs/${name}_${ver/:/%3a}_$arch.deb")
			dpkg-deb -c "$f" | awk -v p="$name" '{ f = $6; sub(/.*\//, "", f) }
				f ~ /^lib.*\.so\.[0-9]+$/ || f ~ /^ld-linux.*\.so\.[0-9]+$/ { print f, p }'
		done | sort -u >"$d.tmp/.sonames"
		mv "$d.tmp" "$d"
		touch "$d/.complete"
		# shellcheck disable=SC2086
		echo "made the $suite $BOARD_DEB_ARCH sysroot in $((SECONDS - t0)) s ($(cross_debs_mb $specs) MB of packages, $(du -sm "$d" | cut -f1) MB unpacked)" >&2
	fi
	exec {lk}>&-
	echo "$d"
}

# cross_debs_mb PKG:ARCH=VER...: the size of those packages in the cache (MB)
cross_debs_mb() {
	local s name ver arch
	for s in "$@"; do
		name=${s%%:*} ver=${s#*=} arch=${s%%=*}
		arch=${arch#*:}
		echo "$RTMON_CACHE/debs/${name}_${ver/:/%3a}_$arch.deb"
	done | xargs du -cm 2>/dev/null | awk 'END { print $1 }'
}

# cross_suite: the Debian suite whose libraries and C library the board's
# user space is built with: the board's BOARD_SUITE when it is not the build
# machine's, else the build machine's (a board without BOARD_SUITE too).
cross_suite() {
	if board_other_suite; then echo "$BOARD_SUITE"; else host_suite; fi
}

# cross_user: true when the board's user space is built by cross/build-user
# (against a sysroot of its suite's packages) rather than on the build
# machine (make -C monitor: build/monitor): a board of another architecture,
# or of another suite (an amd64 board of trixie: built natively inside that
# suite's chroot, so rtmond gets the suite's glibc and libraries).
cross_user() {
	board_foreign || board_other_suite
}

# cross_chroot_pkgs: what the suite's chroot needs to build user space for
# the board: the cross compiler (gcc-TRIPLET, the suite's default gcc), its
# C library for the board's architecture (libc6-dev-ARCH-cross) and
# pkg-config (monitor/Makefile: libsystemd); for a board of the build
# machine's architecture the suite's native gcc and libc6-dev instead.
cross_chroot_pkgs() {
	if board_foreign; then
		echo "gcc-$(board_triplet) libc6-dev-$BOARD_DEB_ARCH-cross pkgconf"
	else
		echo "gcc libc6-dev pkgconf"
	fi
}

# cross_make MAKE-ARGS...: make with the board's user-space toolchain: the
# build machine's, or for a board of another suite inside that suite's
# chroot (cross_chroot; paths in the arguments must then be in the checkout
# or in the cache's sysroots, which chroot_run binds at their own paths).
cross_make() {
	if board_other_suite; then
		local root
		root=$(cross_chroot) || return 1
		chroot_run "$root" make "$@"
	else
		make "$@"
	fi
}

# cross_cc_check: die unless the board's cross compiler is there (on the
# build machine, or in the suite's chroot, made or completed here).
cross_cc_check() {
	local cc=${BOARD_CROSS_COMPILE}gcc root
	if board_other_suite; then
		root=$(cross_chroot) || exit 1
		[ -x "$root/usr/bin/$cc" ] || die "$cc missing in the $BOARD_SUITE chroot $root"
	else
		command -v "$cc" >/dev/null || die "$cc not installed (run 'make deps')"
	fi
}

# cross_chroot: for a board of another suite, the suite's chroot with
# cross_chroot_pkgs installed (made or completed once, as root: see
# suite_chroot in scripts/lib-board.sh); prints its directory.
cross_chroot() {
	# shellcheck disable=SC2046
	suite_chroot $(cross_chroot_pkgs)
}

# elf_needed ELF: the shared libraries (NEEDED entries) of an executable.
elf_needed() {
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}

# elf_interp ELF: its program interpreter (the dynamic loader).
elf_interp() {
	readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p'
}

# runtime_pkgs SYSROOT ELF: "SONAME PKG" for each NEEDED entry of ELF, PKG
# being the sysroot's package holding that library ("?" when none does).
runtime_pkgs() {
	local s p
	for s in $(elf_needed "$2"); do
		p=$(awk -v s="$s" '$1 == s { print $2; exit }' "$1/.sonames")
		[ -n "$p" ] || case "$s" in
			# the C library's own (libc6-dev-ARCH-cross at build time)
			libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) p=libc6 ;;
			*) p='?' ;;
		esac
		echo "$s $p"
	done
}

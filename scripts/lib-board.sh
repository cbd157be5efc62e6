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
# The stderr the library was sourced with: the suite state's refresh
# messages (retries, stale lists, why a board cannot resolve) go there even
# when a caller hides apt-cache's own noise (deb_dep_of: 2>/dev/null).
[ -n "${RTMON_LIB_STDERR:-}" ] || exec {RTMON_LIB_STDERR}>&2 || RTMON_LIB_STDERR=2

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
		BOARD_GPIO_STIM_OUT | BOARD_GPIO_STIM_IN | BOARD_GPIO_RESP_OUT | BOARD_GPIO_RESP_IN | \
		BOARD_GPIO_IN | BOARD_QEMU_KERNEL_ARGS | BOARD_QEMU_ACCEL | \
		BOARD_TOOLCHAIN | BOARD_KERNEL_BUILD | BOARD_TIMEOUT_SCALE) ;;
		*) die "$f:$n: unknown key ${line%%=*}" ;;
		esac
	done <"$f"
	# shellcheck disable=SC1090
	. "$f"
	BOARD_NAME=$(basename "$f" .board)
	BOARD_FILE=$f
	[ -n "${BOARD_ARCH:-}" ] || die "$f: BOARD_ARCH is required"
	[ -n "${BOARD_KERNEL_FLAVOUR:-}${BOARD_KDIR:-}${BOARD_KERNEL_BUILD:-}" ] ||
		die "$f: BOARD_KERNEL_FLAVOUR, BOARD_KERNEL_BUILD or BOARD_KDIR is required"
	if [ -n "${BOARD_KERNEL_BUILD:-}" ]; then
		board_kernel_builder >/dev/null ||
			die "$f: BOARD_KERNEL_BUILD=$BOARD_KERNEL_BUILD: no scripts/build-$BOARD_KERNEL_BUILD-kernel, no config/kernel-$BOARD_KERNEL_BUILD-x86_64.config"
		[ -z "${BOARD_KERNEL_FLAVOUR:-}${BOARD_KDIR:-}" ] ||
			die "$f: BOARD_KERNEL_BUILD excludes BOARD_KERNEL_FLAVOUR and BOARD_KDIR"
	fi
	case "${BOARD_TIMEOUT_SCALE:-1}" in
	'' | *[!0-9]* | 0) die "$f: BOARD_TIMEOUT_SCALE must be a positive integer" ;;
	esac
	case "${BOARD_TOOLCHAIN:-}" in
	'' | host) ;;
	chroot)
		[ -n "${BOARD_KERNEL_FLAVOUR:-}" ] && board_other_suite ||
			die "$f: BOARD_TOOLCHAIN=chroot needs BOARD_KERNEL_FLAVOUR and a BOARD_SUITE other than the build machine's (the compiler comes from that suite)"
		;;
	*) die "$f: BOARD_TOOLCHAIN must be host or chroot, not '$BOARD_TOOLCHAIN'" ;;
	esac
}

# deb_dep_of PKG: the versioned package a Debian kernel metapackage points at
# (linux-image-rt-amd64 -> linux-image-6.1.0-56-rt-amd64).
deb_dep_of() {
	local dep
	dep=$(apt-cache depends "$1" 2>/dev/null | awk '/^  Depends:/ {print $2; exit}')
	[ -n "$dep" ] || die "cannot resolve $1 with apt-cache (run 'make deps'; is apt-get update done?)"
	echo "$dep"
}

# deb_download PKG=VER: download one package into the cache's debs/. A
# mirror caught mid-sync refuses a file for a while: three tries, a pause
# between them, and apt's own message on the last failure.
deb_download() {
	local spec=$1 debs=$RTMON_CACHE/debs try err
	mkdir -p "$debs"
	echo "fetching ${spec%%=*} ${spec#*=}" >&2
	for try in 1 2 3; do
		err=$( (cd "$debs" && apt-get download -qq -o APT::Sandbox::User=root "$spec") 2>&1) && return 0
		[ "$try" = 3 ] || sleep $((try * 10))
	done
	echo "$err" >&2
	die "apt-get download $spec failed (3 tries)"
}

deb_candidate() {
	apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2; exit}'
}

# source_deb SPKG: the path of an architecture-independent package
# (linux-source-6.12): the newest SPKG_*_all.deb in the cache, whatever
# suite it came from, else BOARD_SUITE's candidate, downloaded into it.
source_deb() {
	local spkg=$1 debs=$RTMON_CACHE/debs deb sver
	deb=$(find "$debs" -maxdepth 1 -name "${spkg}_*_all.deb" 2>/dev/null |
		sort -V | tail -n1 || true)
	if [ -z "$deb" ]; then
		sver=$(deb_candidate "$spkg")
		[ -n "$sver" ] || die "no candidate version of $spkg in $BOARD_SUITE"
		deb_download "$spkg=$sver"
		deb=$debs/${spkg}_${sver/:/%3a}_all.deb
		[ -f "$deb" ] || die "apt-get download left no $deb"
	fi
	echo "$deb"
}

# board_foreign: true when the board's Debian architecture is not the
# build machine's (its packages are named PKG:ARCH for apt).
board_foreign() {
	[ -n "${BOARD_DEB_ARCH:-}" ] && [ "$BOARD_DEB_ARCH" != "$(dpkg --print-architecture)" ]
}

# board_pkg PKG: PKG qualified with the board's architecture when foreign
# (linux-image-rt-arm64 -> linux-image-rt-arm64:arm64), PKG otherwise.
board_pkg() {
	if board_foreign; then echo "$1:$BOARD_DEB_ARCH"; else echo "$1"; fi
}

# board_kernel_builder: the command (one word a line) that builds the
# kernel of BOARD_KERNEL_BUILD=NAME: scripts/build-NAME-kernel if there is
# one (debug: scripts/build-debug-kernel), else a variant of the debug
# kernel's script, "scripts/build-debug-kernel NAME", when its fragment
# config/kernel-NAME-x86_64.config exists (kcsan); fails otherwise.
board_kernel_builder() {
	local b=$BOARD_KERNEL_BUILD
	if [ -x "$RTMON_TOP/scripts/build-$b-kernel" ]; then
		echo "$RTMON_TOP/scripts/build-$b-kernel"
	elif [ -f "$RTMON_TOP/config/kernel-$b-x86_64.config" ]; then
		printf '%s\n' "$RTMON_TOP/scripts/build-debug-kernel" "$b"
	else
		return 1
	fi
}

# board_built_kernel: for a board with BOARD_KERNEL_BUILD=NAME, the
# directory the builder of board_kernel_builder builds once into the cache
# (or finds there, built) and prints: boot/vmlinuz-KVER, lib/modules/KVER,
# build/ (the build tree) and .kver, like the unpacked Debian kernels.
board_built_kernel() {
	local cmd
	mapfile -t cmd < <(board_kernel_builder) || true
	[ ${#cmd[@]} -gt 0 ] || die "BOARD_KERNEL_BUILD=$BOARD_KERNEL_BUILD: no builder"
	"${cmd[@]}" || die "${cmd[*]#"$RTMON_TOP"/} failed"
}

# board_kver: the kernel release (uname -r) the board's flavour resolves to.
board_kver() {
	local img
	if [ -n "${BOARD_KERNEL_BUILD:-}" ]; then
		img=$(board_built_kernel) || exit 1
		cat "$img/.kver"
		return
	fi
	img=$(deb_dep_of "$(board_pkg "linux-image-$BOARD_KERNEL_FLAVOUR")") || exit 1
	img=${img%%:*}
	echo "${img#linux-image-}"
}

# deb_fetch DIR PKG=VER...: download Debian packages (any architecture,
# PKG may be PKG:ARCH) into the cache, through the board's suite's apt
# state (apt-get below), and unpack them all into DIR.
deb_fetch() {
	local dir=$1 spec pkg ver name arch debs=$RTMON_CACHE/debs f
	shift
	mkdir -p "$debs" "$dir"
	for spec in "$@"; do
		pkg=${spec%%=*} ver=${spec#*=}
		name=${pkg%%:*}
		arch=${pkg#"$name"}
		arch=${arch#:}
		f=$(ls "$debs/${name}_${ver/:/%3a}_"${arch:-*}.deb 2>/dev/null | head -n1 || true)
		if [ -z "$f" ]; then
			deb_download "$pkg=$ver"
			f=$(ls "$debs/${name}_${ver/:/%3a}_"${arch:-*}.deb | head -n1)
		fi
		dpkg-deb -x "$f" "$dir" || die "dpkg-deb -x $f failed"
	done
}

# board_cross_headers: a sysroot in the cache holding the board's Debian
# kernel headers (foreign architecture), their -common package and the
# build machine's linux-kbuild of the same version (host binaries for
# scripts/); prints the headers' directory, usable as KDIR.
board_cross_headers() {
	local kver hpkg ver common kbuild root d
	kver=$(board_kver) || exit 1
	hpkg=$(board_pkg "linux-headers-$kver")
	ver=$(deb_candidate "$hpkg")
	[ -n "$ver" ] || die "no candidate version for $hpkg (dpkg --add-architecture $BOARD_DEB_ARCH; apt-get update: run 'make deps')"
	root=$RTMON_CACHE/sysroot/linux-headers-${kver}_$ver
	d=$root/usr/src/linux-headers-$kver
	if [ ! -f "$root/.complete" ]; then
		common=$(apt-cache depends "$hpkg" | awk '/Depends: .*linux-headers-.*-common/ {print $2; exit}')
		common=${common#<}
		common=${common%>}
		common=${common%%:*}
		kbuild=$(apt-cache depends "$hpkg" | awk '/Depends: linux-kbuild-/ {print $2; exit}')
		kbuild=${kbuild%%:*}
		[ -n "$common" ] && [ -n "$kbuild" ] || die "cannot resolve the dependencies of $hpkg"
		rm -rf "$root" "$root.tmp"
		deb_fetch "$root.tmp" "$hpkg=$ver" "$common=$ver" \
			"$kbuild:$(dpkg --print-architecture)=$ver"
		# the flavour's Makefile includes the common one by absolute path
		sed -i "s|^include /usr/src/|include $root/usr/src/|" \
			"$root.tmp/usr/src/linux-headers-$kver/Makefile"
		mv "$root.tmp" "$root"
		touch "$root/.complete"
	fi
	echo "$d"
}

# board_kdir: kernel build tree for the board: BOARD_KDIR if set, the build
# tree of a board-built kernel (BOARD_KERNEL_BUILD), else the installed
# Debian headers of the resolved kernel (for another suite: the sysroot of
# board_suite_headers).
board_kdir() {
	if [ -n "${BOARD_KDIR:-}" ]; then
		echo "$BOARD_KDIR"
		return
	fi
	local kver d
	if [ -n "${BOARD_KERNEL_BUILD:-}" ]; then
		d=$(board_built_kernel) || exit 1
		echo "$d/build"
		return
	fi
	if board_other_suite; then
		board_suite_headers
		return
	fi
	if board_foreign; then
		board_cross_headers
		return
	fi
	kver=$(board_kver) || exit 1
	d=/usr/src/linux-headers-$kver
	[ -f "$d/Makefile" ] || die "kernel headers for $kver not installed in $d (run 'make deps')"
	echo "$d"
}

# board_fetch_kernel: download and unpack the board's Debian kernel image
# into the cache (reused across runs); prints the unpacked directory, which
# holds boot/vmlinuz-KVER and lib/modules/KVER (depmod already run).
board_fetch_kernel() {
	local kver pkg ver dir debs
	if [ -n "${BOARD_KERNEL_BUILD:-}" ]; then
		board_built_kernel
		return
	fi
	kver=$(board_kver) || exit 1
	pkg=$(board_pkg "linux-image-$kver")
	ver=$(deb_candidate "$pkg")
	[ -n "$ver" ] || die "no candidate version for $pkg"
	dir=$RTMON_CACHE/kernels/${pkg%%:*}_$ver
	if [ ! -f "$dir/.complete" ]; then
		debs=$RTMON_CACHE/debs
		mkdir -p "$debs"
		if ! ls "$debs/${pkg%%:*}_${ver/:/%3a}_"*.deb >/dev/null 2>&1; then
			deb_download "$pkg=$ver"
		fi
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp"
		dpkg-deb -x "$debs/${pkg%%:*}_${ver/:/%3a}_"*.deb "$dir.tmp" || die "dpkg-deb -x failed"
		# merged /usr (trixie and later): the modules are in usr/lib/modules
		[ -e "$dir.tmp/lib" ] || ln -s usr/lib "$dir.tmp/lib"
		depmod -b "$dir.tmp" "$kver" || die "depmod failed for $kver"
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
		touch "$dir/.complete"
	fi
	echo "$dir"
}

# The board's own Debian packages a cross-built test image needs: busybox,
# bash (the guest runner and tests are bash), the C library (for bash and
# Debian's cyclictest), cyclictest (rt-tests) and jansson (headers and the
# static library rtmonctl links; lttng-ust headers for librtmon's optional
# tracepoints (and the liburcu headers they use), loaded with dlopen at run
# time).
BOARD_USERLAND_PKGS="busybox-static bash libtinfo6 libc6 libnuma1 rt-tests libjansson4 libjansson-dev liblttng-ust-dev liburcu-dev"

# board_userland: the packages above, for the board's architecture and at
# their candidate versions, unpacked into one tree in the cache; prints the
# tree. Its name changes with the versions, so updates show up.
# RTMON_USERLAND_EXTRA: more packages (unqualified names) for the tree
# (cross/check: the libraries rtmond needs on the board, with their
# dependencies, as a Debian board would have them installed).
board_userland() {
	local p q v specs=() id d qs=() pol
	for p in $BOARD_USERLAND_PKGS ${RTMON_USERLAND_EXTRA:-}; do qs+=("$(board_pkg "$p")"); done
	# one apt-cache call for all (each costs a second or more)
	pol=$(apt-cache policy "${qs[@]}" 2>/dev/null |
		awk '/^[^ ].*:$/ { sub(/:$/, ""); p = $0 } /^  Candidate:/ { print p, $2 }')
	for q in "${qs[@]}"; do
		v=$(awk -v q="$q" '$1 == q { print $2; exit }' <<<"$pol")
		[ -n "$v" ] && [ "$v" != "(none)" ] ||
			die "no candidate version for $q (dpkg --add-architecture ${BOARD_DEB_ARCH:-?}; apt-get update: run 'make deps')"
		specs+=("$q=$v")
	done
	id=$(echo "${specs[*]}" | cksum | cut -d' ' -f1)
	d=$RTMON_CACHE/userland/${BOARD_DEB_ARCH:-native}-$id
	if [ ! -f "$d/.complete" ]; then
		rm -rf "$d" "$d.tmp"
		deb_fetch "$d.tmp" "${specs[@]}"
		printf '%s\n' "${specs[@]}" >"$d.tmp/.packages"
		mv "$d.tmp" "$d"
		touch "$d/.complete"
	fi
	echo "$d"
}

# board_triplet: the GNU multiarch triplet of the board's libraries
board_triplet() {
	case "${BOARD_DEB_ARCH:-}" in
	arm64) echo aarch64-linux-gnu ;;
	armhf) echo arm-linux-gnueabihf ;;
	amd64) echo x86_64-linux-gnu ;;
	*) die "no triplet known for Debian architecture '${BOARD_DEB_ARCH:-}'" ;;
	esac
}

# ---- boards from another Debian suite (BOARD_SUITE=trixie on bookworm) ----
# The system's apt sources stay as they are. A board whose BOARD_SUITE is not
# the build machine's own suite resolves its packages through a separate apt
# state in $RTMON_CACHE/apt/SUITE (its own sources.list and lists, the same
# mirror as the system's), and builds against a sysroot of that suite's
# header packages in $RTMON_CACHE/sysroot (never installed system-wide).

# host_suite: the build machine's Debian codename (bookworm).
host_suite() {
	(. /etc/os-release && echo "${VERSION_CODENAME:-}")
}

# board_other_suite: true when the board's kernel comes from a suite other
# than the build machine's.
board_other_suite() {
	[ -n "${BOARD_SUITE:-}" ] && [ "$BOARD_SUITE" != "$(host_suite)" ]
}

# debian_mirror: the Debian archive the system's sources use for its own
# suite (one-line or deb822 sources); RTMON_DEBIAN_MIRROR overrides.
debian_mirror() {
	local m=${RTMON_DEBIAN_MIRROR:-}
	if [ -z "$m" ]; then
		m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
			/etc/apt/sources.list.d/*.sources 2>/dev/null |
			awk -v s="$(host_suite)" '
			/^deb[ \t]/ { sub(/\[[^]]*\]/, ""); if ($3 == s) { print $2; exit } next }
			/^URIs:/ { uri = $2; next }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s && uri != "") { print uri; exit } }
			/^[ \t]*$/ { uri = "" }')
	fi
	[ -n "$m" ] || die "cannot find the Debian mirror in /etc/apt/sources.list* (set RTMON_DEBIAN_MIRROR)"
	echo "${m%/}"
}

# suite_apt_dir SUITE: the separate apt state of a suite.
suite_apt_dir() {
	echo "$RTMON_CACHE/apt/$1"
}

# apt_update_retry WHAT ARGS...: 'apt-get ARGS... update', tried again with a
# pause when it fails (RTMON_APT_TRIES times, default 4; pauses of
# RTMON_APT_PAUSE seconds, default 15, doubling). A mirror caught mid-sync
# serves an index whose size or hash does not match its Release file
# ("Mirror sync in progress?"); apt then drops every list of that Release
# file, so one bad index of one architecture loses them all. A few minutes
# later the mirror is whole again. Returns non-zero when every try failed,
# after naming the indexes that failed (for WHAT: who needs them).
apt_update_retry() {
	local what=$1 try tries=${RTMON_APT_TRIES:-4} pause=${RTMON_APT_PAUSE:-15} log
	shift
	log=$(mktemp)
	for ((try = 1; ; try++)); do
		if command apt-get -qq -o APT::Sandbox::User=root "$@" update >"$log" 2>&1 &&
			! grep -q '^[EW]: Failed to fetch' "$log"; then
			rm -f "$log"
			return 0
		fi
		[ "$try" -lt "$tries" ] || break
		echo "apt-get update ($what) failed, try $try of $tries; again in ${pause}s:" >&2
		grep -E '^[EW]: Failed to fetch' "$log" | sed 's/^/  /' >&2
		sleep "$pause"
		pause=$((pause * 2))
	done
	echo "apt-get update ($what) failed $tries times:" >&2
	grep -E '^[EW]: |Mirror sync' "$log" | sed 's/^/  /' >&2
	# for the caller's message: which indexes (suite_apt_update: whose)
	APT_UPDATE_FAILED=$(grep -E '^[EW]: Failed to fetch' "$log")
	rm -f "$log"
	return 1
}

# suite_archs SUITE: the Debian architectures a suite's separate state
# needs: the build machine's (kbuild, the host libraries of the kernel's
# tools) and those of the boards of that suite, nothing else. Fetching
# only these keeps a broken index of an architecture no board uses (seen:
# trixie main armhf mid-sync) from emptying the whole state.
suite_archs() {
	local s=$1 f a archs
	archs=$(dpkg --print-architecture)
	for f in "$RTMON_TOP"/boards/*.board; do
		grep -qx "BOARD_SUITE=$s" "$f" || continue
		a=$(sed -n 's/^BOARD_DEB_ARCH=//p' "$f")
		[ -z "$a" ] || [[ " $archs " == *" $a "* ]] || archs="$archs $a"
	done
	echo "$archs"
}

# suite_boards SUITE [ARCH]: the boards that use the suite (for messages),
# or those of them whose Debian architecture is ARCH.
suite_boards() {
	local f
	for f in $(grep -lx "BOARD_SUITE=$1" "$RTMON_TOP"/boards/*.board 2>/dev/null); do
		[ -z "${2:-}" ] || grep -qx "BOARD_DEB_ARCH=$2" "$f" || continue
		basename "$f" .board
	done | tr '\n' ' ' | sed 's/ $//'
}

# suite_failed_whose SUITE: after a failed apt_update_retry of the suite's
# state, one line per architecture whose index failed, naming the boards
# that need it (the build machine's own is needed by all: kbuild's tools).
suite_failed_whose() {
	local a who
	for a in $(grep -o 'binary-[a-z0-9]*/' <<<"${APT_UPDATE_FAILED:-}" | sort -u | sed 's/^binary-//; s|/$||'); do
		if [ "$a" = "$(dpkg --print-architecture)" ]; then
			who="every board of $1 (the build machine's architecture)"
		else
			who=$(suite_boards "$1" "$a")
		fi
		echo "  the $1 $a index (binary-$a/Packages) failed: needed by ${who:-no board}" >&2
	done
}

# apt_lists_fresh LISTS: an apt lists directory holds indexes refreshed
# within a day, by its stamp .rtmon-updated (touched after a good update):
# the indexes' own mtimes are the mirror's Last-Modified, often a day old
# when fetched, which would ask for an update at every call.
apt_lists_fresh() {
	ls "$1"/*_Packages* >/dev/null 2>&1 &&
		[ -n "$(find "$1" -maxdepth 1 -name .rtmon-updated -mmin -1440 2>/dev/null)" ]
}

# suite_apt_update SUITE [force]: write the suite's sources.list and refresh
# its lists when missing or not refreshed for a day (apt_lists_fresh), or
# when asked to, for the architectures of suite_archs only. One update at
# a time and none while an apt call reads the state (suite_apt): the
# state's flock .rtmon-lock, exclusive here, shared there. When the refresh
# fails (mirror mid-sync, no network) but lists from an earlier refresh exist, those are
# used with a warning: a board whose packages are cached needs no network.
# Such a failure is remembered for an hour (lists/.rtmon-failed), so the
# many apt-cache calls of one build do not each wait through the retries
# again when offline.
# RTMON_SUITE_SOURCE_OPTIONS: the options of the suite's sources line
# (default: signed by Debian's archive keyring); tests/setup/run uses
# trusted=yes for its local unsigned repository.
suite_apt_update() {
	local d
	d=$(suite_apt_dir "$1")
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	# (checked unlocked first: a fresh state need not wait for a download)
	[ "${2:-}" = force ] || ! suite_apt_fresh "$1" || return 0
	(
		flock 9
		suite_apt_update_locked "$@"
	) 9>"$d/.rtmon-lock"
}

# suite_apt_fresh SUITE: the state is for the sources line and the
# architectures of now, refreshed within a day or failed within an hour
suite_apt_fresh() {
	local s=$1 d archs
	d=$(suite_apt_dir "$s")
	[ "$(suite_apt_source "$s")" = "$(cat "$d/sources.list" 2>/dev/null)" ] || return 1
	archs=$(suite_archs "$s")
	if apt_lists_fresh "$d/lists" &&
		[ "$(cat "$d/lists/.rtmon-archs" 2>/dev/null)" = "$archs" ]; then
		return 0
	fi
	[ -n "$(find "$d/lists" -maxdepth 1 -name .rtmon-failed -mmin -60 2>/dev/null)" ] &&
		[ "$(cat "$d/lists/.rtmon-failed")" = "$archs" ]
}

# suite_apt_source SUITE: the state's sources line
suite_apt_source() {
	echo "deb [${RTMON_SUITE_SOURCE_OPTIONS:-signed-by=/usr/share/keyrings/debian-archive-keyring.gpg}] $(debian_mirror) $1 main"
}

suite_apt_update_locked() {
	local s=$1 d archs a opts=()
	d=$(suite_apt_dir "$s")
	suite_apt_source "$s" >"$d/sources.list.new"
	if cmp -s "$d/sources.list.new" "$d/sources.list"; then
		rm -f "$d/sources.list.new"
	else
		mv "$d/sources.list.new" "$d/sources.list"
		rm -f "$d"/lists/*_Packages* "$d/lists/.rtmon-failed" "$d/lists/.rtmon-updated"
	fi
	# (another process may have refreshed it while this one waited)
	[ "${2:-}" = force ] || ! suite_apt_fresh "$s" || return 0
	archs=$(suite_archs "$s")
	echo "apt-get update ($s for $archs, separate state in ${d#"$HOME"/})" >&2
	opts=()
	for a in $archs; do opts+=(-o "APT::Architectures::=$a"); done
	# shellcheck disable=SC2046
	if apt_update_retry "$s" $(suite_apt_opts "$s") "${opts[@]}"; then
		echo "$archs" >"$d/lists/.rtmon-archs"
		rm -f "$d/lists/.rtmon-failed"
		touch "$d/lists/.rtmon-updated"
		return 0
	fi
	suite_failed_whose "$s"
	if ls "$d"/lists/*_Packages* >/dev/null 2>&1; then
		echo "warning: using the $s lists of an earlier update (boards: $(suite_boards "$s")); not trying again for an hour" >&2
		echo "$archs" >"$d/lists/.rtmon-failed"
		return 0
	fi
	die "no $s package lists: the boards $(suite_boards "$s") cannot be resolved; run 'make deps' again later (a mirror mid-sync heals within minutes)"
}

# suite_apt_opts SUITE: apt options selecting the suite's separate state
# (its own binary caches too: apt-cache on it must not rewrite the system's
# /var/cache/apt/pkgcache.bin).
suite_apt_opts() {
	local d
	d=$(suite_apt_dir "$1")
	echo "-o Dir::State::Lists=$d/lists -o Dir::Etc::SourceList=$d/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::Cache=$d/cache"
}

# apt-cache, apt-get: for a board of another suite, every apt call made
# through this library (deb_dep_of, deb_candidate, apt-get download...)
# uses that suite's separate state; for the build machine's own suite they
# are the plain commands.
suite_apt() {
	local cmd=$1
	shift
	if board_other_suite; then
		suite_apt_update "$BOARD_SUITE" 2>&"$RTMON_LIB_STDERR" || exit 1
		# shellcheck disable=SC2046
		(
			flock -s 9
			command "$cmd" $(suite_apt_opts "$BOARD_SUITE") "$@"
		) 9>"$(suite_apt_dir "$BOARD_SUITE")/.rtmon-lock"
	else
		command "$cmd" "$@"
	fi
}
apt-cache() { suite_apt apt-cache "$@"; }
apt-get() { suite_apt apt-get "$@"; }

# patches_apply DIR LOG WHAT PATCH...: apply each patch to the tree in DIR
# (-p1, no fuzz), logged to LOG; a patch that does not apply to WHAT dies
patches_apply() {
	local dir=$1 log=$2 what=$3 p
	shift 3
	for p in "$@"; do
		[ -f "$p" ] || continue
		echo "applying ${p#"$RTMON_TOP"/}" >>"$log"
		if ! patch -d "$dir" -p1 --no-backup-if-mismatch -F0 <"$p" >>"$log" 2>&1; then
			tail -n 5 "$log" >&2
			die "${p#"$RTMON_TOP"/} does not apply to $what (log: $log)"
		fi
	done
}

# glibc_needed ELF: the newest GLIBC_x.y symbol version an executable needs.
glibc_needed() {
	{ objdump -T "$1" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1; } || true
}

# board_suite_headers: KDIR for a board of another suite: a sysroot with the
# suite's headers (flavour + common), its linux-kbuild for the build machine,
# made usable on the build machine:
# - the flavour Makefile includes the common one by absolute /usr/src path:
#   pointed at the sysroot;
# - kbuild's host tools (objtool, modpost, resolve_btfids of trixie's 6.12)
#   need a newer glibc than bookworm's 2.36: run through the suite's own
#   dynamic loader and libraries (libc6, libelf1t64, zlib1g, libzstd1),
#   unpacked into the sysroot;
# - the compiler the kernel was built with (CONFIG_CC_VERSION_TEXT: gcc-14
#   for trixie) is missing on bookworm: .kernelvariables (read by the
#   kernel Makefile) is made to use the newest gcc-N present, and when that
#   is older than 14, to use -falign-functions instead of
#   -fmin-function-alignment (a gcc 14 option). The check of the compiler
#   version is already off in Debian's headers
#   (DEBIAN_KERNEL_NO_CC_VERSION_CHECK). Good enough for x86_64 (ftrace
#   patches a 'call __fentry__' at each function's entry, wherever the
#   function starts), not for arm64 6.12: see board_toolchain_chroot. A
#   board with BOARD_TOOLCHAIN=chroot gets its own sysroot (name ending in
#   +chroot) left as Debian made it: it is only used inside the suite's
#   chroot, where that compiler is installed;
# - vmlinux (BTF only, base for module BTF) is renamed when pahole is
#   missing or older than the kernel's (always for a chroot sysroot: the
#   chroot has no pahole): the module is built without BTF
#   (kbuild says "Skipping BTF generation"), like with the 6.1 headers.
# Prints the headers' directory.
board_suite_headers() {
	local kver hpkg ver deps common kbuild root tmp d kb libs f need host cc prefix v pv
	kver=$(board_kver) || exit 1
	hpkg=linux-headers-$kver
	[ "${BOARD_DEB_ARCH:-}" = "$(dpkg --print-architecture)" ] || hpkg=$hpkg:$BOARD_DEB_ARCH
	ver=$(deb_candidate "$hpkg")
	[ -n "$ver" ] || die "no candidate version for $hpkg in $BOARD_SUITE"
	root=$RTMON_CACHE/sysroot/$BOARD_SUITE-linux-headers-${kver}_$ver
	[ "${BOARD_TOOLCHAIN:-}" != chroot ] || root=$root+chroot
	d=$root/usr/src/linux-headers-$kver
	# a sysroot whose host tools run through the suite's C library but
	# lacks its loader (an interrupted build) is made again
	libs=$root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	if [ -f "$root/.suite-libs" ] && [ ! -e "$libs/ld-linux-x86-64.so.2" ]; then
		echo "board: $root lacks $BOARD_SUITE's C library: made again" >&2
		rm -f "$root/.complete"
	fi
	if [ ! -f "$root/.complete" ]; then
		deps=$(apt-cache depends "$hpkg" 2>/dev/null)
		common=$(echo "$deps" | awk '/Depends: <?linux-headers-.*-common/ {print $2; exit}' | tr -d '<>')
		kbuild=$(echo "$deps" | awk '/Depends: <?linux-kbuild-/ {print $2; exit}' | tr -d '<>')
		common=${common%%:*} kbuild=${kbuild%%:*}
		[ -n "$common" ] && [ -n "$kbuild" ] || die "cannot resolve the dependencies of $hpkg"
		tmp=$root.tmp
		rm -rf "$root" "$tmp"
		deb_fetch "$tmp" "$hpkg=$ver" "$common=$ver" \
			"$kbuild:$(dpkg --print-architecture)=$(deb_candidate "$kbuild:$(dpkg --print-architecture)")"
		sed -i "s|^include /usr/src/|include $root/usr/src/|" "$tmp/usr/src/linux-headers-$kver/Makefile"
		kb=$tmp/usr/lib/$kbuild
		# host tools needing a newer C library than the build machine's
		host=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
		libs=$root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
		for f in $(find "$kb" -type f -perm -u+x); do
			file -b "$f" | grep -q '^ELF' || continue
			need=$(glibc_needed "$f")
			[ -n "$need" ] && [ "$(printf '%s\n%s\n' "$need" "$host" | sort -V | tail -n1)" != "$host" ] || continue
			if [ ! -e "$tmp/.suite-libs" ]; then
				local p specs=()
				for p in libc6 libelf1t64 zlib1g libzstd1; do
					specs+=("$p=$(deb_candidate "$p")")
				done
				deb_fetch "$tmp" "${specs[@]}"
				touch "$tmp/.suite-libs"
			fi
			mv "$f" "$f.bin"
			printf '#!/bin/sh\n# %s needs glibc %s: run it with %s'"'"'s C library\nexec %s --library-path %s "$0.bin" "$@"\n' \
				"${f##*/}" "$need" "$BOARD_SUITE" "$libs/ld-linux-x86-64.so.2" "$libs" >"$f"
			chmod 755 "$f"
		done
		# the compiler
		cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$tmp/usr/src/linux-headers-$kver/.config")
		prefix=${cc%-*} v=${cc##*-}
		if [ "${BOARD_TOOLCHAIN:-}" != chroot ] && ! command -v "$cc" >/dev/null; then
			for v in 14 13 12 11; do
				command -v "$prefix-$v" >/dev/null && break
			done
			command -v "$prefix-$v" >/dev/null || die "no $prefix-N compiler for $kver (kernel built with $cc)"
			{
				echo "# rtmon sysroot: the kernel was built with $cc, not on this machine"
				echo "override CC = $prefix-$v"
				if [ "$v" -lt 14 ] && grep -q '^CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT=y' "$tmp/usr/src/linux-headers-$kver/.config"; then
					echo "# -fmin-function-alignment is new in gcc 14: use -falign-functions"
					echo "override CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT :="
				fi
			} >>"$tmp/usr/src/linux-headers-$kver/.kernelvariables"
		fi
		pv=$(pahole --version 2>/dev/null | tr -dc 0-9 || true)
		[ "${BOARD_TOOLCHAIN:-}" != chroot ] || pv=
		if [ -z "$pv" ] || [ "$pv" -lt "$(sed -n 's/^CONFIG_PAHOLE_VERSION=//p' "$tmp/usr/src/linux-headers-$kver/.config")" ]; then
			mv "$tmp/usr/src/linux-headers-$kver/vmlinux" "$tmp/usr/src/linux-headers-$kver/vmlinux.btf-base" 2>/dev/null || true
		fi
		[ ! -e "$tmp/.suite-libs" ] || [ -e "$tmp/usr/lib/${libs##*/usr/lib/}/ld-linux-x86-64.so.2" ] ||
			die "$BOARD_SUITE's C library did not unpack into $tmp"
		mv "$tmp" "$root"
		touch "$root/.complete"
	fi
	echo "$d"
}

# ---- the kernel's own compiler, in a chroot (BOARD_TOOLCHAIN=chroot) ----
# Debian 13's arm64 6.12 kernels are built with gcc-14 and
# DYNAMIC_FTRACE_WITH_CALL_OPS: each function has two NOPs before its entry
# (-fpatchable-function-entry=4,2) where ftrace stores an 8-byte ops
# pointer, so every function must start 8-byte aligned. gcc 14 guarantees
# that with -fmin-function-alignment=8; bookworm's gcc-12 only has
# -falign-functions=8, which gcc before 14 ignores for functions marked
# cold (gcc bug 88345). __init functions are cold (__init includes __cold;
# the kernel drops __cold for such compilers only when its configuration,
# made with gcc-14 here, says so), so rtmon's module init function comes
# out 4-byte aligned: loading the module WARNs in ftrace_call_adjust
# ("Misaligned patch-site") and BUGs at arch/arm64/kernel/patching.c:44.
# x86_64 has no such layout
# (ftrace patches the 'call __fentry__' at each function's entry, wherever
# the function starts), so the x86_64 6.12 board builds fine with gcc-12.
# trixie's compilers need trixie's C library: a board with
# BOARD_TOOLCHAIN=chroot builds its module in a minimal chroot of its
# BOARD_SUITE in the cache ($RTMON_CACHE/chroot/SUITE-ARCH: debootstrap
# minbase, make, and the compiler the headers name in
# CONFIG_CC_VERSION_TEXT), made once as root (about a minute, 450 MB);
# cross/build-user adds the suite's cross compiler for user space, its C
# library for the board's architecture and pkg-config to the same chroot
# (suite_chroot; cross_chroot in cross/lib-cross.sh); each build then runs in a private mount namespace where the checkout and
# the sysroots are bind-mounted at their own paths (gone when make exits).

# board_cc [KDIR]: the compiler the board's kernel headers (KDIR, default
# board_kdir) were configured with (aarch64-linux-gnu-gcc-14).
board_cc() {
	local kdir=${1:-} cc
	[ -n "$kdir" ] || kdir=$(board_kdir) || exit 1
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$kdir/.config")
	[ -n "$cc" ] || die "no CONFIG_CC_VERSION_TEXT in $kdir/.config"
	echo "$cc"
}

# board_toolchain_chroot [KDIR]: create (once) the chroot of the board's
# suite with the compiler of its kernel; prints the chroot's directory.
board_toolchain_chroot() {
	local cc triplet v pkg root
	cc=$(board_cc "${1:-}") || exit 1
	triplet=${cc%-gcc-*} v=${cc##*-}
	[ "$triplet" != "$cc" ] && [ -n "$v" ] || die "cannot tell the compiler package of '$cc'"
	# Debian: gcc-14 for the native compiler, gcc-14-aarch64-linux-gnu for a cross one
	if [ "$triplet" = "$(dpkg-architecture -qDEB_HOST_MULTIARCH)" ]; then
		pkg=gcc-$v
	else
		pkg=gcc-$v-$triplet
	fi
	root=$(suite_chroot "$pkg") || exit 1
	[ -x "$root/usr/bin/$cc" ] || die "$cc missing in $root after installing $pkg"
	echo "$root"
}

# chroot_missing ROOT PKG...: those of PKG... not installed in the chroot
# (read from its dpkg status: no chroot call, works without root).
chroot_missing() {
	local root=$1
	shift
	awk -v want="$*" '
		BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) need[w[i]] = 1 }
		/^Package: / { p = $2 }
		/^Status: .* installed$/ && (p in need) { delete need[p] }
		END { for (p in need) print p }' "$root/var/lib/dpkg/status" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//'
}

# chroot_mb ROOT: the chroot's size in MB, apt's lists and caches left out
chroot_mb() {
	du -sm --exclude=./var/cache/apt --exclude=./var/lib/apt/lists "$1/." | cut -f1
}

# suite_chroot PKG...: the chroot of the board's suite
# ($RTMON_CACHE/chroot/SUITE-ARCH), made once (debootstrap minbase with make
# and PKG...), PKG... installed into it when missing (a chroot made for
# another use gets them added: the module's compiler, then the user space's
# cross compiler, C library and pkg-config); prints its directory. Making or
# adding to it needs root; it says what it fetches and how long it took.
suite_chroot() {
	local arch root lk log missing t0 inc
	arch=$(dpkg --print-architecture)
	root=$RTMON_CACHE/chroot/$BOARD_SUITE-$arch
	log=$root.log
	if [ -f "$root/.complete" ] && [ -z "$(chroot_missing "$root" "$@")" ]; then
		echo "$root"
		return
	fi
	[ "$(id -u)" = 0 ] || die "$BOARD_NAME: the $BOARD_SUITE chroot with $* is missing; making it needs root (run 'make deps' as root)"
	command -v debootstrap >/dev/null || die "debootstrap not installed (run 'make deps')"
	mkdir -p "$RTMON_CACHE/chroot"
	# one creator at a time; the others wait, then find it complete
	exec {lk}>"$root.lock"
	flock "$lk"
	if [ ! -f "$root/.complete" ]; then
		t0=$SECONDS
		inc=$(IFS=,; echo "make,$*")
		echo "making a $BOARD_SUITE chroot with $* for $BOARD_NAME in ${root/#$HOME/\~} (log: ${log/#$HOME/\~})" >&2
		rm -rf "$root" "$root.tmp"
		debootstrap --variant=minbase --arch="$arch" --include="$inc" \
			"$BOARD_SUITE" "$root.tmp" "$(debian_mirror)" >"$log" 2>&1 || {
			tail -n 5 "$log" >&2
			die "debootstrap of $BOARD_SUITE failed (log: $log)"
		}
		mv "$root.tmp" "$root"
		touch "$root/.complete"
		echo "made the $BOARD_SUITE chroot in $((SECONDS - t0)) s ($(du -sm "$root" | cut -f1) MB)" >&2
	fi
	missing=$(chroot_missing "$root" "$@")
	if [ -n "$missing" ]; then
		# the chroot exists, made for another use
		t0=$SECONDS
		local before
		before=$(chroot_mb "$root")
		echo "installing $missing in the $BOARD_SUITE chroot ${root/#$HOME/\~} for $BOARD_NAME (log: ${log/#$HOME/\~})" >&2
		# shellcheck disable=SC2086
		{ chroot "$root" apt-get update -qq && chroot "$root" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends $missing; } >>"$log" 2>&1 || {
			tail -n 5 "$log" >&2
			die "apt-get install $missing in the $BOARD_SUITE chroot failed (log: $log)"
		}
		chroot "$root" apt-get clean >>"$log" 2>&1 || true
		echo "installed $missing in $((SECONDS - t0)) s (chroot $before -> $(chroot_mb "$root") MB, apt's lists and caches left out)" >&2
	fi
	exec {lk}>&-
	missing=$(chroot_missing "$root" "$@")
	[ -z "$missing" ] || die "$missing still missing in $root after installing"
	echo "$root"
}

# chroot_run ROOT COMMAND...: run COMMAND in the chroot with the checkout
# and the cache's sysroots (kernel headers: sysroot/; user-space libraries:
# userland/) bind-mounted at their own paths, in a private mount namespace
# (the mounts vanish with the command).
chroot_run() {
	local root=$1 top sys usr
	shift
	top=$(cd "$RTMON_TOP" && pwd)
	mkdir -p "$RTMON_CACHE/sysroot" "$RTMON_CACHE/userland"
	sys=$(cd "$RTMON_CACHE/sysroot" && pwd)
	usr=$(cd "$RTMON_CACHE/userland" && pwd)
	unshare -m --propagation private -- /bin/sh -c '
		root=$1 top=$2 sys=$3 usr=$4
		shift 4
		for d in "$top" "$sys" "$usr"; do
			mkdir -p "$root$d" && mount --bind "$d" "$root$d" || exit 125
		done
		exec chroot "$root" "$@"' sh "$root" "$top" "$sys" "$usr" "$@"
}

# board_make MAKE-ARGS...: make with the board's toolchain: the build
# machine's, or (BOARD_TOOLCHAIN=chroot) inside its suite's chroot
# (BOARD_CHROOT when the caller has it from board_toolchain_chroot). Paths
# in the arguments must be in the checkout or in the cache's sysroots.
board_make() {
	if [ "${BOARD_TOOLCHAIN:-}" = chroot ]; then
		local root=${BOARD_CHROOT:-}
		[ -n "$root" ] || root=$(board_toolchain_chroot) || return 1
		chroot_run "$root" make "$@"
	else
		make "$@"
	fi
}

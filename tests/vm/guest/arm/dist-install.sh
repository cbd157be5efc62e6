# The package of cross/dist.sh on the board it was built for: install.sh
# (under busybox sh) installs the module, the tools and rtmond (whose
# libraries the image has, as installed Debian packages; on a board of
# another suite, RTMON_RTMOND_LIBS=n: it refuses rtmond naming them, and
# installs the rest with --no-rtmond), modprobe loads it by name, rtmonctl
# from /usr/local/bin talks to it; install.sh refuses the same module for
# another kernel release.
# timeout: 90
. "$RTMON_TOP/tests/vm/guest/arm/lib.sh"

[ -n "${RTMON_DIST:-}" ] && [ -f "$RTMON_DIST" ] || fail "RTMON_DIST (the tarball of cross/dist.sh) not given"
rtmon_loaded && fail "rtmon loaded before the test"
cd /tmp
tar xzf "$RTMON_DIST"
d=$(basename "$RTMON_DIST" .tar.gz)
RTMON_KERNEL_RELEASE=0.0.0-other sh "$d/install.sh" --no-load >"$T/refused" 2>&1 &&
	fail "install.sh accepted the module for another kernel"
grep -q "refusing to install" "$T/refused" || fail "no clear refusal: $(cat "$T/refused")"
[ ! -e "/lib/modules/$(uname -r)/extra/rtmon.ko" ] || fail "the refused install left a module"
if [ "${RTMON_RTMOND_LIBS:-y}" = n ]; then
	# the image (a board of another Debian suite) lacks rtmond's libraries:
	# install.sh refuses rtmond, naming them, then installs without it
	rc=0
	sh "$d/install.sh" >"$T/no-libs" 2>&1 || rc=$?
	[ $rc = 4 ] && grep -q "rtmond needs shared libraries missing" "$T/no-libs" ||
		fail "install.sh without rtmond's libraries: exit $rc: $(cat "$T/no-libs")"
	rtmon_loaded && fail "the refused install loaded rtmon"
	note "install.sh refused rtmond: $(grep -c '(package ' "$T/no-libs") libraries missing"
	sh "$d/install.sh" --no-rtmond || fail "install.sh --no-rtmond failed"
	[ ! -e /usr/local/sbin/rtmond ] || fail "--no-rtmond installed rtmond"
else
	# rtmond's libraries are in the image: installed, and install.sh ran
	# rtmond --check on the shipped configuration
	sh "$d/install.sh" || fail "install.sh failed"
	[ -x /usr/local/sbin/rtmond ] || fail "rtmond not installed in /usr/local/sbin"
	/usr/local/sbin/rtmond --check -c /etc/rtmon/rtmon.conf || fail "the installed rtmond refuses /etc/rtmon/rtmon.conf"
fi
rtmon_loaded || fail "install.sh did not load rtmon"
[ -f "/lib/modules/$(uname -r)/extra/rtmon.ko" ] || fail "module not in /lib/modules/$(uname -r)/extra"
/usr/local/bin/rtmonctl status | head -n 3
/usr/local/bin/rtmonctl targets add --name ct --comm cyclictest --timer || fail "rtmonctl targets add"
cyclictest -q -m -p 80 -t 1 -i 5000 -l 50 >/dev/null
n=$(/usr/local/bin/rtmonctl records --json -t 1 | grep -c '"comm":"cyclictest"' || true)
[ "$n" -ge 40 ] || fail "only $n records from the installed tools"
modprobe -r rtmon || rmmod rtmon || fail "cannot unload the installed module"
rtmon_loaded && fail "rtmon still loaded"
echo "dist-install: ok ($n records)"

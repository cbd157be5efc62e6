#!/bin/sh
# librtmon ignores $RTMON_UST_PROVIDER in a privileged program (AT_SECURE:
# setuid here, file capabilities alike), and loads it in a plain one.
#   test_secure_env.sh APP PROVIDER.so
set -u
d=$(mktemp -d /tmp/rtmon-secure.XXXXXX)
trap 'rm -rf "$d"' EXIT
chmod 755 "$d"
cp "$1" "$d/app"
cp "$2" "$d/provider.so"
mkdir "$d/out"
chmod 777 "$d/out"
RTMON_UST_PROVIDER=$d/provider.so SECURE_ENV_MARK=$d/out/plain "$d/app" >/dev/null
if [ ! -e "$d/out/plain" ]; then
	echo "FAIL: librtmon/secure-env: a plain program did not load \$RTMON_UST_PROVIDER (the test cannot tell)"
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "FAIL: librtmon/secure-env: needs root to make the program setuid"
	exit 1
fi
chown root "$d/app" && chmod 4755 "$d/app"
setpriv --reuid=65534 --regid=65534 --clear-groups \
	env RTMON_UST_PROVIDER="$d/provider.so" SECURE_ENV_MARK="$d/out/secure" "$d/app" >/dev/null
if [ -e "$d/out/secure" ]; then
	echo "FAIL: librtmon/secure-env: a setuid program run by nobody loaded the library \$RTMON_UST_PROVIDER named"
	exit 1
fi
echo "PASS: librtmon/secure-env (\$RTMON_UST_PROVIDER loaded by a plain program, ignored by a setuid one run by nobody)"

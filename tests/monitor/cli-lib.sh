# shellcheck shell=bash
# cli-lib.sh: what test_cli.sh and test_rtmonctl.sh share. Sourced after
# setting prefix, the first part of the PASS:/FAIL: names.
# shellcheck disable=SC2154 # prefix: the caller's
fails=0
pass() { echo "PASS: $prefix/$1"; }
fail() { echo "FAIL: $prefix/$1: $2"; fails=$((fails + 1)); }

# run NAME WANT-STATUS WANT-MESSAGE CMD...: exit status and stderr of a failing command
run() {
	local name=$1 want=$2 msg=$3 rc=0
	shift 3
	"$@" >out.txt 2>err.txt || rc=$?
	if [ $rc -ne "$want" ]; then
		fail "$name" "exit $rc (want $want): $(head -c 300 err.txt)"
	elif ! grep -qF -- "$msg" err.txt; then
		fail "$name" "message '$(head -c 300 err.txt)' lacks '$msg'"
	else
		pass "$name (exit $want: $(head -n 1 err.txt | cut -c1-110))"
	fi
}

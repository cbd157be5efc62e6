# chain-timers.sh on a boot under instruction counting (run-vm --icount, one
# vCPU: tests/run-all's second boot of each x86 board), where the guest's
# clock advances one nanosecond per guest instruction: the median
# clock-read gap (switch-in to the program's clock read) is then the
# instructions between them, whatever the host's load, and is asserted
# (under 100 us) with everything chain-timers.sh asserts.
# timeout: 400
# shellcheck shell=bash source-path=SCRIPTDIR
if [ "${RTMON_VM_ICOUNT:-}" != 1 ]; then
	echo "FAIL: needs a boot under instruction counting (tests/vm/run-vm --icount)"
	exit 1
fi
# shellcheck source=chain-timers.sh disable=SC2153 # RTMON_TOP: set by run-vm
. "$RTMON_TOP/tests/vm/guest/chain-timers.sh"

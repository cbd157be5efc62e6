# Replay equals module to 1 us (issue 15): replay-module.sh on a boot under
# instruction counting (run-vm --icount: tests/run-all boots each x86 board
# once more for it), where the guest's clock advances one nanosecond per
# guest instruction, so the distance between the tracer's clock read and
# rtmon's on one tracepoint is the instructions between them, not the
# host's scheduling of the vCPU. Asserts what replay-module.sh does, and
# the latencies of >= 99% of the joined chains within 1 us.
# timeout: 400
# shellcheck shell=bash source-path=SCRIPTDIR
if [ "${RTMON_VM_ICOUNT:-}" != 1 ]; then
	echo "FAIL: needs a boot under instruction counting (tests/vm/run-vm --icount)"
	exit 1
fi
REPLAY_EXACT=1
# shellcheck source=replay-module.sh disable=SC2153 # RTMON_TOP: set by run-vm
. "$RTMON_TOP/tests/vm/guest/replay-module.sh"

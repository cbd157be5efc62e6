# Timer kinds (issue 14) on this kernel: the module tells the hrtimer
# callbacks apart (sleeper, timerfd, POSIX/itimer, and timerlat where the
# kernel has the timerlat tracer: found by name through kallsyms); the
# target ioctl refuses unknown kinds, kinds with an IRQ source and a nonzero
# pad (EINVAL); and no chain is started by the periodic tick or any timer
# that wakes no task a target wants: with a target of every kind but
# sleepers (whose chains start at the expiry: the one sleep below has one)
# for a task that never runs, two seconds of an idle system start no chain.
# timeout: 120
. "$RTMON_TOP/tests/vm/guest/lib.sh"

rtmon_load
kinds=$(sed -n 's/^timer kinds told apart: //p' /proc/rtmon/status)
note "timer kinds told apart: $kinds"
want="sleeper timerfd posix"
grep -qw timerlat /sys/kernel/tracing/available_tracers 2>/dev/null &&
	want="$want timerlat"
[ "$kinds" = "$want" ] || fail "timer kinds told apart: '$kinds', expected '$want'"

# the ioctl, as a program that bypasses rtmonctl's own checks would call it
python3 - <<'PY' || fail "RTMON_IOC_TARGET_ADD took a bad timer kind"
import errno, fcntl, os, struct
# struct rtmon_target (kmod/uapi/rtmon.h): size id flags end src irq,
# irq_name[32] comm[16] pid tgid deadline name[32] timers pad reserved[3]
FMT = "<6I32s16sIIQ32sII3Q"
size = struct.calcsize(FMT)
assert size == 152, size
IOC_ADD = (3 << 30) | (size << 16) | (0xB7 << 8) | 0x01
IOC_DEL = (1 << 30) | (4 << 16) | (0xB7 << 8) | 0x02
SRC_ANY, SRC_TIMER, SRC_IRQ_ANY = 0, 2, 3
fd = os.open("/dev/rtmon", os.O_RDWR)

def add(src, timers, pad=0):
    buf = bytearray(struct.pack(FMT, size, 0, 0, 0, src, 0xFFFFFFFF, b"", b"kinds",
                                0, 0, 0, b"kinds", timers, pad, 0, 0, 0))
    try:
        fcntl.ioctl(fd, IOC_ADD, buf)
    except OSError as e:
        return e.errno
    fcntl.ioctl(fd, IOC_DEL, struct.pack("<I", struct.unpack_from("<I", buf, 4)[0]))
    return 0

cases = [("every kind", SRC_TIMER, 0, 0, 0),
         ("timerfd and posix", SRC_TIMER, (1 << 2) | (1 << 3), 0, 0),
         ("any source, other", SRC_ANY, 1 << 5, 0, 0),
         ("bit 0 (no kind)", SRC_TIMER, 1, 0, errno.EINVAL),
         ("bit 6 (unknown kind)", SRC_TIMER, 1 << 6, 0, errno.EINVAL),
         ("kinds with any_irq", SRC_IRQ_ANY, 1 << 2, 0, errno.EINVAL),
         ("pad not zero", SRC_TIMER, 0, 1, errno.EINVAL)]
bad = 0
for name, src, timers, pad, want in cases:
    got = add(src, timers, pad)
    print(f"  target add, {name}: {errno.errorcode.get(got, 'ok') if got else 'ok'}")
    if got != want:
        print(f"    expected {errno.errorcode.get(want, 'ok') if want else 'ok'}")
        bad += 1
raise SystemExit(bad)
PY

# no chain per tick: every lazy timer kind wanted, for a task that never runs
$RTMONCTL targets add --name nobody --comm no-such-task --timer=timerfd,posix,timerlat,other \
	--deadline 1ms >/dev/null
before=$(status_count "  chains started" started)
ticks_before=$(awk '/^LOC:/ { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }' /proc/interrupts)
sleep 2
after=$(status_count "  chains started" started)
ticks_after=$(awk '/^LOC:/ { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }' /proc/interrupts)
hits=$(awk '$1 == "hrtimer_expire_entry" { print $4 }' /proc/rtmon/status)
note "2 s idle with a target of every timer kind but sleepers: $((ticks_after - ticks_before)) local timer interrupts, chains started $before -> $after (hrtimer_expire_entry hits so far: ${hits:-?})"
[ $((ticks_after - ticks_before)) -gt 0 ] || fail "no local timer interrupt in 2 s: the check proves nothing"
[ "$after" = "$before" ] || fail "chains started while only the tick and idle timers ran: $before -> $after"
echo "timer-kinds: ok"

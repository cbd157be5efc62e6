# Adding targets by IRQ name while IRQ descriptors come and go (issue 22,
# item 9): the name lookup walks every descriptor, and one being freed
# (its memory released after an RCU grace period) must not be touched
# outside an RCU read-side section. For 15 s the simulated GPIO chip goes
# live and offline in a loop (configfs; each time gpiomon requests a
# line's IRQ, named "gpiomon", and the offline chip frees the
# descriptor), while a python loop adds and deletes a target by the name
# "gpiomon" as fast as it can: every add succeeds or fails with ENOENT
# (no such IRQ now), both are seen, and the kernel reports nothing (the
# harness fails on an oops, BUG, WARNING or KASAN report). A stress test:
# Debian's kernels have no KASAN, so a use after free of the old lookup
# would only show on a debug kernel (issue 17).
# timeout: 120
. "$RTMON_TOP/tests/vm/guest/lib.sh"

SIM=$RTMON_TOP/tests/gpio/sim
DEV=/sys/kernel/config/gpio-sim/rtmon-loop
W=/tmp/irq-name-race	# guest-local: share writes raise virtio interrupts
mkdir -p $W
mon=
adder=
cleanup() {
	set +e	# a process already gone must not stop the clean-up
	[ -n "$mon" ] && kill $mon 2>/dev/null
	[ -n "$adder" ] && kill $adder 2>/dev/null
	wait 2>/dev/null
	"$SIM/sim-setup.sh" --remove >/dev/null 2>&1 || true
	cp -r $W/. "$T"/ 2>/dev/null || true
	rtmon_cleanup
}
trap cleanup EXIT

"$SIM/sim-setup.sh" >/dev/null || fail "sim-setup.sh failed"
rtmon_load
# the adder: TARGET_ADD by name, TARGET_DEL on success, until the stop file
python3 - $W <<'PY' >$W/adder.txt 2>&1 &
import errno, fcntl, os, struct, sys
w = sys.argv[1]
ADD = (3 << 30) | (152 << 16) | (0xb7 << 8) | 0x01	# _IOWR(0xb7, 1, rtmon_target)
DEL = (1 << 30) | (4 << 16) | (0xb7 << 8) | 0x02	# _IOW(0xb7, 2, __u32)
SRC_IRQ = 1
t = bytearray(struct.pack("<6I32s16s2IQ32s2I3Q", 152, 0, 0, 0, SRC_IRQ, 0xffffffff,
                          b"gpiomon", b"", 0, 0, 0, b"by-name", 0, 0, 0, 0, 0))
fd = os.open("/dev/rtmon", os.O_RDWR)
n = {"ok": 0}
open(w + "/adder.ready", "w").close()
while not os.path.exists(w + "/stop"):
    a = bytearray(t)
    try:
        fcntl.ioctl(fd, ADD, a)
    except OSError as e:
        n[errno.errorcode[e.errno]] = n.get(errno.errorcode[e.errno], 0) + 1
        continue
    n["ok"] += 1
    fcntl.ioctl(fd, DEL, struct.pack("I", struct.unpack_from("<I", a, 4)[0]))
print(" ".join(f"{k} {v}" for k, v in sorted(n.items())))
PY
adder=$!
for ((i = 0; i < 100; i++)); do [ -e $W/adder.ready ] && break; sleep 0.1; done
[ -e $W/adder.ready ] || fail "the adder did not start: $(cat $W/adder.txt)"

cycles=0 requested=0
end=$((SECONDS + 15))
# on a slow debug kernel (the board's timeout scale) the cycles go on past
# 15 s until the IRQ was requested 5 times: 4 cycles in 15 s were seen there
cap=$((SECONDS + 15 * ${RTMON_TIMEOUT_SCALE:-1}))
while [ $SECONDS -lt $end ] || { [ "$requested" -lt 5 ] && [ $SECONDS -lt $cap ]; }; do
	[ "$(cat $DEV/live)" = 1 ] || echo 1 >$DEV/live || fail "cannot make the chip live: $(dmesg | tail -n 2)"
	chip=$(cat $DEV/bank0/chip_name) || fail "no chip name"
	gpiomon "$chip" 1 >/dev/null 2>&1 &
	mon=$!
	for ((i = 0; i < 50; i++)); do
		grep -q ' gpiomon$' /proc/interrupts && { requested=$((requested + 1)); break; }
		sleep 0.02
	done
	kill $mon
	wait $mon 2>/dev/null || true
	mon=
	echo 0 >$DEV/live || fail "cannot take the chip offline: $(dmesg | tail -n 2)"
	cycles=$((cycles + 1))
done
touch $W/stop
wait $adder || fail "the adder failed: $(tail -n 3 $W/adder.txt)"
adder=
res=$(tail -n 1 $W/adder.txt)
note "$cycles live/offline cycles, the IRQ requested in $requested; adds: $res"
[ "$requested" -ge 5 ] || fail "gpiomon's IRQ was requested in only $requested of $cycles cycles"
awk '{ for (i = 1; i < NF; i += 2) if ($i != "ok" && $i != "ENOENT") exit 1 }' <<<"$res" ||
	fail "a target add by name failed otherwise than ENOENT: $res"
awk '{ for (i = 1; i < NF; i += 2) n[$i] = $(i + 1) } END { exit !(n["ok"] > 0 && n["ENOENT"] > 0) }' <<<"$res" ||
	fail "not both outcomes (added, ENOENT) seen: $res"
echo "irq-name-race: ok"

# Records a real trace-cmd .dat of network receive (the test NIC, 1000
# UDP datagrams at 1 kHz to udp_responder, SCHED_FIFO 60 on cpu 1) for
# rtmon-replay's fixtures (tests/core/data/tracecmd-net-*): the binary
# .dat, its `trace-cmd report` text, the responder's own lines and the
# receive IRQ's number. Not in suite.list: run by hand, e.g.
#   tests/vm/run-vm --board qemu-x86_64 --run-dir /tmp/rv-net \
#     -e RTMON_KO=$PWD/build/kmod/KVER/rtmon.ko tests/vm/guest/record-net.sh
# then copy /tmp/rv-net/share/record-net.d/net.{dat,txt,resp,irq} into
# tests/core/data. The module is not loaded: the recording is of the
# kernel's own events.
# timeout: 300
. "$RTMON_TOP/tests/vm/guest/common.sh"
. "$RTMON_TOP/tests/vm/guest/net-lib.sh"

RESP=$RTMON_TOP/build/apps/udp_responder
[ -x "$RESP" ] || fail "udp_responder not built (make -C tests/apps)"
n=${RECORD_DATAGRAMS:-1000}
export -f feed fail
cd "$T"
rm -f net.dat net.txt net.resp
echo "$irq" >net.irq
chrt -f 60 taskset -c 1 "$RESP" 5001 "$n" 10000 >net.resp 2>resp.err &
resp=$!
for ((i = 0; i < 100; i++)); do grep -q "^# ready" net.resp 2>/dev/null && break; sleep 0.1; done
grep -q "^# ready" net.resp || fail "udp_responder did not start: $(cat resp.err)"
trace-cmd record -q -C mono -e sched:sched_switch -e sched:sched_waking -e irq \
	-e timer:hrtimer_start -e timer:hrtimer_expire_entry \
	-e timer:hrtimer_expire_exit -e net:netif_receive_skb -o "$T/net.dat" \
	-- bash -c "feed $n 1000 1 0 0" \
	>tc.out 2>&1 || fail "trace-cmd record failed: $(tail -n 5 tc.out)"
wait $resp || fail "udp_responder: exit status $?: $(tail -n 2 net.resp)"
trace-cmd report -i net.dat >net.txt || fail "trace-cmd report failed"
note "$(uname -r), $(trace-cmd --version 2>&1 | head -n 1 || true)"
note "net.dat $(stat -c %s net.dat) bytes, net.txt $(wc -l <net.txt) lines, receive IRQ $irq"
note "datagrams the responder slept for: $(awk '!/^#/ && $2 == 1' net.resp | wc -l) of $n"

# shellcheck shell=bash
# Helpers of the network receive tests (net-receive, record-net; sourced
# after common.sh): the test NIC run-vm gives the x86 guests (virtio-net,
# frames from tests/vm/net-feed on the host) set up as 10.0.3.2/24, its
# receive IRQ in $irq; feed asks the host for datagrams.
MAC=52:54:00:72:74:6d

# feed COUNT INTERVAL_US BURST GAP_US FIRST: the host sends, this waits
feed() {
	local i
	rm -f "$RTMON_SHARE/net-feed.done"
	echo "$*" >"$RTMON_SHARE/net-feed.req.tmp"
	mv "$RTMON_SHARE/net-feed.req.tmp" "$RTMON_SHARE/net-feed.req"
	for ((i = 0; i < 600; i++)); do
		[ -s "$RTMON_SHARE/net-feed.done" ] && break
		sleep 0.1
	done
	grep -q "^sent $1\$" "$RTMON_SHARE/net-feed.done" 2>/dev/null ||
		fail "the host's feeder: $(cat "$RTMON_SHARE/net-feed.done" 2>/dev/null || echo 'no answer in 60 s')"
}

nic() {
	local d
	for d in /sys/class/net/*; do
		[ "$(cat $d/address 2>/dev/null)" = $MAC ] && { basename $d; return; }
	done
	return 0
}
dev=$(nic)
if [ -z "$dev" ]; then
	modprobe virtio_net || fail "modprobe virtio_net failed"
	for ((i = 0; i < 50; i++)); do dev=$(nic); [ -n "$dev" ] && break; sleep 0.1; done
fi
[ -n "$dev" ] || fail "no NIC with address $MAC (run-vm's test NIC)"
sysctl -qw net.ipv6.conf.$dev.disable_ipv6=1 || true
ip addr add 10.0.3.2/24 dev $dev && ip link set $dev up || fail "cannot set up $dev"
virtio=$(basename "$(readlink -f /sys/class/net/$dev/device)")
irq=$(awk -v n="$virtio-input.0" '$NF == n { sub(":", "", $1); print $1 }' /proc/interrupts)
[ -n "$irq" ] || fail "no receive IRQ $virtio-input.0 in /proc/interrupts: $(grep virtio /proc/interrupts)"
note "$dev ($virtio): receive IRQ $irq"


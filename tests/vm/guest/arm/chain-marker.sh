# Markers on an ARM board: interrupt -> (IRQ thread) -> feeder -> dispatcher
# (rtmon_work_begin) -> worker (rtmon_work_end), with tests/apps/dispatch_test
# reading a file of the 9p share (each read is answered by the virtio
# device's interrupt). Every 10th item the worker spins past the deadline.
# Checks: records are joined with the items by cookie (record version 2):
# no item has two; an item without one must be a loss the module counted
# (drops, irq_coalesced, irq_nowake, work_untraced: see chain-dispatch.sh
# and kmod/core/README.md), and every record ends at the worker's work_end
# with the dispatcher's work_begin on the path; slow items are deadline
# misses. The target takes any source: an item whose device answer comes
# before the feeder sleeps on it continues the feeder's chain from its
# sleeper timer (see tests/vm/guest/chain-dispatch.sh). Under emulation a slow item's chain can
# outgrow its hop storage (flag dropped_hops): its last hops may then be
# missing, so it need not end with work_end (at most 10% of the items).
# timeout: 240
. "$RTMON_TOP/tests/vm/guest/arm/lib.sh"

items=${ITEMS:-100}
deadline_us=5000
rtmon_load
$RTMONCTL targets add --name dispatch --comm dispatch_test --end work_end \
	--deadline ${deadline_us}us
echo "some data for the feeder" >/rtmon-share/feed
# the module's counted losses of chains (drops, interrupts coalesced into
# their thread's pass or whose thread wakeup never came, work begun with no
# traced trigger), from /proc/rtmon/status
counted_losses() {
	# (the drop cause hops loses hops of a record, not chains)
	awk '/^  drops / { for (i = 3; i <= NF; i += 2) if ($(i - 1) != "hops") s += $i }
	     /^  irq threads / { s += $6 + $8 }
	     /^  work untraced / { s += $3 }
	     END { print s + 0 }' /proc/rtmon/status
}
lost0=$(counted_losses)
$RTMONCTL records --json -t 8 >"$T/records.json" &
reader=$!
"$RTMON_BIN/dispatch_test" -f /rtmon-share/feed -n "$items" -p 4000 -w 50 -s 10 -S 20000 \
	>"$T/items.json" || fail "dispatch_test failed"
wait $reader || fail "the record reader failed"
counted=$(($(counted_losses) - lost0))
sed -n '1,/^probes/p' /proc/rtmon/status

n=$(wc -l <"$T/items.json")
[ "$n" -eq "$items" ] || fail "dispatch_test printed $n items, expected $items"
# items: worker dispatcher slow t_end cookie
paste -d' ' <(json_field worker <"$T/items.json") <(json_field dispatcher <"$T/items.json") \
	<(json_field slow <"$T/items.json") <(json_field t_end <"$T/items.json") \
	<(json_field cookie <"$T/items.json") >"$T/items"
# completion records (no timeout flag): pid end miss last-hop begin-pids
# dropped-hops (a chain whose hop storage overflowed: its last hops, the
# end included, may be missing; the record's pid and end time still hold)
without_flag timeout <"$T/records.json" >"$T/done.json"
paste -d' ' <(json_field pid <"$T/done.json") <(json_field end_ns <"$T/done.json") \
	<(json_field miss <"$T/done.json") <(last_hop_event <"$T/done.json") \
	<(awk '{ s = ""; n = split($0, a, "\"event\":\"work_begin\",\"cpu\":[0-9]+,\"pid\":");
		for (i = 2; i <= n; i++) { p = a[i]; sub(/[^0-9].*/, "", p); s = s p "," } print (s ? s : "-") }' \
		"$T/done.json") \
	<(has_flag dropped_hops <"$T/done.json" | awk '{ print ($1 ? "dropped" : "-") }') \
	<(awk '{ c = "-"; if (match($0, /"cookie":[0-9]+/)) c = substr($0, RSTART + 9, RLENGTH - 9); print c }' \
		"$T/done.json") >"$T/done"
done_n=$(wc -l <"$T/done")
ends=$(awk '$4 == "work_end"' "$T/done" | wc -l)
dropped=$(awk '$6 == "dropped"' "$T/done" | wc -l)
note "$items items; $done_n completion records, $ends ending at work_end, $dropped with dropped hops"
bad=$(awk '$4 != "work_end" && $6 != "dropped"' "$T/done" | head -n 2)
[ -z "$bad" ] || fail "completion records that do not end at work_end: $bad"
[ "$dropped" -le $((items / 10)) ] || fail "$dropped records with dropped hops for $items items"
# join by cookie: the record that ended the item's work
awk -v items="$items" -v counted="$counted" -v dropped="$dropped" '
	FNR == NR { w[FNR] = $1; d[FNR] = $2; slow[FNR] = $3; te[FNR] = $4; ck[FNR] = $5; ni = FNR; next }
	{ if ($7 == "-") { nock++; next }
	  if ($7 in byc) { printf "cookie %s: two records\n", $7; exit 1 }
	  byc[$7] = FNR; rp[FNR] = $1; re[FNR] = $2; rm[FNR] = $3; rb[FNR] = $5 }
	END {
		if (nock) { printf "%d work_end records without a cookie\n", nock; exit 1 }
		for (i = 1; i <= ni; i++) {
			if (!(ck[i] in byc)) { if (lost++ < 5) printf "item %s: no record\n", ck[i]; continue }
			j = byc[ck[i]]; found++
			if (rp[j] != w[i] || re[j] < te[i]) { printf "item %s: record of pid %s ending %s, worker %s ended %s\n", ck[i], rp[j], re[j], w[i], te[i]; exit 1 }
			if (index("," rb[j], "," d[i] ",")) matched++
			else if (nobegin++ < 3) printf "item %s: no work_begin by dispatcher %d (%s)\n", ck[i], d[i], rb[j]
			if (slow[i] == "true") { nslow++; if (rm[j] == "true") smiss++ }
			else if (rm[j] == "true") fmiss++
		}
		printf "matched %d/%d by cookie; %d without a record, %d losses counted by the module; slow items missed %d/%d, others missed %d\n", matched, ni, ni - found, counted, smiss, nslow, fmiss
		if (ni - found > counted) { printf "%d items without a record, only %d losses counted\n", ni - found, counted; exit 1 }
		if (matched + dropped < found) { print "records without the dispatcher'"'"'s work_begin"; exit 1 }
		if (smiss < nslow) { print "slow items without a miss record"; exit 1 }
	}' "$T/items" "$T/done" || fail "records do not match the items"
rtmon_unload
echo "chain-marker: ok"

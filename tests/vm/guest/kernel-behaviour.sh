# The kernel behaviour rtmon's chain tracking relies on, pinned down on each
# kernel from an ftrace of the kernel's own events (no rtmon loaded):
# - PREEMPT_RT, threaded IRQ: the IRQ thread is woken in hard IRQ context
#   after irq_handler_exit of its IRQ (__irq_wake_thread when the handler
#   returned IRQ_WAKE_THREAD), never between entry and exit; the thread then
#   switches in and wakes the waiting task from task context;
# - mainline: the device's waiter is woken between irq_handler_entry and
#   irq_handler_exit of the same IRQ, or from a softirq;
# - an RT task's sleeper hrtimer (cyclictest -p 80) expires in hard IRQ
#   context, and hrtimer_wakeup's sched_waking of the sleeper comes between
#   hrtimer_expire_entry and hrtimer_expire_exit;
# - a SCHED_OTHER task's sleeper: on PREEMPT_RT it expires in the timer
#   softirq (soft expiry), run by a kernel thread whose name this test
#   records (6.1-rt and 6.12-rt: ktimers/N); on mainline in hard IRQ
#   context;
# - sched_switch's prev_state: a sleeping task leaves with S (it blocked),
#   so rtmon_switch_blocked() sees a sleeping state there;
# - the ftrace text rtmon-replay reads: 7 flag columns on the 6.1 RT patch
#   set, 5 on mainline and on 6.12-rt.
# Also seen (counted, not asserted): on RT the IRQ thread is often woken a
# second time from task context, when it blocked on a sleeping spinlock held
# by a task (lock hand-over), so an IRQ thread's wakeup is not always the
# IRQ's.
# timeout: 120
. "$RTMON_TOP/tests/vm/guest/lib.sh"

tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs tracefs $tr
echo 0 >$tr/tracing_on
echo >$tr/trace
echo 8192 >$tr/buffer_size_kb
for e in irq/irq_handler_entry irq/irq_handler_exit irq/softirq_raise irq/softirq_entry \
	irq/softirq_exit timer/hrtimer_expire_entry timer/hrtimer_expire_exit \
	sched/sched_waking sched/sched_switch; do
	echo 1 >$tr/events/$e/enable
done
echo 1 >$tr/tracing_on

# RT sleeper: cyclictest at SCHED_FIFO 80
cyclictest -q -m -p 80 -t 1 -i 2000 -l 300 >$T/ct-rt.out 2>&1 &
ct1=$!
# SCHED_OTHER sleeper: cyclictest's measurement thread at --policy=other
# (-p 0 alone gives SCHED_FIFO, ftrace prio 97), besides both main threads
cyclictest -q -m --policy=other -t 1 -i 3000 -l 200 >$T/ct-other.out 2>&1 &
ct2=$!
# device interrupts: reads over the 9p share (virtio), each answered by an IRQ
for i in $(seq 1 100); do
	echo "$i" >/rtmon-share/kb-feed
	cat /rtmon-share/kb-feed >/dev/null
done
wait $ct1 || fail "cyclictest -p 80 failed: $(tail -n 2 $T/ct-rt.out)"
wait $ct2 || fail "cyclictest --policy=other failed: $(tail -n 2 $T/ct-other.out)"
echo 0 >$tr/tracing_on
cp $tr/trace $T/trace.txt
for e in irq sched timer; do echo 0 >$tr/events/$e/enable; done
echo >$tr/trace
note "trace: $(wc -l <$T/trace.txt) lines; $(grep -c 'LOST' $T/trace.txt || true) lost-event marks"

python3 - "$RTMON_PREEMPT_RT" "$RTMON_KVER" <<'PY'
import os, re, sys
rt, kver = sys.argv[1] == "y", sys.argv[2]
T = os.environ["T"]
line_re = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\S+)\s+([\d.]+):\s+(\w+):\s+(.*)$")
evs = []
widths = set()
for l in open(T + "/trace.txt"):
    m = line_re.match(l)
    if not m:
        continue
    comm, pid, cpu, flags, ts, ev, rest = m.groups()
    f = dict(kv.split("=", 1) for kv in re.findall(r"(\w+=\S+)", rest))
    # flags: irqs-off, need-resched, hardirq/softirq ('h' hard, 's' soft,
    # 'H' hard inside soft), preempt depth, migrate-disable: 5 columns on
    # 6.12; the 6.1 RT patch set adds the lazy-preempt count (7 columns).
    # 'h', 'H' and 's' appear in no other column.
    ctx = "hardirq" if ("h" in flags or "H" in flags) else "softirq" if "s" in flags else "task"
    widths.add(len(flags))
    evs.append(dict(comm=comm, pid=int(pid), cpu=int(cpu), ctx=ctx, ev=ev, f=f, rest=rest))
print(f"{kver} (PREEMPT_RT={'y' if rt else 'n'}): {len(evs)} events")
facts = []

def last_irq_event(i, cpu):
    """the closest irq_handler_entry/exit before evs[i] on the same CPU"""
    for j in range(i - 1, max(-1, i - 400), -1):
        e = evs[j]
        if e["cpu"] == cpu and e["ev"] in ("irq_handler_entry", "irq_handler_exit"):
            return e
    return None

# 1. IRQ -> IRQ thread / waiter
irq_names = {}
for e in evs:
    if e["ev"] == "irq_handler_entry":
        irq_names[e["f"]["irq"]] = e["f"].get("name", "?")
virtio = {n for n, name in irq_names.items() if name.startswith("virtio")}
assert virtio, f"no virtio interrupt in the trace (irqs: {irq_names})"
if rt:
    thread_wakes, lock_wakes = 0, 0
    for i, e in enumerate(evs):
        if e["ev"] != "sched_waking" or not e["f"].get("comm", "").startswith("irq/"):
            continue
        irq = e["f"]["comm"].split("/")[1].split("-")[0]
        if irq not in virtio:
            continue
        if e["ctx"] == "task":
            # the IRQ thread blocked on a sleeping spinlock (RT: rtmutex,
            # prev_state D) held by a task, which wakes it on unlock
            lock_wakes += 1
            continue
        assert e["ctx"] == "hardirq", f"IRQ thread woken in softirq context: {e}"
        last = last_irq_event(i, e["cpu"])
        assert last and last["ev"] == "irq_handler_exit" and last["f"]["irq"] == irq, \
            f"IRQ thread {e['f']['comm']} woken without irq_handler_exit of irq {irq} just before: last {last}"
        thread_wakes += 1
    assert thread_wakes >= 20, f"only {thread_wakes} IRQ-thread wakeups for {len(virtio)} virtio IRQs"
    facts.append(f"IRQ thread woken after irq_handler_exit, in hard IRQ context ({thread_wakes} times); "
                 f"{lock_wakes} more wakeups from task context (lock hand-over)")
else:
    inside = 0
    for i, e in enumerate(evs):
        if e["ev"] != "sched_waking" or e["ctx"] != "hardirq":
            continue
        last = last_irq_event(i, e["cpu"])
        if last and last["ev"] == "irq_handler_entry" and last["f"]["irq"] in virtio:
            inside += 1
    assert inside >= 20, f"only {inside} wakeups inside a virtio handler"
    facts.append(f"waiter woken between irq_handler_entry and exit of the virtio IRQ ({inside} times)")

# 2. sleeper hrtimers: where they expire, and the wakeup inside the callback
def sleeper_expiries(rt_prio):
    """(context, thread, waking) of hrtimer_wakeup expiries waking a
    cyclictest thread at an RT priority (rt_prio) or not: the policy the
    thread had when it went to sleep (it sets its own, while running)"""
    out = []
    # per cpu, the expiries open (a hard one may nest in the soft one: on
    # RT the timer softirq runs in a preemptible thread). A wakeup is the
    # callback's only when it comes from the same task and context as the
    # open expiry's entry: while ktimers/N is preempted inside a soft
    # expiry, other tasks' wakeups on that cpu are not its own
    open_t = {}
    for e in evs:
        st = open_t.setdefault(e["cpu"], [])
        if e["ev"] == "hrtimer_expire_entry":
            st.append(e)
        elif e["ev"] == "hrtimer_expire_exit":
            if st:
                st.pop()
        elif e["ev"] == "sched_waking" and st:
            t = st[-1]
            if "hrtimer_wakeup" in t["rest"] and t["pid"] == e["pid"] and t["ctx"] == e["ctx"] \
                    and e["f"].get("comm") == "cyclictest" \
                    and (int(e["f"]["prio"]) < 100) == rt_prio:
                out.append((t["ctx"], t["comm"], e))
    return out

ct = {}
for e in evs:
    if e["ev"] == "sched_waking" and e["f"].get("comm") == "cyclictest":
        ct.setdefault(int(e["f"]["prio"]), set()).add(int(e["f"]["pid"]))
# ftrace prio: 120 - nice for SCHED_OTHER (120), 99 - rtprio for RT (19 for 80)
rt_pids = set().union(*[p for prio, p in ct.items() if prio < 100]) if ct else set()
other_pids = (set().union(*[p for prio, p in ct.items() if prio >= 100]) if ct else set()) - rt_pids
assert rt_pids and other_pids, f"cyclictest wakeups by priority: {ct}"
# each wakeup by the priority it names: a thread of the -p 80 cyclictest
# may sleep once at SCHED_OTHER, before it sets its priority
rt_exp = sleeper_expiries(True)
assert len(rt_exp) >= 150, f"only {len(rt_exp)} RT sleeper wakeups inside hrtimer_expire_entry/exit"
bad = [x for x in rt_exp if x[0] != "hardirq"]
assert not bad, "RT sleeper expiries outside hard IRQ context: " + \
    "; ".join(f"{c} {t}: {w['rest']}" for c, t, w in bad[:3])
facts.append(f"SCHED_FIFO sleeper: expiry in hard IRQ, wakeup inside entry/exit ({len(rt_exp)})")
ot_exp = sleeper_expiries(False)
assert len(ot_exp) >= 100, f"only {len(ot_exp)} SCHED_OTHER sleeper wakeups inside entry/exit"
ctxs = {c for c, _, _ in ot_exp}
threads = sorted({re.sub(r"/\d+$", "/N", t) for c, t, _ in ot_exp if c != "hardirq"})
if rt:
    soft = [x for x in ot_exp if x[0] == "softirq"]
    assert len(soft) >= len(ot_exp) * 0.9, f"SCHED_OTHER sleeper on RT: contexts {ctxs}"
    # the thread running the timer softirq (6.1-rt and 6.12-rt: ktimers/N)
    assert set(threads) <= {"ktimers/N", "ksoftirqd/N"}, f"soft expiry run by {threads}"
    facts.append(f"SCHED_OTHER sleeper: soft expiry in softirq context ({len(soft)}), run by {threads}")
else:
    hard = [x for x in ot_exp if x[0] == "hardirq"]
    assert len(hard) >= len(ot_exp) * 0.9, f"SCHED_OTHER sleeper on mainline: contexts {ctxs}"
    facts.append(f"SCHED_OTHER sleeper: expiry in hard IRQ context ({len(hard)})")

# 3. sched_switch prev_state of a sleeping cyclictest
states = {}
for e in evs:
    if e["ev"] == "sched_switch" and int(e["f"].get("prev_pid", -1)) in rt_pids:
        states[e["f"]["prev_state"]] = states.get(e["f"]["prev_state"], 0) + 1
assert states.get("S", 0) >= 150, f"cyclictest's prev_state at switch-out: {states}"
facts.append(f"sched_switch prev_state of the sleeping cyclictest: {states}")
# ftrace text (what rtmon-replay reads): the 6.1 RT patch set has two more
# flag columns (need-resched-lazy, preempt-lazy depth) than mainline and
# 6.12-rt (PREEMPT_RT in mainline, without the patch set's lazy preemption)
maj, mnr = (int(x) for x in kver.split(".")[:2])
want = 7 if rt and (maj, mnr) < (6, 12) else 5
assert widths == {want}, f"trace flag columns: {widths}, expected {want} on {kver}"
facts.append(f"trace flags: {want} columns")
for f in facts:
    print("fact:", f)
PY
echo "kernel-behaviour: ok"

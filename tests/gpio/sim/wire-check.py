#!/usr/bin/env python3
"""wire-check.py: drive the wires of the simulated loopback chip (label
rtmon-loop, gpio-sim wire="0>1,2>3") through libgpiod 1.6's C library, as
the loopback tools do: output lines held requested and set with
gpiod_line_set_value (ending in gpio-sim's set_multiple), edge events read
on the peer input lines. Used by tests/vm/guest/gpio-sim.sh in the guest.

  wire-check.py toggle [--out 0] [--in 1] [--count 100] [--consumer NAME]
      COUNT toggles of OUT, each waited for as one edge event on IN, of the
      right type and in order (kernel timestamps never go back); then no
      further event. Prints "toggles N events N rising R falling F".
  wire-check.py bulk
      lines 0 and 2 requested together and set with one
      gpiod_line_set_value_bulk: each set gives exactly the edges of the
      lines whose level changed, on 1 and 3.
Exit status 1 with a message on any mismatch.
"""
import argparse
import ctypes
import os
import sys

LABEL = b"rtmon-loop"
RISING, FALLING = 1, 2


class Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class LineEvent(ctypes.Structure):
    _fields_ = [("ts", Timespec), ("event_type", ctypes.c_int)]


class LineBulk(ctypes.Structure):
    _fields_ = [("lines", ctypes.c_void_p * 64), ("num_lines", ctypes.c_uint)]


g = ctypes.CDLL("libgpiod.so.2", use_errno=True)
g.gpiod_chip_open_by_label.restype = ctypes.c_void_p
g.gpiod_chip_open_by_label.argtypes = [ctypes.c_char_p]
g.gpiod_chip_get_line.restype = ctypes.c_void_p
g.gpiod_chip_get_line.argtypes = [ctypes.c_void_p, ctypes.c_uint]
g.gpiod_line_request_output.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
g.gpiod_line_request_both_edges_events.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
g.gpiod_line_request_bulk_output.argtypes = [ctypes.POINTER(LineBulk), ctypes.c_char_p,
                                             ctypes.POINTER(ctypes.c_int)]
g.gpiod_line_set_value.argtypes = [ctypes.c_void_p, ctypes.c_int]
g.gpiod_line_set_value_bulk.argtypes = [ctypes.POINTER(LineBulk), ctypes.POINTER(ctypes.c_int)]
g.gpiod_line_event_wait.argtypes = [ctypes.c_void_p, ctypes.POINTER(Timespec)]
g.gpiod_line_event_read.argtypes = [ctypes.c_void_p, ctypes.POINTER(LineEvent)]
g.gpiod_line_release.argtypes = [ctypes.c_void_p]


def die(msg):
    print(f"wire-check: {msg}", file=sys.stderr)
    sys.exit(1)


def check(rc, what):
    if rc < 0:
        die(f"{what}: {os.strerror(ctypes.get_errno())}")
    return rc


def get_line(chip, off):
    line = g.gpiod_chip_get_line(chip, off)
    if not line:
        die(f"no line {off} on {LABEL.decode()}")
    return line


def wait_event(line, off, timeout_s):
    """the next edge on a line: (type, ns), or None after timeout_s"""
    ts = Timespec(int(timeout_s), int((timeout_s % 1) * 1e9))
    if check(g.gpiod_line_event_wait(line, ctypes.byref(ts)), f"event wait on line {off}") == 0:
        return None
    ev = LineEvent()
    check(g.gpiod_line_event_read(line, ctypes.byref(ev)), f"event read on line {off}")
    return ev.event_type, ev.ts.tv_sec * 1000000000 + ev.ts.tv_nsec


def name(t):
    return {RISING: "rising", FALLING: "falling"}.get(t, f"type {t}")


def toggle(chip, a):
    consumer = a.consumer.encode()
    out = get_line(chip, a.out)
    # the output first, low: the input follows it before anyone listens
    check(g.gpiod_line_request_output(out, consumer, 0), f"output request of line {a.out}")
    inp = get_line(chip, a.inp)
    check(g.gpiod_line_request_both_edges_events(inp, consumer), f"event request of line {a.inp}")
    counts = {RISING: 0, FALLING: 0}
    last = 0
    for i in range(1, a.count + 1):
        v = i % 2
        check(g.gpiod_line_set_value(out, v), f"set line {a.out}={v}")
        ev = wait_event(inp, a.inp, 5.0)
        if ev is None:
            die(f"toggle {i} (line {a.out}={v}): no event on line {a.inp} within 5 s")
        want = RISING if v else FALLING
        if ev[0] != want:
            die(f"toggle {i} (line {a.out}={v}): {name(ev[0])} edge on line {a.inp}, expected {name(want)}")
        if ev[1] < last:
            die(f"toggle {i}: event timestamp {ev[1]} before the previous one {last}")
        last = ev[1]
        counts[ev[0]] += 1
    extra = wait_event(inp, a.inp, 0.5)
    if extra is not None:
        die(f"an extra {name(extra[0])} event on line {a.inp} after the {a.count} toggles")
    g.gpiod_line_release(inp)
    g.gpiod_line_release(out)
    n = counts[RISING] + counts[FALLING]
    print(f"toggles {a.count} events {n} rising {counts[RISING]} falling {counts[FALLING]}")


def bulk(chip, a):
    consumer = a.consumer.encode()
    b = LineBulk()
    b.lines[0] = get_line(chip, 0)
    b.lines[1] = get_line(chip, 2)
    b.num_lines = 2
    zeros = (ctypes.c_int * 2)(0, 0)
    check(g.gpiod_line_request_bulk_output(ctypes.byref(b), consumer, zeros), "bulk output request of lines 0, 2")
    ins = {1: get_line(chip, 1), 3: get_line(chip, 3)}
    for off, line in ins.items():
        check(g.gpiod_line_request_both_edges_events(line, consumer), f"event request of line {off}")
    level = {1: 0, 3: 0}
    steps = [(1, 1), (0, 1), (1, 0), (0, 0), (1, 1), (0, 0)]
    n = 0
    for s in steps:
        vals = (ctypes.c_int * 2)(*s)
        check(g.gpiod_line_set_value_bulk(ctypes.byref(b), vals), f"bulk set 0={s[0]} 2={s[1]}")
        for off, v in ((1, s[0]), (3, s[1])):
            if v != level[off]:
                ev = wait_event(ins[off], off, 5.0)
                want = RISING if v else FALLING
                if ev is None or ev[0] != want:
                    die(f"bulk set 0={s[0]} 2={s[1]}: expected a {name(want)} edge on line {off}, got "
                        + ("none" if ev is None else name(ev[0])))
                n += 1
                level[off] = v
            else:
                ev = wait_event(ins[off], off, 0.2)
                if ev is not None:
                    die(f"bulk set 0={s[0]} 2={s[1]}: unexpected {name(ev[0])} edge on line {off} (level unchanged)")
    print(f"bulk sets {len(steps)} events {n}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("cmd", choices=["toggle", "bulk"])
    p.add_argument("--out", type=int, default=0)
    p.add_argument("--in", dest="inp", type=int, default=1)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--consumer", default="wire-check")
    a = p.parse_args()
    chip = g.gpiod_chip_open_by_label(LABEL)
    if not chip:
        die(f"no GPIO chip labelled {LABEL.decode()} (run tests/gpio/sim/sim-setup.sh)")
    {"toggle": toggle, "bulk": bulk}[a.cmd](chip, a)


if __name__ == "__main__":
    main()

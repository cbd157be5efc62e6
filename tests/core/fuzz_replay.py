#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Mutation fuzzing of rtmon-replay's input readers under ASan/UBSan.

The seeds are real inputs: the trace-cmd .dat recordings of tests/core/data
(and tracecmd-bad-section-size.dat, cut from one, with a crafted section
size), its report text, and the golden event files (native and ftrace text).
Each mutant (bytes flipped, set, cut, duplicated or inserted; for text also
whole lines dropped, repeated or swapped, numbers replaced by extreme ones)
goes through rtmon-replay built with -fsanitize=address,undefined (and,
for text, --explain too). A mutant passes when the tool exits 0 (a
result) or 1 (an input error, said on stderr); it fails on any other
status (3: the core's leak check after the final flush: chains or
branches left behind), a signal, a hang (10 s) or a sanitizer
report from rtmon's own code (monitor/, kmod/core/). A .dat is read in a
child process (libtracecmd crashes on some corrupt files): a sanitizer
report whose first frame of code is in libtracecmd/libtraceevent is that
library's bug, turned into an input error by design, counted and printed,
not failed.

Not coverage-guided: rtmon-replay exits at its first input error, and
libFuzzer's in-process loop would need every reader's state reset; the
core's own state machine has the libFuzzer harness (fuzz_core.c).

  fuzz_replay.py REPLAY_ASAN WORK_DIR SECONDS [SEED]
"""
import os
import random
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPLAY, WORK, SECONDS = sys.argv[1], sys.argv[2], float(sys.argv[3])
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else int(time.time())
TARGETS = ["--target", "name=cyclictest,source=timer,end=switch_in,deadline=100us",
           "--target", "name=app,end=work_end,deadline=1ms"]
EXTREME = [b"0", b"-1", b"4294967295", b"4294967296", b"18446744073709551615",
           b"18446744073709551616", b"99999999999999999999999", b"0x", b"", b"nan",
           b"9223372036854775807", b"1e309"]


def seeds():
    out = []
    d = os.path.join(HERE, "data")
    for f in sorted(os.listdir(d)):
        if f.endswith(".dat"):
            out.append(("dat", f, open(os.path.join(d, f), "rb").read()))
        elif f.endswith(".txt"):
            # the first 600 lines: enough events for chains, fast to replay
            lines = open(os.path.join(d, f), "rb").read().split(b"\n")[:600]
            out.append(("text", f, b"\n".join(lines) + b"\n"))
    g = os.path.join(HERE, "golden")
    for f in sorted(os.listdir(g)):
        if f.endswith(".events"):
            out.append(("text", f, open(os.path.join(g, f), "rb").read()))
    return out


def mutate_bytes(rng, b):
    b = bytearray(b)
    for _ in range(rng.choice((1, 1, 2, 4, 16))):
        if not b:
            b += bytes([rng.randrange(256)])
            continue
        op = rng.randrange(6)
        i = rng.randrange(len(b))
        if op == 0:
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            b[i] = rng.choice((0, 0xff, 0x7f, 0x80, rng.randrange(256)))
        elif op == 2:
            del b[i:i + rng.randrange(1, 64)]
        elif op == 3:
            j = rng.randrange(len(b))
            b[i:i] = b[j:j + rng.randrange(1, 64)]
        elif op == 4:
            b[i:i + 4] = rng.randrange(1 << 32).to_bytes(4, "little")
        else:
            del b[rng.randrange(len(b)):]	# truncated
    return bytes(b)


def mutate_text(rng, b):
    lines = b.split(b"\n")
    for _ in range(rng.choice((1, 1, 2, 3, 8))):
        if not lines:
            break
        op = rng.randrange(6)
        i = rng.randrange(len(lines))
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            nums = list(re.finditer(rb"\d+", lines[i]))
            if nums:
                m = rng.choice(nums)
                lines[i] = lines[i][:m.start()] + rng.choice(EXTREME) + lines[i][m.end():]
        elif op == 4:
            words = lines[i].split(b" ")
            if len(words) > 1:
                del words[rng.randrange(len(words))]
                lines[i] = b" ".join(words)
        else:
            lines[i] = mutate_bytes(rng, lines[i])
    return b"\n".join(lines)


ASAN = re.compile(rb"(ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:)")
# "#1 0x... in FUNC FILE:LINE", or "#1 0x... (/lib/LIB.so+0x...)" for a
# library without symbols (libtracecmd's malloc of a size read from a
# corrupt file: allocation-size-too-big, seed 1795749889)
FRAME = re.compile(rb"^\s*#\d+ 0x[0-9a-f]+\s+(?:in (\S+) )?(\S+)", re.M)


def sanitizer_owner(err):
    """'ours', 'library' or None (no report) for a run's stderr."""
    m = ASAN.search(err)
    if not m:
        return None
    if b"runtime error:" in m.group(0):
        # UBSan names the source file:line first
        line = err[max(0, m.start() - 300):m.start()].split(b"\n")[-1]
        return "ours" if (b"/monitor/" in line or b"/kmod/" in line) else "library"
    for fn, where in FRAME.findall(err[m.start():]):
        fn = fn or b""
        if fn.startswith(b"__interceptor_") or fn.startswith(b"__asan") or \
           fn.startswith(b"__sanitizer") or b"libasan" in where or b"libubsan" in where:
            continue
        # a frame without symbols names its binary: rtmon-replay's is ours
        return "ours" if (b"/monitor/" in where or b"/kmod/" in where or
                          b"rtmon-replay" in where) else "library"
    return "ours"


def main():
    if not os.access(REPLAY, os.X_OK):
        print(f"FAIL: fuzz_replay: {REPLAY} not built")
        return 1
    rng = random.Random(SEED)
    os.makedirs(os.path.join(WORK, "failures"), exist_ok=True)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    pool = seeds()
    stats = {"runs": 0, "ok": 0, "input_error": 0, "library": 0}
    fails = []
    end = time.monotonic() + SECONDS
    n = 0
    while time.monotonic() < end:
        kind, name, data = rng.choice(pool)
        if kind == "text" and rng.random() < 0.6:
            m = mutate_text(rng, data)
        else:
            m = mutate_bytes(rng, data)
        path = os.path.join(WORK, "input" + (".dat" if kind == "dat" else ".txt"))
        with open(path, "wb") as f:
            f.write(m)
        args = [REPLAY, "--json"] + TARGETS
        if kind == "text" and rng.random() < 0.3:
            args.append("--explain")
        n += 1
        try:
            p = subprocess.run(args + [path], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=env, timeout=10)
            rc, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            rc, err = "hang", b""
        stats["runs"] += 1
        owner = sanitizer_owner(err) if rc != "hang" else None
        if owner == "library" and rc == 1:
            stats["library"] += 1
            continue
        if rc == "hang" or owner == "ours" or rc not in (0, 1):
            keep = os.path.join(WORK, "failures", f"{n}-{name}")
            with open(keep, "wb") as f:
                f.write(m)
            with open(keep + ".stderr", "wb") as f:
                f.write(err)
            fails.append((keep, rc, err.decode(errors="replace").strip().split("\n")[-1][:200]))
            continue
        stats[{0: "ok", 1: "input_error"}[rc]] += 1
    summary = (f"seed {SEED}, {stats['runs']} mutants of {len(pool)} seeds in {SECONDS:.0f} s: "
               f"{stats['ok']} results, {stats['input_error']} input errors, "
               f"{stats['library']} libtracecmd crashes "
               f"turned into input errors")
    if fails:
        print(f"FAIL: fuzz_replay: {len(fails)} of {summary}")
        for keep, rc, last in fails[:5]:
            print(f"  {keep}: status {rc}: {last}")
        return 1
    if stats["runs"] < 20:
        print(f"FAIL: fuzz_replay: only {summary}")
        return 1
    print(f"PASS: fuzz_replay ({summary})")
    return 0


sys.exit(main())

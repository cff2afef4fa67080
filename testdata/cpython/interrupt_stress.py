#!/usr/bin/env python3
"""Untraced confirmation of interrupt_unwind.py: real SIGINTs, sent by a
thread at random moments (``_thread.interrupt_main``), into a loop of one
variant's ``with swapped_cuda_module(f1, fake): pass``; counts the
interrupts that the swap let out and, of those, the ones after which one
of the variant's locks was still held, by landing offset.

Usage: interrupt_stress.py VARIANT [SECONDS] [NAMES]
(VARIANT as in ../python, e.g. merged; NAMES: how many other globals f1's
module has, 50 by default, so the scan's skipping arm runs often).
Timing-dependent, so no test runs it; docs/cpython-switch-points.md quotes
its figures with the command.
"""

import _thread
import collections
import os
import random
import signal
import sys
import threading
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REAL_CUDA = types.ModuleType("numba.cuda")
_FAKE_NUMBA = types.ModuleType("numba")
_FAKE_NUMBA.cuda = REAL_CUDA
sys.modules["numba"] = _FAKE_NUMBA
LOCK_TYPES = (type(threading.Lock()), type(threading.RLock()))


class Interrupted(BaseException):
    pass


def main():
    variant = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10
    names = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    path = os.path.join(HERE, "..", "python", variant + ".py")
    with open(path) as f:
        compiled = compile(f.read(), path, "exec")
    g = {"cuda": REAL_CUDA}
    for i in range(names):
        g["x%d" % i] = i
    f1 = types.FunctionType(compile("def f1(): pass", "<f1>", "exec").co_consts[0], g)
    fake = types.ModuleType("fake1")

    armed = [False]

    def handler(sig, frame):
        if armed[0]:
            raise Interrupted()
    signal.signal(signal.SIGINT, handler)
    stop = [False]

    def pinger():
        while not stop[0]:
            time.sleep(random.random() * 0.0002)
            _thread.interrupt_main()
    threading.Thread(target=pinger, daemon=True).start()

    caught, held = 0, collections.Counter()
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        proto = types.ModuleType("proto")
        exec(compiled, proto.__dict__)
        code = proto.swapped_cuda_module.__wrapped__.__code__
        g["cuda"] = REAL_CUDA
        landed = None
        try:
            armed[0] = True
            with proto.swapped_cuda_module(f1, fake):
                pass
            armed[0] = False
        except Interrupted as e:
            armed[0] = False
            landed = "outside"
            tb = e.__traceback__
            while tb is not None:
                if tb.tb_frame.f_code is code:
                    landed = tb.tb_lasti
                tb = tb.tb_next
        if landed is None:
            continue
        caught += 1
        locks = [v for v in proto.__dict__.values() if isinstance(v, LOCK_TYPES)]
        for v in proto.__dict__.values():
            if isinstance(v, dict):
                locks += [l for l in v.values() if isinstance(l, LOCK_TYPES)]
        if any(l.locked() for l in locks):
            held[landed] += 1
    stop[0] = True
    print("python %d.%d.%d %s: %d interrupts let out of the swap, %d left a lock held %s" % (
        sys.version_info[:3] + (variant, caught, sum(held.values()), dict(sorted(held.items())))))


if __name__ == "__main__":
    main()

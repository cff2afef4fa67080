#!/usr/bin/env python3
"""What an asynchronous KeyboardInterrupt leaves behind, by where it lands,
in each variant's ``swapped_cuda_module`` (../python/<variant>.py), on the
running CPython: which of the variant's locks stay held and what the device
module's ``cuda`` is afterwards.

Why: where an interrupt lands is one question (switchpoints.py); what the
frame does with it is another. CPython looks the landing up in the code's
exception table, and which offset it looks up differs by version: 3.11 and
3.12 check the eval breaker of a backward jump after jumping and look up
the instruction before the jump's target; 3.13 checks before jumping and
looks up the jump itself. In 3.13.0 the backward jump of an inlined
comprehension's skipping arm is in no exception-table range
(gh-130279's family), so an interrupt there leaves a ``with lock:`` around
the comprehension without calling the lock's ``__exit__``: the lock stays
held. pyvm's TestInterruptUnwindsAsCPython holds the interpreter to these
outcomes.

How: one world (``with swapped_cuda_module(f1, fake): pass``, f1's globals
``{"cuda": numba.cuda, "x": 3}``) per trial. For every instruction X of
swapped_cuda_module and each of its executions in one run, a fresh module
of the variant runs the world traced until X's n-th execution; there the
trace function stops tracing and sets the pending SIGINT, as
switchpoints.py does, and the KeyboardInterrupt's traceback says where it
landed (the first traceback entry of swapped_cuda_module's frame, "direct"
when that frame raised it itself). Each trial compiles the variant afresh
(cold code, generic instructions: 3.11's specialized PRECALL forms add
landings of their own, switchpoints.py's "warm" column) and runs it once
traced without firing first, since 3.13 turns opcode events on for a code
object only from a frame's next resumption.

Output: one line per distinct (variant, landing, outcome), sorted:
    <variant> <offset> <opname> held=<locks or -> cuda=<real|fake|other>
Only direct landings inside swapped_cuda_module are listed. Standard
library only. Usage: interrupt_unwind.py [--check]; --check exits 1 when a
trial's interrupt landed nowhere (the method failed).
"""

import _thread
import dis
import os
import signal
import sys
import threading
import types

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.normpath(os.path.join(HERE, "..", "python"))

REAL_CUDA = types.ModuleType("numba.cuda")
_FAKE_NUMBA = types.ModuleType("numba")
_FAKE_NUMBA.cuda = REAL_CUDA
sys.modules["numba"] = _FAKE_NUMBA

DEBUG = bool(os.environ.get('UNWIND_DEBUG'))
LOCK_TYPES = (type(threading.Lock()), type(threading.RLock()))


class _Trip(int):
    """TRIP.fire calls _thread.interrupt_main(SIGINT) from C (a property
    whose getter is the C function): no Python frame, so no eval-breaker
    check, between setting the signal and the traced instruction."""
    fire = property(_thread.interrupt_main)


TRIP = _Trip(signal.SIGINT)


class Probe:
    """Counts the executions of each offset of code while armed, and fires
    the pending SIGINT just before the nth execution of offset (offset
    None: never)."""

    def __init__(self, code, offset=None, nth=0):
        self.code, self.offset, self.left = code, offset, nth
        self.armed, self.fired, self.count = False, False, {}

    def global_trace(self, frame, event, arg):
        if frame.f_code is not self.code:
            return None
        frame.f_trace_opcodes = True
        return self.local_trace

    def local_trace(self, frame, event, arg):
        if event != "opcode" or not self.armed or self.fired:
            return self.local_trace
        off = frame.f_lasti
        self.count[off] = self.count.get(off, 0) + 1
        if off == self.offset:
            if self.left:
                self.left -= 1
                return self.local_trace
            frame.f_trace_opcodes = False
            frame.f_trace = None
            sys.settrace(None)
            self.fired = True
            TRIP.fire
            return None
        return self.local_trace


def new_world(compiled):
    proto = types.ModuleType("proto")
    exec(compiled, proto.__dict__)
    g = {"cuda": REAL_CUDA, "x": 3}
    f1 = types.FunctionType(compile("def f1(): pass", "<f1>", "exec").co_consts[0], g)
    return proto, g, f1, types.ModuleType("fake1")


def run_world(world):
    proto, g, f1, fake = world
    with proto.swapped_cuda_module(f1, fake):
        pass


def traced(compiled, code, probe):
    """Runs a world of compiled (a fresh compilation: cold code, generic
    instructions, as pyvm runs them; 3.11's specialized PRECALL forms add
    landings of their own, switchpoints.py's "warm" column) traced by
    probe, after one world run under the same trace function unarmed:
    3.13 turns a frame's opcode events on only from its next resumption,
    so a code object's first traced frame gets none before its yield.
    Returns the traced world and where the interrupt landed: None (it did
    not), "outside" or "callee" (not in code's own frame), or the offset
    of the instruction of code that raised it."""
    warm, world = new_world(compiled), new_world(compiled)
    landed = None
    try:
        sys.settrace(probe.global_trace)
        try:
            run_world(warm)
            probe.armed = True
            run_world(world)
        finally:
            sys.settrace(None)
            for _ in range(3):  # a pending interrupt lands here, outside
                pass
    except KeyboardInterrupt as e:
        landed = "outside"
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code is code:
                if tb.tb_next is not None:
                    landed = "callee"  # in what the instruction called
                else:
                    landed = max(i.offset for i in dis.get_instructions(code) if i.offset <= tb.tb_lasti)
                break
            tb = tb.tb_next
    return world, landed


def held_locks(proto):
    """The variant's module-level locks that are held, by name."""
    out = []
    for name, v in sorted(proto.__dict__.items()):
        if isinstance(v, LOCK_TYPES):
            if _held(v):
                out.append(name)
        elif isinstance(v, dict):
            for k, lock in v.items():
                if isinstance(lock, LOCK_TYPES) and _held(lock):
                    out.append(name + "[gid]")
    return out


def _held(lock):
    if lock.acquire(blocking=False):
        lock.release()
        return False
    return True


def fresh(src, path):
    compiled = compile(src, path, "exec")
    proto = types.ModuleType("proto")
    exec(compiled, proto.__dict__)
    return compiled, proto.swapped_cuda_module.__wrapped__.__code__


def trials(variant):
    path = os.path.join(PROTO_DIR, variant + ".py")
    with open(path) as f:
        src = f.read()
    compiled, code = fresh(src, path)
    counter = Probe(code)
    traced(compiled, code, counter)
    ops = {i.offset: i.opname for i in dis.get_instructions(code)}
    results, lost = set(), 0
    for off in sorted(counter.count):
        for nth in range(counter.count[off]):
            compiled, code = fresh(src, path)
            probe = Probe(code, off, nth)
            world, landed = traced(compiled, code, probe)
            if not probe.fired:
                continue
            if landed is None:
                lost += 1
                if DEBUG:
                    print("lost", variant, off, ops[off], nth, file=sys.stderr)
                continue
            if landed in ("outside", "callee"):
                continue
            proto, g, f1, fake = world
            cuda = g.get("cuda")
            what = "real" if cuda is REAL_CUDA else "fake" if cuda is fake else "other"
            results.add((variant, landed, ops[landed], ",".join(held_locks(proto)) or "-", what))
    return results, lost


def prime():
    """The process's first code traced with opcode events gets none on
    3.12.1 (seen here: the first variant of the run had no landings): trace
    a throwaway function first."""
    def throwaway():
        for _ in range(2):
            pass

    def trace(frame, event, arg):
        frame.f_trace_opcodes = True
        return trace
    for _ in range(2):
        sys.settrace(trace)
        try:
            throwaway()
        finally:
            sys.settrace(None)


def main():
    prime()
    variants = sorted(f[:-3] for f in os.listdir(PROTO_DIR) if f.endswith(".py"))
    out, lost = set(), 0
    for v in variants:
        r, n = trials(v)
        out |= r
        lost += n
    print("# python %d.%d.%d" % sys.version_info[:3])
    for variant, off, op, held, cuda in sorted(out):
        print("%s %d %s held=%s cuda=%s" % (variant, off, op, held, cuda))
    if "--check" in sys.argv and lost:
        print("interrupt_unwind: %d interrupts landed nowhere" % lost, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

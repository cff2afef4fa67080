"""Facts the Python replay's interrupts rest on (pyreplay/replay.py,
docs/replay.md "Interrupts"), on the running CPython 3.11, with the trace
function the replay uses (sys.settrace, f_trace_opcodes) left installed.

The replay sets a pending SIGINT from its trace function, as the function's
last act, by reading a property whose getter is the C function
_thread.interrupt_main (no CALL instruction, so no eval-breaker check in the
trace function), and expects CPython to raise KeyboardInterrupt at the first
check the traced code makes afterwards:

  c_call:        set at the opcode event of a CALL of a C function (dict.update):
                 raised by that CALL's check, in the traced frame;
  jump_backward: set at a loop's JUMP_BACKWARD: raised by it;
  comp_skip:     a pass of merged.py:27's comprehension ({k: v for k, v in
                 fn_globs.items() if v is cuda}) that skips its item goes back
                 by POP_JUMP_BACKWARD_IF_FALSE (a pass that keeps it, by
                 JUMP_BACKWARD): set at that jump, the SIGINT is raised by it,
                 in the comprehension's frame (its eval-breaker check);
  callee_resume: set at the CALL of a Python function (contextlib's helper, as
                 "with cm():" calls it): raised at the callee's RESUME, before
                 its "call" trace event;
  yield_return:  set at a @contextmanager generator's "return" trace event at
                 its yield: raised in contextlib's __enter__ by the CALL of
                 next(), the generator left suspended at its yield;
  dies_closes:   once the caller drops that exception, the suspended
                 generator is closed there and then, and its finally runs in
                 the catching thread;
  control:       a trace function that CALLs interrupt_main() is interrupted
                 in itself (why the replay reads a property instead).

Run: python3 testdata/cpython/replay_interrupt.py (prints one line per fact
and exits 1 if any fails); pyreplay's TestReplayInterruptFacts runs it.
"""
import _thread
import contextlib
import dis
import signal
import sys
import threading
import types


class _Trip(int):
    fire = property(_thread.interrupt_main)


TRIP = _Trip(signal.SIGINT)


def opname(code, lasti):
    offs = {i.offset: i.opname for i in dis.get_instructions(code)}
    return offs[max(o for o in offs if o <= lasti)]


def innermost(e):
    tb = e.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb


class Tracer:
    """Traces every frame by opcode; at the n-th opcode event `op` of
    `code` (or its "return" event at a YIELD_VALUE, when on_return), sets
    the pending SIGINT as its last act."""

    def __init__(self, code, op, on_return=False, call_it=False):
        self.code, self.op, self.on_return, self.call_it = code, op, on_return, call_it
        self.armed = True
        self.calls = []  # the code names of "call" events after the trip

    def global_trace(self, frame, event, arg):
        if not self.armed:
            self.calls.append(frame.f_code.co_name)
        frame.f_trace_opcodes = True
        return self.local_trace

    def local_trace(self, frame, event, arg):
        if not self.armed or frame.f_code is not self.code:
            return self.local_trace
        if self.on_return and event == "return" and opname(frame.f_code, frame.f_lasti) == "YIELD_VALUE":
            self.armed = False
            TRIP.fire
            return self.local_trace
        if not self.on_return and event == "opcode" and opname(frame.f_code, frame.f_lasti) == self.op:
            self.armed = False
            if self.call_it:
                _thread.interrupt_main()
                return self.local_trace
            TRIP.fire
            return self.local_trace
        return self.local_trace


def run(tracer, fn):
    sys.settrace(tracer.global_trace)
    try:
        fn()
    except KeyboardInterrupt as e:
        still = sys.gettrace() is not None
        sys.settrace(None)
        return e, still
    sys.settrace(None)
    return None, True


def c_call():
    d = {}
    d.update({"a": 1})
    return d


def loop():
    n = 0
    for i in range(3):
        n += i
    return n


CUDA = object()


def scan(fn_globs):
    cuda = CUDA
    return {k: v for k, v in fn_globs.items() if v is cuda}


SCAN_COMP = [c for c in scan.__code__.co_consts if isinstance(c, types.CodeType)][0]


def pass_ops(fn_globs):
    """The opcodes of each pass of scan's comprehension over fn_globs."""
    passes = []

    def local(frame, event, arg):
        if event == "opcode" and frame.f_code is SCAN_COMP:
            op = opname(SCAN_COMP, frame.f_lasti)
            if op == "FOR_ITER":
                passes.append([])
            if passes:
                passes[-1].append(op)
        return local

    def glob(frame, event, arg):
        frame.f_trace_opcodes = True
        return local
    sys.settrace(glob)
    scan(fn_globs)
    sys.settrace(None)
    return passes


@contextlib.contextmanager
def cm(log):
    log.append("entered")
    try:
        yield
    finally:
        log.append("finally in " + threading.current_thread().name)


def with_cm():
    log = []
    with cm(log):
        log.append("body")
    return log


FACTS = []


def fact(name, ok, detail):
    FACTS.append(ok)
    print("%s: %s (%s)" % (name, "ok" if ok else "FAILED", detail))


def main():
    signal.signal(signal.SIGINT, signal.default_int_handler)

    e, still = run(Tracer(c_call.__code__, "CALL"), c_call)
    tb = e and innermost(e)
    fact("c_call", e is not None and tb.tb_frame.f_code is c_call.__code__ and opname(c_call.__code__, tb.tb_lasti) == "CALL" and still,
         e and "raised at %s %s, trace kept: %s" % (tb.tb_frame.f_code.co_name, opname(tb.tb_frame.f_code, tb.tb_lasti), still))

    e, still = run(Tracer(loop.__code__, "JUMP_BACKWARD"), loop)
    tb = e and innermost(e)
    fact("jump_backward", e is not None and tb.tb_frame.f_code is loop.__code__ and opname(loop.__code__, tb.tb_lasti) == "JUMP_BACKWARD" and still,
         e and "raised at %s %s" % (tb.tb_frame.f_code.co_name, opname(tb.tb_frame.f_code, tb.tb_lasti)))

    skip_keep = {"kernel": 1, "cuda": CUDA}
    passes = pass_ops(skip_keep)
    skip_jump, keep_jump = passes[0][-1], passes[1][-1]
    e, still = run(Tracer(SCAN_COMP, "POP_JUMP_BACKWARD_IF_FALSE"), lambda: scan(skip_keep))
    tb = e and innermost(e)
    fact("comp_skip", skip_jump == "POP_JUMP_BACKWARD_IF_FALSE" and keep_jump == "JUMP_BACKWARD" and "JUMP_BACKWARD" not in passes[0]
         and e is not None and tb.tb_frame.f_code is SCAN_COMP and opname(SCAN_COMP, tb.tb_lasti) == "POP_JUMP_BACKWARD_IF_FALSE" and still,
         "a skipping pass ends %s, a keeping one %s; %s" % (
             skip_jump, keep_jump, e and "raised at %s %s" % (tb.tb_frame.f_code.co_name, opname(tb.tb_frame.f_code, tb.tb_lasti))))

    tr = Tracer(with_cm.__code__, "CALL")
    e, still = run(tr, with_cm)
    tb = e and innermost(e)
    fact("callee_resume", e is not None and tb.tb_frame.f_code.co_name == "helper" and opname(tb.tb_frame.f_code, tb.tb_lasti) == "RESUME"
         and "helper" not in tr.calls and still,
         e and "raised at %s %s; call events after the trip: %s" % (tb.tb_frame.f_code.co_name, opname(tb.tb_frame.f_code, tb.tb_lasti), tr.calls))

    gen_code = cm.__wrapped__.__code__
    log = []

    def enter():
        with cm(log):
            log.append("body")

    e, still = run(Tracer(gen_code, None, on_return=True), enter)
    tb = e and innermost(e)
    gen = e and tb.tb_frame.f_locals.get("self").gen
    suspended = gen is not None and gen.gi_suspended and opname(gen_code, gen.gi_frame.f_lasti) == "YIELD_VALUE"
    fact("yield_return", e is not None and tb.tb_frame.f_code.co_name == "__enter__" and opname(tb.tb_frame.f_code, tb.tb_lasti) == "CALL"
         and suspended and log == ["entered"] and still,
         e and "raised at %s %s; generator suspended at its yield: %s; log %s" % (
             tb.tb_frame.f_code.co_name, opname(tb.tb_frame.f_code, tb.tb_lasti), suspended, log))

    del e, tb, gen  # the caller drops it: the generator is closed now
    fact("dies_closes", log == ["entered", "finally in " + threading.current_thread().name], "log %s" % log)

    e, still = run(Tracer(c_call.__code__, "CALL", call_it=True), c_call)
    tb = e and innermost(e)
    fact("control", e is not None and tb.tb_frame.f_code is Tracer.local_trace.__code__ and not still,
         e and "raised in %s, trace kept: %s" % (tb.tb_frame.f_code.co_name, still))

    return 0 if all(FACTS) else 1


if __name__ == "__main__":
    if sys.version_info[:2] != (3, 11):
        print("needs CPython 3.11, this is %s" % sys.version.split()[0])
        sys.exit(2)
    sys.exit(main())

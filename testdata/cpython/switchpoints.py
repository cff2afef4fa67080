#!/usr/bin/env python3
"""Where CPython 3.11 raises an asynchronous KeyboardInterrupt and where it
hands the GIL to another thread, instruction by instruction, in the code the
swapcheck model stands for.

The code: each variant's ``swapped_cuda_module`` (../python/<variant>.py), the
``@contextmanager`` machinery that ``with swapped_cuda_module(...)`` runs
(``contextlib._GeneratorContextManager.__enter__`` / ``__exit__`` and the
``helper`` that builds it), and the host's launch and polling code of the
simulator (launch.py beside this file, reduced from numba-cuda's kernel.py).

STATIC (from CPython 3.11's Python/ceval.c; see docs/cpython-switch-points.md)
    A pending signal (SIGINT -> KeyboardInterrupt) and a request to drop the
    GIL are both served at one place, ``handle_eval_breaker`` ->
    ``eval_frame_handle_pending`` (signals first, only in the main thread;
    then the GIL drop), which the interpreter reaches only from these
    instructions ("breaker" below):
      RESUME with oparg < 2 (function start, resumption after ``yield``),
      JUMP_BACKWARD, POP_JUMP_BACKWARD_IF_* when the jump is taken (and
      COMPARE_OP specialized as COMPARE_OP_*_JUMP, fused with one), CALL
      after a callee that is not a Python function returned (a Python callee
      is run inline: its own RESUME checks), CALL_FUNCTION_EX, and the
      specialized PRECALL_* forms that make the call themselves ("precall"
      below), except PRECALL_NO_KW_LEN, _ISINSTANCE, _TYPE_1 and
      _LIST_APPEND (no check).  Generic forms run while tracing; specialized
      forms only untraced, after warm-up.
    Besides these, a C function can release the GIL (a contended lock's
    acquire, waiting on an Event / Condition / join, sleep) and, when a real
    signal interrupts a blocking lock acquire in the main thread, run the
    signal handler from inside the call (``acquire_timed`` ->
    ``Py_MakePendingCalls``).  Those happen inside an instruction that calls
    (CALL, PRECALL and "call" below: CALL_FUNCTION_EX, BEFORE_WITH,
    WITH_EXCEPT_START, FOR_ITER).

OBSERVED (this script, on the running interpreter)
    interrupts: for every instruction X of a target function, a fresh run of a
    scenario is traced (sys.settrace + f_trace_opcodes) only up to X; at X's
    opcode event (RESUME: its 'call' event) the trace function switches
    tracing off and then, as its very last act and with no eval-breaker check
    after it, sets the pending SIGINT: it reads a property whose getter is the
    C function ``_thread.interrupt_main`` (LOAD_ATTR does not check the eval
    breaker, RETURN_VALUE does not either).  X then runs untraced, and the
    KeyboardInterrupt's traceback says where it was raised: the first
    traceback entry of the target frame gives the instruction (tb_lasti) at
    which it landed, "direct" if raised by that frame's own eval-breaker
    check, "callee" if raised inside something that instruction called.
    Each scenario runs "cold" (fresh code objects: generic instructions) and
    "warm" (code run 20 times untraced first, so 3.11 has quickened and
    specialized it; the specialized names are reported).
    GIL: the target code runs in a loop (warm, untraced) with
    sys.setswitchinterval(1e-6) while a sampler thread reads
    sys._current_frames(): every time it holds the GIL, the other threads
    are parked where they gave it up.  A sample whose top frame is a target
    function is a "direct" switch at its f_lasti; a target frame lower in the
    stack records a "callee" switch at the call it is in.

Controls (facts): the method is checked on functions whose answer is known.

Output: ONE JSON object on stdout (exit status 0 even when a fact fails; the
Go test model/switchpoints_test.go judges, and compares the deterministic
part with testdata/cpython/switchpoints.golden.txt):
    {"python", "static": {...},
     "functions": [{"name", "file", "first_line", "instructions": [
         {"offset", "opname", "arg", "line", "kernel_line", "static", "specialized",
          "interrupt": {"cold": [...], "warm": [...]}, "gil": [...]}]}],
     "facts": [{"name", "holds", "detail"}]}
Standard library only.
"""

import _thread
import dis
import gc
import json
import os
import re
import signal
import sys
import threading
import time
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.normpath(os.path.join(HERE, "..", "python"))
# Every variant of testdata/python: numba-cuda's in the order of its
# history, swapcheck's own, then any other file there (a new variant is
# measured without being listed here).
_KNOWN = ["naive", "global_lock", "refcount_unregistered", "refcount_del", "merged", "proposed"]
VARIANTS = _KNOWN + sorted(
    f[:-3] for f in os.listdir(PROTO_DIR) if f.endswith(".py") and f[:-3] not in _KNOWN)
WARM_RUNS = 20
# Whether an interrupt trial runs after an unarmed traced run of the same
# code (interrupt_trials): 3.13 needs it to see opcode events at all before
# a frame's first yield. Not before 3.13: there the extra run warms the
# "cold" code (3.11 then specializes its PRECALLs, which check the eval
# breaker, and the cold column would be the warm one). 3.13's cold code
# has run once when the trial runs.
TRACE_WARM_UP = sys.version_info >= (3, 13)

# ---------------------------------------------------------------------------
# Static: the 3.11 opcodes whose implementation reaches handle_eval_breaker
# (ceval.c: TARGET(RESUME_QUICK), TARGET(JUMP_BACKWARD_QUICK),
# TARGET(POP_JUMP_BACKWARD_IF_*), TARGET(CALL), TARGET(CALL_FUNCTION_EX),
# TARGET(PRECALL_*) listed below, TARGET(COMPARE_OP_*_JUMP) when its fused
# backward jump is taken; DO_TRACING checks before tracing a RESUME).
# ---------------------------------------------------------------------------
BREAKER_GENERIC = {
    "RESUME": "oparg < 2: at function start and after yield (TARGET(RESUME_QUICK))",
    "JUMP_BACKWARD": "after the jump (TARGET(JUMP_BACKWARD_QUICK))",
    "POP_JUMP_BACKWARD_IF_FALSE": "when the backward jump is taken",
    "POP_JUMP_BACKWARD_IF_TRUE": "when the backward jump is taken",
    "POP_JUMP_BACKWARD_IF_NONE": "when the backward jump is taken",
    "POP_JUMP_BACKWARD_IF_NOT_NONE": "when the backward jump is taken",
    "CALL": "after a callee that is not a Python function returns (TARGET(CALL))",
    "CALL_FUNCTION_EX": "after the call returns (TARGET(CALL_FUNCTION_EX))",
}
PRECALL_CHECKS = ["PRECALL_BUILTIN_CLASS", "PRECALL_NO_KW_BUILTIN_O", "PRECALL_NO_KW_BUILTIN_FAST",
                  "PRECALL_BUILTIN_FAST_WITH_KEYWORDS", "PRECALL_NO_KW_METHOD_DESCRIPTOR_O",
                  "PRECALL_METHOD_DESCRIPTOR_FAST_WITH_KEYWORDS", "PRECALL_NO_KW_METHOD_DESCRIPTOR_NOARGS",
                  "PRECALL_NO_KW_METHOD_DESCRIPTOR_FAST", "PRECALL_NO_KW_STR_1", "PRECALL_NO_KW_TUPLE_1"]
PRECALL_NO_CHECK = ["PRECALL_NO_KW_LEN", "PRECALL_NO_KW_ISINSTANCE", "PRECALL_NO_KW_TYPE_1",
                    "PRECALL_NO_KW_LIST_APPEND"]
CALLING = ["CALL_FUNCTION_EX", "BEFORE_WITH", "WITH_EXCEPT_START", "FOR_ITER"]


def static_class(ins, nxt):
    """The static class of one instruction, from its generic opcode (and the
    next instruction, for COMPARE_OP): 'breaker' (reaches the eval-breaker
    check), 'precall' (a breaker once 3.11 has specialized it to one of
    PRECALL_CHECKS, which make the call themselves; plain PRECALL does not
    check), 'call' (calls out: C code that may release the GIL or run a
    signal handler, or Python code with checks of its own) or ''."""
    op = ins.opname
    if op == "RESUME":
        return "breaker" if ins.arg < 2 else ""
    if op in BREAKER_GENERIC:
        return "breaker"
    if op == "COMPARE_OP" and nxt is not None and nxt.opname.startswith("POP_JUMP_BACKWARD_IF_"):
        return "breaker"  # specialized COMPARE_OP_*_JUMP fuses the jump and checks when it is taken
    if op == "PRECALL":
        return "precall"
    if op in CALLING:
        return "call"
    return ""


# ---------------------------------------------------------------------------
# A fake numba (the variants do `from numba import cuda`); no __path__, so the
# import is served from sys.modules by C code.
# ---------------------------------------------------------------------------
REAL_CUDA = types.ModuleType("numba.cuda")
_FAKE_NUMBA = types.ModuleType("numba")
_FAKE_NUMBA.cuda = REAL_CUDA
sys.modules["numba"] = _FAKE_NUMBA

import contextlib as _stdlib_contextlib  # noqa: E402  (its source is recompiled below)

CONTEXTLIB_PATH = _stdlib_contextlib.__file__


def _read(path):
    with open(path) as f:
        return f.read()


class Sources:
    """Compiled code of contextlib, launch.py and every variant.  A "cold"
    world compiles afresh each time (generic instructions); a "warm" world
    reuses one compilation, so its code objects get quickened."""

    def __init__(self):
        self.text = {"contextlib": (_read(CONTEXTLIB_PATH), CONTEXTLIB_PATH),
                     "launch": (_read(os.path.join(HERE, "launch.py")), os.path.join(HERE, "launch.py"))}
        for v in VARIANTS:
            p = os.path.join(PROTO_DIR, v + ".py")
            self.text[v] = (_read(p), p)
        self.cache = {}

    def code(self, name, fresh):
        if fresh or name not in self.cache:
            src, path = self.text[name]
            c = compile(src, path, "exec")
            if fresh:
                return c
            self.cache[name] = c
        return self.cache[name]


SOURCES = Sources()


def new_world(variant, fresh=(), like=None):
    """Fresh module objects: a private contextlib, the variant and launch.py
    (wired to the variant's swapped_cuda_module), with fresh state.  The
    modules named in `fresh` are compiled afresh (cold code); the others
    reuse one compilation (their code objects warm up across worlds).  With
    `like` (another world), every module reuses that world's compilation."""
    codes = dict(like.codes) if like is not None else {
        name: SOURCES.code(name, name in fresh) for name in ("contextlib", variant, "launch")}
    ctx = types.ModuleType("contextlib")
    ctx.__file__ = CONTEXTLIB_PATH
    exec(codes["contextlib"], ctx.__dict__)
    saved = sys.modules.get("contextlib")
    sys.modules["contextlib"] = ctx  # `from contextlib import contextmanager` in the listings
    try:
        proto = types.ModuleType("proto_" + variant)
        exec(codes[variant], proto.__dict__)
        launch = types.ModuleType("launch")
        exec(codes["launch"], launch.__dict__)
    finally:
        sys.modules["contextlib"] = saved
    launch.swapped_cuda_module = proto.swapped_cuda_module
    return types.SimpleNamespace(ctx=ctx, proto=proto, launch=launch, codes=codes)


def kernel_module(world):
    """A user module: a kernel and a device function whose globals bind the
    real cuda under two names; the device function is a FakeCUDAKernel."""
    globs = {"cuda": REAL_CUDA, "cu": REAL_CUDA, "threading": threading}
    exec("def dev_body():\n    return cuda\n"
         "def kernel_body():\n"
         "    dev()\n"
         "    threading.current_thread().syncthreads()\n"
         "    dev()\n", globs)
    globs["dev"] = world.launch.FakeCUDAKernel(globs["dev_body"], True)
    kern = world.launch.FakeCUDAKernel(globs["kernel_body"], False, grid_dim=(1,), block_dim=(2,))
    return globs, kern


def settle():
    """Wait until no simulated thread of an earlier run is alive (threads an
    interrupted launch left at its barrier are aborted, as the launch's own
    abort path would)."""
    for t in threading.enumerate():
        if t is threading.current_thread() or t.name == "sampler":
            continue
        if hasattr(t, "syncthreads_event"):
            t.abort = True
            t.syncthreads_blocked = False
            t.syncthreads_event.set()
        t.join(5)


# ---------------------------------------------------------------------------
# Scenarios: each returns a callable running one host-side action.
# ---------------------------------------------------------------------------
def sc_single(world):
    globs, kern = kernel_module(world)
    fake = types.ModuleType("fake")

    def run():
        with world.proto.swapped_cuda_module(globs["dev_body"], fake):
            pass
    return run


def sc_nested(world):
    globs, kern = kernel_module(world)
    fake = types.ModuleType("fake")

    def run():
        with world.proto.swapped_cuda_module(globs["dev_body"], fake):
            try:
                with world.proto.swapped_cuda_module(globs["dev_body"], fake):
                    pass
            except BaseException:
                # On 3.13.0 an interrupt in the inner swap's scan can leave
                # the swap's lock held (interrupt_unwind.py); the outer
                # swap's exit would then wait for it forever. Free it, so
                # that the trial ends and reports where it landed.
                release_held_locks(world.proto)
                raise
    return run


def release_held_locks(proto):
    """Releases every held threading.Lock among proto's globals and their
    dicts' values (the swap's locks)."""
    lock_types = type(threading.Lock())
    values = list(proto.__dict__.values())
    for v in list(values):
        if isinstance(v, dict):
            values += list(v.values())
    for v in values:
        if isinstance(v, lock_types) and v.locked():
            v.release()


class Boom(Exception):
    pass


def sc_raise(world):
    globs, kern = kernel_module(world)
    fake = types.ModuleType("fake")

    def run():
        try:
            with world.proto.swapped_cuda_module(globs["dev_body"], fake):
                raise Boom()
        except Boom:
            pass
    return run


def sc_launch(world):
    globs, kern = kernel_module(world)

    def run():
        kern()
    return run


def sc_host_device_call(world):
    globs, kern = kernel_module(world)

    def run():
        globs["dev"]()
    return run


def sc_inline(world):
    """Several host threads: another host's launch has set _kernel_context
    (truthy) when this one calls a kernel, so FakeCUDAKernel.__call__ runs
    the kernel at once as a device function (k:84-86) instead of launching
    it. The kernel's body is dev_body (no syncthreads: the main thread has
    none)."""
    globs, kern = kernel_module(world)
    other = world.launch.FakeCUDAModule((1,), (1,), 0)
    inline = world.launch.FakeCUDAKernel(globs["dev_body"], False)

    def run():
        world.launch._kernel_context = other  # the other host's launch runs
        try:
            inline()
        finally:
            world.launch._kernel_context = None
    return run


def sc_push_busy(world):
    """Several host threads: another host's launch stored _kernel_context
    after this host's device check read None, so _push_kernel_context's
    assert fails (k:31); the caller catches the AssertionError."""
    globs, kern = kernel_module(world)
    other = world.launch.FakeCUDAModule((1,), (1,), 0)
    mine = world.launch.FakeCUDAModule((1,), (1,), 0)

    def run():
        world.launch._kernel_context = other
        try:
            with world.launch._push_kernel_context(mine):
                pass
        except AssertionError:
            pass
        finally:
            world.launch._kernel_context = None
    return run


SCENARIOS = {"single": sc_single, "nested": sc_nested, "raise": sc_raise,
             "launch": sc_launch, "host_device_call": sc_host_device_call,
             "inline": sc_inline, "push_busy": sc_push_busy}

# Target functions: (name, how to get its code from a world, scenarios).
SWAP_SCENARIOS = ["single", "nested", "raise"]


def _gen_code(world):
    return world.proto.swapped_cuda_module.__wrapped__.__code__


TARGETS = [("%s.swapped_cuda_module" % v, v, v, _gen_code, SWAP_SCENARIOS) for v in VARIANTS] + [
    ("contextlib.contextmanager.helper", "merged", "contextlib",
     lambda w: w.proto.swapped_cuda_module.__code__, SWAP_SCENARIOS),
    ("contextlib._GeneratorContextManager.__enter__", "merged", "contextlib",
     lambda w: w.ctx._GeneratorContextManager.__enter__.__code__, SWAP_SCENARIOS),
    ("contextlib._GeneratorContextManager.__exit__", "merged", "contextlib",
     lambda w: w.ctx._GeneratorContextManager.__exit__.__code__, SWAP_SCENARIOS),
    ("launch.FakeCUDAKernel.__call__", "merged", "launch",
     lambda w: w.launch.FakeCUDAKernel.__call__.__code__, ["launch", "host_device_call", "inline"]),
    ("launch._push_kernel_context", "merged", "launch",
     lambda w: w.launch._push_kernel_context.__wrapped__.__code__, ["launch", "push_busy"]),
    ("launch.BlockManager.run", "merged", "launch", lambda w: w.launch.BlockManager.run.__code__, ["launch"]),
    # These two run only in simulated (non-main) threads: no interrupt can
    # land there (signals are handled by the main thread only); GIL only.
    ("launch.BlockThread.run", "merged", "launch", lambda w: w.launch.BlockThread.run.__code__, []),
    ("launch.BlockThread.syncthreads", "merged", "launch",
     lambda w: w.launch.BlockThread.syncthreads.__code__, []),
]
GIL_SCENARIOS = {"launch.BlockThread.run": ["launch"], "launch.BlockThread.syncthreads": ["launch"]}


def kernel_lines():
    """{launch.py line: kernel.py line} from the "# k:N" marks in launch.py."""
    out = {}
    for i, text in enumerate(SOURCES.text["launch"][0].splitlines(), 1):
        m = re.search(r"# k:(\d+)", text)
        if m:
            out[i] = int(m.group(1))
    return out


# ---------------------------------------------------------------------------
# The interrupt probe.
# ---------------------------------------------------------------------------
class _Trip(int):
    # Reading .fire calls _thread.interrupt_main(self) from C: the pending
    # SIGINT is set with no CALL instruction, so no eval-breaker check follows
    # in the trace function.
    fire = property(_thread.interrupt_main)


TRIP = _Trip(signal.SIGINT)


class Probe:
    """Trace only until instruction `offset` of `code` is about to run (its
    `nth` execution), then stop tracing and set the pending SIGINT."""

    def __init__(self, code, offset, is_resume, nth=0):
        self.code = code
        self.offset = offset
        self.is_resume = is_resume
        self.left = nth
        self.fired = False
        # Unarmed, it traces without firing: the run before the trial's
        # (see interrupt_trials).
        self.armed = True

    def global_trace(self, frame, event, arg):
        if frame.f_code is not self.code:
            return None
        if self.armed and self.is_resume and event == "call" and frame.f_lasti == self.offset:
            if self.left:
                self.left -= 1
                return None
            return self.fire(frame)
        frame.f_trace_opcodes = True
        return self.local_trace

    def local_trace(self, frame, event, arg):
        if self.armed and event == "opcode" and frame.f_lasti == self.offset and not self.is_resume:
            if self.left:
                self.left -= 1
                return self.local_trace
            return self.fire(frame)
        return self.local_trace

    def fire(self, frame):
        frame.f_trace_opcodes = False
        frame.f_trace = None
        sys.settrace(None)  # a CALL (checks the eval breaker): nothing is pending yet
        self.fired = True
        TRIP.fire  # sets the pending SIGINT; only LOAD_FAST/RETURN_VALUE follow
        return None


def instr_at(code, lasti):
    """The offset of the instruction that f_lasti / tb_lasti `lasti` is in.
    While a CALL runs a Python function inline, 3.11 leaves the caller's
    lasti on the CALL's last inline-cache entry, not on the CALL itself."""
    offs = _OFFSETS.get(code)
    if offs is None:
        offs = _OFFSETS[code] = [i.offset for i in dis.get_instructions(code)]
    return max(o for o in offs if o <= lasti)


_OFFSETS = {}


def landing(exc, code):
    """(offset, 'direct'|'callee') where `exc` passed through a frame of
    `code` first, or ('outside', 'in <function>:<opname>') naming the frame
    and instruction that raised it when it never did."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        if tb.tb_frame.f_code is code:
            return instr_at(code, tb.tb_lasti), ("direct" if tb.tb_next is None else "callee")
        last = tb
        tb = tb.tb_next
    if last is None:
        return ("outside", "")
    c = last.tb_frame.f_code
    ops = {i.offset: i.opname for i in dis.get_instructions(c)}
    return ("outside", "in_%s:%s" % (c.co_name, ops.get(instr_at(c, last.tb_lasti), "?")))


def instructions(code):
    return [i for i in dis.get_instructions(code)]


def specialized_names(code):
    try:
        return {i.offset: i.opname for i in dis.get_instructions(code, adaptive=True)}
    except TypeError:  # before 3.11
        return {}


def interrupt_trials(target, mode):
    """{offset: [landing entries]} for every instruction of the target reached
    by its scenarios, in one mode."""
    name, variant, module, get_code, scenarios = target
    fresh = (module,) if mode == "cold" else ()
    out = {}
    probe_world = new_world(variant, fresh)
    if mode == "warm":
        # Warm the shared code objects once for every scenario.
        for sc in scenarios:
            run = SCENARIOS[sc](probe_world)
            for _ in range(WARM_RUNS):
                run()
                settle()
    code0 = get_code(probe_world)
    spec = specialized_names(code0) if mode == "warm" else {}
    for sc in scenarios:
        for ins in instructions(code0):
            world = new_world(variant, fresh)
            code = get_code(world)
            run = SCENARIOS[sc](world)
            probe = Probe(code, ins.offset, ins.opname == "RESUME")
            # 3.13 turns a frame's opcode events on only from its next
            # resumption, so the first frame of a code object traced in a
            # settrace session gets none before its first yield: the trial
            # runs after one unarmed run of a world that shares its code
            # (the same compilation), under the same trace function.
            warm_up = SCENARIOS[sc](new_world(variant, like=world)) if TRACE_WARM_UP else None
            got = None
            swallowed = []

            def unraisable(u, code=code, swallowed=swallowed):
                # Python code run from a C callback (a weakref callback when
                # a Thread object dies, say) took the pending interrupt: it
                # is printed as "Exception ignored" and lost.  Record during
                # which instruction of the target it happened.
                if isinstance(u.exc_value, KeyboardInterrupt):
                    f = sys._getframe()
                    while f is not None and f.f_code is not code:
                        f = f.f_back
                    swallowed.append(instr_at(code, f.f_lasti) if f is not None else "outside")
            saved_hook = sys.unraisablehook
            sys.unraisablehook = unraisable
            try:
                sys.settrace(probe.global_trace)
                try:
                    if warm_up is not None:
                        probe.armed = False
                        warm_up()
                        settle()
                        probe.armed = True
                    run()
                finally:
                    sys.settrace(None)
                    if probe.fired:
                        # An interrupt still pending (it landed nowhere in
                        # run()) is taken here, at the next check, outside.
                        for _ in range(3):
                            pass
            except KeyboardInterrupt as e:
                got = landing(e, code)
            finally:
                sys.unraisablehook = saved_hook
            settle()
            if not probe.fired:
                continue
            if got is None and swallowed:
                got = (swallowed[0], "swallowed")
            if got is None:
                got = ("outside", "")
            out.setdefault(ins.offset, set()).add((sc, got[0], got[1]))
    return out, spec


# ---------------------------------------------------------------------------
# The GIL sampler.
# ---------------------------------------------------------------------------
SAMPLE_THREADS = 4  # threads looked at per sample (main + 3 simulated threads)
SAMPLE_DEPTH = 8    # frames looked at per thread, from the top


def _make_capture():
    """The sampler's loop, generated as straight-line code.  It must read the
    other threads' frames while holding the GIL without giving it up in
    between: ``iter(sys._current_frames, None)`` calls the C function from
    FOR_ITER (no eval-breaker check), and the reads that follow are only
    subscripts, attribute loads and forward jumps (none checks) up to the
    ``out.append`` that stores the record.  (A plain loop over frames would
    let the GIL go at its own checks, and then read a frame that has since
    returned: its f_lasti frozen at RETURN_VALUE, never a switch point.)"""
    src = ["def capture(current_frames, ids, out, stop_is_set, me, main, pad):",
           "    for fr in iter(current_frames, None):"]
    rec = []
    for k in range(SAMPLE_THREADS):
        src.append("        t%d = ids[%d]" % (k, k))
        src.append("        f = fr[t%d] if t%d in fr else None" % (k, k))
        rec.append("t%d" % k)
        for d in range(SAMPLE_DEPTH):
            src.append("        c%d_%d = f.f_code if f is not None else None" % (k, d))
            src.append("        l%d_%d = f.f_lasti if f is not None else -1" % (k, d))
            src.append("        f = f.f_back if f is not None else None")
            rec += ["c%d_%d" % (k, d), "l%d_%d" % (k, d)]
    src.append("        out.append((%s))" % ", ".join(rec))
    src.append("        ids[:] = ([main] + [t for t in fr if t != me and t != main] + pad)[:%d]" % SAMPLE_THREADS)
    src.append("        if stop_is_set():")
    src.append("            return")
    ns = {}
    exec("\n".join(src), ns)
    return ns["capture"]


_capture = _make_capture()


def sample_threads(body, seconds, exclude=()):
    """Run body() repeatedly in this thread for `seconds` with a sampler
    thread capturing where every other thread is parked; return the records
    as [(thread id, [(code, lasti), ...top first])]."""
    out = []
    ids = []
    stop = threading.Event()

    def sampler():
        me = threading.get_ident()
        main = threading.main_thread().ident
        pad = [-1] * SAMPLE_THREADS
        ids[:] = ([main] + pad)[:SAMPLE_THREADS]
        while not stop.is_set():
            _capture(sys._current_frames, ids, out, stop.is_set, me, main, pad)

    old = sys.getswitchinterval()
    gc_was = gc.isenabled()
    gc.disable()  # no collection (and its callbacks) inside a capture
    sys.setswitchinterval(1e-6)
    th = threading.Thread(target=sampler, name="sampler")
    th.start()
    try:
        t0 = time.monotonic()
        while time.monotonic() - t0 < seconds:
            body()
    finally:
        stop.set()
        th.join()
        sys.setswitchinterval(old)
        if gc_was:
            gc.enable()
    recs = []
    for r in out:
        for k in range(SAMPLE_THREADS):
            base = k * (1 + 2 * SAMPLE_DEPTH)
            tid = r[base]
            frames = [(r[base + 1 + 2 * d], r[base + 2 + 2 * d]) for d in range(SAMPLE_DEPTH)
                      if r[base + 1 + 2 * d] is not None]
            if tid != -1 and frames:
                recs.append((tid, frames))
    return recs


def gil_samples(target_codes_by_name, variant, scenarios, seconds):
    """{name: {(offset, 'direct'|'callee'): count}} while the scenarios run in
    a loop in the main thread (warm, untraced), and the number of samples."""
    world = new_world(variant)
    runs = [SCENARIOS[sc](world) for sc in scenarios]
    codes = {n: g(world) for n, g in target_codes_by_name.items()}
    by_code = {c: n for n, c in codes.items()}
    seen = {n: {} for n in codes}

    def body():
        for r in runs:
            r()
            settle()

    recs = sample_threads(body, seconds)
    for tid, frames in recs:
        for d, (code, lasti) in enumerate(frames):
            nm = by_code.get(code)
            if nm is not None:
                key = (instr_at(code, lasti), "direct" if d == 0 else "callee")
                seen[nm][key] = seen[nm].get(key, 0) + 1
    return seen, len(recs)


# ---------------------------------------------------------------------------
# Controls and specific facts.
# ---------------------------------------------------------------------------
FACTS = []


def fact(name):
    def reg(f):
        FACTS.append((name, f))
        return f
    return reg


def _probe_function(fn, offset_pred, *args):
    """Run fn(*args) with the probe at the first instruction satisfying
    offset_pred; return (opname probed, landing opname or 'outside')."""
    code = fn.__code__
    ins = [i for i in instructions(code) if offset_pred(i)][0]
    probe = Probe(code, ins.offset, ins.opname == "RESUME")
    ops = {i.offset: i.opname for i in instructions(code)}
    try:
        sys.settrace(probe.global_trace)
        try:
            if TRACE_WARM_UP:  # see interrupt_trials
                probe.armed = False
                fn(*args)
                probe.armed = True
            fn(*args)
        finally:
            sys.settrace(None)
        for _ in range(2):  # a loop: its JUMP_BACKWARD takes a pending interrupt
            pass
        return ins.opname, "none"
    except KeyboardInterrupt as e:
        got = landing(e, code)
        if got[0] == "outside":
            return ins.opname, "outside"
        return ins.opname, "%s@%d/%s" % (ops.get(got[0], "?"), got[0], got[1])


def ctl_straight(a, b):
    x = a
    y = b
    z = x
    return z


def ctl_loop(n):
    x = 0
    for i in range(n):
        x = i
    return x


def ctl_call(d):
    x = d
    y = len(x)
    z = d.copy()
    return y, z


@fact("probe_lands_at_next_eval_breaker_check")
def check_controls():
    notes, ok = [], True
    # (1) straight-line code without calls or loops: nothing in it checks,
    # the interrupt lands after it returned (outside).
    op, got = _probe_function(ctl_straight, lambda i: i.opname == "STORE_FAST", 1, 2)
    ok &= got == "outside"
    notes.append("straight-line function, set at %s: lands %s" % (op, got))
    # (2) a loop: set at the first STORE_FAST in the body, lands at JUMP_BACKWARD.
    op, got = _probe_function(ctl_loop, lambda i: i.opname == "STORE_FAST" and i.argval == "x" and i.offset > 20, 3)
    ok &= got.startswith("JUMP_BACKWARD@") and got.endswith("/direct")
    notes.append("loop body, set at %s: lands %s" % (op, got))
    # (3) a C call: set at a LOAD_FAST before `len(x)`: lands at that CALL,
    # after len ran (direct).
    op, got = _probe_function(ctl_call, lambda i: i.opname == "LOAD_FAST" and i.argval == "d", {})
    ok &= got.startswith("CALL@") and got.endswith("/direct")
    notes.append("before a C call, set at %s: lands %s" % (op, got))
    # (4) at RESUME (function start): lands at RESUME itself.
    op, got = _probe_function(ctl_straight, lambda i: i.opname == "RESUME", 1, 2)
    # 3.13 (settrace on sys.monitoring) reports the 'call' event after
    # RESUME's own check: set there, the interrupt finds no later check in
    # a straight-line function and lands outside. So on 3.13 this method
    # cannot observe a landing at a function's RESUME.
    if sys.version_info < (3, 13):
        ok &= got.startswith("RESUME@0/direct")
    else:
        ok &= got == "outside"
    notes.append("at function start, set at %s: lands %s" % (op, got))
    # (5) negative control of the probe: calling interrupt_main() from the
    # trace function (a CALL: it checks the eval breaker) raises inside the
    # tracer, which is why the probe reads a property instead.
    def bad_trace(frame, event, arg):
        if frame.f_code is ctl_straight.__code__:
            sys.settrace(None)
            _thread.interrupt_main()
        return None
    where = "none"
    try:
        sys.settrace(bad_trace)
        ctl_straight(1, 2)
    except KeyboardInterrupt as e:
        tb = e.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        where = tb.tb_frame.f_code.co_name
    finally:
        sys.settrace(None)
    ok &= where == "bad_trace"
    notes.append("a trace function that CALLs interrupt_main is interrupted in itself (%s)" % where)
    return ok, "; ".join(notes)


@fact("signals_only_in_main_thread")
def check_main_only():
    """A pending SIGINT is not raised in another thread, however long it
    runs through eval-breaker checks; the main thread takes it."""
    got = {}
    ready = threading.Event()

    def worker():
        try:
            ready.set()
            t0 = time.monotonic()
            while time.monotonic() - t0 < 0.3:
                pass
            got["worker"] = "no interrupt"
        except KeyboardInterrupt:
            got["worker"] = "KeyboardInterrupt"

    th = threading.Thread(target=worker)
    th.start()
    ready.wait()
    try:
        _thread.interrupt_main()
        for _ in range(10):
            pass
        got["main"] = "no interrupt"
    except KeyboardInterrupt:
        got["main"] = "KeyboardInterrupt"
    th.join()
    return got == {"worker": "no interrupt", "main": "KeyboardInterrupt"}, "worker: %s, main: %s" % (
        got.get("worker"), got.get("main"))


def _with_lock(lock):
    with lock:
        pass


@fact("uncontended_with_lock_acquires_then_interrupt_releases")
def check_with_uncontended():
    """Pending at BEFORE_WITH of `with lock:` (free lock): the acquire does
    not check signals, the interrupt lands at the next check (inside the with
    or at its __exit__ CALL), and the lock is released."""
    lock = threading.Lock()
    op, got = _probe_function(_with_lock, lambda i: i.opname == "BEFORE_WITH", lock)
    ok = got.startswith("CALL@") and not lock.locked()
    return ok, "set at %s: lands %s; lock held afterwards: %s" % (op, got, lock.locked())


@fact("contended_acquire_interrupted_by_real_sigint")
def check_contended():
    """Main thread blocked in `with lock:` (held by another thread); a real
    SIGINT sent to the main thread interrupts the acquire: KeyboardInterrupt
    is raised at BEFORE_WITH (direct), and main never held the lock."""
    lock = threading.Lock()
    lock.acquire()
    main = threading.main_thread().ident

    def sender():
        time.sleep(0.2)
        signal.pthread_kill(main, signal.SIGINT)
        time.sleep(0.2)
        lock.release()

    th = threading.Thread(target=sender)
    th.start()
    code = _with_lock.__code__
    ops = {i.offset: i.opname for i in instructions(code)}
    res = "no interrupt"
    try:
        _with_lock(lock)
    except KeyboardInterrupt as e:
        got = landing(e, code)
        res = "outside" if got[0] == "outside" else "%s@%d/%s" % (ops.get(got[0]), got[0], got[1])
    th.join()
    ok = res.startswith("BEFORE_WITH@") and res.endswith("/direct") and not lock.locked()
    return ok, "KeyboardInterrupt at %s; lock free afterwards: %s" % (res, not lock.locked())


@fact("gil_switch_only_at_checks_control")
def check_gil_control():
    """A spinning loop with no calls: every sampled switch inside it is at an
    instruction that checks the eval breaker (RESUME, a backward jump, or
    COMPARE_OP specialized as COMPARE_OP_*_JUMP, which fuses the loop's
    backward jump), and there are many samples."""
    def spin(n):
        x = 0
        while x < n:
            x = x + 1
            y = x
            y = y
        return x

    recs = sample_threads(lambda: spin(2000), 0.4)
    seen = {}
    for tid, frames in recs:
        if frames[0][0] is spin.__code__:
            seen[frames[0][1]] = seen.get(frames[0][1], 0) + 1
    ops = {i.offset: i.opname for i in instructions(spin.__code__)}
    spec = specialized_names(spin.__code__)
    at = {"%s(%s)@%d" % (ops[o], spec.get(o, ops[o]), o): n for o, n in sorted(seen.items())}
    allowed = all(ops[o] in ("RESUME", "JUMP_BACKWARD", "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE")
                  or spec.get(o, "").endswith("_JUMP") for o in seen)
    n = sum(seen.values())
    return allowed and n >= 20, "%d samples in spin, at %s" % (n, at)


@fact("interrupt_at_yield_defers_finally_to_the_exceptions_death")
def check_deferred_finally():
    """merged: an interrupt pending at the generator's yield lands in
    contextlib's __enter__ after next() returned; the caller's `with` never
    starts, so nothing resumes the generator: the module stays swapped with
    the count at 1 while the exception (its traceback holds the context
    manager) lives, and the generator's finally runs only when it is
    dropped (the generator is closed when freed)."""
    w = new_world("merged")
    globs, _ = kernel_module(w)
    code = w.proto.swapped_cuda_module.__wrapped__.__code__
    off = [i.offset for i in instructions(code) if i.opname == "YIELD_VALUE"][0]
    fake = types.ModuleType("fake")

    def run(w=w, globs=globs, fake=fake):
        with w.proto.swapped_cuda_module(globs["dev_body"], fake):
            pass
    probe = Probe(code, off, False)
    where, held, dropped = None, None, None
    try:
        sys.settrace(probe.global_trace)
        if TRACE_WARM_UP:  # see interrupt_trials: a world sharing the code
            probe.armed = False
            w2 = new_world("merged", like=w)
            run(w2, kernel_module(w2)[0], types.ModuleType("fake"))
            probe.armed = True
        run()
    except KeyboardInterrupt as e:
        where = landing(e, code)
        held = (globs["cuda"] is fake, sum(w.proto._swap_refcount.values()))
        del e
    finally:
        sys.settrace(None)
    dropped = (globs["cuda"] is fake, sum(w.proto._swap_refcount.values()))
    ok = where == ("outside", "in___enter__:CALL") and held == (True, 1) and dropped == (False, 0)
    return ok, ("landed %s; while the exception lives: swapped=%s count=%s; after it is dropped: "
                "swapped=%s count=%s" % (where, held and held[0], held and held[1], dropped[0], dropped[1]))


# ---------------------------------------------------------------------------
def main():
    signal.signal(signal.SIGINT, signal.default_int_handler)
    out = {"python": sys.version,
           "static": {"breaker_generic": BREAKER_GENERIC, "precall_checks": PRECALL_CHECKS,
                      "precall_no_check": PRECALL_NO_CHECK, "calling": CALLING},
           "functions": [], "facts": []}
    gil_time = float(os.environ.get("SWITCHPOINTS_GIL_SECONDS", "0.3"))

    # GIL samples, one sampling run per scenario group.
    gil = {}
    groups = {}
    for name, variant, module, get_code, scenarios in TARGETS:
        scs = tuple(scenarios or GIL_SCENARIOS.get(name, []))
        groups.setdefault((variant, scs), {})[name] = get_code
    gil_counts = {}
    for (variant, scs), codes in sorted(groups.items()):
        seen, n = gil_samples(codes, variant, list(scs), gil_time)
        gil.update(seen)
        gil_counts["%s %s" % (variant, ",".join(scs))] = n

    for target in TARGETS:
        name, variant, module, get_code, scenarios = target
        world = new_world(variant, (module,))
        code = get_code(world)
        cold, _ = interrupt_trials(target, "cold") if scenarios else ({}, {})
        warm, spec = interrupt_trials(target, "warm") if scenarios else ({}, {})
        if not spec:
            # Warm the code without probes to report its specialized names.
            w = new_world(variant)
            for sc in GIL_SCENARIOS.get(name, scenarios):
                run = SCENARIOS[sc](w)
                for _ in range(WARM_RUNS):
                    run()
                    settle()
            spec = specialized_names(get_code(w))
        rows = []
        upstream = kernel_lines() if module == "launch" else {}
        inss = instructions(code)
        for idx, ins in enumerate(inss):
            line = ins.positions.lineno if getattr(ins, "positions", None) else None
            sp = spec.get(ins.offset, ins.opname)
            nxt = inss[idx + 1] if idx + 1 < len(inss) else None

            def fmt(m):
                return sorted("%s:%s/%s" % t if t[1] == "outside" else "%s:%d/%s" % t for t in m.get(ins.offset, ()))
            rows.append({"offset": ins.offset, "opname": ins.opname, "arg": ins.arg if ins.arg is not None else -1,
                         "line": line if line is not None else 0,
                         "kernel_line": upstream.get(line, 0),
                         "static": static_class(ins, nxt), "specialized": sp,
                         "interrupt": {"cold": fmt(cold), "warm": fmt(warm)},
                         "gil": sorted("%s:%d" % (k[1], v) for k, v in gil.get(name, {}).items()
                                       if k[0] == ins.offset)})
        out["functions"].append({"name": name, "file": os.path.relpath(code.co_filename, os.path.dirname(os.path.dirname(PROTO_DIR)))
                                 if code.co_filename.startswith(os.path.dirname(PROTO_DIR)) else
                                 "contextlib.py (stdlib)", "first_line": code.co_firstlineno,
                                 "scenarios": scenarios, "instructions": rows})
    out["gil_samples"] = gil_counts

    for name, check in FACTS:
        try:
            holds, detail = check()
        except Exception:
            sys.settrace(None)
            holds, detail = False, "check raised: " + traceback.format_exc().strip().splitlines()[-1]
        out["facts"].append({"name": name, "holds": bool(holds), "detail": detail})
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

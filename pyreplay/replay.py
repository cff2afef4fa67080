#!/usr/bin/env python3
"""Replay of a swapcheck counterexample (variant @@VARIANT@@) on real threads.

The scenario (swapcheck's scenario format):

@@SCENARIO_TEXT@@

Written by swapcheck's pyreplay (`explore -emit-python FILE`); needs CPython
3.11 (whose opcode names the model cites; others are refused with exit
status 2). Two targets:

--target rendition (the default; needs only python3): the variant's
swapped_cuda_module (embedded below, from testdata/python/) under a small
launch harness that does what numba's CUDA simulator does: the host thread
sets the kernel context, swaps the kernel's module around the launch and
starts one threading.Thread per CUDA thread; each device-function call swaps
the callee's module. A fake `numba` package whose `cuda` has no `local`
plays the real module.

--target numba (needs numba, e.g. Debian's python3-numba for /usr/bin/python3):
the installed numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1): the scenario's
modules are written out as real module files, the kernel and the device
functions are real @cuda.jit functions, launched through the simulator's own
FakeCUDAKernel and BlockManager, so a failure is the error a user sees. When
the installed swapped_cuda_module is not this trace's variant, the script
says which one it found and stops (exit status 2); --swap rendition installs
the variant's rendition in its place, on numba's real launch machinery.

The interleaving is forced: every traced thread gets an "opcode" trace event
before each bytecode (sys.settrace, frame.f_trace_opcodes). Each model step
begins at an anchor, the first opcode of the bytecodes it names, at its line.
A thread that reaches an anchor ends the turn it holds and waits for its next
turn in TURNS; after the last turn every thread runs freely to its end. A
turn that cannot be forced (the thread is blocked, finished, or reached
another step than the model's) stops the replay: exit status 2.

An interrupt (the model's SIGINT pseudo-thread) is a real pending SIGINT:
the host is this script's main thread, and its trace function, at the
instruction whose own eval-breaker check the model's interrupt lands at,
sets SIGINT pending as its last act (_thread.interrupt_main, read as a
property: no check follows in the trace function); CPython raises the
KeyboardInterrupt at that check, and the script checks, from the
traceback, that it was raised there. The host's caller catches it and goes
on to the next launch, as a test runner does.

Exit status: 1 when the violation the model found happened (for a schedule
without one: when any violation happened), 0 when not, 2 when the replay
failed. Usage:
    python3 replay.py [--target rendition|numba] [--swap installed|rendition] [--timeout SECONDS]
"""
import argparse
import builtins
import dis
import importlib
import importlib.util
import inspect
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import types
import _thread

if sys.version_info[:2] != (3, 11):
    # The model's steps name CPython 3.11's opcodes; 3.12 renames some
    # (LOAD_METHOD) and inlines comprehensions, 3.10 has others.
    print("replay failed: this replay needs CPython 3.11, whose opcodes the model's steps name; this is %s"
          % sys.version.split()[0])
    sys.exit(2)

DATA = json.loads(@@DATA@@)

# testdata/python/<variant>.py, verbatim.
VARIANT_SOURCE = r'''@@VARIANT_SOURCE@@'''

SCENARIO_SOURCE = r'''@@SCENARIO_SOURCE@@'''

SCENARIO_FILE = "<scenario>"
TIMEOUT = 5.0  # seconds without a turn ending before a turn counts as not forced
NAMES = DATA["thread_names"]
TURNS = DATA["turns"]
SIG = DATA["signal"]  # the interrupt's pseudo-thread (SIGINT), or -1
HOST = 0
COMPREHENSIONS = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>")


class ReplayFailed(Exception):
    """The replay cannot run as the model says (exit status 2)."""


def fail_now(msg):
    print("replay failed: " + msg)
    exit_now(2)


def exit_now(code):
    """Exit without waiting for the simulated threads (daemons that may
    linger, as numba's do after an aborted launch), removing the module
    files --target numba wrote."""
    sys.stdout.flush()
    if T.tmp:
        shutil.rmtree(T.tmp, ignore_errors=True)
    os._exit(code)


# ---------------------------------------------------------------------------
# What the chosen target sets up (see setup_rendition, setup_numba).
# ---------------------------------------------------------------------------
class Target:
    def __init__(self):
        self.describe = ""
        self.codes = {}       # code object -> (tag, line offset) of every traced code
        self.files = {}       # filename -> tag: every code of the file is traced
        self.show = {}        # tag -> file name shown in messages
        self.offset = {}      # tag -> what to add to a model line to show the real one
        self.turn_at = []     # per turn: the anchors that may begin it
        self.turn_land = []   # per turn: an interrupt's landing instruction, or None
        self.anchors = {}     # (tag, line, k) -> opcode names
        self.scans = set()    # (tag, line, k) of the scan's passes
        self.uses = {}        # (tag, line) -> the global a use loads
        self.releases = {}    # (tag, line, k) -> opcode: the host's polling loop (numba)
        self.set_context = None  # (tag, line, k) of _kernel_context = mod (numba)
        self.modules = []     # the scenario's module globals, in DATA["modules"] order
        self.real_cuda = None
        self.proto = {}       # the variant's module globals (its registries)
        self.host = None      # the host's program
        self.tmp = None       # the directory of the module files (numba)
        self.check_codes = []  # (tag, code, line offset): what the anchors must be instructions of
        self.gpu_threads = []  # rendition: the harness's threads
        # numba: how a BlockThread's first traced call names its model
        # thread, the launch running, the threads so named, and the code of
        # BlockThread.run, whose return is a thread's end.
        self.identify = None
        self.launch = 0
        self.block_threads = {}
        self.thread_run_code = None


T = Target()


def add_anchor(a):
    T.anchors.setdefault((a["tag"], a["line"], a["k"]), set()).update(a["ops"])
    if a.get("scan"):
        T.scans.add((a["tag"], a["line"], a["k"]))
    if a.get("use"):
        T.uses[(a["tag"], a["line"])] = a["use"]


def anchor_text(a):
    line = a["line"] + T.offset.get(a["tag"], 0)
    return "%s:%d %s" % (T.show.get(a["tag"], a["tag"]), line, "/".join(a["ops"]))


def codes_of(code):
    """code and every code object nested in it."""
    out = [code]
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out.extend(codes_of(c))
    return out


# ---------------------------------------------------------------------------
# The turn scheduler.
# ---------------------------------------------------------------------------
class Scheduler:
    def __init__(self):
        self.cv = threading.Condition()
        self.turn = 0
        self.failure = None
        self.mine = [[] for _ in NAMES]
        for i, t in enumerate(TURNS):
            if not t.get("noop"):
                self.mine[t["thread"]].append(i)
        self.pos = [0] * len(NAMES)
        self.holding = [False] * len(NAMES)
        self.state = ["not started"] * len(NAMES)
        self.last_progress = time.monotonic()
        # land: the interrupt's turn that comes before the host's next
        # turn, once the host holds its turn before it: the host sets the
        # pending SIGINT at that turn's landing (see _local_trace).
        self.land = None
        self.landed = 0
        self._pass_noops()
        self.free = self.turn == len(TURNS)
        if SIG >= 0:
            self.state[SIG] = "not due"

    def _pass_noops(self):
        # A no-op turn (the host's local steps after a landing, which its
        # turn before ran already; the interrupt's end once the host has
        # finished) needs no thread anywhere: it passes at once.
        while self.turn < len(TURNS) and TURNS[self.turn].get("noop"):
            self.turn += 1

    def _end_turn(self, t):
        # The host also runs the interrupt's turn: the unwinding from the
        # check that raised it, up to the host's next anchor.
        for u in ((t, SIG) if t == HOST and SIG >= 0 else (t,)):
            if self.holding[u]:
                self.holding[u] = False
                self.turn += 1
                self._pass_noops()
                self.last_progress = time.monotonic()
                if self.turn == len(TURNS):
                    self.free = True
                self.cv.notify_all()

    def _next(self, t):
        return self.mine[t][self.pos[t]] if self.pos[t] < len(self.mine[t]) else len(TURNS)

    def _update_land(self):
        """The host holds a turn: is an interrupt due before its next one?"""
        self.land = None
        if SIG < 0:
            return
        i = self._next(SIG)
        if i < self._next(HOST):
            self.land = i
            self.state[SIG] = "due in turn %d: the host is to reach %s" % (i + 1, T.turn_land[i]["text"])

    def fail(self, msg):
        if self.failure is None:
            self.failure = msg
        self.cv.notify_all()

    def arrive(self, t, tag, line, op, k, where):
        """Thread t is about to run op, the k-th on line of tag: an anchor."""
        with self.cv:
            self._end_turn(t)
            if self.free or self.failure:
                return
            if t == HOST and self.land is not None:
                i = self.land
                self.fail("turn %d of %d: the interrupt was to land at %s, but the host reached %s first"
                          % (i + 1, len(TURNS), T.turn_land[i]["text"], where))
                return
            if self.pos[t] >= len(self.mine[t]):
                # Its turns are over: it stays before its next step until the
                # schedule ends.
                self.state[t] = "parked before " + where
                while not self.free and not self.failure:
                    self.cv.wait(0.05)
                return
            i = self.mine[t][self.pos[t]]
            wants = T.turn_at[i]
            if not any((w["tag"], w["line"], w["k"]) == (tag, line, k) and op in w["ops"] for w in wants):
                self.fail("turn %d of %d: %s reached %s, but the model's next step for it is %s (%s)"
                          % (i + 1, len(TURNS), NAMES[t], where, " or ".join(anchor_text(w) for w in wants),
                             TURNS[i]["where"]))
                return
            self.state[t] = "waiting for turn %d at %s" % (i + 1, where)
            while self.turn != i and not self.failure:
                self.cv.wait(0.05)
            if self.failure:
                return
            self.holding[t] = True
            self.pos[t] += 1
            self.state[t] = "running turn %d (%s)" % (i + 1, TURNS[i]["where"])
            if t == HOST:
                self._update_land()

    def interrupted(self, i, where):
        """The host's check raised the interrupt of turn i (at where): the
        host ends the turn it held, waits for turn i, and runs it."""
        with self.cv:
            self._end_turn(HOST)
            if self.free or self.failure:
                return
            self.state[HOST] = "interrupted at %s, waiting for turn %d" % (where, i + 1)
            while self.turn != i and not self.failure:
                self.cv.wait(0.05)
            if self.failure:
                return
            self.holding[SIG] = True
            self.pos[SIG] += 1
            self.landed += 1
            self.state[SIG] = "landed"
            self.state[HOST] = "running turn %d (%s)" % (i + 1, TURNS[i]["where"])
            self._update_land()

    def release(self, t, where):
        """Thread t (numba's host) polls its threads: a read of their
        flags, which commutes with every step of a scenario without
        syncthreads and raising kernels, so it ends its turn and polls
        outside the turns until it reaches its next anchor."""
        with self.cv:
            self._end_turn(t)
            if self.free or self.failure:
                return
            self.state[t] = "polling its threads at " + where
        time.sleep(0.0005)

    def done(self, t):
        with self.cv:
            self._end_turn(t)
            self.state[t] = "finished"
            for u in ((t, SIG) if t == HOST and SIG >= 0 else (t,)):
                if not self.free and self.pos[u] < len(self.mine[u]):
                    i = self.mine[u][self.pos[u]]
                    self.fail("turn %d of %d: %s finished, but the model gives %s %s" % (
                        i + 1, len(TURNS), NAMES[t], NAMES[u], TURNS[i]["where"]))
                    break


SCHED = Scheduler()
_me = threading.local()
_opnames = {}
_tags = {}   # code -> (tag, offset) or None
_frames = {}  # frame -> [line, last offset, {opname: count}]
_scan_pass = {}  # frame -> [passes so far, the dict's keys, the model's globals of it]
# When an exception was first seen: (thread, turn, free, tag, line), kept
# on the exception object itself (first_seen): an id() outlives no object,
# and CPython gives a new exception the id of one freed before it.
SEEN_ATTR = "_swapcheck_first_seen"


def first_seen(exc):
    return getattr(exc, SEEN_ATTR, None)
FIRST_EXC = {}  # thread -> (turn when its first exception was seen, free)
USES = []    # (thread, what a use's global held when its turn began)
FAKES = {}   # launch -> its fake module (numba: FakeCUDAModule)
GLOBALS_OF = {}  # id(module globals) -> the model's globals of it


def _opname_table(code):
    ops = _opnames.get(code)
    if ops is None:
        ops = {i.offset: i.opname for i in dis.get_instructions(code)}
        _opnames[code] = ops
    return ops


def _opname(code, offset):
    return _opname_table(code).get(offset, "?")


def _tag_of(code):
    r = _tags.get(code, 0)
    if r == 0:
        r = T.codes.get(code)
        if r is None and code.co_filename in T.files:
            r = (T.files[code.co_filename], 0)
        _tags[code] = r
    return r


def _global_trace(frame, event, arg):
    if getattr(_me, "t", None) is None and not identify_thread():
        return None
    if _tag_of(frame.f_code) is None:
        return None
    frame.f_trace_opcodes = True
    return _local_trace


def _scan_is_step(frame):
    """Whether this pass of the scan of fn_globs.items() is a model step:
    a pass over one of the model's globals, or the exhausting pass. The
    interpreter's own globals (__name__, ...) and the imports' are never
    bound to cuda and nothing writes them: their passes fold into the
    step before."""
    if frame.f_code.co_name not in ("<listcomp>", "<dictcomp>", "<genexpr>"):
        # the same line's FOR_ITER over the comprehension's result (proposed:
        # "for k in [...]"), in the generator's own frame: local, no pass
        return False
    st = _scan_pass.get(frame)
    if st is None:
        fn_globs = frame.f_back.f_locals.get("fn_globs") if frame.f_back is not None else None
        if not isinstance(fn_globs, dict):
            SCHED.fail("the scan at %s:%d iterates no dict named fn_globs" % (frame.f_code.co_filename, frame.f_lineno))
            return False
        st = [0, list(fn_globs), GLOBALS_OF.get(id(fn_globs))]
        _scan_pass[frame] = st
    n = st[0]
    st[0] += 1
    keys, model = st[1], st[2]
    if n >= len(keys):
        # The exhausting pass. (Not popped on "return": a generator's
        # yield is one, and the scan goes on after it.)
        _scan_pass.pop(frame, None)
        return True
    return model is None or keys[n] in model


class _Trip(int):
    # Reading .fire calls _thread.interrupt_main(self) from C: the SIGINT
    # becomes pending as a real one does (trip_signal, the C handler's own
    # path) with no CALL instruction, so no eval-breaker check follows in
    # the trace function (testdata/cpython/switchpoints.py's probe).
    fire = property(_thread.interrupt_main)


TRIP = _Trip(signal.SIGINT)
TRIPPED = []  # [turn, frame, offset, where] of the interrupt set and not yet raised
LANDINGS = []  # (turn, where): each interrupt, raised where its turn says


def _instr_at(code, lasti):
    """The offset of the instruction f_lasti / tb_lasti lasti is in (3.11
    may leave it on a CALL's inline cache)."""
    return max(o for o in _opname_table(code) if o <= lasti)


def _landed(frame, exc, tb):
    """The host's first trace event of a KeyboardInterrupt: it must be the
    one the replay set, raised by the landing instruction's own check."""
    inner = tb
    while inner is not None and inner.tb_next is not None:
        inner = inner.tb_next
    raised = "?"
    if inner is not None:
        c = inner.tb_frame.f_code
        off = _instr_at(c, inner.tb_lasti)
        raised = "%s:%d %s@%d (in %s)" % (c.co_filename, inner.tb_lineno, _opname(c, off), off, c.co_name)
    if not TRIPPED:
        SCHED.fail("a KeyboardInterrupt the replay did not set was raised in the host at %s" % raised)
        return
    i, tframe, toff, where, caller = TRIPPED
    del TRIPPED[:]
    at = tb
    while at is not None and at.tb_frame is not tframe:
        at = at.tb_next
    if T.turn_land[i]["op"] == "PASS":
        # the generator expression's RESUME after its yield, the jump it
        # was set at, or its caller's CALL of dict() once it returned
        ok = False
        if inner is not None:
            c = inner.tb_frame.f_code
            iop = _opname(c, _instr_at(c, inner.tb_lasti))
            ok = (inner.tb_frame is tframe and (iop == "RESUME" or _instr_at(c, inner.tb_lasti) == toff)
                  or inner.tb_frame is caller and iop == "CALL")
    elif T.turn_land[i].get("yield"):
        # raised in contextlib's __enter__ by the CALL of next(), which
        # returned from the tripped generator's yield
        ok = False
        if inner is not None and inner.tb_frame.f_code.co_name == "__enter__":
            c = inner.tb_frame.f_code
            cm = inner.tb_frame.f_locals.get("self")
            gen = getattr(cm, "gen", None)
            ok = (_opname(c, _instr_at(c, inner.tb_lasti)) == "CALL"
                  and getattr(gen, "gi_frame", None) is tframe)
    elif T.turn_land[i].get("callee"):
        # raised by the RESUME of the function the landing CALL called
        ok = (at is not None and at.tb_next is inner and inner is not None and _instr_at(tframe.f_code, at.tb_lasti) == toff
              and _opname(inner.tb_frame.f_code, _instr_at(inner.tb_frame.f_code, inner.tb_lasti)) == "RESUME")
    else:
        ok = at is not None and at is inner and _instr_at(tframe.f_code, inner.tb_lasti) == toff
    if not ok:
        SCHED.fail("turn %d of %d: the interrupt set at %s was raised at %s: the replay drifted from the model's landing"
                   % (i + 1, len(TURNS), where, raised))
        return
    LANDINGS.append((i, where))
    SCHED.interrupted(i, where)


def _local_trace(frame, event, arg):
    if event == "opcode":
        code = frame.f_code
        off = frame.f_lasti
        op = _opname(code, off)
        raw = frame.f_lineno
        if raw is None:  # an instruction without a line (exception cleanup): never an anchor
            return _local_trace
        st = _frames.get(frame)
        # Occurrences are counted from the frame's arrival on the line; a
        # backward jump (a loop, a generator's next item) arrives anew.
        if st is None or st[0] != raw or off <= st[1]:
            st = [raw, off, {}]
            _frames[frame] = st
        st[1] = off
        k = st[2].get(op, 0)
        st[2][op] = k + 1
        tag, shift = _tag_of(code)
        line = raw - shift
        key = (tag, line, k)
        ops = T.anchors.get(key)
        if ops is not None and op in ops:
            if key in T.scans and not _scan_is_step(frame):
                return _local_trace
            where = "%s:%d %s" % (T.show.get(tag, tag), raw, op)
            SCHED.arrive(_me.t, tag, line, op, k, where)
            name = T.uses.get((tag, line))
            if name is not None:
                USES.append((_me.t, frame.f_globals.get(name)))
            elif key == T.set_context:
                FAKES[_me.launch] = frame.f_locals.get("mod")
        elif T.releases.get(key) == op:
            SCHED.release(_me.t, "%s:%d" % (T.show.get(tag, tag), raw))
        i = SCHED.land
        if i is not None and _me.t == HOST and not TRIPPED and not T.turn_land[i].get("yield"):
            land = T.turn_land[i]
            if land["op"] == "PASS":
                # a generator expression's pass that skips its item
                # jumps back, and the jump checks (naive.py:11's "if v
                # is cuda")
                match = (op == "POP_JUMP_BACKWARD_IF_FALSE" and code.co_name in COMPREHENSIONS
                         and land["line"] == line and land["tag"] == tag
                         and frame.f_locals.get("v") is not frame.f_locals.get("cuda"))
            else:
                match = (land["op"] == op and land["line"] == line and land["k"] == k and land["tag"] == tag
                         and (code.co_name in COMPREHENSIONS) == land.get("comp", False))
            if match:
                TRIPPED[:] = [i, frame, off, "%s:%d %s@%d" % (T.show.get(tag, tag), raw, op, off), frame.f_back]
                # The last act: the landing instruction runs next, and its
                # own check is the main thread's first since.
                TRIP.fire
                return _local_trace
    elif event == "exception":
        exc = arg[1]
        if first_seen(exc) is None:
            try:
                setattr(exc, SEEN_ATTR, (_me.t, SCHED.turn, SCHED.free, _tag_of(frame.f_code)[0], frame.f_lineno))
            except (AttributeError, TypeError):  # an exception type without a __dict__
                pass
            if _me.t == HOST and isinstance(exc, KeyboardInterrupt):
                _landed(frame, exc, arg[2])
        FIRST_EXC.setdefault(_me.t, (SCHED.turn, SCHED.free))
    elif event == "return":
        _frames.pop(frame, None)
        if frame.f_code is T.thread_run_code:
            finish_thread()
        i = SCHED.land
        land = T.turn_land[i] if i is not None else None
        if land is not None and _me.t == HOST and not TRIPPED and (land.get("yield") or land["op"] == "PASS"):
            tag, shift = _tag_of(frame.f_code)
            op = _opname(frame.f_code, frame.f_lasti)
            if land["op"] == "PASS":
                # the pass yielded (raised at the RESUME that resumes it)
                # or found the items exhausted (raised by dict()'s CALL)
                match = frame.f_code.co_name in COMPREHENSIONS and op in ("YIELD_VALUE", "RETURN_VALUE")
            else:
                match = op == "YIELD_VALUE"
            if match and tag == land["tag"] and frame.f_lineno - shift == land["line"]:
                TRIPPED[:] = [i, frame, frame.f_lasti, "%s:%d %s@%d" % (T.show.get(tag, tag), frame.f_lineno, op, frame.f_lasti),
                              frame.f_back]
                # The last act: next() returns in contextlib's __enter__,
                # whose CALL's check is the main thread's first since.
                TRIP.fire
                return _local_trace
    return _local_trace


def identify_thread():
    """numba: a BlockThread's first traced call names its model thread."""
    return T.identify is not None and T.identify()


def finish_thread():
    SCHED.done(_me.t)


# ---------------------------------------------------------------------------
# Target rendition: the variant's Python and a harness of our own (_sc in
# the scenario's code) that does what numba's simulator does.
# ---------------------------------------------------------------------------
class Marker:
    """What an attribute of launch n's fake module is (cuda.local, ...)."""

    def __init__(self, launch):
        self.launch = launch

    def __repr__(self):
        return "fake#%d's attribute" % self.launch


class Outcome:
    def __init__(self):
        self.died = {}          # thread -> exception
        self.host = []          # exceptions the host's launches raised
        self.other_fake = []    # (thread, what a use saw)
        self.interrupts = []    # the KeyboardInterrupts the host caught, described


OUT = Outcome()


def setup_rendition():
    T.describe = "the variant's rendition (%s) with swapcheck's launch harness" % DATA["source_file"]
    real = types.ModuleType("numba.cuda")
    numba = types.ModuleType("numba")
    numba.cuda = real
    sys.modules["numba"] = numba
    sys.modules["numba.cuda"] = real
    T.real_cuda = real
    for launch in range(1, DATA["launches"] + 1):
        fake = types.ModuleType("FakeCUDAModule#%d" % launch)
        for attr in DATA["attrs"]:
            setattr(fake, attr, Marker(launch))
        FAKES[launch] = fake

    # The variant, and the scenario's modules: each module's globals hold
    # exactly what the model's do, in its order (the scan of
    # fn_globs.items() takes one step per global).
    proto = {"__name__": "swap_variant"}
    exec(compile(VARIANT_SOURCE, DATA["source_file"], "exec"), proto)
    T.proto = proto
    swapped_cuda_module = proto["swapped_cuda_module"]
    ns = {}
    exec(compile(SCENARIO_SOURCE, SCENARIO_FILE, "exec"), ns)
    for m in DATA["modules"]:
        g = {}
        for name in m["globals"]:
            g[name] = real if name in m["names"] else None
        T.modules.append(g)
        GLOBALS_OF[id(g)] = set(m["globals"])
    kernel = types.FunctionType(ns["kernel"].__code__, T.modules[0], "kernel")
    T.modules[0]["kernel"] = kernel
    funcs = []
    for f in DATA["functions"]:
        fn = types.FunctionType(ns[f["name"]].__code__, T.modules[f["module"]], f["name"])
        T.modules[f["module"]][f["name"]] = fn
        funcs.append(fn)
    host_globals = {"kernel": kernel, "swapped_cuda_module": swapped_cuda_module,
                    "LAUNCHES": DATA["launches"], "BLOCKS": DATA["blocks"], "_kernel_context": None}
    host = types.FunctionType(ns["host"].__code__, host_globals, "host")

    class GPUThread(threading.Thread):
        def __init__(self, t, launch):
            super().__init__(name=NAMES[t], daemon=True)
            self.t, self.launch, self.exception, self.finished = t, launch, None, False
            # the thread carries its launch's fake, as a BlockThread does in
            # kernel.py patched for proposed (docs/proposed_fix.md); only
            # proposed's dispatcher reads it
            self.kernel_context = FAKES[launch]

        def run(self):
            _me.t, _me.launch = self.t, self.launch
            SCHED.state[self.t] = "started"
            sys.settrace(_global_trace)
            try:
                kernel()
            except BaseException as e:  # the simulator keeps it for the host
                self.exception = e
                OUT.died[self.t] = e
            finally:
                sys.settrace(None)
                self.finished = True
                SCHED.done(self.t)

    class Harness:
        def fake(self, launch):
            return FAKES[launch]

        def threads(self, launch, block):
            first = 1 + ((launch - 1) * DATA["blocks"] + block) * DATA["threads"]
            ts = [GPUThread(first + i, launch) for i in range(DATA["threads"])]
            T.gpu_threads.extend(ts)
            return ts

        def poll(self, threads):
            for th in threads:
                if th.exception is not None:
                    raise th.exception  # BlockManager.run: abort, re-raise, no join
            return all(th.finished for th in threads)

        def spin(self):
            if SCHED.free:
                time.sleep(0.0005)

        def host_raised(self, e):
            host_caught(e)

        def use(self, value):
            if not isinstance(value, Marker) or value.launch != _me.launch:
                OUT.other_fake.append((_me.t, value))

        def call(self, i):
            # FakeCUDAFunction.__call__ (kernelapi.py)
            fn = funcs[i]
            with swapped_cuda_module(fn, host_globals["_kernel_context"]):
                return fn()

    builtins._sc = Harness()

    def run_host():
        try:
            host()
        except BaseException as e:
            host_caught(e)

    T.host = run_host
    for code in codes_of(swapped_cuda_module.__wrapped__.__code__):
        T.codes[code] = ("proto", 0)
    T.files[SCENARIO_FILE] = "scen"
    T.show = {"proto": DATA["source_file"], "scen": SCENARIO_FILE}
    for a in DATA["anchors"]:
        add_anchor(a)
    T.turn_at = [[t["at"]] for t in TURNS]
    T.turn_land = [t.get("land") for t in TURNS]
    T.check_codes = [("proto", swapped_cuda_module.__wrapped__.__code__, 0),
                     ("scen", compile(SCENARIO_SOURCE, SCENARIO_FILE, "exec"), 0)]
    check_anchors()


# ---------------------------------------------------------------------------
# Target numba: the installed numba's CUDA simulator.
# ---------------------------------------------------------------------------
# The simulator's own steps (kernel.py), by the function and the text of
# the line that does them; the anchor is the line's first opcode. The
# polling loop's test ("poll-loop") is no step: there the host ends its
# turn and polls outside the turns (Scheduler.release).
SIM_LINES = {
    "set-context": ("_push_kernel_context", "_kernel_context = mod"),
    "reset-context": ("_push_kernel_context", "_kernel_context = None"),
    "start": ("BlockManager.run", "t.start()"),
    "poll-loop": ("BlockManager.run", "while livethreads:"),
    "poll-abort": ("BlockManager.run", "for t_other in threads:"),
    "poll-done": ("BlockManager.run", "for t in threads:"),
    # no step: where an interrupt entering the launch's swap is set
    "swap-with": ("FakeCUDAKernel.__call__", "with swapped_cuda_module(self.fn, fake_cuda_module):"),
    "context-yield": ("_push_kernel_context", "yield"),
}
# The model's abort (a thread died with an exception) is either of the
# real code's two raises: the poll that finds the exception, or the final
# check after the loop when the thread died between two polls.
SIM_ALTERNATIVES = {"poll-abort": ["poll-abort", "poll-done"]}


def shape(code, lines):
    """code's instructions (with lines relative to its first line, when
    lines), nested code objects by their own instructions: what two
    renditions of swapped_cuda_module share when their bytecode is the
    same."""
    first = code.co_firstlineno

    def walk(c):
        out = []
        for i in dis.get_instructions(c):
            arg = walk(i.argval) if isinstance(i.argval, types.CodeType) else i.argrepr
            if i.opcode in dis.hasjrel or i.opcode in dis.hasjabs:
                arg = i.argval
            line = i.positions.lineno - first if lines and i.positions.lineno is not None else None
            out.append((i.opname, arg, line))
        return tuple(out)
    return walk(code)


def known_variant(code):
    """Which of swapcheck's variants code (swapped_cuda_module's generator
    code) is, by its bytecode: (name, whether its lines are the
    rendition's too), or (None, False)."""
    for v in DATA["known_swaps"]:
        ns = {"__name__": "known_" + v["name"]}
        exec(compile(v["source"], v["name"], "exec"), ns)
        theirs = ns["swapped_cuda_module"].__wrapped__.__code__
        if shape(theirs, False) == shape(code, False):
            return v["name"], shape(theirs, True) == shape(code, True)
    return None, False


def setup_numba(swap):
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before numba is imported
    try:
        import numba
        from numba import cuda
        from numba.cuda.simulator import kernel as simkernel
        from numba.cuda.simulator import kernelapi
    except Exception as e:
        raise ReplayFailed("--target numba needs numba's CUDA simulator importable by this python (%s): %s: %s; "
                           "Debian's python3-numba installs it for /usr/bin/python3"
                           % (sys.executable, type(e).__name__, e))
    if DATA["variant"] == "proposed":
        raise ReplayFailed("proposed needs kernel.py patched as docs/proposed_fix.md shows (each BlockThread carries "
                           "its launch's fake); numba %s's simulator is not: replay it with --target rendition"
                           % numba.__version__)
    sim = os.path.dirname(simkernel.__file__)
    try:
        # an overlay made by swapcheck's scripts/numba-overlay.py says what it installed
        with open(os.path.join(sim, "SWAPCHECK_OVERLAY.txt")) as f:
            sim += ": " + f.read().strip()
    except OSError:
        pass
    T.real_cuda = cuda
    installed = kernelapi.swapped_cuda_module
    code = installed.__wrapped__.__code__
    found, same_lines = known_variant(code)
    where = "%s:%d" % (code.co_filename, code.co_firstlineno)
    ref = {"__name__": "swapcheck_" + DATA["variant"]}
    exec(compile(VARIANT_SOURCE, DATA["source_file"], "exec"), ref)
    ref_code = ref["swapped_cuda_module"].__wrapped__.__code__
    tmp = tempfile.mkdtemp(prefix="swapcheck-replay-")
    T.tmp = tmp
    if swap == "installed":
        if found != DATA["variant"]:
            what = "the %s variant" % found if found else "none of swapcheck's variants"
            raise ReplayFailed("the installed numba %s's swapped_cuda_module (%s) is %s, not %s: "
                               "rerun with --swap rendition to replay %s's rendition on numba's real launch machinery"
                               % (numba.__version__, where, what, DATA["variant"], DATA["variant"]))
        if not same_lines:
            raise ReplayFailed("the installed swapped_cuda_module (%s) has %s's bytecode but not its lines: "
                               "the model's steps cannot be anchored on it" % (where, found))
        for c in codes_of(code):
            T.codes[c] = ("proto", code.co_firstlineno - ref_code.co_firstlineno)
        T.check_codes.append(("proto", code, code.co_firstlineno - ref_code.co_firstlineno))
        T.offset["proto"] = code.co_firstlineno - ref_code.co_firstlineno
        T.show["proto"] = code.co_filename
        # the installed function's module holds its registries
        # (_swap_refcount, _swap_orig, _swap_state, ...): the judge reads them
        T.proto = installed.__wrapped__.__globals__
        T.describe = ("numba %s's CUDA simulator (%s), its own swapped_cuda_module (%s, %s)"
                      % (numba.__version__, sim, found, where))
    else:
        # The rendition as a real module, installed where the simulator
        # looks the swap up: kernel.py binds it by name at import (from
        # .kernelapi import swapped_cuda_module), so both names are patched.
        path = os.path.join(tmp, "swapcheck_rendition_" + DATA["source_file"])
        with open(path, "w") as f:
            f.write(VARIANT_SOURCE)
        spec = importlib.util.spec_from_file_location("swapcheck_rendition", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["swapcheck_rendition"] = mod
        spec.loader.exec_module(mod)
        simkernel.swapped_cuda_module = mod.swapped_cuda_module
        kernelapi.swapped_cuda_module = mod.swapped_cuda_module
        T.proto = mod.__dict__
        for c in codes_of(mod.swapped_cuda_module.__wrapped__.__code__):
            T.codes[c] = ("proto", 0)
        T.check_codes.append(("proto", mod.swapped_cuda_module.__wrapped__.__code__, 0))
        T.show["proto"] = path
        T.describe = ("numba %s's CUDA simulator (%s), its swapped_cuda_module (%s, %s) replaced by the %s rendition"
                      % (numba.__version__, sim, found or "unknown", where, DATA["variant"]))

    # The scenario's modules, as files a user would write.
    for m in DATA["nb_modules"]:
        if m["name"] in sys.modules or importlib.util.find_spec(m["name"]) is not None:
            raise ReplayFailed("the scenario's module %s has the name of an installed module: rename it in the scenario"
                               % m["name"])
        with open(os.path.join(tmp, m["name"] + ".py"), "w") as f:
            f.write(m["source"])
    sys.path.insert(0, tmp)
    importlib.invalidate_caches()
    mods = {}
    for m in DATA["nb_modules"]:
        mods[m["name"]] = importlib.import_module(m["name"])
        T.files[mods[m["name"]].__file__] = "mod:" + m["name"]
        T.check_codes.append(("mod:" + m["name"], compile(m["source"], mods[m["name"]].__file__, "exec"), 0))
        T.show["mod:" + m["name"]] = mods[m["name"]].__file__
    for m in DATA["modules"]:
        g = mods[m["name"]].__dict__
        order = [k for k in g if k in m["globals"]]
        if order != m["globals"]:
            raise ReplayFailed("internal: module %s's globals are %s, the model's %s" % (m["name"], order, m["globals"]))
        T.modules.append(g)
        GLOBALS_OF[id(g)] = set(m["globals"])
    fake_attrs = set(dir(kernelapi.FakeCUDAModule))
    for attr in DATA["attrs"]:
        if attr not in fake_attrs:
            raise ReplayFailed("numba's FakeCUDAModule has no attribute %s, which the scenario uses" % attr)

    # The simulator's steps, found by their text in the installed kernel.py.
    T.files[simkernel.__file__] = "sim"
    with open(simkernel.__file__) as f:
        T.check_codes.append(("sim", compile(f.read(), simkernel.__file__, "exec"), 0))
    T.show["sim"] = simkernel.__file__
    sim_at = {}
    for key, (qual, text) in SIM_LINES.items():
        fn = simkernel
        for part in qual.split("."):
            fn = getattr(fn, part, None)
        fn = getattr(fn, "__wrapped__", fn)
        lines, first = inspect.getsourcelines(fn) if fn is not None else ([], 0)
        at = [first + i for i, l in enumerate(lines) if l.strip() == text]
        if len(at) != 1:
            raise ReplayFailed("the installed simulator's %s has %d lines '%s' in %s, not one: "
                               "this replay anchors on numba 0.56.4's kernel.py" % (simkernel.__file__, len(at), text, qual))
        first_op = [i.opname for i in dis.get_instructions(fn) if i.positions.lineno == at[0]]
        sim_at[key] = {"tag": "sim", "line": at[0], "ops": first_op[:1], "k": 0}
    T.releases[("sim", sim_at["poll-loop"]["line"], 0)] = sim_at["poll-loop"]["ops"][0]
    T.set_context = ("sim", sim_at["set-context"]["line"], 0)

    def resolve(a):
        if a["tag"] == "sim":
            return [sim_at[k] for k in SIM_ALTERNATIVES.get(a["key"], [a["key"]])]
        return [a]
    for a in DATA["nb_anchors"]:
        for r in resolve(a):
            add_anchor(r)
    T.turn_at = [resolve(t["nb"]) for t in TURNS]

    def resolve_land(land):
        if land is not None and land["tag"] == "sim":
            land = dict(land, line=sim_at[land["key"]]["line"])
        return land
    T.turn_land = [resolve_land(t.get("nb_land") or t.get("land")) for t in TURNS]
    check_anchors()

    block_thread = simkernel.BlockThread
    T.thread_run_code = block_thread.run.__code__
    T.block_threads = {}

    def identify():
        th = threading.current_thread()
        if not isinstance(th, block_thread):
            return False
        t = 1 + ((T.launch - 1) * DATA["blocks"] + th.blockIdx.x) * DATA["threads"] + th.threadIdx.x
        _me.t, _me.launch = t, T.launch
        T.block_threads[t] = th
        SCHED.state[t] = "started"
        return True
    T.identify = identify

    kernel = mods[DATA["modules"][0]["name"]].kernel

    def run_host():
        threading.settrace(_global_trace)
        for launch in range(1, DATA["launches"] + 1):
            T.launch = launch
            _me.launch = launch
            try:
                kernel[DATA["blocks"], DATA["threads"]]()
            except BaseException as e:  # the caller catches a launch's error and goes on
                host_caught(e)
    T.host = run_host


def check_anchors():
    """Every anchor is an instruction of a traced code: a mistake in the
    anchors would otherwise show as a turn that never comes."""
    have = set()
    for tag, code, shift in T.check_codes:
        for c in codes_of(code):
            for i in dis.get_instructions(c):
                if i.positions.lineno is not None:
                    have.add((tag, i.positions.lineno - shift, i.opname))
    for (tag, line, k), ops in T.anchors.items():
        if not any((tag, line, op) in have for op in ops):
            raise ReplayFailed("internal: no instruction %s at %s:%d" % ("/".join(ops), T.show.get(tag, tag), line))


def host_caught(e):
    """The host's caller caught e. A KeyboardInterrupt is described now and
    not kept: it dies here, as a test runner's does, and with it a
    generator its traceback holds suspended at its yield is closed, whose
    finally runs now, in the host (model/interrupt.go)."""
    if not isinstance(e, KeyboardInterrupt):
        OUT.host.append(e)
        return
    _, f, line = origin(e)
    OUT.interrupts.append("host: KeyboardInterrupt (raised at %s:%d%s)" % (f, line, when(e, HOST, False)))


def host_main():
    _me.t, _me.launch = 0, 0
    SCHED.state[0] = "started"
    sys.settrace(_global_trace)
    try:
        T.host()
    except BaseException as e:
        host_caught(e)
    finally:
        sys.settrace(None)
        threading.settrace(None)
        SCHED.done(0)


# ---------------------------------------------------------------------------
# Judge: which violations happened, and how.
# ---------------------------------------------------------------------------
def chain(e):
    seen = []
    while e is not None and all(e is not s for s in seen):
        seen.append(e)
        e = e.__context__
    return seen


def origin(e, tb=None):
    tb = tb if tb is not None else e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return None, "?", 0
    code = tb.tb_frame.f_code
    r = _tag_of(code)
    tag = r[0] if r else None
    return tag, T.show.get(tag, code.co_filename), tb.tb_lineno


def when(e, t, copy):
    info = first_seen(e)
    if copy and t in FIRST_EXC:
        # numba's BlockThread keeps a copy with the thread's ids, raised
        # later by the host: the thread's first exception is the original.
        turn, free = FIRST_EXC[t]
    elif info is not None:
        free, turn = info[2], info[1]
    else:
        return ""
    if free:
        return " after the last turn"
    return " in turn %d of %d" % (turn + 1, len(TURNS))


def judge():
    found = []  # (kind, description)
    seen = []
    raised = []  # (who, thread, exception, traceback)
    for t, e in sorted(OUT.died.items()):
        raised.append((NAMES[t], t, e, None))
    for t, th in sorted(T.block_threads.items()):
        if th.exception:
            raised.append((NAMES[t], t, th.exception[0], th.exception[1]))
    for e in OUT.host:
        raised.append(("host", 0, e, None))
    for who, t, top, tb in raised:
        for e in chain(top):
            if any(e is s for s in seen):
                continue
            seen.append(e)
            tag, f, line = origin(e, tb if e is top else None)
            desc = "%s: %s: %s (raised at %s:%d%s)" % (who, type(e).__name__, e, f, line, when(e, t, tb is not None))
            msg = str(e)
            if isinstance(e, KeyboardInterrupt):
                found.append(("interrupt", desc))  # the schedule's own, checked to land where the model's did
            elif tag == "proto":
                found.append(("exception", desc))
            elif isinstance(e, AttributeError) and "module 'numba.cuda' has no attribute" in msg:
                found.append(("use-saw-real", desc))
            elif isinstance(e, AttributeError) and "'NoneType' object has no attribute" in msg:
                found.append(("use-saw-none", desc))
            else:
                found.append(("other", desc))
    for desc in OUT.interrupts:
        found.append(("interrupt", desc))  # the schedule's own, checked to land where the model's did
    for t, v in OUT.other_fake:
        found.append(("use-saw-other-fake", "%s: a use saw %r" % (NAMES[t], v)))
    if T.identify is not None:
        # numba: what each use's global held as its turn began.
        launch_of = lambda t: (t - 1) // (DATA["threads"] * DATA["blocks"]) + 1
        for t, v in USES:
            fake = FAKES.get(launch_of(t))
            if v is not T.real_cuda and v is not None and v is not fake:
                found.append(("use-saw-other-fake", "%s: a use saw %r, not its launch's %r" % (NAMES[t], v, fake)))
    swapped = []
    # proposed's dispatcher, left for good, gives a thread outside a launch
    # the real module: restored, as the model's end-state invariant reads it
    dispatcher = T.proto.get("_dispatcher", T.real_cuda)
    for m, g in zip(DATA["modules"], T.modules):
        for name in m["names"]:
            if g[name] is not T.real_cuda and g[name] is not dispatcher:
                swapped.append("%s.%s is %s" % (m["name"], name, getattr(g[name], "__name__", g[name])))
    if swapped:
        found.append(("left-swapped", "every thread exited, but " + ", ".join(swapped)))
    left = []
    gids = {id(g): m["name"] for m, g in zip(DATA["modules"], T.modules)}
    for reg in ("_swap_refcount", "_swap_orig", "_swap_state"):
        for gid, v in T.proto.get(reg, {}).items():
            if gid in gids:
                left.append("%s[%s] = %r" % (reg, gids[gid], v if reg == "_swap_refcount" else "..."))
    if left:
        found.append(("registry-leftover", "every thread exited, but the registry still holds " + ", ".join(left)))
    return found


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments: one line on stderr, exit status 2."""

    def error(self, message):
        sys.stderr.write("%s: %s (see --help)\n" % (self.prog, message))
        sys.exit(2)


def main():
    global TIMEOUT
    ap = OneLineParser(description="Replay a swapcheck counterexample on real threads.")
    ap.add_argument("--target", choices=["rendition", "numba"], default="rendition",
                    help="rendition: the variant's Python with a harness of its own; numba: the installed numba's CUDA simulator")
    ap.add_argument("--swap", choices=["installed", "rendition"], default="installed",
                    help="with --target numba: the installed swapped_cuda_module, or the variant's rendition in its place")
    ap.add_argument("--timeout", type=float, default=TIMEOUT,
                    help="seconds without a turn ending before a turn counts as not forced")
    args = ap.parse_args()
    TIMEOUT = args.timeout
    if args.swap != "installed" and args.target != "numba":
        fail_now("--swap applies to --target numba (the rendition target always runs the rendition)")
    try:
        if args.target == "numba":
            setup_numba(args.swap)
        else:
            setup_rendition()
    except ReplayFailed as e:
        fail_now(str(e))
    print("swapcheck replay: %s, atomicity %s, %d turns over %s" % (
        DATA["variant"], DATA["atomicity"], len(TURNS), ", ".join(NAMES)))
    print("target: " + T.describe)
    if DATA["expect_kind"]:
        print("model: violation %s: %s" % (DATA["expect_kind"], DATA["expect_message"]))
    else:
        print("model: no violation on this schedule")
    sys.stdout.flush()
    # The host is the main thread, the only one CPython raises a signal's
    # exception in; a watchdog thread (never traced) stops the replay when
    # a turn cannot be forced. SIGINT gets Python's own handler even when
    # this process was started with it ignored (a shell's background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    host_done = threading.Event()
    threading.Thread(target=watchdog, args=(host_done,), name="watchdog", daemon=True).start()
    host_main()
    host_done.set()
    with SCHED.cv:
        failure = SCHED.failure
    if failure is not None:
        fail_now(failure)
    deadline = time.monotonic() + TIMEOUT
    for th in T.gpu_threads + list(T.block_threads.values()):
        if th.is_alive():
            th.join(max(0.0, deadline - time.monotonic()))
    with SCHED.cv:
        failure = SCHED.failure
    if failure is not None:
        fail_now(failure)
    if not SCHED.free:
        fail_now("the schedule ended at turn %d of %d" % (SCHED.turn, len(TURNS)))
    want = sum(1 for t in TURNS if t.get("land"))
    if len(LANDINGS) != want:
        fail_now("%d interrupts landed where the model's did, of %d" % (len(LANDINGS), want))
    print("replay: all %d turns forced" % len(TURNS))
    for i, where in LANDINGS:
        print("interrupt: turn %d: KeyboardInterrupt raised in the host (main thread) by the check of %s"
              % (i + 1, where))
    found = judge()
    for kind, desc in found:
        print("observed %s: %s" % (kind, desc))
    kinds = [k for k, _ in found if k not in ("other", "interrupt")]
    want = DATA["expect_kind"]
    if want:
        if want in kinds:
            print("verdict: reproduced %s" % want)
            return 1
        print("verdict: did not reproduce %s" % want)
        return 0
    if kinds:
        print("verdict: violation %s, where the model has none" % kinds[0])
        return 1
    print("verdict: no violation")
    return 0


def watchdog(host_done):
    while not host_done.wait(0.02):
        with SCHED.cv:
            failure = SCHED.failure
            if failure is None and not SCHED.free and time.monotonic() - SCHED.last_progress > TIMEOUT:
                i = SCHED.turn
                t = TURNS[i]["thread"]
                state = SCHED.state[t]
                if SCHED.holding[t]:
                    state += ", and has not reached its next step (blocked, on a lock for one)"
                failure = ("turn %d of %d (%s: %s) could not be forced within %.1fs: %s is %s"
                           % (i + 1, len(TURNS), NAMES[t], TURNS[i]["where"], TIMEOUT, NAMES[t], state))
        if failure is not None:
            fail_now(failure)


if __name__ == "__main__":
    sys.stdout.flush()
    exit_now(main())

#!/usr/bin/env python3
"""Replay of a swapcheck schedule (variant @@VARIANT@@) on real threads.

The scenario (swapcheck's scenario format):

@@SCENARIO_TEXT@@

Written by swapcheck's pyreplay (`explore -emit-python FILE`). The scenario's modules are written out as files a user writes
(@cuda.jit functions), and a host program launches the kernel and makes
the host's device calls, on every host thread. Two targets run them:

--target rendition (the default; needs only python3): swapcheck's stand-in
numba, a small plain-Python transcription of numba-cuda's CUDA simulator
(the kernel context, FakeCUDAKernel, BlockThread, BlockManager) with the
variant's swapped_cuda_module (testdata/python/) installed in it.

--target numba (needs numba, e.g. Debian's python3-numba for /usr/bin/python3):
the installed numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1), so a failure
is the error a user sees. When the installed swapped_cuda_module is not
this schedule's variant, the script says which one it found and stops (exit
status 2); --swap rendition installs the variant's rendition in its place;
swapcheck's scripts/numba-overlay.py installs numba-cuda's own at a commit.

The interleaving is forced: every traced thread gets an "opcode" trace event
before each bytecode (sys.settrace, frame.f_trace_opcodes). Each model step
begins at an anchor, the first opcode of the bytecodes it names, at its line.
A thread that reaches an anchor ends the turn it holds and waits for its next
turn in TURNS; after the last turn every thread runs freely to its end. A
turn that cannot be forced (the thread is blocked, finished, or reached
another step than the model's) stops the replay: exit status 2.

An interrupt (the model's SIGINT pseudo-thread) is a real pending SIGINT:
host 0 is this script's main thread, and its trace function, at the
instruction whose own eval-breaker check the model's interrupt lands at,
sets SIGINT pending as its last act (_thread.interrupt_main, read as a
property: no check follows in the trace function); CPython raises the
KeyboardInterrupt at that check, and the script checks, from the
traceback, that it was raised there. An atomic's or a shared.array's
steps anchor in the simulator's kernelapi.py, at lines found by their
method and text; the script records what each call returned and judges
lost updates and split shared arrays as the model does. A raise fault (the model's RAISE) is
raised by the fault hook the module files call before each statement, at
the statement the schedule says.

A schedule of `explore -source FILE` names the user's own instructions:
the script installs FILE's function (with the module-level statements it
reads, compiled by this CPython at FILE's lines, checked to be the
bytecode the model ran) in the simulator it runs, and stops each thread
only where its next turn begins: at an instruction of FILE (code object
and offset), or at a line of the simulator or of the scenario's files,
at the thread's pass there the model counted.

It runs on CPython 3.11, 3.12 and 3.13 (--python PYTHON picks the
interpreter, and the script prints which one ran). The model's steps name
3.11's bytecode; on 3.12 and 3.13 the script finds the same operations
under their names there (comprehensions inlined, no PRECALL), but
refuses an interrupt, whose landing is one of 3.11's eval-breaker checks.

Exit status: 1 when the violation the model found happened (for a schedule
without one: when any violation happened), 0 when not, 2 when the replay
failed. Usage:
    python3 replay.py [--target rendition|numba] [--swap installed|rendition] [--timeout SECONDS] [--python PYTHON]
"""
import argparse
import ast
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

# The model's steps name CPython 3.11's bytecode. 3.12 and 3.13 run the
# same shared operations under other names (LOAD_ATTR for LOAD_METHOD,
# POP_JUMP_IF_FALSE for POP_JUMP_FORWARD_IF_FALSE, superinstructions) and
# inline list, dict and set comprehensions into their function's frame:
# _norm names their instructions as 3.11 does, and the scan's passes are
# found in the swap's own frame. Their eval-breaker checks differ, so an
# interrupt's landing is forced on 3.11 only (setup refuses it on 3.12+).
VERSION = sys.version_info[:2]
VERSIONS = ((3, 11), (3, 12), (3, 13))
INLINED = VERSION >= (3, 12)  # PEP 709: comprehensions inlined

DATA = json.loads(@@DATA@@)
# A -source run's schedule (swapcheck's pyreplay/source.go): the user's
# file, whose function the script installs, and turns anchored exactly.
SRC = DATA.get("source")

TIMEOUT = 5.0  # seconds without a turn ending before a turn counts as not forced
NAMES = DATA["thread_names"]
TURNS = DATA["turns"]
SIG = DATA["signal"]  # the interrupt's pseudo-thread (SIGINT), or -1
HOSTS = DATA["hosts"]  # threads 0..HOSTS-1; host 0 (the main thread) gets interrupts
HOST = 0
PER_LAUNCH = DATA["threads"] * DATA["blocks"]
COMPREHENSIONS = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>")


def launch_of(t):
    """The launch (1-based) of GPU thread t; 0 for a host."""
    return 0 if t < HOSTS else (t - HOSTS) // PER_LAUNCH + 1


def gpu_threads(launch):
    first = HOSTS + (launch - 1) * PER_LAUNCH
    return range(first, first + PER_LAUNCH)


class ReplayFailed(Exception):
    """The replay cannot run as the model says (exit status 2)."""


def fail_now(msg):
    print("replay failed: " + msg)
    exit_now(2)


def exit_now(code):
    """Exit without waiting for the simulated threads (daemons that may
    linger, as the simulator's do after an aborted launch), removing the
    files the script wrote."""
    sys.stdout.flush()
    if T.tmp:
        shutil.rmtree(T.tmp, ignore_errors=True)
    os._exit(code)


# ---------------------------------------------------------------------------
# What setup() finds and makes.
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
        self.launch_only = set()  # (tag, line, k) of anchors only a launch's __call__ has (not a device call's)
        self.scans = set()    # (tag, line, k) of the scan's passes
        self.uses = {}        # (tag, line) -> the global a use loads
        self.elems = {}       # (tag, line) -> the store or load of a shared array there
        self.sync_recheck = None  # (tag, line, k) of syncthreads' second abort check: the thread passed the barrier
        self.poll_loop = None  # (tag, line, k, op): the host's polling loop's test
        self.set_context = None  # (tag, line, k) of _kernel_context = mod
        self.start = None     # (tag, line, k) of t.start()
        self.launch_lines = {}  # line of the host program -> which of the host's launches it makes (1-based)
        self.host_tag = None
        self.modules = []     # the scenario's module globals, in DATA["modules"] order
        self.real_cuda = None
        self.proto = {}       # the installed swap's module globals (its registries)
        self.dispatcher = None  # proposed's dispatcher, when installed
        self.host_fn = None   # the host program's host(caught)
        self.tmp = None       # the directory of the files written
        self.check_codes = []  # (tag, code, line offset): what the anchors must be instructions of
        self.block_ids = {}   # BlockThread -> its model thread
        self.block_threads = {}  # model thread -> BlockThread
        self.thread_run_code = None  # BlockThread.run's code: its return is a thread's end
        self.atomic_codes = set()  # FakeCUDAAtomic's methods' codes: what each call returns is recorded
        self.shared_code = None  # FakeCUDAShared.array's code: what each call returns is recorded
        self.host_globals = None  # the host program's globals: the kernel's arrays
        # -source: code -> its index in SRC["codes"]; per turn and per
        # thread's park, the position its thread stops at and which pass
        self.src_index = {}
        self.turn_pos = []
        self.park = []
        self.skip = {}  # frame -> in a pass of a scan the model has not
        self.counts = {}  # thread -> position -> passes so far
        self.paths = []  # per thread: the (code index, offset) of each file instruction it runs in the model
        self.path_at = {}  # thread -> how far along its path it is
        self.unsure = {}  # code -> offsets CPython may give no event
        self.src_line = {}  # code index -> offset -> line (for messages)
        self.src_ops = {}  # code index -> offset -> opname
        self.note_at = {}  # (tag, line, k) -> the opcode at which _notes reads a step's effect


T = Target()


def running(a):
    """Anchor a as the running CPython has it: 3.11 loads cuda from a
    cell its comprehension closes over (LOAD_DEREF), 3.12 inlines the
    comprehension and cuda is a plain local (LOAD_FAST)."""
    if INLINED and "LOAD_DEREF" in a["ops"]:
        return dict(a, ops=a["ops"] + ["LOAD_FAST"])
    return a


def add_anchor(a, launch_only=False):
    a = running(a)
    key = (a["tag"], a["line"], a["k"])
    T.anchors.setdefault(key, set()).update(a["ops"])
    if a.get("scan"):
        T.scans.add(key)
    if a.get("use"):
        T.uses[(a["tag"], a["line"])] = a["use"]
    if a.get("elem"):
        T.elems[(a["tag"], a["line"])] = a["elem"]
    if launch_only:
        T.launch_only.add(key)


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
        # polling: host -> the launch whose block it polls now (gate)
        self.polling = {}
        self._pass_noops()
        self.free = self.turn == len(TURNS)
        if SIG >= 0:
            self.state[SIG] = "not due"
        if DATA["raiser"] >= 0:
            self.state[DATA["raiser"]] = "arms its faults in no-op turns"

    def _pass_noops(self):
        # A no-op turn (the host's local steps after a landing, which its
        # turn before ran already; the interrupt's end once the host has
        # finished; the raise fault's arming) needs no thread anywhere: it
        # passes at once.
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

    def _gated(self, t):
        # a host polls the block of its launch: none of its threads moves
        return t >= HOSTS and launch_of(t) in self.polling.values()

    def start(self, t):
        with self.cv:
            self.state[t] = "started"
            if t == HOST:
                # the host runs from its start to its first anchor as if
                # it held a turn: an interrupt may be due on the way
                self._update_land()

    def fail(self, msg):
        if self.failure is None:
            self.failure = msg
        self.cv.notify_all()

    def arrive(self, t, tag, line, op, k, where, matched=False):
        """Thread t is about to run op, the k-th on line of tag: an anchor
        (matched: its next turn's own, which -source's caller checked).
        Returns the turn it was given (None when none is)."""
        with self.cv:
            self.polling.pop(t, None)
            self._end_turn(t)
            if self.free or self.failure:
                return None
            if t == HOST and self.land is not None:
                i = self.land
                self.fail("turn %d of %d: the interrupt was to land at %s, but the host reached %s first"
                          % (i + 1, len(TURNS), T.turn_land[i]["text"], where))
                return None
            if self.pos[t] >= len(self.mine[t]):
                # Its turns are over: it stays before its next step until the
                # schedule ends.
                self.state[t] = "parked before " + where
                while not self.free and not self.failure:
                    self.cv.wait(0.05)
                return None
            i = self.mine[t][self.pos[t]]
            wants = T.turn_at[i]
            if not matched and not any((w["tag"], w["line"], w["k"]) == (tag, line, k) and op in w["ops"] for w in wants):
                self.fail("turn %d of %d: %s reached %s, but the model's next step for it is %s (%s)"
                          % (i + 1, len(TURNS), NAMES[t], where, " or ".join(anchor_text(w) for w in wants),
                             TURNS[i]["where"]))
                return None
            self.state[t] = "waiting for turn %d at %s" % (i + 1, where)
            while (self.turn != i or self._gated(t)) and not self.failure:
                self.cv.wait(0.05)
            if self.failure:
                return None
            self.holding[t] = True
            self.pos[t] += 1
            self.state[t] = "running turn %d (%s)" % (i + 1, TURNS[i]["where"])
            if t == HOST:
                self._update_land()
            return i

    def interrupted(self, i, where):
        """The host's check raised the interrupt of turn i (at where): the
        host ends the turn it held, waits for turn i, and runs it."""
        with self.cv:
            self.polling.pop(HOST, None)
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

    def wants(self, t):
        """-source: the places thread t stops at next, each a position and
        which of its passes there: its next turn's, or once its turns are
        over where it parks (none: it runs on)."""
        if self.pos[t] < len(self.mine[t]):
            return T.turn_pos[self.mine[t][self.pos[t]]]
        return T.park[t]

    def poll(self, t, where):
        """Host t tests its polling loop (BlockManager.run's "while
        livethreads:"). One pass of the loop reads its block's threads'
        flags, which only their death, their barrier steps and the host's
        own steps write: the host ends its turn here and makes the pass
        outside the turns, with none of its block's threads holding a turn
        or due next, and none given one until the pass ends (at its next
        test or anchor). So a pass sees each of the block's threads before
        or after a step, never inside one: a thread that died with an
        exception is seen by the pass after its death (the abort of
        BlockManager.run at "for t_other in threads:", the model's), not
        dropped from livethreads unseen."""
        with self.cv:
            self.polling.pop(t, None)
            self._end_turn(t)
            if self.free or self.failure:
                return
            self.state[t] = "polling its threads at " + where
        time.sleep(0.0005)
        launch = _me.launch
        with self.cv:
            while not self.free and not self.failure:
                mine = gpu_threads(launch)
                busy = any(self.holding[u] for u in mine)
                due = self.turn < len(TURNS) and TURNS[self.turn]["thread"] in mine
                if not busy and not due:
                    self.polling[t] = launch
                    return
                self.cv.wait(0.05)

    def done(self, t):
        with self.cv:
            self.polling.pop(t, None)
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
# When an exception was first seen: (thread, turn, free, tag, line,
# aborted), kept on the exception object itself (first_seen): an id()
# outlives no object, and CPython gives a new exception the id of one
# freed before it.
SEEN_ATTR = "_swapcheck_first_seen"
FIRST_EXC = {}  # thread -> (turn when its first exception was seen, free, aborted)
USES = []    # (thread, what a use's global held when its turn began, the thread's launch aborted)
FAKES = {}   # launch -> its fake module (FakeCUDAModule)
ATOMIC_OLDS = {}  # thread -> what each of its FakeCUDAAtomic calls returned, in order
SHARED_GOT = []  # (thread, call site, array) each FakeCUDAShared.array call returned
ELEMS = []  # (thread, store or load, the array, the thread's barriers passed, its launch aborted), in turn order
EPOCH = {}  # thread -> the barriers (syncthreads) it passed
GLOBALS_OF = {}  # id(module globals) -> the model's globals of it


def first_seen(exc):
    return getattr(exc, SEEN_ATTR, None)


def aborted():
    """Whether the calling thread's launch has failed: BlockThread.abort,
    which the host's abort sets (a host has none)."""
    return bool(getattr(threading.current_thread(), "abort", False))


def _norm(i):
    """Instruction i's opcode as CPython 3.11 names it: the model's steps
    cite 3.11's bytecode (see VERSION)."""
    op = i.opname
    if not INLINED:
        return op
    if op == "LOAD_ATTR" and i.arg is not None and i.arg & 1:
        return "LOAD_METHOD"  # 3.12+: LOAD_ATTR with the method bit
    if op.startswith("POP_JUMP_IF_"):
        way = "BACKWARD" if isinstance(i.argval, int) and i.argval < i.offset else "FORWARD"
        return "POP_JUMP_%s_IF_%s" % (way, op[len("POP_JUMP_IF_"):])
    return {"LOAD_FAST_CHECK": "LOAD_FAST", "LOAD_FAST_AND_CLEAR": "LOAD_FAST", "LOAD_FAST_LOAD_FAST": "LOAD_FAST",
            "STORE_FAST_STORE_FAST": "STORE_FAST", "STORE_FAST_LOAD_FAST": "STORE_FAST",
            "RETURN_CONST": "RETURN_VALUE", "CALL_KW": "CALL"}.get(op, op)


def _opname_table(code):
    ops = _opnames.get(code)
    if ops is None:
        ops = {i.offset: _norm(i) for i in dis.get_instructions(code)}
        _opnames[code] = ops
    return ops


_first_for_iter = {}  # (code, line) -> the offset of the line's first FOR_ITER


def _comprehension_for_iter(code, line, off):
    """3.12+: whether off is the FOR_ITER of the comprehension inlined on
    line (the line's first FOR_ITER; proposed's "for k in [k for ...]"
    has the loop's own after it)."""
    key = (code, line)
    if key not in _first_for_iter:
        _first_for_iter[key] = min((i.offset for i in dis.get_instructions(code)
                                    if i.opname == "FOR_ITER" and i.positions.lineno == line), default=-1)
    return off == _first_for_iter[key]


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


def _scan_is_step(frame, off):
    """Whether this pass of the scan of fn_globs.items() is a model step:
    a pass over one of the model's globals, or the exhausting pass. The
    interpreter's own globals (__name__, ...) and the imports' are never
    bound to cuda and nothing writes them: their passes fold into the
    step before."""
    if frame.f_code.co_name in ("<listcomp>", "<dictcomp>", "<genexpr>"):
        owner = frame.f_back  # the swap's frame, whose local fn_globs is scanned
    elif INLINED and _comprehension_for_iter(frame.f_code, frame.f_lineno, off):
        owner = frame  # 3.12+: the comprehension runs in the swap's frame
    else:
        # the same line's FOR_ITER over the comprehension's result (proposed:
        # "for k in [...]"), in the generator's own frame: local, no pass
        return False
    st = _scan_pass.get(frame)
    if st is None:
        fn_globs = owner.f_locals.get("fn_globs") if owner is not None else None
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


def _at_anchor(frame, tag, line, op, k, raw):
    """Thread _me.t reached the anchor (tag, line, k) at op: end its turn,
    wait for its next one, and note what the turn's step reads."""
    where = "%s:%d %s" % (T.show.get(tag, tag), raw, op)
    key = (tag, line, k)
    i = SCHED.arrive(_me.t, tag, line, op, k, where)
    if i is None:
        return
    if TURNS[i].get("raise"):
        _me.fault = True  # the statement's fault hook, called next, raises
        return
    _notes(frame, tag, line, k)


def _notes(frame, tag, line, k):
    """What the judge reads at the step beginning at (tag, line, k): the
    global a use loads, the fake a launch sets, the BlockThread a start
    starts."""
    key = (tag, line, k)
    elem = T.elems.get((tag, line))
    if elem is not None:
        ELEMS.append((_me.t, elem, frame.f_locals.get(elem["target"]), EPOCH.get(_me.t, 0), aborted()))
    if key == T.sync_recheck:
        EPOCH[_me.t] = EPOCH.get(_me.t, 0) + 1
    name = T.uses.get((tag, line))
    if name is not None:
        v = frame.f_globals.get(name)
        if v is not None and v is T.dispatcher:
            # proposed's dispatcher gives the thread's own launch's fake,
            # or the real module outside a launch
            v = getattr(threading.current_thread(), "kernel_context", None) or T.real_cuda
        USES.append((_me.t, v, aborted()))
    elif key == T.set_context:
        FAKES[_me.launch] = frame.f_locals.get("mod")
    elif key == T.start:
        th = frame.f_locals.get("t")
        t = HOSTS + (_me.launch - 1) * PER_LAUNCH + th.blockIdx.x * DATA["threads"] + th.threadIdx.x
        T.block_ids[th] = (t, _me.launch)
        if hasattr(th, "kernel_context"):  # kernel.py patched for proposed
            FAKES.setdefault(_me.launch, th.kernel_context)


def _local_trace(frame, event, arg):
    """The trace function of a traced frame (CPython 3.11: sys.settrace,
    with opcode events)."""
    if event == "opcode":
        _on_opcode(frame, frame.f_code, frame.f_lasti)
    elif event == "exception":
        _on_exception(frame, arg[1], arg[2])
    elif event == "return":
        _on_return(frame, arg)
    return _local_trace


def _on_opcode(frame, code, off):
    """frame is about to run the instruction at off: an anchor ends the
    thread's turn and waits for its next one; a landing sets SIGINT."""
    op = _opname(code, off)
    raw = frame.f_lineno
    if raw is None:  # an instruction without a line (exception cleanup): never an anchor
        return
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
    if tag == T.host_tag and line in T.launch_lines:
        # the host program's k-th launch: its threads and fake are launch h*L+k
        _me.launch = _me.t * DATA["launches"] + T.launch_lines[line]
    if SRC is not None:
        _src_opcode(frame, code, off, op, tag, line, k, raw)
        return
    if ops is not None and op in ops:
        if key in T.scans and not _scan_is_step(frame, off):
            return
        if key in T.launch_only and getattr(frame.f_locals.get("self"), "_device", True):
            # FakeCUDAKernel.__call__ of a device function, not a launch
            return
        _at_anchor(frame, tag, line, op, k, raw)
    elif T.poll_loop == (tag, line, k, op):
        SCHED.poll(_me.t, "%s:%d" % (T.show.get(tag, tag), raw))
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


def _src_opcode(frame, code, off, op, tag, line, k, raw):
    """-source: thread _me.t is about to run op at off: count the pass,
    note what the judge reads, and stop when this is the position and
    pass its next turn (or its park) begins at."""
    t = _me.t
    if tag == "src":
        if _src_skipping(frame, code, off, op):
            return
        pos = ("src", T.src_index[code], off)
        where = "%s:%d %s@%d" % (T.show["src"], raw, op, off)
        path = T.paths[t]
        at = T.path_at.get(t, 0)
        if at < len(path) and not SCHED.free and off not in T.unsure[code]:
            if path[at] != pos[1:]:
                c, o = path[at]
                SCHED.fail("%s ran %s, where its run in the model is at %s:%d (%s@%d): the replay left the model's path"
                           % (NAMES[t], where, T.show["src"], T.src_line[c].get(o, 0), T.src_ops[c].get(o, "?"), o))
                return
            T.path_at[t] = at + 1
    else:
        pos = (tag, line, k, op)
        where = "%s:%d %s" % (T.show.get(tag, tag), raw, op)
    counts = T.counts.setdefault(t, {})
    n = counts.get(pos, 0)
    counts[pos] = n + 1
    if (pos, n) in SCHED.wants(t):
        if SCHED.arrive(t, tag, line, op, k, where, matched=True) is None:
            return
        if TURNS[SCHED.mine[t][SCHED.pos[t] - 1]].get("raise"):
            _me.fault = True
    elif T.poll_loop == (tag, line, k, op):
        SCHED.poll(t, "%s:%d" % (T.show.get(tag, tag), raw))
    # what the step reads, once its thread runs it: in a turn, before the
    # schedule is over (as at a listing's anchor)
    if tag != "src" and op == T.note_at.get((tag, line, k)) and not SCHED.free:
        _notes(frame, tag, line, k)
    i = SCHED.land
    if tag == "src" and t == HOST and i is not None and not TRIPPED:
        land = T.turn_land[i]
        if land.get("src") and (pos[1], pos[2], n) == (land["src"]["code"], land["src"]["off"], land.get("n", 0)):
            TRIPPED[:] = [i, frame, off, where, frame.f_back]
            # The last act: the landing instruction runs next, and its
            # own check is the main thread's first since.
            TRIP.fire


def _src_skipping(frame, code, off, op):
    """-source: whether the instruction runs in a pass of a loop over a
    scenario module's globals (fn_globs.items(), in a comprehension or
    not) whose item is a name the model's module has not (__name__, the
    imports): the model makes no such pass, so nothing in it is counted."""
    if op == "FOR_ITER":
        d = _loop_dict(frame, code, off)
        if d is not None:
            st = _scan_pass.get((frame, off))
            if st is None:
                st = [0, list(d), GLOBALS_OF[id(d)]]
                _scan_pass[(frame, off)] = st
            n = st[0]
            st[0] += 1
            if n >= len(st[1]):  # the exhausting pass
                del _scan_pass[(frame, off)]
                T.skip[frame] = False
            else:
                T.skip[frame] = st[1][n] not in st[2]
    return T.skip.get(frame, False)


_iterable_name = {}  # (code, offset) -> the name the iterable of the loop at offset is loaded from, or None


def _loop_dict(frame, code, off):
    """The scenario module's globals dict the loop whose FOR_ITER is at
    off iterates, or None: read off the name loaded nearest before the
    loop's GET_ITER (fn_globs in fn_globs.items()), in this frame, or for
    a CPython 3.11 comprehension's own frame, in the frame that called it
    (at its CALL)."""
    owner, at, c = frame, off, code
    if code.co_name == "<genexpr>" or code.co_name in COMPREHENSIONS and not INLINED:
        # a frame of its own (3.12 inlines all but generator expressions)
        owner = frame.f_back
        if owner is None:
            return None
        c, at = owner.f_code, _instr_at(owner.f_code, owner.f_lasti)
    key = (c, at)
    if key not in _iterable_name:
        ins = [i for i in dis.get_instructions(c)]
        j = max(n for n, i in enumerate(ins) if i.offset <= at)
        while j >= 0 and ins[j].opname != "GET_ITER":
            j -= 1
        name = None
        for i in reversed(ins[max(0, j - 8):max(j, 0)]):
            if i.opname in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF", "LOAD_GLOBAL", "LOAD_NAME"):
                name = i.argval
                break
        _iterable_name[key] = name
    name = _iterable_name[key]
    if name is None:
        return None
    v = owner.f_locals.get(name, owner.f_globals.get(name))
    return v if isinstance(v, dict) and id(v) in GLOBALS_OF else None


def _on_exception(frame, exc, tb):
    """exc passes through frame: note when it was first seen (and land
    the interrupt the replay set)."""
    if first_seen(exc) is None:
        try:
            setattr(exc, SEEN_ATTR, (_me.t, SCHED.turn, SCHED.free, _tag_of(frame.f_code)[0], frame.f_lineno, aborted()))
        except (AttributeError, TypeError):  # an exception type without a __dict__
            pass
        if _me.t == HOST and isinstance(exc, KeyboardInterrupt):
            _landed(frame, exc, tb)
    FIRST_EXC.setdefault(_me.t, (SCHED.turn, SCHED.free, aborted()))


def _on_return(frame, value):
    """frame returns value (or yields it): a BlockThread's end; what an
    atomic or a shared.array returned; a yield's landing."""
    _frames.pop(frame, None)
    if frame.f_code is T.thread_run_code:
        SCHED.done(_me.t)
    elif frame.f_code in T.atomic_codes:
        ATOMIC_OLDS.setdefault(_me.t, []).append(value)
    elif frame.f_code is T.shared_code and "caller" in frame.f_locals:
        SHARED_GOT.append((_me.t, frame.f_locals["caller"], value))
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


# CPython 3.12+: sys.monitoring, whose INSTRUCTION, RAISE and PY_RETURN
# events stand for settrace's opcode, exception and return events (3.12's
# settrace loses opcode events: a frame's f_trace_opcodes set in its call
# event takes no effect in 3.12.1, and setting it before makes threads
# crash). A code the replay does not trace is disabled at its first event.
MONITOR = getattr(sys, "monitoring", None)
TOOL = 2  # sys.monitoring.DEBUGGER_ID


def _m_instruction(code, off):
    if _tag_of(code) is None:
        return MONITOR.DISABLE
    if getattr(_me, "t", None) is None and not identify_thread():
        return None
    _on_opcode(sys._getframe(1), code, off)


def _m_raise(code, off, exc):
    if _tag_of(code) is not None and (getattr(_me, "t", None) is not None or identify_thread()):
        _on_exception(sys._getframe(1), exc, exc.__traceback__)


def _m_return(code, off, value):
    if _tag_of(code) is not None and getattr(_me, "t", None) is not None:
        _on_return(sys._getframe(1), value)


def start_tracing():
    """Traces every thread from now on."""
    if not INLINED:
        threading.settrace(_global_trace)  # the threads the simulator starts
        return
    MONITOR.use_tool_id(TOOL, "swapcheck replay")
    ev = MONITOR.events
    MONITOR.register_callback(TOOL, ev.INSTRUCTION, _m_instruction)
    MONITOR.register_callback(TOOL, ev.RAISE, _m_raise)
    MONITOR.register_callback(TOOL, ev.PY_RETURN, _m_return)
    MONITOR.set_events(TOOL, ev.INSTRUCTION | ev.RAISE | ev.PY_RETURN)


def stop_tracing():
    if not INLINED:
        threading.settrace(None)
        return
    MONITOR.set_events(TOOL, 0)


def trace_this_thread(on):
    """3.11: a host thread's own settrace (the others' is threading's)."""
    if not INLINED:
        sys.settrace(_global_trace if on else None)



def identify_thread():
    """A BlockThread's first traced call: the host registered it at its
    t.start() (_at_anchor), as its model thread."""
    th = threading.current_thread()
    info = T.block_ids.get(th)
    if info is None:
        return False
    _me.t, _me.launch = info
    T.block_threads[_me.t] = th
    SCHED.state[_me.t] = "started"
    return True


class KernelError(Exception):
    """What the model's raise fault raises: any error of a user's kernel."""


def raise_fault_here():
    """The fault hook the module files call before each statement where
    the raise fault may fall: it raises when the schedule's turn, which
    began at the hook, is the fault's."""
    if getattr(_me, "fault", False):
        _me.fault = False
        raise KernelError("the kernel fails here (the schedule's raise fault)")


class Outcome:
    def __init__(self):
        self.host = []          # (host, exception) each launch or device call of a host raised
        self.interrupts = []    # the KeyboardInterrupts the host caught, described


OUT = Outcome()


# ---------------------------------------------------------------------------
# Setup: the simulator (stand-in or installed numba), its swap, the
# scenario's modules and the host program, and the anchors in them.
# ---------------------------------------------------------------------------
# The simulator's own lines (kernel.py), by key: the function, the text of
# the line (stripped; a prefix when it ends with "..."), and which of the
# lines with that text. A step anchors at the line's first opcode.
# "poll-loop" is no step: there the host polls outside the turns
# (Scheduler.poll).
SIM_LINES = {
    "set-context": ("_push_kernel_context", "_kernel_context = mod", 0),
    "reset-context": ("_push_kernel_context", "_kernel_context = None", 0),
    "assert": ("_push_kernel_context", "assert _kernel_context is None, ...", 0),
    "context-yield": ("_push_kernel_context", "yield", 0),
    "device-check": ("FakeCUDAKernel.__call__", "if self._device or _kernel_context:", 0),
    "device-swap": ("FakeCUDAKernel.__call__", "with swapped_cuda_module(self.fn, _get_kernel_context()):", 0),
    "normalize": ("FakeCUDAKernel.__call__", "grid_dim, block_dim = normalize_kernel_dimensions(...", 0),
    "swap-with": ("FakeCUDAKernel.__call__", "with swapped_cuda_module(self.fn, fake_cuda_module):", 0),
    "start": ("BlockManager.run", "t.start()", 0),
    "poll-loop": ("BlockManager.run", "while livethreads:", 0),
    "poll-abort": ("BlockManager.run", "for t_other in threads:", 0),
    "poll-release": ("BlockManager.run", "for t in blockedthreads:", 0),
    "poll-done": ("BlockManager.run", "for t in threads:", 0),
    "sync-check": ("BlockThread.syncthreads", "if self.abort:", 0),
    "sync-block": ("BlockThread.syncthreads", "self.syncthreads_blocked = True", 0),
    "sync-wait": ("BlockThread.syncthreads", "self.syncthreads_event.wait()", 0),
    "sync-recheck": ("BlockThread.syncthreads", "if self.abort:", 1),
    "thread-dies": ("BlockThread.run", "except Exception as e:", 0),
}
# The model's abort (a thread died with an exception) is either of the
# real code's two raises: the poll that finds the exception, or the final
# check after the loop when the thread died between two polls.
SIM_ALTERNATIVES = {"poll-abort": ["poll-abort", "poll-done"]}
# Steps of FakeCUDAKernel.__call__ that a launch makes, and a device call
# (self._device) runs through within another step.
LAUNCH_ONLY = ("device-check", "device-swap")


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


def write_files(root, files):
    for f in files:
        path = os.path.join(root, *f["name"].split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as out:
            out.write(f["source"])


def variant_source():
    return next(f["source"] for f in DATA["standin"] if f["name"].endswith("/" + DATA["source_file"]))


def setup(target, swap):
    if VERSION not in VERSIONS:
        raise ReplayFailed("this replay runs on CPython 3.11, 3.12 or 3.13 (the model's steps name 3.11's bytecode); this is %s"
                           % sys.version.split()[0])
    if VERSION != (3, 11) and any(t.get("land") for t in TURNS) and SRC is None:
        raise ReplayFailed("an interrupt's landing is forced at CPython 3.11's eval-breaker checks, which the model's "
                           "landings are; %s checks elsewhere (docs/cpython-switch-points.md): run this replay with CPython 3.11"
                           % sys.version.split()[0])
    tmp = tempfile.mkdtemp(prefix="swapcheck-replay-")
    T.tmp = tmp
    if target == "rendition":
        standin = os.path.join(tmp, "standin")
        write_files(standin, DATA["standin"])
        sys.path.insert(0, standin)
        importlib.invalidate_caches()
    else:
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
    sim = os.path.dirname(simkernel.__file__)
    T.real_cuda = cuda
    if target == "numba" and DATA["dispatches"]:
        raise ReplayFailed("proposed needs kernel.py patched as docs/proposed_fix.md shows (each BlockThread carries "
                           "its launch's fake); numba %s's simulator is not: replay it with --target rendition"
                           % numba.__version__)
    if DATA["thread_context"] and not DATA["dispatches"] and (
            hasattr(simkernel, "_kernel_context")
            or "kernel_context" not in inspect.getsource(simkernel.BlockThread.__init__)):
        raise ReplayFailed("%s needs kernel.py patched so that the kernel context is the thread's own (docs/merged_fix.md); "
                           "%s is not: overlay the patched files on numba (swapcheck's scripts/merged-fix-patch.py, "
                           "then scripts/numba-overlay.py --swap .../b/kernelapi.py --kernel .../b/kernel.py) "
                           "or replay it with --target rendition" % (DATA["variant"], simkernel.__file__))
    if target == "numba":
        try:
            # an overlay made by swapcheck's scripts/numba-overlay.py says what it installed
            with open(os.path.join(sim, "SWAPCHECK_OVERLAY.txt")) as f:
                sim += ": " + f.read().strip()
        except OSError:
            pass
    if HOSTS > 1 and not DATA["thread_context"]:
        src = inspect.getsource(simkernel.FakeCUDAKernel.__call__)
        if "if self._device or _kernel_context:" not in src:
            raise ReplayFailed("several hosts: the installed simulator's FakeCUDAKernel.__call__ (%s) tests 'if self._device:', "
                               "not numba-cuda's 'if self._device or _kernel_context:', which the model's hosts follow; "
                               "install numba-cuda's kernel.py (swapcheck's scripts/numba-overlay.py --commit)"
                               % simkernel.__file__)
    installed = kernelapi.swapped_cuda_module
    code = installed.__wrapped__.__code__
    found, same_lines = known_variant(code)
    where = "%s:%d" % (code.co_filename, code.co_firstlineno)
    ref = {"__name__": "swapcheck_" + DATA["variant"]}
    exec(compile(variant_source(), DATA["source_file"], "exec"), ref)
    ref_code = ref["swapped_cuda_module"].__wrapped__.__code__
    if SRC is not None:
        install_source(simkernel, kernelapi, tmp)
        T.describe = ("%s CUDA simulator (%s), its swapped_cuda_module (%s) replaced by %s of %s"
                      % ("swapcheck's stand-in" if target == "rendition" else "numba %s's" % numba.__version__,
                         sim, where, SRC["name"], SRC["file"]))
    elif swap == "installed":
        if found != DATA["variant"]:
            what = "the %s variant" % found if found else "none of swapcheck's variants"
            raise ReplayFailed("the installed numba %s's swapped_cuda_module (%s) is %s, not %s: "
                               "rerun with --swap rendition to replay %s's rendition on numba's real launch machinery"
                               % (numba.__version__, where, what, DATA["variant"], DATA["variant"]))
        if not same_lines:
            raise ReplayFailed("the installed swapped_cuda_module (%s) has %s's bytecode but not its lines: "
                               "the model's steps cannot be anchored on it" % (where, found))
        shift = code.co_firstlineno - ref_code.co_firstlineno
        for c in codes_of(code):
            T.codes[c] = ("proto", shift)
        T.check_codes.append(("proto", code, shift))
        T.offset["proto"] = shift
        T.show["proto"] = code.co_filename
        # the installed function's module holds its registries
        # (_swap_refcount, _swap_orig, _swap_state, ...): the judge reads them
        T.proto = installed.__wrapped__.__globals__
        if target == "rendition":
            T.describe = ("swapcheck's stand-in simulator (%s), numba-cuda's launch code transcribed, with the %s rendition (%s)"
                          % (sim, found, where))
        else:
            T.describe = ("numba %s's CUDA simulator (%s), its own swapped_cuda_module (%s, %s)"
                          % (numba.__version__, sim, found, where))
    else:
        # The rendition as a real module, installed where the simulator
        # looks the swap up: kernel.py binds it by name at import (from
        # .kernelapi import swapped_cuda_module), so both names are patched.
        path = os.path.join(tmp, "swapcheck_rendition_" + DATA["source_file"])
        with open(path, "w") as f:
            f.write(variant_source())
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
    T.dispatcher = T.proto.get("_dispatcher")

    # The scenario's modules, as files a user writes, and the host program.
    scen = os.path.join(tmp, "scenario")
    for f in DATA["files"]:
        name = f["name"][:-3]
        if name in sys.modules or importlib.util.find_spec(name) is not None:
            raise ReplayFailed("the scenario's module %s has the name of an installed module: rename it in the scenario" % name)
    write_files(scen, DATA["files"])
    sys.path.insert(0, scen)
    importlib.invalidate_caches()
    builtins.raise_fault_here = raise_fault_here
    mods = {}
    for f in DATA["files"]:
        name = f["name"][:-3]
        mods[name] = importlib.import_module(name)
        T.files[mods[name].__file__] = "mod:" + name
        T.check_codes.append(("mod:" + name, compile(f["source"], mods[name].__file__, "exec"), 0))
        T.show["mod:" + name] = mods[name].__file__
    T.host_tag = "mod:" + DATA["host_module"]
    T.host_fn = mods[DATA["host_module"]].host
    T.launch_lines = {line: k + 1 for k, line in enumerate(DATA["launch_lines"])}
    for m in DATA["modules"]:
        g = mods[m["name"]].__dict__
        order = [k for k in g if k in m["globals"]]
        if order != m["globals"]:
            raise ReplayFailed("internal: module %s's globals are %s, the model's %s" % (m["name"], order, m["globals"]))
        T.modules.append(g)
        GLOBALS_OF[id(g)] = set(m["globals"])
    fake_attrs = set(dir(kernelapi.FakeCUDAModule((1, 1, 1), (1, 1, 1), 0)))
    for attr in DATA["attrs"]:
        if attr not in fake_attrs:
            raise ReplayFailed("the simulator's FakeCUDAModule has no attribute %s, which the scenario uses" % attr)

    # The simulator's steps, found by their text in its kernel.py.
    T.files[simkernel.__file__] = "sim"
    with open(simkernel.__file__) as f:
        T.check_codes.append(("sim", compile(f.read(), simkernel.__file__, "exec"), 0))
    T.show["sim"] = simkernel.__file__
    sim_at = {}

    def sim_line(key):
        if key in sim_at:
            return sim_at[key]
        qual, text, nth = SIM_LINES[key]
        fn = simkernel
        for part in qual.split("."):
            fn = getattr(fn, part, None)
        fn = getattr(fn, "__wrapped__", fn)
        lines, first = inspect.getsourcelines(fn) if fn is not None else ([], 0)
        prefix = text.endswith("...")
        text = text.rstrip(".").rstrip() if prefix else text
        at = [first + i for i, l in enumerate(lines) if (l.strip().startswith(text) if prefix else l.strip() == text)]
        if len(at) <= nth or (nth == 0 and len(at) != 1 and key not in ("sync-check",)):
            raise ReplayFailed("the simulator's %s has %d lines '%s' in %s: this replay anchors on numba-cuda's "
                               "kernel.py (numba 0.56.4's has the same lines)" % (simkernel.__file__, len(at), text, qual))
        first_op = [_norm(i) for i in dis.get_instructions(fn) if i.positions.lineno == at[nth]]
        sim_at[key] = {"tag": "sim", "line": at[nth], "ops": first_op[:1], "k": 0}
        return sim_at[key]

    loop = sim_line("poll-loop")
    T.poll_loop = ("sim", loop["line"], 0, loop["ops"][0])
    for key in DATA["sim_keys"]:
        add_anchor(sim_line(key), key in LAUNCH_ONLY)
    if "set-context" in DATA["sim_keys"]:
        T.set_context = ("sim", sim_line("set-context")["line"], 0)
    T.start = ("sim", sim_line("start")["line"], 0)
    if "sync-recheck" in DATA["sim_keys"]:
        T.sync_recheck = ("sim", sim_line("sync-recheck")["line"], 0)
    for a in DATA["anchors"]:
        add_anchor(a)

    # The simulator's atomics and shared arrays, found by their method and
    # the text of their lines in its kernelapi.py.
    T.files[kernelapi.__file__] = "api"
    with open(kernelapi.__file__) as f:
        T.check_codes.append(("api", compile(f.read(), kernelapi.__file__, "exec"), 0))
    T.show["api"] = kernelapi.__file__
    T.atomic_codes = {f.__code__ for f in vars(kernelapi.FakeCUDAAtomic).values() if inspect.isfunction(f)}
    T.shared_code = kernelapi.FakeCUDAShared.array.__code__
    T.host_globals = mods[DATA["host_module"]].__dict__
    api_at = {}

    def api_line(step):
        """The anchor of a step in kernelapi.py: the first instruction of
        the method's line with the step's text, its STORE_SUBSCR, or the
        first of its with statement's exit (up to the exit's CALL of
        __exit__, on the with's line)."""
        key = (step["func"], step["text"], step["role"])
        if key in api_at:
            return api_at[key]
        fn = kernelapi
        for part in step["func"].split("."):
            fn = getattr(fn, part, None)
        if fn is None:
            raise ReplayFailed("the simulator's kernelapi.py (%s) has no %s, which the scenario calls (numba %s)"
                               % (kernelapi.__file__, step["func"], numba.__version__))
        ins = [i for i in dis.get_instructions(fn) if i.positions.lineno is not None]
        if step["role"] == "exit":
            w = next((j for j, i in enumerate(ins) if i.opname == "BEFORE_WITH"), None)
            line = ins[w].positions.lineno if w is not None else None
            call = next((j for j in range(w + 2, len(ins)) if ins[j].opname == "CALL" and ins[j].positions.lineno == line),
                        None) if w is not None else None
            if call is None:
                raise ReplayFailed("the simulator's %s (%s) has no with statement whose exit releases its lock"
                                   % (step["func"], kernelapi.__file__))
            j = call
            while j - 1 > w + 1 and ins[j - 1].positions.lineno == line:
                j -= 1
            first = ins[j]
        else:
            lines, start = inspect.getsourcelines(fn)
            text = step["text"]
            at = [start + i for i, l in enumerate(lines) if (l.strip().startswith(text) if step.get("prefix") else l.strip() == text)]
            if len(at) != 1:
                raise ReplayFailed("the simulator's %s (%s) has %d lines '%s': this replay anchors on numba-cuda's "
                                   "kernelapi.py (numba 0.56.4's has the same lines)" % (step["func"], kernelapi.__file__, len(at), text))
            on = [i for i in ins if i.positions.lineno == at[0]]
            if step["role"] == "store":
                on = [i for i in on if i.opname == "STORE_SUBSCR"]
            if not on:
                raise ReplayFailed("internal: no %s instruction at %s:%d" % (step["role"], kernelapi.__file__, at[0]))
            first = on[0]
        api_at[key] = {"tag": "api", "line": first.positions.lineno, "ops": [_norm(first)], "k": 0}
        return api_at[key]

    def resolve_src(a):
        """-source: the position a turn's anchor is, as _src_opcode
        counts it."""
        if a.get("src"):
            return ("src", a["src"]["code"], a["src"]["off"])
        if a["tag"] == "sim":
            w = sim_line(a["key"])
            return ("sim", w["line"], 0, w["ops"][0])
        if a.get("end"):
            return kernel_end(a)
        return (a["tag"], a["line"], a["k"], a["ops"][0])

    def kernel_end(a):
        # the kernel's return: its last RETURN_VALUE (3.12: RETURN_CONST)
        f = next(f for f in DATA["files"] if "mod:" + f["name"][:-3] == a["tag"])
        mod = compile(f["source"], "x", "exec")
        code = next(c for c in codes_of(mod) if c.co_name == a["end"])
        ins = [i for i in dis.get_instructions(code) if _norm(i) == "RETURN_VALUE"]
        last = ins[-1]
        k = sum(1 for i in ins[:-1] if i.positions.lineno == last.positions.lineno)
        return (a["tag"], last.positions.lineno, k, "RETURN_VALUE")

    def resolve(a):
        if a["tag"] == "sim":
            return [sim_line(k) for k in SIM_ALTERNATIVES.get(a["key"], [a["key"]])]
        if a["tag"] == "api":
            return [api_line(a["api"])]
        return [running(a)]
    T.turn_at = [resolve(t["at"]) if not t.get("noop") and not t.get("land") and SRC is None else [] for t in TURNS]
    for t, at in zip(TURNS, T.turn_at):
        if t["at"]["tag"] == "api":
            add_anchor(at[0])

    def resolve_land(land):
        if land is not None and land["tag"] == "sim":
            land = dict(land, line=sim_line(land["key"])["line"])
        return land
    T.turn_land = [resolve_land(t.get("land")) for t in TURNS]
    check_anchors()
    if SRC is not None:
        T.turn_pos = [[] if t.get("noop") or t.get("land") else [(resolve_src(t["at"]), t.get("n", 0))] +
                      ([(resolve_src(t["alt"]["at"]), t["alt"]["n"])] if t.get("alt") else []) for t in TURNS]
        T.park = [[] if p is None else [(resolve_src(p["at"]), p["n"])] for p in SRC["park"]]
        for key in ("set-context", "start"):
            w = sim_line(key)
            T.note_at[("sim", w["line"], 0)] = w["ops"][0]
        for (tag, line), _ in T.uses.items():
            T.note_at[(tag, line, 0)] = "LOAD_GLOBAL"

    T.thread_run_code = simkernel.BlockThread.run.__code__


def source_block(tree, name):
    """The statements of a module (tree) that make its function name: the
    def, and every top-level statement before it that binds a name one
    of them reads (assignments, imports, helper functions), transitively,
    in the file's order. The rest of the file (numba-cuda's kernelapi.py
    imports what an older numba does not have) is left out."""
    body = list(tree.body)

    def binds(n):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return {n.name}
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            return {(a.asname or a.name).split(".")[0] for a in n.names}
        targets = n.targets if isinstance(n, ast.Assign) else [getattr(n, "target", None)]
        return {x.id for t in targets if t is not None for x in ast.walk(t) if isinstance(x, ast.Name)}

    def reads(n):
        stored = {x.id for x in ast.walk(n) if isinstance(x, ast.Name) and not isinstance(x.ctx, ast.Load)}
        stored |= {a.arg for x in ast.walk(n) if isinstance(x, ast.arguments)
                   for a in x.args + x.kwonlyargs + x.posonlyargs + [x.vararg, x.kwarg] if a is not None}
        stored |= {(a.asname or a.name).split(".")[0] for x in ast.walk(n) if isinstance(x, (ast.Import, ast.ImportFrom))
                   for a in x.names} if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) else set()
        loads = {x.id for x in ast.walk(n) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load)}
        return loads - stored if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) else loads
    fn = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name), None)
    if fn is None:
        raise ReplayFailed("%s defines no %s" % (SRC["file"], name))
    keep = {id(fn)}
    need = reads(fn)
    changed = True
    while changed:
        changed = False
        for n in body:
            if id(n) not in keep and binds(n) & need:
                keep.add(id(n))
                need |= reads(n)
                changed = True
    return [n for n in body if id(n) in keep]


def install_source(simkernel, kernelapi, tmp):
    """Installs the file's function where the simulator looks the swap up
    (kernel.py binds it by name at import), compiled by this CPython at
    the file's own lines, and checks its bytecode is what the model ran."""
    if "%d.%d" % VERSION != SRC["python"]:
        raise ReplayFailed("the model ran CPython %s's bytecode of %s; this is CPython %s: run the replay with %s (--python)"
                           % (SRC["python"], SRC["file"], sys.version.split()[0], SRC["python"]))
    path = os.path.join(tmp, SRC["file"])
    with open(path, "w") as f:
        f.write(SRC["text"])
    block = source_block(ast.parse(SRC["text"], path), SRC["name"])
    code = compile(ast.Module(body=block, type_ignores=[]), path, "exec")
    ns = {"__name__": "swapcheck_source", "__package__": kernelapi.__package__, "__file__": path}
    try:
        exec(code, ns)
    except Exception as e:
        raise ReplayFailed("%s's %s with the statements it reads does not run under this simulator (%s): %s: %s"
                           % (SRC["file"], SRC["name"], kernelapi.__file__, type(e).__name__, e))
    theirs = {(c["qualname"], c["firstline"]): (i, c) for i, c in enumerate(SRC["codes"])}
    for c in codes_of(code)[1:]:
        i, want = theirs.get((c.co_qualname, c.co_firstlineno), (None, None))
        if want is None:
            raise ReplayFailed("internal: %s at %s:%d is no code object the model ran" % (c.co_qualname, SRC["file"], c.co_firstlineno))
        got = [(x.offset, x.opname) for x in dis.get_instructions(c)]
        if got != list(zip(want["offsets"], want["ops"])):
            raise ReplayFailed("%s's %s (line %d) compiles here (CPython %s) to other bytecode than the model ran: "
                               "the model's steps cannot be anchored on it" % (SRC["file"], c.co_qualname, c.co_firstlineno,
                                                                               sys.version.split()[0]))
        T.src_index[c] = i
        T.codes[c] = ("src", 0)
        # instructions CPython may give no event: the prologue up to the
        # first RESUME, RESUME and NOP (pyreplay/source.go's untraced)
        ins = list(dis.get_instructions(c))
        first = next((j for j, x in enumerate(ins) if x.opname == "RESUME"), len(ins))
        T.unsure[c] = {x.offset for j, x in enumerate(ins) if j <= first or x.opname in ("RESUME", "NOP")}
    for i, c in enumerate(SRC["codes"]):
        T.src_line[i] = dict(zip(c["offsets"], c["lines"]))
        T.src_ops[i] = dict(zip(c["offsets"], c["ops"]))
    T.paths = [[(p[j], p[j + 1]) for j in range(0, len(p), 2)] for p in SRC["paths"]]
    swap = ns[SRC["name"]]
    simkernel.swapped_cuda_module = swap
    kernelapi.swapped_cuda_module = swap
    T.proto = ns
    T.show["src"] = SRC["file"]


def check_anchors():
    """Every anchor is an instruction of a traced code: a mistake in the
    anchors would otherwise show as a turn that never comes."""
    have = set()
    for tag, code, shift in T.check_codes:
        for c in codes_of(code):
            for i in dis.get_instructions(c):
                if i.positions.lineno is not None:
                    have.add((tag, i.positions.lineno - shift, _norm(i)))
    for (tag, line, k), ops in T.anchors.items():
        if not any((tag, line, op) in have for op in ops):
            raise ReplayFailed("internal: no instruction %s at %s:%d" % ("/".join(ops), T.show.get(tag, tag), line))


def host_caught(e):
    """A host's program caught e. A KeyboardInterrupt is described now and
    not kept: it dies here, as a test runner's does, and with it a
    generator its traceback holds suspended at its yield is closed, whose
    finally runs now, in the host (model/interrupt.go)."""
    if not isinstance(e, KeyboardInterrupt):
        OUT.host.append((_me.t, e))
        return
    _, f, line = origin(e)
    OUT.interrupts.append("%s: KeyboardInterrupt (raised at %s:%d%s)" % (NAMES[_me.t], f, line, when(e, _me.t, False)))


def run_host(h):
    _me.t, _me.launch = h, 0
    SCHED.start(h)
    trace_this_thread(True)
    try:
        T.host_fn(host_caught)
    except BaseException as e:
        host_caught(e)
    finally:
        trace_this_thread(False)
        SCHED.done(h)


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
    """When exception e (raised in thread t) was first seen, and whether
    its thread's launch had failed by then; copy: e is the copy a
    BlockThread keeps (its thread's first exception is the original)."""
    info = first_seen(e)
    if copy and t in FIRST_EXC:
        turn, free, _ = FIRST_EXC[t]
    elif info is not None:
        free, turn = info[2], info[1]
    else:
        return ""
    if free:
        return " after the last turn"
    return " in turn %d of %d" % (turn + 1, len(TURNS))


def was_aborted(e, t, copy):
    info = first_seen(e)
    if copy and t in FIRST_EXC:
        return FIRST_EXC[t][2]
    return bool(info is not None and len(info) > 5 and info[5])


def describe(v):
    if v is None:
        return "None"
    if v is T.real_cuda:
        return "the real module numba.cuda"
    for launch, fake in sorted(FAKES.items()):
        if v is fake:
            return "launch %d's fake %r" % (launch, v)
    return repr(v)


def judge():
    """The violations seen: (kind, after failure, description). After
    failure: only a thread of a launch that had already failed (its
    BlockThread's abort set) saw it, which hurts nobody by itself."""
    found = []
    seen = []
    raised = []  # (who, thread, exception, traceback of the copy)
    for t, th in sorted(T.block_threads.items()):
        if th.exception:
            raised.append((NAMES[t], t, th.exception[0], th.exception[1]))
    for h, e in OUT.host:
        raised.append((NAMES[h], h, e, None))
    for who, t, top, tb in raised:
        for e in chain(top):
            if any(e is s for s in seen):
                continue
            seen.append(e)
            copy = e is top and tb is not None
            tag, f, line = origin(e, tb if e is top else None)
            desc = "%s: %s: %s (raised at %s:%d%s)" % (who, type(e).__name__, e, f, line, when(e, t, copy))
            if isinstance(e, KeyboardInterrupt):
                found.append(("interrupt", False, desc))  # the schedule's own, checked to land where the model's did
            elif tag in ("proto", "src"):
                found.append(("exception", was_aborted(e, t, copy), desc))
            else:
                found.append(("error", False, desc))
    for desc in OUT.interrupts:
        found.append(("interrupt", False, desc))
    # Each use of cuda: what the global held as its turn began, against
    # the fake of its launch (a host's device code: None, outside any
    # launch; under proposed the real module).
    for t, v, gone in USES:
        if t < HOSTS:
            due = T.real_cuda if T.dispatcher is not None else None
        else:
            due = FAKES.get(launch_of(t))
        if v is due:
            continue
        if v is T.real_cuda:
            kind = "use-saw-real"
        elif v is None:
            kind = "use-saw-none"
        else:
            kind = "use-saw-other-fake"
        found.append((kind, gone, "%s: a use of cuda saw %s, not %s" % (NAMES[t], describe(v), describe(due))))
    swapped = []
    # proposed's dispatcher, left for good, gives a thread outside a launch
    # the real module: restored, as the model's end-state invariant reads it
    for m, g in zip(DATA["modules"], T.modules):
        for name in m["names"]:
            if g[name] is not T.real_cuda and (T.dispatcher is None or g[name] is not T.dispatcher):
                swapped.append("%s.%s is %s" % (m["name"], name, describe(g[name])))
    if swapped:
        found.append(("left-swapped", False, "every thread exited, but " + ", ".join(swapped)))
    left = []
    gids = {id(g): m["name"] for m, g in zip(DATA["modules"], T.modules)}
    regs = ("_swap_refcount", "_swap_orig", "_swap_state")
    if SRC is not None:
        # the file's own registries: every dict its function's module
        # state holds (the set-up leaves them empty)
        regs = tuple(k for k, v in T.proto.items() if isinstance(v, dict) and not k.startswith("__"))
    lock_types = (type(threading.Lock()), type(threading.RLock()))
    for reg in regs:
        d = T.proto.get(reg, {})
        for gid, v in d.items():
            if gid not in gids:
                continue
            if SRC is not None and isinstance(v, lock_types):
                # as the model's leftovers (pyvm.State.Leftovers): a
                # per-module lock registry keeps its locks by design
                continue
            if DATA["zero_count_missing"] and getattr(d, "default_factory", None) is int and v == 0:
                # a count of 0 in a defaultdict(int) reads as a missing
                # one where the model says so (the listing's
                # Protocol.ZeroCountIsMissing; -source's pyvm.State.Leftovers)
                continue
            left.append("%s[%s] = %r" % (reg, gids[gid], v if reg == "_swap_refcount" else "..."))
    if left:
        found.append(("registry-leftover", False, "every thread exited, but the registry still holds " + ", ".join(left)))
    if DATA["memory"]:
        found.extend(judge_memory())
    return found


def apply_atomic(op, old, val, cmp):
    """What FakeCUDAAtomic's method op stores when it runs alone on an
    element holding old, and whether it stores (swapcheck's sequential
    spec, scenario.AtomicOp.Apply)."""
    if op in ("inc", "dec"):
        if op == "inc":
            return (0 if old >= val else old + 1), True
        return (val if old == 0 or old > val else old - 1), True
    if op in ("compare_and_swap", "cas"):
        return val, old == cmp
    if op == "store":  # a plain a[i] = v, no atomic
        return val, True
    return {"add": lambda: old + val, "sub": lambda: old - val, "and_": lambda: old & val, "or_": lambda: old | val,
            "xor": lambda: old ^ val, "exch": lambda: val, "max": lambda: max(old, val), "nanmax": lambda: max(old, val),
            "min": lambda: min(old, val), "nanmin": lambda: min(old, val)}[op](), True


def sequential(seqs, final=None):
    """The final values some order of the threads' atomics on one element
    (each thread's in its own order, one at a time, from 0) gives, where
    each call returns the old it did (seqs: per thread, [(op, val, cmp,
    old)]; old None: any); with final, whether one gives final."""
    finals, seen = set(), set()

    def walk(pos, v):
        if (pos, v) in seen:
            return
        seen.add((pos, v))
        if all(p == len(sq) for p, sq in zip(pos, seqs)):
            finals.add(v)
            return
        for i, (p, sq) in enumerate(zip(pos, seqs)):
            if p < len(sq) and (sq[p][3] is None or sq[p][3] == v):
                op, val, cmp, _ = sq[p]
                nv, stores = apply_atomic(op, v, val, cmp)
                walk(pos[:i] + (p + 1,) + pos[i + 1:], nv if stores else v)
    walk(tuple(0 for _ in seqs), 0)
    return finals if final is None else final in finals


def judge_memory():
    """The simulator's other races: an element whose final value and
    atomics' returned olds no sequential order of its atomics gives
    (lost-update); two threads of a launch that got different arrays from
    one cuda.shared.array line (shared-not-shared)."""
    found = []
    mem = DATA["memory"]
    held = {a["name"]: [int(x) for x in T.host_globals[a["name"]]] for a in mem["arrays"]}
    for a in mem["arrays"]:
        print("array: %s = %s" % (a["name"], held[a["name"]]))
    elements = {}
    for t, calls in enumerate(mem["atomics"]):
        olds = iter(ATOMIC_OLDS.get(t, []))
        for c in calls:
            # a store returns nothing (any old); an atomic what it returned,
            # until the thread's last completed one
            old = None if c["op"] == "store" else next(olds, StopIteration)
            if old is StopIteration:
                break
            elements.setdefault((c["array"], c["index"]), {}).setdefault(t, []).append(
                (c["op"], c["val"], c["cmp"], None if old is None else int(old), c))
    for (name, index), by in sorted(elements.items()):
        seqs = [[x[:4] for x in by[t]] for t in sorted(by)]
        final = held[name][index]
        if sequential(seqs, final):
            continue
        calls = "; ".join("%s %s" % (NAMES[t], ", ".join("%s[%d] = %d" % (name, index, x[1]) if x[0] == "store" else
                                                       "atomic.%s -> %d" % (x[4]["op"], x[3]) for x in by[t]))
                          for t in sorted(by))
        anyorder = sorted(sequential([[x[:3] + (None,) for x in sq] for sq in seqs]))
        found.append(("lost-update", False, "%s[%d] = %d at the end (%s), but no order of these atomics, one at a time, "
                      "gives that: every order ends with %s[%d] in %s" % (name, index, final, calls, name, index, anyorder)))
    # A load after a barrier of a slot whose last store before it, by a
    # thread of the same block, went into another array (the model's
    # stale-read, model/memory.go's execElement).
    last = {}
    for t, e, arr, epoch, gone in ELEMS:
        if e["site"] < 0:  # a kernel array's element: lost-update's
            continue
        launch = launch_of(t)
        block = (t - HOSTS - (launch - 1) * PER_LAUNCH) // DATA["threads"]
        key = (launch, e["site"], e["index"])
        if e["store"]:
            last[key] = (t, arr, epoch, block)
            continue
        prev = last.get(key)
        if prev is not None and prev[1] is not arr and prev[3] == block and prev[2] < epoch:
            found.append(("stale-read", gone, "%s: x = %s[%d] after cuda.syncthreads() reads its own array %r, but %s stored "
                          "to that slot before the barrier, into another array %r"
                          % (NAMES[t], e["target"], e["index"], list(arr), NAMES[prev[0]], list(prev[1]))))
    first = {}
    for t, caller, arr in SHARED_GOT:
        key = (launch_of(t), tuple(caller))
        if key not in first:
            first[key] = (t, arr)
        elif arr is not first[key][1]:
            u = first[key][0]
            found.append(("shared-not-shared", False, "%s and %s of launch %d got different arrays from "
                          "cuda.shared.array at %s:%d (%r and %r)" % (NAMES[u], NAMES[t], key[0], caller[0], caller[1],
                                                                    list(first[key][1]), list(arr))))
    return found


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments: one line on stderr, exit status 2."""

    def error(self, message):
        sys.stderr.write("%s: %s (see --help)\n" % (self.prog, message))
        sys.exit(2)


def main():
    global TIMEOUT
    ap = OneLineParser(description="Replay a swapcheck schedule on real threads.")
    ap.add_argument("--target", choices=["rendition", "numba"], default="rendition",
                    help="rendition: swapcheck's stand-in simulator with the variant's swap; numba: the installed numba's CUDA simulator")
    ap.add_argument("--swap", choices=["installed", "rendition"], default="installed",
                    help="with --target numba: the installed swapped_cuda_module, or the variant's rendition in its place")
    ap.add_argument("--timeout", type=float, default=TIMEOUT,
                    help="seconds without a turn ending before a turn counts as not forced")
    ap.add_argument("--python", metavar="PYTHON",
                    help="run the replay with this interpreter instead (CPython 3.11, 3.12 or 3.13; the numba target needs "
                         "one with numba, such as Debian's /usr/bin/python3)")
    args = ap.parse_args()
    if args.python:
        exe = shutil.which(args.python)
        if exe is None:
            fail_now("--python %s: no such interpreter" % args.python)
        if os.path.realpath(exe) != os.path.realpath(sys.executable):
            argv = [exe, os.path.abspath(__file__), "--target", args.target, "--swap", args.swap, "--timeout", str(args.timeout)]
            sys.stdout.flush()
            os.execv(exe, argv)
    TIMEOUT = args.timeout
    if args.swap != "installed" and args.target != "numba":
        fail_now("--swap applies to --target numba (the rendition target always runs the rendition)")
    try:
        setup(args.target, args.swap)
    except ReplayFailed as e:
        fail_now(str(e))
    print("swapcheck replay: %s, atomicity %s, %d turns over %s" % (
        DATA["variant"], DATA["atomicity"], len(TURNS), ", ".join(NAMES)))
    print("python: %s (%s)" % (sys.version.split()[0], sys.executable))
    print("target: " + T.describe)
    if DATA["expect_kind"]:
        print("model: violation %s: %s" % (DATA["expect_kind"], DATA["expect_message"]))
    else:
        print("model: no violation on this schedule")
    sys.stdout.flush()
    # Host 0 is the main thread, the only one CPython raises a signal's
    # exception in; a watchdog thread (never traced) stops the replay when
    # a turn cannot be forced. SIGINT gets Python's own handler even when
    # this process was started with it ignored (a shell's background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    host_done = threading.Event()
    threading.Thread(target=watchdog, args=(host_done,), name="watchdog", daemon=True).start()
    start_tracing()
    others = [threading.Thread(target=run_host, args=(h,), name=NAMES[h], daemon=True) for h in range(1, HOSTS)]
    for th in others:
        th.start()
    run_host(HOST)
    deadline = time.monotonic() + TIMEOUT
    for th in others:
        th.join(max(0.0, deadline - time.monotonic()))
    host_done.set()
    with SCHED.cv:
        failure = SCHED.failure
    if failure is not None:
        fail_now(failure)
    deadline = time.monotonic() + TIMEOUT
    for th in T.block_threads.values():
        if th.is_alive() and not th.syncthreads_blocked:  # one blocked at a barrier no one releases waits for good
            th.join(max(0.0, deadline - time.monotonic()))
    stop_tracing()
    with SCHED.cv:
        failure = SCHED.failure
    if failure is not None:
        fail_now(failure)
    if not SCHED.free:
        fail_now("the schedule ended at turn %d of %d" % (SCHED.turn, len(TURNS)))
    print_forced()
    found = judge()
    for kind, gone, desc in found:
        print("observed %s%s: %s" % (kind, " (after failure)" if gone else "", desc))
    kinds = [k for k, gone, _ in found if k not in ("error", "interrupt") and (not gone or DATA["after_failure"])]
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


def print_forced():
    """Says every turn was forced, and where each interrupt landed (the
    replay fails unless every one landed where the model's did)."""
    want = sum(1 for t in TURNS if t.get("land"))
    if len(LANDINGS) != want:
        fail_now("%d interrupts landed where the model's did, of %d" % (len(LANDINGS), want))
    print("replay: all %d turns forced" % len(TURNS))
    for i, where in LANDINGS:
        print("interrupt: turn %d: KeyboardInterrupt raised in the host (main thread) by the check of %s"
              % (i + 1, where))


def stuck_at(ident):
    """Where thread ident stands, as the innermost frame of a traced code
    (the file's, the simulator's, a scenario module's): (frame, lasti,
    where), or None."""
    f = sys._current_frames().get(ident)
    while f is not None and _tag_of(f.f_code) is None:
        f = f.f_back
    if f is None:
        return None
    tag, _ = _tag_of(f.f_code)
    return f, f.f_lasti, "%s:%d %s" % (T.show.get(tag, tag), f.f_lineno, _opname(f.f_code, _instr_at(f.f_code, f.f_lasti)))


def judge_deadlock():
    """-source, a deadlock expected: once the schedule is over, the host
    has not finished, and stands at the same instruction a second apart
    (a lock it waits for, which no thread will release): the deadlock
    the model found. Prints the end of the replay and exits."""
    main_ident = threading.main_thread().ident
    first = stuck_at(main_ident)
    time.sleep(1.0)
    again = stuck_at(main_ident)
    if first is None or again is None or first[0] is not again[0] or first[1] != again[1]:
        fail_now("the schedule is over and the host has not finished, but it is not waiting: %s" % (again[2] if again else "?"))
    print_forced()
    print("observed deadlock: host: waits at %s for %.1fs after the last turn, and no thread will release what it waits for"
          % (again[2], TIMEOUT + 1.0))
    print("verdict: reproduced deadlock")
    exit_now(1)


def watchdog(host_done):
    while not host_done.wait(0.02):
        with SCHED.cv:
            if SCHED.free and SRC is not None and DATA["expect_kind"] == "deadlock" and \
                    time.monotonic() - SCHED.last_progress > TIMEOUT:
                deadlock = True
            else:
                deadlock = False
        if deadlock:
            judge_deadlock()
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

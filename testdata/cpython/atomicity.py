#!/usr/bin/env python3
"""Check, against the running CPython, the interpreter facts the swapcheck model relies on.

The model (Go, package model and friends) explores the "module swap" protocol of
numba-cuda's CUDA simulator (``swapped_cuda_module``) in a simulated CPython in
which every scheduler step is one atomic CPython operation.  Which operations it
treats as atomic, and where it lets another thread run, rests on the facts
below.  This script checks each of them BEHAVIOURALLY wherever possible:

* ``sys.settrace`` with ``frame.f_trace_opcodes = True`` gives one "opcode"
  event before every bytecode instruction of every traced Python frame, and a
  "call" event whenever a Python frame starts.  An opcode boundary is therefore
  a point where we can run "another thread's" action from the trace hook (the
  hook itself is not traced: CPython disables tracing while a trace function
  runs).  Conversely, if no trace/opcode event of any other frame occurs
  between the opcode event of an instruction and the next opcode event of the
  same frame, then no Python-level code ran inside that instruction.
* ``sys.setprofile`` additionally reports "c_call"/"c_return" for C functions
  called directly from bytecode, which shows how many C calls a line makes.
* ``dis`` shows the instructions of the protocol lines themselves.

Wherever we show "no Python code runs inside X", the same detector is also run
on a positive control (the same operation with a key whose ``__hash__`` /
``__eq__`` is Python code, or a defaultdict with a Python factory) to prove the
detector is not vacuous.

The protocol sources are read from ../python/*.py (relative to this file);
``from numba import cuda`` in them is satisfied by a fake ``numba`` module put
in ``sys.modules``.  Standard library only.

Output: ONE JSON object on stdout
    {"python": sys.version, "gil_enabled": bool,
     "facts": [{"name", "holds", "detail"}...],
     "observations": [{"name", "detail"}...]}
and exit status 0 even when a fact does not hold: the Go test
(model/cpython_test.go, TestCPythonAtomicity) judges.  "observations" are
informational only (real-thread stress measurements, see the end of the file);
they are logged, not asserted.
"""

import collections
import dis
import json
import os
import sys
import threading
import time
import traceback
import types
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.normpath(os.path.join(HERE, "..", "python"))
VARIANTS = ["naive", "global_lock", "refcount_unregistered", "refcount_del", "merged"]
REFCOUNT_VARIANTS = ["refcount_unregistered", "refcount_del", "merged"]

# ---------------------------------------------------------------------------
# A fake numba: the protocol does ``from numba import cuda`` and then compares
# globals with ``v is cuda``.  REAL_CUDA plays the real cuda module.  The fake
# package has no __path__, so the import is served from sys.modules by C code
# (no importlib frames show up in traces).
# ---------------------------------------------------------------------------
REAL_CUDA = types.ModuleType("numba.cuda")
_FAKE_NUMBA = types.ModuleType("numba")
_FAKE_NUMBA.cuda = REAL_CUDA
sys.modules["numba"] = _FAKE_NUMBA


def load_variant(name):
    """Execute testdata/python/<name>.py as a fresh module; return (module, source lines)."""
    path = os.path.join(PROTO_DIR, name + ".py")
    with open(path) as f:
        src = f.read()
    mod = types.ModuleType("proto_" + name)
    mod.__file__ = path
    exec(compile(src, path, "exec"), mod.__dict__)
    return mod, src.splitlines()


def find_lines(src_lines, needle):
    """1-based numbers of the source lines containing ``needle``."""
    return [i + 1 for i, line in enumerate(src_lines) if needle in line]


def cite(needle, variants=None):
    """'merged.py:33, refcount_del.py:33, ...' for every variant containing needle."""
    out = []
    for v in variants or VARIANTS:
        _, src = load_variant(v)
        for ln in find_lines(src, needle):
            out.append("%s.py:%d" % (v, ln))
    return ", ".join(out)


def make_world(n_plain=3, n_cuda=2):
    """A module globals dict with n_cuda names bound to REAL_CUDA, a function
    whose __globals__ is that dict, and a fake cuda module."""
    globs = {}
    for i in range(n_cuda):
        globs["cuda%d" % i if i else "cuda"] = REAL_CUDA
    for i in range(n_plain):
        globs["other%d" % i] = object()
    fn = types.FunctionType((lambda: None).__code__, globs)
    fake = types.ModuleType("fake_cuda")
    return globs, fn, fake


def code_of(mod_or_code, name):
    """Code object named ``name`` in a compiled module (searched recursively)."""
    stack = [mod_or_code]
    while stack:
        c = stack.pop()
        if c.co_name == name:
            return c
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    raise LookupError(name)


def line_ops(code, line):
    """Opcode names attributed to ``line`` in ``code`` and its nested code objects."""
    out = []
    for c in [code] + [k for k in code.co_consts if isinstance(k, types.CodeType)]:
        for ins in dis.get_instructions(c):
            ln = getattr(getattr(ins, "positions", None), "lineno", None)
            if ln is None and isinstance(ins.starts_line, int) and not isinstance(ins.starts_line, bool):
                ln = ins.starts_line
            if ln == line:
                out.append(ins.opname)
    return out


def protocol_code(variant):
    path = os.path.join(PROTO_DIR, variant + ".py")
    with open(path) as f:
        return code_of(compile(f.read(), path, "exec"), "swapped_cuda_module")


# ---------------------------------------------------------------------------
# Tracer: records trace + (optionally) profile events in one list and calls an
# optional hook before every instruction of every traced Python frame.
# ---------------------------------------------------------------------------
Event = collections.namedtuple("Event", "kind name lineno op frame")


class Tracer:
    def __init__(self, on_opcode=None, profile=False):
        self.events = []
        self.on_opcode = on_opcode  # called as on_opcode(frame, opname)
        self.profile = profile
        self._ops = {}

    def opname(self, code, offset):
        ops = self._ops.get(code)
        if ops is None:
            ops = {i.offset: i.opname for i in dis.get_instructions(code)}
            self._ops[code] = ops
        return ops.get(offset, "?%d" % offset)

    def _global(self, frame, event, arg):
        # 'call' event: a new Python frame starts (or a generator resumes).
        frame.f_trace_opcodes = True
        self.events.append(Event("call", frame.f_code.co_name, frame.f_lineno, None, frame))
        return self._local

    def _local(self, frame, event, arg):
        if event == "opcode":
            # f_lasti is the offset of the instruction ABOUT to execute.
            op = self.opname(frame.f_code, frame.f_lasti)
            self.events.append(Event("opcode", frame.f_code.co_name, frame.f_lineno, op, frame))
            if self.on_opcode is not None:
                self.on_opcode(frame, op)
        else:
            self.events.append(Event(event, frame.f_code.co_name, frame.f_lineno, None, frame))
        return self._local

    def _prof(self, frame, event, arg):
        if event.startswith("c_"):
            name = getattr(arg, "__qualname__", None) or repr(arg)
            self.events.append(Event(event, name, frame.f_lineno, None, frame))

    def run(self, fn, *args, **kw):
        # The frame of run() itself is not traced (settrace only affects new
        # frames); its profile events (setprofile/settrace c_calls) are
        # dropped below.
        me = sys._getframe()
        sys.settrace(self._global)
        if self.profile:
            sys.setprofile(self._prof)
        try:
            return fn(*args, **kw)
        finally:
            sys.setprofile(None)
            sys.settrace(None)
            self.events = [e for e in self.events if e.frame is not me]


def inside(events, frame, op, nth=0):
    """Events that happen strictly inside the ``nth`` execution of instruction
    ``op`` in ``frame``: between its opcode event and the next opcode event of
    the same frame (or the frame's return/exception)."""
    seen = -1
    for i, e in enumerate(events):
        if e.kind == "opcode" and e.frame is frame and e.op == op:
            seen += 1
            if seen == nth:
                out = []
                for f in events[i + 1:]:
                    if f.frame is frame and f.kind in ("opcode", "return", "exception", "line"):
                        break
                    out.append(f)
                return out
    raise LookupError("no %s #%d in frame" % (op, nth))


def frames_named(events, name):
    seen = []
    for e in events:
        if e.name == name and e.kind in ("call", "opcode") and all(e.frame is not s for s in seen):
            seen.append(e.frame)
    return seen


def summarize(evs):
    return [(e.kind, e.name) for e in evs]


# ---------------------------------------------------------------------------
# Fact registry
# ---------------------------------------------------------------------------
FACTS = []


def fact(name):
    def reg(check):
        FACTS.append((name, check))
        return check
    return reg


# ---------------------------------------------------------------------------
# Fact 1: ``d[k] += 1`` is BINARY_SUBSCR ... STORE_SUBSCR; an update by another
# thread between the two is lost.
# ---------------------------------------------------------------------------
@fact("augassign_subscr_is_read_then_store")
def check_augassign():
    notes = []
    ok = True
    # (a) dis: on every protocol line with a subscript += / -=, BINARY_SUBSCR
    # comes before STORE_SUBSCR with the arithmetic in between.
    for v in VARIANTS:
        code = protocol_code(v)
        _, src = load_variant(v)
        for needle in ("] += 1", "] -= 1"):
            for ln in find_lines(src, needle):
                ops = line_ops(code, ln)
                good = ("BINARY_SUBSCR" in ops and "STORE_SUBSCR" in ops
                        and ops.index("BINARY_SUBSCR") + 1 < ops.index("STORE_SUBSCR"))
                ok &= good
                notes.append("%s.py:%d %s" % (v, ln, "BINARY_SUBSCR..BINARY_OP..STORE_SUBSCR" if good else ops))

    # (b) behaviour on the real protocol (merged.py:33, `_swap_refcount[gid] += 1`):
    # thread A enters swapped_cuda_module; when A's frame is about to execute
    # STORE_SUBSCR of line 33 (its BINARY_SUBSCR already read 0), the hook runs
    # thread B's execution of the same statement (`_swap_refcount[gid] += 1`,
    # as B would on entering with a different lock object).  Two increments,
    # but A then stores its stale 0+1: the refcount ends at 1 (lost update).
    mod, src = load_variant("merged")
    (line,) = find_lines(src, "_swap_refcount[gid] += 1")
    globs, fn, fake = make_world()
    gid = id(globs)
    fired = []

    def hook(frame, op):
        if (not fired and frame.f_code.co_name == "swapped_cuda_module"
                and frame.f_lineno == line and op == "STORE_SUBSCR"):
            fired.append(mod._swap_refcount[gid])      # B's read
            mod._swap_refcount[gid] += 1               # B's whole update
            fired.append(mod._swap_refcount[gid])

    cm = mod.swapped_cuda_module(fn, fake)
    Tracer(hook).run(cm.__enter__)
    final = mod._swap_refcount[gid]
    lost = bool(fired) and final == 1
    ok &= lost
    notes.append("merged.py:%d interleaved at STORE_SUBSCR: B saw %s, wrote %s; after A: refcount=%d "
                 "(two increments, one lost)" % (line, fired[:1], fired[1:], final))
    return ok, "; ".join(notes)


# ---------------------------------------------------------------------------
# Fact 2: dict.update / dict.pop / del d[k] / d[k] = v are one bytecode / one
# C call each; no Python code runs inside them (protocol arguments: plain
# dicts / defaultdicts, str and int keys, module values).
# ---------------------------------------------------------------------------
def op_update(d, x):
    d.update(x)


def op_pop(d, k):
    return d.pop(k)


def op_del(d, k):
    del d[k]


def op_store(d, k, v):
    d[k] = v


class PyKey:
    """Positive control: a key whose hashing / comparison is Python code."""

    def __init__(self, h=7):
        self.h = h

    def __hash__(self):
        return self.h

    def __eq__(self, other):
        return isinstance(other, PyKey) and other.h == self.h


def probe(fn, op, args):
    """Run fn(*args) traced+profiled; return (python_events_inside, c_calls_inside)."""
    t = Tracer(profile=True)
    t.run(fn, *args)
    (frame,) = frames_named(t.events, fn.__name__)
    evs = inside(t.events, frame, op)
    py = [e for e in evs if e.kind in ("call", "opcode", "line")]
    cc = [e.name for e in evs if e.kind == "c_call"]
    return py, cc


@fact("dict_ops_single_c_call")
def check_dict_ops():
    notes = []
    ok = True
    mod = types.ModuleType("m")
    gid = 140000000000000
    cases = [
        # (label, fn, instruction, args, expected C calls inside the instruction)
        ("fn_globs.update(orig)", op_update, "CALL",
         lambda: ({"cuda": mod, "x": 1}, {"cuda": REAL_CUDA}), ["dict.update"]),
        ("_swap_orig.pop(gid)", op_pop, "CALL", lambda: ({gid: {}}, gid), ["dict.pop"]),
        ("del _swap_refcount[gid]", op_del, "DELETE_SUBSCR", lambda: (defaultdict(int, {gid: 0}), gid), []),
        ("del _globals_locks[gid]", op_del, "DELETE_SUBSCR",
         lambda: (defaultdict(threading.Lock, {gid: threading.Lock()}), gid), []),
        ("fn_globs[k] = fake_cuda_module", op_store, "STORE_SUBSCR",
         lambda: ({"cuda": REAL_CUDA}, "cuda", mod), []),
        ("_swap_orig[gid] = orig", op_store, "STORE_SUBSCR", lambda: ({}, gid, {}), []),
    ]
    for label, fn, op, mk, want_c in cases:
        py, cc = probe(fn, op, mk())
        good = not py and cc == want_c
        ok &= good
        notes.append("%s: one %s, C calls inside %s, Python events inside %d" % (label, op, cc, len(py)))
    # The same opcodes are what the protocol lines compile to.
    for v, needle, op in [("merged", "del _swap_refcount[gid]", "DELETE_SUBSCR"),
                          ("merged", "_swap_orig[gid] = orig", "STORE_SUBSCR"),
                          ("merged", "fn_globs[k] = fake_cuda_module", "STORE_SUBSCR"),
                          ("naive", "fn_globs.update(orig)", "CALL"),
                          ("global_lock", "_swap_state[globals_id] = (keys_to_swap, 0)", "STORE_SUBSCR"),
                          ("global_lock", "del _swap_state[globals_id]", "DELETE_SUBSCR")]:
        _, src = load_variant(v)
        for ln in find_lines(src, needle):
            n = line_ops(protocol_code(v), ln).count(op)
            ok &= n >= 1
            # 2 when the line is in a `finally`: CPython compiles the finally
            # body twice (normal exit + exception path); each copy has one.
            notes.append("%s.py:%d has %d x %s%s" % (v, ln, n, op, " (finally body compiled twice)" if n == 2 else ""))
    # Positive control: with a Python-level key the detector does see code
    # running inside the same instructions.
    a, b = PyKey(), PyKey()
    controls = [
        ("update", probe(op_update, "CALL", ({a: 1}, {b: 2}))[0]),
        ("pop", probe(op_pop, "CALL", ({a: 1}, b))[0]),
        ("del", probe(op_del, "DELETE_SUBSCR", ({a: 1}, b))[0]),
        ("store", probe(op_store, "STORE_SUBSCR", ({a: 1}, b, 2))[0]),
    ]
    ctl_ok = all(any(e.kind == "call" for e in evs) for _, evs in controls)
    ok &= ctl_ok
    notes.append("control with Python __hash__/__eq__ key: Python frames inside %s" %
                 {k: sorted({e.name for e in evs if e.kind == "call"}) for k, evs in controls})
    return ok, "; ".join(notes)


# ---------------------------------------------------------------------------
# Fact 3: ``fn_globs.update(_swap_orig.pop(gid))`` is two C calls with an
# instruction boundary between them where the popped-but-not-restored state is
# visible.
# ---------------------------------------------------------------------------
@fact("pop_then_update_two_c_calls")
def check_pop_update():
    notes = []
    ok = True
    needle = "fn_globs.update(_swap_orig.pop(gid))"
    for v in REFCOUNT_VARIANTS:
        mod, src = load_variant(v)
        (line,) = find_lines(src, needle)
        # dis: each compiled copy of the line (CPython duplicates `finally`
        # bodies: normal path + exception path) has exactly two CALLs.
        ops = line_ops(protocol_code(v), line)
        copies, cur = [], []
        for o in ops:
            cur.append(o)
            if o == "POP_TOP":
                copies.append(cur)
                cur = []
        ncalls = [c.count("CALL") for c in copies]
        ok &= bool(ncalls) and all(n == 2 for n in ncalls)
        # Behaviour: single thread enters (untraced), then exits traced.  At
        # every instruction boundary of that line, snapshot what another thread
        # would see.
        globs, fn, fake = make_world()
        gid = id(globs)
        cm = mod.swapped_cuda_module(fn, fake)
        cm.__enter__()
        snaps = []

        def hook(frame, op):
            if frame.f_code.co_name == "swapped_cuda_module" and frame.f_lineno == line:
                snaps.append((op, gid in mod._swap_orig, globs["cuda"] is REAL_CUDA))

        t = Tracer(hook, profile=True)
        t.run(cm.__exit__, None, None, None)
        gap = [s for s in snaps if not s[1] and not s[2]]
        cseq = [e.name for e in t.events if e.kind in ("c_call", "c_return") and e.lineno == line]
        # The opcode events of the generator frame between pop's c_return and update's c_call:
        between = []
        if "dict.pop" in cseq:
            i = next(k for k, e in enumerate(t.events) if e.kind == "c_return" and e.name == "dict.pop")
            for e in t.events[i + 1:]:
                if e.kind == "c_call":
                    break
                if e.kind == "opcode":
                    between.append(e.op)
        good = (cseq == ["dict.pop", "dict.pop", "dict.update", "dict.update"] and bool(gap)
                and globs["cuda"] is REAL_CUDA)
        ok &= good
        notes.append("%s.py:%d: CALLs per compiled copy of the finally body %s; c_call/c_return sequence %s; "
                     "instruction boundaries between pop's return and update's call %s; at such a boundary "
                     "gid is already popped from _swap_orig while fn_globs still holds the fake: %s" %
                     (v, line, ncalls, cseq, between, bool(gap)))
    return ok, "; ".join(notes)


# ---------------------------------------------------------------------------
# Fact 4: a defaultdict miss with a C factory (threading.Lock, int) runs no
# Python code; with a Python factory it does, and another thread's miss can
# then interleave, handing out two different objects for one key.
# ---------------------------------------------------------------------------
def get_item(d, k):
    # mirrors `lock = _globals_locks[gid]` and `_swap_refcount[gid]`
    return d[k]


def py_lock_factory():
    return threading.Lock()


def defaultdict_race(factory):
    """Thread A misses on d[gid]; at the first instruction boundary inside
    the miss (an opcode event of a frame other than A's), thread B does the
    same miss.  Returns (Python frames inside A's BINARY_SUBSCR, A's value,
    B's value, value left in d)."""
    d = defaultdict(factory)
    gid = 1234
    got_b = []

    def hook(frame, op):
        if not got_b and frame.f_code.co_name != "get_item":
            got_b.append(d[gid])

    t = Tracer(hook)
    a = t.run(get_item, d, gid)
    (frame,) = frames_named(t.events, "get_item")
    evs = inside(t.events, frame, "BINARY_SUBSCR")
    if not got_b:                 # no boundary inside: B runs after A
        got_b.append(d[gid])
    names = sorted({e.name for e in evs if e.kind == "call"})
    return names, len([e for e in evs if e.kind == "opcode"]), a, got_b[0], d[gid]


@fact("defaultdict_miss_c_factory_atomic")
def check_defaultdict_miss():
    notes = []
    ok = True
    c_factory = isinstance(threading.Lock, (types.BuiltinFunctionType, type)) and isinstance(int, type)
    ok &= c_factory
    notes.append("threading.Lock is %s, int is %s (C callables)" % (type(threading.Lock).__name__,
                                                                     type(int).__name__))

    mod, _ = load_variant("merged")
    for label, factory in [("defaultdict(threading.Lock)", mod._globals_locks.default_factory),
                           ("defaultdict(int)", mod._swap_refcount.default_factory)]:
        names, nops, a, b, left = defaultdict_race(factory)
        good = not names and nops == 0 and a is b is left
        ok &= good
        notes.append("%s miss: Python frames inside %s, opcode events inside %d, A and B got the same "
                     "object: %s" % (label, names, nops, a is b))
    names, nops, a, b, left = defaultdict_race(py_lock_factory)
    good = names == ["py_lock_factory"] and nops > 0
    ok &= good
    notes.append("control defaultdict(<Python function>) miss: Python frames inside %s, opcode events "
                 "inside %d (what B's miss inside it does to A's: fact "
                 "defaultdict_missing_store_matches_release)" % (names, nops))
    notes.append("supports " + cite("_globals_locks = defaultdict(threading.Lock)") + ", " +
                 cite("lock = _globals_locks[gid]"))
    return ok, "; ".join(notes)


# ---------------------------------------------------------------------------
# Fact 4b: what __missing__ does with a value another thread stored while its
# factory ran.  CPython fixed this (gh-142495) in 3.13.12 and 3.14.3:
# defdict_missing stores with PyDict_SetDefaultRef, keeping the other
# thread's value and returning it.  Before the fix it stored with
# PyObject_SetItem, overwriting it, so the two threads hold different
# objects.  The C code is the same with or without the GIL; with a C factory
# the GIL leaves no room for the race (fact 4), a free-threaded build does.
# The model's atomicity modes free-threaded and free-threaded-overwrite are
# the two behaviours; a Python factory shows, on this interpreter, which
# one its release has.
# ---------------------------------------------------------------------------
def has_gh142495_fix(v=sys.version_info):
    """Whether release v has gh-142495's fix (3.13.12+, 3.14.3+, 3.15)."""
    return v >= (3, 15) or (3, 14, 3) <= v[:3] < (3, 15) or (3, 13, 12) <= v[:3] < (3, 14)


@fact("defaultdict_missing_store_matches_release")
def check_missing_store():
    names, _, a, b, left = defaultdict_race(py_lock_factory)
    raced = names == ["py_lock_factory"]
    kept = a is b and left is b
    overwrote = a is not b and left is a
    fixed = has_gh142495_fix()
    holds = raced and (kept if fixed else overwrote)
    return holds, ("CPython %s: gh-142495's fix expected: %s; B's miss ran inside A's factory: %s; "
                   "A's __missing__ kept B's lock (setdefault, mode free-threaded): %s; "
                   "overwrote it with its own (mode free-threaded-overwrite): %s"
                   % (sys.version.split()[0], fixed, raced, kept, overwrote))


# ---------------------------------------------------------------------------
# Fact 5: reading ``_swap_refcount[gid] == 0`` on a missing key inserts it.
# ---------------------------------------------------------------------------
@fact("defaultdict_read_inserts")
def check_read_inserts():
    mod, src = load_variant("merged")
    gid = 4242
    before = (gid in mod._swap_refcount, len(mod._swap_refcount))
    # The exact protocol expression, evaluated in the protocol module's globals.
    expr = "_swap_refcount[gid] == 0"
    result = eval(expr, mod.__dict__, {"gid": gid})
    after = (gid in mod._swap_refcount, len(mod._swap_refcount), mod._swap_refcount.get(gid))
    # `in` / .get do not insert (contrast).
    probe_gid = 4343
    _ = probe_gid in mod._swap_refcount, mod._swap_refcount.get(probe_gid)
    no_insert_for_in = probe_gid not in mod._swap_refcount
    ok = result is True and before == (False, 0) and after == (True, 1, 0) and no_insert_for_in
    return ok, ("`%s` with gid missing -> %s; before (present, len)=%s, after (present, len, value)=%s; "
                "`in`/.get do not insert: %s; supports %s" %
                (expr, result, before, after, no_insert_for_in, cite("if _swap_refcount[gid] == 0")))


# ---------------------------------------------------------------------------
# Fact 6: the scan comprehension executes one FOR_ITER per item plus one final
# exhausting FOR_ITER (counted on the real protocol code of every variant).
# ---------------------------------------------------------------------------
@fact("comprehension_one_for_iter_per_item")
def check_comprehension():
    notes = []
    ok = True
    for v in VARIANTS:
        mod, src = load_variant(v)
        globs, fn, fake = make_world(n_plain=3, n_cuda=2)
        n = len(globs)
        cm = mod.swapped_cuda_module(fn, fake)
        t = Tracer()
        t.run(cm.__enter__)
        cm.__exit__(None, None, None)
        # Lines holding a comprehension/generator over a dict's items().
        for ln in find_lines(src, ".items() if") + find_lines(src, "for k, v in orig.items()"):
            evs = [e for e in t.events if e.kind == "opcode" and e.lineno == ln]
            fors = sum(1 for e in evs if e.op == "FOR_ITER")
            items = n if "fn_globs.items()" in src[ln - 1] else 2  # orig has the 2 cuda names
            frames = sorted({e.name for e in evs if e.op == "FOR_ITER"})
            good = fors == items + 1
            ok &= good
            comp_ops = [e for e in evs if e.name in ("<dictcomp>", "<genexpr>")]
            notes.append("%s.py:%d: %d items -> %d FOR_ITER in %s (%d opcode events in the comprehension "
                         "frame)" % (v, ln, items, fors, frames, len(comp_ops)))
    return ok, "; ".join(notes)


# ---------------------------------------------------------------------------
# Fact 7: del d[k] and d.pop(k) on a missing key raise KeyError, also on a
# defaultdict, without calling the factory.
# ---------------------------------------------------------------------------
@fact("del_pop_missing_key_raise")
def check_missing_del_pop():
    notes = []
    ok = True
    calls = []

    def counting_factory():
        calls.append(1)
        return 0

    for label, mk in [("dict", dict), ("defaultdict(int)", lambda: defaultdict(int)),
                      ("defaultdict(threading.Lock)", lambda: defaultdict(threading.Lock)),
                      ("defaultdict(<counting factory>)", lambda: defaultdict(counting_factory))]:
        for opname, op in [("del d[k]", op_del), ("d.pop(k)", op_pop)]:
            d = mk()
            try:
                op(d, 99)
                res = "no exception"
            except KeyError:
                res = "KeyError"
            except Exception as e:  # noqa: BLE001
                res = type(e).__name__
            good = res == "KeyError" and len(d) == 0
            ok &= good
            notes.append("%s on %s: %s, dict left empty: %s" % (opname, label, res, len(d) == 0))
    ok &= not calls
    notes.append("factory calls: %d" % len(calls))
    notes.append("supports " + cite("_swap_orig.pop(gid)") + ", " + cite("del _swap_refcount[gid]") + ", " +
                 cite("del _globals_locks[gid]") + ", " + cite("del _swap_state[gid]"))
    return ok, "; ".join(notes)


# ---------------------------------------------------------------------------
# Fact 8: an exception inside `with lock:` releases the lock; an exception
# thrown into the @contextmanager generator at its `yield` runs its `finally`
# and propagates out of the `with`.
# ---------------------------------------------------------------------------
class Boom(Exception):
    pass


@fact("exceptions_release_lock_and_run_finally")
def check_exceptions():
    notes = []
    ok = True
    # (a) plain `with lock:` around a raising body.
    lock = threading.Lock()
    try:
        with lock:
            raise Boom()
    except Boom:
        pass
    ok &= not lock.locked()
    notes.append("with lock: raise -> lock.locked()=%s" % lock.locked())

    # (a') in the protocol: a KeyError at the restore line (the saved names
    # were already popped, fact 7) happens inside `with lock:`; the lock is
    # released and the KeyError leaves __exit__.
    for v in REFCOUNT_VARIANTS:
        mod, src = load_variant(v)
        globs, fn, fake = make_world()
        gid = id(globs)
        cm = mod.swapped_cuda_module(fn, fake)
        cm.__enter__()
        plock = cm.gen.gi_frame.f_locals["lock"]
        del mod._swap_orig[gid]
        try:
            cm.__exit__(None, None, None)
            res = "no exception"
        except KeyError:
            res = "KeyError"
        good = res == "KeyError" and not plock.locked()
        ok &= good
        notes.append("%s.py:%d KeyError inside `with lock:` -> %s propagated, lock released: %s" %
                     (v, find_lines(src, "_swap_orig.pop(gid)")[0], res, not plock.locked()))

    # (b) exception raised in the body of `with swapped_cuda_module(...)`
    # (a real `with` statement, traced): contextlib throws it into the
    # generator at `yield` (the first 'exception' trace event of the generator
    # frame is on the yield line), the finally block restores the globals and
    # releases the locks, and the very same exception object comes out of the
    # `with`.
    for v in VARIANTS:
        mod, src = load_variant(v)
        (yline,) = find_lines(src, "        yield")
        globs, fn, fake = make_world()
        exc = Boom()
        seen = {}
        cm = mod.swapped_cuda_module(fn, fake)

        def body():
            with cm:
                seen["swapped"] = globs["cuda"] is fake
                # the lock the generator holds a reference to (refcount
                # variants), or the global lock (global_lock)
                seen["lock"] = cm.gen.gi_frame.f_locals.get("lock") or getattr(mod, "_swap_lock", None)
                raise exc

        t = Tracer()
        try:
            t.run(body)
            out = None
        except Boom as e:
            out = e
        exc_lines = [e.lineno for e in t.events if e.kind == "exception" and e.name == "swapped_cuda_module"]
        finally_lines = sorted({e.lineno for e in t.events if e.kind == "line" and e.name == "swapped_cuda_module"
                                and e.lineno > yline})
        restored = globs["cuda"] is REAL_CUDA
        plock = seen.get("lock")
        released = "n/a (no lock)" if plock is None else (not plock.locked())
        clean = not getattr(mod, "_swap_refcount", {}) and not getattr(mod, "_swap_orig", {}) \
            and not getattr(mod, "_swap_state", {})
        good = (seen.get("swapped") and out is exc and bool(exc_lines) and exc_lines[0] == yline and restored
                and released is not False and clean)
        ok &= good
        notes.append("%s.py: exception thrown in at yield line %d (exception events at lines %s), finally lines "
                     "run %s: globals restored=%s, lock released=%s, bookkeeping empty=%s, same exception "
                     "propagated out of the with=%s" %
                     (v, yline, exc_lines, finally_lines, restored, released, clean, out is exc))
    return ok, "; ".join(notes)


# ---------------------------------------------------------------------------
# Fact 9: reassigning an existing key while iterating d.items() is fine;
# inserting (or deleting) raises RuntimeError.
# ---------------------------------------------------------------------------
@fact("dict_iteration_reassign_ok_insert_raises")
def check_iteration():
    notes = []
    ok = True

    def iterate(mutate):
        d = {"a": 1, "b": 2, "c": 3}
        seen = []
        try:
            for k, v in d.items():
                seen.append(k)
                mutate(d, k)
            return "ok", seen
        except RuntimeError as e:
            return "RuntimeError: %s" % e, seen

    r_re, s_re = iterate(lambda d, k: d.__setitem__("c", 30))
    r_ins, _ = iterate(lambda d, k: d.__setitem__("new%s" % k, 0))
    r_del, _ = iterate(lambda d, k: d.pop("c", None))
    ok &= r_re == "ok" and s_re == ["a", "b", "c"]
    ok &= r_ins.startswith("RuntimeError: dictionary changed size during iteration")
    ok &= r_del.startswith("RuntimeError")
    notes.append("reassign existing: %s (visited %s); insert: %s; delete: %s" % (r_re, s_re, r_ins, r_del))

    # On the protocol's scan (merged.py:27): while the dictcomp iterates
    # fn_globs.items(), another thread (hook at the 2nd FOR_ITER) either
    # rebinds an existing name -- like another thread's line 30 or 43 -- or
    # binds a new global in the module.
    mod, src = load_variant("merged")
    (line,) = find_lines(src, "fn_globs.items()")

    def scan_with(mutate):
        globs, fn, fake = make_world()
        state = {"n": 0}

        def hook(frame, op):
            if frame.f_code.co_name != "swapped_cuda_module" and frame.f_lineno == line and op == "FOR_ITER":
                state["n"] += 1
                if state["n"] == 2:
                    mutate(globs, fake)

        cm = mod.swapped_cuda_module(fn, fake)
        try:
            Tracer(hook).run(cm.__enter__)
            return "ok"
        except RuntimeError as e:
            return "RuntimeError: %s" % e
        finally:
            # A lock left held would show a broken `with lock:` (fact 8).
            lk = mod._globals_locks.get(id(globs))
            assert lk is None or not lk.locked()

    p_re = scan_with(lambda g, fake: g.__setitem__("other0", fake))
    p_ins = scan_with(lambda g, fake: g.__setitem__("brand_new_global", 1))
    ok &= p_re == "ok" and p_ins.startswith("RuntimeError: dictionary changed size during iteration")
    notes.append("merged.py:%d scan, other thread rebinds an existing global: %s; binds a new global: %s"
                 % (line, p_re, p_ins))
    return ok, "; ".join(notes)


# ---------------------------------------------------------------------------
# Observations (informational, not asserted): what real threads do on THIS
# interpreter.  With the GIL, CPython 3.10+ only switches threads at
# "eval breaker" checks (function entry/RESUME, backward jumps, after calls),
# not at every instruction.  The model's "every step is one atomic operation,
# a switch may fall between any two" is an over-approximation of that.
# ---------------------------------------------------------------------------
def observe_real_threads():
    obs = []
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        def lost_updates(key, nthreads=4, m=50000):
            d = defaultdict(int)

            def w():
                for _ in range(m):
                    d[key] += 1

            ts = [threading.Thread(target=w) for _ in range(nthreads)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            return nthreads * m - d[key], nthreads * m

        lost_int, total = lost_updates(12345)
        lost_py, _ = lost_updates(PyKey())
        obs.append({"name": "real_threads_augassign_lost_updates",
                    "detail": "4 threads x `d[k] += 1` on defaultdict(int), switchinterval 1e-6: int key lost "
                              "%d of %d; Python-__hash__ key (a call inside BINARY_SUBSCR) lost %d of %d. "
                              "A GIL build only switches at eval-breaker checks, of which there are none "
                              "between BINARY_SUBSCR and STORE_SUBSCR for int keys." %
                              (lost_int, total, lost_py, total)})

        # pop-then-update: after a C call returns, CALL checks the eval
        # breaker, so another thread can observe the popped-but-not-restored
        # state on a real GIL build.
        orig, globs = {}, {"cuda": REAL_CUDA}
        stop = threading.Event()
        seen = [0, 0]

        def exiter():
            for _ in range(100000):
                orig[1] = {"cuda": REAL_CUDA}
                globs["cuda"] = None
                globs.update(orig.pop(1))
            stop.set()

        def watcher():
            while not stop.is_set():
                seen[1] += 1
                if 1 not in orig and globs["cuda"] is None:
                    seen[0] += 1

        ts = [threading.Thread(target=exiter), threading.Thread(target=watcher)]
        t0 = time.time()
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        obs.append({"name": "real_threads_pop_update_gap",
                    "detail": "another thread saw popped-but-not-restored state %d times in %d polls "
                              "(%.2fs); a switch can fall between the two C calls on a real GIL build"
                              % (seen[0], seen[1], time.time() - t0)})
    finally:
        sys.setswitchinterval(old)
    return obs


def main():
    out = {"python": sys.version,
           "gil_enabled": bool(getattr(sys, "_is_gil_enabled", lambda: True)()),
           "facts": [], "observations": []}
    for name, check in FACTS:
        try:
            holds, detail = check()
        except Exception:  # a crashing check is a failing fact, with the reason
            sys.settrace(None)
            sys.setprofile(None)
            holds, detail = False, "check raised: " + traceback.format_exc().strip().splitlines()[-1]
        out["facts"].append({"name": name, "holds": bool(holds), "detail": detail})
    try:
        out["observations"] = observe_real_threads()
    except Exception:
        out["observations"] = [{"name": "real_threads", "detail": "raised: " + traceback.format_exc()}]
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

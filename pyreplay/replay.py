#!/usr/bin/env python3
"""Replay of a swapcheck counterexample (variant @@VARIANT@@) on real threads.

The scenario (swapcheck's scenario format):

@@SCENARIO_TEXT@@

Written by swapcheck's pyreplay (`explore -emit-python FILE`); needs only
python3, version 3.11 (whose opcode names the model cites; others are
refused with exit status 2). It runs the variant's
swapped_cuda_module (embedded below, from testdata/python/) under a small
launch harness that does what numba's CUDA simulator does: the host thread
sets the kernel context, swaps the kernel's module around the launch and
starts one threading.Thread per CUDA thread; each device-function call swaps
the callee's module. A fake `numba` package whose `cuda` has no `local`
plays the real module.

The interleaving is forced: every traced thread gets an "opcode" trace event
before each bytecode (sys.settrace, frame.f_trace_opcodes). Each model step
begins at an anchor, the first opcode of the bytecodes it names, at its line.
A thread that reaches an anchor ends the turn it holds and waits for its next
turn in TURNS; after the last turn every thread runs freely to its end. A
turn that cannot be forced (the thread is blocked, finished, or reached
another step than the model's) stops the replay: exit status 2.

Exit status: 1 when the violation the model found happened (for a schedule
without one: when any violation happened), 0 when not, 2 when the replay
failed. Usage: python3 replay.py [--timeout SECONDS]
"""
import builtins
import dis
import json
import os
import sys
import threading
import time
import traceback
import types

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

# ---------------------------------------------------------------------------
# The real numba.cuda (no simulated API) and one fake per launch.
# ---------------------------------------------------------------------------
REAL_CUDA = types.ModuleType("numba.cuda")
_numba = types.ModuleType("numba")
_numba.cuda = REAL_CUDA
sys.modules["numba"] = _numba
sys.modules["numba.cuda"] = REAL_CUDA


class Marker:
    """What an attribute of launch n's fake module is (cuda.local, ...)."""

    def __init__(self, launch):
        self.launch = launch

    def __repr__(self):
        return "fake#%d's attribute" % self.launch


FAKES = {}
for _launch in range(1, DATA["launches"] + 1):
    _fake = types.ModuleType("FakeCUDAModule#%d" % _launch)
    for _attr in DATA["attrs"]:
        setattr(_fake, _attr, Marker(_launch))
    FAKES[_launch] = _fake

# ---------------------------------------------------------------------------
# The variant, and the scenario's modules: each module's globals hold
# exactly what the model's do, in its order (the scan of fn_globs.items()
# takes one step per global).
# ---------------------------------------------------------------------------
PROTO = {"__name__": "swap_variant"}
exec(compile(VARIANT_SOURCE, DATA["source_file"], "exec"), PROTO)
swapped_cuda_module = PROTO["swapped_cuda_module"]

_ns = {}
exec(compile(SCENARIO_SOURCE, SCENARIO_FILE, "exec"), _ns)
MODULES = []
for _m in DATA["modules"]:
    _g = {}
    for _name in _m["globals"]:
        _g[_name] = REAL_CUDA if _name in _m["names"] else None
    MODULES.append(_g)
KERNEL = types.FunctionType(_ns["kernel"].__code__, MODULES[0], "kernel")
MODULES[0]["kernel"] = KERNEL
FUNCS = []
for _f in DATA["functions"]:
    _fn = types.FunctionType(_ns[_f["name"]].__code__, MODULES[_f["module"]], _f["name"])
    MODULES[_f["module"]][_f["name"]] = _fn
    FUNCS.append(_fn)
HOST_GLOBALS = {"kernel": KERNEL, "swapped_cuda_module": swapped_cuda_module,
                "LAUNCHES": DATA["launches"], "BLOCKS": DATA["blocks"], "_kernel_context": None}
HOST = types.FunctionType(_ns["host"].__code__, HOST_GLOBALS, "host")

NAMES = DATA["thread_names"]

# ---------------------------------------------------------------------------
# The turn scheduler.
# ---------------------------------------------------------------------------
TURNS = DATA["turns"]
ANCHORS = {}
for _a in DATA["anchors"]:
    ANCHORS.setdefault((_a["tag"], _a["line"], _a["k"]), set()).update(_a["ops"])


def anchor_text(a):
    f = DATA["source_file"] if a["tag"] == "proto" else SCENARIO_FILE
    return "%s:%d %s" % (f, a["line"], "/".join(a["ops"]))


class Scheduler:
    def __init__(self):
        self.cv = threading.Condition()
        self.turn = 0
        self.free = not TURNS
        self.failure = None
        self.mine = [[] for _ in NAMES]
        for i, t in enumerate(TURNS):
            self.mine[t["thread"]].append(i)
        self.pos = [0] * len(NAMES)
        self.holding = [False] * len(NAMES)
        self.state = ["not started"] * len(NAMES)
        self.last_progress = time.monotonic()

    def _end_turn(self, t):
        if self.holding[t]:
            self.holding[t] = False
            self.turn += 1
            self.last_progress = time.monotonic()
            if self.turn == len(TURNS):
                self.free = True
            self.cv.notify_all()

    def fail(self, msg):
        if self.failure is None:
            self.failure = msg
        self.cv.notify_all()

    def arrive(self, t, tag, line, op, k):
        """Thread t is about to run op, the k-th on line of tag: an anchor."""
        with self.cv:
            self._end_turn(t)
            if self.free or self.failure:
                return
            where = "%s:%d %s" % (DATA["source_file"] if tag == "proto" else SCENARIO_FILE, line, op)
            if self.pos[t] >= len(self.mine[t]):
                # Its turns are over: it stays before its next step until the
                # schedule ends.
                self.state[t] = "parked before " + where
                while not self.free and not self.failure:
                    self.cv.wait(0.05)
                return
            i = self.mine[t][self.pos[t]]
            want = TURNS[i]["at"]
            if (want["tag"], want["line"], want["k"]) != (tag, line, k) or op not in want["ops"]:
                self.fail("turn %d of %d: %s reached %s, but the model's next step for it is %s (%s)"
                          % (i + 1, len(TURNS), NAMES[t], where, anchor_text(want), TURNS[i]["where"]))
                return
            self.state[t] = "waiting for turn %d at %s" % (i + 1, where)
            while self.turn != i and not self.failure:
                self.cv.wait(0.05)
            if self.failure:
                return
            self.holding[t] = True
            self.pos[t] += 1
            self.state[t] = "running turn %d (%s)" % (i + 1, TURNS[i]["where"])

    def done(self, t):
        with self.cv:
            self._end_turn(t)
            self.state[t] = "finished"
            if not self.free and self.pos[t] < len(self.mine[t]):
                i = self.mine[t][self.pos[t]]
                self.fail("turn %d of %d: %s finished, but the model gives it %s" % (
                    i + 1, len(TURNS), NAMES[t], TURNS[i]["where"]))


SCHED = Scheduler()
_me = threading.local()
TAGS = {DATA["source_file"]: "proto", SCENARIO_FILE: "scen"}
_opnames = {}
_frames = {}  # frame -> [line, last offset, {opname: count}]
EXC_TURN = {}  # id(exception) -> (thread, turn when first seen, free)


def _opname(code, offset):
    ops = _opnames.get(code)
    if ops is None:
        ops = {i.offset: i.opname for i in dis.get_instructions(code)}
        _opnames[code] = ops
    return ops.get(offset, "?")


def _global_trace(frame, event, arg):
    if frame.f_code.co_filename not in TAGS:
        return None
    frame.f_trace_opcodes = True
    return _local_trace


def _local_trace(frame, event, arg):
    if event == "opcode":
        off = frame.f_lasti
        op = _opname(frame.f_code, off)
        line = frame.f_lineno
        st = _frames.get(frame)
        # Occurrences are counted from the frame's arrival on the line; a
        # backward jump (a loop, a generator's next item) arrives anew.
        if st is None or st[0] != line or off <= st[1]:
            st = [line, off, {}]
            _frames[frame] = st
        st[1] = off
        k = st[2].get(op, 0)
        st[2][op] = k + 1
        tag = TAGS[frame.f_code.co_filename]
        ops = ANCHORS.get((tag, line, k))
        if ops is not None and op in ops:
            SCHED.arrive(_me.t, tag, line, op, k)
    elif event == "exception":
        exc = arg[1]
        if id(exc) not in EXC_TURN:
            EXC_TURN[id(exc)] = (_me.t, SCHED.turn, SCHED.free, TAGS[frame.f_code.co_filename], frame.f_lineno)
    elif event == "return":
        _frames.pop(frame, None)
    return _local_trace


# ---------------------------------------------------------------------------
# The harness (_sc in the scenario's code): what numba's simulator does.
# ---------------------------------------------------------------------------
class Outcome:
    def __init__(self):
        self.died = {}          # thread -> exception
        self.host = []          # exceptions the host's launches raised
        self.other_fake = []    # (thread, what a use saw)


OUT = Outcome()


class GPUThread(threading.Thread):
    def __init__(self, t, launch):
        super().__init__(name=NAMES[t], daemon=True)
        self.t, self.launch, self.exception, self.finished = t, launch, None, False

    def run(self):
        _me.t, _me.launch = self.t, self.launch
        SCHED.state[self.t] = "started"
        sys.settrace(_global_trace)
        try:
            KERNEL()
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
        return [GPUThread(first + i, launch) for i in range(DATA["threads"])]

    def poll(self, threads):
        for th in threads:
            if th.exception is not None:
                raise th.exception  # BlockManager.run: abort, re-raise, no join
        return all(th.finished for th in threads)

    def spin(self):
        if SCHED.free:
            time.sleep(0.0005)

    def host_raised(self, e):
        OUT.host.append(e)

    def use(self, value):
        if not isinstance(value, Marker) or value.launch != _me.launch:
            OUT.other_fake.append((_me.t, value))

    def call(self, i):
        # FakeCUDAFunction.__call__ (kernelapi.py)
        fn = FUNCS[i]
        with swapped_cuda_module(fn, HOST_GLOBALS["_kernel_context"]):
            return fn()


builtins._sc = Harness()


def host_main():
    _me.t, _me.launch = 0, 0
    SCHED.state[0] = "started"
    sys.settrace(_global_trace)
    try:
        HOST()
    except BaseException as e:
        OUT.host.append(e)
    finally:
        sys.settrace(None)
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


def origin(e):
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return "?", 0
    return TAGS.get(tb.tb_frame.f_code.co_filename, tb.tb_frame.f_code.co_filename), tb.tb_lineno


def when(e):
    info = EXC_TURN.get(id(e))
    if info is None:
        return ""
    t, turn, free, tag, line = info
    if free:
        return " after the last turn"
    return " in turn %d of %d" % (turn + 1, len(TURNS))


def judge():
    found = []  # (kind, description)
    seen = []
    raised = [(NAMES[t], e) for t, e in sorted(OUT.died.items())] + [("host", e) for e in OUT.host]
    for who, top in raised:
        for e in chain(top):
            if any(e is s for s in seen):
                continue
            seen.append(e)
            tag, line = origin(e)
            f = {"proto": DATA["source_file"], "scen": SCENARIO_FILE}.get(tag, tag)
            desc = "%s: %s: %s (raised at %s:%d%s)" % (who, type(e).__name__, e, f, line, when(e))
            msg = str(e)
            if tag == "proto":
                found.append(("exception", desc))
            elif isinstance(e, AttributeError) and "module 'numba.cuda' has no attribute" in msg:
                found.append(("use-saw-real", desc))
            elif isinstance(e, AttributeError) and "'NoneType' object has no attribute" in msg:
                found.append(("use-saw-none", desc))
            else:
                found.append(("other", desc))
    for t, v in OUT.other_fake:
        found.append(("use-saw-other-fake", "%s: a use saw %r" % (NAMES[t], v)))
    swapped = []
    for m, g in zip(DATA["modules"], MODULES):
        for name in m["names"]:
            if g[name] is not REAL_CUDA:
                swapped.append("%s.%s is %s" % (m["name"], name, getattr(g[name], "__name__", g[name])))
    if swapped:
        found.append(("left-swapped", "every thread exited, but " + ", ".join(swapped)))
    left = []
    gids = {id(g): m["name"] for m, g in zip(DATA["modules"], MODULES)}
    for reg in ("_swap_refcount", "_swap_orig", "_swap_state"):
        for gid, v in PROTO.get(reg, {}).items():
            if gid in gids:
                left.append("%s[%s] = %r" % (reg, gids[gid], v if reg == "_swap_refcount" else "..."))
    if left:
        found.append(("registry-leftover", "every thread exited, but the registry still holds " + ", ".join(left)))
    return found


def main():
    global TIMEOUT
    if "--timeout" in sys.argv:
        TIMEOUT = float(sys.argv[sys.argv.index("--timeout") + 1])
    print("swapcheck replay: %s, atomicity %s, %d turns over %s" % (
        DATA["variant"], DATA["atomicity"], len(TURNS), ", ".join(NAMES)))
    if DATA["expect_kind"]:
        print("model: violation %s: %s" % (DATA["expect_kind"], DATA["expect_message"]))
    else:
        print("model: no violation on this schedule")
    host = threading.Thread(target=host_main, name="host", daemon=True)
    host.start()
    while True:
        host.join(0.02)
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
            print("replay failed: " + failure)
            sys.stdout.flush()
            os._exit(2)
        if not host.is_alive():
            break
    deadline = time.monotonic() + TIMEOUT
    for th in threading.enumerate():
        if isinstance(th, GPUThread) and th.is_alive():
            th.join(max(0.0, deadline - time.monotonic()))
    if not SCHED.free:
        print("replay failed: the schedule ended at turn %d of %d" % (SCHED.turn, len(TURNS)))
        sys.stdout.flush()
        os._exit(2)
    print("replay: all %d turns forced" % len(TURNS))
    found = judge()
    for kind, desc in found:
        print("observed %s: %s" % (kind, desc))
    kinds = [k for k, _ in found if k != "other"]
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


if __name__ == "__main__":
    sys.stdout.flush()
    code = main()
    sys.stdout.flush()
    os._exit(code)

# The CPython side of pyvm's differential tests: a server that reads one
# case per line on stdin (JSON: {"file", "source", "call", "steps"}) and
# answers one line per case (JSON): the module's code objects, as the
# front-end's helper prints them, and what running it gives: the value
# the call returned or the exception it raised (type and message), and
# the module's globals, each rendered as render() says. The Go side renders
# its own run the same way (render_export_test.go) and compares.
#
# "steps" drives @contextmanager functions as the embedder does: a list of
# ["call", fn, slot, args...], ["enter", slot, slot2], ["exit", slot,
# exc-or-null]; the globals are rendered after each.
#
# Usage: python harness.py ../../pysource/dump.py  (one process per
# version, for a whole test run)
import inspect
import warnings
import json
import signal
import sys
import types

warnings.simplefilter("ignore")
helper = {"__name__": "dump"}
with open(sys.argv[1]) as f:
    exec(f.read(), helper)
code = helper["code"]


class Renderer:
    """Renders values as tagged lists. Mutable objects are numbered on
    first sight ("ref" n afterwards); an int that is the id() of an object
    reached is rendered as ["id", that object]."""

    def __init__(self, roots):
        self.ids = {}
        seen = set()

        def walk(v):
            if id(v) in seen:
                return
            seen.add(id(v))
            self.ids[id(v)] = v
            if isinstance(v, (list, tuple)):
                for x in v:
                    walk(x)
            elif isinstance(v, dict):
                for k, x in v.items():
                    walk(k)
                    walk(x)

        for r in roots:
            walk(r)
        self.numbers = {}

    def numbered(self, v):
        if id(v) in self.numbers:
            return ["ref", self.numbers[id(v)]], True
        n = len(self.numbers)
        self.numbers[id(v)] = n
        return n, False

    def __call__(self, v):
        t = type(v)
        if v is None:
            return ["None"]
        if t is bool:
            return ["bool", v]
        if t is int:
            if v in self.ids and type(self.ids[v]) not in (int, bool, str) and abs(v) > 1 << 32:
                return ["id", self(self.ids[v])]
            return ["int", v]
        if t is str:
            return ["str", v]
        if t is float:
            return ["float", repr(v)]
        if t is tuple:
            return ["tuple", [self(x) for x in v]]
        if t is list:
            n, seen = self.numbered(v)
            if seen:
                return n
            return ["list", n, [self(x) for x in v]]
        if t is dict or t.__name__ == "defaultdict":
            n, seen = self.numbered(v)
            if seen:
                return n
            items = [[self(k), self(x)] for k, x in v.items()]
            if t is dict:
                return ["dict", n, items]
            return ["defaultdict", n, self(v.default_factory), items]
        if t is range:
            return ["range", v.start, v.stop, v.step]
        if isinstance(v, BaseException):
            n, seen = self.numbered(v)
            if seen:
                return n
            return ["exc", n, t.__name__, str(v)]
        if isinstance(v, types.GeneratorType):
            n, seen = self.numbered(v)
            if seen:
                return n
            state = inspect.getgeneratorstate(v)
            return ["gen", n, {"GEN_CREATED": "created", "GEN_SUSPENDED": "suspended",
                               "GEN_RUNNING": "running", "GEN_CLOSED": "done"}[state]]
        if t.__name__ == "_GeneratorContextManager":
            n, seen = self.numbered(v)
            if seen:
                return n
            return ["gcm", n]
        if t.__name__ == "lock":
            n, seen = self.numbered(v)
            if seen:
                return n
            return ["lock", n, v.locked()]
        if t.__name__ == "RLock":
            n, seen = self.numbered(v)
            if seen:
                return n
            return ["rlock", n, repr(v).startswith("<locked")]
        if isinstance(v, types.ModuleType):
            return ["module", v.__name__]
        if isinstance(v, type):
            return ["type", v.__name__]
        if callable(v) and hasattr(v, "__qualname__"):
            return ["func", v.__qualname__]
        return ["other", t.__name__]


def run(case):
    out = {}
    try:
        co = compile(case["source"], case["file"], "exec", dont_inherit=True)
    except SyntaxError as e:
        out["syntax"] = str(e)
        return out
    out["module"] = code(co)
    g = {"__name__": "case"}
    try:
        exec(co, g)
    except BaseException as e:
        out["setup"] = [type(e).__name__, str(e)]
        return out
    slots = {}

    def globals_now(extra=()):
        names = [k for k in g if not k.startswith("__")]
        r = Renderer([g[k] for k in names] + list(extra))
        return [[k, r(g[k])] for k in names], r

    if case.get("call"):
        ret, exc = None, None
        try:
            ret = g[case["call"]]()
        except BaseException as e:
            exc = [type(e).__name__, str(e)]
        gl, r = globals_now([ret])
        out["globals"] = gl
        if exc is not None:
            out["exc"] = exc
        else:
            out["ret"] = r(ret)
    trace = []
    for st in case.get("steps") or []:
        res = {}
        try:
            if st[0] == "call":
                slots[st[2]] = g[st[1]](*[slots.get(a, a) for a in st[3:]])
            elif st[0] == "enter":
                slots[st[2]] = slots[st[1]].__enter__()
            elif st[0] == "exit":
                e = st[2]
                if e is None:
                    res["value"] = slots[st[1]].__exit__(None, None, None)
                else:
                    ex = getattr(__builtins__, e)()
                    res["value"] = slots[st[1]].__exit__(type(ex), ex, None)
        except BaseException as e:
            res["exc"] = [type(e).__name__, str(e)]
        gl, r = globals_now([res.get("value")])
        if "value" in res:
            res["value"] = r(res["value"])
        res["globals"] = gl
        trace.append(res)
    if trace:
        out["steps"] = trace
    return out


class Hang(BaseException):
    pass


hung = False


def on_alarm(signum, frame):
    global hung
    hung = True
    raise Hang()


# A case that runs for 10 s hangs (a Lock acquired twice, a loop that never
# ends): it is answered as such rather than left to stall the test.
signal.signal(signal.SIGALRM, on_alarm)
for line in sys.stdin:
    hung = False
    signal.alarm(10)
    try:
        answer = run(json.loads(line))
    except Hang:
        pass
    signal.alarm(0)
    if hung:  # run's own handlers may have caught the Hang
        answer = {"hang": "the case ran for 10 s in CPython without ending"}
    print(json.dumps(answer), flush=True)

#!/usr/bin/env python3
"""What a module's cuda is after a launch under proposed (testdata/python/proposed.py).

Usage: python3 proposed_identity.py

Needs no numba: a stand-in numba.cuda module is put in sys.modules, with
the attributes the checks read. A device module's global cuda is swapped
by proposed's swapped_cuda_module (enter, then exit, as one launch), and
the script reports what code after the launch sees: identity, type,
isinstance, repr, whether mock.patch.object on it takes effect, and the
cost of one attribute read through the dispatcher beside a read of the
real module (timeit, best of 3, on this interpreter).

Prints ONE JSON object: {"python": str, "facts": {name: value},
"ns_per_read": {"module": float, "dispatcher": float}}.
docs/proposed_fix.md states these facts; TestProposedIdentity (model)
checks the facts, not the timings.
"""
import json
import os
import sys
import timeit
import types
from unittest import mock

here = os.path.dirname(os.path.abspath(__file__))
numba = types.ModuleType("numba")
cuda = types.ModuleType("numba.cuda")
cuda.local = object()
cuda.to_device = lambda x: x
numba.cuda = cuda
sys.modules["numba"] = numba
sys.modules["numba.cuda"] = cuda

ns = {"__name__": "proposed"}
with open(os.path.join(here, "..", "python", "proposed.py")) as f:
    exec(compile(f.read(), "proposed.py", "exec"), ns)

device = types.ModuleType("kernels")
device.cuda = cuda
exec("def f1():\n    return cuda.local\n", device.__dict__)


class Fake:
    local = "fake local"


with ns["swapped_cuda_module"](device.f1, Fake()):
    pass

after = device.cuda
sentinel = object()
with mock.patch.object(after, "to_device", sentinel):
    patched = after.to_device is sentinel

facts = {
    "is_real_module": after is cuda,
    "type_is_module": type(after) is types.ModuleType,
    "isinstance_module": isinstance(after, types.ModuleType),
    "class_attr_is_module": after.__class__ is types.ModuleType,
    "repr_names_dispatcher": "_CudaDispatcher" in repr(after),
    "mock_patch_takes_effect": patched,
    "reads_real_attribute": after.local is cuda.local,
}


def best(stmt, g):
    t = timeit.Timer(stmt, globals=g)
    n, _ = t.autorange()
    return min(t.repeat(3, n)) / n * 1e9


print(json.dumps({
    "python": sys.version.split()[0],
    "facts": facts,
    "ns_per_read": {
        "module": round(best("cuda.local", {"cuda": cuda}), 1),
        "dispatcher": round(best("cuda.local", {"cuda": after}), 1),
    },
}))

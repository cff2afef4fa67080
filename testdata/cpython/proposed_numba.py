#!/usr/bin/env python3
"""proposed (testdata/python/proposed.py) on numba's real CUDA simulator.

Usage: /usr/bin/python3 proposed_numba.py [--unpatched]

Needs a CPython 3.11 that imports numba (Debian's python3-numba, 0.56.4,
whose simulator has the launch machinery of numba-cuda's kernel.py).
It applies docs/proposed_fix.md's patch to that simulator at run time:
proposed's swapped_cuda_module in kernelapi and kernel, _get_kernel_context
reading the calling thread's own context, FakeCUDAKernel.__call__ without
_push_kernel_context (and testing _get_kernel_context() as numba-cuda's
line 84 does), BlockManager handing its launch's fake to each BlockThread.
With --unpatched it runs numba's own simulator instead, for contrast.

Then it runs, on real threads, what the model checks (a stress, not a
proof: the interleavings are the OS's):
  two_hosts       two host threads launch kernels at once, each with its
                  own blockDim, many times; every result must be its own.
  aborted_launch  a kernel raises in one thread while its sibling keeps
                  calling a device function; the next launches must be
                  right.
  interrupts      KeyboardInterrupt (_thread.interrupt_main) lands at
                  random points of launches on the main thread; the
                  launches after each must be right.
  host_side       after the launches the module's cuda is the dispatcher:
                  the host's cuda.to_device works, and a device function
                  called from the host fails as on the real module.

Prints ONE JSON object: {"patched": bool, "scenarios": {name: {"runs": n,
"failures": n, "first_failure": str or null}}, "module_cuda": str}.
"""

import json
import os
import random
import sys
import threading
import types

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402
from numba.cuda.simulator import kernel as simkernel  # noqa: E402
from numba.cuda.simulator import kernelapi  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROPOSED = os.path.join(HERE, "..", "python", "proposed.py")

# FakeCUDAKernel.__call__ as docs/proposed_fix.md patches it (numba 0.56.4's
# body otherwise: its extension and argument handling, unchanged).
CALL_SRC = '''
def __call__(self, *args):
    if self._device or _get_kernel_context():
        with swapped_cuda_module(self.fn, _get_kernel_context()):
            return self.fn(*args)

    grid_dim, block_dim = normalize_kernel_dimensions(self.grid_dim, self.block_dim)
    fake_cuda_module = FakeCUDAModule(grid_dim, block_dim, self.dynshared_size)
    retr = []

    def fake_arg(arg):
        _, arg = reduce(
            lambda ty_val, extension: extension.prepare_args(*ty_val, stream=0, retr=retr),
            self.extensions, (None, arg))
        if isinstance(arg, np.ndarray) and arg.ndim > 0:
            ret = wrap_arg(arg).to_device(retr)
        elif isinstance(arg, ArgHint):
            ret = arg.to_device(retr)
        elif isinstance(arg, np.void):
            ret = FakeCUDAArray(arg)
        else:
            ret = arg
        if isinstance(ret, FakeCUDAArray):
            return FakeWithinKernelCUDAArray(ret)
        return ret

    fake_args = [fake_arg(arg) for arg in args]
    with swapped_cuda_module(self.fn, fake_cuda_module):
        for grid_point in np.ndindex(*grid_dim):
            bm = BlockManager(self.fn, grid_dim, block_dim, self._debug, fake_cuda_module)
            bm.run(grid_point, *fake_args)

    for wb in retr:
        wb()
'''


def apply_patch():
    ns = {"__name__": "proposed"}
    with open(PROPOSED) as f:
        exec(compile(f.read(), PROPOSED, "exec"), ns)
    kernelapi.swapped_cuda_module = ns["swapped_cuda_module"]
    simkernel.swapped_cuda_module = ns["swapped_cuda_module"]

    def _get_kernel_context():
        return getattr(threading.current_thread(), "kernel_context", None)
    simkernel._get_kernel_context = _get_kernel_context
    exec(CALL_SRC, simkernel.__dict__)
    simkernel.FakeCUDAKernel.__call__ = simkernel.__dict__.pop("__call__")

    bm_init = simkernel.BlockManager.__init__

    def manager_init(self, f, grid_dim, block_dim, debug, kernel_context=None):
        bm_init(self, f, grid_dim, block_dim, debug)
        self._kernel_context = kernel_context
    simkernel.BlockManager.__init__ = manager_init

    bt_init = simkernel.BlockThread.__init__

    def thread_init(self, f, manager, blockIdx, threadIdx, debug):
        bt_init(self, f, manager, blockIdx, threadIdx, debug)
        self.kernel_context = manager._kernel_context
    simkernel.BlockThread.__init__ = thread_init
    return ns["_dispatcher"]


from numba_stress import (  # noqa: E402 (the stress both fixes run)
    Tally, aborted_launch, interrupts, load_user_module, two_hosts)


def host_side(um, dispatcher):
    tally = Tally()
    arr = um.cuda.to_device(np.arange(3))
    tally.record(list(arr.copy_to_host()) == [0, 1, 2], "cuda.to_device from the host")
    try:
        um.dev(1)
        tally.record(False, "a device function called from the host did not fail")
    except AttributeError as e:
        tally.record("has no attribute 'local'" in str(e), "host call: %s" % e)
    if dispatcher is not None:
        tally.record(um.cuda is dispatcher, "the module's cuda is %r, not the dispatcher" % (um.cuda,))
    return tally


def main():
    unpatched = "--unpatched" in sys.argv[1:]
    dispatcher = None if unpatched else apply_patch()
    um = load_user_module("swapcheck-proposed-")
    rng = random.Random(1)
    res = {
        "two_hosts": two_hosts(um, 40).as_json(),
        "aborted_launch": aborted_launch(um, 15).as_json(),
        "interrupts": interrupts(um, 40, rng).as_json(),
        "host_side": host_side(um, dispatcher).as_json(),
    }
    print(json.dumps({"patched": not unpatched, "scenarios": res, "module_cuda": repr(type(um.cuda).__name__)},
                     indent=1, sort_keys=True))


if __name__ == "__main__":
    main()

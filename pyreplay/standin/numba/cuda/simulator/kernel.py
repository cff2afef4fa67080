"""The launch code of swapcheck's stand-in simulator: a transcription of
numba-cuda's numba_cuda/numba/cuda/simulator/kernel.py at d41b90d3 (the
kernel context, FakeCUDAKernel.__call__, BlockThread and
BlockManager.run), in the same functions and with the same text on every
line the model's steps cite, so that a replay finds its anchors here as
it finds them in numba's own. Left out: numpy (np.ndindex is
itertools.product here), kernel arguments and their copies, debug mode,
streams and the cooperative-launch API."""
from contextlib import contextmanager
import itertools
import sys
import threading

from .kernelapi import Dim3, FakeCUDAModule, swapped_cuda_module


"""
Global variable to keep track of the current "kernel context", i.e the
FakeCUDAModule.  We only support one kernel launch at a time.
No support for concurrent kernel launch.
"""
_kernel_context = None


@contextmanager
def _push_kernel_context(mod):
    """
    Push the current kernel context.
    """
    global _kernel_context
    assert _kernel_context is None, "concurrent simulated kernel not supported"
    _kernel_context = mod
    try:
        yield
    finally:
        _kernel_context = None


def _get_kernel_context():
    """
    Get the current kernel context. This is usually done by a device function.
    """
    return _kernel_context


def normalize_kernel_dimensions(griddim, blockdim):
    """numba.cuda.errors's: each of the two a tuple of three integers."""

    def check_dim(dim, name):
        if not isinstance(dim, (tuple, list)):
            dim = [dim]
        else:
            dim = list(dim)
        while len(dim) < 3:
            dim.append(1)
        return tuple(dim)

    if None in (griddim, blockdim):
        raise ValueError("launch configuration was not specified")
    griddim = check_dim(griddim, "griddim")
    blockdim = check_dim(blockdim, "blockdim")
    return griddim, blockdim


class FakeCUDAKernel:
    """
    Wraps a @cuda.jit-ed function.
    """

    def __init__(self, fn, device, fastmath=False, extensions=[], debug=False):
        self.fn = fn
        self._device = device
        self.grid_dim = None
        self.block_dim = None
        self.stream = 0
        self.dynshared_size = 0

    def __call__(self, *args):
        if self._device or _kernel_context:
            with swapped_cuda_module(self.fn, _get_kernel_context()):
                return self.fn(*args)

        # Ensure we've been given a valid grid configuration
        grid_dim, block_dim = normalize_kernel_dimensions(
            self.grid_dim, self.block_dim
        )

        fake_cuda_module = FakeCUDAModule(
            grid_dim, block_dim, self.dynshared_size
        )
        with _push_kernel_context(fake_cuda_module):
            with swapped_cuda_module(self.fn, fake_cuda_module):
                # Execute one block at a time
                for grid_point in itertools.product(*(range(d) for d in grid_dim)):
                    bm = BlockManager(self.fn, grid_dim, block_dim, False)
                    bm.run(grid_point, *args)

    def __getitem__(self, configuration):
        self.grid_dim, self.block_dim = normalize_kernel_dimensions(
            *configuration[:2]
        )

        if len(configuration) == 4:
            self.dynshared_size = configuration[3]

        return self


# Thread emulation


class BlockThread(threading.Thread):
    """
    Manages the execution of a function for a single CUDA thread.
    """

    def __init__(self, f, manager, blockIdx, threadIdx, debug):
        super(BlockThread, self).__init__(target=f)
        self.syncthreads_event = threading.Event()
        self.syncthreads_blocked = False
        self._manager = manager
        self.blockIdx = Dim3(*blockIdx)
        self.threadIdx = Dim3(*threadIdx)
        self.exception = None
        self.daemon = True
        self.abort = False
        self.debug = debug
        blockDim = Dim3(*self._manager._block_dim)
        self.thread_id = self.threadIdx.x + (
            blockDim.x * (self.threadIdx.y + blockDim.y * self.threadIdx.z)
        )

    def run(self):
        try:
            super(BlockThread, self).run()
        except Exception as e:
            tid = "tid=%s" % list(self.threadIdx)
            ctaid = "ctaid=%s" % list(self.blockIdx)
            if str(e) == "":
                msg = "%s %s" % (tid, ctaid)
            else:
                msg = "%s %s: %s" % (tid, ctaid, e)
            tb = sys.exc_info()[2]
            # Using `with_traceback` here would cause it to be mutated by
            # future raise statements, which may or may not matter.
            self.exception = (type(e)(msg), tb)

    def syncthreads(self):
        if self.abort:
            raise RuntimeError("abort flag set on syncthreads call")

        self.syncthreads_blocked = True
        self.syncthreads_event.wait()
        self.syncthreads_event.clear()

        if self.abort:
            raise RuntimeError("abort flag set on syncthreads clear")

    def __str__(self):
        return "Thread <<<%s, %s>>>" % (self.blockIdx, self.threadIdx)


class BlockManager(object):
    """
    Manages the execution of a thread block.
    """

    def __init__(self, f, grid_dim, block_dim, debug):
        self._grid_dim = grid_dim
        self._block_dim = block_dim
        self._f = f
        self._debug = debug

    def run(self, grid_point, *args):
        # Create all threads
        threads = set()
        livethreads = set()
        blockedthreads = set()
        for block_point in itertools.product(*(range(d) for d in self._block_dim)):

            def target():
                self._f(*args)

            t = BlockThread(target, self, grid_point, block_point, self._debug)
            t.start()
            threads.add(t)
            livethreads.add(t)

        # Potential optimisations:
        # 1. Continue the while loop immediately after finding a blocked thread
        # 2. Don't poll already-blocked threads
        while livethreads:
            for t in livethreads:
                if t.syncthreads_blocked:
                    blockedthreads.add(t)
                elif t.exception:
                    # Abort all other simulator threads on exception,
                    # do *not* join immediately to facilitate debugging.
                    for t_other in threads:
                        t_other.abort = True
                        t_other.syncthreads_blocked = False
                        t_other.syncthreads_event.set()

                    raise t.exception[0].with_traceback(t.exception[1])
            if livethreads == blockedthreads:
                for t in blockedthreads:
                    t.syncthreads_blocked = False
                    t.syncthreads_event.set()
                blockedthreads = set()
            livethreads = set([t for t in livethreads if t.is_alive()])
        # Final check for exceptions in case any were set prior to thread
        # finishing, before we could check it
        for t in threads:
            if t.exception:
                raise t.exception[0].with_traceback(t.exception[1])

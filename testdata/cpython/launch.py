# launch: the host side of a simulated kernel launch, reduced from
# numba_cuda/numba/cuda/simulator/kernel.py at NVIDIA/numba-cuda commit
# d41b90d3 (numba-cuda 0.25.0), so that testdata/cpython/switchpoints.py can
# disassemble and run it without numba or numpy.
#
# Kept statement for statement (same control flow, same calls, same order):
# _push_kernel_context (kernel.py:25-36), _get_kernel_context (39-43), the
# launch path of FakeCUDAKernel.__call__ (83-131), BlockThread.run (199-212),
# BlockThread.syncthreads (214-223) and BlockManager.run (279-320). Each kept
# line ends with "# k:N", N being its line in kernel.py. Left out: argument
# conversion (fake_arg's numpy and extension cases: here every argument is
# passed through), debug mode, the syncthreads_count/and/or helpers and the
# launch configuration methods. Stand-ins (numba and numpy are not needed):
# normalize_kernel_dimensions, FakeCUDAModule, Dim3 and ndindex (a Python
# iterator like numpy's np.ndindex, whose __next__ is Python code).
# swapped_cuda_module is injected by the fixture (one variant's listing).
import itertools
import sys
import threading
from contextlib import contextmanager

swapped_cuda_module = None  # set by the fixture to a variant's swapped_cuda_module


class Dim3(tuple):
    def __new__(cls, x=1, y=1, z=1):
        return tuple.__new__(cls, (x, y, z))

    x = property(lambda self: self[0])
    y = property(lambda self: self[1])
    z = property(lambda self: self[2])


class FakeCUDAModule:
    def __init__(self, grid_dim, block_dim, dynshared_size):
        self.gridDim = Dim3(*grid_dim)
        self.blockDim = Dim3(*block_dim)
        self._dynshared_size = dynshared_size


def normalize_kernel_dimensions(griddim, blockdim):
    return tuple(griddim), tuple(blockdim)


class ndindex:
    def __init__(self, *shape):
        self._it = itertools.product(*[range(n) for n in shape])

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)


_kernel_context = None  # k:22


@contextmanager  # k:25
def _push_kernel_context(mod):  # k:26
    global _kernel_context  # k:30
    assert _kernel_context is None, "concurrent simulated kernel not supported"  # k:31
    _kernel_context = mod  # k:32
    try:  # k:33
        yield  # k:34
    finally:  # k:35
        _kernel_context = None  # k:36


def _get_kernel_context():  # k:39
    return _kernel_context  # k:43


class FakeCUDAKernel(object):
    def __init__(self, fn, device, grid_dim=(1,), block_dim=(1,)):
        self.fn = fn
        self._device = device
        self.grid_dim = grid_dim
        self.block_dim = block_dim
        self.dynshared_size = 0
        self._debug = False

    def __call__(self, *args):  # k:83
        if self._device or _kernel_context:  # k:84
            with swapped_cuda_module(self.fn, _get_kernel_context()):  # k:85
                return self.fn(*args)  # k:86

        # Ensure we've been given a valid grid configuration
        grid_dim, block_dim = normalize_kernel_dimensions(  # k:89
            self.grid_dim, self.block_dim  # k:90
        )

        fake_cuda_module = FakeCUDAModule(  # k:93
            grid_dim, block_dim, self.dynshared_size  # k:94
        )
        with _push_kernel_context(fake_cuda_module):  # k:96
            retr = []  # k:99

            def fake_arg(arg):  # k:101
                return arg  # k:118 (the pass-through case)

            fake_args = [fake_arg(arg) for arg in args]  # k:123
            with swapped_cuda_module(self.fn, fake_cuda_module):  # k:124
                # Execute one block at a time
                for grid_point in ndindex(*grid_dim):  # k:126
                    bm = BlockManager(self.fn, grid_dim, block_dim, self._debug)  # k:127
                    bm.run(grid_point, *fake_args)  # k:128

            for wb in retr:  # k:130
                wb()  # k:131


class BlockThread(threading.Thread):
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

    def run(self):  # k:199
        try:  # k:200
            super(BlockThread, self).run()  # k:201
        except Exception as e:  # k:202
            tid = "tid=%s" % list(self.threadIdx)  # k:203
            ctaid = "ctaid=%s" % list(self.blockIdx)  # k:204
            if str(e) == "":  # k:205
                msg = "%s %s" % (tid, ctaid)  # k:206
            else:  # k:207
                msg = "%s %s: %s" % (tid, ctaid, e)  # k:208
            tb = sys.exc_info()[2]  # k:209
            self.exception = (type(e)(msg), tb)  # k:212

    def syncthreads(self):  # k:214
        if self.abort:  # k:215
            raise RuntimeError("abort flag set on syncthreads call")  # k:216

        self.syncthreads_blocked = True  # k:218
        self.syncthreads_event.wait()  # k:219
        self.syncthreads_event.clear()  # k:220

        if self.abort:  # k:222
            raise RuntimeError("abort flag set on syncthreads clear")  # k:223


class BlockManager(object):
    def __init__(self, f, grid_dim, block_dim, debug):
        self._grid_dim = grid_dim
        self._block_dim = block_dim
        self._f = f
        self._debug = debug

    def run(self, grid_point, *args):  # k:279
        # Create all threads
        threads = set()  # k:281
        livethreads = set()  # k:282
        blockedthreads = set()  # k:283
        for block_point in ndindex(*self._block_dim):  # k:284

            def target():  # k:286
                self._f(*args)  # k:287

            t = BlockThread(target, self, grid_point, block_point, self._debug)  # k:289
            t.start()  # k:290
            threads.add(t)  # k:291
            livethreads.add(t)  # k:292

        while livethreads:  # k:297
            for t in livethreads:  # k:298
                if t.syncthreads_blocked:  # k:299
                    blockedthreads.add(t)  # k:300
                elif t.exception:  # k:301
                    # Abort all other simulator threads on exception,
                    # do *not* join immediately to facilitate debugging.
                    for t_other in threads:  # k:304
                        t_other.abort = True  # k:305
                        t_other.syncthreads_blocked = False  # k:306
                        t_other.syncthreads_event.set()  # k:307

                    raise t.exception[0].with_traceback(t.exception[1])  # k:309
            if livethreads == blockedthreads:  # k:310
                for t in blockedthreads:  # k:311
                    t.syncthreads_blocked = False  # k:312
                    t.syncthreads_event.set()  # k:313
                blockedthreads = set()  # k:314
            livethreads = set([t for t in livethreads if t.is_alive()])  # k:315
        # Final check for exceptions in case any were set prior to thread
        # finishing, before we could check it
        for t in threads:  # k:318
            if t.exception:  # k:319
                raise t.exception[0].with_traceback(t.exception[1])  # k:320

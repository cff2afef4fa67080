"""The kernel API of swapcheck's stand-in simulator (numba-cuda's
numba_cuda/numba/cuda/simulator/kernelapi.py, the parts a scenario uses,
without numpy): the fake module a launch swaps in, and the swap itself,
which is the variant's rendition, imported from its own module (pyreplay
names it when it writes the stand-in)."""
import threading


class Dim3(object):
    def __init__(self, x, y, z):
        self.x = x
        self.y = y
        self.z = z

    def __repr__(self):
        return "Dim3(%s, %s, %s)" % (self.x, self.y, self.z)

    def __iter__(self):
        yield self.x
        yield self.y
        yield self.z


class FakeCUDALocal(object):
    def array(self, shape, dtype):
        return [0] * shape


class FakeCUDAShared(object):
    def __init__(self, dynshared_size):
        self._allocations = {}

    def array(self, shape, dtype):
        return [0] * shape


class FakeCUDAConst(object):
    def array_like(self, ary):
        return ary


class FakeCUDAModule(object):
    """The kernel API a launch's code sees: one per launch."""

    def __init__(self, grid_dim, block_dim, dynshared_size):
        self.gridDim = Dim3(*grid_dim)
        self.blockDim = Dim3(*block_dim)
        self._local = FakeCUDALocal()
        self._shared = FakeCUDAShared(dynshared_size)
        self._const = FakeCUDAConst()

    @property
    def local(self):
        return self._local

    @property
    def shared(self):
        return self._shared

    @property
    def const(self):
        return self._const

    @property
    def threadIdx(self):
        return threading.current_thread().threadIdx

    @property
    def blockIdx(self):
        return threading.current_thread().blockIdx

    @property
    def warpsize(self):
        return 32

    @property
    def laneid(self):
        return threading.current_thread().thread_id % 32

    def syncthreads(self):
        threading.current_thread().syncthreads()

    def threadfence(self):
        pass

    def threadfence_block(self):
        pass

    def grid(self, n):
        return self.blockIdx.x * self.blockDim.x + self.threadIdx.x

    def gridsize(self, n):
        return self.blockDim.x * self.gridDim.x


from .swap_variant import swapped_cuda_module  # noqa: E402 (pyreplay names the variant's module)
